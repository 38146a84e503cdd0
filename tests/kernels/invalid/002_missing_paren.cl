// An if condition without its closing parenthesis.
// @error 4:18 expected ')'
__kernel void k(__global int *out) {
  if (out[0] > 0 {
    out[0] = 1;
  }
}
