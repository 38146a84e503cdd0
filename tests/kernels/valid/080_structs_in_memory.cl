// Structs in __global and __constant memory and passed by value, with
// OpenCL C's layout: C's alignment, a float3 member taking 16 bytes, a
// nested struct, an array member, padding before a 16-byte-aligned member;
// a program-scope __constant struct; a struct written to a buffer.
// particle: position 0 (16 bytes), mass 16, cell 24, weights 32; 48 bytes.
// wrapped: p 0, tag 48, extra 64; 80 bytes. params: 16 bytes by value.
// @kernel structs_in_memory
// @global 150
// @local 32
// @arg buffer float 150*12 random -4 4
// @arg buffer float 3*20 random -1 1
// @arg buffer float4 150 output
// @arg buffer uint 150*8 output
// @arg value int4 0x3fc00000 7 0x3e800000 0x40000000
// @arg value uint 150
// @tolerance ulp 4 abs 1e-5
typedef struct {
  float3 position;
  float mass;
  uint2 cell;
  float weights[3];
} particle;

typedef struct {
  particle p;
  uint tag;
  float4 extra;
} wrapped;

typedef struct {
  float scale;
  int offset;
  float2 shift;
} params;

typedef struct {
  float4 v;
  uint2 ids;
  float m;
  uint bits;
} result;

__constant particle origin = {{1.0f, 2.0f, 3.0f}, 4.0f, {5, 6}, {7.0f, 8.0f, 9.0f}};

__kernel void structs_in_memory(__global const particle *in, __constant wrapped *w,
                                __global float4 *out, __global result *res, params prm, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  particle q = in[i];
  __constant wrapped *c = &w[i % 3];
  float s = q.mass * prm.scale + q.weights[i % 3] + c->p.mass + origin.weights[2];
  uint mixed = (q.cell.x ^ q.cell.y ^ c->tag) & 0xffffu;
  out[i] = (float4)(q.position * s + c->extra.xyz,
                    (float)mixed + (float)prm.offset + prm.shift.y + origin.position.y);
  result r;
  r.v = (float4)(q.position, q.mass * 2.0f);
  r.ids = (uint2)(i, q.cell.y);
  r.m = in[n - 1 - i].weights[1];
  r.bits = as_uint(prm.shift.x) ^ origin.cell.y;
  res[i] = r;
  res[i].ids.x += (uint)prm.offset;
}
