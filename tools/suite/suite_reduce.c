// SPDX-License-Identifier: Apache-2.0
/* Reductions (tools/suite/reduce.cl): a first pass of G work-groups of L
 * work-items, each writing a partial result, then one work-group over the
 * G partials. */
#include <math.h>
#include <stdio.h>

#include "suite_internal.h"

typedef struct suite_reduce_shape {
  size_t local;  /* L, a power of two */
  size_t groups; /* G <= L, so that the second pass reads one partial per work-item */
} suite_reduce_shape;

static suite_reduce_shape suite_shape(suite_run *run, agpu_kernel *kernel, uint32_t n) {
  suite_reduce_shape shape;
  shape.local = suite_group_size(run, kernel, 256);
  shape.groups = (n + shape.local - 1) / shape.local;
  if (shape.groups > shape.local) shape.groups = shape.local;
  return shape;
}

/* The depth of the summation tree: each work-item adds ceil(n / (G L))
 * elements in sequence, the group tree adds log2(L) levels, and the second
 * pass ceil(G / L) + log2(L) more. Every input passes through at most this
 * many additions. */
static double suite_reduce_depth(suite_reduce_shape shape, uint32_t n) {
  double per_item = ceil((double)n / (double)(shape.groups * shape.local));
  double tree = log2((double)shape.local);
  return per_item + tree + ceil((double)shape.groups / (double)shape.local) + tree;
}

/* The second pass: reduce_sum over `count` partials into one value. */
static void *suite_finish_sum(suite_run *run, agpu_buffer *partials, size_t count,
                              suite_reduce_shape shape) {
  agpu_kernel *sum = suite_kernel(run, "reduce_sum", NULL);
  agpu_buffer *result = suite_output(run, suite_real_size(run), true);
  if (!sum || !result) return NULL;
  agpu_arg args[] = {agpu_arg_buffer(partials), agpu_arg_buffer(result),
                     agpu_arg_u32((uint32_t)count),
                     agpu_arg_local(shape.local * suite_real_size(run))};
  size_t need = shape.local;
  if (!suite_launch(run, sum, 1, &need, &shape.local, 4, args)) return NULL;
  return suite_read(run, result, suite_real_size(run));
}

static void suite_sum_or_dot(suite_run *run, bool dot) {
  uint32_t n = run->sizes->reduce_n;
  size_t real = suite_real_size(run);
  void *x = suite_random_reals(run, "x", n, -1, 1);
  void *y = dot ? suite_random_reals(run, "y", n, -1, 1) : NULL;
  agpu_kernel *kernel = suite_kernel(run, dot ? "dot_product" : "reduce_sum", NULL);
  if (!kernel) return;
  suite_reduce_shape shape = suite_shape(run, kernel, n);
  agpu_buffer *dx = suite_input(run, x, (size_t)n * real);
  agpu_buffer *dy = dot ? suite_input(run, y, (size_t)n * real) : NULL;
  agpu_buffer *partials = suite_output(run, shape.groups * real, true);
  if (!partials || run->done) return;
  agpu_arg args[5];
  uint32_t nargs = 0;
  args[nargs++] = agpu_arg_buffer(dx);
  if (dot) args[nargs++] = agpu_arg_buffer(dy);
  args[nargs++] = agpu_arg_buffer(partials);
  args[nargs++] = agpu_arg_u32(n);
  args[nargs++] = agpu_arg_local(shape.local * real);
  size_t need = shape.groups * shape.local;
  if (!suite_launch(run, kernel, 1, &need, &shape.local, nargs, args)) return;
  void *got = suite_finish_sum(run, partials, shape.groups, shape);
  if (!got) return;
  long double sum = 0;
  double magnitude = 0;
  for (uint32_t i = 0; i < n; i++) {
    long double term = suite_real_get(run, x, i);
    if (dot) term *= suite_real_get(run, y, i);
    sum += term;
    magnitude += fabs((double)term);
  }
  double expected = (double)sum;
  /* A dot product's terms are rounded once more, by their product. */
  double depth = suite_reduce_depth(shape, n) + (dot ? 1 : 0);
  suite_check_reals(run, dot ? "dot" : "sum", got, &expected, &magnitude, 1, 0,
                    suite_gamma(run, depth));
}

void suite_case_reduce_sum(suite_run *run) {
  suite_sum_or_dot(run, false);
}

void suite_case_dot(suite_run *run) {
  suite_sum_or_dot(run, true);
}

