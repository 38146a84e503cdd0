// An initialiser with no expression.
// @error 4:11 expected expression
__kernel void k(__global int *out) {
  int x = ;
  out[0] = x;
}
