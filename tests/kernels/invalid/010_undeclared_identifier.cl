// Use of a variable that was never declared.
// @error 5:16 undeclared identifier 'y'
__kernel void k(__global int *out) {
  int x = 1;
  out[0] = x + y;
}
