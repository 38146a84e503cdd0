__kernel void k(__global int *o) { int a[0x7fffffff][0x7fffffff]; o[0] = a[1][1]; }
