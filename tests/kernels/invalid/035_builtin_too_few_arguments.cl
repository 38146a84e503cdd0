// A builtin called with too few arguments.
// @error 5:12 too few arguments to function 'dot'
__kernel void k(__global float *out) {
  float4 v = (float4)(1.0f);
  out[0] = dot(v);
}
