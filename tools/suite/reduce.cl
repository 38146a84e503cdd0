// SPDX-License-Identifier: Apache-2.0
// Conformance suite: reductions by a work-group tree in local memory. Each
// work-item first accumulates a grid-stride slice sequentially; the group
// then halves its partial sums (the work-group size is a power of two) and
// work-item 0 writes the group's result. A second launch of one work-group
// reduces the groups' results the same way (reduce_sum on the partials).
#ifdef SUITE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

__kernel void reduce_sum(__global const real *x, __global real *partial, uint n,
                         __local real *scratch) {
  uint lid = get_local_id(0);
  real acc = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i];
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}

// The first pass of a dot product; reduce_sum finishes it.
__kernel void dot_product(__global const real *x, __global const real *y, __global real *partial,
                          uint n, __local real *scratch) {
  uint lid = get_local_id(0);
  real acc = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i] * y[i];
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}

// The smallest and the largest value and their indices; on a tie the lower
// index wins, so the result does not depend on the order of the tree.
// Pass 1 (first_pass = 1) reads x[i] with index i; pass 2 reads the groups'
// results (min_v/min_i/max_v/max_i of pass 1) as its input.
__kernel void minmax(__global const real *lo_in, __global const uint *lo_idx_in,
                     __global const real *hi_in, __global const uint *hi_idx_in, uint n,
                     uint first_pass, __global real *lo_out, __global uint *lo_idx_out,
                     __global real *hi_out, __global uint *hi_idx_out, __local real *lo_v,
                     __local uint *lo_i, __local real *hi_v, __local uint *hi_i) {
  uint lid = get_local_id(0);
  real lo = INFINITY, hi = -INFINITY;
  uint lo_at = 0xffffffffu, hi_at = 0xffffffffu;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    real a = lo_in[i], b = hi_in[i];
    uint a_at = first_pass ? i : lo_idx_in[i], b_at = first_pass ? i : hi_idx_in[i];
    if (a < lo || (a == lo && a_at < lo_at)) {
      lo = a;
      lo_at = a_at;
    }
    if (b > hi || (b == hi && b_at < hi_at)) {
      hi = b;
      hi_at = b_at;
    }
  }
  lo_v[lid] = lo;
  lo_i[lid] = lo_at;
  hi_v[lid] = hi;
  hi_i[lid] = hi_at;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) {
      real a = lo_v[lid + s], b = hi_v[lid + s];
      uint a_at = lo_i[lid + s], b_at = hi_i[lid + s];
      if (a < lo_v[lid] || (a == lo_v[lid] && a_at < lo_i[lid])) {
        lo_v[lid] = a;
        lo_i[lid] = a_at;
      }
      if (b > hi_v[lid] || (b == hi_v[lid] && b_at < hi_i[lid])) {
        hi_v[lid] = b;
        hi_i[lid] = b_at;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    uint g = get_group_id(0);
    lo_out[g] = lo_v[0];
    lo_idx_out[g] = lo_i[0];
    hi_out[g] = hi_v[0];
    hi_idx_out[g] = hi_i[0];
  }
}

// An integer sum with global atomics: each work-item adds its grid-stride
// slice privately (wrapping modulo 2^32), then once into the total.
__kernel void sum_atomic(__global const uint *x, __global uint *total, uint n) {
  uint acc = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i];
  atomic_add(total, acc);
}
