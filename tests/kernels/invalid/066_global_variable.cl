// Program-scope variables must be __constant in OpenCL C 1.2.
// @error 3:5 program-scope variables must be __constant
int counter = 0;
__kernel void k(__global int *out) { out[0] = counter; }
