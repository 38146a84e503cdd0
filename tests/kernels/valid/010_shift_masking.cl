// OpenCL C masks shift counts to the width of the left operand (C leaves
// over-wide shifts undefined): x << 33 is x << 1 for a 32-bit x, and a uchar4
// lane shifted by 9 is shifted by 1. Right shifts of negative ints are
// arithmetic.
// @kernel shifts
// @global 700
// @local 64
// @arg buffer uint 700 random 0 0xffffffff
// @arg buffer int 700 random -2000000000 2000000000
// @arg buffer uint 700 random 0 200
// @arg buffer ulong 700 random 0 0xffffffffffffffff
// @arg buffer uint 700 output
// @arg buffer int 700 output
// @arg buffer ulong 700 output
// @arg buffer uchar4 700 output
// @arg value uint 700
__kernel void shifts(__global const uint *u, __global const int *s, __global const uint *count,
                     __global const ulong *w, __global uint *u_out, __global int *s_out,
                     __global ulong *w_out, __global uchar4 *v_out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint c = count[i];
  u_out[i] = (u[i] << c) ^ (u[i] >> (c + 3));
  s_out[i] = s[i] >> c; /* arithmetic, count masked to 0..31 */
  w_out[i] = (w[i] << c) | (w[i] >> (200 - c));
  uchar4 v = (uchar4)((uchar)u[i], (uchar)(u[i] >> 8), (uchar)(u[i] >> 16), (uchar)(u[i] >> 24));
  uchar4 counts = (uchar4)((uchar)c, (uchar)(c + 1), (uchar)(c + 2), (uchar)(c + 9));
  v_out[i] = (v << counts) ^ (v >> counts);
}
