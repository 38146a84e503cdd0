// Single-precision denormals: products that fall below FLT_MIN
// keep their value (OpenCL C 1.2 full profile on this device) and are
// classified by isnormal and comparisons; bits compared exactly.
// @kernel denormals
// @global 256
// @local 32
// @arg buffer float 256 random 1 2
// @arg buffer float 256 output
// @arg buffer uint 256 output
// @arg buffer int 256 output
__kernel void denormals(__global const float *in, __global float *products,
                        __global uint *bits, __global int *classes) {
  uint i = get_global_id(0);
  float tiny = in[i] * FLT_MIN;               /* normal: 1 .. 2 times FLT_MIN */
  float denormal = tiny * 0.0625f;            /* exact: a denormal */
  float back = denormal * 16.0f;              /* exact again */
  products[i] = denormal + FLT_MIN * 0.25f;
  bits[i] = as_uint(denormal) ^ as_uint(back);
  classes[i] = isnormal(tiny) + 2 * isnormal(denormal) + 4 * (denormal != 0.0f) +
               8 * (back == tiny) + 16 * (as_float(1u) > 0.0f);
}
