#line 2147483647
__kernel void k(__global int *o) { o[0] = __LINE__; }

 x
