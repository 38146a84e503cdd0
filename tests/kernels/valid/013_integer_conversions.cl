// convert_T between integer types, with and without _sat, on scalars and
// vectors; int to float rounding (16777217 is not a float) with _rtz/_rtp.
// @kernel integer_conversions
// @global 800
// @local 64
// @arg buffer int 800 random -100000 100000
// @arg buffer uint 800 random 0 0xffffffff
// @arg buffer char4 800 output
// @arg buffer uchar4 800 output
// @arg buffer short2 800 output
// @arg buffer float4 800 output
// @arg value uint 800
__kernel void integer_conversions(__global const int *s, __global const uint *u,
                                  __global char4 *chars, __global uchar4 *uchars,
                                  __global short2 *shorts, __global float4 *floats, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int x = s[i];
  uint y = u[i];
  chars[i] = (char4)(convert_char(x), convert_char_sat(x), convert_char_sat(y), (char)y);
  uchars[i] = convert_uchar4_sat((int4)(x, -x, x / 300, (int)(y >> 24)));
  shorts[i] = (short2)(convert_short_sat(y), convert_short_sat(x * 3));
  int odd = 16777217 + 2 * (int)(i % 8); /* odd: not representable as a float */
  floats[i] = (float4)(convert_float(odd), convert_float_rtz(odd), convert_float_rtp(odd),
                       convert_float_rtn(y));
}
