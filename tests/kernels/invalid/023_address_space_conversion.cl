// An implicit conversion of a __local pointer to a __global one.
// @error 4:21 cannot convert between address spaces
__kernel void k(__global int *out, __local int *scratch) {
  __global int *p = scratch;
  p[0] = 1;
  out[0] = 0;
}
