// Vector comparison and logical operators: ==, !=, <, >=, !, &&, || on
// vectors give -1 (all bits) or 0 per lane in a signed integer vector of the
// same width; bitwise operators and shifts by a scalar on vectors (left
// shifts only of non-negative values: shifting a negative value left is
// undefined in C99, which OpenCL C follows).
// @kernel vector_logic
// @global 300
// @local 32
// @arg buffer int4 300 random -20 20
// @arg buffer int4 300 random -20 20
// @arg buffer float4 300 random -1 1
// @arg buffer int4 300 output
// @arg buffer int4 300 output
// @arg buffer int4 300 output
// @arg buffer short8 300 output
// @arg value uint 300
__kernel void vector_logic(__global const int4 *a, __global const int4 *b,
                           __global const float4 *f, __global int4 *compared,
                           __global int4 *logical, __global int4 *bitwise,
                           __global short8 *narrow, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int4 x = a[i], y = b[i];
  compared[i] = (x == y) + (x != y) * 2 + (x < y) * 4 + (x >= y) * 8 + (f[i] > 0.0f) * 16;
  logical[i] = (x && y) + (x || y) * 2 + !x * 4;
  bitwise[i] = ((x & y) | (x ^ 0x55)) + ((~y & 0xff) << 2) + (x >> 1); /* no negative << */
  short8 s = (short8)(convert_short4(x), convert_short4(y));
  narrow[i] = (s > (short8)(0)) + ((s & (short8)(0x7f)) << (short)3);
}
