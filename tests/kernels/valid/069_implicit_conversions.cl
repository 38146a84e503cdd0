// The usual arithmetic conversions: int with uint is uint, int with long is
// long, integers with float are float, a scalar operand is converted to a
// vector's lane type; assignment converts (float to int truncates).
// @kernel conversions
// @global 500
// @local 64
// @arg buffer int 500 random -100000 100000
// @arg buffer uint 500 random 0 0xffffffff
// @arg buffer float 500 random -100 100
// @arg buffer uint 500 output
// @arg buffer long 500 output
// @arg buffer float 500 output
// @arg buffer int 500 output
// @arg buffer float4 500 output
// @arg value uint 500
__kernel void conversions(__global const int *a, __global const uint *b, __global const float *f,
                          __global uint *as_unsigned, __global long *as_long,
                          __global float *as_float, __global int *truncated,
                          __global float4 *widened, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int x = a[i];
  uint y = b[i];
  as_unsigned[i] = x + y;              /* x converts to uint; wraps */
  as_long[i] = x * 100000L + (long)y;  /* long arithmetic */
  as_float[i] = x + f[i] * 2;          /* int and int literal convert to float */
  int t = f[i] * 3.0f;                 /* assignment truncates toward zero */
  short s = (short)x;
  truncated[i] = t + (s < 0u) * 1000000; /* s promotes to int, then to uint */
  float4 v = (float4)(f[i]);
  widened[i] = v * 2 + (float4)(1.0f, 2.0f, 3.0f, 4.0f) / 4;
}
