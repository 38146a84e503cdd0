// SPDX-License-Identifier: Apache-2.0
/* Two-dimensional kernels: matrix multiply, transpose, 5-point stencil
 * (tools/suite/matmul.cl, transpose.cl, stencil.cl). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "suite_internal.h"

/* The tile edge: 16 (a 256-work-item group) where the device allows it. */
static size_t suite_tile(suite_run *run) {
  return run->info.max_work_group_size >= 256 && run->info.max_work_item_sizes[0] >= 16 &&
                 run->info.max_work_item_sizes[1] >= 16
             ? 16
             : 8;
}

/* C = A B on the host, row by row with k outer and columns inner (unit
 * strides), with each element's sum of |products|. Float products are exact
 * in double, so float cases accumulate in double (the loop vectorises);
 * double cases in long double. The large size is a billion products. */
static bool suite_matmul_reference(suite_run *run, const void *a, const void *b, uint32_t m,
                                   uint32_t n, uint32_t k, double *expected, double *scale) {
  bool wide = run->kase->fp64;
  long double *wide_sum = wide ? suite_alloc(run, n * sizeof *wide_sum) : NULL;
  double *sum = wide ? NULL : suite_alloc(run, n * sizeof *sum);
  double *b_row = suite_alloc(run, n * sizeof *b_row);
  if ((!wide_sum && !sum) || !b_row) return false;
  for (uint32_t row = 0; row < m; row++) {
    double *magnitude = &scale[(size_t)row * n];
    for (uint32_t col = 0; col < n; col++) {
      magnitude[col] = 0;
      if (wide)
        wide_sum[col] = 0;
      else
        sum[col] = 0;
    }
    for (uint32_t j = 0; j < k; j++) {
      double a_j = suite_real_get(run, a, (size_t)row * k + j);
      for (uint32_t col = 0; col < n; col++)
        b_row[col] = suite_real_get(run, b, (size_t)j * n + col);
      for (uint32_t col = 0; col < n; col++) magnitude[col] += fabs(a_j * b_row[col]);
      if (wide)
        for (uint32_t col = 0; col < n; col++) wide_sum[col] += (long double)a_j * b_row[col];
      else
        for (uint32_t col = 0; col < n; col++) sum[col] += a_j * b_row[col];
    }
    for (uint32_t col = 0; col < n; col++)
      expected[(size_t)row * n + col] = wide ? (double)wide_sum[col] : sum[col];
  }
  return true;
}

void suite_case_matmul(suite_run *run) {
  uint32_t m = run->sizes->matmul_m, n = run->sizes->matmul_n, k = run->sizes->matmul_k;
  size_t real = suite_real_size(run);
  void *a = suite_random_reals(run, "a", (size_t)m * k, -1, 1);
  void *b = suite_random_reals(run, "b", (size_t)k * n, -1, 1);
  /* A billion products at the large size: computed once for all devices. */
  double *expected = suite_shared_find(run, "expected"), *scale = suite_shared_find(run, "scale");
  bool fresh = !expected || !scale;
  if (fresh) {
    expected = suite_alloc(run, (size_t)m * n * sizeof *expected);
    scale = suite_alloc(run, (size_t)m * n * sizeof *scale);
  }
  size_t tile = suite_tile(run);
  char options[32];
  snprintf(options, sizeof options, "-DTILE=%zu", tile);
  agpu_kernel *kernel = suite_kernel(run, run->kase->entry, options);
  agpu_buffer *da = suite_input(run, a, (size_t)m * k * real);
  agpu_buffer *db = suite_input(run, b, (size_t)k * n * real);
  agpu_buffer *dc = suite_output(run, (size_t)m * n * real, true);
  if (!kernel || !dc || !expected || !scale) return;
  if (fresh) {
    if (!suite_matmul_reference(run, a, b, m, n, k, expected, scale)) return;
    suite_shared_keep(run, "expected", expected);
    suite_shared_keep(run, "scale", scale);
  }
  agpu_arg args[] = {agpu_arg_buffer(da), agpu_arg_buffer(db), agpu_arg_buffer(dc),
                     agpu_arg_u32(m),     agpu_arg_u32(n),     agpu_arg_u32(k)};
  size_t need[2] = {n, m}, local[2] = {tile, tile};
  if (!suite_launch(run, kernel, 2, need, local, 6, args)) return;
  void *got = suite_read(run, dc, (size_t)m * n * real);
  /* A dot product of k terms, in any order, with or without fma. */
  if (got) suite_check_reals(run, "C", got, expected, scale, (size_t)m * n, n, suite_gamma(run, k));
}

