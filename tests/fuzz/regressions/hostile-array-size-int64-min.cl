__kernel void k(__global int *o) { int a[(-9223372036854775807L - 1) / -1]; }
