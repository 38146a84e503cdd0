// SPDX-License-Identifier: Apache-2.0
/* Asynchronous queues on cpu:0: a launch returns before the kernel ends and
 * its event completes after; errors raised by queued work reach the next
 * call that waits; buffers, kernels and programs released while queued work
 * uses them stay valid until it has run; buffers order work across queues.
 * Random inputs, poisoned outputs, every element checked. */
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "agpu_core.h"
#include "agpu_test.h"
#include "cpu_queue.h"

static agpu_device *cpu(void) {
  agpu_device *device = NULL;
  if (agpu_device_select("cpu:0", &device)) printf("  %s\n", agpu_last_error());
  return device;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* x <- 0.999 x + 0.5, `rounds` times per work-item: a fixed amount of
 * arithmetic, so that the time scales with `rounds`. */
static const char spin_source[] =
    "__kernel void spin(__global const float *in, __global float *out, uint n, uint rounds) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  float x = in[i];\n"
    "  for (uint r = 0; r < rounds; r++) x = x * 0.999f + 0.5f;\n"
    "  out[i] = x;\n"
    "}\n"
    "__kernel void twice(__global const int *in, __global int *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = 2 * in[i] + 1;\n"
    "}\n";

static agpu_program *build(void) {
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = spin_source, .source_name = "async.cl"};
  if (agpu_program_build(cpu(), &desc, &program) != AGPU_SUCCESS)
    printf("  build failed: %s\n", agpu_last_error());
  return program;
}

static uint32_t random_state = 12345;
static uint32_t next_random(void) {
  random_state = random_state * 1664525u + 1013904223u;
  return random_state >> 8;
}

#define SPIN_N 3001u /* not a multiple of the work-group size */

typedef struct spin_setup {
  agpu_program *program;
  agpu_kernel *kernel;
  agpu_buffer *in, *out;
  float host_in[SPIN_N];
} spin_setup;

static bool spin_prepare(spin_setup *s) {
  memset(s, 0, sizeof *s);
  s->program = build();
  if (!s->program || agpu_kernel_create(s->program, "spin", &s->kernel) != AGPU_SUCCESS)
    return false;
  for (uint32_t i = 0; i < SPIN_N; i++) s->host_in[i] = (float)(next_random() % 20000) / 10.0f;
  if (agpu_buffer_create(cpu(), sizeof s->host_in, 0, &s->in) != AGPU_SUCCESS ||
      agpu_buffer_create(cpu(), sizeof s->host_in, 0, &s->out) != AGPU_SUCCESS)
    return false;
  const uint32_t poison = 0x7fc00bad;
  return agpu_buffer_write(NULL, s->in, 0, sizeof s->host_in, s->host_in) == AGPU_SUCCESS &&
         agpu_buffer_fill(NULL, s->out, 0, sizeof s->host_in, &poison, 4) == AGPU_SUCCESS;
}

static agpu_status spin_launch(spin_setup *s, agpu_queue *queue, uint32_t rounds) {
  size_t global = (SPIN_N + 63) / 64 * 64, local = 64;
  agpu_arg args[] = {agpu_arg_buffer(s->in), agpu_arg_buffer(s->out), agpu_arg_u32(SPIN_N),
                     agpu_arg_u32(rounds)};
  return agpu_launch(queue, s->kernel, 1, &global, &local, 4, args);
}

/* Every element against a double reference; the float recurrence stays
 * within 0.05 of it (each step rounds by at most 3e-5 near the fixed point
 * 500, and the factor 0.999 bounds the sum by 0.03). */
static int spin_check(spin_setup *s, uint32_t rounds) {
  static float out[SPIN_N];
  if (agpu_buffer_read(NULL, s->out, 0, sizeof out, out) != AGPU_SUCCESS) return -1;
  int wrong = 0;
  for (uint32_t i = 0; i < SPIN_N; i++) {
    double x = s->host_in[i];
    for (uint32_t r = 0; r < rounds; r++) x = x * (double)0.999f + 0.5;
    if (!(fabs(out[i] - x) <= 0.05 + 1e-5 * fabs(x))) wrong++;
  }
  return wrong;
}

