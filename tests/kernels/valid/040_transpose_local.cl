// Matrix transpose through a padded local tile (17 columns to avoid bank
// conflicts), for a 53x41 matrix of ints in 16x16 groups.
// @kernel transpose
// @global 53x41
// @local 16x16
// @arg buffer int 53*41 random -1000000 1000000
// @arg buffer int 41*53 output
// @arg value uint 53
// @arg value uint 41
__kernel void transpose(__global const int *in, __global int *out, uint width, uint height) {
  __local int tile[16][17];
  uint x = get_global_id(0), y = get_global_id(1);
  uint lx = get_local_id(0), ly = get_local_id(1);
  if (x < width && y < height) tile[ly][lx] = in[y * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint tx = get_group_id(1) * 16 + lx, ty = get_group_id(0) * 16 + ly;
  if (tx < height && ty < width) out[ty * height + tx] = tile[lx][ly];
}
