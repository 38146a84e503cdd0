// SPDX-License-Identifier: Apache-2.0
/* Streaming vector kernels (tools/suite/vector.cl, integer.cl). */
#include <math.h>
#include <string.h>

#include "suite_internal.h"

/* The vector kernels share one shape: up to two inputs x and y, one output,
 * a scalar a, n. Which kernel it is decides the arguments, the reference and
 * the bound. */
void suite_case_vector(suite_run *run) {
  const char *entry = run->kase->entry;
  uint32_t n = run->sizes->vector_n;
  size_t bytes = (size_t)n * suite_real_size(run);
  double a = suite_real_round(run, 1.7320508075688772); /* sqrt(3): not exact in float */
  bool copy = strcmp(entry, "copy") == 0, scale_op = strcmp(entry, "scale") == 0,
       add = strcmp(entry, "add") == 0, in_place = strcmp(entry, "saxpy") == 0;
  void *x = suite_random_reals(run, "x", n, -1, 1);
  void *y = copy || scale_op ? NULL : suite_random_reals(run, "y", n, -1, 1);
  double *expected = suite_alloc(run, n * sizeof *expected);
  double *scale = suite_alloc(run, n * sizeof *scale);
  agpu_kernel *kernel = suite_kernel(run, entry, NULL);
  if (!kernel || !expected || !scale) return;
  agpu_buffer *dx = suite_input(run, x, bytes);
  agpu_buffer *dy = copy || scale_op ? NULL : suite_input(run, y, bytes);
  agpu_buffer *out = in_place ? dy : suite_output(run, bytes, true);
  if (!dx || !out || run->done) return;

  agpu_arg args[5];
  uint32_t nargs = 0;
  double tolerance = 0;
  if (copy || scale_op) {
    args[nargs++] = agpu_arg_buffer(dx);
    args[nargs++] = agpu_arg_buffer(out);
    if (scale_op) args[nargs++] = suite_real_arg(run, a);
  } else if (add) {
    args[nargs++] = agpu_arg_buffer(dx);
    args[nargs++] = agpu_arg_buffer(dy);
    args[nargs++] = agpu_arg_buffer(out);
  } else if (in_place) { /* saxpy: y = a x + y */
    args[nargs++] = agpu_arg_buffer(dx);
    args[nargs++] = agpu_arg_buffer(dy);
    args[nargs++] = suite_real_arg(run, a);
  } else { /* triad: out = x + a y */
    args[nargs++] = agpu_arg_buffer(dx);
    args[nargs++] = agpu_arg_buffer(dy);
    args[nargs++] = agpu_arg_buffer(out);
    args[nargs++] = suite_real_arg(run, a);
  }
  args[nargs++] = agpu_arg_u32(n);
  for (uint32_t i = 0; i < n; i++) {
    double xi = suite_real_get(run, x, i), yi = y ? suite_real_get(run, y, i) : 0;
    if (copy) {
      expected[i] = xi;
      scale[i] = 0; /* exact */
    } else if (scale_op) {
      expected[i] = (double)((long double)a * xi);
      scale[i] = fabs(expected[i]);
    } else if (add) {
      expected[i] = (double)((long double)xi + yi);
      scale[i] = fabs(expected[i]);
    } else if (in_place) {
      expected[i] = (double)((long double)a * xi + yi);
      scale[i] = fabs(a * xi) + fabs(yi);
    } else {
      expected[i] = (double)(xi + (long double)a * yi);
      scale[i] = fabs(xi) + fabs(a * yi);
    }
  }
  /* One rounding (scale, add), or two with or without contraction into an
   * fma (triad, saxpy); copy is exact. */
  tolerance = copy ? 0 : (scale_op || add) ? suite_gamma(run, 1) : suite_gamma(run, 2);
  size_t need = n, local = 64;
  if (!suite_launch(run, kernel, 1, &need, &local, nargs, args)) return;
  void *got = suite_read(run, out, bytes);
  if (got) suite_check_reals(run, in_place ? "y" : "out", got, expected, scale, n, 0, tolerance);
}

void suite_case_add_int(suite_run *run) {
  uint32_t n = run->sizes->vector_n;
  size_t bytes = (size_t)n * sizeof(int32_t);
  /* |x|, |y| < 2^30: the sum cannot overflow (signed overflow is undefined). */
  int32_t *x = suite_random_ints(run, "x", n, -(1 << 30) + 1, (1 << 30) - 1);
  int32_t *y = suite_random_ints(run, "y", n, -(1 << 30) + 1, (1 << 30) - 1);
  uint32_t *expected = suite_alloc(run, bytes);
  agpu_kernel *kernel = suite_kernel(run, "add_int", NULL);
  agpu_buffer *dx = suite_input(run, x, bytes), *dy = suite_input(run, y, bytes);
  agpu_buffer *out = suite_output(run, bytes, false);
  if (!kernel || !out || !expected) return;
  for (uint32_t i = 0; i < n; i++) expected[i] = (uint32_t)(x[i] + y[i]);
  agpu_arg args[] = {agpu_arg_buffer(dx), agpu_arg_buffer(dy), agpu_arg_buffer(out),
                     agpu_arg_u32(n)};
  size_t need = n, local = 64;
  if (!suite_launch(run, kernel, 1, &need, &local, 4, args)) return;
  uint32_t *got = suite_read(run, out, bytes);
  if (got) suite_check_uints(run, "z", got, expected, n, 0);
}

void suite_case_bitops(suite_run *run) {
  uint32_t n = run->sizes->vector_n;
  size_t bytes = (size_t)n * sizeof(uint32_t);
  uint32_t *x = suite_random_uints(run, "x", n, 0xffffffffu);
  uint32_t *y = suite_random_uints(run, "y", n, 0xffffffffu);
  uint32_t *expected = suite_alloc(run, bytes);
  agpu_kernel *kernel = suite_kernel(run, "bitops", NULL);
  agpu_buffer *dx = suite_input(run, x, bytes), *dy = suite_input(run, y, bytes);
  agpu_buffer *out = suite_output(run, bytes, false);
  if (!kernel || !out || !expected) return;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t a = x[i], b = y[i];
    /* OpenCL C masks shift counts to the width: (b & 63) % 32. */
    expected[i] =
        ((a & b) ^ (a | ~b)) + (a << ((b & 63u) % 32)) + (b >> ((a & 63u) % 32)) - (~a ^ (b >> 3));
  }
  agpu_arg args[] = {agpu_arg_buffer(dx), agpu_arg_buffer(dy), agpu_arg_buffer(out),
                     agpu_arg_u32(n)};
  size_t need = n, local = 64;
  if (!suite_launch(run, kernel, 1, &need, &local, 4, args)) return;
  uint32_t *got = suite_read(run, out, bytes);
  if (got) suite_check_uints(run, "z", got, expected, n, 0);
}
