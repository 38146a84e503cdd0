// A pointer made an integer has no portable value (an index on Vulkan, an
// address elsewhere): refused; the other way round is a warning.
// @error 5:12 casts between pointers and integers are not supported
__kernel void k(__global float *p, __global ulong *out) {
  out[0] = (ulong)p;
}
