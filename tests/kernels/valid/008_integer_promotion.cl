// Integer promotion: uchar and ushort operands are widened to int before
// arithmetic, so products do not wrap and ~ of a uchar is negative.
// @kernel promotion
// @global 600
// @local 64
// @arg buffer uchar 600 random 1 255
// @arg buffer uchar 600 random 1 255
// @arg buffer ushort 600 random 1 40000
// @arg buffer int 600 output
// @arg buffer int 600 output
// @arg buffer uint 600 output
// @arg buffer uchar 600 output
// @arg value uint 600
__kernel void promotion(__global const uchar *a, __global const uchar *b,
                        __global const ushort *s, __global int *product, __global int *inverted,
                        __global uint *shifted, __global uchar *narrowed, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uchar x = a[i], y = b[i];
  product[i] = x * y - (x - y) * 300; /* int arithmetic: x - y may be negative */
  inverted[i] = ~x + (y > x ? 1 : 0);
  ushort z = s[i];
  shifted[i] = (uint)(z << 15) + (z >> 3); /* z << 15 fits int for z < 65536 */
  narrowed[i] = (uchar)(x + y);            /* truncated back to 8 bits */
}
