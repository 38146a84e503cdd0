// Double precision behind #pragma OPENCL EXTENSION cl_khr_fp64 and the
// cl_khr_fp64 macro: double arithmetic, double4 vectors, conversions between
// double, float and long, and a double kernel parameter.
// @kernel doubles
// @requires fp64
// @global 500
// @local 64
// @arg buffer double 500 random -1000000 1000000
// @arg buffer float 500 random -1000 1000
// @arg buffer double 500 output
// @arg buffer float 500 output
// @arg buffer long 500 output
// @arg buffer double4 125 output
// @arg value double 0.1
// @arg value uint 500
// @tolerance ulp 2 abs 1e-9
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

__kernel void doubles(__global const double *a, __global const float *b, __global double *sum,
                      __global float *narrowed, __global long *rounded, __global double4 *vec,
                      double scale, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  double x = a[i] * scale + (double)b[i];
  sum[i] = x;
  narrowed[i] = (float)x + convert_float_rtz(x * 1e-3);
  rounded[i] = convert_long_rte(x) + (long)(a[i] * 0.5);
  if (i < n / 4) vec[i] = (double4)(a[4 * i], a[4 * i + 1], 1.0, 2.0) * (double4)(scale) + 0.5;
}
