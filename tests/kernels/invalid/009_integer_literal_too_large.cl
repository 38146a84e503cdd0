// An integer literal that fits no integer type (not even ulong).
// @error 4:12 integer literal is too large
__kernel void k(__global int *out) {
  long x = 123456789012345678901;
  out[0] = (int)x;
}
