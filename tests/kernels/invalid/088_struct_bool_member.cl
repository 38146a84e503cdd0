// A struct shared with the host cannot hold a bool: its size is not portable.
// @error 7:38 member 'alive' of 'struct cell' has type 'bool', whose size is not portable
typedef struct {
  float value;
  bool alive;
} cell;
__kernel void k(__global const cell *cells, __global float *out) { out[0] = cells[0].value; }
