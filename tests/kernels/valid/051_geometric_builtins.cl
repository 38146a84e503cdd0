// Geometric builtins: dot, cross, length, distance, normalize, and the fast_
// variants (whose precision is implementation defined: loose tolerance).
// @kernel geometric
// @global 300
// @local 32
// @arg buffer float4 300 random -10 10
// @arg buffer float4 300 random -10 10
// @arg buffer float4 300 output
// @arg buffer float4 300 output
// @arg buffer float4 300 output
// @arg value uint 300
// @tolerance ulp 16 abs 1e-4 rel 2e-3
__kernel void geometric(__global const float4 *a, __global const float4 *b,
                        __global float4 *measures, __global float4 *directions,
                        __global float4 *fast, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float4 x = a[i], y = b[i];
  measures[i] = (float4)(dot(x, y), dot(x.xy, y.xy), length(x), distance(x.xyz, y.xyz));
  directions[i] = normalize(x) + cross(x, y) * 0.01f;
  fast[i] = (float4)(fast_length(x), fast_distance(x, y), fast_normalize(y.xy));
}
