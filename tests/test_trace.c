// SPDX-License-Identifier: Apache-2.0
/* The timeline trace's API (api/trace.c, docs/debugging.md): misuse is
 * refused with a message; launches, fills and copies from several threads,
 * each on its own queue, are each recorded once with their device time;
 * a trace started and stopped over and over while other threads launch
 * loses nothing it should keep and writes a whole file each time (this
 * test is in the TSan stage); a queue with 4096 device spans unresolved
 * records no more until a finish. The file's format is checked in full by
 * tests/test_trace.py.
 *
 *   test_trace                 the checks
 *   test_trace --overhead SEL [LAUNCHES [REPEATS]]
 *                              the cost of tracing per launch on SEL: the
 *                              median of REPEATS runs of LAUNCHES launches
 *                              then one finish, untraced and traced */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "agpu_test.h"

static const char source[] =
    "__kernel void bump(__global uint *x) { x[get_global_id(0)] += 1u; }\n"
    "__kernel void empty(void) {}\n";

enum { THREADS = 4, LAUNCHES = 25, ITEMS = 256 };

static char trace_dir[256];

/* A path in the test's own directory. */
static const char *trace_path(const char *name, char *out, size_t size) {
  snprintf(out, size, "%s/%s", trace_dir, name);
  return out;
}

static int count_of(const char *text, const char *needle) {
  int count = 0;
  for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle)) count++;
  return count;
}

