// Vector types of 2, 4, 8 and 16 lanes: lane-wise arithmetic, scalars widened
// to vectors, and vector literals built from scalars and smaller vectors.
// @kernel vector_arithmetic
// @global 300
// @local 32
// @arg buffer float4 300 random -4 4
// @arg buffer int8 300 random -1000 1000
// @arg buffer float2 300 output
// @arg buffer float4 300 output
// @arg buffer int8 300 output
// @arg buffer float16 300 output
// @arg value uint 300
// @arg value float4 1.5 2 -3 0.25
// @tolerance ulp 4 abs 1e-5
__kernel void vector_arithmetic(__global const float4 *a, __global const int8 *b,
                                __global float2 *two, __global float4 *four,
                                __global int8 *eight, __global float16 *sixteen, uint n,
                                float4 scale) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float4 x = a[i];
  two[i] = (float2)(x.x + x.y, x.z * x.w) * 0.5f;
  four[i] = x * scale + (float4)(1.0f, 2.0f, 3.0f, 4.0f) - 2.0f * x;
  int8 y = b[i];
  eight[i] = y * 3 - (int8)(1, 2, 3, 4, 5, 6, 7, 8) + (int8)(y.s0);
  sixteen[i] = (float16)(x, (float2)(1.0f, -1.0f), x.xy, (float8)(scale.x)) + (float16)(0.5f);
}
