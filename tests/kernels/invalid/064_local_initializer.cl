// __local variables cannot have an initialiser.
// @error 4:15 __local variables cannot be initialized
__kernel void k(__global int *out) {
  __local int counter = 0;
  out[0] = counter;
}
