// SPDX-License-Identifier: Apache-2.0
// Conformance suite: C = A x B for row-major A (m x k), B (k x n), C (m x n).
// Work-item (col, row) computes C[row][col]; the host rounds both global
// dimensions up, so each kernel guards its indices.
#ifdef SUITE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

__kernel void matmul_naive(__global const real *a, __global const real *b, __global real *c,
                           uint m, uint n, uint k) {
  uint col = get_global_id(0), row = get_global_id(1);
  if (row >= m || col >= n) return;
  real sum = 0;
  for (uint j = 0; j < k; j++) sum += a[row * k + j] * b[j * n + col];
  c[row * n + col] = sum;
}

// TILE x TILE tiles of A and B staged in local memory (TILE comes from -D
// and equals the work-group size in each dimension). Loads outside the
// matrices read 0, so the sizes need not be multiples of the tile; every
// work-item reaches both barriers.
__kernel void matmul_tiled(__global const real *a, __global const real *b, __global real *c,
                           uint m, uint n, uint k) {
  __local real tile_a[TILE][TILE];
  __local real tile_b[TILE][TILE];
  uint col = get_global_id(0), row = get_global_id(1);
  uint tx = get_local_id(0), ty = get_local_id(1);
  real sum = 0;
  for (uint t = 0; t < (k + TILE - 1) / TILE; t++) {
    uint a_col = t * TILE + tx, b_row = t * TILE + ty;
    tile_a[ty][tx] = row < m && a_col < k ? a[row * k + a_col] : 0;
    tile_b[ty][tx] = b_row < k && col < n ? b[b_row * n + col] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    // Unrolled: also what keeps PoCL from adding an implicit barrier before
    // this loop (its work-item loops do, around uniform loops), which would
    // hide a missing barrier above.
#pragma unroll
    for (uint j = 0; j < TILE; j++) sum += tile_a[ty][j] * tile_b[j][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
