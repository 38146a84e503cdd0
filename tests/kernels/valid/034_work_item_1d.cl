// The work-item functions in one dimension: ids, sizes, group counts, the
// work dimension and the global offset (always 0 through agpu_launch), and
// their values for the unused dimensions 1 and 2.
// @kernel work_items_1d
// @global 1000
// @local 96
// @arg buffer uint 8192 output 1000*8
__kernel void work_items_1d(__global uint *out) {
  size_t i = get_global_id(0);
  uint8 v = (uint8)((uint)get_local_id(0), (uint)get_group_id(0), (uint)get_local_size(0),
                    (uint)get_num_groups(0), (uint)get_global_size(0), get_work_dim(),
                    (uint)get_global_offset(0),
                    (uint)(get_global_id(1) + get_local_id(2) + get_group_id(1) +
                           get_local_size(1) * 10 + get_num_groups(2) * 100 +
                           get_global_size(1) * 1000));
  if (i < 1000) vstore8(v, i, out);
}
