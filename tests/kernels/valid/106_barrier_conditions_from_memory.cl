// Loops and ifs with barriers whose conditions read shared memory at an
// address every work-item of the group shares (issue 31, item 6; the
// patterns of real-world kernels): a __local convergence flag one
// work-item sets before a barrier (`while (!converged && it < max)`), a
// trip count read from a __global struct at the group's index, a
// per-group counter in __global memory updated with atomics then tested
// after a barrier, and a halving loop whose counter was declared before it
// (`th /= 2`). The C target evaluates such a condition once for the group
// between regions, which is what every work-item reads in a race-free
// program.
// @kernel conditions
// @global 96
// @local 32
// @arg buffer int 96 random -20 20
// @arg buffer int2 3 random 1 6
// @arg buffer int 3 output
// @arg buffer int 96 output
typedef struct { int count; int scale; } box;

__kernel void conditions(__global const int *in, __global const box *boxes,
                         __global int *counts, __global int *out) {
  __local int converged;
  __local int tile[32];
  uint l = get_local_id(0), grp = get_group_id(0);
  int x = in[get_global_id(0)], it = 0, th;
  if (l == 0) {
    converged = 0;
    counts[grp] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  while (!converged && it < 10) {
    tile[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    x = (x + tile[(l + 1) % 32]) / 2;
    if (l == 0) converged = (tile[0] == tile[31]) || it == 3 + (int)grp;
    it++;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int k = 0; k < 1 + boxes[grp].count; k++) {
    tile[l] = x + k * boxes[grp].scale;
    barrier(CLK_LOCAL_MEM_FENCE);
    x += tile[31 - l] & 7;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (x > 0) atomic_add(&counts[grp], 1);
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (counts[grp] > 16) {
    tile[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    x -= tile[0];
  }
  barrier(CLK_LOCAL_MEM_FENCE); /* every read of tile[0] before it is written again */
  for (th = 16; th > 0; th /= 2) {
    tile[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < (uint)th) x += tile[l + th] & 3;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = x * 100 + it;
}
