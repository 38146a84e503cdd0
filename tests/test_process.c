// SPDX-License-Identifier: Apache-2.0
/* fork() and exit (issue 33, items 8 and 9; docs/reliability.md):
 * - a child forked after the parent used a device gets a clear error from
 *   every device but cpu:0, at once, instead of hanging in the driver
 *   (opencl:0 hung in clFinish, vulkan:0 in a fence wait); cpu:0 still
 *   computes the right answer in the child, and the parent is unaffected;
 * - a program that returns from main with launches still queued exits with
 *   status 0 (on PoCL it crashed at exit in 8 of 8 runs: LLVM's static
 *   destructors ran while PoCL still compiled). Run 8 times per device.
 * A child that hangs is killed by alarm() and fails the case. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agpu_test.h"

static const char source[] =
    "__kernel void scale(__global float *x, float a, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) x[i] = x[i] * a + (float)i;\n"
    "}\n";

enum { N = 1000 }; /* not a multiple of the group size */
static const char *const selectors[] = {"cpu:0", "opencl:0", "vulkan:0"};
static const char *self_path;

/* Runs scale once on `device` and checks every element; true when right. */
static bool run_scale(agpu_device *device, agpu_queue *queue, bool wait) {
  uint64_t state = 0x5eed;
  float host[N], back[N];
  for (int i = 0; i < N; i++) host[i] = agpu_test_randf(&state, -8, 8), back[i] = -1e30f;
  agpu_buffer *x = NULL;
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "scale.cl"};
  bool ok = agpu_buffer_create(device, sizeof host, 0, &x) == AGPU_SUCCESS &&
            agpu_buffer_write(queue, x, 0, sizeof host, host) == AGPU_SUCCESS &&
            agpu_program_build(device, &desc, &program) == AGPU_SUCCESS &&
            agpu_kernel_create(program, "scale", &kernel) == AGPU_SUCCESS;
  size_t global = 1024, local = 64; /* N = 1000 guarded in the kernel */
  agpu_arg args[] = {agpu_arg_buffer(x), agpu_arg_f32(1.5f), agpu_arg_u32(N)};
  /* left queued: each group size is a new work-group function for PoCL to
   * compile when the launch runs, so that the exit comes while it compiles */
  static const size_t queued_locals[] = {1, 2, 4, 8, 16, 32, 128, 256};
  for (int round = 0; ok && round < (wait ? 1 : 8); round++) {
    if (!wait) local = queued_locals[round];
    ok = agpu_launch(queue, kernel, 1, &global, &local, 3, args) == AGPU_SUCCESS;
  }
  if (!wait) return ok; /* left queued, with everything alive */
  ok = ok && agpu_buffer_read(queue, x, 0, sizeof back, back) == AGPU_SUCCESS;
  int wrong = 0;
  for (int i = 0; ok && i < N; i++) {
    double expected = (double)host[i] * 1.5 + i;
    wrong += !(back[i] >= expected - 1e-3 && back[i] <= expected + 1e-3);
  }
  if (!ok) printf("  %s\n", agpu_last_error());
  if (wrong) printf("  %d of %d elements wrong\n", wrong, N);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
  agpu_buffer_release(x);
  return ok && wrong == 0;
}

/* In the child: 0 when each device behaves as the fork rule says. */
static int child_after_fork(agpu_device *device, const char *selector, agpu_buffer *parent_buffer) {
  alarm(60); /* a hang fails the case instead of the whole run */
  if (strcmp(selector, "cpu:0") == 0) return run_scale(device, NULL, true) ? 0 : 10;
  agpu_buffer *b = NULL;
  if (agpu_buffer_create(device, 64, 0, &b) != AGPU_ERROR_UNSUPPORTED) return 11;
  if (!strstr(agpu_last_error(), "opened before fork()") || !strstr(agpu_last_error(), selector))
    return 12;
  float f[4];
  if (agpu_buffer_read(NULL, parent_buffer, 0, sizeof f, f) != AGPU_ERROR_UNSUPPORTED) return 13;
  if (agpu_buffer_release(parent_buffer) != AGPU_ERROR_UNSUPPORTED) return 15;
  if (agpu_device_finish(device) != AGPU_ERROR_UNSUPPORTED) return 16;
  return 0;
}

static void fork_rule(void) {
  int devices = 0;
  for (size_t s = 0; s < sizeof selectors / sizeof *selectors; s++) {
    agpu_device *device = agpu_test_device(selectors[s]);
    if (!device) continue;
    devices++;
    agpu_buffer *kept = NULL;
    CHECK_OK(agpu_buffer_create(device, 256, 0, &kept));
    CHECK(run_scale(device, NULL, true)); /* queues, fences and threads exist now */
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) _exit(child_after_fork(device, selectors[s], kept));
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    if (WIFSIGNALED(status))
      printf("  %s: the child died of signal %d%s\n", selectors[s], WTERMSIG(status),
             WTERMSIG(status) == SIGALRM ? " (it hung)" : "");
    else if (WEXITSTATUS(status))
      printf("  %s: the child failed check %d\n", selectors[s], WEXITSTATUS(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(run_scale(device, NULL, true)); /* the parent goes on */
    CHECK_OK(agpu_buffer_release(kept));
  }
  if (!devices) SKIP("no device among cpu:0, opencl:0, vulkan:0");
}

/* `test_process --exit-queued SELECTOR`: queue work, return from main. */
static int exit_with_work_queued(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) return 3;
  agpu_queue *queue = NULL;
  if (agpu_queue_create(device, &queue) != AGPU_SUCCESS) return 4;
  if (!run_scale(device, queue, false) || !run_scale(device, NULL, false)) return 5;
  return 0; /* nothing finished, nothing released */
}

static void exit_rule(void) {
  int devices = 0;
  for (size_t s = 0; s < sizeof selectors / sizeof *selectors; s++) {
    if (!agpu_test_device(selectors[s])) continue;
    devices++;
    int crashed = 0;
    for (int run = 0; run < 8; run++) {
      fflush(stdout);
      pid_t child = fork();
      if (child == 0) {
        alarm(120);
        setenv("POCL_KERNEL_CACHE", "0", 1); /* PoCL compiles each shape anew */
        setenv("ANYGPU_CACHE", "0", 1);
        execl(self_path, self_path, "--exit-queued", selectors[s], (char *)NULL);
        _exit(127);
      }
      int status = 0;
      CHECK(child > 0 && waitpid(child, &status, 0) == child);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (!crashed++)
          printf("  %s: run %d ended with %s %d\n", selectors[s], run,
                 WIFSIGNALED(status) ? "signal" : "status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
      }
    }
    if (crashed) printf("  %s: %d of 8 runs did not exit cleanly\n", selectors[s], crashed);
    CHECK(crashed == 0);
  }
  if (!devices) SKIP("no device among cpu:0, opencl:0, vulkan:0");
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--exit-queued") == 0) return exit_with_work_queued(argv[2]);
  self_path = argv[0];
  RUN(fork_rule);
  RUN(exit_rule);
  return agpu_test_finish();
}
