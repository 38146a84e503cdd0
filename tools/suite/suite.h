// SPDX-License-Identifier: Apache-2.0
/* The conformance suite behind `anygpu test`: the project's portable
 * kernels (the .cl files of tools/suite) run on a device through the public API and
 * checked element by element against references computed on the host
 * (docs/conformance.md). */
#ifndef ANYGPU_TOOLS_SUITE_H
#define ANYGPU_TOOLS_SUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anygpu.h"

typedef enum suite_size { SUITE_SMALL, SUITE_MEDIUM, SUITE_LARGE } suite_size;

/* "small", "medium", "large"; false for another name. */
bool suite_size_parse(const char *name, suite_size *size);
const char *suite_size_name(suite_size size);

typedef enum suite_status { SUITE_PASS, SUITE_FAIL, SUITE_SKIP } suite_status;

typedef struct suite_result {
  suite_status status;
  double max_rel_error; /* the worst element's error over its scale (see docs) */
  double tolerance;     /* the bound it is held to (0: exact) */
  double time_ms;       /* the launches, from first submit to finish; no build */
  char reason[1024];    /* FAIL: the worst element; SKIP: why; "" on a pass */
} suite_result;

typedef struct suite_run suite_run;

typedef struct suite_case {
  const char *name;  /* "matmul_tiled.f32" */
  const char *file;  /* "matmul.cl" */
  const char *entry; /* the kernel, or the first of several */
  bool fp64;         /* built with -DSUITE_FP64; skipped where the device has no fp64 */
  void (*run)(suite_run *run);
} suite_case;

size_t suite_case_count(void);
const suite_case *suite_case_at(size_t index);
/* Does `case` match a --kernel term: its whole name, its name without the
 * type ("matmul_tiled"), or its file's stem ("matmul")? */
bool suite_case_matches(const suite_case *kase, const char *term);

/* One device's state across cases: programs are built once per file and
 * options. `kernels_dir` (NULL: the sources built into anygpu) is where the
 * .cl files are read from. */
typedef struct suite_device suite_device;

suite_device *suite_device_open(agpu_device *device, const char *kernels_dir);
void suite_device_close(suite_device *device);

/* What one case's runs on several devices share: the host references,
 * computed on the first device's run (the inputs are the same on every
 * device). Start each case with a zeroed one; free it after the last
 * device. */
#define SUITE_MAX_SHARED 4
typedef struct suite_shared {
  char names[SUITE_MAX_SHARED][32];
  void *arrays[SUITE_MAX_SHARED];
} suite_shared;

void suite_shared_free(suite_shared *shared);

void suite_run_case(suite_device *device, const suite_case *kase, suite_size size, uint64_t seed,
                    suite_shared *shared, suite_result *result);

/* The built-in copy of tools/suite/NAME, NULL if there is none. */
const char *suite_builtin_source(const char *name);

#endif /* ANYGPU_TOOLS_SUITE_H */
