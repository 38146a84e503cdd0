// A tiled sgemm in the style of public OpenCL benchmarks: each work-item
// stages one element of an A tile and one of a B tile in local memory, the
// barriers sit inside a do-while over the tiles, and the __global pointers
// into A and B are advanced by the tile between barriers. 45x37 times 37x50:
// no dimension is a multiple of the tile, so loads outside read 0 (the
// pointers start from clamped rows and columns and are only dereferenced
// where the guard holds). The loop's condition reads a counter decremented
// once per group and a tile offset that every work-item advances.
// @kernel sgemm_ptr
// @options -DTILE=8
// @global 50x45
// @local 8x8
// @arg buffer float 45*37 random -1 1
// @arg buffer float 37*50 random -1 1
// @arg buffer float 45*50 output
// @arg value uint 45
// @arg value uint 50
// @arg value uint 37
// @tolerance ulp 16 abs 1e-5
__kernel void sgemm_ptr(__global const float *a, __global const float *b, __global float *c,
                        uint m, uint n, uint k) {
  __local float as[TILE][TILE];
  __local float bs[TILE][TILE];
  uint tx = get_local_id(0), ty = get_local_id(1);
  uint col = get_global_id(0), row = get_global_id(1);
  uint crow = row < m ? row : m - 1, ccol = col < n ? col : n - 1;
  __global const float *pa = a + crow * k + tx;
  __global const float *pb = b + ty * n + ccol;
  uint k_tiles = (k + TILE - 1) / TILE;
  uint t = 0;
  float sum = 0.0f;
  do {
    as[ty][tx] = row < m && t + tx < k ? *pa : 0.0f;
    bs[ty][tx] = t + ty < k && col < n ? *pb : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    pa += TILE;
    for (uint j = 0; j < TILE; j++) sum += as[ty][j] * bs[j][tx];
    t += TILE; /* uniform, assigned by every work-item of the region */
    barrier(CLK_LOCAL_MEM_FENCE);
    pb += TILE * n;
  } while (--k_tiles > 0 && t < k);
  if (row < m && col < n) c[row * n + col] = sum;
}
