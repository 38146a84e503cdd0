// Math builtins with ulp error bounds (OpenCL C 1.2 allows up to 4 ulp for
// sin/cos/exp/log, 16 for pow and tan): compared with a tolerance that allows
// both devices their error.
// @kernel transcendental
// @global 500
// @local 64
// @arg buffer float 500 random 0.05 20
// @arg buffer float 500 random -3 3
// @arg buffer float8 500 output
// @arg buffer float8 500 output
// @arg value uint 500
// @tolerance ulp 32 abs 1e-6
__kernel void transcendental(__global const float *pos, __global const float *any,
                             __global float8 *first, __global float8 *second, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float x = pos[i], y = any[i];
  first[i] = (float8)(sin(y), cos(y), tan(y * 0.4f), exp(y), log(x), pow(x, y * 0.5f), sqrt(x),
                      rsqrt(x));
  second[i] = (float8)(exp2(y), log2(x), log10(x), atan(y), atan2(y, x), asin(y / 3.0f),
                       acos(y / 3.0f), cbrt(y * x));
}
