// An inclusive prefix sum per work-group (Hillis-Steele, double-buffered in
// local memory, with barriers inside a loop whose trip count is uniform),
// plus each group's total.
// @kernel scan
// @global 1000
// @local 128
// @arg buffer int 1000 random -100 100
// @arg buffer int 1000 output
// @arg buffer int 8 output
// @arg local int 256
// @arg value uint 1000
__kernel void scan(__global const int *in, __global int *out, __global int *totals,
                   __local int *buffers, uint n) {
  uint i = get_global_id(0), lid = get_local_id(0), size = get_local_size(0);
  __local int *from = buffers, *to = buffers + size;
  from[lid] = i < n ? in[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint offset = 1; offset < size; offset *= 2) {
    to[lid] = lid >= offset ? from[lid] + from[lid - offset] : from[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    __local int *swap = from;
    from = to;
    to = swap;
  }
  if (i < n) out[i] = from[lid];
  if (lid == size - 1) totals[get_group_id(0)] = from[lid];
}
