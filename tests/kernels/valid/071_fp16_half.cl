// half arithmetic behind cl_khr_fp16 (skipped on devices without fp16, such
// as PoCL 3.1 here): half buffers, half vectors, conversions to and from float.
// @kernel halves
// @requires fp16
// @global 300
// @local 32
// @arg buffer half 300 random -8 8
// @arg buffer half 300 output
// @arg buffer float 300 output
// @arg value uint 300
// @tolerance ulp 2
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void halves(__global const half *in, __global half *out, __global float *widened,
                     uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  half x = in[i];
  half2 v = (half2)(x, x * (half)0.5f);
  out[i] = v.x + v.y;
  widened[i] = convert_float(x) * 3.0f + (float)v.y;
}
