// SPDX-License-Identifier: Apache-2.0
/* fuzz_differential's cases in child processes (fuzz_supervisor.h). The
 * parent opens no device, so each child is a fresh process that opens its
 * own (devices opened before fork() are refused in the child). */
#include "fuzz_supervisor.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int progress_fd = -1; /* the child's end of the pipe; -1 in a run without one */

static void progress_line(const char *line) {
  if (progress_fd < 0) return;
  size_t length = strlen(line);
  while (length) {
    ssize_t n = write(progress_fd, line, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    line += n, length -= (size_t)n;
  }
}

void fuzz_progress_case(const char *name, const char *selector) {
  char line[256];
  snprintf(line, sizeof line, "on %s %s\n", name, selector);
  progress_line(line);
}

void fuzz_progress_done(int outcome) {
  char line[32];
  snprintf(line, sizeof line, "done %d\n", outcome);
  progress_line(line);
}

/* What a child's lines said: cases finished and the last case begun. */
typedef struct child_report {
  long cases;
  char name[128], selector[128]; /* of a case begun and not done; name[0] == 0: none */
  int status;
} child_report;

static void read_reports(int fd, child_report *report, fuzz_tally *tally) {
  FILE *in = fdopen(fd, "r");
  char line[512];
  while (in && fgets(line, sizeof line, in)) {
    int outcome;
    if (sscanf(line, "on %127s %127s", report->name, report->selector) == 2) continue;
    if (sscanf(line, "done %d", &outcome) != 1) continue;
    report->cases++, report->name[0] = '\0';
    if (outcome == FUZZ_PASS) tally->passed++;
    if (outcome == FUZZ_FAIL) tally->failed++;
    if (outcome == FUZZ_DRIVER) tally->passed++, tally->driver_only++;
  }
  if (in) fclose(in);
}

/* Forks a child running `run`; reads its reports until it ends. */
static void run_child(fuzz_child_run run, uint64_t seed, long count, double deadline,
                      const char *b_selector, child_report *report, fuzz_tally *tally) {
  memset(report, 0, sizeof *report);
  int fds[2];
  fflush(stdout);
  if (pipe(fds) != 0) {
    report->status = 1;
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    progress_fd = fds[1];
    setvbuf(stdout, NULL, _IOLBF, 0); /* what it printed survives a crash */
    int status = run(seed, count, deadline, b_selector);
    fflush(stdout);
    _exit(status);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    report->status = 1;
    return;
  }
  read_reports(fds[0], report, tally);
  while (waitpid(pid, &report->status, 0) < 0 && errno == EINTR) {
  }
}

/* The case `name` (seed-N) killed its child on `selector`: a failure, or a
 * driver crash when a and the referee agree on it. */
static void settle_crash(fuzz_child_run run, uint64_t case_seed, const child_report *crashed,
                         const char *b_selector, const char *referee, fuzz_tally *tally) {
  printf("CRASH %s: the process died (%s) while %s built or ran the kernel\n", crashed->name,
         WIFSIGNALED(crashed->status) ? strsignal(WTERMSIG(crashed->status)) : "exit",
         crashed->selector);
  tally->crashes++;
  if (referee && !strcmp(crashed->selector, b_selector)) {
    child_report again;
    fuzz_tally settled = {0};
    run_child(run, case_seed, 1, 0, referee, &again, &settled);
    if (settled.passed == 1 && WIFEXITED(again.status)) {
      printf("DRIVER %s: %s crashed; the other device and %s agree\n", crashed->name, b_selector,
             referee);
      tally->passed++, tally->driver_only++;
      return;
    }
  }
  tally->failed++;
}

int fuzz_supervise(fuzz_child_run run, uint64_t seed, long count, double deadline,
                   const char *b_selector, const char *referee, fuzz_tally *tally) {
  bool first = true;
  for (;;) {
    child_report report;
    run_child(run, seed, count, deadline, b_selector, &report, tally);
    if (first && WIFEXITED(report.status) && WEXITSTATUS(report.status) == 77) return 77;
    first = false;
    if (!report.name[0]) {
      if (!WIFSIGNALED(report.status)) return 0;
      printf("CRASH: the process died (%s) between cases\n", strsignal(WTERMSIG(report.status)));
      tally->crashes++, tally->failed++;
      return 0;
    }
    /* died inside a case: account for it and go on after it */
    uint64_t case_seed = seed + (uint64_t)report.cases;
    settle_crash(run, case_seed, &report, b_selector, referee, tally);
    seed = case_seed + 1;
    if (count >= 0) {
      count -= report.cases + 1;
      if (count <= 0) return 0;
    }
  }
}
