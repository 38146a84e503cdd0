// A directive the preprocessor does not know.
// @error 3:1 unknown preprocessor directive
#frobnicate 1
__kernel void k(__global int *out) { out[0] = 1; }
