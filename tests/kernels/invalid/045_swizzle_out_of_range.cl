// A float2 has no z component: reported at the component name.
// @error 5:14 invalid vector component 'z'
__kernel void k(__global float *out) {
  float2 v = (float2)(1.0f, 2.0f);
  out[0] = v.z;
}
