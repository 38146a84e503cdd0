// An #endif without its #if.
// @error 4:1 unbalanced #endif
__kernel void k(__global int *out) { out[0] = 1; }
#endif
