// Atomics take a __global or __local pointer, not a private one.
// @error 5:3 no matching function for call to 'atomic_inc'
__kernel void k(__global int *out) {
  int counter = 0;
  atomic_inc(&counter);
  out[0] = counter;
}
