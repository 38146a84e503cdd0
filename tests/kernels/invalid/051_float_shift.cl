// Shifts take integers.
// @error 5:14 invalid operands to binary '<<'
__kernel void k(__global float *out) {
  float x = out[0];
  out[1] = x << 1;
}
