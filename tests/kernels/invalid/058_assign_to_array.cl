// Arrays are not assignable as a whole.
// @error 5:3 is not assignable
__kernel void k(__global int *out) {
  int a[4] = {1, 2, 3, 4}, b[4] = {0};
  b = a;
  out[0] = b[0];
}