static void spin_free(spin_setup *s) {
  if (s->in) agpu_buffer_release(s->in);
  if (s->out) agpu_buffer_release(s->out);
  if (s->kernel) agpu_kernel_release(s->kernel);
  if (s->program) agpu_program_release(s->program);
}

/* Rounds for a kernel of about `ms` milliseconds, measured here. */
static uint32_t spin_calibrate(spin_setup *s, agpu_queue *queue, double ms) {
  uint32_t rounds = 2000;
  for (int attempt = 0; attempt < 6; attempt++) {
    double t0 = now_ms();
    if (spin_launch(s, queue, rounds) != AGPU_SUCCESS || agpu_queue_finish(queue) != AGPU_SUCCESS)
      return 0;
    double took = now_ms() - t0;
    if (took > ms / 4) {
      double scaled = rounds * ms / took;
      return scaled > 4e9 ? 4000000000u : (uint32_t)scaled;
    }
    rounds *= 8;
  }
  return rounds;
}

static void launch_returns_before_kernel_ends(void) {
  spin_setup s;
  agpu_queue *queue = NULL;
  CHECK(spin_prepare(&s));
  CHECK_OK(agpu_queue_create(cpu(), &queue));
  uint32_t rounds = spin_calibrate(&s, queue, 40.0);
  CHECK(rounds > 0);
  double best_launch = 1e9, kernel_ms = 0, done_ms = 0;
  for (int attempt = 0; attempt < 3 && rounds; attempt++) {
    agpu_event *start = NULL, *end = NULL;
    CHECK_OK(agpu_event_record(queue, &start));
    double t0 = now_ms();
    CHECK_OK(spin_launch(&s, queue, rounds));
    double launched = now_ms() - t0;
    CHECK_OK(agpu_event_record(queue, &end));
    CHECK_OK(agpu_event_wait(end));
    double done = now_ms() - t0;
    uint64_t ns = 0;
    CHECK_OK(agpu_event_elapsed_ns(start, end, &ns));
    if (launched < best_launch) {
      best_launch = launched;
      kernel_ms = (double)ns / 1e6;
      done_ms = done;
    }
    agpu_event_release(start);
    agpu_event_release(end);
  }
  printf(
      "  a %.1f ms kernel (%u rounds): agpu_launch returned after %.3f ms, its event "
      "completed after %.1f ms\n",
      kernel_ms, rounds, best_launch, done_ms);
  CHECK(best_launch < 1.0);
  CHECK(kernel_ms > 10.0);
  CHECK(done_ms >= kernel_ms * 0.9);
  CHECK(spin_check(&s, rounds) == 0);
  agpu_queue_release(queue);
  spin_free(&s);
}

/* A command that fails as a kernel could (out of memory for scratch). */
static agpu_status failing_run(agpu_cpu_command *command) {
  (void)command;
  return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: kernel 'injected': no memory");
}
static void failing_destroy(agpu_cpu_command *command) {
  free(command);
}

static agpu_status submit_failing(agpu_queue *queue) {
  agpu_cpu_command *command = calloc(1, sizeof *command);
  command->run = failing_run;
  command->destroy = failing_destroy;
  return agpu_cpu_queue_submit(queue, command);
}

/* A user queue (`queue` its object) and a 4096-byte buffer on cpu:0. */
static void queue_and_buffer(agpu_queue **handle, agpu_queue **queue, agpu_buffer **buffer) {
  CHECK_OK(agpu_queue_create(cpu(), handle));
  CHECK_OK(agpu_lookup_queue(*handle, "test", "queue", queue));
  CHECK_OK(agpu_buffer_create(cpu(), 4096, 0, buffer));
}

