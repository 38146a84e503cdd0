// __attribute__((reqd_work_group_size(X, Y, Z))) in two dimensions: the
// kernel relies on its group size being 8x4 for a local array's size.
// @kernel fixed_groups
// @global 30x10
// @local 8x4
// @arg buffer int 30*10 random -1000 1000
// @arg buffer int 30*10 output
// @arg value uint 30
// @arg value uint 10
__kernel __attribute__((reqd_work_group_size(8, 4, 1))) void fixed_groups(
    __global const int *in, __global int *out, uint width, uint height) {
  __local int row_sums[4];
  __local int tile[4][8];
  uint x = get_global_id(0), y = get_global_id(1);
  uint lx = get_local_id(0), ly = get_local_id(1);
  tile[ly][lx] = x < width && y < height ? in[y * width + x] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lx == 0) {
    int sum = 0;
    for (int k = 0; k < 8; k++) sum += tile[ly][k];
    row_sums[ly] = sum;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (x < width && y < height)
    out[y * width + x] = tile[ly][lx] * 100 + row_sums[ly] + (int)(get_local_size(0) *
                                                                   get_local_size(1));
}
