// A 2D range of 37x19 work-items in 8x4 groups (rounded up to 40x20, guarded):
// each writes its ids, and get_global_id == group * size + local id.
// @kernel work_items_2d
// @global 37x19
// @local 8x4
// @arg buffer uint4 703 output
// @arg buffer int 703 output
// @arg value uint 37
// @arg value uint 19
__kernel void work_items_2d(__global uint4 *ids, __global int *consistent, uint width,
                            uint height) {
  size_t x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  size_t index = y * width + x;
  ids[index] = (uint4)((uint)get_group_id(0), (uint)get_group_id(1), (uint)get_local_id(0),
                       (uint)get_local_id(1) * 100 + (uint)get_num_groups(1) * 10 +
                           get_work_dim());
  consistent[index] = (x == get_group_id(0) * get_local_size(0) + get_local_id(0)) +
                      (y == get_group_id(1) * get_local_size(1) + get_local_id(1)) * 2 +
                      (get_global_size(0) == 40) * 4 + (get_global_size(1) == 20) * 8;
}
