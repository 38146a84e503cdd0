// A declaration without its semicolon: the error is just after its last
// token, on its own line (as clang and GCC report it), naming the next token.
// @error 5:12 expected ';' after the declaration, found 'out'
__kernel void k(__global int *out) {
  int x = 1
  out[0] = x;
}
