// #include "file": a header in a subfolder, found through the include
// directory (the kernel's folder); it includes a sibling relative to itself.
// Included twice (#pragma once), its sibling again (include guard), and
// once through a macro naming the file.
// @kernel include_headers
// @global 300
// @local 32
// @arg buffer int 300 random -1000 1000
// @arg buffer int 600 output
// @arg value uint 300
#include "headers/kl_math.h"
#include "headers/kl_math.h"
#include "headers/kl_constants.h"
#define KL_MATH_HEADER "headers/kl_math.h"
#include KL_MATH_HEADER

__kernel void include_headers(__global const int *in, __global int *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  pair_t p = {0, 0};
  for (int k = 0; k < 4; k++) p = kl_accumulate(p, kl_scale(in[i]) + k, k);
  out[2 * i] = p.sum;
  out[2 * i + 1] = p.weighted;
}
