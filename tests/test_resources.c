// SPDX-License-Identifier: Apache-2.0
/* Resources: create/release cycles of buffers, programs (from a cached
 * build) and queues leave the process's resident memory and the device's
 * allocated bytes where they started; an allocation larger than the device
 * says how much was requested and what is available.
 *
 * Cycles per backend are scaled to what the backend does in reasonable time
 * (printed with each result); ANYGPU_RESOURCE_CYCLES overrides them all. */
#include <time.h>
#include <unistd.h>

#include "agpu_test.h"

/* Resident set size now, from /proc/self/statm. */
static uint64_t resident_bytes(void) {
  FILE *file = fopen("/proc/self/statm", "r");
  unsigned long long size = 0, resident = 0;
  if (!file) return 0;
  if (fscanf(file, "%llu %llu", &size, &resident) != 2) resident = 0;
  fclose(file);
  return resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Growth allowed: a leak grows with every cycle, so it shows in both halves
 * of a run; a driver pool grown once (seen after PoCL program builds) shows
 * in the first half only. The second half may grow by HALF_SLACK (about 10
 * bytes a cycle at 50,000 cycles), the whole run by RSS_SLACK. */
#define RSS_SLACK (4u << 20)

/* AddressSanitizer holds freed memory in its quarantine (256 MiB) by
 * design, so RSS says nothing there; LeakSanitizer checks for leaks instead. */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_MEANINGFUL 0
#endif
#endif
#ifndef RSS_MEANINGFUL
#define RSS_MEANINGFUL 1
#endif
#define HALF_SLACK (512u << 10)

static const char source[] =
    "__kernel void scale(__global float *x, float a) { x[get_global_id(0)] *= a; }\n";

typedef enum object_kind { KIND_BUFFER, KIND_PROGRAM, KIND_QUEUE } object_kind;

static const char *const kind_names[] = {"buffers", "programs", "queues"};

/* One create/release cycle; false (with a message printed) on failure. */
static bool cycle(agpu_device *device, object_kind kind, int i) {
  agpu_status status = AGPU_SUCCESS;
  if (kind == KIND_BUFFER) {
    agpu_buffer *buffer = NULL;
    status = agpu_buffer_create(device, 4096 + (size_t)(i % 7) * 512, 0, &buffer);
    if (status == AGPU_SUCCESS) status = agpu_buffer_release(buffer);
  } else if (kind == KIND_PROGRAM) {
    agpu_program_desc desc = {.source = source, .source_name = "resources.cl"};
    agpu_program *program = NULL;
    agpu_kernel *kernel = NULL;
    status = agpu_program_build(device, &desc, &program);
    if (status == AGPU_SUCCESS) status = agpu_kernel_create(program, "scale", &kernel);
    if (kernel) agpu_kernel_release(kernel);
    if (program && status == AGPU_SUCCESS) status = agpu_program_release(program);
  } else {
    agpu_queue *queue = NULL;
    status = agpu_queue_create(device, &queue);
    if (status == AGPU_SUCCESS) status = agpu_queue_release(queue);
  }
  if (status != AGPU_SUCCESS) printf("  cycle %d: %s\n", i, agpu_last_error());
  return status == AGPU_SUCCESS;
}

/* Cycles for a backend: the 100,000 asked for, except program builds, which
 * cost what the backend's load of a cached build costs (measured here:
 * about 3.4 ms on cpu:0, which dlopens the cached object; 74 ms on PoCL;
 * 0.16 ms on lavapipe). */
static int cycles_for(const char *selector, object_kind kind) {
  const char *text = getenv("ANYGPU_RESOURCE_CYCLES");
  if (text && atoi(text) > 0) return atoi(text);
  if (kind != KIND_PROGRAM) return 100000;
  if (strncmp(selector, "cpu", 3) == 0) return 2000;
  if (strncmp(selector, "opencl", 6) == 0) return 200;
  return 20000;
}

static void run_cycles(const char *selector, object_kind kind) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s device", selector);
  int cycles = cycles_for(selector, kind);
  int warmup = cycles / 10 < 1000 ? cycles / 10 : 1000;
  for (int i = 0; i < warmup; i++)
    if (!cycle(device, kind, i)) {
      CHECK(!"a cycle failed");
      return;
    }
  agpu_memory_info before, after;
  CHECK_OK(agpu_device_memory(device, &before));
  uint64_t rss_before = resident_bytes(), rss_half = 0;
  double start = now_seconds();
  for (int i = 0; i < cycles; i++) {
    if (i == cycles / 2) rss_half = resident_bytes();
    if (!cycle(device, kind, i)) {
      CHECK(!"a cycle failed");
      return;
    }
  }
  double seconds = now_seconds() - start;
  uint64_t rss_after = resident_bytes();
  long long second_half = (long long)rss_after - (long long)rss_half;
  CHECK_OK(agpu_device_memory(device, &after));
  long long growth = (long long)rss_after - (long long)rss_before;
  printf(
      "  %s: %d %s cycles in %.2f s: RSS %+lld KiB, %+lld KiB in the second half (%llu -> "
      "%llu KiB), device allocated %llu -> %llu bytes\n",
      selector, cycles, kind_names[kind], seconds, growth / 1024, second_half / 1024,
      (unsigned long long)rss_before / 1024, (unsigned long long)rss_after / 1024,
      (unsigned long long)before.allocated_bytes, (unsigned long long)after.allocated_bytes);
  CHECK(rss_before > 0);
  if (RSS_MEANINGFUL) {
    CHECK(growth <= (long long)RSS_SLACK);
    CHECK(second_half <= (long long)HALF_SLACK);
  } else {
    printf("  (RSS not checked under AddressSanitizer: its quarantine keeps freed memory)\n");
  }
  CHECK(after.allocated_bytes == before.allocated_bytes);
}

