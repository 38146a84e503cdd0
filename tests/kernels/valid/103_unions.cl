// Unions (issue 31, item 4): type punning of a float4 and float[4] and
// uint[4] in private memory, a union as a struct member, a brace
// initializer (it sets the first member), a union array in __local memory,
// and a union in __global memory read through a pointer. OpenCL C's layout:
// every member at offset 0, the size of the largest, rounded to the
// largest alignment. GLSL has no unions: vulkan:0 refuses the kernel,
// naming the union.
// @kernel punning
// @global 90
// @local 30
// @arg buffer float 360 random -8 8
// @arg buffer uint 180 random 0 4000000000
// @arg buffer float 90 output
// @arg buffer uint 90 output
// @tolerance ulp 16 abs 1e-5
typedef union {
  float4 v;
  float a[4];
  uint u[4];
} pun;

typedef struct {
  int tag;
  union {
    float f;
    uint bits;
    uchar bytes[4];
  } value;
} tagged;

typedef union {
  ulong whole;
  uint2 halves;
} wide;

__kernel void punning(__global const float *in, __global const wide *words,
                      __global float *out, __global uint *bits) {
  __local pun shared[30];
  size_t g = get_global_id(0);
  uint l = get_local_id(0);
  pun p;
  p.v = vload4(g, in);
  shared[l] = p;
  barrier(CLK_LOCAL_MEM_FENCE);
  pun q = shared[(l + 1) % 30];
  tagged t = {3, {q.a[2]}};
  t.value.bits ^= 0x80000000u; /* negates the float */
  pun z = {(float4)(1.0f, 2.0f, 3.0f, 4.0f)};
  wide w = words[g];
  out[g] = p.a[0] + p.a[1] * p.a[2] - p.a[3] + t.value.f + z.a[3] + (float)t.tag;
  bits[g] = p.u[1] ^ q.u[3] ^ t.value.bytes[3] ^ w.halves.y ^ (uint)(w.whole >> 7) ^
            (uint)sizeof(pun) ^ (uint)sizeof(tagged) << 8;
}
