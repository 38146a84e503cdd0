// SPDX-License-Identifier: Apache-2.0
/* The kernel corpus: files of portable kernels whose leading comment block
 * declares how to run them (tests/kernels/README.md describes the format).
 *
 * corpus_parse.c reads a file's header, corpus_data.c makes inputs and
 * compares outputs, corpus_run.c runs a kernel on a device through the public
 * API. */
#ifndef AGPU_CORPUS_H
#define AGPU_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anygpu.h"

#define CORPUS_MAX_ARGS 16
#define CORPUS_MAX_LANES 16
#define CORPUS_NAME_MAX 128
#define CORPUS_TEXT_MAX 512

/* ------------------------------------------------------------------ types */

typedef enum corpus_scalar {
  CORPUS_CHAR,
  CORPUS_UCHAR,
  CORPUS_SHORT,
  CORPUS_USHORT,
  CORPUS_INT,
  CORPUS_UINT,
  CORPUS_LONG,
  CORPUS_ULONG,
  CORPUS_HALF,
  CORPUS_FLOAT,
  CORPUS_DOUBLE,
} corpus_scalar;

/* A scalar or vector type: "int" is {CORPUS_INT, 1}, "float3" {CORPUS_FLOAT, 3}. */
typedef struct corpus_type {
  corpus_scalar scalar;
  unsigned lanes; /* 1, 2, 3, 4, 8 or 16 */
} corpus_type;

/* Parses "uint", "float4", "uchar16"; false for anything else. */
bool corpus_type_parse(const char *text, corpus_type *type);
/* "float4" */
void corpus_type_name(corpus_type type, char *out, size_t capacity);
size_t corpus_scalar_size(corpus_scalar scalar);
bool corpus_scalar_is_float(corpus_scalar scalar);
bool corpus_scalar_is_signed(corpus_scalar scalar);
/* Bytes of one element in a buffer or argument: 3-lane vectors take 4 lanes. */
size_t corpus_type_size(corpus_type type);
/* Lanes stored per element (4 for 3-lane vectors). */
unsigned corpus_type_stored_lanes(corpus_type type);

/* ------------------------------------------------------------ the header */

typedef enum corpus_arg_kind {
  CORPUS_ARG_BUFFER,
  CORPUS_ARG_VALUE,
  CORPUS_ARG_LOCAL,
} corpus_arg_kind;

typedef enum corpus_init {
  CORPUS_INIT_RANDOM, /* random LO HI [nonzero] */
  CORPUS_INIT_FILL,   /* fill V */
  CORPUS_INIT_IOTA,   /* iota [START] : START, START+1, ... per lane */
  CORPUS_INIT_POISON, /* output: the poison pattern */
} corpus_init;

/* A number from the header, read as a double and, where it is an integer,
 * exactly as a 64-bit integer (signed for signed types, else unsigned). */
typedef struct corpus_number {
  double f;
  int64_t i;
  uint64_t u;
} corpus_number;

typedef struct corpus_arg {
  corpus_arg_kind kind;
  corpus_type type;
  size_t count; /* elements (buffers, local) */
  corpus_init init;
  corpus_number lo, hi;                   /* random range: integers inclusive, floats [lo, hi) */
  bool nonzero;                           /* random: never 0 (divisors) */
  corpus_number fill;                     /* fill value, iota start */
  bool compared;                          /* output or inout: read back and compared */
  bool poisoned;                          /* output: must be written, checked against the poison */
  size_t written;                         /* elements that must be written / are compared */
  corpus_number values[CORPUS_MAX_LANES]; /* value arguments */
  int line;                               /* header line, for messages */
} corpus_arg;

typedef enum corpus_tolerance_kind {
  CORPUS_TOLERANCE_EXACT = 0, /* bit for bit (any NaN equals any NaN) */
  CORPUS_TOLERANCE_ULP = 1u << 0,
  CORPUS_TOLERANCE_ABS = 1u << 1,
  CORPUS_TOLERANCE_REL = 1u << 2,
} corpus_tolerance_kind;

/* A float element passes if it is within any of the bounds given. */
typedef struct corpus_tolerance {
  unsigned kinds; /* CORPUS_TOLERANCE_* bits; 0: exact */
  double ulp, abs, rel;
} corpus_tolerance;

typedef enum corpus_requirement {
  CORPUS_REQUIRES_FP64 = 1u << 0,
  CORPUS_REQUIRES_FP16 = 1u << 1,
  CORPUS_REQUIRES_INT64 = 1u << 2,
} corpus_requirement;

