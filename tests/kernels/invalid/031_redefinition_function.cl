// Two definitions of one function: reported at the second name.
// @error 4:5 redefinition of 'twice'
int twice(int x) { return 2 * x; }
int twice(int x) { return x + x; }
__kernel void k(__global int *out) { out[0] = twice(1); }
