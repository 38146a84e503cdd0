// convert_T for vectors: float4 to int4 with each rounding mode and with
// saturation, int8 to float8, uchar4 to float4 and back, short to char with
// _sat, float to uint saturating negatives to 0.
// @kernel vector_conversions
// @global 400
// @local 64
// @arg buffer float4 400 random -300 300
// @arg buffer int8 400 random -100000000 100000000
// @arg buffer int4 400 output
// @arg buffer int4 400 output
// @arg buffer float8 400 output
// @arg buffer uchar8 400 output
// @arg buffer uint4 400 output
// @arg value uint 400
__kernel void vector_conversions(__global const float4 *f, __global const int8 *v,
                                 __global int4 *rte, __global int4 *rtp_rtn,
                                 __global float8 *floats, __global uchar8 *bytes,
                                 __global uint4 *unsigned_sat, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float4 x = f[i] + (float4)(0.5f, -0.5f, 0.25f, 2.5f);
  rte[i] = convert_int4_rte(x) + convert_int4(x) * 1000;
  rtp_rtn[i] = convert_int4_rtp(x) * 1000 + convert_int4_rtn(x);
  floats[i] = convert_float8(v[i]) + convert_float8_rtz(v[i].s76543210);
  bytes[i] = (uchar8)(convert_uchar4_sat_rte(x), convert_uchar4(convert_char4_sat(x)));
  unsigned_sat[i] = convert_uint4_sat(x * 1e7f) + convert_uint4_sat_rtz(-x);
}
