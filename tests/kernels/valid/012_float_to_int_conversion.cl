// Float to int: casts and convert_int round toward zero; the _rte, _rtp and
// _rtn suffixes choose the rounding; _sat clamps out-of-range values and maps
// NaN to 0. Inputs include halves (x.5) and values beyond the int range.
// @kernel float_to_int
// @global 640
// @local 64
// @arg buffer float 640 random -5000000000 5000000000
// @arg buffer int 640 output
// @arg buffer int4 640 output
// @arg buffer int 640 output
// @arg buffer uchar4 640 output
// @arg value uint 640
__kernel void float_to_int(__global const float *in, __global int *cast, __global int4 *rounded,
                           __global int *saturated, __global uchar4 *small, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float big = in[i];
  float half_way = (float)((int)(i % 64) - 32) + 0.5f; /* -31.5 .. 31.5 */
  float x = (i & 1) ? half_way : big * 0.001f;        /* in range for a cast */
  cast[i] = (int)x;
  rounded[i] = (int4)(convert_int(x), convert_int_rte(x), convert_int_rtp(x), convert_int_rtn(x));
  float special = i % 5 == 0 ? NAN : i % 5 == 1 ? INFINITY : i % 5 == 2 ? -INFINITY : big;
  saturated[i] = convert_int_sat(special) ^ convert_int_sat_rte(big * 0.25f);
  small[i] = (uchar4)(convert_uchar_sat(x), convert_uchar_sat_rte(x * 10.0f),
                      convert_uchar_sat(-x), convert_uchar_sat(special));
}
