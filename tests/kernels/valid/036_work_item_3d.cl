// A 3D range of 13x7x5 work-items in 4x2x2 groups (rounded up to 16x8x6):
// linear ids built from the 3D ids and group ids.
// @kernel work_items_3d
// @global 13x7x5
// @local 4x2x2
// @arg buffer uint 455 output
// @arg buffer uint4 455 output
// @arg value uint4 13 7 5 0
__kernel void work_items_3d(__global uint *linear, __global uint4 *groups, uint4 size) {
  uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= size.x || y >= size.y || z >= size.z) return;
  uint index = (z * size.y + y) * size.x + x;
  uint flat_local = (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) +
                    get_local_id(0);
  linear[index] = flat_local * 1000 + get_work_dim() * 100 + get_num_groups(2);
  groups[index] = (uint4)(get_group_id(0), get_group_id(1), get_group_id(2),
                          get_global_size(0) * get_global_size(1) * get_global_size(2));
}
