// SPDX-License-Identifier: Apache-2.0
// anygpu bench: sgemm variants, C = A x B for row-major square n x n float
// matrices, n a multiple of every tile below (the host pads). The host picks
// the fastest variant per device on the first run (docs/bench.md).

// TILE x TILE tiles of A and B staged in local memory; one output each.
__kernel void sgemm_tiled(__global const float *a, __global const float *b, __global float *c,
                          uint n) {
  __local float tile_a[TILE][TILE];
  __local float tile_b[TILE][TILE];
  uint col = get_global_id(0), row = get_global_id(1);
  uint tx = get_local_id(0), ty = get_local_id(1);
  float sum = 0.0f;
  for (uint t = 0; t < n; t += TILE) {
    tile_a[ty][tx] = a[row * n + t + tx];
    tile_b[ty][tx] = b[(t + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < TILE; j++) sum += tile_a[ty][j] * tile_b[j][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = sum;
}

// Register-blocked: each work-item computes ROWS x 4 outputs (ROWS rows of
// four columns), reading B four floats at a time; no local memory. On the
// CPU backend the four columns become one vector and the inner loop
// vectorises across work-items.
__kernel void sgemm_block(__global const float *a, __global const float *b, __global float *c,
                          uint n) {
  uint col4 = get_global_id(0), row0 = get_global_id(1) * ROWS;
  float4 acc[ROWS];
  for (uint r = 0; r < ROWS; r++) acc[r] = (float4)(0.0f);
  for (uint k = 0; k < n; k++) {
    float4 bk = vload4(col4, b + k * n);
    for (uint r = 0; r < ROWS; r++) acc[r] += a[(row0 + r) * n + k] * bk;
  }
  for (uint r = 0; r < ROWS; r++) vstore4(acc[r], col4, c + (row0 + r) * n);
}

// Register-blocked with local memory: a work-group of TILE x TILE
// work-items computes a (TILE*ROWS) x (TILE*4) block of C; each work-item
// ROWS x 4 of it, from tiles of A (TILE*ROWS x TILE) and B (TILE x TILE*4)
// staged in local memory.
__kernel void sgemm_block_local(__global const float *a, __global const float *b,
                                __global float *c, uint n) {
  __local float tile_a[TILE * ROWS][TILE];
  __local float4 tile_b[TILE][TILE];
  uint tx = get_local_id(0), ty = get_local_id(1);
  uint col4 = get_global_id(0);
  uint row0 = get_group_id(1) * TILE * ROWS;
  float4 acc[ROWS];
  for (uint r = 0; r < ROWS; r++) acc[r] = (float4)(0.0f);
  for (uint t = 0; t < n; t += TILE) {
    for (uint r = 0; r < ROWS; r++) tile_a[ty * ROWS + r][tx] = a[(row0 + ty * ROWS + r) * n + t + tx];
    tile_b[ty][tx] = vload4(col4, b + (t + ty) * n);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < TILE; j++) {
      float4 bj = tile_b[j][tx];
      for (uint r = 0; r < ROWS; r++) acc[r] += tile_a[ty * ROWS + r][j] * bj;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (uint r = 0; r < ROWS; r++) vstore4(acc[r], col4, c + (row0 + ty * ROWS + r) * n);
}
