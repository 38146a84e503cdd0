// SPDX-License-Identifier: Apache-2.0
/* sgemm: C = A x B for square float matrices with portable kernels; the
 * variant (tile shape, register blocking) is chosen per device on the first
 * run and remembered in the anygpu cache directory (bench_tuning.c).
 * GFLOP/s = 2 n^3 / median time; sampled elements of C are checked against
 * a double-precision reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_sgemm_gpu.h"

typedef struct sgemm_variant {
  const char *name;   /* remembered in the cache */
  const char *kernel; /* in bench_sgemm.cl */
  uint32_t tile, rows;
  const sgemm_gpu_shape *gpu; /* sgemm_gpu, on the devices its shape names */
} sgemm_variant;

static const sgemm_variant sgemm_variants[] = {
    {"tiled8", "sgemm_tiled", 8, 1, NULL},
    {"tiled16", "sgemm_tiled", 16, 1, NULL},
    {"block4", "sgemm_block", 0, 4, NULL},
    {"block8", "sgemm_block", 0, 8, NULL},
    {"block_local8x4", "sgemm_block_local", 8, 4, NULL},
    {"block_local16x4", "sgemm_block_local", 16, 4, NULL},
    {"gpu128x128_8x8", "sgemm_gpu", 0, 0, &sgemm_gpu_shapes[0]},
    {"gpu128x64_8x4", "sgemm_gpu", 0, 0, &sgemm_gpu_shapes[1]},
    {"gpu64x64_4x4", "sgemm_gpu", 0, 0, &sgemm_gpu_shapes[2]},
    {"cpu64x64_4x4_k64", "sgemm_gpu", 0, 0, &sgemm_gpu_shapes[3]},
};
#define SGEMM_VARIANTS (sizeof sgemm_variants / sizeof sgemm_variants[0])
#define SGEMM_GRANULE 64 /* n is a multiple of every variant's block */
#define SGEMM_SAMPLES 256
#define SGEMM_TUNING_MAX 1024

typedef struct sgemm_run {
  bench_device *device;
  uint32_t n;
  agpu_buffer *a, *b, *c;
  float *host_a, *host_b, *host_c;
} sgemm_run;

/* The GPU shapes on GPU devices (CUDA, HIP, a Vulkan or OpenCL GPU), the
 * CPU-tuned variants elsewhere (the CPU backend, PoCL, lavapipe). */
static bool sgemm_is_gpu(const bench_device *device) {
  return device->info.type == AGPU_DEVICE_TYPE_DISCRETE_GPU ||
         device->info.type == AGPU_DEVICE_TYPE_INTEGRATED_GPU ||
         device->info.type == AGPU_DEVICE_TYPE_VIRTUAL_GPU;
}

static bool sgemm_fits(const bench_device *device, const sgemm_variant *v) {
  bool gpu = sgemm_is_gpu(device);
  if (v->gpu ? !(v->gpu->devices & (gpu ? SGEMM_ON_GPU : SGEMM_ON_CPU)) : gpu) return false;
  if (v->gpu)
    return sgemm_gpu_threads(v->gpu) <= device->info.max_work_group_size &&
           sgemm_gpu_local_bytes(v->gpu) <= device->info.local_mem_bytes;
  uint32_t local = v->tile ? v->tile * v->tile : 64;
  if (local > device->info.max_work_group_size) return false;
  uint64_t scratch =
      v->tile ? (uint64_t)v->tile * v->tile * 4 * (v->rows + (v->rows > 1 ? 4 : 1)) : 0;
  return scratch <= device->info.local_mem_bytes;
}

/* Builds the variant and runs it `reps` times (after one warm-up); the
 * median seconds, or NAN with the reason in `result` (which stays OK for
 * an UNSUPPORTED build: the variant is only left out). */