static void larger_than_the_device(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s device", selector);
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  if (info.max_alloc_bytes >= SIZE_MAX) SKIP("%s allows any size", selector);
  size_t asked = (size_t)info.max_alloc_bytes + 4096;
  agpu_buffer *buffer = NULL;
  CHECK_STATUS(agpu_buffer_create(device, asked, 0, &buffer), AGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK(buffer == NULL);
  char requested[64], available[64];
  snprintf(requested, sizeof requested, "(%zu bytes) requested", asked);
  snprintf(available, sizeof available, "%llu bytes available",
           (unsigned long long)info.max_alloc_bytes);
  CHECK_MESSAGE(requested);
  CHECK_MESSAGE(available);
  CHECK_MESSAGE(selector);
  printf("  %s\n", agpu_last_error());
  agpu_memory_info memory;
  CHECK_OK(agpu_device_memory(device, &memory));
}

#define ON_EVERY_DEVICE(name, call) \
  static void name##_cpu(void) {    \
    call("cpu:0");                  \
  }                                 \
  static void name##_opencl(void) { \
    call("opencl:0");               \
  }                                 \
  static void name##_vulkan(void) { \
    call("vulkan:0");               \
  }                                 \
  static void name##_cuda(void) {   \
    call("cuda:0");                 \
  }                                 \
  static void name##_hip(void) {    \
    call("hip:0");                  \
  }

static void buffer_cycles(const char *selector) {
  run_cycles(selector, KIND_BUFFER);
}
static void program_cycles(const char *selector) {
  run_cycles(selector, KIND_PROGRAM);
}
static void queue_cycles(const char *selector) {
  run_cycles(selector, KIND_QUEUE);
}
ON_EVERY_DEVICE(out_of_memory_says_how_much, larger_than_the_device)
ON_EVERY_DEVICE(buffer_cycles_leave_nothing, buffer_cycles)
ON_EVERY_DEVICE(program_cycles_leave_nothing, program_cycles)
ON_EVERY_DEVICE(queue_cycles_leave_nothing, queue_cycles)

#define ALL(name)     \
  RUN(name##_cpu);    \
  RUN(name##_opencl); \
  RUN(name##_vulkan); \
  RUN(name##_cuda);   \
  RUN(name##_hip)

int main(void) {
  ALL(out_of_memory_says_how_much);
  ALL(buffer_cycles_leave_nothing);
  ALL(program_cycles_leave_nothing);
  ALL(queue_cycles_leave_nothing);
  return agpu_test_finish();
}
