// A float4 has no s8 component.
// @error 5:14 invalid vector component 's8'
__kernel void k(__global float *out) {
  float4 v = (float4)(1.0f);
  out[0] = v.s8;
}
