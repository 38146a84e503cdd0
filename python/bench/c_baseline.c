// SPDX-License-Identifier: Apache-2.0
/* The C API's side of python/bench/overhead.py: launch overhead of an empty
 * kernel (launches queued back to back, then one finish; per launch), the
 * median of repeated runs. Reads are c_read.c's (bench_get.py).
 * Usage: c_baseline SELECTOR REPEATS LAUNCHES */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "anygpu.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

#define CHECK(call)                                          \
  do {                                                       \
    if ((call) != AGPU_SUCCESS) {                            \
      fprintf(stderr, "%s: %s\n", #call, agpu_last_error()); \
      return 1;                                              \
    }                                                        \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  int repeats = atoi(argv[2]), launches = atoi(argv[3]);
  agpu_device *dev;
  CHECK(agpu_device_select(argv[1], &dev));
  agpu_program_desc desc = {.source = "__kernel void empty(__global float* a, uint n) {}"};
  agpu_program *prog;
  agpu_kernel *kernel;
  agpu_buffer *small;
  CHECK(agpu_program_build(dev, &desc, &prog));
  CHECK(agpu_kernel_create(prog, "empty", &kernel));
  CHECK(agpu_buffer_create(dev, 256, 0, &small));
  size_t global[1] = {64}, local[1] = {64};
  double *t = calloc((size_t)repeats, sizeof *t);
  for (int r = 0; r < repeats; r++) {
    double t0 = now_s();
    for (int i = 0; i < launches; i++) {
      agpu_arg args[2] = {agpu_arg_buffer(small), agpu_arg_u32(64)};
      CHECK(agpu_launch(NULL, kernel, 1, global, local, 2, args));
    }
    CHECK(agpu_device_finish(dev));
    t[r] = (now_s() - t0) / launches;
  }
  printf("launch_us %.3f\n", 1e6 * median(t, repeats));
  free(t);
  return 0;
}
