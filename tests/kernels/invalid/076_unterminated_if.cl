// An #if without its #endif: reported at the #if.
// @error 3:1 unterminated #if
#if 1
__kernel void k(__global int *out) { out[0] = 1; }
