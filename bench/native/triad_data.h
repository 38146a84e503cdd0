// SPDX-License-Identifier: Apache-2.0
/* The triad's data, the same in every native program: a = b + s * c with
 * b[i] = i mod 1024, c[i] = i mod 13 and s = 3, so that every a[i] is an
 * exact small integer whatever the rounding (fma or not); a starts as NaN so
 * that an element the kernel skipped fails the check. */
#ifndef AGPU_BENCH_NATIVE_TRIAD_DATA_H
#define AGPU_BENCH_NATIVE_TRIAD_DATA_H

#include <math.h>
#include <stddef.h>

#define TRIAD_SCALAR 3.0f

static inline float triad_b(size_t i) {
  return (float)(i % 1024);
}
static inline float triad_c(size_t i) {
  return (float)(i % 13);
}
static inline float triad_expected(size_t i) {
  return triad_b(i) + TRIAD_SCALAR * triad_c(i);
}

/* The first wrong index of a[n], or n when all are right. */
static inline size_t triad_first_wrong(const float *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != triad_expected(i)) return i;
  return n;
}

/* BabelStream's count: a written, b and c read. */
static inline double triad_gbps(size_t n, double seconds_ns) {
  return 3.0 * (double)n * sizeof(float) / seconds_ns;
}

#endif