static void queued_error_reaches_next_wait(void) {
  agpu_queue *handle = NULL, *queue = NULL;
  agpu_buffer *buffer = NULL;
  queue_and_buffer(&handle, &queue, &buffer);
  for (int round = 0; round < 2 && queue; round++) {
    CHECK_OK(submit_failing(queue));
    const uint8_t zero = 0;
    CHECK_OK(agpu_buffer_fill(handle, buffer, 0, 4096, &zero, 1)); /* queued after it */
    uint8_t host[16];
    if (round == 0) {
      CHECK_STATUS(agpu_queue_finish(handle), AGPU_ERROR_OUT_OF_HOST_MEMORY);
    } else {
      CHECK_STATUS(agpu_buffer_read(handle, buffer, 0, sizeof host, host),
                   AGPU_ERROR_OUT_OF_HOST_MEMORY);
    }
    CHECK_MESSAGE("kernel 'injected': no memory");
    CHECK_MESSAGE("queued earlier on this queue");
    printf("  reported: %s\n", agpu_last_error());
    /* reported once; the work after it ran */
    CHECK_OK(agpu_queue_finish(handle));
    CHECK_OK(agpu_buffer_read(handle, buffer, 0, sizeof host, host));
    CHECK(host[0] == 0 && host[15] == 0);
  }
  agpu_buffer_release(buffer);
  agpu_queue_release(handle);
}

/* While tracing (docs/debugging.md): the trace's own waits for device
 * times take no error from the user's: a queued error still reaches the
 * next finish, and one no wait reported reaches agpu_trace_stop. */
static void queued_error_reaches_the_user_while_tracing(void) {
  agpu_queue *handle = NULL, *queue = NULL;
  agpu_buffer *buffer = NULL;
  queue_and_buffer(&handle, &queue, &buffer);
  char path[] = "/tmp/anygpu-async-trace-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
  CHECK_OK(agpu_trace_start(path));
  const uint8_t zero = 0;
  for (int round = 0; round < 2 && queue; round++) {
    CHECK_OK(submit_failing(queue));
    /* traced: its device time's events come after the failing command */
    CHECK_OK(agpu_buffer_fill(handle, buffer, 0, 4096, &zero, 1));
    if (round == 0)
      CHECK_STATUS(agpu_queue_finish(handle), AGPU_ERROR_OUT_OF_HOST_MEMORY);
    else
      CHECK_STATUS(agpu_trace_stop(), AGPU_ERROR_OUT_OF_HOST_MEMORY);
    CHECK_MESSAGE("kernel 'injected': no memory");
    printf("  reported: %s\n", agpu_last_error());
  }
  CHECK_OK(agpu_queue_finish(handle));
  agpu_buffer_release(buffer);
  agpu_queue_release(handle);
  unlink(path);
}

/* Released right after the launch: the launch still runs on live memory
 * (ASan would see otherwise) and the event outlives its queue. */
static void release_while_queued(void) {
  spin_setup s;
  CHECK(spin_prepare(&s));
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_queue_create(cpu(), &queue));
  uint32_t rounds = spin_calibrate(&s, queue, 10.0);
  CHECK_OK(spin_launch(&s, queue, rounds));
  agpu_event *end = NULL;
  CHECK_OK(agpu_event_record(queue, &end));
  CHECK_OK(agpu_kernel_release(s.kernel));
  CHECK_OK(agpu_program_release(s.program));
  s.kernel = NULL;
  s.program = NULL;
  float *host = malloc(sizeof s.host_in);
  agpu_buffer *copy = NULL;
  CHECK_OK(agpu_buffer_create(cpu(), sizeof s.host_in, 0, &copy));
  CHECK_OK(agpu_buffer_copy(queue, s.out, 0, copy, 0, sizeof s.host_in));
  double t0 = now_ms();
  CHECK_OK(agpu_buffer_release(s.out)); /* waits for the launch and the copy */
  s.out = NULL;
  CHECK_OK(agpu_queue_release(queue));
  CHECK_OK(agpu_event_wait(end));
  printf("  buffer release waited %.1f ms for the queued launch\n", now_ms() - t0);
  CHECK_OK(agpu_buffer_read(NULL, copy, 0, sizeof s.host_in, host));
  int wrong = 0;
  for (uint32_t i = 0; i < SPIN_N; i++) {
    double x = s.host_in[i];
    for (uint32_t r = 0; r < rounds; r++) x = x * (double)0.999f + 0.5;
    if (!(fabs(host[i] - x) <= 0.05 + 1e-5 * fabs(x))) wrong++;
  }
  CHECK(wrong == 0);
  agpu_event_release(end);
  agpu_buffer_release(copy);
  free(host);
  spin_free(&s);
}

