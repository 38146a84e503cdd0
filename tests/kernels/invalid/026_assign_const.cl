// Assigning to a const variable.
// @error 5:3 cannot assign to const
__kernel void k(__global int *out) {
  const int k = 3;
  k = 4;
  out[0] = k;
}
