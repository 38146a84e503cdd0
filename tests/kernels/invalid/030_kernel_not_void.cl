// A kernel must return void: reported at its name.
// @error 3:14 kernel function 'k' must return void
__kernel int k(__global int *out) {
  out[0] = 1;
  return 0;
}
