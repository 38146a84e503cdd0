// SPDX-License-Identifier: Apache-2.0
/* Reduction: the conformance suite's reduce_sum kernel (tools/suite/
 * reduce.cl) over a float array, each group's sum read back and added on
 * the host; GB/s = bytes read over the median time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void bench_sum(bench_device *device) {
  if (!(device->options->benches & BENCH_SUM)) return;
  bench_result *result =
      bench_results_add(device->results, &device->info, device->physical, "sum.f32", "GB/s", false);
  if (!result) return;
  result->peak = device->info.peak_bandwidth_gb_s > 0 ? device->info.peak_bandwidth_gb_s : NAN;
  bench_progress(device, "sum");
  uint64_t n = bench_stream_elements(device, sizeof(float), 1);
  uint32_t repeat = device->options->repeat  ? device->options->repeat
                    : device->options->quick ? 3
                                             : 10;
  const char *source = suite_builtin_source("reduce.cl");
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  agpu_buffer *x = NULL, *partial = NULL;
  float *host = NULL, *sums = NULL;
  double *times = calloc(repeat, sizeof *times);
  if (!source) {
    bench_fail(result, "the suite's reduce.cl is not built in");
    goto done;
  }
  agpu_program_desc desc = {.source = source, .source_name = "reduce.cl"};
  if (bench_call_failed(result, "build of reduce.cl",
                        agpu_program_build(device->device, &desc, &program)))
    goto done;
  if (bench_call_failed(result, "agpu_kernel_create",
                        agpu_kernel_create(program, "reduce_sum", &kernel)))
    goto done;
  size_t groups = 0, local = 0;
  bench_reduction_shape(device, kernel, &groups, &local);
  host = malloc((size_t)n * sizeof *host);
  sums = malloc(groups * sizeof *sums);
  if (!host || !sums || !times) {
    bench_fail(result, "out of host memory");
    goto done;
  }
  /* Quarters in [0, 4): every partial sum is exact in float while it stays
   * below 2^22; the check allows the rounding beyond that. */
  double expected = 0;
  for (uint64_t i = 0; i < n; i++) {
    host[i] = (float)((i * 2654435761u >> 7) % 16) * 0.25f;
    expected += host[i];
  }
  size_t bytes = (size_t)n * sizeof(float);
  if (bench_call_failed(result, "agpu_buffer_create",
                        agpu_buffer_create(device->device, bytes, 0, &x)) ||
      bench_call_failed(result, "agpu_buffer_create",
                        agpu_buffer_create(device->device, groups * sizeof(float), 0, &partial)) ||
      bench_call_failed(result, "agpu_buffer_write",
                        agpu_buffer_write(device->queue, x, 0, bytes, host)))
    goto done;
  size_t global = groups * local;
  agpu_arg args[4] = {agpu_arg_buffer(x), agpu_arg_buffer(partial), agpu_arg_u32((uint32_t)n),
                      agpu_arg_local(local * sizeof(float))};
  double total = 0;
  for (uint32_t r = 0; r <= repeat; r++) { /* the first is a warm-up */
    double start = bench_seconds();
    if (bench_call_failed(result, "agpu_launch",
                          agpu_launch(device->queue, kernel, 1, &global, &local, 4, args)) ||
        bench_call_failed(
            result, "agpu_buffer_read",
            agpu_buffer_read(device->queue, partial, 0, groups * sizeof(float), sums)))
      goto done;
    total = 0;
    for (size_t g = 0; g < groups; g++) total += sums[g];
    if (r > 0) times[r - 1] = bench_seconds() - start;
  }
  double per_item = ceil((double)n / (double)global) + log2((double)local) + 2;
  double bound = per_item * 1.1920928955078125e-7 * 1.01;
  double error = fabs(total - expected) / expected;
  if (!(error <= bound)) {
    bench_fail(result,
               "verification failed: sum %.9g, expected %.9g (relative error %.3g, bound %.3g)",
               total, expected, error, bound);
    goto done;
  }
  result->value = (double)bytes / bench_median(times, repeat) / 1e9;
  snprintf(result->note, sizeof result->note, "%llu floats, %zu groups of %zu, median of %u",
           (unsigned long long)n, groups, local, repeat);
done:
  free(times);
  free(host);
  free(sums);
  if (x) agpu_buffer_release(x);
  if (partial) agpu_buffer_release(partial);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
}
