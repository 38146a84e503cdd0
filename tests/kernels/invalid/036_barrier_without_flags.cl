// barrier takes the fence flags.
// @error 5:3 too few arguments to function 'barrier'
__kernel void k(__global int *out) {
  out[get_global_id(0)] = 1;
  barrier();
}
