// A header that is neither next to the kernel nor in an include directory.
// @error 3:1 #include "helpers.h": file not found
#include "helpers.h"
__kernel void k(__global int *out) { out[0] = 1; }
