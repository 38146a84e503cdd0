// C = A x B with TILE x TILE tiles staged in local memory, barriers inside
// the loop over tiles, and sizes (37x29 times 29x45) that are not multiples of
// the tile: loads outside the matrices read 0. The tile size comes from -D.
// @kernel matmul
// @options -DTILE=8
// @global 45x37
// @local 8x8
// @arg buffer float 37*29 random -1 1
// @arg buffer float 29*45 random -1 1
// @arg buffer float 37*45 output
// @arg value uint 37
// @arg value uint 45
// @arg value uint 29
// @tolerance ulp 16 abs 1e-5
__kernel void matmul(__global const float *a, __global const float *b, __global float *c,
                     uint m, uint n, uint k) {
  __local float tile_a[TILE][TILE];
  __local float tile_b[TILE][TILE];
  uint col = get_global_id(0), row = get_global_id(1);
  uint tx = get_local_id(0), ty = get_local_id(1);
  float sum = 0.0f;
  for (uint t = 0; t < (k + TILE - 1) / TILE; t++) {
    uint a_col = t * TILE + tx, b_row = t * TILE + ty;
    tile_a[ty][tx] = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
    tile_b[ty][tx] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < TILE; j++) sum += tile_a[ty][j] * tile_b[j][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
