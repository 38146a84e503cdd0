// break outside any loop or switch.
// @error 5:3 'break' outside a loop or switch
__kernel void k(__global int *out) {
  out[0] = 1;
  break;
}
