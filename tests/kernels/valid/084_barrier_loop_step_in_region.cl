// Barriers in a uniform for loop whose step is taken inside a region (every
// work-item adds the tile to the uniform offset), a uniform early continue,
// pointers advanced on both sides of a barrier, a const local from
// get_local_size and a kernel parameter counted down in the do-while around
// it (a group-level copy of an assigned parameter).
// @kernel sgemm_for
// @options -DTILE=8
// @global 50x45
// @local 8x8
// @arg buffer float 45*37 random -1 1
// @arg buffer float 37*50 random -1 1
// @arg buffer float 45*50 output
// @arg value uint 45
// @arg value uint 50
// @arg value uint 37
// @arg value uint 2
// @tolerance ulp 16 abs 1e-5
__kernel void sgemm_for(__global const float *a, __global const float *b, __global float *c,
                        uint m, uint n, uint k, uint passes) {
  __local float as[TILE][TILE];
  __local float bs[TILE][TILE];
  const uint tx = get_local_id(0), ty = get_local_id(1);
  const uint col = get_global_id(0), row = get_global_id(1);
  const uint tile = get_local_size(0);
  __global const float *pa = a + (row < m ? row : m - 1) * k + tx;
  __global const float *pb = b + ty * n + (col < n ? col : n - 1);
  float sum = 0.0f;
  int counted = 0;
  do {
    for (uint t = 0; t < k;) {
      as[ty][tx] = row < m && t + tx < k ? *pa : 0.0f;
      bs[ty][tx] = t + ty < k && col < n ? *pb : 0.0f;
      barrier(CLK_LOCAL_MEM_FENCE);
      pa += tile;
      for (uint j = 0; j < TILE; j++) sum += as[ty][j] * bs[j][tx];
      pb += tile * n;
      t += tile;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (t == 2 * TILE) continue;
      counted++;
    }
    pa -= (k + TILE - 1) / TILE * TILE;
    pb -= (k + TILE - 1) / TILE * TILE * n;
  } while (--passes > 0);
  if (row < m && col < n) c[row * n + col] = sum + (float)counted;
}
