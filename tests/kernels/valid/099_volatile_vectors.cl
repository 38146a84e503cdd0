// Whole vectors loaded and stored through volatile pointers (issue 31):
// CUDA's vector types have no volatile copy, so the CUDA and HIP output
// goes component by component; __global and __local, a component store, a
// compound assignment and a pointer to an element.
// @kernel vol
// @global 256
// @local 64
// @arg buffer uint4 256 inout random 0 4294967295
// @arg buffer uint4 256 random 0 4294967295
// @arg buffer float2 256 output
// @arg local float2 64
// @arg value uint 256
__kernel void vol(volatile __global uint4 *p, __global const uint4 *q, __global float2 *out,
                  volatile __local float2 *l, uint n) {
  uint i = get_global_id(0), li = get_local_id(0);
  uint4 v = i < n ? p[i] : (uint4)(0u);
  l[li] = (float2)((float)(v.x & 0xffffu), (float)(v.y >> 20));
  barrier(CLK_LOCAL_MEM_FENCE);
  float2 w = l[(li + 1) % 64];
  if (i >= n) return;
  p[i] = q[i] ^ v;
  p[i].y = 3u;
  p[i] += (uint4)((uint)w.x, 1u, 2u, (uint)w.y);
  volatile __global uint4 *e = &p[i];
  uint4 r = *e;
  out[i] = w + (float2)((float)(r.x & 0xffu), (float)(r.w >> 24));
}
