// select(a, b, c) on vectors takes b where the most significant bit of c is
// set: for unsigned c that is c >= 2^(bits-1), never c < 0 (vulkan:0 once
// took a everywhere: fuzz_differential --barriers seed 1059). Conditions of
// uchar, ushort, uint, ulong and 8-wide uint vectors, signed int beside them.
// @kernel pick
// @global 100
// @local 20
// @arg buffer uint 100 random 0 4294967295
// @arg buffer uint 100 random 0 4294967295
// @arg buffer uint 100 output
// @arg value uint 100
__kernel void pick(__global const uint *a, __global const uint *c, __global uint *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint x = a[i], y = c[i], z = c[(i + 7) % n];
  uint4 c4 = (uint4)(y, z, y ^ z, ~y);
  uint4 u = select((uint4)(1u, 2u, 3u, 4u), (uint4)(x), c4);
  uchar4 cb = as_uchar4(y);
  uchar4 b = select((uchar4)(9), as_uchar4(x), cb);
  ushort2 cs = as_ushort2(z);
  ushort2 s = select((ushort2)(7), as_ushort2(x), cs);
  uint8 c8 = (uint8)(c4, c4.wzyx + (uint4)(x));
  uint8 w = select((uint8)(5u), (uint8)(x, y, z, x ^ y, x + z, y * 3u, z ^ 0x80000000u, ~x), c8);
  ulong2 cl = (ulong2)(upsample(y, z), upsample(z, x));
  ulong2 l = select((ulong2)(11ul), (ulong2)(upsample(x, y), (ulong)x), cl);
  int4 si = select((int4)(-1), as_int4((uint4)(x)), as_int4(c4));
  uint r = u.x ^ u.y * 3u ^ u.z * 5u ^ u.w * 7u;
  r ^= as_uint(b) * 11u ^ as_uint(s) * 13u;
  r ^= w.s0 ^ w.s1 * 3u ^ w.s2 * 5u ^ w.s3 * 7u ^ w.s4 * 9u ^ w.s5 * 11u ^ w.s6 * 13u ^ w.s7 * 17u;
  r ^= (uint)l.x ^ (uint)(l.x >> 32) * 19u ^ (uint)l.y * 23u;
  r ^= (uint)si.x ^ (uint)si.y * 29u ^ (uint)si.z * 31u ^ (uint)si.w * 37u;
  out[i] = r;
}
