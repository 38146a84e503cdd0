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

// GPU-grade (issue 22): a work-group of (BN/TN) x (BM/TM) work-items
// computes a BM x BN block of C, each work-item TM x TN of it in registers
// (TM, TN multiples of 4: float4 accumulators), from BK-deep tiles of A
// (stored transposed) and B in local memory, double-buffered: the next
// tiles are read from global memory into registers while the current ones
// are used, so there is one barrier per step. Any n: loads outside the
// matrices read 0, stores outside are left out. A work-item's rows are
// ty*4 + g*(BM/TM)*4 + 0..3 and its columns tx*4 + g*(BN/TN)*4 + 0..3, so
// neighbouring work-items read neighbouring float4s of the tiles.
#ifdef GPU_BM
#define GPU_TX (GPU_BN / GPU_TN)
#define GPU_TY (GPU_BM / GPU_TM)
#define GPU_THREADS (GPU_TX * GPU_TY)
#define GPU_LA (GPU_BM * GPU_BK / 4 / GPU_THREADS) /* float4s of A per work-item */
#define GPU_LB (GPU_BN * GPU_BK / 4 / GPU_THREADS) /* float4s of B per work-item */
#if GPU_TM % 4 != 0 || GPU_TN % 4 != 0 || GPU_BM % GPU_TM != 0 || GPU_BN % GPU_TN != 0 || \
    GPU_LA == 0 || GPU_LB == 0 || GPU_LA * GPU_THREADS * 4 != GPU_BM * GPU_BK ||           \
    GPU_LB * GPU_THREADS * 4 != GPU_BN * GPU_BK
#error "sgemm_gpu: TM and TN must be multiples of 4 dividing BM and BN, and each tile a whole number of float4s per work-item"
#endif
__kernel void sgemm_gpu(__global const float *a, __global const float *b, __global float *c,
                        uint n) {
  __local float4 tile_a[2][GPU_BK][GPU_BM / 4];
  __local float4 tile_b[2][GPU_BK][GPU_BN / 4];
  const uint tx = get_local_id(0), ty = get_local_id(1);
  const uint tid = ty * GPU_TX + tx;
  const uint row0 = get_group_id(1) * GPU_BM, col0 = get_group_id(0) * GPU_BN;
  const bool vec = (n & 3u) == 0u;
  float4 acc[GPU_TM][GPU_TN / 4];
  float4 next_a[GPU_LA], next_b[GPU_LB];
  for (uint i = 0; i < GPU_TM; i++)
    for (uint j = 0; j < GPU_TN / 4; j++) acc[i][j] = (float4)(0.0f);
  for (uint t = 0; t < n + GPU_BK; t += GPU_BK) {
    // Read the tiles of step t (A: 4 rows at one k; B: 4 columns at one k).
    if (t < n) {
      for (uint l = 0; l < GPU_LA; l++) {
        uint e = tid + l * GPU_THREADS;
        uint k = t + e % GPU_BK, row = row0 + e / GPU_BK * 4;
        float4 v = (float4)(0.0f);
        if (k < n) {
          if (row + 0 < n) v.x = a[(row + 0) * n + k];
          if (row + 1 < n) v.y = a[(row + 1) * n + k];
          if (row + 2 < n) v.z = a[(row + 2) * n + k];
          if (row + 3 < n) v.w = a[(row + 3) * n + k];
        }
        next_a[l] = v;
      }
      for (uint l = 0; l < GPU_LB; l++) {
        uint e = tid + l * GPU_THREADS;
        uint k = t + e / (GPU_BN / 4), col = col0 + e % (GPU_BN / 4) * 4;
        float4 v = (float4)(0.0f);
        if (k < n) {
          if (vec && col + 3 < n) {
            v = vload4((k * n + col) / 4, b);
          } else {
            if (col + 0 < n) v.x = b[k * n + col + 0];
            if (col + 1 < n) v.y = b[k * n + col + 1];
            if (col + 2 < n) v.z = b[k * n + col + 2];
            if (col + 3 < n) v.w = b[k * n + col + 3];
          }
        }
        next_b[l] = v;
      }
    }
    // Multiply the tiles of step t - BK, stored last time round.
    if (t > 0) {
      uint buf = (t / GPU_BK - 1) & 1u;
      for (uint k = 0; k < GPU_BK; k++) {
        float4 av[GPU_TM / 4], bv[GPU_TN / 4];
        for (uint g = 0; g < GPU_TM / 4; g++) av[g] = tile_a[buf][k][ty + g * GPU_TY];
        for (uint g = 0; g < GPU_TN / 4; g++) bv[g] = tile_b[buf][k][tx + g * GPU_TX];
        for (uint g = 0; g < GPU_TM / 4; g++)
          for (uint j = 0; j < GPU_TN / 4; j++) {
            acc[g * 4 + 0][j] += av[g].x * bv[j];
            acc[g * 4 + 1][j] += av[g].y * bv[j];
            acc[g * 4 + 2][j] += av[g].z * bv[j];
            acc[g * 4 + 3][j] += av[g].w * bv[j];
          }
      }
    }
    // Store the tiles of step t into the other buffer (last read one step
    // ago, before the barrier that ended it).
    if (t < n) {
      uint buf = (t / GPU_BK) & 1u;
      for (uint l = 0; l < GPU_LA; l++) {
        uint e = tid + l * GPU_THREADS;
        tile_a[buf][e % GPU_BK][e / GPU_BK] = next_a[l];
      }
      for (uint l = 0; l < GPU_LB; l++) {
        uint e = tid + l * GPU_THREADS;
        tile_b[buf][e / (GPU_BN / 4)][e % (GPU_BN / 4)] = next_b[l];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (uint g = 0; g < GPU_TM / 4; g++)
    for (uint q = 0; q < 4; q++) {
      uint row = row0 + (ty + g * GPU_TY) * 4 + q;
      if (row >= n) continue;
      for (uint j = 0; j < GPU_TN / 4; j++) {
        uint col = col0 + (tx + j * GPU_TX) * 4;
        float4 v = acc[g * 4 + q][j];
        if (vec && col + 3 < n) {
          vstore4(v, (row * n + col) / 4, c);
        } else {
          if (col + 0 < n) c[row * n + col + 0] = v.x;
          if (col + 1 < n) c[row * n + col + 1] = v.y;
          if (col + 2 < n) c[row * n + col + 2] = v.z;
          if (col + 3 < n) c[row * n + col + 3] = v.w;
        }
      }
    }
}
#endif
