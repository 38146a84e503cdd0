// SPDX-License-Identifier: Apache-2.0
/* Runs the generated cases of fuzz_differential in child processes, so that
 * a driver that crashes on one kernel (PoCL 3.1 asserts in its barrier
 * region former on some of --barriers' kernels) costs that case, not the
 * run: the child reports each case and the device it is on through a pipe;
 * when it dies, the parent names the seed and the device, settles the case
 * with the referee when there is one, and goes on from the next seed. */
#ifndef FUZZ_SUPERVISOR_H
#define FUZZ_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>

/* What a child tells its parent, a line each (fuzz_progress_*). */
void fuzz_progress_case(const char *name, const char *selector); /* about to run on selector */
void fuzz_progress_done(int outcome);                            /* FUZZ_PASS ... */
enum { FUZZ_PASS, FUZZ_FAIL, FUZZ_DRIVER };

/* One child's run: cases seed .. seed + count - 1 (count < 0: until
 * `deadline`, a CLOCK_MONOTONIC time, passes), with `a`, `b` and `referee`
 * selectors; returns its exit status. */
typedef int (*fuzz_child_run)(uint64_t seed, long count, double deadline, const char *b_selector);

typedef struct fuzz_tally {
  int passed, failed, driver_only, crashes;
} fuzz_tally;

/* Runs `run` in children from `seed` until `count` cases (or `deadline`) are
 * done; a case whose child died while on b_selector is rerun with the
 * referee as b when `referee` is set (agreeing: a driver crash, not a
 * failure). Returns 77 when the first child skipped, else 0. */
int fuzz_supervise(fuzz_child_run run, uint64_t seed, long count, double deadline,
                   const char *b_selector, const char *referee, fuzz_tally *tally);

#endif
