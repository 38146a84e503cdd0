// return with a value in a void function (the kernel).
// @error 5:3 void function 'k' cannot return a value
__kernel void k(__global int *out) {
  out[0] = 1;
  return 1;
}
