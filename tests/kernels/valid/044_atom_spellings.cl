// The cl_khr_*_int32_base/extended_atomics spellings (atom_add, atom_sub,
// atom_inc, atom_dec, atom_min, atom_max, atom_and, atom_or, atom_xor,
// atom_xchg, atom_cmpxchg) on global and local memory, enabled by pragma.
// @kernel atom_functions
// @global 700
// @local 64
// @arg buffer uint 700 random 0 100000
// @arg buffer uint 7 inout fill 0
// @arg buffer uint4 11 output
// @arg value uint 700
#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_global_int32_extended_atomics : enable
#pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_local_int32_extended_atomics : enable
__kernel void atom_functions(__global const uint *in, __global uint *totals,
                             __global uint4 *per_group, uint n) {
  __local uint group_count, group_min, group_and, group_flag;
  uint i = get_global_id(0);
  if (get_local_id(0) == 0) {
    group_count = 0;
    group_min = UINT_MAX;
    group_and = UINT_MAX;
    group_flag = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) {
    uint x = in[i];
    atom_add(&totals[0], x);
    atom_sub(&totals[1], x & 0xff);
    atom_inc(&totals[2]);
    atom_dec(&totals[3]); /* wraps below 0 */
    atom_max(&totals[4], x);
    atom_or(&totals[5], 1u << (x % 32));
    atom_xor(&totals[6], x);
    atom_inc(&group_count);
    atom_min(&group_min, x);
    atom_and(&group_and, x | 0xffff0000u);
    atom_cmpxchg(&group_flag, 0u, 1u); /* the first one sets it */
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    per_group[get_group_id(0)] =
        (uint4)(atom_xchg(&group_count, 0u), group_min, group_and, group_flag);
}
