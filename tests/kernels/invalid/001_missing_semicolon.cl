// A declaration without its semicolon: the error is at the token that
// follows, on the next line.
// @error 6:3 expected ';'
__kernel void k(__global int *out) {
  int x = 1
  out[0] = x;
}
