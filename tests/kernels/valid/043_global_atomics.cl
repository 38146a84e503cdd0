// Every atomic_ function on __global int and uint: add, sub, inc, dec, min,
// max, and, or, xor, xchg and cmpxchg (a compare-and-swap loop, and a
// first-come flag). Only order-independent results are stored.
// @kernel global_atomics
// @global 1000
// @local 64
// @arg buffer int 1000 random -1000000 1000000
// @arg buffer int 4 inout fill 0
// @arg buffer int 2 inout fill 0
// @arg buffer uint 3 inout fill 0
// @arg buffer uint 1 inout fill 0xffffffff
// @arg buffer uint 8 inout fill 0
// @arg buffer int 1000 inout random -5 5
// @arg buffer int 1000 output
// @arg value uint 1000
__kernel void global_atomics(__global const int *in, __global int *sums,
                             __global int *extremes, __global uint *bits,
                             __global uint *and_bits, __global uint *flags,
                             __global int *slots, __global int *old, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int x = in[i];
  atomic_add(&sums[0], x / 1000);
  atomic_sub(&sums[1], x % 1000);
  atomic_inc(&sums[2]);
  atomic_dec(&sums[3]);
  atomic_min(&extremes[0], x);
  atomic_max(&extremes[1], x);
  atomic_max(&bits[0], (uint)x); /* unsigned: negative values are large */
  atomic_or(&bits[1], 1u << (i % 32));
  atomic_xor(&bits[2], (uint)x);
  atomic_and(&and_bits[0], ~(1u << (i % 29)));
  /* an atomic add written as a compare-and-swap loop */
  __global volatile uint *counter = &flags[7];
  uint seen = *counter, before;
  do {
    before = seen;
    seen = atomic_cmpxchg(counter, before, before + (uint)(i % 10));
  } while (seen != before);
  /* exactly one work-item per flag sees 0 */
  if (atomic_cmpxchg(&flags[i % 6], 0u, 1u) == 0u) atomic_inc(&flags[6]);
  old[i] = atomic_xchg(&slots[i], x * 2) + 1; /* each work-item its own slot */
}
