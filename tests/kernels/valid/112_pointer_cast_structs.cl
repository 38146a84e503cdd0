// A float buffer read and written as records (issue 18): a struct of three
// floats (12 bytes, aligned to 4) over a kernel's float parameter and at an
// offset of whole records, a struct of a float4 and an int read over a
// float4 buffer, and a struct of two float4 written over one. Vulkan reads them through views of the same binding; a
// cast to such a struct at an offset that may fall between records is
// refused there (test_emit_glsl checks the message).
// @kernel records
// @global 333
// @local 32
// @arg buffer float 1000 random -10 10
// @arg buffer float4 400 random -10 10
// @arg buffer float 333 output
// @arg buffer float4 333 output
// @arg value int 333
// @tolerance ulp 4 abs 1e-4
typedef struct { float x, y, z; } point;
typedef struct { float4 v; int tag; } tagged;
typedef struct { float4 a, b; } two;

__kernel void records(__global const float *coords, __global const float4 *pairs,
                      __global float *lengths, __global float4 *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  __global const point *p = (__global const point *)coords;
  __global const point *next = (__global const point *)(coords + 3 * (i + 1));
  point a = p[i];
  lengths[i] = a.x * a.x + a.y * a.y + a.z * a.z - next->x;
  __global const tagged *t = (__global const tagged *)pairs;
  tagged r = t[i / 2];
  __global two *w = (__global two *)out;
  if (i % 2 == 0)
    w[i / 2].a = r.v * 2.0f;
  else
    w[i / 2].b = r.v + (float)(r.tag & 7);
}
