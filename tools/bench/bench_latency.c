// SPDX-License-Identifier: Apache-2.0
/* Launch latency with an empty kernel of one work-item: dispatch (many
 * launches, one finish: microseconds per launch) and roundtrip (launch then
 * finish, each timed: the median). */
#include <math.h>
#include <stdlib.h>

#include "bench.h"

#define LATENCY_ROUNDTRIPS 1000
#define LATENCY_DISPATCHES 1000

static agpu_status latency_launch(bench_device *device, agpu_kernel *kernel) {
  size_t one = 1;
  return agpu_launch(device->queue, kernel, 1, &one, &one, 0, NULL);
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
  uint32_t repeat = device->options->repeat ? device->options->repeat : 3;
  double *rates = calloc(repeat, sizeof *rates);
  if (!times || !rates) {
    bench_fail(dispatch, "out of host memory");
    bench_fail(roundtrip, "out of host memory");
    goto done;
  }
  for (int i = 0; i < 50; i++) /* warm-up */
    if (bench_call_failed(roundtrip, "agpu_launch", latency_launch(device, kernel))) goto failed;
  if (bench_call_failed(roundtrip, "agpu_queue_finish", agpu_queue_finish(device->queue)))
    goto failed;
  for (int i = 0; i < LATENCY_ROUNDTRIPS; i++) {
    double start = bench_seconds();
    if (bench_call_failed(roundtrip, "agpu_launch", latency_launch(device, kernel)) ||
        bench_call_failed(roundtrip, "agpu_queue_finish", agpu_queue_finish(device->queue)))
      goto failed;
    times[i] = (bench_seconds() - start) * 1e6;
  }
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
  if (device->options->native) bench_native(device, roundtrip, "roundtrip", 1, LATENCY_ROUNDTRIPS);
  goto done;
failed:
  bench_fail(dispatch, "%s", roundtrip->message);
done:
  free(times);
  free(rates);
  agpu_kernel_release(kernel);
}
