// return without a value in a function that returns int.
// @error 5:3 non-void function 'f' must return a value
int f(int x) {
  if (x > 0) return x;
  return;
}
__kernel void k(__global int *out) { out[0] = f(1); }
