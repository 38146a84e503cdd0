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
#define SGEMM_TUNING_REPS 3

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

/* A variant built for a run: its program, kernel and launch shape. */
typedef struct sgemm_built {
  const sgemm_variant *variant;
  agpu_program *program;
  agpu_kernel *kernel;
  size_t global[2], local[2];
  double times[32];
} sgemm_built;

static void sgemm_release(sgemm_built *built) {
  if (built->kernel) agpu_kernel_release(built->kernel);
  if (built->program) agpu_program_release(built->program);
  built->kernel = NULL, built->program = NULL;
}

/* Builds the variant; false with the reason in `skip` (`result` stays OK:
 * the variant is only left out) or in `result` (a failed call). */
static bool sgemm_build(sgemm_run *run, const sgemm_variant *v, sgemm_built *built,
                        bench_result *result, char *skip, size_t skip_size) {
  char options[128];
  if (v->gpu)
    sgemm_gpu_options(v->gpu, options, sizeof options);
  else
    snprintf(options, sizeof options, "-DTILE=%u -DROWS=%u", v->tile ? v->tile : 1, v->rows);
  memset(built, 0, sizeof *built);
  built->variant = v;
  agpu_status status = bench_build(run->device, "bench_sgemm.cl", options, &built->program);
  if (status != AGPU_SUCCESS) {
    snprintf(skip, skip_size, "%s: %s: %s", v->name, agpu_status_name(status), agpu_last_error());
    return false;
  }
  if (bench_call_failed(result, "agpu_kernel_create",
                        agpu_kernel_create(built->program, v->kernel, &built->kernel))) {
    sgemm_release(built);
    return false;
  }
  size_t *global = built->global, *local = built->local;
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
  return true;
}

/* One launch, timed from launch to finish; with `poison`, C is filled with
 * NaN first (so that an element the kernel leaves out fails the check).
 * NAN when a call failed (said in `result`). */
static double sgemm_launch(sgemm_run *run, sgemm_built *built, bool poison, bench_result *result) {
  agpu_arg args[4] = {agpu_arg_buffer(run->a), agpu_arg_buffer(run->b), agpu_arg_buffer(run->c),
                      agpu_arg_u32(run->n)};
  float nan_value = NAN;
  if (poison &&
      bench_call_failed(result, "agpu_buffer_fill",
                        agpu_buffer_fill(run->device->queue, run->c, 0, (size_t)run->n * run->n * 4,
                                         &nan_value, sizeof nan_value)))
    return NAN;
  if (bench_call_failed(result, "agpu_queue_finish", agpu_queue_finish(run->device->queue)))
    return NAN;
  double start = bench_seconds();
  if (bench_call_failed(result, "agpu_launch",
                        agpu_launch(run->device->queue, built->kernel, 2, built->global,
                                    built->local, 4, args)) ||
      bench_call_failed(result, "agpu_queue_finish", agpu_queue_finish(run->device->queue)))
    return NAN;
  return bench_seconds() - start;
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
    /* Tuning: each variant that fits is built, run once and checked, then
     * timed in SGEMM_TUNING_REPS rounds over all of them, at n = 1024 at
     * most (the leading n x n part of the same data); the fastest median
     * wins (one run each, one variant after the other, let this machine's
     * noise pick variants at half the speed of the best). */
    sgemm_built built[SGEMM_VARIANTS];
    size_t count_built = 0;
    run.n = n < SGEMM_TUNING_MAX ? n : SGEMM_TUNING_MAX;
    for (size_t v = 0; v < SGEMM_VARIANTS && result->status == BENCH_OK; v++) {
      if (!sgemm_fits(device, &sgemm_variants[v])) continue;
      char why[256] = "";
      sgemm_built *b = &built[count_built];
      if (!sgemm_build(&run, &sgemm_variants[v], b, result, why, sizeof why)) {
        size_t length = strlen(skipped);
        if (why[0])
          snprintf(skipped + length, sizeof skipped - length, "%s%s", length ? "; " : "", why);
        continue;
      }
      count_built++;
      /* The warm-up, checked: a wrong variant fails the benchmark. */
      if (isnan(sgemm_launch(&run, b, true, result)) ||
          !sgemm_check(&run, sgemm_variants[v].name, result))
        break;
    }
    /* Rounds over the variants, so that a change of load touches them all. */
    for (uint32_t r = 0; r < SGEMM_TUNING_REPS && result->status == BENCH_OK; r++)
      for (size_t v = 0; v < count_built && result->status == BENCH_OK; v++)
        built[v].times[r] = sgemm_launch(&run, &built[v], false, result);
    double best = INFINITY;
    for (size_t v = 0; v < count_built; v++) {
      double seconds =
          result->status == BENCH_OK ? bench_median(built[v].times, SGEMM_TUNING_REPS) : NAN;
      if (seconds < best) {
        best = seconds;
        variant = built[v].variant;
      }
      sgemm_release(&built[v]);
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
  sgemm_built measured;
  if (reps > 32) reps = 32;
  if (!sgemm_build(&run, variant, &measured, result, why, sizeof why)) {
    if (why[0]) bench_fail(result, "%s", why);
    goto done;
  }
  /* A warm-up that fills C with NaN first, then the timed runs; the last
   * one's C is checked. */
  for (uint32_t r = 0; r <= reps && result->status == BENCH_OK; r++) {
    double t = sgemm_launch(&run, &measured, r == 0, result);
    if (r > 0) measured.times[r - 1] = t;
  }
  double seconds = result->status == BENCH_OK ? bench_median(measured.times, reps) : NAN;
  sgemm_release(&measured);
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
