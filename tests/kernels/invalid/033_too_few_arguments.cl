// A call with fewer arguments than parameters: reported at the name.
// @error 4:47 too few arguments to function 'add'
int add(int a, int b) { return a + b; }
__kernel void k(__global int *out) { out[0] = add(1); }
