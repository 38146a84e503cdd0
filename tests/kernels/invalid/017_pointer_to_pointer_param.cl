// A kernel parameter that points to pointers.
// @error 3:32 pointer to pointer types are not supported
__kernel void k(__global int **table, __global int *out) { out[0] = table[0][0]; }
