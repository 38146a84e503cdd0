// SPDX-License-Identifier: Apache-2.0
/* Load and concurrency: threads sharing a device, each with its own queue
 * and buffers of its own random data, launching many kernels; once with a
 * kernel per thread from one shared program, once with one kernel shared by
 * every thread. Every launch writes its own slice, so every result is
 * checked. ANYGPU_LOAD_LAUNCHES scales the launches per thread (default
 * 1000), e.g. for ThreadSanitizer runs. */
#include <pthread.h>
#include <time.h>

#include "agpu_test.h"

enum { thread_count = 8, items = 64 };

static const char source[] =
    "__kernel void affine(__global const uint *x, __global uint *out, uint base, uint a,\n"
    "                     uint b) {\n"
    "  uint i = get_global_id(0);\n"
    "  out[base + i] = x[i] * a + b;\n"
    "}\n";

typedef struct worker {
  agpu_device *device;
  agpu_program *program; /* shared by every thread */
  agpu_kernel *shared_kernel;
  int launches;
  uint64_t seed;
  int failures; /* wrong values, or calls that failed */
  char first_error[512];
} worker;

static uint32_t a_of(int launch, uint64_t seed) {
  return (uint32_t)(launch * 2654435761u) ^ (uint32_t)seed;
}
static uint32_t b_of(int launch, uint64_t seed) {
  return (uint32_t)launch * 40503u + (uint32_t)(seed >> 32);
}

static void note_failure(worker *w, const char *what) {
  if (!w->failures++)
    snprintf(w->first_error, sizeof w->first_error, "%s: %s", what, agpu_last_error());
}

static void *work(void *arg) {
  worker *w = arg;
  agpu_queue *queue = NULL;
  agpu_kernel *kernel = w->shared_kernel;
  agpu_buffer *x = NULL, *out = NULL;
  uint32_t host_x[items];
  size_t out_items = (size_t)w->launches * items;
  uint32_t *host_out = malloc(out_items * sizeof *host_out);
  uint64_t state = w->seed;
  for (int i = 0; i < items; i++) host_x[i] = (uint32_t)agpu_test_rand(&state);
  if (agpu_queue_create(w->device, &queue)) note_failure(w, "agpu_queue_create");
  if (!kernel && agpu_kernel_create(w->program, "affine", &kernel))
    note_failure(w, "agpu_kernel_create");
  if (agpu_buffer_create(w->device, sizeof host_x, 0, &x) ||
      agpu_buffer_create(w->device, out_items * sizeof *host_out, 0, &out))
    note_failure(w, "agpu_buffer_create");
  if (w->failures) goto done;
  if (agpu_buffer_write(queue, x, 0, sizeof host_x, host_x)) note_failure(w, "agpu_buffer_write");
  const uint32_t poison = 0xdeadbeef;
  if (agpu_buffer_fill(queue, out, 0, out_items * 4, &poison, 4)) note_failure(w, "fill");
  for (int launch = 0; launch < w->launches && !w->failures; launch++) {
    agpu_arg args[5] = {agpu_arg_buffer(x), agpu_arg_buffer(out),
                        agpu_arg_u32((uint32_t)launch * items), agpu_arg_u32(a_of(launch, w->seed)),
                        agpu_arg_u32(b_of(launch, w->seed))};
    const size_t global = items, local = items;
    if (agpu_launch(queue, kernel, 1, &global, &local, 5, args)) note_failure(w, "agpu_launch");
  }
  if (!w->failures &&
      agpu_buffer_read(queue, out, 0, out_items * sizeof *host_out, host_out) != AGPU_SUCCESS)
    note_failure(w, "agpu_buffer_read");
  for (int launch = 0; launch < w->launches && !w->failures; launch++) {
    for (int i = 0; i < items; i++) {
      uint32_t expected = host_x[i] * a_of(launch, w->seed) + b_of(launch, w->seed);
      uint32_t got = host_out[(size_t)launch * items + i];
      if (got != expected && !w->failures++)
        snprintf(w->first_error, sizeof w->first_error,
                 "launch %d item %d: got 0x%08x, expected 0x%08x", launch, i, got, expected);
    }
  }
done:
  if (x) agpu_buffer_release(x);
  if (out) agpu_buffer_release(out);
  if (kernel && kernel != w->shared_kernel) agpu_kernel_release(kernel);
  if (queue) agpu_queue_release(queue);
  free(host_out);
  return NULL;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int launches_per_thread(void) {
  const char *text = getenv("ANYGPU_LOAD_LAUNCHES");
  int n = text ? atoi(text) : 1000;
  return n > 0 ? n : 1000;
}

static void run_load(const char *selector, bool share_kernel) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s device", selector);
  agpu_program_desc desc = {.source = source, .source_name = "load.cl"};
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  agpu_kernel *shared = NULL;
  if (share_kernel) CHECK_OK(agpu_kernel_create(program, "affine", &shared));
  if (!program || (share_kernel && !shared)) return;
  worker workers[thread_count];
  pthread_t threads[thread_count];
  uint64_t seeds = 0x5eed0000u + (share_kernel ? 77 : 0);
  double start = now_seconds();
  for (int t = 0; t < thread_count; t++) {
    workers[t] = (worker){.device = device,
                          .program = program,
                          .shared_kernel = shared,
                          .launches = launches_per_thread(),
                          .seed = agpu_test_rand(&seeds)};
    CHECK(pthread_create(&threads[t], NULL, work, &workers[t]) == 0);
  }
  int failures = 0;
  for (int t = 0; t < thread_count; t++) {
    pthread_join(threads[t], NULL);
    if (workers[t].failures)
      printf("  thread %d: %d failures; first: %s\n", t, workers[t].failures,
             workers[t].first_error);
    failures += workers[t].failures;
  }
  double seconds = now_seconds() - start;
  CHECK(failures == 0);
  printf("  %s: %d threads x %d launches, %s, every result checked: %.2f s, %.0f launches/s\n",
         selector, thread_count, launches_per_thread(),
         share_kernel ? "one shared kernel" : "a kernel each, one program", seconds,
         thread_count * launches_per_thread() / seconds);
  if (shared) CHECK_OK(agpu_kernel_release(shared));
  CHECK_OK(agpu_program_release(program));
}

