// SPDX-License-Identifier: Apache-2.0
/* Kernel build time, cold and warm: the benchmark kernels built with
 * ANYGPU_CACHE_DIR pointed at a fresh temporary directory and a -D value
 * no earlier build used (so that neither anygpu's cache nor a driver's own,
 * such as PoCL's, has it), then the same build again (anygpu's cache, or
 * the driver's, answers). */
#define _GNU_SOURCE /* mkdtemp */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static void remove_directory(const char *path) {
  DIR *dir = opendir(path);
  if (dir) {
    struct dirent *entry;
    while ((entry = readdir(dir))) {
      if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
      char file[4096];
      snprintf(file, sizeof file, "%.3800s/%.255s", path, entry->d_name);
      unlink(file);
    }
    closedir(dir);
  }
  rmdir(path);
}

static double build_once(bench_device *device, bench_result *result, const char *options) {
  agpu_program *program = NULL;
  double start = bench_seconds();
  agpu_status status = bench_build(device, "bench_kernels.cl", options, &program);
  double elapsed = bench_seconds() - start;
  if (bench_call_failed(result, "build of bench_kernels.cl", status)) return NAN;
  agpu_program_release(program);
  return elapsed * 1e3;
}

void bench_build_time(bench_device *device) {
  if (!(device->options->benches & BENCH_BUILD)) return;
  if (!bench_results_add(device->results, &device->info, device->physical, "build_cold", "ms",
                         true) ||
      !bench_results_add(device->results, &device->info, device->physical, "build_warm", "ms",
                         true))
    return;
  bench_result *cold = &device->results->items[device->results->count - 2];
  bench_result *warm = cold + 1;
  bench_progress(device, "build time");
  const char *tmp = getenv("TMPDIR");
  char directory[4096];
  snprintf(directory, sizeof directory, "%s/anygpu-bench-XXXXXX",
           tmp && tmp[0] == '/' ? tmp : "/tmp");
  if (!mkdtemp(directory)) {
    bench_fail(cold, "cannot create a temporary cache directory under %s",
               tmp && tmp[0] == '/' ? tmp : "/tmp");
    bench_fail(warm, "%s", cold->message);
    return;
  }
  /* The library reads the variable on every build; nothing else runs now. */
  const char *previous = getenv("ANYGPU_CACHE_DIR");
  char *saved = previous ? strdup(previous) : NULL;
  const char *cache_off = getenv("ANYGPU_CACHE");
  setenv("ANYGPU_CACHE_DIR", directory, 1);
  char options[96];
  snprintf(options, sizeof options, "-DBENCH_BUILD_NONCE=%lld%ld",
           (long long)(bench_seconds() * 1e6), (long)getpid());
  cold->value = build_once(device, cold, options);
  uint32_t repeat = device->options->repeat ? device->options->repeat : 5;
  double times[64];
  if (repeat > 64) repeat = 64;
  uint32_t done = 0;
  for (; done < repeat && warm->status == BENCH_OK; done++)
    times[done] = build_once(device, warm, options);
  if (warm->status == BENCH_OK) warm->value = bench_median(times, done);
  if (saved) {
    setenv("ANYGPU_CACHE_DIR", saved, 1);
    free(saved);
  } else {
    unsetenv("ANYGPU_CACHE_DIR");
  }
  remove_directory(directory);
  snprintf(cold->note, sizeof cold->note, "bench_kernels.cl, new options, empty anygpu cache%s",
           cache_off ? " (ANYGPU_CACHE set)" : "");
  snprintf(warm->note, sizeof warm->note, "the same build again, median of %u", done);
}
