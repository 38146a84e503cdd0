// #error stops the build with its text: reported at the #.
// @error 5:1 #error
#define CONFIGURED 0
#if !CONFIGURED
#error "unsupported configuration"
#endif
__kernel void k(__global int *out) { out[0] = 1; }
