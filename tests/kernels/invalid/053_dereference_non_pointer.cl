// Unary * of an int.
// @error 5:12 invalid operand to unary '*'
__kernel void k(__global int *out) {
  int x = 3;
  out[0] = *x;
}
