// Barriers inside loops with a uniform trip count from a kernel argument:
// an iterated 1D blur in local memory (the group keeps its values across
// rounds), with both local and global fences.
// @kernel iterated_blur
// @global 500
// @local 100
// @arg buffer float 500 random 0 100
// @arg buffer float 500 output
// @arg value uint 500
// @arg value int 6
// @tolerance ulp 8 abs 1e-4
__kernel void iterated_blur(__global const float *in, __global float *out, uint n,
                            int rounds) {
  __local float values[100];
  uint lid = get_local_id(0), i = get_global_id(0), size = get_local_size(0);
  values[lid] = i < n ? in[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int r = 0; r < rounds; r++) {
    float left = values[lid == 0 ? 0 : lid - 1];
    float right = values[lid + 1 == size ? lid : lid + 1];
    float next = 0.25f * left + 0.5f * values[lid] + 0.25f * right;
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read before anyone writes */
    values[lid] = next;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  }
  if (i < n) out[i] = values[lid];
}
