// SPDX-License-Identifier: Apache-2.0
/* The OpenBLAS baseline: cblas_sgemm of order N (row-major, no transposes,
 * alpha 1, beta 0) on all the threads OpenBLAS starts, best of the
 * iterations after the first. */
#include <stdlib.h>

#include <cblas.h>

#include "native_common.h"
#include "sgemm_check.h"

/* Not in every cblas.h, but in every OpenBLAS. */
char *openblas_get_config(void);
int openblas_get_num_threads(void);

int main(int argc, char **argv) {
  native_options options;
  int status = native_parse(argc, argv, NATIVE_SGEMM, 2048, &options);
  if (status >= 0) return status;
  if (options.device != 0) return native_unavailable("OpenBLAS runs on the CPU, device 0 only");
  size_t n = options.size;
  if (n > 32768) return native_fail("--size is the matrix order N for sgemm; %zu is too large", n);
  native_note("device 0: %s, %d threads", openblas_get_config(), openblas_get_num_threads());
  float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
  float *c = malloc(n * n * sizeof *c);
  double *times = malloc((size_t)options.iterations * sizeof *times);
  status = 0;
  if (!a || !b || !c || !times) {
    status = native_fail("no memory for three %zu x %zu matrices", n, n);
  } else {
    sgemm_fill(a, n * n, 1);
    sgemm_fill(b, n * n, 2);
    for (size_t i = 0; i < n * n; i++) c[i] = nanf("");
    for (int k = 0; k < options.iterations; k++) {
      double start = native_now_ns();
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, a,
                  (int)n, b, (int)n, 0.0f, c, (int)n);
      times[k] = native_now_ns() - start;
    }
    size_t row = 0, col = 0;
    int wrong = sgemm_check(a, b, c, n, &row, &col);
    if (wrong)
      status = native_fail("sgemm: %d of 16 checked entries wrong, e.g. C[%zu][%zu] = %g", wrong,
                           row, col, (double)c[row * n + col]);
    else
      native_report("sgemm", sgemm_gflops(n, native_best_after_first(times, options.iterations)),
                    "GFLOP/s");
  }
  free(a);
  free(b);
  free(c);
  free(times);
  return status;
}
