// SPDX-License-Identifier: Apache-2.0
/* Launch latency with an empty kernel of one work-item: dispatch (many
 * launches, one finish: microseconds per launch) and roundtrip (launch then
 * finish, each timed: the median). On a Vulkan device the native roundtrip
 * (bench/native/vk_roundtrip.c, the same SPIR-V) runs in this process,
 * alternating with anygpu's one repetition at a time, so that both see the
 * same load; elsewhere the native program runs after (bench_native.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#ifdef AGPU_BENCH_VK_ROUNDTRIP
#include "native/vk_roundtrip.h"
#endif

#define LATENCY_ROUNDTRIPS 1000
#define LATENCY_DISPATCHES 1000

static agpu_status latency_launch(bench_device *device, agpu_kernel *kernel) {
  size_t one = 1;
  return agpu_launch(device->queue, kernel, 1, &one, &one, 0, NULL);
}

#ifdef AGPU_BENCH_VK_ROUNDTRIP
/* The raw-Vulkan roundtrip on the same device, or NULL with why in note. */
static vk_roundtrip *latency_native_open(const bench_device *device, char *note, size_t size) {
  agpu_translate_desc desc = {
      .source = "__kernel void empty(void) {}\n", .target = AGPU_TARGET_SPIRV, .kernel = "empty"};
  agpu_translation *translation = NULL;
  if (agpu_translate(&desc, &translation) != AGPU_SUCCESS) {
    snprintf(note, size, "no SPIR-V for the raw-Vulkan roundtrip: %s", agpu_last_error());
    return NULL;
  }
  size_t bytes = 0;
  const uint32_t *spirv = agpu_translation_binary(translation, &bytes);
  /* 32 bytes: anygpu's parameter block of an argument-less kernel */
  vk_roundtrip *native =
      spirv ? vk_roundtrip_open(spirv, bytes, 32, device->info.name, note, size) : NULL;
  agpu_translation_release(translation);
  return native;
}
#endif

/* One native roundtrip into *ns (us); closes the native side when it fails. */
static void latency_native_once(void **native, double *ns, char *note, size_t size) {
#ifdef AGPU_BENCH_VK_ROUNDTRIP
  if (vk_roundtrip_run(*native, 1, ns, note, size) == 0) {
    *ns /= 1e3;
    return;
  }
  vk_roundtrip_close(*native);
#else
  (void)ns, (void)note, (void)size;
#endif
  *native = NULL;
}

static void latency_native_close(void *native) {
#ifdef AGPU_BENCH_VK_ROUNDTRIP
  vk_roundtrip_close(native);
#else
  (void)native;
#endif
}

/* Times the roundtrips into times (us), and while `native` is open a raw
 * roundtrip beside each into native_times; *native is NULL after a failure. */
static bool latency_roundtrips(bench_device *device, agpu_kernel *kernel, bench_result *roundtrip,
                               double *times, void **native, double *native_times) {
  char *note = roundtrip->native_note;
  size_t note_size = sizeof roundtrip->native_note;
  for (int i = -50; i < LATENCY_ROUNDTRIPS; i++) { /* negative: warm-up */
    double ignored = 0, *native_time = i >= 0 ? &native_times[i] : &ignored;
    bool native_first = i & 1; /* either order half the time: neither gains from going first */
    if (*native && native_first) latency_native_once(native, native_time, note, note_size);
    double start = bench_seconds();
    if (bench_call_failed(roundtrip, "agpu_launch", latency_launch(device, kernel)) ||
        bench_call_failed(roundtrip, "agpu_queue_finish", agpu_queue_finish(device->queue)))
      return false;
    if (i >= 0) times[i] = (bench_seconds() - start) * 1e6;
    if (*native && !native_first) latency_native_once(native, native_time, note, note_size);
  }
  return true;
}

/* The in-process native figure: its median and the median of the paired
 * ratios, in roundtrip's native fields. Before times are sorted. */
