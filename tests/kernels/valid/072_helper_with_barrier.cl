// A helper function that takes a __local pointer and contains the barriers of
// a work-group reduction; the kernel calls it twice (sum, then maximum),
// every work-item reaching each call.
// @kernel group_stats
// @global 700
// @local 64
// @arg buffer int 700 random -100000 100000
// @arg buffer int2 11 output
// @arg local int 64
// @arg value uint 700
int reduce_group(__local int *scratch, int value, bool take_max) {
  uint lid = get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint step = get_local_size(0) / 2; step > 0; step /= 2) {
    if (lid < step) {
      int other = scratch[lid + step];
      scratch[lid] = take_max ? max(scratch[lid], other) : scratch[lid] + other;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  int result = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE); /* scratch is reused by the next call */
  return result;
}

__kernel void group_stats(__global const int *in, __global int2 *out, __local int *scratch,
                          uint n) {
  uint i = get_global_id(0);
  int value = i < n ? in[i] : 0;
  int sum = reduce_group(scratch, value, false);
  int largest = reduce_group(scratch, i < n ? value : INT_MIN, true);
  if (get_local_id(0) == 0) out[get_group_id(0)] = (int2)(sum, largest);
}
