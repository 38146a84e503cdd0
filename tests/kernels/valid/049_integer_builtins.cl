// Integer builtins: abs_diff, add_sat, sub_sat, hadd, rhadd, clamp, clz,
// mad_hi, mad_sat, max, min, mul_hi, rotate, upsample, popcount, mad24 and
// mul24, on scalars and vectors of several widths.
// @kernel integer_builtins
// @global 500
// @local 64
// @arg buffer int 500 random -2147483648 2147483647
// @arg buffer int 500 random -2147483648 2147483647
// @arg buffer uchar4 500 random 0 255
// @arg buffer int8 500 output
// @arg buffer uint8 500 output
// @arg buffer uchar4 500 output
// @arg buffer short2 500 output
// @arg value uint 500
__kernel void integer_builtins(__global const int *a, __global const int *b,
                               __global const uchar4 *c, __global int8 *signed_out,
                               __global uint8 *unsigned_out, __global uchar4 *bytes,
                               __global short2 *shorts, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int x = a[i], y = b[i];
  uint ux = (uint)x, uy = (uint)y;
  int x24 = x >> 9, y24 = y >> 9; /* within 24 bits (signed) */
  signed_out[i] = (int8)(add_sat(x, y), sub_sat(x, y), hadd(x, y), rhadd(x, y),
                         clamp(x, -1000, 1000), mad_sat(x, 3, y), mul_hi(x, y),
                         mul24(x24 >> 8, y24 >> 10) + mad24(x24 >> 8, 3, 7));
  unsigned_out[i] = (uint8)(abs_diff(x, y), clz(ux), popcount(ux), rotate(ux, uy),
                            mad_hi(ux, uy, 5u), max(ux, uy), min(ux, uy),
                            (uint)upsample((ushort)ux, (ushort)uy));
  uchar4 v = c[i];
  bytes[i] = add_sat(v, (uchar4)(200)) - sub_sat(v, (uchar4)(100)) + rotate(v, (uchar4)(3)) +
             clz(v) + popcount(v) + hadd(v, v.wzyx);
  shorts[i] = (short2)(upsample((char)x, (uchar)y), sub_sat((short)x, (short)y));
}
