// SPDX-License-Identifier: Apache-2.0
/* The plain-C baseline of anygpu's CPU backend: the triad as an OpenMP loop
 * over all cores (static schedule, arrays first touched by the threads that
 * use them), and the launch roundtrip as one empty parallel region (a fork
 * and a join of all threads, as a launch of anygpu's thread pool is). */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native_common.h"
#include "triad_data.h"

static int run_triad(const native_options *options) {
  size_t n = options->size;
  float *a = aligned_alloc(64, (n * sizeof(float) + 63) & ~(size_t)63);
  float *b = aligned_alloc(64, (n * sizeof(float) + 63) & ~(size_t)63);
  float *c = aligned_alloc(64, (n * sizeof(float) + 63) & ~(size_t)63);
  if (!a || !b || !c) {
    free(a);
    free(b);
    free(c);
    return native_fail("no memory for 3 arrays of %zu floats", n);
  }
  const float nan = nanf("");
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
    a[i] = nan;
    b[i] = triad_b(i);
    c[i] = triad_c(i);
  }
  double *times = malloc((size_t)options->iterations * sizeof *times);
  if (!times) return native_fail("out of memory");
  const float s = TRIAD_SCALAR;
  for (int k = 0; k < options->iterations; k++) {
    double start = native_now_ns();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    times[k] = native_now_ns() - start;
  }
  size_t wrong = triad_first_wrong(a, n);
  int status = 0;
  if (wrong < n)
    status = native_fail("triad: a[%zu] is %g, expected %g", wrong, (double)a[wrong],
                         (double)triad_expected(wrong));
  else
    native_report("triad", triad_gbps(n, native_best_after_first(times, options->iterations)),
                  "GB/s");
  free(times);
  free(a);
  free(b);
  free(c);
  return status;
}

static int run_roundtrip(const native_options *options) {
  int reps = native_roundtrip_reps(options);
  double *times = malloc((size_t)reps * sizeof *times);
  if (!times) return native_fail("out of memory");
  volatile int sink = 0;
  for (int rep = -100; rep < reps; rep++) { /* negative repetitions warm up */
    double start = native_now_ns();
#pragma omp parallel
    {
      if (omp_get_thread_num() < 0) sink = 1; /* never: keeps the region */
    }
    if (rep >= 0) times[rep] = native_now_ns() - start;
  }
  (void)sink;
  native_report("launch_roundtrip", native_median(times, reps) / 1e3, "us");
  free(times);
  return 0;
}

int main(int argc, char **argv) {
  native_options options;
  int status = native_parse(argc, argv, NATIVE_TRIAD | NATIVE_ROUNDTRIP, 1u << 25, &options);
  if (status >= 0) return status;
  if (options.device != 0) return native_unavailable("the CPU is device 0 only");
  native_note("device 0: %d OpenMP threads, static schedule", omp_get_max_threads());
  if (options.benches & NATIVE_TRIAD && (status = run_triad(&options)) != 0) return status;
  if (options.benches & NATIVE_ROUNDTRIP && (status = run_roundtrip(&options)) != 0) return status;
  return 0;
}
