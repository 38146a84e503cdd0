// 8- and 16-bit vectors: uchar16 and char16 arithmetic wraps per lane (no
// promotion for vectors), add_sat/sub_sat saturate, ushort8 multiplies wrap,
// and vector shifts by a scalar.
// @kernel small_vectors
// @global 250
// @local 32
// @arg buffer uchar16 250 random 0 255
// @arg buffer char16 250 random -128 127
// @arg buffer ushort8 250 random 0 65535
// @arg buffer uchar16 250 output
// @arg buffer char16 250 output
// @arg buffer ushort8 250 output
// @arg value uint 250
__kernel void small_vectors(__global const uchar16 *a, __global const char16 *b,
                            __global const ushort8 *c, __global uchar16 *wrapped,
                            __global char16 *saturated, __global ushort8 *products, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uchar16 u = a[i];
  char16 s = b[i];
  wrapped[i] = u + u * (uchar16)(3) + (uchar16)(200) + (u >> 2);
  saturated[i] = add_sat(s, (char16)(100)) + sub_sat(s, (char16)(-100)) / (char16)(2) -
                 hadd(s, s.sFEDCBA9876543210);
  ushort8 v = c[i];
  products[i] = v * v + (v << 3) - (ushort8)(1);
}
