// Two declarations of one name in one scope.
// @error 5:7 redefinition of 'a'
__kernel void k(__global int *out) {
  int a = 1;
  int a = 2;
  out[0] = a;
}