/* One pass of minmax: `count` inputs (x itself, or the previous pass's
 * values and indices) into `groups` results. */
static bool suite_minmax_pass(suite_run *run, agpu_kernel *kernel, agpu_buffer *in[4],
                              uint32_t count, bool first, size_t groups, size_t local,
                              agpu_buffer *out[4]) {
  size_t real = suite_real_size(run);
  for (int i = 0; i < 4; i++)
    if (!(out[i] = suite_output(run, groups * (i % 2 ? sizeof(uint32_t) : real), i % 2 == 0)))
      return false;
  agpu_arg args[] = {agpu_arg_buffer(in[0]),       agpu_arg_buffer(in[1]),
                     agpu_arg_buffer(in[2]),       agpu_arg_buffer(in[3]),
                     agpu_arg_u32(count),          agpu_arg_u32(first ? 1 : 0),
                     agpu_arg_buffer(out[0]),      agpu_arg_buffer(out[1]),
                     agpu_arg_buffer(out[2]),      agpu_arg_buffer(out[3]),
                     agpu_arg_local(local * real), agpu_arg_local(local * sizeof(uint32_t)),
                     agpu_arg_local(local * real), agpu_arg_local(local * sizeof(uint32_t))};
  size_t need = groups * local;
  return suite_launch(run, kernel, 1, &need, &local, 14, args);
}

void suite_case_minmax(suite_run *run) {
  uint32_t n = run->sizes->reduce_n;
  size_t real = suite_real_size(run);
  void *x = suite_random_reals(run, "x", n, -1000, 1000);
  agpu_kernel *kernel = suite_kernel(run, "minmax", NULL);
  if (!kernel) return;
  suite_reduce_shape shape = suite_shape(run, kernel, n);
  agpu_buffer *dx = suite_input(run, x, (size_t)n * real);
  agpu_buffer *unused = suite_zeros(run, sizeof(uint32_t)); /* the first pass reads no indices */
  if (run->done) return;
  agpu_buffer *first_in[4] = {dx, unused, dx, unused}, *partials[4], *final[4];
  if (!suite_minmax_pass(run, kernel, first_in, n, true, shape.groups, shape.local, partials) ||
      !suite_minmax_pass(run, kernel, partials, (uint32_t)shape.groups, false, 1, shape.local,
                         final))
    return;
  void *lo = suite_read(run, final[0], real), *hi = suite_read(run, final[2], real);
  uint32_t *lo_at = suite_read(run, final[1], sizeof(uint32_t));
  uint32_t *hi_at = suite_read(run, final[3], sizeof(uint32_t));
  if (run->done) return;
  double lo_expected = INFINITY, hi_expected = -INFINITY, zero = 0;
  uint32_t indices[2] = {0, 0};
  for (uint32_t i = 0; i < n; i++) {
    double v = suite_real_get(run, x, i);
    if (v < lo_expected) lo_expected = v, indices[0] = i; /* strict: the first of equals */
    if (v > hi_expected) hi_expected = v, indices[1] = i;
  }
  suite_check_reals(run, "min", lo, &lo_expected, &zero, 1, 0, 0);
  suite_check_uints(run, "min_index", lo_at, &indices[0], 1, 0);
  suite_check_reals(run, "max", hi, &hi_expected, &zero, 1, 0, 0);
  suite_check_uints(run, "max_index", hi_at, &indices[1], 1, 0);
}

void suite_case_sum_atomic(suite_run *run) {
  uint32_t n = run->sizes->reduce_n;
  uint32_t *x = suite_random_uints(run, "x", n, 0xffffffffu);
  agpu_kernel *kernel = suite_kernel(run, "sum_atomic", NULL);
  agpu_buffer *dx = suite_input(run, x, (size_t)n * sizeof *x);
  agpu_buffer *total = suite_zeros(run, sizeof(uint32_t));
  if (!kernel || !total || run->done) return;
  uint32_t expected = 0;
  for (uint32_t i = 0; i < n; i++) expected += x[i]; /* modulo 2^32, as the kernel */
  agpu_arg args[] = {agpu_arg_buffer(dx), agpu_arg_buffer(total), agpu_arg_u32(n)};
  size_t local = 64, need = ((n + 15) / 16 + local - 1) / local * local; /* 16 elements each */
  if (!suite_launch(run, kernel, 1, &need, &local, 3, args)) return;
  uint32_t *got = suite_read(run, total, sizeof *got);
  if (got) suite_check_uints(run, "total", got, &expected, 1, 0);
}
