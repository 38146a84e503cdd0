// A function declared but never defined: reported at the call.
// @error 4:49 function 'scale' is declared but not defined
float scale(float x);
__kernel void k(__global float *out) { out[0] = scale(out[0]); }
