// SPDX-License-Identifier: Apache-2.0
/* Benchmark (not a test) of the CPU backend against plain C in the same run:
 *   - a portable triad kernel on 2^25 floats vs a C triad with OpenMP,
 *   - a work-group tree reduction (256 work-items, barriers inside the halving
 *     loop) over 2^25 floats vs a plain C sum (OpenMP and one thread),
 *   - the time of a second build of the same kernel (a cache hit).
 * Prints the median of repeated runs and the ratios. Usage: cpu_kernels [reps] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "anygpu.h"

static const char *source =
    "__kernel void triad(__global float *a, __global const float *b, __global const float *c,\n"
    "                    float s) {\n"
    "  size_t i = get_global_id(0);\n"
    "  a[i] = b[i] + s * c[i];\n"
    "}\n"
    "__kernel void reduce(__global const float *in, __global float *out, __local float *scratch,\n"
    "                     uint n) {\n"
    "  size_t lid = get_local_id(0), gid = get_global_id(0);\n"
    "  scratch[lid] = gid < n ? in[gid] : 0.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (lid < s) scratch[lid] += scratch[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = scratch[0];\n"
    "}\n";

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int die(const char *what) {
  fprintf(stderr, "cpu_kernels: %s: %s\n", what, agpu_last_error());
  return 1;
}

static void c_triad(float *restrict a, const float *restrict b, const float *restrict c, float s,
                    size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

/* A plain C sum that runs at memory speed: 16 independent partial sums
 * (a vector's worth), so the compiler vectorises it without reassociating. */
static double c_sum_block(const float *x, size_t begin, size_t end) {
  float acc[16] = {0};
  size_t i = begin;
  for (; i + 16 <= end; i += 16)
    for (int j = 0; j < 16; j++) acc[j] += x[i + j];
  double total = 0;
  for (; i < end; i++) total += x[i];
  for (int j = 0; j < 16; j++) total += acc[j];
  return total;
}

static double c_sum_parallel(const float *x, size_t n) {
  double total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
  for (size_t block = 0; block < n; block += 65536)
    total += c_sum_block(x, block, block + 65536 < n ? block + 65536 : n);
  return total;
}

