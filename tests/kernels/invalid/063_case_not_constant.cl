// A case label must be an integer constant expression.
// @error 5:10 case label is not an integer constant expression
__kernel void k(__global int *out, int n) {
  switch (out[0]) {
    case n:
      out[1] = 1;
  }
}
