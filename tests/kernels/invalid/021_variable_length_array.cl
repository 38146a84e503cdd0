// An array whose size is not a constant: reported at the declared name.
// @error 4:7 variable-length arrays are not supported
__kernel void k(__global int *out, int n) {
  int values[n];
  values[0] = n;
  out[0] = values[0];
}
