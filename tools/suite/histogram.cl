// SPDX-License-Identifier: Apache-2.0
// Conformance suite: histograms of uint values into BINS bins (a power of
// two from -D; the bin is bits 8.. of the value). Every work-item handles a
// grid-stride slice of the input.

// Each work-group counts into local bins with atomic_inc, then adds its
// bins to the global histogram with atomic_add.
__kernel void histogram_local(__global const uint *in, __global uint *bins, uint n) {
  __local uint counts[BINS];
  uint lid = get_local_id(0);
  for (uint b = lid; b < BINS; b += get_local_size(0)) counts[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&counts[(in[i] >> 8) & (BINS - 1)]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < BINS; b += get_local_size(0))
    if (counts[b]) atomic_add(&bins[b], counts[b]);
}

// Every element increments its global bin directly: heavy contention
// between work-groups running at the same time.
__kernel void histogram_global(__global const uint *in, __global uint *bins, uint n) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&bins[(in[i] >> 8) & (BINS - 1)]);
}
