// A file that includes itself without a guard: stopped at the nesting limit.
// @error 3:1 nested too deeply (more than 64 levels)
#include "084_include_recursion.cl"
__kernel void k(__global int *out) { out[0] = 1; }
