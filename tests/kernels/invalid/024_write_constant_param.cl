// Writing through a __constant pointer parameter.
// @error 4:3 cannot assign to __constant memory
__kernel void k(__constant float *table, __global float *out) {
  table[0] = 1.0f;
  out[0] = table[0];
}
