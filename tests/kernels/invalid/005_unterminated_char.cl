// A character constant without its closing quote.
// @error 4:12 unterminated character constant
__kernel void k(__global int *out) {
  char c = 'a;
  out[0] = c;
}
