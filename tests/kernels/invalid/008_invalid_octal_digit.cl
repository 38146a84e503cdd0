// A literal starting with 0 is octal: 9 is no octal digit.
// @error 4:11 invalid digit '9' in octal constant
__kernel void k(__global int *out) {
  int x = 09;
  out[0] = x;
}
