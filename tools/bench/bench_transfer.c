// SPDX-License-Identifier: Apache-2.0
/* Host-to-device and device-to-host bandwidth: agpu_buffer_write and
 * agpu_buffer_read of one large buffer from ordinary (pageable) host
 * memory; the median of the repeats after a warm-up. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void bench_transfer(bench_device *device) {
  if (!(device->options->benches & BENCH_TRANSFER)) return;
  if (!bench_results_add(device->results, &device->info, device->physical, "h2d", "GB/s", false) ||
      !bench_results_add(device->results, &device->info, device->physical, "d2h", "GB/s", false))
    return;
  bench_result *write = &device->results->items[device->results->count - 2];
  bench_result *read = write + 1;
  bench_progress(device, "transfers");
  uint64_t n = bench_stream_elements(device, sizeof(float), 1);
  size_t bytes = (size_t)n * sizeof(float);
  uint32_t repeat = device->options->repeat  ? device->options->repeat
                    : device->options->quick ? 3
                                             : 5;
  unsigned char *host = malloc(bytes);
  double *times = calloc(2 * (size_t)repeat, sizeof *times);
  agpu_buffer *buffer = NULL;
  if (!host || !times) {
    bench_fail(write, "out of host memory");
    bench_fail(read, "out of host memory");
    goto done;
  }
  for (size_t i = 0; i < bytes; i++) host[i] = (unsigned char)(i * 131u >> 3);
  agpu_status status = agpu_buffer_create(device->device, bytes, 0, &buffer);
  for (uint32_t r = 0; r <= repeat && status == AGPU_SUCCESS; r++) {
    double start = bench_seconds();
    status = agpu_buffer_write(device->queue, buffer, 0, bytes, host);
    if (status == AGPU_SUCCESS) status = agpu_queue_finish(device->queue);
    double middle = bench_seconds();
    if (status == AGPU_SUCCESS) status = agpu_buffer_read(device->queue, buffer, 0, bytes, host);
    if (r > 0) {
      times[r - 1] = middle - start;
      times[repeat + r - 1] = bench_seconds() - middle;
    }
  }
  if (status != AGPU_SUCCESS) {
    bench_call_failed(write, "transfer", status);
    bench_fail(read, "%s", write->message);
    goto done;
  }
  /* What was read back is what was written. */
  for (size_t i = 0; i < bytes; i++) {
    if (host[i] != (unsigned char)(i * 131u >> 3)) {
      bench_fail(write, "verification failed: byte %zu read back as %u, written as %u", i, host[i],
                 (unsigned char)(i * 131u >> 3));
      bench_fail(read, "%s", write->message);
      goto done;
    }
  }
  write->value = (double)bytes / bench_median(times, repeat) / 1e9;
  read->value = (double)bytes / bench_median(times + repeat, repeat) / 1e9;
  snprintf(write->note, sizeof write->note, "%.0f MiB from pageable memory, median of %u",
           (double)bytes / 1048576.0, repeat);
  memcpy(read->note, write->note, sizeof read->note);
done:
  free(host);
  free(times);
  if (buffer) agpu_buffer_release(buffer);
}
