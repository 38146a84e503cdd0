// SPDX-License-Identifier: Apache-2.0
/* What the benchmarks share: results, failures, builds, sizes and time. */
#define _GNU_SOURCE /* clock_gettime */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static const struct {
  const char *name;
  uint32_t mask;
} bench_names[] = {
    {"copy", BENCH_COPY},     {"mul", BENCH_MUL},           {"add", BENCH_ADD},
    {"triad", BENCH_TRIAD},   {"dot", BENCH_DOT},           {"stream", BENCH_STREAM},
    {"sum", BENCH_SUM},       {"reduction", BENCH_SUM},     {"sgemm", BENCH_SGEMM},
    {"launch", BENCH_LAUNCH}, {"transfer", BENCH_TRANSFER}, {"build", BENCH_BUILD},
    {"all", BENCH_ALL},
};

const char *bench_known_names(void) {
  return "copy, mul, add, triad, dot, stream (the five), sum, sgemm, launch, transfer, build, all";
}

bool bench_parse_names(const char *list, uint32_t *mask, char *bad, size_t bad_size) {
  *mask = 0;
  const char *at = list;
  while (true) {
    size_t length = strcspn(at, ",");
    bool found = false;
    for (size_t i = 0; i < sizeof bench_names / sizeof bench_names[0] && !found; i++) {
      if (strlen(bench_names[i].name) == length && strncmp(bench_names[i].name, at, length) == 0) {
        *mask |= bench_names[i].mask;
        found = true;
      }
    }
    if (!found) {
      snprintf(bad, bad_size, "%.*s", (int)length, at);
      return false;
    }
    if (!at[length]) return true;
    at += length + 1;
  }
}

bench_result *bench_results_add(bench_results *results, const agpu_device_info *info,
                                uint32_t physical, const char *benchmark, const char *unit,
                                bool lower_is_better) {
  if (results->count == results->capacity) {
    size_t capacity = results->capacity ? results->capacity * 2 : 32;
    bench_result *items = realloc(results->items, capacity * sizeof *items);
    if (!items) return NULL;
    results->items = items;
    results->capacity = capacity;
  }
  bench_result *result = &results->items[results->count++];
  memset(result, 0, sizeof *result);
  snprintf(result->selector, sizeof result->selector, "%s", info->selector);
  snprintf(result->device, sizeof result->device, "%s", info->name);
  snprintf(result->backend, sizeof result->backend, "%s", info->backend_name);
  result->physical = physical;
  snprintf(result->benchmark, sizeof result->benchmark, "%s", benchmark);
  snprintf(result->unit, sizeof result->unit, "%s", unit);
  result->lower_is_better = lower_is_better;
  result->status = BENCH_OK;
  result->value = NAN;
  result->peak = NAN;
  result->native = NAN;
  return result;
}

void bench_results_free(bench_results *results) {
  free(results->items);
  memset(results, 0, sizeof *results);
}

double bench_fraction_of_peak(const bench_result *result) {
  if (result->status != BENCH_OK || !(result->peak > 0) || !(result->value > 0)) return NAN;
  return result->value / result->peak;
}

double bench_ratio_to_native(const bench_result *result) {
  if (result->status != BENCH_OK || !(result->native > 0) || !(result->value > 0)) return NAN;
  return result->lower_is_better ? result->native / result->value : result->value / result->native;
}

static void bench_set(bench_result *result, bench_status status, const char *format, va_list args) {
  if (result->status != BENCH_OK) return; /* the first reason is the one kept */
  result->status = status;
  result->value = NAN;
  vsnprintf(result->message, sizeof result->message, format, args);
}

void bench_fail(bench_result *result, const char *format, ...) {
  va_list args;
  va_start(args, format);
  bench_set(result, BENCH_FAILED, format, args);
  va_end(args);
}

void bench_skip(bench_result *result, const char *format, ...) {
  va_list args;
  va_start(args, format);
  bench_set(result, BENCH_SKIPPED, format, args);
  va_end(args);
}

bool bench_call_failed(bench_result *result, const char *what, agpu_status status) {
  if (status == AGPU_SUCCESS) return false;
  bench_fail(result, "%s: %s: %s", what, agpu_status_name(status), agpu_last_error());
  return true;
}

agpu_status bench_build(bench_device *device, const char *file, const char *options,
                        agpu_program **program) {
  const char *source = bench_builtin_source(file);
  if (!source) return AGPU_ERROR_NOT_FOUND;
  agpu_program_desc desc = {.source = source, .source_name = file, .options = options};
  return agpu_program_build(device->device, &desc, program);
}

