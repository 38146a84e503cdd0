// Writing to a program-scope __constant variable.
// @error 5:3 cannot assign to __constant memory
__constant int limit = 3;
__kernel void k(__global int *out) {
  limit = 4;
  out[0] = limit;
}
