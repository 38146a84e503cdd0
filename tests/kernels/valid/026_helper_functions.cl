// Helper (non-kernel) functions: declared before use and defined later,
// taking scalars, vectors, global pointers and local pointers, returning
// values or void; inline helpers; a helper calling another.
// @kernel helpers
// @global 400
// @local 32
// @arg buffer int 400 random -1000 1000
// @arg buffer int 400 output
// @arg buffer int 400 output
// @arg local int 32
// @arg value uint 400
int square(int x);
int4 twice(int4 v);
void store_pair(__global int *out, uint i, int a, int b);
int group_sum(__local int *values, uint count);

inline int clamp_small(int x) { return x < -100 ? -100 : x > 100 ? 100 : x; }

__kernel void helpers(__global const int *in, __global int *out, __global int *sums,
                      __local int *scratch, uint n) {
  uint i = get_global_id(0), lid = get_local_id(0);
  int x = i < n ? in[i] : 0;
  scratch[lid] = clamp_small(x);
  barrier(CLK_LOCAL_MEM_FENCE);
  int total = group_sum(scratch, get_local_size(0));
  if (i < n) {
    int4 v = twice((int4)(x, square(clamp_small(x)), lid, total));
    store_pair(out, i, v.x + v.y, v.z + v.w);
    sums[i] = total;
  }
}

int square(int x) { return x * x; }
int4 twice(int4 v) { return v + v; }
void store_pair(__global int *out, uint i, int a, int b) {
  out[i] = a ^ b;
}
int group_sum(__local int *values, uint count) {
  int total = 0;
  for (uint k = 0; k < count; k++) total += values[k];
  return total;
}
