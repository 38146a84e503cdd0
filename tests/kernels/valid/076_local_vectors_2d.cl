// A 2D __local array of float4, and vload4/vstore4 on a __local float
// pointer: each group blurs its tile horizontally with wrap-around.
// @kernel local_vectors
// @global 20x12
// @local 4x4
// @arg buffer float4 20*12 random -10 10
// @arg buffer float4 20*12 output
// @arg value uint 20
// @arg value uint 12
// @tolerance ulp 4 abs 1e-5
__kernel void local_vectors(__global const float4 *in, __global float4 *out, uint width,
                            uint height) {
  __local float4 tile[4][4];
  __local float flat[4 * 4 * 4];
  uint x = get_global_id(0), y = get_global_id(1);
  uint lx = get_local_id(0), ly = get_local_id(1);
  float4 v = x < width && y < height ? in[y * width + x] : (float4)(0.0f);
  tile[ly][lx] = v;
  vstore4(v * 2.0f, ly * 4 + lx, flat);
  barrier(CLK_LOCAL_MEM_FENCE);
  float4 left = tile[ly][(lx + 3) % 4], right = vload4(ly * 4 + (lx + 1) % 4, flat);
  if (x < width && y < height) out[y * width + x] = 0.5f * v + 0.25f * left + 0.125f * right;
}
