// A pointer variable in __local memory (`__global float * __local p`, as
// a real-world benchmark's variants write it): one work-item chooses the
// array for the group, the others read the choice after a barrier. GLSL
// keeps no pointers in memory: vulkan:0 refuses the kernel, naming the
// pointer.
// @kernel k
// @global 64
// @local 16
// @arg buffer float 64 random -3 3
// @arg buffer float 64 random -3 3
// @arg buffer float 64 output
// @arg value int 1
__kernel void k(__global float *a, __global float *b, __global float *out, int pick) {
  __global float * __local chosen;
  uint l = get_local_id(0);
  if (l == 0) chosen = (get_group_id(0) + pick) % 2 ? a : b;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = chosen[get_global_id(0)] * 2.0f;
}
