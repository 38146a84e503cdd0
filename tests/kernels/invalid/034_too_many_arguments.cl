// A call with more arguments than parameters.
// @error 4:47 too many arguments to function 'add'
int add(int a, int b) { return a + b; }
__kernel void k(__global int *out) { out[0] = add(1, 2, 3); }
