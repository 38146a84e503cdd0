// An array subscript must be an integer: reported at the subscript.
// @error 4:7 array subscript is not an integer
__kernel void k(__global int *out) {
  out[1.5f] = 1;
}