typedef struct corpus_kernel {
  char path[CORPUS_TEXT_MAX];
  char file_name[CORPUS_NAME_MAX]; /* "012_saxpy.cl" */
  char dir[CORPUS_TEXT_MAX];       /* its folder: the include directory of its build */
  char stem[CORPUS_NAME_MAX];      /* "012_saxpy" */
  char entry[CORPUS_NAME_MAX];     /* @kernel */
  char options[CORPUS_TEXT_MAX];   /* @options */
  char *source;                    /* the whole file, NUL-terminated */
  size_t source_size;
  /* valid kernels */
  uint32_t dims;
  size_t global[3]; /* as declared; rounded up to `local` at launch */
  size_t local[3];
  corpus_arg args[CORPUS_MAX_ARGS];
  uint32_t arg_count;
  corpus_tolerance tolerance;
  unsigned requires; /* corpus_requirement bits */
  /* invalid kernels */
  int error_line, error_column;
  char error_message[CORPUS_TEXT_MAX];
} corpus_kernel;

typedef enum corpus_file_kind {
  CORPUS_VALID,   /* runs: @kernel, @global, @local, @arg... */
  CORPUS_INVALID, /* must be rejected: @error LINE:COL message */
} corpus_file_kind;

/* Reads and parses one corpus file. On failure returns false and writes
 * "path:line: what is wrong" into `error`. */
bool corpus_load(const char *path, corpus_file_kind kind, corpus_kernel *kernel, char *error,
                 size_t error_capacity);
void corpus_free(corpus_kernel *kernel);

/* The *.cl files of a directory, sorted by name; *count of them. The caller
 * frees each name and the array. */
bool corpus_list_dir(const char *dir, char ***names, size_t *count);

/* ------------------------------------------------------- inputs, outputs */

/* Host copies of every buffer argument after a run (NULL for the others). */
typedef struct corpus_result {
  void *buffers[CORPUS_MAX_ARGS];
  size_t sizes[CORPUS_MAX_ARGS];
} corpus_result;

void corpus_result_free(corpus_result *result);

/* Bytes of buffer argument `arg`. */
size_t corpus_buffer_bytes(const corpus_arg *arg);
/* Fills `data` with argument `index`'s initial contents: inputs from the
 * seed (the same seed gives the same data everywhere), outputs with poison
 * pattern `poison` (0 or 1). */
void corpus_fill_buffer(const corpus_kernel *kernel, uint32_t index, uint64_t seed, int poison,
                        void *data);
/* The bytes of a value argument. */
agpu_arg corpus_value_arg(const corpus_arg *arg);

/* Checks a poisoned output after run 0 (poison pattern 0) and run 1 (pattern
 * 1): a lane still holding its run's poison in both runs was never written.
 * Writes a message and returns false when an element declared written was
 * not. */
bool corpus_check_written(const corpus_arg *arg, const void *run0, const void *run1, char *message,
                          size_t capacity);
/* Compares a compared buffer: bit for bit, or within the tolerance for floats.
 * Returns false with the worst element (index, lane, expected, got) in
 * `message`. `bitwise` forces a bit-for-bit comparison of floats too. */
bool corpus_compare(const corpus_kernel *kernel, const corpus_arg *arg, const void *expected,
                    const void *got, bool bitwise, char *message, size_t capacity);

/* ------------------------------------------------------------------- run */

typedef enum corpus_outcome {
  CORPUS_RAN,
  CORPUS_SKIPPED, /* the device cannot run it; `message` says why */
  CORPUS_FAILED,  /* `message` says what failed */
} corpus_outcome;

#define CORPUS_RUNS 2

/* Print each build's log (compiler warnings) before the kernel's line. */
extern bool corpus_show_build_logs;

/* Builds the kernel on `device` once and runs it CORPUS_RUNS times with the
 * same inputs, run r with poison pattern r, filling results[r]. */
corpus_outcome corpus_run(agpu_device *device, const corpus_kernel *kernel, uint64_t seed,
                          corpus_result results[CORPUS_RUNS], char *message, size_t capacity);

/* "opencl:0" */
const char *corpus_device_selector(agpu_device *device);

/* The global size actually launched: `global` rounded up to `local`. */
void corpus_launch_size(const corpus_kernel *kernel, size_t global[3]);

#endif /* AGPU_CORPUS_H */
