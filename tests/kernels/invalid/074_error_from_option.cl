// An #error reached because of a -D option; the message has its text.
// @options -DFEATURE_X
// @error 5:1 FEATURE_X needs fp64
#ifdef FEATURE_X
#error FEATURE_X needs fp64
#endif
__kernel void k(__global int *out) { out[0] = 1; }
