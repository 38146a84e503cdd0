// A private union of a float and a uint read and written through both
// members, updated in place as the uint (mcxcl's nextafter: `num.f = a;
// num.i += dir;`), in a helper and in the kernel: Vulkan overlays the members
// as one uint word with bit casts.
// @kernel nudge
// @global 600
// @local 64
// @arg buffer float 600 random -1000 1000
// @arg buffer int 600 random -3 3
// @arg buffer float 600 output
// @arg buffer uint 600 output
// @arg value int 600
typedef union {
  float f;
  uint i;
  int s;
} bits;

float next_after(float a, int dir) {
  bits num;
  num.f = a;
  ((num.i & 0x7FFFFFFFu) == 0) ? num.i = ((dir & 0x80000000u) | 1) : ((num.i & 0x80000000u) ? (num.i -= dir) : (num.i += dir));
  return num.f;
}

__kernel void nudge(__global const float *x, __global const int *dir, __global float *out,
                   __global uint *raw, int n) {
  int g = get_global_id(0);
  if (g >= n) return;
  bits b;
  b.f = next_after(x[g], dir[g]);
  out[g] = b.f;
  b.i ^= 0x80000000u;
  raw[g] = b.i + (uint)(b.s >> 31);
}
