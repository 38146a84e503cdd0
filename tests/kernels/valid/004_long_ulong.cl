// 64-bit integers: multiplication, division, remainder, mul_hi and shifts;
// ulong arithmetic wraps.
// @kernel wide_integers
// @global 500
// @local 64
// @arg buffer long 500 random -4000000000 4000000000
// @arg buffer long 500 random -3000000 3000000 nonzero
// @arg buffer ulong 500 random 0 0xffffffffffffffff
// @arg buffer long 500 output
// @arg buffer ulong 500 output
// @arg buffer ulong 500 output
// @arg value uint 500
__kernel void wide_integers(__global const long *a, __global const long *b,
                            __global const ulong *u, __global long *signed_out,
                            __global ulong *unsigned_out, __global ulong *high,
                            uint n) {
  size_t i = get_global_id(0);
  if (i >= n) return;
  long x = a[i], y = b[i];
  signed_out[i] = x * 1000L / y + x % y - (x >> 7);
  unsigned_out[i] = u[i] * 6364136223846793005UL + 1442695040888963407UL;
  high[i] = mul_hi(u[i], 0x9E3779B97F4A7C15UL) ^ (u[i] << 13) ^ (u[i] >> 51);
}
