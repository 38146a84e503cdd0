// Address-space qualifiers with and without the underscores, __kernel and
// kernel, __private and private, and unqualified (private) locals.
// @kernel spellings
// @global 130
// @local 32
// @arg buffer int 130 random -1000 1000
// @arg buffer int 8 random 1 10
// @arg buffer int 130 output
// @arg local int 32
// @arg value uint 130
kernel void spellings(global const int *in, constant int *table, __global int *out,
                      local int *scratch, uint n) {
  uint i = get_global_id(0), lid = get_local_id(0);
  __local int tile[32];
  private int a = i < n ? in[i] : 0;
  __private int b = table[i % 8];
  int c = a * b;
  scratch[lid] = c;
  tile[lid] = a;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint other = get_local_size(0) - 1 - lid;
  if (i < n) out[i] = scratch[other] + tile[lid];
}
