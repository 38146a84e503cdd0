// A `while (1)` with barriers that the work-group leaves by `return` once a
// count in __local memory says its work is done (SHOC's BFS_kernel_one_block:
// `if (b_q_length[0] == 0) return;`), and a `for` inside a `for` left the same
// way. cpu:0 went round the loop's regions for ever after every work-item had
// returned.
// @kernel drain
// @global 200
// @local 64
// @arg buffer uint 200 random 0 9
// @arg buffer uint 200 output
// @arg buffer uint 4 output
// @arg value uint 200
__kernel void drain(__global const uint *work, __global uint *done, __global uint *rounds,
                    const uint n) {
  __local uint left[1];
  uint gid = get_global_id(0);
  uint mine = gid < n ? work[gid] : 0;
  uint steps = 0;
  if (get_group_id(0) == 1) {
    for (uint outer = 0;; outer++) {
      for (uint inner = 0; inner < 4; inner++) {
        if (get_local_id(0) == 0) left[0] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (mine > steps) atomic_inc(left);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (left[0] == 0) {
          if (gid < n) done[gid] = steps + 1000 * outer;
          if (get_local_id(0) == 0) rounds[get_group_id(0)] = steps;
          return;
        }
        steps++;
        barrier(CLK_LOCAL_MEM_FENCE);
      }
    }
  }
  while (1) {
    if (get_local_id(0) == 0) left[0] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (mine > steps) atomic_inc(left);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (left[0] == 0) {
      if (gid < n) done[gid] = steps;
      if (get_local_id(0) == 0) rounds[get_group_id(0)] = steps;
      return;
    }
    steps++;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
