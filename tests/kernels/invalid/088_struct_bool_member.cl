// A struct passed by value cannot hold a bool (OpenCL C forbids it: its
// size is the host compiler's); in a buffer it is one byte, with a warning.
// @error 8:22 member 'alive' of 'struct cell' has type 'bool', whose size is not portable
typedef struct {
  float value;
  bool alive;
} cell;
__kernel void k(cell c, __global float *out) { out[0] = c.value; }
