// A private struct of __global pointers (and a count), built by the kernel
// and passed by value to helpers that read and write through its members,
// move them (`v.out + 1`, `*(v.b + i)`) and cast one (to int4). On Vulkan
// the members are buffer device addresses (uint64_t) and every buffer is
// reached by address.
// @kernel combine
// @global 1000
// @local 64
// @arg buffer float 1000 random -4 4
// @arg buffer int 1004 random -100 100
// @arg buffer float 1000 output
// @arg value int 1000
typedef struct {
  __global const float *a;
  __global const int *b;
  __global float *out;
  int n;
} views;

float mix_at(views v, int i) {
  float x = v.a[i] * 2.0f;
  int y = *(v.b + i);
  __global const int4 *q = (__global const int4 *)v.b;
  int4 w = q[i / 4];
  return x + (float)y + (float)(w.x - w.w) + (float)(v.n - i);
}

void store(views v, int i, float x) {
  __global float *o = v.out + 1;
  o[i - 1] = x;
}

__kernel void combine(__global const float *a, __global const int *b, __global float *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  views v;
  v.a = a;
  v.b = b + 4 * (i & 1);
  v.out = out;
  v.n = n;
  store(v, i, mix_at(v, i));
}
