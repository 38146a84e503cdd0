// goto is outside the portable subset.
// @error 7:16 goto is not supported
__kernel void k(__global int *out) {
  int i = 0;
again:
  out[i] = i;
  if (++i < 4) goto again;
}
