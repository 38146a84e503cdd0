// There is no 5-lane vector type.
// @error 4:3 unknown type name 'float5'
__kernel void k(__global int *out) {
  float5 v;
  out[0] = 0;
}
