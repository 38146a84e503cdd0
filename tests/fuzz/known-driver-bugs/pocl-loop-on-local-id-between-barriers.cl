// Found while writing corpus kernel 101 (issue 31, item 6). A loop whose
// trip count is the work-item's local id, between two barriers, reading
// __local memory (an inclusive scan, the pattern of every textbook's
// work-group scan): PoCL 3.1 (opencl:0) runs it as if every work-item had
// the group's largest id (out[0] is the sum of the whole group's values,
// not in[0]'s). cpu:0, vulkan:0 and a Python model agree. Without the
// second barrier, or with a fixed trip count and `if (i <= lid)` inside the
// loop, PoCL agrees.
//   build/tests/fuzz_differential tests/fuzz/known-driver-bugs/pocl-loop-on-local-id-between-barriers.cl
//   build/tests/fuzz_differential --a vulkan:0 --b cpu:0 tests/fuzz/known-driver-bugs/pocl-loop-on-local-id-between-barriers.cl
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void fuzz(__global const uint *in, __global uint *out, __global uint *acc) {
  __local uint tile[64];
  uint gid = (uint)get_global_id(0);
  uint lid = (uint)get_local_id(0);
  tile[lid] = in[gid] & 0xffu;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint sum = 0u;
  for (uint i = 0u; i <= lid; i++) sum += tile[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[gid] = sum;
}
