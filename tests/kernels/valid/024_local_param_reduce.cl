// A tree reduction in __local memory sized at launch, with the barrier inside
// the halving loop; each work-group writes one partial sum.
// @kernel reduce
// @global 1000
// @local 64
// @arg buffer int 1000 random -1000 1000
// @arg buffer int 16 output
// @arg local int 64
// @arg value uint 1000
__kernel void reduce(__global const int *in, __global int *partial, __local int *scratch,
                     uint n) {
  uint i = get_global_id(0), lid = get_local_id(0);
  scratch[lid] = i < n ? in[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint step = get_local_size(0) / 2; step > 0; step >>= 1) {
    if (lid < step) scratch[lid] += scratch[lid + step];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
