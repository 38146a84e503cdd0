// Special floats and the float macros: INFINITY, NAN, MAXFLOAT, FLT_MAX,
// FLT_MIN, FLT_EPSILON, HUGE_VALF, M_PI_F and M_E_F; arithmetic with
// infinities, NaN propagation, signed zeros, and overflow to infinity.
// @kernel specials
// @global 64
// @local 16
// @arg buffer float 64 random 1 2
// @arg buffer float8 64 output
// @arg buffer int 64 output
// @tolerance exact
__kernel void specials(__global const float *in, __global float8 *values, __global int *flags) {
  uint i = get_global_id(0);
  float x = in[i];
  float inf = INFINITY, nan = NAN;
  values[i] = (float8)(inf - x, -inf * x, FLT_MAX * x, x / inf, 0.0f * -x, 1.0f + FLT_EPSILON,
                       M_PI_F * x, fmax(nan, x));
  flags[i] = isnan(inf - inf) | isnan(nan * 0.0f) << 1 | (MAXFLOAT == FLT_MAX) << 2 |
             isinf(HUGE_VALF) << 3 | (FLT_MIN > 0.0f) << 4 | signbit(-0.0f) << 5 |
             (nan != nan) << 6 | ((M_E_F > 2.718f) & (M_E_F < 2.719f)) << 7 |
             (1.0f + FLT_EPSILON * 0.5f == 1.0f) << 8;
}
