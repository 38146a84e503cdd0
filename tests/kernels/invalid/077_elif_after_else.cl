// #elif after #else of the same #if.
// @error 5:1 #elif after #else
#if 0
#else
#elif 1
#endif
__kernel void k(__global int *out) { out[0] = 1; }
