// A swizzle with a repeated component cannot be assigned: reported at
// the start of the left operand.
// @error 6:3 not assignable
__kernel void k(__global float2 *out) {
  float2 v = (float2)(0.0f);
  v.xx = (float2)(1.0f, 2.0f);
  out[0] = v;
}
