// SPDX-License-Identifier: Apache-2.0
/* test_glsl_fp64_math's references (test_glsl_fp64.h): each builtin in long
 * double (x87 80-bit) or with the exact libm double functions, the error in
 * ulp, and the argument domains each builtin is sampled over. */
#include "test_glsl_fp64.h"

/* ---- references ---- */

/* sin(pi r) for |r| <= 1/2, and the exact reductions around it. */
static long double sinpi_small(long double r) {
  return sinl(M_PIl * r);
}
static long double ref_sinpi(double x) {
  if (isinf(x) || isnan(x)) return NAN;
  long double r = fmodl(x, 2.0L); /* exact, (-2, 2) */
  if (r > 1) r -= 2;
  if (r < -1) r += 2;
  if (r == 0 || r == 1 || r == -1) return copysign(0.0, x);
  if (r > 0.5L) r = 1 - r;
  if (r < -0.5L) r = -1 - r;
  return sinpi_small(r);
}
static long double ref_cospi(double x) {
  if (isinf(x) || isnan(x)) return NAN;
  long double r = fmodl(fabsl(x), 2.0L); /* [0, 2) */
  if (r > 1) r = 2 - r;                  /* cos(pi r) symmetric: [0, 1] */
  if (r == 0.5L) return 0.0L;
  return sinpi_small(0.5L - r);
}
static long double ref_tanpi(double x) {
  if (isinf(x) || isnan(x)) return NAN;
  long double r = fmodl(x, 1.0L); /* (-1, 1) */
  double n = x - (double)r;       /* the integer part, exact */
  bool n_odd = fmod(n, 2.0) != 0;
  if (r == 0) return copysign(0.0, n_odd ? -x : x);
  if (r == 0.5L || r == -0.5L) {
    /* x = m + 1/2 with m = floor(x): +inf for even m */
    double m = floor(x);
    return fmod(m, 2.0) == 0 ? INFINITY : -INFINITY;
  }
  return ref_sinpi(x) / ref_cospi(x);
}
static long double ref_rootn(double x, int n) {
  if (n == 0 || isnan(x)) return NAN;
  bool odd = (n & 1) != 0;
  if (x < 0 && !odd) return NAN;
  if (x == 0) return n < 0 ? (odd ? copysign(INFINITY, x) : INFINITY) : (odd ? x : 0.0);
  if (isinf(x)) return n < 0 ? (x < 0 ? -0.0 : 0.0) : x;
  long double r = expl(logl(fabsl(x)) / n);
  return x < 0 ? -r : r;
}
static long double ref_powr(double x, double y) {
  if (isnan(x) || isnan(y) || x < 0) return NAN;
  if (x == 0) return y == 0 ? NAN : (y < 0 ? INFINITY : 0.0);
  if (isinf(x)) return y == 0 ? NAN : (y < 0 ? 0.0 : INFINITY);
  if (x == 1) return isinf(y) ? NAN : 1.0;
  return powl(x, y);
}
static long double ref_fract(double x) {
  if (isnan(x) || x == 0) return x;
  if (isinf(x)) return copysign(0.0, x);
  return fmin(x - floor(x), 0x1.fffffffffffffp-1);
}

