// The exponential, logarithmic and hyperbolic families, scalar and float4
// (the GLSL target implements these itself: the drivers' are hundreds of
// ulp off near 0). OpenCL C 1.2 allows 3 ulp for log/exp, 4 for the
// hyperbolic functions and 2 for log1p/expm1 on each device; the bound lets
// both devices their error.
// @kernel hyperbolic
// @global 700
// @local 64
// @arg buffer float 700 random -6 6
// @arg buffer float 700 random 0.0001 3
// @arg buffer float8 700 output
// @arg buffer float4 700 output
// @arg buffer float4 700 output
// @arg buffer float4 700 output
// @arg value uint 700
// @tolerance ulp 8 abs 1e-30
__kernel void hyperbolic(__global const float *any, __global const float *pos,
                         __global float8 *scalar, __global float4 *vsinh, __global float4 *vexpm1,
                         __global float4 *vlog, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float x = any[i], p = pos[i];
  float t = x / 6.5f; /* in (-1, 1) for atanh */
  scalar[i] = (float8)(sinh(x), cosh(x), tanh(x), asinh(x * 100.0f), acosh(1.0f + p), atanh(t),
                       expm1(x * 0.01f), log1p(p - 0.0001f));
  float4 v = (float4)(x, x * 0.001f, p, -p);
  vsinh[i] = sinh(v) + (float4)(0.0f, 0.0f, 0.0f, 1.0f) * tanh(v);
  vexpm1[i] = expm1(v);
  float4 q = (float4)(p, p * 2.0f, p * 0.5f, p + 1.0f);
  vlog[i] =
      (float4)(log2(q.x), log10(q.y), exp(x), 0.0f) + (float4)(0.0f, 0.0f, 0.0f, 1.0f) * log1p(q);
}
