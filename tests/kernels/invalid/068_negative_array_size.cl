// An array of negative size: reported at the declared name.
// @error 4:7 array size must be positive
__kernel void k(__global int *out) {
  int values[-1];
  out[0] = 0;
}
