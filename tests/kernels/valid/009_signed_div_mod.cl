// Signed division truncates toward zero and the remainder takes the sign of
// the dividend, for int and long, scalars and vectors.
// @kernel signed_div_mod
// @global 1001
// @local 100
// @arg buffer int 1001 random -100000 100000
// @arg buffer int 1001 random -300 300 nonzero
// @arg buffer int 1001 output
// @arg buffer int 1001 output
// @arg buffer long 1001 output
// @arg buffer int4 251 output 250
// @arg value uint 1001
__kernel void signed_div_mod(__global const int *a, __global const int *b, __global int *quotient,
                             __global int *remainder, __global long *wide, __global int4 *vec,
                             uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  quotient[i] = a[i] / b[i];
  remainder[i] = a[i] % b[i];
  wide[i] = ((long)a[i] * 7919L) / (long)b[i] + ((long)a[i] % -13L);
  if (i < n / 4) {
    int4 x = (int4)(a[4 * i], a[4 * i + 1], -a[4 * i + 2], a[4 * i + 3]);
    int4 y = (int4)(b[4 * i], -b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]);
    vec[i] = x / y + (x % y) * 1000;
  }
}
