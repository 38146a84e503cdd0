// A __local array declared in the kernel: each work-group reverses its chunk
// through local memory.
// @kernel reverse_chunks
// @global 700
// @local 64
// @arg buffer float 700 random -100 100
// @arg buffer float 700 output
// @arg value uint 700
#define GROUP 64
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void reverse_chunks(
    __global const float *in, __global float *out, uint n) {
  __local float chunk[GROUP];
  uint lid = get_local_id(0), base = get_group_id(0) * GROUP;
  uint count = min((uint)GROUP, n - base); /* the last group is short */
  if (lid < count) chunk[lid] = in[base + lid];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < count) out[base + lid] = chunk[count - 1 - lid];
}
