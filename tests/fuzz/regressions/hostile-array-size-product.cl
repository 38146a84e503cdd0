__kernel void k(__global int *o) { int a[3 * 1431655766]; }
