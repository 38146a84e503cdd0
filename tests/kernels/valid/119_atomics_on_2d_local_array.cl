// Atomics through the address of an element of a __local array of arrays
// (Parboil's tpacf: `atom_inc(&(warp_hists[bin][warp]))`), beside plain
// row-and-column indexing of the same array: Vulkan reaches the element
// through a row-major offset (a[o / C][o % C]).
// @kernel histogram
// @global 700
// @local 64
// @arg buffer uint 700 random 0 4000000000
// @arg buffer uint 32 inout fill 0
// @arg value uint 700
#define NB 8
#define NH 4
__kernel void histogram(__global const uint *keys, __global uint *out, uint n) {
  __local uint hist[NB][NH];
  uint l = get_local_id(0), i = get_global_id(0);
  if (l < NB * NH) hist[l / NH][l % NH] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) {
    __local uint *cell = &hist[keys[i] % NB][l % NH];
    atom_inc(cell);
    atomic_add(&(hist[(keys[i] >> 8) % NB][(l + 1) % NH]), 2u);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < NB * NH) atomic_add(&out[l], hist[l / NH][l % NH]);
}
