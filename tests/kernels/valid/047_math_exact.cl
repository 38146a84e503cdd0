// Math builtins whose results are exact in OpenCL C (0 ulp): rounding
// functions, fabs, fmin/fmax, copysign, fmod, fract, modf, frexp, ldexp,
// ilogb, fdim, and the correctly rounded fma.
// @kernel exact_math
// @global 640
// @local 64
// @arg buffer float 640 random -1000 1000
// @arg buffer float 640 random -20 20 nonzero
// @arg buffer float8 640 output
// @arg buffer float8 640 output
// @arg buffer int4 640 output
// @arg value uint 640
// @tolerance exact
__kernel void exact_math(__global const float *a, __global const float *b,
                         __global float8 *rounding, __global float8 *other,
                         __global int4 *integers, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float x = a[i], y = b[i];
  float h = (float)((int)(i % 16) - 8) + 0.5f; /* halves: round and rint differ */
  rounding[i] = (float8)(floor(x), ceil(x), trunc(x), round(h), rint(h), fabs(x), fmin(x, y),
                         fmax(x, y));
  float whole, part = modf(x, &whole), fraction_floor;
  float fraction = fract(x, &fraction_floor);
  int exponent;
  float mantissa = frexp(x, &exponent);
  other[i] = (float8)(copysign(y, x), fmod(x, y), part + whole * 0.0f, fraction, mantissa,
                      ldexp(y, (int)(i % 20) - 10), fdim(x, y), fma(x, y, -x));
  integers[i] = (int4)(exponent, ilogb(x), (int)whole, (int)fraction_floor);
}
