// atomic_ functions on __local int: each work-group computes its sum, minimum,
// maximum, bitwise and/or/xor and a count, then one work-item stores them.
// @kernel local_atomics
// @global 900
// @local 128
// @arg buffer int 900 random -100000 100000
// @arg buffer int8 8 output
// @arg value uint 900
__kernel void local_atomics(__global const int *in, __global int8 *groups, uint n) {
  __local int stats[8];
  uint lid = get_local_id(0), i = get_global_id(0);
  if (lid == 0) {
    stats[0] = 0;
    stats[1] = INT_MAX;
    stats[2] = INT_MIN;
    stats[3] = -1;
    stats[4] = 0;
    stats[5] = 0;
    stats[6] = 0;
    stats[7] = 1000;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) {
    int x = in[i];
    atomic_add(&stats[0], x);
    atomic_min(&stats[1], x);
    atomic_max(&stats[2], x);
    atomic_and(&stats[3], x | 0x0f0f);
    atomic_or(&stats[4], x & 0x7070);
    atomic_xor(&stats[5], x);
    atomic_inc(&stats[6]);
    atomic_sub(&stats[7], 2);
    atomic_cmpxchg(&stats[7], 1000 - 2 * 128, -1); /* only a full group matches */
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) groups[get_group_id(0)] = vload8(0, stats);
}
