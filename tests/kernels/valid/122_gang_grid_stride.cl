// Grid-stride loops that cpu:0 runs with the work-items of a group as SIMD
// lanes (kernels/emit_c_gang.c, docs/cpu-backend.md "Gangs"): groups of
// 300 (a gang of 256 lanes and 44 work-items one after another), a global
// size that is not a multiple of the group size, a bound that is not a
// multiple of the global size (the last steps run under a mask, lanes with
// different trip counts), a loop with step 1 whose counter is used other
// than as an index, and a start that is not consecutive across the lanes
// (the run-time check sends that gang down the lane-by-lane path).
// @kernel gang_grid_stride
// @global 850
// @local 300
// @arg buffer float 2777 random -4 4
// @arg buffer float 2777 random -4 4
// @arg buffer int 2777 random -50 50
// @arg value uint 2777
// @arg buffer float 900 output
// @arg buffer int 900 output
// @arg buffer int 900 output
// @arg local float 300
// @arg buffer float 3 output
// @tolerance ulp 4 abs 1e-4
__kernel void gang_grid_stride(__global const float *a, __global const float *b,
                               __global const int *c, uint n, __global float *dots,
                               __global int *counts, __global int *mixed, __local float *scratch,
                               __global float *sums) {
  uint lid = get_local_id(0);
  size_t gid = get_global_id(0);
  float acc = 0.0f;
  int cnt = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    float p = a[i] * b[i];
    if (p > 0.0f) cnt++;
    acc += p;
  }
  dots[gid] = acc;
  counts[gid] = cnt;
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  int m = 0;
  for (int i = (int)gid; i < (int)n; i++) m += (c[i] ^ i) & 3;
  barrier(CLK_GLOBAL_MEM_FENCE);
  int q = 0;
  for (uint i = lid * 3u; i < n; i += 301u) q += c[i] * (int)(i & 5u);
  mixed[gid] = m * 7 + q;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    float t = 0.0f;
    for (uint k = 0; k < get_local_size(0); k++) t += scratch[k];
    sums[get_group_id(0)] = t;
  }
}
