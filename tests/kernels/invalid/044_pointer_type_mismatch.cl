// A pointer to float assigned to a pointer to int (C compilers warn; the
// translator rejects it: GLSL cannot reinterpret memory through a pointer).
// @error 5:21 cannot convert
__kernel void k(__global float *floats, __global int *out) {
  __global int *p = floats;
  out[0] = p[0];
}
