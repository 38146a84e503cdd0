// SPDX-License-Identifier: Apache-2.0
// Conformance suite: streaming vector kernels (docs/conformance.md). Built
// with -DSUITE_FP64 for the double variants; every kernel guards its index
// because the host rounds the global size up to the work-group size.
#ifdef SUITE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

__kernel void copy(__global const real *x, __global real *y, uint n) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = x[i];
}

__kernel void scale(__global const real *x, __global real *y, real a, uint n) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i];
}

__kernel void add(__global const real *x, __global const real *y, __global real *z, uint n) {
  size_t i = get_global_id(0);
  if (i < n) z[i] = x[i] + y[i];
}

// STREAM's triad: a = b + s * c.
__kernel void triad(__global const real *b, __global const real *c, __global real *a, real s,
                    uint n) {
  size_t i = get_global_id(0);
  if (i < n) a[i] = b[i] + s * c[i];
}

// y = a * x + y, in place.
__kernel void saxpy(__global const real *x, __global real *y, real a, uint n) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
