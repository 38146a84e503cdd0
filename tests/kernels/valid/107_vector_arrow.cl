// '->' on a pointer to a vector, as clang-based OpenCL compilers take it
// (a real-world photon-transport code writes p->x on a float3 pointer):
// p->y is (*p).y, through __global and private pointers, as an lvalue too.
// @kernel k
// @global 20
// @local 4
// @arg buffer float4 20 random -3 3
// @arg buffer float 20 output
// @tolerance ulp 2 abs 1e-6
__kernel void k(__global float4 *v, __global float *out) {
  size_t g = get_global_id(0);
  __global float4 *p = v + g;
  p->y = p->x * 2.0f + p->w;
  float3 q = (float3)(1.0f, 2.0f, 3.0f);
  float3 *pq = &q;
  out[g] = p->y + pq->z + p->xy.y;
}
