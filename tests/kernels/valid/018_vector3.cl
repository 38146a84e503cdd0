// 3-lane vectors: float3 takes 16 bytes (sizeof and vec_step say so), so
// packed xyz data goes through vload3 and vstore3; cross product of two
// float3 values.
// @kernel vector3
// @global 250
// @local 32
// @arg buffer float 750 random -10 10
// @arg buffer float 750 random -10 10
// @arg buffer float 750 output
// @arg buffer float3 250 output
// @arg buffer int 4 output
// @arg value uint 250
// @tolerance ulp 4 abs 1e-4
__kernel void vector3(__global const float *a, __global const float *b, __global float *packed,
                      __global float3 *padded, __global int *sizes, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float3 x = vload3(i, a), y = vload3(i, b);
  float3 z = cross(x, y) + x.zxy;
  vstore3(z, i, packed);
  padded[i] = (float3)(x.x, y.yz) * 2.0f;
  if (i == 0) {
    sizes[0] = sizeof(float3);
    sizes[1] = vec_step(float3);
    sizes[2] = sizeof(int3);
    sizes[3] = vec_step(x) + vec_step(uchar16);
  }
}
