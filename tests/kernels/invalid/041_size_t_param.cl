// size_t cannot be a kernel parameter type (its size is the device's).
// @error 3:24 kernel parameter 'n' cannot have type 'size_t'
__kernel void k(size_t n, __global int *out) { out[0] = (int)n; }
