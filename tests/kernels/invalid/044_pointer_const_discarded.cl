// A pointer to const int assigned to a pointer to int: the const would be
// lost. (A pointer to float assigned to a pointer to int is converted with
// a warning, as C does; see test_translator_features.)
// @error 6:21 discards the const qualifier
__kernel void k(__global const int *in, __global int *out) {
  __global int *p = in;
  out[0] = p[0];
}
