// A variable of type void.
// @error 4:8 variable 'v' has type 'void'
__kernel void k(__global int *out) {
  void v;
  out[0] = 0;
}
