// mem_fence, read_mem_fence and write_mem_fence order one work-item's own
// accesses; the results below are those of program order.
// @kernel fences
// @global 333
// @local 64
// @arg buffer int 333 random -1000 1000
// @arg buffer int 333 output
// @arg buffer int 333 output
// @arg value uint 333
__kernel void fences(__global const int *in, __global int *first, __global int *second,
                     uint n) {
  __local int mine[64];
  uint i = get_global_id(0), lid = get_local_id(0);
  if (i >= n) return;
  first[i] = in[i] * 2;
  write_mem_fence(CLK_GLOBAL_MEM_FENCE);
  mine[lid] = first[i] + 1;
  mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  read_mem_fence(CLK_LOCAL_MEM_FENCE);
  second[i] = mine[lid] - in[i];
}
