// A #define whose parameter list never closes: reported at the #.
// @error 3:1 expected ')' in macro parameter list
#define SQUARE(x x * x
__kernel void k(__global int *out) { out[0] = 1; }