/* Threads creating and releasing objects at once, while the others launch:
 * the handle table and the accounting under contention. */
static void *churn(void *arg) {
  worker *w = arg;
  for (int i = 0; i < w->launches; i++) {
    agpu_buffer *buffer = NULL;
    agpu_queue *queue = NULL;
    agpu_kernel *kernel = NULL;
    if (agpu_buffer_create(w->device, 256, 0, &buffer)) note_failure(w, "agpu_buffer_create");
    if (agpu_queue_create(w->device, &queue)) note_failure(w, "agpu_queue_create");
    if (agpu_kernel_create(w->program, "affine", &kernel)) note_failure(w, "agpu_kernel_create");
    if (buffer && agpu_buffer_release(buffer)) note_failure(w, "agpu_buffer_release");
    if (queue && agpu_queue_release(queue)) note_failure(w, "agpu_queue_release");
    if (kernel && agpu_kernel_release(kernel)) note_failure(w, "agpu_kernel_release");
    /* A released handle stays released for everyone. */
    if (buffer && agpu_buffer_release(buffer) != AGPU_ERROR_INVALID_HANDLE)
      note_failure(w, "double release was not refused");
  }
  return NULL;
}

static void run_churn(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s device", selector);
  agpu_program_desc desc = {.source = source, .source_name = "load.cl"};
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;
  agpu_memory_info before, after;
  CHECK_OK(agpu_device_memory(device, &before));
  worker workers[thread_count];
  pthread_t threads[thread_count];
  for (int t = 0; t < thread_count; t++) {
    workers[t] = (worker){.device = device, .program = program, .launches = 200};
    CHECK(pthread_create(&threads[t], NULL, churn, &workers[t]) == 0);
  }
  for (int t = 0; t < thread_count; t++) {
    pthread_join(threads[t], NULL);
    if (workers[t].failures) printf("  thread %d: %s\n", t, workers[t].first_error);
    CHECK(workers[t].failures == 0);
  }
  CHECK_OK(agpu_device_memory(device, &after));
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK_OK(agpu_program_release(program));
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

static void own_kernels(const char *selector) {
  run_load(selector, false);
}
static void shared_kernel(const char *selector) {
  run_load(selector, true);
}
ON_EVERY_DEVICE(threads_with_own_kernels, own_kernels)
ON_EVERY_DEVICE(threads_sharing_a_kernel, shared_kernel)
ON_EVERY_DEVICE(threads_creating_and_releasing, run_churn)

int main(void) {
  RUN(threads_with_own_kernels_cpu);
  RUN(threads_sharing_a_kernel_cpu);
  RUN(threads_creating_and_releasing_cpu);
  RUN(threads_with_own_kernels_opencl);
  RUN(threads_sharing_a_kernel_opencl);
  RUN(threads_creating_and_releasing_opencl);
  RUN(threads_with_own_kernels_vulkan);
  RUN(threads_sharing_a_kernel_vulkan);
  RUN(threads_creating_and_releasing_vulkan);
  RUN(threads_with_own_kernels_cuda);
  RUN(threads_sharing_a_kernel_cuda);
  RUN(threads_creating_and_releasing_cuda);
  RUN(threads_with_own_kernels_hip);
  RUN(threads_sharing_a_kernel_hip);
  RUN(threads_creating_and_releasing_hip);
  return agpu_test_finish();
}
