// const locals initialised from work-item functions in a kernel with
// barriers: a scalar used in the group-level loop (get_local_size), one kept
// per work-item across barriers (a loaded value), a const pointer and a const
// vector; each group reverses its chunk through local memory twice.
// @kernel const_reverse
// @global 300
// @local 64
// @arg buffer int 300 random -1000 1000
// @arg buffer int 300 output
// @arg value uint 300
// @arg local int 64
__kernel void const_reverse(__global const int *in, __global int *out, uint count,
                            __local int *tmp) {
  const uint n = get_local_size(0);
  const uint lid = get_local_id(0);
  const size_t gid = get_global_id(0);
  const int value = gid < count ? in[gid] : 0;
  __global int *const dst = out + get_group_id(0) * n;
  const int2 pair = (int2)((int)lid, value);
  int acc = value;
  for (uint round = 0; round < 2; round++) {
    tmp[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    acc = tmp[n - 1 - lid] + pair.x;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (gid < count) dst[lid] = acc * 3 + pair.y;
}
