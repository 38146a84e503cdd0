// An n-body step: each body sums the pull of all others (float4 positions,
// w the mass), with rsqrt and a softening term, tiled through local memory.
// @kernel nbody
// @global 200
// @local 64
// @arg buffer float4 200 random -1 1
// @arg buffer float4 200 output
// @arg local float4 64
// @arg value uint 200
// @arg value float 0.01
// @tolerance ulp 64 abs 1e-3 rel 1e-4
__kernel void nbody(__global const float4 *bodies, __global float4 *accel,
                    __local float4 *tile, uint n, float softening) {
  uint i = get_global_id(0), lid = get_local_id(0), size = get_local_size(0);
  float4 me = i < n ? bodies[i] : (float4)(0.0f);
  float3 sum = (float3)(0.0f);
  for (uint base = 0; base < n; base += size) {
    uint j = base + lid;
    tile[lid] = j < n ? bodies[j] : (float4)(0.0f); /* mass 0: no pull */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < size; k++) {
      float4 other = tile[k];
      float3 d = other.xyz - me.xyz;
      float inv = rsqrt(dot(d, d) + softening);
      sum += d * (fabs(other.w) * inv * inv * inv);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n) accel[i] = (float4)(sum, length(sum));
}
