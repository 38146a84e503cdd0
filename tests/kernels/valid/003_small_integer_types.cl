// char, uchar, short and ushort: arithmetic is done in int after promotion and
// the result is converted back, wrapping for the unsigned types.
// @kernel small_integers
// @global 300
// @local 64
// @arg buffer char 300 random -100 100
// @arg buffer uchar 300 random 1 255
// @arg buffer short 300 random -30000 30000
// @arg buffer ushort 300 random 1 65535
// @arg buffer char 300 output
// @arg buffer uchar 300 output
// @arg buffer short 300 output
// @arg buffer ushort 300 output
// @arg buffer int 300 output
// @arg value uint 300
__kernel void small_integers(__global const char *c, __global const uchar *uc,
                             __global const short *s, __global const ushort *us,
                             __global char *c_out, __global uchar *uc_out, __global short *s_out,
                             __global ushort *us_out, __global int *wide, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  c_out[i] = (char)(c[i] / 3 + 7);     /* stays within char */
  uc_out[i] = (uchar)(uc[i] * 3 + 11); /* wraps modulo 256 */
  s_out[i] = (short)(s[i] / -7);
  us_out[i] = (ushort)(us[i] + 40000u); /* wraps modulo 65536 */
  wide[i] = c[i] * uc[i] + s[i] - us[i]; /* all promoted to int */
}
