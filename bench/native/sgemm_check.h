// SPDX-License-Identifier: Apache-2.0
/* The sgemm programs' inputs and check: C = A B of order n, row-major,
 * A and B from a fixed pseudo-random sequence in [-1, 1), and a few entries
 * of C recomputed in double. */
#ifndef AGPU_BENCH_NATIVE_SGEMM_CHECK_H
#define AGPU_BENCH_NATIVE_SGEMM_CHECK_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

static inline void sgemm_fill(float *m, size_t count, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1u;
  for (size_t i = 0; i < count; i++) {
    x = x * 1664525u + 1013904223u;
    m[i] = (float)(x >> 8) / (float)(1u << 23) - 1.0f;
  }
}

/* Checks 16 spread entries of c against a double-precision dot product,
 * within n float roundings of the sum of |a_ik b_kj| (the textbook bound).
 * Returns the number of entries outside it; *worst_row / *worst_col name one. */
static inline int sgemm_check(const float *a, const float *b, const float *c, size_t n,
                              size_t *worst_row, size_t *worst_col) {
  int wrong = 0;
  for (size_t k = 0; k < 16; k++) {
    size_t i = (k * 7919u + 3u) % n, j = (k * 104729u + 11u) % n;
    double exact = 0, magnitude = 0;
    for (size_t l = 0; l < n; l++) {
      exact += (double)a[i * n + l] * (double)b[l * n + j];
      magnitude += fabs((double)a[i * n + l] * (double)b[l * n + j]);
    }
    if (!(fabs((double)c[i * n + j] - exact) <= (double)n * FLT_EPSILON * magnitude + 1e-6)) {
      *worst_row = i;
      *worst_col = j;
      wrong++;
    }
  }
  return wrong;
}

static inline double sgemm_gflops(size_t n, double ns) {
  return 2.0 * (double)n * n * n / ns;
}

#endif
