// A helper function with a barrier (the C target inlines it) whose loop
// declares two induction variables of different types in its for init,
// called twice; a declaration list with a barrier-holding call between.
// @kernel reduce_twice
// @global 70
// @local 16
// @arg buffer float 70 random -2 2
// @arg buffer float 70 output
// @arg local float 16
// @arg value uint 70
// @tolerance ulp 8 abs 1e-5
float group_sum(__local float *scratch, float v) {
  uint lid = get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2, rounds = 0; s > 0; s >>= 1, rounds++) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

__kernel void reduce_twice(__global const float *in, __global float *out, __local float *scratch,
                           uint n) {
  uint gid = get_global_id(0);
  float v = gid < n ? in[gid] : 0.0f;
  float first = group_sum(scratch, v), second = group_sum(scratch, v * v);
  if (gid < n) out[gid] = first + 0.5f * second + v;
}