void suite_case_transpose(suite_run *run) {
  uint32_t rows = run->sizes->transpose_rows, cols = run->sizes->transpose_cols;
  size_t count = (size_t)rows * cols, bytes = count * sizeof(float);
  void *in = suite_random_reals(run, "in", count, -1000, 1000);
  double *expected = suite_alloc(run, count * sizeof *expected);
  double *scale = suite_alloc(run, count * sizeof *scale);
  size_t tile = suite_tile(run);
  char options[32];
  snprintf(options, sizeof options, "-DTILE=%zu", tile);
  agpu_kernel *kernel = suite_kernel(run, "transpose", options);
  agpu_buffer *din = suite_input(run, in, bytes);
  agpu_buffer *dout = suite_output(run, bytes, true);
  if (!kernel || !dout || !expected || !scale) return;
  for (uint32_t y = 0; y < rows; y++) {
    for (uint32_t x = 0; x < cols; x++) {
      expected[(size_t)x * rows + y] = suite_real_get(run, in, (size_t)y * cols + x);
      scale[(size_t)x * rows + y] = 0; /* exact */
    }
  }
  agpu_arg args[] = {agpu_arg_buffer(din), agpu_arg_buffer(dout), agpu_arg_u32(rows),
                     agpu_arg_u32(cols)};
  size_t need[2] = {cols, rows}, local[2] = {tile, tile};
  if (!suite_launch(run, kernel, 2, need, local, 4, args)) return;
  void *got = suite_read(run, dout, bytes);
  if (got) suite_check_reals(run, "out", got, expected, scale, count, rows, 0);
}

void suite_case_stencil(suite_run *run) {
  uint32_t width = run->sizes->stencil_width, height = run->sizes->stencil_height;
  size_t count = (size_t)width * height, bytes = count * sizeof(float);
  double center = suite_real_round(run, 0.6), neighbour = suite_real_round(run, 0.1);
  void *u = suite_random_reals(run, "u", count, -1, 1);
  double *expected = suite_alloc(run, count * sizeof *expected);
  double *scale = suite_alloc(run, count * sizeof *scale);
  agpu_kernel *kernel = suite_kernel(run, "stencil5", NULL);
  agpu_buffer *du = suite_input(run, u, bytes);
  agpu_buffer *dv = suite_output(run, bytes, true);
  if (!kernel || !dv || !expected || !scale) return;
  for (uint32_t y = 0; y < height; y++) {
    for (uint32_t x = 0; x < width; x++) {
      size_t i = (size_t)y * width + x;
      double c = suite_real_get(run, u, i);
      if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        expected[i] = c;
        scale[i] = 0;
        continue;
      }
      double up = suite_real_get(run, u, i - width), down = suite_real_get(run, u, i + width),
             left = suite_real_get(run, u, i - 1), right = suite_real_get(run, u, i + 1);
      expected[i] = (double)((long double)center * c +
                             (long double)neighbour * ((long double)up + down + left + right));
      scale[i] =
          fabs(center * c) + fabs(neighbour) * (fabs(up) + fabs(down) + fabs(left) + fabs(right));
    }
  }
  agpu_arg args[] = {agpu_arg_buffer(du),         agpu_arg_buffer(dv),
                     agpu_arg_u32(width),         agpu_arg_u32(height),
                     agpu_arg_f32((float)center), agpu_arg_f32((float)neighbour)};
  size_t need[2] = {width, height}, local[2] = {16, 8};
  if (!suite_launch(run, kernel, 2, need, local, 6, args)) return;
  void *got = suite_read(run, dv, bytes);
  /* Three additions of neighbours, two products and one addition: at most
   * five roundings on any term. */
  if (got) suite_check_reals(run, "v", got, expected, scale, count, width, suite_gamma(run, 5));
}
