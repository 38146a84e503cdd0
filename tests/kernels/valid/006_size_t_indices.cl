// size_t and ptrdiff_t arithmetic on work-item ids: unsigned wrap of an
// index difference, pointer differences, and conversion to uint.
// @kernel indices
// @global 513
// @local 128
// @arg buffer uint 513 random 0 1000
// @arg buffer uint 513 output
// @arg buffer int 513 output
// @arg value uint 513
__kernel void indices(__global const uint *in, __global uint *mirrored, __global int *offsets,
                      uint n) {
  size_t i = get_global_id(0);
  if (i >= n) return;
  size_t last = (size_t)n - 1;
  size_t mirror = last - i;
  __global const uint *p = in + mirror, *q = in + i;
  ptrdiff_t distance = p - q;
  mirrored[i] = in[mirror] + (uint)(mirror % 7);
  offsets[i] = (int)distance + (int)(i & 15);
}
