// SPDX-License-Identifier: Apache-2.0
/* anygpu bench: bandwidth, FLOP/s, reduction, launch latency, transfers and
 * build time per device, beside the device's theoretical peak and the
 * native API doing the same work (docs/bench.md). */
#ifndef ANYGPU_TOOLS_BENCH_H
#define ANYGPU_TOOLS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "anygpu.h"

/* The groups --bench names. */
enum {
  BENCH_COPY = 1u << 0,
  BENCH_MUL = 1u << 1,
  BENCH_ADD = 1u << 2,
  BENCH_TRIAD = 1u << 3,
  BENCH_DOT = 1u << 4,
  BENCH_STREAM = BENCH_COPY | BENCH_MUL | BENCH_ADD | BENCH_TRIAD | BENCH_DOT,
  BENCH_SUM = 1u << 5,
  BENCH_SGEMM = 1u << 6,
  BENCH_LAUNCH = 1u << 7,
  BENCH_TRANSFER = 1u << 8,
  BENCH_BUILD = 1u << 9,
  BENCH_ALL = (1u << 10) - 1,
};

/* Parses "triad,sgemm": a mask of the groups above; false with the unknown
 * name in `bad`. */
bool bench_parse_names(const char *list, uint32_t *mask, char *bad, size_t bad_size);
/* "copy, mul, add, triad, dot, stream, sum, sgemm, launch, transfer, build" */
const char *bench_known_names(void);

typedef struct bench_options {
  const char *selector; /* NULL: every device */
  uint32_t benches;     /* a mask of the groups above */
  uint64_t elements;    /* stream, sum and transfer array length; 0: from the cache size */
  uint32_t sgemm_n;     /* 0: the default */
  uint32_t iterations;  /* stream iterations; 0: the default */
  uint32_t repeat;      /* repeats of the others; 0: the default */
  bool quick;
  bool native; /* run the native baselines (--no-native turns them off) */
  bool progress;
} bench_options;

typedef enum bench_status { BENCH_OK, BENCH_FAILED, BENCH_SKIPPED } bench_status;

typedef struct bench_result {
  char selector[32]; /* "opencl:0" */
  char device[256];  /* the device's name */
  char backend[16];
  uint32_t physical;  /* phys:N */
  char benchmark[32]; /* "triad.f32" */
  char unit[16];      /* "GB/s", "GFLOP/s", "us", "ms" */
  bool lower_is_better;
  bench_status status;
  double value;  /* NAN when it did not run */
  double peak;   /* theoretical, NAN when unknown or not applicable */
  double native; /* the native program's figure, NAN when none */
  char native_program[32];
  char native_note[512]; /* why there is no native figure, or what it is */
  char note[256];        /* what the figure is ("best of 9", "variant ...") */
  char message[1024];    /* FAILED, SKIPPED: why; or why there is no native figure */
} bench_result;

typedef struct bench_results {
  bench_result *items;
  size_t count, capacity;
} bench_results;

/* A new result for `benchmark` on the device, NULL when out of memory. */
bench_result *bench_results_add(bench_results *results, const agpu_device_info *info,
                                uint32_t physical, const char *benchmark, const char *unit,
                                bool lower_is_better);
void bench_results_free(bench_results *results);

/* The fraction of the peak and the ratio to native (above 1: anygpu is
 * better, for latencies too); NAN when unknown. */
double bench_fraction_of_peak(const bench_result *result);
double bench_ratio_to_native(const bench_result *result);

/* One device's run: what every benchmark needs. */
typedef struct bench_device {
  agpu_device *device;
  agpu_queue *queue; /* the device's default queue */
  agpu_device_info info;
  uint32_t physical;
  const bench_options *options;
  bench_results *results;
  agpu_program *program; /* bench_kernels.cl, float (NULL until built) */
  agpu_status program_status;
  char program_message[1024];
  size_t step, steps; /* progress */
} bench_device;

void bench_fail(bench_result *result, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void bench_skip(bench_result *result, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* Records a failed library call; true if `status` is a failure. */
bool bench_call_failed(bench_result *result, const char *what, agpu_status status);

/* Builds the benchmark kernels (the file and options); UNSUPPORTED where the
 * device lacks a feature they need. */
agpu_status bench_build(bench_device *device, const char *file, const char *options,
                        agpu_program **program);
/* A kernel of the float build of bench_kernels.cl, or NULL with the reason
 * in the result. */
agpu_kernel *bench_kernel(bench_device *device, bench_result *result, const char *name);
/* The largest power of two at most `cap` that the device and the kernel
 * allow as a 1D work-group size. */
size_t bench_group_size(const bench_device *device, agpu_kernel *kernel, size_t cap);
/* The work-group size of the element-wise stream kernels over n work-items
 * (n a multiple of 1024): BabelStream's GPU models' 256, capped by every
 * kernel's limit; on a CPU-type OpenCL device (PoCL) what BabelStream's
 * OpenCL model gets from the driver, which it leaves to choose: the largest
 * power of two the kernels allow that divides n and leaves at least one
 * group per compute unit (4096 on PoCL; 256 measured 0-10% slower there, at
 * the edge of the build machine's noise: docs/bench.md). */
size_t bench_stream_group_size(const bench_device *device, agpu_kernel *const kernels[],
                               size_t count, uint64_t n);
/* The launch of a grid-stride reduction (each work-item sums a slice, the
 * group adds its items): BabelStream's four groups of up to 256 per compute
 * unit, or on a CPU device that runs work-items one after another one
 * work-item per compute unit. */
void bench_reduction_shape(const bench_device *device, agpu_kernel *kernel, size_t *groups,
                           size_t *local);

/* The progress line on stderr. */
void bench_progress(bench_device *device, const char *what);

double bench_seconds(void);
/* Sorts `values` and returns the median. */
double bench_median(double *values, size_t count);

/* Array lengths: what --size says, else 4 times the last-level cache (64 MiB
 * per array when unknown), at most a quarter of the device's memory for
 * `arrays` arrays of `element_size`. */
uint64_t bench_stream_elements(const bench_device *device, size_t element_size, int arrays);

/* The benchmarks; each adds its results. */
void bench_stream(bench_device *device, bool fp64);
void bench_sum(bench_device *device);
void bench_sgemm(bench_device *device);
void bench_latency(bench_device *device);
void bench_transfer(bench_device *device);
void bench_build_time(bench_device *device);

/* The native program for `benchmark` ("triad", "roundtrip", "sgemm") on
 * the result's device, run with the same size and iterations; fills
 * result->native or says in result->native_note why there is none. */
void bench_native(const bench_device *device, bench_result *result, const char *benchmark,
                  uint64_t size, uint32_t iterations);
/* Where the native programs were looked for, for the docs and messages. */
void bench_native_directories(char *out, size_t capacity);

/* The sgemm variant cached for this device, or remembered after tuning. */
bool bench_tuning_lookup(const agpu_device_info *info, uint32_t n, char *variant, size_t capacity);
void bench_tuning_store(const agpu_device_info *info, uint32_t n, const char *variant);

/* The built-in copy of a bench kernel file. */
const char *bench_builtin_source(const char *name);
/* The suite's copy of tools/suite/NAME (the reduction kernel). */
const char *suite_builtin_source(const char *name);

/* Output. */
void bench_print_table(FILE *out, const bench_results *results);
void bench_print_json(FILE *out, const bench_results *results, double seconds);
/* A self-contained HTML page with inline SVG charts; false on a write error. */
bool bench_write_html(const char *path, const bench_results *results, char *error,
                      size_t error_size);

#endif /* ANYGPU_TOOLS_BENCH_H */