static double sgemm_time(sgemm_run *run, const sgemm_variant *v, uint32_t reps,
                         bench_result *result, char *skip, size_t skip_size) {
  char options[128];
  if (v->gpu)
    sgemm_gpu_options(v->gpu, options, sizeof options);
  else
    snprintf(options, sizeof options, "-DTILE=%u -DROWS=%u", v->tile ? v->tile : 1, v->rows);
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  double seconds = NAN;
  agpu_status status = bench_build(run->device, "bench_sgemm.cl", options, &program);
  if (status != AGPU_SUCCESS) {
    snprintf(skip, skip_size, "%s: %s: %s", v->name, agpu_status_name(status), agpu_last_error());
    return NAN;
  }
  if (bench_call_failed(result, "agpu_kernel_create",
                        agpu_kernel_create(program, v->kernel, &kernel)))
    goto done;
  size_t global[2], local[2];
  if (v->gpu) {
    sgemm_gpu_launch_size(v->gpu, run->n, global, local);
  } else if (strcmp(v->kernel, "sgemm_tiled") == 0) {
    global[0] = global[1] = run->n;
    local[0] = local[1] = v->tile;
  } else if (strcmp(v->kernel, "sgemm_block") == 0) {
    global[0] = run->n / 4, global[1] = run->n / v->rows;
    local[0] = 16, local[1] = 4;
  } else {
    global[0] = run->n / 4, global[1] = run->n / v->rows;
    local[0] = local[1] = v->tile;
  }
  agpu_arg args[4] = {agpu_arg_buffer(run->a), agpu_arg_buffer(run->b), agpu_arg_buffer(run->c),
                      agpu_arg_u32(run->n)};
  double times[32];
  if (reps > 32) reps = 32;
  for (uint32_t r = 0; r <= reps; r++) {
    float poison = NAN;
    if (r == 0 &&
        bench_call_failed(result, "agpu_buffer_fill",
                          agpu_buffer_fill(run->device->queue, run->c, 0,
                                           (size_t)run->n * run->n * 4, &poison, sizeof poison)))
      goto done;
    if (bench_call_failed(result, "agpu_queue_finish", agpu_queue_finish(run->device->queue)))
      goto done;
    double start = bench_seconds();
    if (bench_call_failed(result, "agpu_launch",
                          agpu_launch(run->device->queue, kernel, 2, global, local, 4, args)) ||
        bench_call_failed(result, "agpu_queue_finish", agpu_queue_finish(run->device->queue)))
      goto done;
    if (r > 0) times[r - 1] = bench_seconds() - start;
  }
  seconds = bench_median(times, reps);
done:
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
  return seconds;
}

/* Sampled elements of C against double-precision dot products: the error
 * of a float dot product of n terms is at most about n epsilon times the
 * sum of the terms' magnitudes. */
static bool sgemm_check(sgemm_run *run, const char *variant, bench_result *result) {
  size_t count = (size_t)run->n * run->n;
  if (bench_call_failed(
          result, "agpu_buffer_read",
          agpu_buffer_read(run->device->queue, run->c, 0, count * sizeof(float), run->host_c)))
    return false;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int s = 0; s < SGEMM_SAMPLES; s++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t row = (uint32_t)(state >> 33) % run->n;
    uint32_t col = (uint32_t)(state >> 13) % run->n;
    if (s == 0) row = col = 0;
    if (s == 1) row = col = run->n - 1;
    double exact = 0, magnitude = 0;
    for (uint32_t k = 0; k < run->n; k++) {
      double term =
          (double)run->host_a[(size_t)row * run->n + k] * run->host_b[(size_t)k * run->n + col];
      exact += term;
      magnitude += fabs(term);
    }
    double got = run->host_c[(size_t)row * run->n + col];
    double bound = 1.01 * (run->n + 2) * 1.1920928955078125e-7 * magnitude;
    if (!(fabs(got - exact) <= bound)) {
      bench_fail(result, "verification failed (%s): C[%u][%u] = %.9g, expected %.9g (bound %.3g)",
                 variant, row, col, got, exact, bound);
      return false;
    }
  }
  return true;
}

