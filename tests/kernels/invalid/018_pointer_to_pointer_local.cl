// A private variable that points to a pointer.
// @error 5:18 pointer to pointer types are not supported
__kernel void k(__global int *out) {
  __global int *p = out;
  __global int **pp = &p;
  (*pp)[0] = 1;
}
