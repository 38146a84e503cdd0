// The result of + is not assignable.
// @error 5:3 expression is not assignable
__kernel void k(__global int *out) {
  int a = 1, b = 2;
  a + b = 3;
  out[0] = a;
}
