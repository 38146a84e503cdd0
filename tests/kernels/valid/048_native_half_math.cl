// native_ and half_ math functions: their precision is implementation
// defined, so they are compared with a loose relative tolerance; also mad,
// whose precision is also implementation defined.
// @kernel native_math
// @global 256
// @local 64
// @arg buffer float 256 random 0.5 4
// @arg buffer float8 256 output
// @tolerance rel 2e-3 abs 1e-3
__kernel void native_math(__global const float *in, __global float8 *out) {
  uint i = get_global_id(0);
  float x = in[i];
  out[i] = (float8)(native_sin(x), native_cos(x), native_exp(x), native_log(x), native_sqrt(x),
                    native_recip(x), half_exp(x * 0.5f), mad(x, x, -1.0f));
}
