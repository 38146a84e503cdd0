// The integer limit macros (CHAR_MIN ... ULONG_MAX) and arithmetic at the
// limits that is defined: unsigned wrap, INT_MIN as a value, conversions of
// out-of-range values to unsigned types (modulo) and to signed types (_sat).
// @kernel limits
// @global 16
// @local 16
// @arg buffer long 32 output 18
// @arg buffer uint 16 random 0 0xffffffff
// @arg buffer uint 16 output
__kernel void limits(__global long *out, __global const uint *in, __global uint *wrapped) {
  uint i = get_global_id(0);
  if (i == 0) {
    out[0] = CHAR_MIN;
    out[1] = CHAR_MAX;
    out[2] = SCHAR_MIN;
    out[3] = UCHAR_MAX;
    out[4] = SHRT_MIN;
    out[5] = SHRT_MAX;
    out[6] = USHRT_MAX;
    out[7] = INT_MIN;
    out[8] = INT_MAX;
    out[9] = UINT_MAX;
    out[10] = LONG_MIN;
    out[11] = LONG_MAX;
    out[12] = (long)(ULONG_MAX >> 1);
    out[13] = (long)(uint)-1;
    out[14] = (uchar)300;
    out[15] = (ushort)-2;
    out[16] = convert_char_sat(INT_MAX);
    out[17] = convert_int_sat(LONG_MIN);
  }
  wrapped[i] = in[i] + UINT_MAX - (0u - in[i] * 3u);
}
