// A block comment that never ends: reported where it starts.
// @error 4:15 unterminated comment
__kernel void k(__global int *out) {
  out[0] = 1; /* this comment
  never ends
}
