// SPDX-License-Identifier: Apache-2.0
/* Counting kernels, checked bit for bit: the exclusive prefix scan and the
 * histograms (tools/suite/scan.cl, histogram.cl). */
#include <stdio.h>
#include <string.h>

#include "suite_internal.h"

/* Few bins: many work-items hit each one at once. */
#define SUITE_BINS 16
/* Launches adding into the same bins: a lost update needs work-groups that
 * really run at the same time, which a busy CPU device does not always do
 * in one launch. */
#define SUITE_REPEATS 4

/* Exclusive scan of `n` values of `in` into `out`: scan each block, scan
 * the blocks' totals the same way (recursively), add each block's offset. */
static bool suite_scan_level(suite_run *run, agpu_kernel *scan, agpu_kernel *add, agpu_buffer *in,
                             agpu_buffer *out, uint32_t n, size_t local) {
  size_t blocks = (n + local - 1) / local;
  agpu_buffer *sums = suite_output(run, blocks * sizeof(uint32_t), false);
  if (!sums) return false;
  agpu_arg args[] = {agpu_arg_buffer(in), agpu_arg_buffer(out), agpu_arg_buffer(sums),
                     agpu_arg_u32(n), agpu_arg_local(local * sizeof(uint32_t))};
  if (!suite_launch(run, scan, 1, (size_t[]){n}, &local, 5, args)) return false;
  if (blocks == 1) return true;
  agpu_buffer *offsets = suite_output(run, blocks * sizeof(uint32_t), false);
  if (!offsets || !suite_scan_level(run, scan, add, sums, offsets, (uint32_t)blocks, local))
    return false;
  /* The same work-group size: group g adds block g's offset. */
  agpu_arg add_args[] = {agpu_arg_buffer(out), agpu_arg_buffer(offsets), agpu_arg_u32(n)};
  return suite_launch(run, add, 1, (size_t[]){n}, &local, 3, add_args);
}

void suite_case_scan(suite_run *run) {
  uint32_t n = run->sizes->scan_n;
  size_t bytes = (size_t)n * sizeof(uint32_t);
  uint32_t *in = suite_random_uints(run, "in", n, 0xffffffffu);
  uint32_t *expected = suite_alloc(run, bytes);
  agpu_kernel *scan = suite_kernel(run, "scan_blocks", NULL);
  agpu_kernel *add = suite_kernel(run, "add_offsets", NULL);
  agpu_buffer *din = suite_input(run, in, bytes);
  agpu_buffer *dout = suite_output(run, bytes, false);
  if (!scan || !add || !dout || !expected) return;
  uint32_t sum = 0;
  for (uint32_t i = 0; i < n; i++) {
    expected[i] = sum;
    sum += in[i]; /* modulo 2^32, as the kernel */
  }
  size_t local = suite_group_size(run, scan, 256);
  if (!suite_scan_level(run, scan, add, din, dout, n, local)) return;
  uint32_t *got = suite_read(run, dout, bytes);
  if (got) suite_check_uints(run, "out", got, expected, n, 0);
}

void suite_case_histogram(suite_run *run) {
  uint32_t n = run->sizes->histogram_n;
  uint32_t *in = suite_random_uints(run, "in", n, 0xffffffffu);
  char options[32];
  snprintf(options, sizeof options, "-DBINS=%d", SUITE_BINS);
  agpu_kernel *kernel = suite_kernel(run, run->kase->entry, options);
  agpu_buffer *din = suite_input(run, in, (size_t)n * sizeof *in);
  agpu_buffer *bins = suite_zeros(run, SUITE_BINS * sizeof(uint32_t));
  if (!kernel || !bins || run->done) return;
  uint32_t expected[SUITE_BINS];
  memset(expected, 0, sizeof expected);
  for (uint32_t i = 0; i < n; i++) expected[(in[i] >> 8) & (SUITE_BINS - 1)] += SUITE_REPEATS;
  size_t local = suite_group_size(run, kernel, 256);
  size_t groups = (n + local - 1) / local;
  if (groups > 1024) groups = 1024;
  agpu_arg args[] = {agpu_arg_buffer(din), agpu_arg_buffer(bins), agpu_arg_u32(n)};
  for (int repeat = 0; repeat < SUITE_REPEATS; repeat++)
    if (!suite_launch(run, kernel, 1, (size_t[]){groups * local}, &local, 3, args)) return;
  uint32_t *got = suite_read(run, bins, sizeof expected);
  if (got) suite_check_uints(run, "bins", got, expected, SUITE_BINS, 0);
}
