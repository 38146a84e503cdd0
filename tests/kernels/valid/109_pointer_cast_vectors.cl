// Pointer casts between element types on __global buffers (issue 18): a
// float buffer read as float4 (whole and from an offset cast at run time),
// written as float4 and as uint bits, an int buffer read as uint, a helper
// that takes a float4 pointer given a cast float buffer, and a cast through
// void * and back. Vulkan reads each as a view of the same binding.
// @kernel casts
// @global 250
// @local 64
// @arg buffer float 1000 random -100 100
// @arg buffer int 250 random -1000000 1000000
// @arg buffer float 1000 output
// @arg buffer float 250 output
// @arg buffer float 250 output
// @arg value int 250
// @tolerance ulp 4 abs 1e-4
float dot4(__global const float4 *v, int i) {
  float4 a = v[i];
  return a.x * 2.0f + a.y - a.z * 0.5f + a.w;
}

__kernel void casts(__global const float *in, __global const int *ints, __global float *out4,
                    __global float *sums, __global float *bits, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  __global const float4 *in4 = (__global const float4 *)in;
  float4 v = in4[i];
  /* a cast at an offset known only at run time: a multiple of 4 floats */
  __global const float4 *row = (__global const float4 *)(in + 4 * (n - 1 - i));
  float4 w = *row;
  ((__global float4 *)out4)[i] = v * 3.0f - w;
  sums[i] = dot4((__global const float4 *)in, i) + dot4(in4 + 1, i > 0 ? i - 1 : 0);
  __global const uint *u = (__global const uint *)ints;
  __global const void *raw = (__global const void *)(in + 4 * i);
  __global const float *back = (__global const float *)raw;
  __global uint *b = (__global uint *)bits;
  b[i] = ((u[i] >> 3) ^ as_uint(back[2])) & 0x3fffffffu; /* never a NaN */
}