void bench_sgemm(bench_device *device) {
  if (!(device->options->benches & BENCH_SGEMM)) return;
  bench_result *result = bench_results_add(device->results, &device->info, device->physical,
                                           "sgemm", "GFLOP/s", false);
  if (!result) return;
  result->peak = device->info.peak_fp32_gflop_s > 0 ? device->info.peak_fp32_gflop_s : NAN;
  bench_progress(device, "sgemm");
  uint32_t n = device->options->sgemm_n ? device->options->sgemm_n
               : device->options->quick ? 256
                                        : 1024;
  n = (n + SGEMM_GRANULE - 1) / SGEMM_GRANULE * SGEMM_GRANULE;
  uint32_t reps = device->options->repeat  ? device->options->repeat
                  : device->options->quick ? 1
                                           : 3;
  sgemm_run run = {.device = device, .n = n};
  size_t count = (size_t)n * n, bytes = count * sizeof(float);
  run.host_a = malloc(bytes), run.host_b = malloc(bytes), run.host_c = malloc(bytes);
  if (!run.host_a || !run.host_b || !run.host_c) {
    bench_fail(result, "out of host memory for %u x %u matrices", n, n);
    goto done;
  }
  uint64_t state = 42;
  for (size_t i = 0; i < 2 * count; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    float value = (float)((double)(state >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
    (i < count ? run.host_a : run.host_b)[i % count] = value;
  }
  if (bench_call_failed(result, "agpu_buffer_create",
                        agpu_buffer_create(device->device, bytes, 0, &run.a)) ||
      bench_call_failed(result, "agpu_buffer_create",
                        agpu_buffer_create(device->device, bytes, 0, &run.b)) ||
      bench_call_failed(result, "agpu_buffer_create",
                        agpu_buffer_create(device->device, bytes, 0, &run.c)) ||
      bench_call_failed(result, "agpu_buffer_write",
                        agpu_buffer_write(device->queue, run.a, 0, bytes, run.host_a)) ||
      bench_call_failed(result, "agpu_buffer_write",
                        agpu_buffer_write(device->queue, run.b, 0, bytes, run.host_b)))
    goto done;

  char chosen[32] = "", skipped[1024] = "";
  const sgemm_variant *variant = NULL;
  bool cached = bench_tuning_lookup(&device->info, n, chosen, sizeof chosen);
  for (size_t v = 0; v < SGEMM_VARIANTS && cached && !variant; v++)
    if (strcmp(sgemm_variants[v].name, chosen) == 0 && sgemm_fits(device, &sgemm_variants[v]))
      variant = &sgemm_variants[v];
  if (!variant) {
    /* Tuning: each variant that fits, timed once after a warm-up and
     * checked, at n = 1024 at most (the leading n x n part of the same
     * data); the fastest correct one wins. */
    double best = INFINITY;
    run.n = n < SGEMM_TUNING_MAX ? n : SGEMM_TUNING_MAX;
    for (size_t v = 0; v < SGEMM_VARIANTS && result->status == BENCH_OK; v++) {
      if (!sgemm_fits(device, &sgemm_variants[v])) continue;
      char why[256] = "";
      double seconds = sgemm_time(&run, &sgemm_variants[v], 1, result, why, sizeof why);
      if (why[0]) {
        size_t length = strlen(skipped);
        snprintf(skipped + length, sizeof skipped - length, "%s%s", length ? "; " : "", why);
        continue;
      }
      if (result->status != BENCH_OK || !sgemm_check(&run, sgemm_variants[v].name, result)) break;
      if (seconds < best) {
        best = seconds;
        variant = &sgemm_variants[v];
      }
    }
    run.n = n;
    if (result->status != BENCH_OK) goto done;
    if (!variant) {
      bench_fail(result, "no sgemm variant builds: %s", skipped);
      goto done;
    }
    bench_tuning_store(&device->info, n, variant->name);
  }
  char why[256] = "";
  double seconds = sgemm_time(&run, variant, reps, result, why, sizeof why);
  if (why[0]) bench_fail(result, "%s", why);
  if (result->status != BENCH_OK || !sgemm_check(&run, variant->name, result)) goto done;
  result->value = 2.0 * n * (double)n * n / seconds / 1e9;
  snprintf(result->note, sizeof result->note, "n = %u, variant %s (%s), median of %u", n,
           variant->name, cached && strcmp(chosen, variant->name) == 0 ? "cached" : "tuned now",
           reps);
  if (device->options->native) bench_native(device, result, "sgemm", n, reps);
done:
  free(run.host_a);
  free(run.host_b);
  free(run.host_c);
  if (run.a) agpu_buffer_release(run.a);
  if (run.b) agpu_buffer_release(run.b);
  if (run.c) agpu_buffer_release(run.c);
}
