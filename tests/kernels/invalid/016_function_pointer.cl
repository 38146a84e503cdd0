// A pointer to a function: reported at the declared name.
// @error 6:9 function pointers are not supported
int twice(int x) { return 2 * x; }

__kernel void k(__global int *out) {
  int (*apply)(int) = twice;
  out[0] = apply(3);
}
