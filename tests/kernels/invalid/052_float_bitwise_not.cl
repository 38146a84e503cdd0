// ~ takes integers.
// @error 5:12 invalid operand to unary '~'
__kernel void k(__global float *out) {
  float x = out[0];
  out[1] = ~x;
}