/* Work on one queue, then a launch on another that reads its output, then
 * a read on a third (the default queue): each waits for the buffer. */
static void buffers_order_work_across_queues(void) {
  agpu_program *program = build();
  agpu_kernel *twice = NULL;
  CHECK(program && agpu_kernel_create(program, "twice", &twice) == AGPU_SUCCESS);
  if (!twice) return;
  const uint32_t n = 1000003; /* prime */
  int32_t *host = malloc(n * sizeof *host), *out = malloc(n * sizeof *out);
  for (uint32_t i = 0; i < n; i++) host[i] = (int32_t)(next_random() % 2000001) - 1000000;
  agpu_queue *a = NULL, *b = NULL;
  CHECK_OK(agpu_queue_create(cpu(), &a));
  CHECK_OK(agpu_queue_create(cpu(), &b));
  agpu_buffer *staging = NULL, *in = NULL, *result = NULL;
  CHECK_OK(agpu_buffer_create(cpu(), n * 4, 0, &staging));
  CHECK_OK(agpu_buffer_create(cpu(), n * 4, 0, &in));
  CHECK_OK(agpu_buffer_create(cpu(), n * 4, 0, &result));
  for (int round = 0; round < 5; round++) {
    const uint32_t poison = 0x7fc00bad;
    CHECK_OK(agpu_buffer_write(a, staging, 0, n * 4, host));
    CHECK_OK(agpu_buffer_fill(a, in, 0, n * 4, &poison, 4));
    CHECK_OK(agpu_buffer_fill(b, result, 0, n * 4, &poison, 4));
    CHECK_OK(agpu_buffer_copy(a, staging, 0, in, 0, n * 4));
    size_t local = 64, global = (n + local - 1) / local * local;
    agpu_arg args[] = {agpu_arg_buffer(in), agpu_arg_buffer(result), agpu_arg_u32(n)};
    CHECK_OK(agpu_launch(b, twice, 1, &global, &local, 3, args));
    CHECK_OK(agpu_buffer_read(NULL, result, 0, n * 4, out));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++)
      if (out[i] != 2 * host[i] + 1) wrong++;
    CHECK(wrong == 0);
    host[round] ^= 0x55;
  }
  CHECK_OK(agpu_queue_finish(a));
  CHECK_OK(agpu_queue_finish(b));
  agpu_buffer_release(staging);
  agpu_buffer_release(in);
  agpu_buffer_release(result);
  agpu_queue_release(a);
  agpu_queue_release(b);
  agpu_kernel_release(twice);
  agpu_program_release(program);
  free(host);
  free(out);
}

int main(void) {
  if (!cpu()) {
    printf("no cpu:0\n");
    return 77;
  }
  RUN(launch_returns_before_kernel_ends);
  RUN(queued_error_reaches_next_wait);
  RUN(queued_error_reaches_the_user_while_tracing);
  RUN(release_while_queued);
  RUN(buffers_order_work_across_queues);
  return agpu_test_finish();
}
