// A bitonic sort of each work-group's 128 keys in local memory: barriers
// inside two nested loops, the padding of the short last group with INT_MAX.
// @kernel bitonic
// @global 600
// @local 128
// @arg buffer int 600 random -1000000 1000000
// @arg buffer int 600 output
// @arg value uint 600
__kernel void bitonic(__global const int *in, __global int *out, uint n) {
  __local int keys[128];
  uint lid = get_local_id(0), i = get_global_id(0), size = get_local_size(0);
  keys[lid] = i < n ? in[i] : INT_MAX;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint block = 2; block <= size; block <<= 1) {
    for (uint stride = block >> 1; stride > 0; stride >>= 1) {
      uint partner = lid ^ stride;
      if (partner > lid) {
        bool ascending = (lid & block) == 0;
        int a = keys[lid], b = keys[partner];
        if ((a > b) == ascending) {
          keys[lid] = b;
          keys[partner] = a;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  if (i < n) out[i] = keys[lid];
}
