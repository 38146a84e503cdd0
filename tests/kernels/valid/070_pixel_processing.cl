// Realistic image-style processing on uchar4 RGBA pixels in a buffer (no
// image types): convert to float4, a per-channel gain and an S curve,
// back to uchar4 with saturation and rounding to nearest even.
// @kernel grade
// @global 73x31
// @local 16x16
// @arg buffer uchar4 73*31 random 0 255
// @arg buffer uchar4 73*31 output
// @arg buffer uchar 73*31 output
// @arg value uint 73
// @arg value uint 31
// @arg value float4 1.1 0.9 1.05 1
__kernel void grade(__global const uchar4 *in, __global uchar4 *out, __global uchar *luma,
                    uint width, uint height, float4 gain) {
  uint x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  uint index = y * width + x;
  float4 p = convert_float4(in[index]) * (1.0f / 255.0f);
  float4 graded = p * gain;
  graded.xyz = graded.xyz * graded.xyz * (3.0f - 2.0f * graded.xyz); /* an S curve */
  out[index] = convert_uchar4_sat_rte(graded * 255.0f + 0.25f);
  float l = dot(p.xyz, (float3)(0.25f, 0.5f, 0.25f));
  luma[index] = convert_uchar_sat(l * 255.0f + 0.5f);
}
