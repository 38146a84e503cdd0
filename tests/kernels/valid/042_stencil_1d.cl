// A 1D 7-point integer stencil straight from global memory, with the border
// handled by if/else, and weights from a constant table.
// @kernel stencil_1d
// @global 1111
// @local 64
// @arg buffer int 1111 random -10000 10000
// @arg buffer int 1111 output
// @arg value int 1111
__constant int taps[7] = {1, -2, 3, 10, 3, -2, 1};
__kernel void stencil_1d(__global const int *in, __global int *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int sum = 0;
  for (int k = -3; k <= 3; k++) {
    int j = i + k;
    if (j < 0)
      j = -j;
    else if (j >= n)
      j = 2 * (n - 1) - j;
    sum += taps[k + 3] * in[j];
  }
  out[i] = sum;
}
