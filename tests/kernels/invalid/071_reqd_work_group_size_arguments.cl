// reqd_work_group_size takes three sizes: reported at the attribute name.
// @error 3:25 reqd_work_group_size takes 3 arguments
__kernel __attribute__((reqd_work_group_size(64))) void k(__global int *out) {
  out[get_global_id(0)] = 1;
}
