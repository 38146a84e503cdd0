// A vector part of a vector literal must have the literal's element type
// (OpenCL C converts scalars, never vectors).
// @error 6:21 a 'int2' part in a 'float4' literal: vector parts must have the element type 'float' (use convert_float2())
__kernel void k(__global float4 *out) {
  int2 a = (int2)(1, 2);
  out[0] = (float4)(a, 1.0f, 2.0f);
}
