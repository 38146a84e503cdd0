// Compound assignment (+= -= *= /= %= <<= >>= &= |= ^=) and pre/post
// increment and decrement on scalars, vectors, array elements and struct
// members, including the value of the expressions themselves.
// @kernel compound
// @global 400
// @local 64
// @arg buffer int 400 random -10000 10000
// @arg buffer int 400 random 1 30
// @arg buffer int8 400 output
// @arg buffer int4 400 output
// @arg value uint 400
typedef struct {
  int count;
  int4 v;
} holder;

__kernel void compound(__global const int *a, __global const int *b, __global int8 *scalars,
                       __global int4 *vectors, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int x = a[i], y = b[i];
  int r[8];
  r[0] = x;
  r[0] += y;
  r[1] = x;
  r[1] -= y * 2;
  r[2] = x;
  r[2] *= 3;
  r[3] = x;
  r[3] /= y;
  r[4] = x;
  r[4] %= y;
  uint u = (uint)x;
  u <<= y;
  u >>= 3;
  r[5] = (int)u;
  r[6] = x;
  r[6] &= 0xff0;
  r[6] |= 0x3;
  r[6] ^= y;
  int p = x, q = x;
  int before = p++, after = ++q; /* x and x + 1; p and q are both x + 1 */
  int down = p--, down_first = --q;  /* x + 1 and x; p and q are both x */
  r[7] = before * 3 + after - down - down_first + p + q;
  scalars[i] = vload8(0, r);
  holder h = {0, (int4)(x, y, -x, -y)};
  h.count++;
  h.v += (int4)(1, 2, 3, 4);
  h.v *= 2;
  h.v.xy -= h.v.zw;
  h.v %= (int4)(7, -5, 3, 100);
  h.v.w >>= 1;
  h.count++;
  vectors[i] = h.v + h.count;
}
