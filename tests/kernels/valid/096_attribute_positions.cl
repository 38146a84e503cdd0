// __attribute__ in every position OpenCL C's grammar allows (issue 31):
// after 'struct', after the closing brace, after a typedef name, after a
// member, a variable and a parameter, after '*', after the parameter list.
// aligned and packed change the layout the host sees; the hints are kept.
// @kernel attrs
// @global 128
// @local 32
// @arg buffer uint 128 random 0 4294967295
// @arg buffer uint 512 output
// @arg buffer uint 128 output
// @arg value uint 128
typedef struct __attribute__((packed)) {
  uchar tag;
  uint value; /* offset 1 in a packed struct */
  uchar flag;
} __attribute__((aligned(4))) packed_t; /* 6 bytes, rounded to 8 by aligned(4) */

struct wide {
  uint a;
  uint b __attribute__((aligned(8))); /* offset 8 */
} __attribute__((aligned(16)));       /* 16 bytes */

typedef struct {
  uint x, y;
} params_t __attribute__((aligned(16))); /* aligned to 16, still 8 bytes (as GCC and clang) */

struct outer {
  uint a;
  params_t p; /* offset 16; the struct is 32 bytes */
};

uint hash_u(uint x) __attribute__((frobnicate));
uint hash_u(uint x) { return x * 2654435761u ^ (x >> 13); }

__kernel __attribute__((reqd_work_group_size(32, 1, 1))) __attribute__((vec_type_hint(uint4)))
__attribute__((work_group_size_hint(32, 1, 1))) void
attrs(__global const uint *in, __global uint *__attribute__((frobnicate)) out,
      __global uint *sizes __attribute__((endian(device))), const uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  packed_t p = {(uchar)in[i], in[i] ^ 0x5a5a5a5au, (uchar)(in[i] >> 8)};
  struct wide w = {hash_u(in[i]), in[(i + 1) % n]};
  params_t q __attribute__((aligned(16))) = {in[i] + 1u, in[i] * 3u};
  uint tmp[2] __attribute__((aligned(8))) = {q.x, q.y};
  struct outer o = {in[i] >> 3, q};
  out[4 * i] = p.value + p.tag + p.flag;
  out[4 * i + 1] = w.a ^ w.b;
  out[4 * i + 2] = tmp[0] + tmp[1] + o.a * o.p.y;
  out[4 * i + 3] = hash_u(i);
  sizes[i] = (uint)sizeof(packed_t) * 1000000u + (uint)sizeof(struct wide) * 1000u +
             (uint)sizeof(params_t) + (uint)__alignof__(params_t) * 100u + (uint)sizeof(struct outer) * 10000000u;
}
