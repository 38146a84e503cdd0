// A function-like macro invoked with too few arguments: reported at the
// macro name.
// @error 5:47 wrong number of arguments to macro 'ADD'
#define ADD(a, b) ((a) + (b))
__kernel void k(__global int *out) { out[0] = ADD(1); }
