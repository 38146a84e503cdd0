// A 64-bin histogram: each work-group counts into __local bins with
// atomic_inc, then adds its bins to the global histogram with atomic_add.
// Every work-item also handles several elements (a grid-stride loop).
// @kernel histogram
// @global 300
// @local 64
// @arg buffer uint 5000 random 0 0xffffffff
// @arg buffer uint 64 inout fill 0
// @arg value uint 5000
#define BINS 64
__kernel void histogram(__global const uint *in, __global uint *bins, uint n) {
  __local uint local_bins[BINS];
  uint lid = get_local_id(0);
  for (uint b = lid; b < BINS; b += get_local_size(0)) local_bins[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&local_bins[(in[i] >> 13) % BINS]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < BINS; b += get_local_size(0)) atomic_add(&bins[b], local_bins[b]);
}
