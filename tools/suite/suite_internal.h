// SPDX-License-Identifier: Apache-2.0
/* What the suite's parts share: a case's run (its device, inputs, buffers
 * and verdict) and the helpers the cases are written with. Every helper
 * that can fail records the failure in the run and returns false (or NULL);
 * a case returns at the first such failure. */
#ifndef ANYGPU_TOOLS_SUITE_INTERNAL_H
#define ANYGPU_TOOLS_SUITE_INTERNAL_H

#include "suite.h"

#define SUITE_MAX_OBJECTS 32

/* The problem sizes of each --size. */
typedef struct suite_sizes {
  uint32_t vector_n;
  uint32_t matmul_m, matmul_n, matmul_k;
  uint32_t reduce_n;
  uint32_t scan_n;
  uint32_t histogram_n;
  uint32_t transpose_rows, transpose_cols;
  uint32_t stencil_width, stencil_height;
} suite_sizes;

const suite_sizes *suite_sizes_of(suite_size size);

struct suite_run {
  suite_device *device;
  agpu_device_info info;
  const suite_case *kase;
  const suite_sizes *sizes;
  uint64_t seed;
  suite_result *result;
  suite_shared *shared;
  bool done; /* failed or skipped: the case stops */
  uint64_t launch_ns;
  agpu_buffer *buffers[SUITE_MAX_OBJECTS];
  agpu_kernel *kernels[SUITE_MAX_OBJECTS];
  void *host[SUITE_MAX_OBJECTS];
};

void suite_fail(suite_run *run, const char *format, ...) __attribute__((format(printf, 2, 3)));
void suite_skip(suite_run *run, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* A failed library call: "what: STATUS: message". */
bool suite_library_failed(suite_run *run, const char *what, agpu_status status);

/* The case's kernel `entry` from its file, built with -DSUITE_FP64 for fp64
 * cases and `options` ("-DTILE=16", may be NULL). */
agpu_kernel *suite_kernel(suite_run *run, const char *entry, const char *options);
/* The largest power of two work-group size, at most `cap`, that the device
 * and the kernel allow. */
size_t suite_group_size(suite_run *run, agpu_kernel *kernel, size_t cap);

/* Host memory freed when the case ends (NULL, with a failure, when out of
 * memory). */
void *suite_alloc(suite_run *run, size_t bytes);
/* Arrays shared by the case's runs on every device, by name: find returns
 * one an earlier device's run kept (NULL if none); keep hands over memory
 * from suite_alloc, once it is filled, for the later devices. */
void *suite_shared_find(suite_run *run, const char *name);
void suite_shared_keep(suite_run *run, const char *name, void *memory);
/* Bytes of one real of this case: 8 for fp64 cases, else 4. */
static inline size_t suite_real_size(const suite_run *run) {
  return run->kase->fp64 ? sizeof(double) : sizeof(float);
}
/* Inline: the references read billions of elements at the large size. */
static inline double suite_real_get(const suite_run *run, const void *data, size_t index) {
  return run->kase->fp64 ? ((const double *)data)[index] : (double)((const float *)data)[index];
}
static inline void suite_real_set(const suite_run *run, void *data, size_t index, double value) {
  if (run->kase->fp64)
    ((double *)data)[index] = value;
  else
    ((float *)data)[index] = (float)value;
}
/* `value` rounded to the case's real type. */
double suite_real_round(const suite_run *run, double value);

/* n reals uniform in [lo, hi), or uint32 values, from the seed and `stream`:
 * each array of each case has its own stream. */
void *suite_random_reals(suite_run *run, const char *stream, size_t n, double lo, double hi);
uint32_t *suite_random_uints(suite_run *run, const char *stream, size_t n, uint32_t mask);
int32_t *suite_random_ints(suite_run *run, const char *stream, size_t n, int32_t lo, int32_t hi);

/* A device buffer holding `data`; an output of `bytes` filled with the
 * poison (NaN bit patterns for reals, 0xA5 bytes for integers); a buffer
 * filled with zeros. Released when the case ends. */
agpu_buffer *suite_input(suite_run *run, const void *data, size_t bytes);
agpu_buffer *suite_output(suite_run *run, size_t bytes, bool reals);
agpu_buffer *suite_zeros(suite_run *run, size_t bytes);
/* Reads a buffer back into new host memory. */
void *suite_read(suite_run *run, agpu_buffer *buffer, size_t bytes);

/* Launches over `need` work-items rounded up to multiples of `local`, and
 * adds the time to the case's. */
bool suite_launch(suite_run *run, agpu_kernel *kernel, uint32_t dims, const size_t need[],
                  const size_t local[], uint32_t nargs, const agpu_arg args[]);

/* A real value argument of the case's type. */
agpu_arg suite_real_arg(const suite_run *run, double value);

/* --------------------------------------------------------------- checks */

/* gamma(n) = n u / (1 - n u) for the case's unit roundoff u, plus the same
 * for the reference's own rounding (docs/conformance.md). */
double suite_gamma(const suite_run *run, double n);

/* Each got[i] (reals of the case's type) against expected[i]: its error
 * |got - expected| / scale[i] must be at most `tolerance` (scale 0: exactly
 * equal). `columns` > 0 names 2D elements by row and column. */
void suite_check_reals(suite_run *run, const char *what, const void *got, const double *expected,
                       const double *scale, size_t n, size_t columns, double tolerance);
/* Bit for bit. */
void suite_check_uints(suite_run *run, const char *what, const uint32_t *got,
                       const uint32_t *expected, size_t n, size_t columns);

/* ---------------------------------------------------------------- cases */

void suite_case_vector(suite_run *run);
void suite_case_add_int(suite_run *run);
void suite_case_bitops(suite_run *run);
void suite_case_matmul(suite_run *run);
void suite_case_reduce_sum(suite_run *run);
void suite_case_dot(suite_run *run);
void suite_case_minmax(suite_run *run);
void suite_case_sum_atomic(suite_run *run);
void suite_case_transpose(suite_run *run);
void suite_case_scan(suite_run *run);
void suite_case_histogram(suite_run *run);
void suite_case_stencil(suite_run *run);

#endif /* ANYGPU_TOOLS_SUITE_INTERNAL_H */
