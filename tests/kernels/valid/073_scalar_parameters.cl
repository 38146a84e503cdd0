// Kernel parameters of every by-value scalar type and several vector types
// (char, uchar, short, ushort, int, uint, long, ulong, float, int2, float3,
// uchar16), each used so that a wrongly passed value shows in the output.
// @kernel parameters
// @global 16
// @local 16
// @arg value char -7
// @arg value uchar 250
// @arg value short -30000
// @arg value ushort 65000
// @arg value int -2000000000
// @arg value uint 4000000000
// @arg value long -9000000000000000000
// @arg value ulong 0xfedcba9876543210
// @arg value float -1.25
// @arg value int2 123456 -654321
// @arg value float3 0.5 -2 8
// @arg value uchar16 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
// @arg buffer long 16 output
__kernel void parameters(char c, uchar uc, short s, ushort us, int i, uint u, long l, ulong ul,
                         float f, int2 i2, float3 f3, uchar16 v, __global long *out) {
  uint id = get_global_id(0);
  long values[16] = {c, uc, s, us, i, u, l, (long)(ul >> 4), (long)(f * 1000.0f), i2.x, i2.y,
                     (long)(f3.x * 10.0f), (long)(f3.y * 10.0f), (long)(f3.z * 10.0f),
                     (long)(v.s0 + v.s7 * 100 + v.sF * 10000), (long)sizeof(f3)};
  out[id] = values[id];
}
