// The source is one string: there are no files to include.
// @error 3:1 #include is not supported
#include "helpers.h"
__kernel void k(__global int *out) { out[0] = 1; }
