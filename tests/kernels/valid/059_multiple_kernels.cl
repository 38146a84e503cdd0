// A file with several kernels sharing helpers and constants; the corpus runs
// one of them (scale_and_offset), the others must still compile.
// @kernel scale_and_offset
// @global 1000
// @local 50
// @arg buffer int 1000 random -1000 1000
// @arg buffer int 1000 output
// @arg value int 7
// @arg value uint 1000
__constant int bias = 13;
int transform(int x, int factor) { return x * factor + bias; }

__kernel void only_scale(__global int *data, int factor) {
  data[get_global_id(0)] *= factor;
}

__kernel void scale_and_offset(__global const int *in, __global int *out, int factor,
                               uint n) {
  uint i = get_global_id(0);
  if (i < n) out[i] = transform(in[i], factor) - (int)get_local_id(0);
}

__kernel void fill(__global int *data, int value) { data[get_global_id(0)] = value; }
