// A parameter whose specifiers name no type (`__global * buffer`) is an int
// pointer, as in C89: accepted with a warning naming the parameter (issue 31).
// @kernel twice
// @global 256
// @local 64
// @arg buffer int 256 random -100000 100000
// @arg buffer int 256 output
// @arg value int 256
__kernel void twice(__global const * in, __global * buffer, const n) {
  uint i = get_global_id(0);
  if (i >= (uint)n) return;
  buffer[i] = in[i] * 2 + (int)i;
}