static void trace_misuse(void) {
  char path[512];
  CHECK_STATUS(agpu_trace_stop(), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("no trace is recording");
  CHECK_STATUS(agpu_trace_start(NULL), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_trace_start(""), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_trace_start(trace_path("no/such/dir.json", path, sizeof path)),
               AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("cannot open");
  CHECK_OK(agpu_trace_start(trace_path("first.json", path, sizeof path)));
  char second[512];
  CHECK_STATUS(agpu_trace_start(trace_path("second.json", second, sizeof second)),
               AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("already recording");
  CHECK_OK(agpu_trace_stop());
  char *text = agpu_test_read_file(path, NULL);
  CHECK(text && strstr(text, "\"traceEvents\":[") && strstr(text, "]}\n"));
  free(text);
  CHECK_STATUS(agpu_trace_stop(), AGPU_ERROR_INVALID_ARGUMENT);
}

typedef struct worker {
  agpu_device *device;
  agpu_kernel *kernel;
  atomic_bool *stop; /* NULL: LAUNCHES launches, a fill and a copy */
  int failures;
  char message[512];
} worker;

static void worker_failed(worker *w, agpu_status status, const char *what) {
  if (!w->failures++)
    snprintf(w->message, sizeof w->message, "%s: %s: %s", what, agpu_status_name(status),
             agpu_last_error());
}

static void *worker_run(void *data) {
  worker *w = data;
  agpu_queue *queue = NULL;
  agpu_buffer *a = NULL, *b = NULL;
  agpu_status status = agpu_queue_create(w->device, &queue);
  if (!status) status = agpu_buffer_create(w->device, ITEMS * 4, AGPU_BUFFER_ZERO_INIT, &a);
  if (!status) status = agpu_buffer_create(w->device, ITEMS * 4, 0, &b);
  if (status) worker_failed(w, status, "setup");
  size_t global = ITEMS;
  agpu_arg args[] = {agpu_arg_buffer(a)};
  for (int i = 0; !status && (w->stop ? !atomic_load(w->stop) : i < LAUNCHES); i++)
    if ((status = agpu_launch(queue, w->kernel, 1, &global, NULL, 1, args)))
      worker_failed(w, status, "agpu_launch");
  uint32_t zero = 0;
  if (!status && !w->stop && (status = agpu_buffer_fill(queue, b, 0, ITEMS * 4, &zero, 4)))
    worker_failed(w, status, "agpu_buffer_fill");
  if (!status && !w->stop && (status = agpu_buffer_copy(queue, a, 0, b, 0, ITEMS * 4)))
    worker_failed(w, status, "agpu_buffer_copy");
  if (!status && (status = agpu_queue_finish(queue))) worker_failed(w, status, "finish");
  if (b) agpu_buffer_release(b);
  if (a) agpu_buffer_release(a);
  if (queue) agpu_queue_release(queue);
  return NULL;
}

/* THREADS workers on `kernel`'s device; true when none failed. */
static bool run_workers(agpu_device *device, agpu_kernel *kernel, atomic_bool *stop,
                        void (*meanwhile)(void)) {
  worker workers[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) {
    workers[t] = (worker){.device = device, .kernel = kernel, .stop = stop};
    pthread_create(&threads[t], NULL, worker_run, &workers[t]);
  }
  if (meanwhile) meanwhile();
  if (stop) atomic_store(stop, true);
  bool ok = true;
  for (int t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
    if (workers[t].failures) printf("  worker %d: %s\n", t, workers[t].message);
    ok = ok && !workers[t].failures;
  }
  return ok;
}

static agpu_kernel *build(agpu_device *device, const char *name, agpu_program **program) {
  agpu_program_desc desc = {.source = source, .source_name = "trace.cl"};
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_program_build(device, &desc, program));
  if (*program) CHECK_OK(agpu_kernel_create(*program, name, &kernel));
  return kernel;
}

/* Every launch, fill and copy of THREADS threads is in the file once, with
 * its device time, on THREADS queue tracks. */
static void threads_on(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no device %s", selector);
  char path[512];
  snprintf(path, sizeof path, "%s/threads-%c.json", trace_dir, selector[0]);
  CHECK_OK(agpu_trace_start(path));
  agpu_program *program = NULL;
  agpu_kernel *kernel = build(device, "bump", &program);
  if (kernel) CHECK(run_workers(device, kernel, NULL, NULL));
  CHECK_OK(agpu_trace_stop());
  char *text = agpu_test_read_file(path, NULL);
  CHECK(text != NULL);
  if (text) {
    /* by name: a backend may launch kernels of its own (Vulkan's probes) */
    int launches = count_of(text, "{\"name\":\"bump\",\"cat\":\"launch\"");
    int device_spans = count_of(text, "{\"name\":\"bump\",\"cat\":\"device\"");
    int queues = count_of(text, ": host calls\"");
    printf("  %s: %d launches, %d of them with device time, %d queues traced\n", selector, launches,
           device_spans, queues);
    CHECK(launches == THREADS * LAUNCHES);
    CHECK(device_spans == THREADS * LAUNCHES);
    CHECK(count_of(text, "{\"name\":\"fill\",\"cat\":\"fill\"") == THREADS);
    CHECK(count_of(text, "{\"name\":\"copy\",\"cat\":\"copy\"") == THREADS);
    CHECK(count_of(text, "{\"name\":\"fill\",\"cat\":\"device\"") == THREADS);
    CHECK(count_of(text, "{\"name\":\"copy\",\"cat\":\"device\"") == THREADS);
    CHECK(queues >= THREADS);
    CHECK(count_of(text, "\"cat\":\"build\"") >= 1);
    CHECK(strstr(text, "\"unresolved_device_spans\":0") != NULL);
  }
  free(text);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
}

static void trace_threads_cpu(void) {
  threads_on("cpu:0");
}
static void trace_threads_opencl(void) {
  threads_on("opencl:0");
}
static void trace_threads_vulkan(void) {
  threads_on("vulkan:0");
}

static int toggle_files_ok;

/* Starts and stops a trace 20 times while the workers launch. */
static void toggle_traces(void) {
  for (int i = 0; i < 20; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/toggle-%d.json", trace_dir, i);
    if (agpu_trace_start(path) != AGPU_SUCCESS) continue;
    usleep(2000);
    if (agpu_trace_stop() != AGPU_SUCCESS) continue;
    char *text = agpu_test_read_file(path, NULL);
    toggle_files_ok += text && strstr(text, "\"traceEvents\":[") && strstr(text, "\n]}\n");
    free(text);
  }
}

static void trace_toggled_while_launching(void) {
  agpu_device *device = agpu_test_device("cpu:0");
  if (!device) SKIP("no cpu:0");
  agpu_program *program = NULL;
  agpu_kernel *kernel = build(device, "bump", &program);
  atomic_bool stop = false;
  if (kernel) CHECK(run_workers(device, kernel, &stop, toggle_traces));
  CHECK(toggle_files_ok == 20);
  CHECK_STATUS(agpu_trace_stop(), AGPU_ERROR_INVALID_ARGUMENT);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
}

/* A queue with 4096 device spans unresolved records no more (counted)
 * until a finish resolves them; then it does again. */
static void trace_pending_cap(void) {
  agpu_device *device = agpu_test_device("cpu:0");
  if (!device) SKIP("no cpu:0");
  agpu_program *program = NULL;
  agpu_kernel *kernel = build(device, "empty", &program);
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_queue_create(device, &queue));
  char path[512];
  CHECK_OK(agpu_trace_start(trace_path("cap.json", path, sizeof path)));
  size_t one = 1;
  for (int i = 0; kernel && i < 4096 + 104; i++) agpu_launch(queue, kernel, 1, &one, &one, 0, NULL);
  CHECK_OK(agpu_queue_finish(queue));
  for (int i = 0; kernel && i < 10; i++) agpu_launch(queue, kernel, 1, &one, &one, 0, NULL);
  CHECK_OK(agpu_queue_finish(queue));
  CHECK_OK(agpu_trace_stop());
  char *text = agpu_test_read_file(path, NULL);
  CHECK(text != NULL);
  if (text) {
    CHECK(count_of(text, "{\"name\":\"empty\",\"cat\":\"launch\"") == 4096 + 104 + 10);
    CHECK(count_of(text, "{\"name\":\"empty\",\"cat\":\"device\"") == 4096 + 10);
    CHECK(strstr(text, "\"device_spans_dropped\":104") != NULL);
  }
  free(text);
  if (queue) agpu_queue_release(queue);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
}

static double now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ns per launch of `launches` empty launches then one finish. */
static double time_launches(agpu_kernel *kernel, agpu_queue *queue, int launches) {
  size_t one = 1;
  double start = now_ns();
  for (int i = 0; i < launches; i++) agpu_launch(queue, kernel, 1, &one, &one, 0, NULL);
  agpu_queue_finish(queue);
  return (now_ns() - start) / launches;
}

static int overhead(const char *selector, int launches, int repeats) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) return printf("no device %s\n", selector), 77;
  agpu_program *program = NULL;
  agpu_kernel *kernel = build(device, "empty", &program);
  agpu_queue *queue = NULL;
  if (!kernel || agpu_device_default_queue(device, &queue)) return 1;
  double off[64], on[64];
  if (repeats > 64) repeats = 64;
  time_launches(kernel, queue, launches); /* warm-up */
  char path[512];
  const char *device_time = getenv("ANYGPU_TRACE_DEVICE_TIME");
  bool host_only = device_time && !strcmp(device_time, "0");
  /* Host time only: rounds interleaved, so that the load of a shared
   * machine falls on both alike. With device time, untraced first: on
   * lavapipe launches stay slower for a while after a traced round's
   * thousands of submissions. */
  for (int r = 0; r < repeats; r++) {
    off[r] = time_launches(kernel, queue, launches);
    if (!host_only) continue;
    agpu_trace_start(trace_path("overhead.json", path, sizeof path));
    on[r] = time_launches(kernel, queue, launches);
    agpu_trace_stop();
  }
  agpu_trace_start(trace_path("overhead.json", path, sizeof path));
  for (int r = 0; r < repeats && !host_only; r++) on[r] = time_launches(kernel, queue, launches);
  agpu_trace_stop();
  qsort(off, (size_t)repeats, sizeof *off, by_value);
  qsort(on, (size_t)repeats, sizeof *on, by_value);
  double a = off[repeats / 2], b = on[repeats / 2];
  printf(
      "%s (%s): %d launches then a finish, median of %d: untraced %.0f ns/launch "
      "(%.0f-%.0f), traced %.0f (%.0f-%.0f), tracing costs %.0f ns (%.2fx)\n",
      selector, host_only ? "host time only (interleaved)" : "device time", launches, repeats, a,
      off[0], off[repeats - 1], b, on[0], on[repeats - 1], b - a, b / a);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
  return 0;
}

int main(int argc, char **argv) {
  snprintf(trace_dir, sizeof trace_dir, "/tmp/anygpu-trace-test-XXXXXX");
  if (!mkdtemp(trace_dir)) return printf("mkdtemp failed\n"), 1;
  int status;
  if (argc >= 3 && strcmp(argv[1], "--overhead") == 0) {
    status = overhead(argv[2], argc > 3 ? atoi(argv[3]) : 1000, argc > 4 ? atoi(argv[4]) : 9);
  } else {
    RUN(trace_misuse);
    RUN(trace_threads_cpu);
    RUN(trace_threads_opencl);
    RUN(trace_threads_vulkan);
    RUN(trace_toggled_while_launching);
    RUN(trace_pending_cap);
    status = agpu_test_finish();
  }
  char command[400];
  snprintf(command, sizeof command, "rm -rf '%s'", trace_dir);
  if (system(command) != 0) printf("could not remove %s\n", trace_dir);
  return status;
}
