// Calling a variable.
// @error 5:12 called object 'x' is not a function
__kernel void k(__global int *out) {
  int x = 3;
  out[0] = x(1);
}
