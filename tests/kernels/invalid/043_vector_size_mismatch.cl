// Vectors of different lane counts do not convert.
// @error 5:14 cannot convert 'float4' to 'float2'
__kernel void k(__global float2 *out) {
  float4 a = (float4)(1.0f);
  float2 b = a;
  out[0] = b;
}
