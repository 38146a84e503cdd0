// The smallest realistic kernel: y = a * x + y over a size that is not a
// multiple of the work-group size, guarded by n.
// @kernel saxpy
// @global 1000
// @local 64
// @arg value uint 1000
// @arg value float 2.5
// @arg buffer float 1000 random -10 10
// @arg buffer float 1000 random -10 10
// @arg buffer float 1000 output
// @tolerance ulp 2 abs 1e-5
__kernel void saxpy(uint n, float a, __global const float *x, __global const float *y,
                    __global float *out) {
  size_t i = get_global_id(0);
  if (i < n) out[i] = a * x[i] + y[i];
}
