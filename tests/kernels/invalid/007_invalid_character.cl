// A character that is no token of the language.
// @error 4:13 invalid character '@'
__kernel void k(__global int *out) {
  int x = 1 @ 2;
  out[0] = x;
}
