// Swizzles: .xyzw in any order and repeated, .s0 to .sF (and .sa-.sf), .lo,
// .hi, .even and .odd, and swizzles as lvalues.
// @kernel swizzles
// @global 200
// @local 16
// @arg buffer float4 200 random -100 100
// @arg buffer uchar16 200 random 0 255
// @arg buffer float4 200 output
// @arg buffer uchar16 200 output
// @arg buffer float8 200 output
// @arg value uint 200
__kernel void swizzles(__global const float4 *a, __global const uchar16 *b, __global float4 *c,
                       __global uchar16 *d, __global float8 *e, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float4 v = a[i];
  float4 w = v.wzyx + v.xxyy - v.s3210;
  w.xz = v.yw;     /* swizzle as an lvalue */
  w.w = v.x + v.y; /* one component */
  c[i] = w;
  uchar16 u = b[i];
  uchar16 r;
  r.lo = u.hi;
  r.hi = u.lo;
  r.s0 = u.sF;
  r.sA = u.s5;
  r.even = r.even ^ u.odd;
  d[i] = r;
  float8 f = (float8)(v.lo, v.hi.yx, v.even, v.odd);
  f.s67 = f.s01 * 2.0f;
  e[i] = f;
}
