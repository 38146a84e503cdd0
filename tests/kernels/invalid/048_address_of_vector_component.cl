// A vector component has no address: reported at the operator.
// @error 5:14 cannot take the address of a vector component
__kernel void k(__global float *out) {
  float4 v = (float4)(1.0f);
  float *p = &v.x;
  out[0] = *p;
}
