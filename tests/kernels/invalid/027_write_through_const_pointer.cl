// Writing through a pointer to const global memory.
// @error 4:3 cannot assign to const
__kernel void k(__global const int *in, __global int *out) {
  in[0] = 1;
  out[0] = in[0];
}
