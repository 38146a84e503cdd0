// Double-precision math builtins: sqrt, exp, log, sin, cos, pow, fma, and an
// accumulation that needs double's 53 bits.
// @kernel double_math
// @requires fp64
// @global 300
// @local 32
// @arg buffer double 300 random 0.01 100
// @arg buffer double 1200 output
// @arg buffer double 300 output
// @arg value uint 300
// @tolerance ulp 8 abs 1e-13
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void double_math(__global const double *in, __global double *out,
                          __global double *series, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  double x = in[i];
  vstore4((double4)(sqrt(x), exp(-x * 0.1), log(x), sin(x) + cos(x)), i, out);
  double s = 0.0;
  for (int k = 1; k <= 200; k++) s = fma(1.0 / (double)(k * k), x, s);
  series[i] = s + pow(x, 1.5);
}
