// SPDX-License-Identifier: Apache-2.0
/* Vulkan benchmark, one run: the median launch roundtrip (an empty kernel,
 * launched then finished) through anygpu against bench/native/ doing the
 * same with raw Vulkan and the same SPIR-V, as a ratio; and the triad
 * bandwidth (a = b + s * c) through anygpu.
 *
 *   vulkan_bench [SELECTOR] [--reps N] [--no-triad]   (default vulkan:0, 2000 reps) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anygpu.h"
#include "native/vk_roundtrip.h"

static const char source[] =
    "__kernel void empty(void) {}\n"
    "__kernel void triad(__global float *a, __global const float *b, __global const float *c,\n"
    "                    float s) {\n"
    "  uint i = get_global_id(0);\n"
    "  a[i] = b[i] + s * c[i];\n"
    "}\n";

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *values, int count) {
  qsort(values, (size_t)count, sizeof *values, by_value);
  return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* After median() has sorted them. */
static double tenth_percentile(const double *sorted, int count) {
  return sorted[count / 10];
}

#define TRY(call)                                                          \
  do {                                                                     \
    agpu_status s_ = (call);                                               \
    if (s_ != AGPU_SUCCESS) {                                              \
      fprintf(stderr, "vulkan_bench: %s: %s\n", #call, agpu_last_error()); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

/* The triad bandwidth through anygpu; 0 when its result is right. */
static int run_triad(agpu_device *device, agpu_queue *queue, agpu_kernel *triad) {
  const size_t n = 16u << 20; /* 64 MiB per array */
  agpu_buffer *a = NULL, *b = NULL, *c = NULL;
  TRY(agpu_buffer_create(device, n * 4, 0, &a));
  TRY(agpu_buffer_create(device, n * 4, 0, &b));
  TRY(agpu_buffer_create(device, n * 4, 0, &c));
  float fb = 1.0f, fc = 2.0f;
  TRY(agpu_buffer_fill(queue, b, 0, n * 4, &fb, 4));
  TRY(agpu_buffer_fill(queue, c, 0, n * 4, &fc, 4));
  agpu_arg args[] = {agpu_arg_buffer(a), agpu_arg_buffer(b), agpu_arg_buffer(c),
                     agpu_arg_f32(3.0f)};
  size_t local = 256;
  enum { TRIAD_REPS = 15 };
  double triad_times[TRIAD_REPS];
  TRY(agpu_launch(queue, triad, 1, &n, &local, 4, args));
  TRY(agpu_queue_finish(queue));
  for (int i = 0; i < TRIAD_REPS; i++) {
    double start = now_ns();
    TRY(agpu_launch(queue, triad, 1, &n, &local, 4, args));
    TRY(agpu_queue_finish(queue));
    triad_times[i] = now_ns() - start;
  }
  float check[4];
  TRY(agpu_buffer_read(queue, a, (n - 4) * 4, sizeof check, check));
  double triad_ns = median(triad_times, TRIAD_REPS);
  printf("triad (%zu floats, 3 x %zu MiB moved, median of %d): %.2f ms, %.1f GB/s%s\n", n,
         n * 4 >> 20, TRIAD_REPS, triad_ns / 1e6, 3.0 * (double)n * 4 / triad_ns,
         check[3] == 7.0f ? "" : " (WRONG RESULT)");
  agpu_buffer_release(a);
  agpu_buffer_release(b);
  agpu_buffer_release(c);
  return check[3] == 7.0f ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *selector = "vulkan:0";
  int reps = 2000;
  int triad_too = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--no-triad") == 0)
      triad_too = 0;
    else
      selector = argv[i];
  }
  if (reps < 10) reps = 10;
  agpu_device *device = NULL;
  if (agpu_device_select(selector, &device) != AGPU_SUCCESS) {
    fprintf(stderr, "vulkan_bench: no device '%s': %s\n", selector, agpu_last_error());
    return 77;
  }
  agpu_device_info info;
  TRY(agpu_device_get_info(device, &info));
  printf("device: %s (%s, %s)\n", info.selector, info.name, info.driver_version);

  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "vulkan_bench.cl"};
  TRY(agpu_program_build(device, &desc, &program));
  agpu_kernel *empty = NULL, *triad = NULL;
  TRY(agpu_kernel_create(program, "empty", &empty));
  TRY(agpu_kernel_create(program, "triad", &triad));
  agpu_queue *queue = NULL;
  TRY(agpu_device_default_queue(device, &queue));

  /* The two roundtrips alternate, one repetition each (in either order half
   * the time), so that both see the same machine load; each reports the
   * median of all its repetitions. */
  agpu_translate_desc tdesc = {.source = source, .target = AGPU_TARGET_SPIRV, .kernel = "empty"};
  agpu_translation *translation = NULL;
  TRY(agpu_translate(&tdesc, &translation));
  size_t spirv_bytes = 0;
  const uint32_t *spirv = agpu_translation_binary(translation, &spirv_bytes);
  char error[256] = "";
  const char *native_name = info.backend == AGPU_BACKEND_VULKAN ? info.name : "";
  vk_roundtrip *native =
      vk_roundtrip_open(spirv, spirv_bytes, 32, native_name, error, sizeof error);
  agpu_translation_release(translation);
  double *ours = malloc((size_t)reps * sizeof *ours),
         *theirs = malloc((size_t)reps * sizeof *theirs);
  size_t one = 1;
  if (!ours || !theirs) return 1;
  for (int rep = -100; rep < reps; rep++) { /* negative repetitions warm up */
    double warm, *raw = rep < 0 ? &warm : &theirs[rep];
    /* either order half the time: neither gains from going first */
    if (native && (rep & 1) && vk_roundtrip_run(native, 1, raw, error, sizeof error) != 0) {
      vk_roundtrip_close(native);
      native = NULL;
    }
    double start = now_ns();
    TRY(agpu_launch(queue, empty, 1, &one, &one, 0, NULL));
    TRY(agpu_queue_finish(queue));
    *(rep < 0 ? &warm : &ours[rep]) = now_ns() - start;
    if (native && !(rep & 1) && vk_roundtrip_run(native, 1, raw, error, sizeof error) != 0) {
      vk_roundtrip_close(native);
      native = NULL;
    }
  }
  /* Each anygpu repetition over the raw one beside it: robust to load
   * that changes during the run. */
  double *pairs = malloc((size_t)reps * sizeof *pairs);
  double paired = -1;
  if (pairs && native) {
    for (int i = 0; i < reps; i++) pairs[i] = ours[i] / theirs[i];
    paired = median(pairs, reps);
  }
  free(pairs);
  double anygpu_ns = median(ours, reps), anygpu_p10 = tenth_percentile(ours, reps);
  double native_ns = native ? median(theirs, reps) : -1;
  double native_p10 = native ? tenth_percentile(theirs, reps) : -1;
  vk_roundtrip_close(native);
  free(ours);
  free(theirs);

  printf("launch roundtrip (empty kernel, launch + finish, median of %d):\n", reps);
  printf("  anygpu     %10.1f us  (10th percentile %.1f us)\n", anygpu_ns / 1e3, anygpu_p10 / 1e3);
  if (native_ns > 0) {
    printf("  raw Vulkan %10.1f us  (10th percentile %.1f us)\n", native_ns / 1e3,
           native_p10 / 1e3);
    printf("  ratio      %10.3f (goal <= 1.1)\n", anygpu_ns / native_ns);
    printf("  paired     %10.3f (median of per-repetition ratios)\n", paired);
  } else {
    printf("  raw Vulkan: %s\n", error);
  }

  int status = triad_too ? run_triad(device, queue, triad) : 0;
  agpu_kernel_release(empty);
  agpu_kernel_release(triad);
  agpu_program_release(program);
  return status;
}
