// SPDX-License-Identifier: Apache-2.0
// anygpu bench: the benchmark kernels (docs/bench.md). Built with
// -DBENCH_FP64 for the double variants of the stream kernels.
#ifdef BENCH_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

// BabelStream's kernels and their start values; the host launches exactly n
// work-items (n is a multiple of the work-group size), so there is no guard.
__kernel void stream_init(__global real *a, __global real *b, __global real *c, real init_a,
                          real init_b, real init_c) {
  size_t i = get_global_id(0);
  a[i] = init_a;
  b[i] = init_b;
  c[i] = init_c;
}

__kernel void stream_copy(__global const real *a, __global real *c) {
  size_t i = get_global_id(0);
  c[i] = a[i];
}

__kernel void stream_mul(__global real *b, __global const real *c, real scalar) {
  size_t i = get_global_id(0);
  b[i] = scalar * c[i];
}

__kernel void stream_add(__global const real *a, __global const real *b, __global real *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}

__kernel void stream_triad(__global real *a, __global const real *b, __global const real *c,
                           real scalar) {
  size_t i = get_global_id(0);
  a[i] = b[i] + scalar * c[i];
}

// Each work-item sums a grid-stride slice, the group halves its partial sums
// in local memory (the group size is a power of two) and work-item 0 writes
// the group's sum; the host adds the groups' sums, as BabelStream does.
__kernel void stream_dot(__global const real *a, __global const real *b, __global real *sums,
                         __local real *scratch, uint n) {
  uint lid = get_local_id(0);
  real acc = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) acc += a[i] * b[i];
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) sums[get_group_id(0)] = scratch[0];
}

// Launch latency: nothing to do.
__kernel void empty(void) {}
