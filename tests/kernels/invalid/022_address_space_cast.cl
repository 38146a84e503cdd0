// A cast of a __local pointer to a __global one: reported at the cast.
// @error 4:21 cannot cast between address spaces
__kernel void k(__global int *out, __local int *scratch) {
  __global int *p = (__global int *)scratch;
  p[0] = 1;
  out[0] = 0;
}
