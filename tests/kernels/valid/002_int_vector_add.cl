// Integer addition and subtraction, element by element.
// @kernel int_add
// @global 999
// @local 32
// @arg buffer int 999 random -1000000 1000000
// @arg buffer int 999 random -1000000 1000000
// @arg buffer int 999 output
// @arg buffer int 999 output
// @arg value int 999
__kernel void int_add(__global const int *a, __global const int *b, __global int *sum,
                      __global int *difference, int n) {
  int i = (int)get_global_id(0);
  if (i >= n) return;
  sum[i] = a[i] + b[i];
  difference[i] = a[i] - b[i];
}
