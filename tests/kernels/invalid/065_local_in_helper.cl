// __local variables can be declared only in a kernel's outermost scope.
// @error 4:15 __local variables can only be declared in kernel functions
int helper(int x) {
  __local int tile[16];
  tile[0] = x;
  return tile[0];
}
__kernel void k(__global int *out) { out[0] = helper(1); }