agpu_kernel *bench_kernel(bench_device *device, bench_result *result, const char *name) {
  if (!device->program && device->program_status == AGPU_SUCCESS) {
    device->program_status = bench_build(device, "bench_kernels.cl", NULL, &device->program);
    if (device->program_status != AGPU_SUCCESS)
      snprintf(device->program_message, sizeof device->program_message, "%s", agpu_last_error());
  }
  if (device->program_status != AGPU_SUCCESS) {
    bench_fail(result, "build of bench_kernels.cl: %s: %s",
               agpu_status_name(device->program_status), device->program_message);
    return NULL;
  }
  agpu_kernel *kernel = NULL;
  agpu_status status = agpu_kernel_create(device->program, name, &kernel);
  if (bench_call_failed(result, "agpu_kernel_create", status)) return NULL;
  return kernel;
}

size_t bench_group_size(const bench_device *device, agpu_kernel *kernel, size_t cap) {
  size_t limit = device->info.max_work_group_size ? device->info.max_work_group_size : 64;
  if (device->info.max_work_item_sizes[0] && device->info.max_work_item_sizes[0] < limit)
    limit = device->info.max_work_item_sizes[0];
  agpu_kernel_info info;
  if (kernel && agpu_kernel_get_info(kernel, &info) == AGPU_SUCCESS && info.max_work_group_size &&
      info.max_work_group_size < limit)
    limit = info.max_work_group_size;
  if (limit > cap) limit = cap;
  size_t size = 1;
  while (size * 2 <= limit) size *= 2;
  return size;
}

size_t bench_stream_group_size(const bench_device *device, agpu_kernel *const kernels[],
                               size_t count, uint64_t n) {
  bool driver_shape =
      device->info.type == AGPU_DEVICE_TYPE_CPU && device->info.backend == AGPU_BACKEND_OPENCL;
  size_t size = driver_shape ? SIZE_MAX : 256;
  for (size_t k = 0; k < count; k++) {
    size_t allowed = bench_group_size(device, kernels[k], driver_shape ? SIZE_MAX : 256);
    if (allowed < size) size = allowed;
  }
  if (!driver_shape) return size;
  uint64_t units = device->info.compute_units ? device->info.compute_units : 1;
  while (size > 256 && (n % size != 0 || n / size < units)) size /= 2;
  return size;
}

/* On cpu:0 and PoCL a group's work-items run one after another, so each
 * work-item's grid-stride slice touches one element per cache line; one
 * work-item per compute unit walks memory in order instead (2^25 elements
 * here: cpu:0 17-23 GB/s against 0.8-1.5, PoCL 11-20 against 0.7).
 * lavapipe runs work-items as SIMD lanes and stops a shader's loops after
 * 65535 passes in all (docs/vulkan.md), so Vulkan keeps the GPU shape. */
void bench_reduction_shape(const bench_device *device, agpu_kernel *kernel, size_t *groups,
                           size_t *local) {
  size_t units = device->info.compute_units ? device->info.compute_units : 1;
  /* PoCL runs a group's work-items one after another; cpu:0 runs them as
   * SIMD lanes (docs/cpu-backend.md, "Gangs") and takes the GPU shape */
  if (device->info.type == AGPU_DEVICE_TYPE_CPU && device->info.backend != AGPU_BACKEND_VULKAN &&
      device->info.backend != AGPU_BACKEND_CPU) {
    *groups = units;
    *local = 1;
    return;
  }
  *groups = 4 * units;
  *local = bench_group_size(device, kernel, 256);
}

void bench_progress(bench_device *device, const char *what) {
  device->step++;
  if (!device->options->progress) return;
  fprintf(stderr, "\r\033[Kanygpu bench: %s: %s (%zu/%zu)", device->info.selector, what,
          device->step, device->steps);
  fflush(stderr);
}

double bench_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static int bench_compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *values, size_t count) {
  if (count == 0) return NAN;
  qsort(values, count, sizeof *values, bench_compare_doubles);
  return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

uint64_t bench_stream_elements(const bench_device *device, size_t element_size, int arrays) {
  const uint64_t granule = 1024; /* a multiple of every work-group size used */
  uint64_t elements = device->options->elements;
  if (elements == 0) {
    uint64_t cache = device->info.last_level_cache_bytes;
    uint64_t bytes = cache ? 4 * cache : 64ull << 20;
    if (device->options->quick) bytes = 4ull << 20;
    /* The same length in float and double, as BabelStream has it. */
    elements = bytes / sizeof(float);
  }
  uint64_t limit = device->info.global_mem_bytes / 4 / (uint64_t)arrays / element_size;
  if (device->info.max_alloc_bytes && device->info.max_alloc_bytes / element_size < limit)
    limit = device->info.max_alloc_bytes / element_size;
  if (limit && elements > limit) elements = limit;
  if (elements > UINT32_MAX - granule) elements = UINT32_MAX - granule; /* uint n in kernels */
  elements = (elements + granule - 1) / granule * granule;
  return elements;
}