long double fp64_reference(const char *f, double x, double y, int n) {
#define IS(name) (strcmp(f, name) == 0)
  if (IS("exp")) return expl(x);
  if (IS("exp2")) return exp2l(x);
  if (IS("exp10")) return exp10l(x);
  if (IS("expm1")) return expm1l(x);
  if (IS("log")) return logl(x);
  if (IS("log2")) return log2l(x);
  if (IS("log10")) return log10l(x);
  if (IS("log1p")) return log1pl(x);
  if (IS("pow")) return powl(x, y);
  if (IS("pown")) return powl(x, (long double)n);
  if (IS("powr")) return ref_powr(x, y);
  if (IS("rootn")) return ref_rootn(x, n);
  if (IS("cbrt")) return cbrtl(x);
  if (IS("hypot")) return hypotl(x, y);
  if (IS("sin")) return sinl(x);
  if (IS("cos")) return cosl(x);
  if (IS("tan")) return tanl(x);
  if (IS("sinpi")) return ref_sinpi(x);
  if (IS("cospi")) return ref_cospi(x);
  if (IS("tanpi")) return ref_tanpi(x);
  if (IS("asin")) return asinl(x);
  if (IS("acos")) return acosl(x);
  if (IS("atan")) return atanl(x);
  if (IS("atan2")) return atan2l(x, y);
  if (IS("asinpi")) return asinl(x) / M_PIl;
  if (IS("acospi")) return acosl(x) / M_PIl;
  if (IS("atanpi")) return atanl(x) / M_PIl;
  if (IS("atan2pi")) return atan2l(x, y) / M_PIl;
  if (IS("sinh")) return sinhl(x);
  if (IS("cosh")) return coshl(x);
  if (IS("tanh")) return tanhl(x);
  if (IS("asinh")) return asinhl(x);
  if (IS("acosh")) return acoshl(x);
  if (IS("atanh")) return atanhl(x);
  if (IS("erf")) return erfl(x);
  if (IS("erfc")) return erfcl(x);
  if (IS("tgamma")) return tgammal(x);
  if (IS("lgamma")) return lgammal(x);
  if (IS("fmod")) return fmod(x, y);
  if (IS("remainder")) return remainder(x, y);
  if (IS("ldexp")) return ldexp(x, n);
  if (IS("nextafter")) return nextafter(x, y);
  if (IS("frexp")) {
    int e;
    return frexp(x, &e);
  }
  if (IS("logb")) return logb(x);
  if (IS("modf")) {
    double i;
    return modf(x, &i);
  }
  if (IS("fract")) return ref_fract(x);
  if (IS("degrees")) return x * (180 / M_PIl);
  if (IS("radians")) return x * (M_PIl / 180);
  if (IS("ilogb")) return isnan(x) ? INT_MAX : ilogb(x); /* OpenCL: FP_ILOGBNAN is INT_MAX */
#undef IS
  return NAN;
}

/* |got - want| in units in the last place of want (as a double), or
 * INFINITY when the classes differ (NaN, infinity, zero sign). */
double fp64_ulp_error(double got, long double want, bool absolute_near_zero) {
  if (isnan(want)) return isnan(got) ? 0 : INFINITY;
  double wd = (double)want;
  if (isinf(wd)) return got == wd ? 0 : INFINITY;
  if (isnan(got) || isinf(got)) return INFINITY;
  if (want == 0) return got == 0 && signbit(got) == signbit(wd) ? 0 : INFINITY;
  long double scale = fabsl(want);
  if (absolute_near_zero && scale < 1) scale = 1;
  int e;
  frexpl(scale, &e);
  long double ulp = ldexpl(1.0L, e - 53 < -1074 ? -1074 : e - 53);
  return (double)(fabsl((long double)got - want) / ulp);
}

