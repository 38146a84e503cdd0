// Common builtins: clamp, degrees, radians, max and min with a scalar, mix,
// step, smoothstep and sign, on float and float4.
// @kernel common_builtins
// @global 400
// @local 64
// @arg buffer float4 400 random -5 5
// @arg buffer float4 400 random -5 5
// @arg buffer float4 400 output
// @arg buffer float4 400 output
// @arg buffer float 400 output
// @arg value uint 400
// @tolerance ulp 8 abs 1e-5
__kernel void common_builtins(__global const float4 *a, __global const float4 *b,
                              __global float4 *first, __global float4 *second,
                              __global float *scalars, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float4 x = a[i], y = b[i];
  first[i] = clamp(x, -1.0f, 1.0f) + clamp(x, y, y + 1.0f) + max(x, 0.5f) + min(x, y);
  second[i] = mix(x, y, 0.25f) + step(0.0f, x) + smoothstep(-2.0f, 2.0f, y) + sign(x);
  scalars[i] = degrees(x.x) + radians(y.y) + mix(x.z, y.z, (float)(i % 4) * 0.25f) +
               step(x.w, y.w) + sign(0.0f);
}
