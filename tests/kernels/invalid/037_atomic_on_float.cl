// There are no float atomics in OpenCL C 1.2.
// @error 4:3 no matching function for call to 'atomic_add'
__kernel void k(__global float *sum) {
  atomic_add(&sum[0], 1.0f);
}