static double c_sum_serial(const float *x, size_t n) {
  return c_sum_block(x, 0, n);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 15;
  if (reps < 3) reps = 3;
  if (reps > 200) reps = 200;
  const size_t n = (size_t)1 << 25, local = 256, groups = n / local;
  agpu_device *device;
  if (agpu_device_select("cpu:0", &device)) return die("cpu:0");
  agpu_queue *queue = NULL; /* launches are queued: each is timed to its end */
  if (agpu_device_default_queue(device, &queue)) return die("default queue");
  agpu_device_info info;
  agpu_device_get_info(device, &info);
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  printf("cpu_kernels: %s, %u cores; OpenMP %s (%d threads); %d repetitions, medians\n", info.name,
         info.compute_units,
#ifdef _OPENMP
         "on",
#else
         "OFF (plain C runs on one thread)",
#endif
         threads, reps);

  /* builds: the first with a fresh option (a compile), then the same again (cache hits) */
  char options[64];
  snprintf(options, sizeof options, "-DBENCH_NONCE=%ld%ld", (long)getpid(), (long)time(NULL));
  agpu_program_desc desc = {.source = source, .source_name = "bench.cl", .options = options};
  agpu_program *program;
  double t0 = now();
  if (agpu_program_build(device, &desc, &program)) return die("build");
  double cold_ms = (now() - t0) * 1e3;
  double hits[200];
  for (int r = 0; r < reps; r++) {
    agpu_program *again;
    t0 = now();
    if (agpu_program_build(device, &desc, &again)) return die("second build");
    hits[r] = (now() - t0) * 1e3;
    agpu_program_release(again);
  }
  double hit_ms = median(hits, reps);

  agpu_kernel *triad, *reduce;
  if (agpu_kernel_create(program, "triad", &triad) || agpu_kernel_create(program, "reduce", &reduce))
    return die("kernels");
  float *a = aligned_alloc(64, n * 4), *b = aligned_alloc(64, n * 4), *c = aligned_alloc(64, n * 4);
  if (!a || !b || !c) return die("host memory");
  /* first touch in parallel, as the kernels will use the memory */
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
    a[i] = 0.0f;
    b[i] = (float)(i % 1000) * 0.001f;
    c[i] = 1.0f + (float)(i % 7);
  }
  agpu_buffer *da, *db, *dc, *partial;
  if (agpu_buffer_create(device, n * 4, 0, &da) || agpu_buffer_create(device, n * 4, 0, &db) ||
      agpu_buffer_create(device, n * 4, 0, &dc) || agpu_buffer_create(device, groups * 4, 0, &partial))
    return die("buffers");
  agpu_buffer_write(NULL, db, 0, n * 4, b);
  agpu_buffer_write(NULL, dc, 0, n * 4, c);
  agpu_buffer_write(NULL, da, 0, n * 4, a);

  double times[200];
  /* triad */
  agpu_arg targs[] = {agpu_arg_buffer(da), agpu_arg_buffer(db), agpu_arg_buffer(dc), agpu_arg_f32(3.0f)};
  size_t global = n, lsize = local;
  agpu_launch(NULL, triad, 1, &global, &lsize, 4, targs);
  agpu_queue_finish(queue);
  for (int r = 0; r < reps; r++) {
    t0 = now();
    if (agpu_launch(NULL, triad, 1, &global, &lsize, 4, targs) || agpu_queue_finish(queue))
      return die("triad");
    times[r] = now() - t0;
  }
  double triad_gbs = 12.0 * (double)n / median(times, reps) / 1e9;
  c_triad(a, b, c, 3.0f, n);
  for (int r = 0; r < reps; r++) {
    t0 = now();
    c_triad(a, b, c, 3.0f, n);
    times[r] = now() - t0;
  }
  double c_triad_gbs = 12.0 * (double)n / median(times, reps) / 1e9;
  /* check the kernel's triad */
  float *check = malloc(n * 4);
  agpu_buffer_read(NULL, da, 0, n * 4, check);
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++)
    if (check[i] != a[i]) wrong++;

  /* reduction */
  uint32_t count = (uint32_t)n;
  agpu_arg rargs[] = {agpu_arg_buffer(db), agpu_arg_buffer(partial), agpu_arg_local(local * 4),
                      agpu_arg_u32(count)};
  agpu_launch(NULL, reduce, 1, &global, &lsize, 4, rargs);
  agpu_queue_finish(queue);
  for (int r = 0; r < reps; r++) {
    t0 = now();
    if (agpu_launch(NULL, reduce, 1, &global, &lsize, 4, rargs) || agpu_queue_finish(queue))
      return die("reduce");
    times[r] = now() - t0;
  }
  double reduce_gbs = 4.0 * (double)n / median(times, reps) / 1e9;
  float *sums = malloc(groups * 4);
  agpu_buffer_read(NULL, partial, 0, groups * 4, sums);
  double kernel_total = 0, exact = 0;
  for (size_t g = 0; g < groups; g++) kernel_total += sums[g];
  for (size_t i = 0; i < n; i++) exact += b[i];
  volatile double sink = 0;
  for (int r = 0; r < reps; r++) {
    t0 = now();
    sink += c_sum_parallel(b, n);
    times[r] = now() - t0;
  }
  double sum_gbs = 4.0 * (double)n / median(times, reps) / 1e9;
  for (int r = 0; r < reps; r++) {
    t0 = now();
    sink += c_sum_serial(b, n);
    times[r] = now() - t0;
  }
  double sum1_gbs = 4.0 * (double)n / median(times, reps) / 1e9;
  (void)sink; /* the sums are kept only so that the compiler cannot drop them */

  printf("triad   2^25 floats: cpu backend %6.1f GB/s, C+OpenMP %6.1f GB/s: ratio %.2f (target >= 0.8)%s\n",
         triad_gbs, c_triad_gbs, triad_gbs / c_triad_gbs, wrong ? "  RESULT WRONG" : "");
  printf("reduce  2^25 floats: cpu backend %6.1f GB/s, C sum %6.1f GB/s (%d threads): ratio %.2f "
         "(target >= 0.3); C sum on 1 thread %.1f GB/s\n",
         reduce_gbs, sum_gbs, threads, reduce_gbs / sum_gbs, sum1_gbs);
  printf("reduce  check: kernel %.6g, exact %.6g (relative error %.2g)\n", kernel_total, exact,
         fabs(kernel_total - exact) / exact);
  printf("build   first (compile) %.1f ms; second build of the same kernel (cache hit) %.3f ms "
         "(target < 2 ms)\n",
         cold_ms, hit_ms);
  agpu_kernel_release(triad);
  agpu_kernel_release(reduce);
  agpu_program_release(program);
  agpu_buffer_release(da);
  agpu_buffer_release(db);
  agpu_buffer_release(dc);
  agpu_buffer_release(partial);
  free(a);
  free(b);
  free(c);
  free(check);
  free(sums);
  return wrong ? 1 : 0;
}
