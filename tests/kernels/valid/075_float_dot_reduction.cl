// A dot product reduced per work-group in float: the order of the additions
// is fixed by the tree, so devices agree to rounding differences only.
// @kernel dot_partials
// @global 2000
// @local 128
// @arg buffer float 2000 random -1 1
// @arg buffer float 2000 random -1 1
// @arg buffer float 16 output
// @arg local float 128
// @arg value uint 2000
// @tolerance ulp 16 abs 1e-5
__kernel void dot_partials(__global const float *a, __global const float *b,
                           __global float *partial, __local float *scratch, uint n) {
  uint i = get_global_id(0), lid = get_local_id(0);
  scratch[lid] = i < n ? a[i] * b[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint step = get_local_size(0) / 2; step > 0; step /= 2) {
    if (lid < step) scratch[lid] += scratch[lid + step];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