const domain_t fp64_domains[] = {
    {"exp", .x = {{'u', -745.2, 709.8}, {'u', -1, 1}, {'s', 1e-300, 1}}},
    {"exp2", .x = {{'u', -1080, 1024}, {'u', -1, 1}, {'s', 1e-300, 1}}},
    {"exp10", .x = {{'u', -325, 308.3}, {'u', -1, 1}, {'s', 1e-300, 1}}},
    {"expm1", .x = {{'u', -40, 709.8}, {'u', -0.4, 0.4}, {'s', 1e-300, 1}}},
    {"log", .x = {{'l', TINY, HUGE_D}, {'u', 0.5, 2}, {'u', 0.99, 1.01}}},
    {"log2", .x = {{'l', TINY, HUGE_D}, {'u', 0.5, 2}, {'u', 0.99, 1.01}}},
    {"log10", .x = {{'l', TINY, HUGE_D}, {'u', 0.5, 2}, {'u', 0.99, 1.01}}},
    {"log1p", .x = {{'u', -1, 1}, {'l', 1e-300, 1e300}, {'s', 1e-300, 1e-3}}},
    {"pow", .x = {{'l', 1e-3, 1e3}, {'l', 1e-300, 1e300}, {'s', 0.5, 2}},
     .y = {{'u', -100, 100}, {'u', -2, 2}, {'i', -1000, 1000}}},
    {"pown", .x = {{'s', 1e-3, 1e3}, {'s', 0.5, 2}, {'s', 1e-300, 1e300}},
     .n_lo = {-100, -1000, -2}, .n_hi = {100, 1000, 2}},
    {"powr", .x = {{'l', 1e-3, 1e3}, {'l', 1e-300, 1e300}, {'u', 0.9, 1.1}},
     .y = {{'u', -100, 100}, {'u', -2, 2}, {'u', -5000, 5000}}},
    {"rootn", .x = {{'s', 1e-300, 1e300}, {'l', TINY, HUGE_D}, {'s', 0.5, 2}}, .n_lo = {-20, 1, -3},
     .n_hi = {20, 5, 3}},
    {"cbrt", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'u', 0.9, 8.1}}},
    {"hypot", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', TINY, 1e-300}},
     .y = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', TINY, 1e-300}}},
    {"sin", .x = {{'u', -10, 10}, {'s', 1e-300, 1e5}, {'u', -1e5, 1e5}}},
    {"cos", .x = {{'u', -10, 10}, {'s', 1e-300, 1e5}, {'u', -1e5, 1e5}}},
    {"tan", .x = {{'u', -10, 10}, {'s', 1e-300, 1e5}, {'u', -1e5, 1e5}}},
    {"sinpi", .x = {{'u', -10, 10}, {'s', 1e-300, 1e16}, {'u', -1e5, 1e5}}},
    {"cospi", .x = {{'u', -10, 10}, {'s', 1e-300, 1e16}, {'u', -1e5, 1e5}}},
    {"tanpi", .x = {{'u', -10, 10}, {'s', 1e-300, 1e16}, {'u', -1e5, 1e5}}},
    {"asin", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.9, 1}}},
    {"acos", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.9, 1}}},
    {"atan", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'u', -1, 1}}},
    {"atan2", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', TINY, 1e-300}},
     .y = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', 1e-300, 1}}},
    {"asinpi", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.9, 1}}},
    {"acospi", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.9, 1}}},
    {"atanpi", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'u', -1, 1}}},
    {"atan2pi", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', TINY, 1e-300}},
     .y = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', 1e-300, 1}}},
    {"sinh", .x = {{'u', -710.4, 710.4}, {'u', -2, 2}, {'s', 1e-300, 1}}},
    {"cosh", .x = {{'u', -710.4, 710.4}, {'u', -2, 2}, {'s', 1e-300, 1}}},
    {"tanh", .x = {{'u', -25, 25}, {'u', -1, 1}, {'s', 1e-300, 1}}},
    {"asinh", .x = {{'s', 1e-300, 1e300}, {'u', -3, 3}, {'s', 1e-300, 1}}},
    {"acosh", .x = {{'l', 1, 1e300}, {'u', 1, 3}, {'u', 1, 1.01}}},
    {"atanh", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.99, 1}}},
    {"erf", .x = {{'u', -7, 7}, {'s', 1e-300, 1}, {'u', -2, 2}}},
    {"erfc", .x = {{'u', -7, 28}, {'u', -1, 1}, {'u', 0, 10}}},
    {"tgamma", .x = {{'u', -170, 171.6}, {'u', 0, 10}, {'u', -186, -170}}},
    {"lgamma", .x = {{'l', 1e-300, 1e300}, {'u', 0, 10}, {'u', -100, 0}}},
    {"fmod", .x = {{'s', 1e-30, 1e30}, {'s', TINY, HUGE_D}, {'u', -10, 10}},
     .y = {{'s', 1e-30, 1e30}, {'s', TINY, HUGE_D}, {'u', -10, 10}}},
    {"remainder", .x = {{'s', 1e-30, 1e30}, {'s', TINY, HUGE_D}, {'u', -10, 10}},
     .y = {{'s', 1e-30, 1e30}, {'s', TINY, HUGE_D}, {'u', -10, 10}}},
    {"ldexp", .x = {{'s', TINY, HUGE_D}, {'s', TINY, HUGE_D}, {'s', 1e-310, 1e-300}},
     .n_lo = {-2200, -60, -80}, .n_hi = {2200, 60, 10}},
    {"nextafter", .x = {{'s', TINY, HUGE_D}, {'s', TINY, 1e-300}, {'u', -1, 1}},
     .y = {{'s', TINY, HUGE_D}, {'s', TINY, 1e-300}, {'u', -1, 1}}},
    {"frexp", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', TINY, 1e-300}}},
    {"logb", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', TINY, 1e-300}}},
    {"ilogb", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', TINY, 1e-300}}},
    {"modf", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', 1, 1e17}}},
    {"fract", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', 1, 1e17}}},
    {"degrees", .x = {{'s', TINY, 1e300}, {'u', -10, 10}, {'s', 1e305, HUGE_D}}},
    {"radians", .x = {{'s', TINY, HUGE_D}, {'u', -1000, 1000}, {'s', TINY, 1e-300}}},
};
const size_t fp64_domain_count = sizeof fp64_domains / sizeof fp64_domains[0];