static void latency_native_result(bench_result *roundtrip, const double *times,
                                  double *native_times) {
  double *pairs = malloc(LATENCY_ROUNDTRIPS * sizeof *pairs);
  if (!pairs) return;
  for (int i = 0; i < LATENCY_ROUNDTRIPS; i++) pairs[i] = native_times[i] / times[i];
  double paired = bench_median(pairs, LATENCY_ROUNDTRIPS);
  free(pairs);
  roundtrip->native = bench_median(native_times, LATENCY_ROUNDTRIPS);
  /* lavapipe can keep one VkDevice's roundtrips about 3x slower for a whole
   * run on a loaded machine (docs/vulkan.md): such a ratio says nothing of
   * anygpu, so the note says so */
  bool suspect = paired > 1.5 || paired < 1 / 1.5;
  snprintf(roundtrip->native_program, sizeof roundtrip->native_program, "vk_roundtrip");
  snprintf(roundtrip->native_note, sizeof roundtrip->native_note,
           "raw Vulkan in this process (bench/native/vk_roundtrip.c, the same SPIR-V), "
           "alternating with anygpu's roundtrips: median of %d, 10th percentile %.1f us; "
           "median of the paired ratios %.3f%s",
           LATENCY_ROUNDTRIPS, native_times[LATENCY_ROUNDTRIPS / 10], paired,
           suspect ? "; over 1.5x either way: on lavapipe most likely its slow state, not "
                     "anygpu (docs/vulkan.md, Benchmark)"
                   : "");
}

void bench_latency(bench_device *device) {
  if (!(device->options->benches & BENCH_LAUNCH)) return;
  bench_result *dispatch = bench_results_add(device->results, &device->info, device->physical,
                                             "launch_dispatch", "us", true);
  bench_result *roundtrip =
      dispatch ? bench_results_add(device->results, &device->info, device->physical,
                                   "launch_roundtrip", "us", true)
               : NULL;
  if (!roundtrip) return;
  dispatch = roundtrip - 1; /* the array may have moved */
  bench_progress(device, "launch latency");
  agpu_kernel *kernel = bench_kernel(device, dispatch, "empty");
  if (!kernel) {
    bench_fail(roundtrip, "%s", dispatch->message);
    return;
  }
  double *times = calloc(LATENCY_ROUNDTRIPS, sizeof *times);
  double *native_times = calloc(LATENCY_ROUNDTRIPS, sizeof *native_times);
  uint32_t repeat = device->options->repeat ? device->options->repeat : 3;
  double *rates = calloc(repeat, sizeof *rates);
  if (!times || !native_times || !rates) {
    bench_fail(dispatch, "out of host memory");
    bench_fail(roundtrip, "out of host memory");
    goto done;
  }
  void *native = NULL;
#ifdef AGPU_BENCH_VK_ROUNDTRIP
  if (device->options->native && device->info.backend == AGPU_BACKEND_VULKAN)
    native = latency_native_open(device, roundtrip->native_note, sizeof roundtrip->native_note);
#endif
  bool ran = latency_roundtrips(device, kernel, roundtrip, times, &native, native_times);
  bool interleaved = native != NULL; /* open still: every native roundtrip ran */
  latency_native_close(native);
  if (!ran) goto failed;
  if (interleaved) latency_native_result(roundtrip, times, native_times);
  roundtrip->value = bench_median(times, LATENCY_ROUNDTRIPS);
  snprintf(roundtrip->note, sizeof roundtrip->note,
           "median of %d launch-then-finish, 10th percentile %.1f us", LATENCY_ROUNDTRIPS,
           times[LATENCY_ROUNDTRIPS / 10]);
  for (uint32_t r = 0; r < repeat; r++) {
    double start = bench_seconds();
    for (int i = 0; i < LATENCY_DISPATCHES; i++)
      if (bench_call_failed(dispatch, "agpu_launch", latency_launch(device, kernel))) goto done;
    if (bench_call_failed(dispatch, "agpu_queue_finish", agpu_queue_finish(device->queue)))
      goto done;
    rates[r] = (bench_seconds() - start) * 1e6 / LATENCY_DISPATCHES;
  }
  dispatch->value = bench_median(rates, repeat);
  snprintf(dispatch->note, sizeof dispatch->note,
           "%d launches then one finish, per launch; median of %u", LATENCY_DISPATCHES, repeat);
  if (device->options->native && !interleaved)
    bench_native(device, roundtrip, "roundtrip", 1, LATENCY_ROUNDTRIPS);
  goto done;
failed:
  bench_fail(dispatch, "%s", roundtrip->message);
done:
  free(times);
  free(native_times);
  free(rates);
  agpu_kernel_release(kernel);
}
