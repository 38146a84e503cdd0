// Brace initialisers for vectors, as OpenCL C takes them: scalars and
// vectors whose components add up to the length, {} for zero, one vector of
// the type itself; in arrays of vectors, structs and arrays of structs
// (private), and in a program-scope __constant table.
// @kernel vector_brace_init
// @global 200
// @local 32
// @arg buffer float 800 random -8 8
// @arg buffer int 400 random -1000 1000
// @arg buffer float4 200 output
// @arg buffer int2 200 output
// @arg buffer float3 200 output
// @arg value uint 200
// @tolerance ulp 2 abs 1e-5
typedef struct {
  float4 a;
  int2 b;
  float c;
  float3 d;
} record;

__constant float4 table[3] = {{1.0f, 2.0f, 3.0f, 4.0f}, {-0.5f, 0.25f, 8.0f, -2.0f}, {}};

__kernel void vector_brace_init(__global const float *x, __global const int *n,
                                __global float4 *out4, __global int2 *out2,
                                __global float3 *out3, uint count) {
  uint i = get_global_id(0);
  if (i >= count) return;
  float a = x[4 * i], b = x[4 * i + 1], c = x[4 * i + 2], d = x[4 * i + 3];
  float4 f = {a, b, c, d};
  float4 zero = {};
  float2 lo = {a, b};
  float4 mixed = {lo, d, 1};          /* a vector part and scalars */
  float4 same = {(float4)(c)};        /* one vector of the type */
  int2 v = {n[2 * i], n[2 * i + 1]};
  int2 converted = {2.75f, -1};       /* converted as initialisation converts */
  float3 three = {c, lo};
  float4 pair[2] = {{d, c, b, a}, {lo, lo}};
  record r = {{a, 0.5f, b, 1.5f}, {v.y, v.x}, c, {1, 2, 3}};
  record rs[2] = {{f, v, d, three}, {{}, {7, 8}, a, {lo, 4}}};
  out4[i] = f + zero + mixed * 2.0f + same + pair[i & 1] + r.a + rs[0].a + rs[1].a + table[i % 3];
  out2[i] = v + converted + r.b * 3 + rs[0].b + rs[1].b;
  out3[i] = three + r.d + rs[0].d * r.c + rs[1].d * rs[1].c;
}
