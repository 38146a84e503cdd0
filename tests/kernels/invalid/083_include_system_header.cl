// A kernel has no system headers: <...> names only OpenCL's built-in ones.
// @error 3:1 #include <stdio.h>: only OpenCL's built-in headers
#include <stdio.h>
__kernel void k(__global int *out) { out[0] = 1; }
