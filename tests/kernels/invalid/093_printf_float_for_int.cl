// printf's conversions are checked against their arguments: %d of a float
// is refused (OpenCL leaves it undefined; the C library would print garbage).
// @error 6:30 printf's '%d' takes an integer argument, got 'float'
__kernel void k(__global const float *in) {
  int i = get_global_id(0);
  printf("value %d %d\n", i, in[i]);
}
