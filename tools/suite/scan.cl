// SPDX-License-Identifier: Apache-2.0
// Conformance suite: an exclusive prefix sum of uint (wrapping modulo
// 2^32). scan_blocks scans each work-group's block in local memory
// (Hillis-Steele: log2(size) steps, two barriers each) and writes the
// block's total; the host scans the totals the same way (recursively) and
// add_offsets adds each block's offset.
__kernel void scan_blocks(__global const uint *in, __global uint *out, __global uint *block_sums,
                          uint n, __local uint *tmp) {
  uint lid = get_local_id(0), size = get_local_size(0);
  uint gid = get_global_id(0);
  uint v = gid < n ? in[gid] : 0;
  tmp[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint offset = 1; offset < size; offset <<= 1) {
    uint t = lid >= offset ? tmp[lid - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[lid] += t;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (gid < n) out[gid] = tmp[lid] - v;
  if (lid == size - 1) block_sums[get_group_id(0)] = tmp[lid];
}

__kernel void add_offsets(__global uint *out, __global const uint *offsets, uint n) {
  uint gid = get_global_id(0);
  if (gid < n) out[gid] += offsets[get_group_id(0)];
}
