// Work-group sizes must be positive.
// @error 3:25 reqd_work_group_size values must be positive
__kernel __attribute__((reqd_work_group_size(0, 1, 1))) void k(__global int *out) {
  out[get_global_id(0)] = 1;
}
