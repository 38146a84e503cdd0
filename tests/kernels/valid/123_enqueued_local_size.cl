// get_enqueued_local_size (OpenCL C 2.0) next to get_local_size: equal with
// an explicit local size (a smaller last group needs local == NULL, which
// tests/test_partial_groups.c covers), in a constant and a run-time
// dimension, and through get_global_id and get_global_size, whose dimension
// 0 the GLSL and CUDA targets compute from it.
// @kernel enqueued_local_size
// @global 40x3
// @local 8x1
// @arg buffer uint 1234 output 120*4
__kernel void enqueued_local_size(__global uint *out) {
  size_t x = get_global_id(0), y = get_global_id(1);
  size_t i = y * get_global_size(0) + x;
  uint d = (uint)(x & 1);
  out[i * 4] = (uint)get_enqueued_local_size(0);
  out[i * 4 + 1] = (uint)get_enqueued_local_size(1);
  out[i * 4 + 2] = (uint)(get_enqueued_local_size(d) * 100 + get_local_size(d));
  out[i * 4 + 3] = (uint)(get_global_size(d) * 1000 + get_global_id(d));
}
