// A kernel pointer parameter without an address space (private).
// @error 3:24 kernel pointer parameter 'data' must be __global, __constant or __local
__kernel void k(float *data) { data[0] = 1.0f; }
