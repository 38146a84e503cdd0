// A call of a function that is neither declared nor a builtin.
// @error 4:12 undeclared function 'frobnicate'
__kernel void k(__global int *out) {
  out[0] = frobnicate(1);
}
