// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: OpenCL's math builtins GLSL lacks or defines otherwise
 * (float helpers more accurate than the drivers', exact fmod, fma and
 * remainder, the out-parameter builtins), and the tables of builtins that
 * are one GLSL function or one helper template. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emit_glsl_internal.h"
#include "translate.h"

/* fmod is exact in OpenCL (x - y * trunc(x / y) is not): long division
 * of the significands, one bit per exponent step, as C libraries do. */
/* fma on float, correctly rounded without a fused operation (lavapipe does
 * not fuse): the product split exactly (Veltkamp/Dekker), two exact sums,
 * the low parts added with rounding to odd, then one rounding to nearest
 * (Boldo and Melquiond's emulation). Every step is exact within
 * |a|, |b| < 2^100, 2^-100 < |a*b| < 2^120, |c| < 2^120; outside, the
 * unfused a * b + c. */
static const char fma_float[] =
    "float _cl_fma(float a, float b, float c) {\n"
    "  precise float p = a * b;\n"
    "  if (isinf(p) || isnan(p) || isinf(c) || isnan(c) || abs(a) >= 1.0e30 || abs(b) >= 1.0e30 "
    "||\n"
    "      abs(p) <= 7.9e-31 || abs(p) >= 1.3e36 || abs(c) >= 1.3e36) {\n"
    "    precise float r = p + c;\n"
    "    return r;\n"
    "  }\n"
    "  precise float sa = 4097.0 * a, ah = sa - (sa - a), al = a - ah;\n"
    "  precise float sb = 4097.0 * b, bh = sb - (sb - b), bl = b - bh;\n"
    "  precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;\n"
    "  precise float th = c + e, tv = th - c, tl = (c - (th - tv)) + (e - tv);\n"
    "  precise float vh = p + th, vv = vh - p, vl = (p - (vh - vv)) + (th - vv);\n"
    "  precise float z = vl + tl, zv = z - vl, ze = (vl - (z - zv)) + (tl - zv);\n"
    "  uint zb = floatBitsToUint(z);\n"
    "  if (ze != 0.0 && (zb & 1u) == 0u) z = uintBitsToFloat((ze > 0.0) == (z > 0.0) ? zb + 1u : "
    "zb - 1u);\n"
    "  precise float r = vh + z;\n"
    "  return r;\n"
    "}";

/* log, log2 and log10 on float within about 2 ulp (GLSL's log is log2 * ln 2
 * with an absolute error bound: hundreds of ulp near 1 on lavapipe). x =
 * 2^k m with m in [sqrt(1/2), sqrt(2)]; ln m = 2 atanh(s), s = f / (2 + f),
 * f = m - 1, written as f - (f^2/2 - s (f^2/2 + R)) so that the rounding
 * errors scale with f^2 (R: the series to s^9, truncated below 2^-28).
 * _cl_logr gives (k, ln m) for finite x > 0. */
static const char log_reduce[] =
    "vec2 _cl_logr(float x) {\n"
    "  precise float y = x;\n"
    "  int k = 0;\n"
    "  if (y < 1.17549435e-38) { y = y * 33554432.0; k = -25; }\n"
    "  uint u = floatBitsToUint(y);\n"
    "  k += int(u >> 23) - 127;\n"
    "  precise float m = uintBitsToFloat((u & 0x7fffffu) | 0x3f800000u);\n"
    "  if (m > 1.41421354) { m = m * 0.5; k += 1; }\n"
    "  precise float f = m - 1.0, hf = 0.5 * f * f, s = f / (2.0 + f), z = s * s;\n"
    "  precise float r = z * (0.666666687 + z * (0.400000006 + z * (0.285714298 + z * "
    "0.222222224)));\n"
    "  precise float l = f - (hf - s * (hf + r));\n"
    "  return vec2(float(k), l);\n"
    "}";
/* the special cases, then %s: the result from k and l */
static const char log_float[] =
    "float %s(float x) {\n"
    "  if (isnan(x) || (isinf(x) && x > 0.0)) return x;\n"
    "  if (x == 0.0) return uintBitsToFloat(0xff800000u);\n"
    "  if (x < 0.0) return uintBitsToFloat(0x7fc00000u);\n"
    "  vec2 kl = _cl_logr(x);\n"
    "  precise float k = kl.x, l = kl.y, r = %s;\n"
    "  return r;\n"
    "}";

/* atan and atan2 on float within about 2 ulp (lavapipe's atan has an
 * absolute error near 1e-6: hundreds of ulp). _cl_atanr: atan(t) for
 * t >= 0 (inf included): 1/t above 1 (pi/2 minus), t' = (t sqrt3 - 1) /
 * (sqrt3 + t) above tan(pi/12) (pi/6 plus), then the odd series to t^15
 * (truncated below 2^-30 for |t| <= tan(pi/12)); constants with low parts. */
static const char atan_reduce[] =
    "float _cl_atanr(float t) {\n"
    "  precise float a = t;\n"
    "  bool inv = a > 1.0;\n"
    "  if (inv) a = 1.0 / a;\n"
    "  bool mid = a > 0.267949194;\n"
    "  if (mid) a = (a * 1.73205078 - 1.0) / (1.73205078 + a);\n"
    "  precise float z = a * a;\n"
    "  precise float p = a + a * z * (-0.333333343 + z * (0.200000003 + z * (-0.142857149 + z * "
    "(0.111111112 + z * (-0.0909090936 + z * (0.0769230798 + z * -0.0666666701))))));\n"
    "  if (mid) p = 0.52359879 + (p + -1.45704631e-08);\n"
    "  if (inv) p = 1.57079637 + (-4.37113883e-08 - p);\n"
    "  return p;\n"
    "}";
static const char atan_float[] =
    "float _cl_atan(float x) {\n"
    "  return uintBitsToFloat(floatBitsToUint(_cl_atanr(abs(x))) | (floatBitsToUint(x) & "
    "0x80000000u));\n"
    "}";
static const char atan2_float[] =
    "float _cl_atan2(float y, float x) {\n"
    "  if (isnan(x) || isnan(y)) return x + y;\n"
    "  float ax = abs(x), ay = abs(y);\n"
    "  precise float r;\n"
    "  if (isinf(ax) && isinf(ay)) r = 0.785398185;\n"
    "  else if (ay <= ax) r = ax == 0.0 ? 0.0 : _cl_atanr(ay / ax);\n"
    "  else r = 1.57079637 + (-4.37113883e-08 - _cl_atanr(ax / ay));\n"
    "  if (floatBitsToUint(x) >= 0x80000000u) r = 3.14159274 + (-8.74227766e-08 - r);\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(y) & 0x80000000u));\n"
    "}";

static const char asin_float[] =
    "float _cl_asin(float x) { return _cl_atan2(x, sqrt((1.0 - x) * (1.0 + x))); }";
static const char acos_float[] =
    "float _cl_acos(float x) { return _cl_atan2(sqrt((1.0 - x) * (1.0 + x)), x); }";

/* Defines _cl_atanr and, when two, _cl_atan2 (scalars) for the helpers
 * that call them. */
static void atan_helpers(glsl_emitter *e, const kl_type *f, bool two) {
  glsl_helper(e, "_cl_atanr", f, f, f, 1, NULL, atan_reduce, NULL);
  if (two) glsl_helper(e, "_cl_atan2", f, f, f, 2, NULL, atan2_float, NULL);
}

/* Defines the float atan, atan2, asin or acos helper for type t (a float
 * scalar or vector) with what it calls; gives its name. */
static const char *inverse_trig(glsl_emitter *e, kl_builtin_id id, const kl_type *t) {
  const kl_type *f = kl_type_scalar_of(t);
  atan_helpers(e, f, id != KL_BUILTIN_ATAN);
  if (id == KL_BUILTIN_ATAN) {
    glsl_helper(e, "_cl_atan", t, f, f, 1, NULL, atan_float, NULL);
    return "_cl_atan";
  }
  if (id == KL_BUILTIN_ATAN2) {
    glsl_helper(e, "_cl_atan2", t, f, f, 2, NULL, atan2_float, NULL);
    return "_cl_atan2";
  }
  bool is_asin = id == KL_BUILTIN_ASIN;
  const char *name = is_asin ? "_cl_asin" : "_cl_acos";
  glsl_helper(e, name, t, f, f, 1, NULL, is_asin ? asin_float : acos_float, NULL);
  return name;
}

/* exp on float within about 1 ulp (lavapipe's is exp2(x * log2 e): 9 ulp):
 * x = k ln 2 + r, |r| <= ln(2)/2, with ln 2 split so that k ln2_hi is exact
 * and x - k ln2_hi too; e^r by its series to r^7 (truncated below 2^-27);
 * 2^k in two exact factors so that a subnormal result rounds once. */
static const char exp_float[] =
    "float _cl_exp(float x) {\n"
    "  if (isnan(x)) return x;\n"
    "  if (x > 89.0) return uintBitsToFloat(0x7f800000u);\n"
    "  if (x < -104.0) return 0.0;\n"
    "  precise float k = floor(x * 1.44269502 + 0.5);\n"
    "  precise float r = (x - k * 0.693145752) - k * 1.42860677e-06;\n"
    "  precise float p = 1.0 + r * (1.0 + r * (0.5 + r * (0.166666672 + r * (0.0416666679 + r * "
    "(0.00833333377 + r * (0.00138888892 + r * 0.000198412701))))));\n"
    "  int k1 = int(k) / 2, k2 = int(k) - k1;\n"
    "  precise float y = p * uintBitsToFloat(uint(k1 + 127) << 23) * uintBitsToFloat(uint(k2 + "
    "127) << 23);\n"
    "  return y;\n"
    "}";

/* log1p and expm1 from the accurate log and exp: the rounding of u = 1 + x
 * (u = e^x) is undone by the factor x / (u - 1) (log u / (u - 1)), exact in
 * the subtraction (Kahan's way). */
static const char log1p_float[] =
    "float _cl_log1p(float x) {\n"
    "  precise float u = 1.0 + x;\n"
    "  if (u == 1.0 || isnan(x) || (isinf(x) && x > 0.0)) return x;\n"
    "  if (x <= -1.0) return _cl_log(u + 0.0 * x);\n"
    "  precise float r = _cl_log(u) * (x / (u - 1.0));\n"
    "  return r;\n"
    "}";
static const char expm1_float[] =
    "float _cl_expm1(float x) {\n"
    "  if (isnan(x) || abs(x) < 5.96046448e-08) return x;\n"
    "  if (x > 88.0) return _cl_exp(x);\n"
    "  if (x < -18.0) return -1.0;\n"
    "  precise float u = _cl_exp(x);\n"
    "  if (u == 1.0) return x;\n"
    "  precise float um = u - 1.0;\n"
    "  if (um == -1.0) return -1.0;\n"
    "  precise float r = um * (x / _cl_log(u));\n"
    "  return r;\n"
    "}";

/* sinh, cosh and tanh on float within about 3 ulp (lavapipe's are hundreds
 * to thousands of ulp off near 0): from expm1 below 9 (no cancellation),
 * from exp(|x| / 2) squared above (so that e^|x| / 2 does not overflow
 * first). */
static const char sinh_float[] =
    "float _cl_sinh(float x) {\n"
    "  precise float a = abs(x), r;\n"
    "  if (isnan(x) || a < 2.44140625e-04) return x;\n"
    "  if (a < 9.0) { precise float m = _cl_expm1(a); r = 0.5 * (m + m / (m + 1.0)); }\n"
    "  else { precise float h = _cl_exp(0.5 * a); r = (0.5 * h) * h; }\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));\n"
    "}";
static const char cosh_float[] =
    "float _cl_cosh(float x) {\n"
    "  precise float a = abs(x), r;\n"
    "  if (isnan(x)) return x;\n"
    "  if (a < 9.0) { precise float u = _cl_exp(a); r = 0.5 * (u + 1.0 / u); }\n"
    "  else { precise float h = _cl_exp(0.5 * a); r = (0.5 * h) * h; }\n"
    "  return r;\n"
    "}";
static const char tanh_float[] =
    "float _cl_tanh(float x) {\n"
    "  precise float a = abs(x), r;\n"
    "  if (isnan(x) || a < 2.44140625e-04) return x;\n"
    "  if (a > 9.1) r = 1.0;\n"
    "  else { precise float m = _cl_expm1(2.0 * a); r = m / (m + 2.0); }\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));\n"
    "}";

/* asinh, acosh and atanh on float from the accurate log1p (lavapipe's are
 * up to 31944 ulp off near 0): no cancellation below 4096, log x + ln 2
 * above (where x^2 would overflow first). */
static const char asinh_float[] =
    "float _cl_asinh(float x) {\n"
    "  precise float a = abs(x), r;\n"
    "  if (isnan(x) || isinf(x) || a < 2.44140625e-04) return x;\n"
    "  if (a > 4096.0) r = _cl_log(a) + 0.693147182;\n"
    "  else r = _cl_log1p(a + a * a / (1.0 + sqrt(1.0 + a * a)));\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));\n"
    "}";
static const char acosh_float[] =
    "float _cl_acosh(float x) {\n"
    "  if (isnan(x) || x < 1.0) return isnan(x) ? x : uintBitsToFloat(0x7fc00000u);\n"
    "  if (isinf(x)) return x;\n"
    "  if (x > 4096.0) { precise float r = _cl_log(x) + 0.693147182; return r; }\n"
    "  precise float t = x - 1.0, r = _cl_log1p(t + sqrt(2.0 * t + t * t));\n"
    "  return r;\n"
    "}";
static const char atanh_float[] =
    "float _cl_atanh(float x) {\n"
    "  precise float a = abs(x);\n"
    "  if (isnan(x) || a < 2.44140625e-04) return x;\n"
    "  if (a > 1.0) return uintBitsToFloat(0x7fc00000u);\n"
    "  precise float r = 0.5 * _cl_log1p(2.0 * a / (1.0 - a));\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));\n"
    "}";

/* The text of _cl_log, _cl_log2 or _cl_log10 (float). */
static const char *log_function(glsl_emitter *e, kl_builtin_id id) {
  const char *name = id == KL_BUILTIN_LOG    ? "_cl_log"
                     : id == KL_BUILTIN_LOG2 ? "_cl_log2"
                                             : "_cl_log10";
  /* k times a constant split so that its high part times k is exact */
  const char *combine = id == KL_BUILTIN_LOG ? "k * 0.693145752 + (l + k * 1.42860677e-06)"
                        : id == KL_BUILTIN_LOG2
                            ? "k + l * 1.44269502"
                            : "k * 0.30102539 + (l * 0.434294492 + k * 4.60503907e-06)";
  return kl_format(e->ctx, log_float, name, combine);
}

/* The float-math helpers above, with the helpers each calls: defining one
 * defines its callees first (GLSL wants a function before its first call). */
typedef struct float_math_helper {
  kl_builtin_id builtin; /* KL_BUILTIN_COUNT: internal to the others */
  const char *name;
  const char *text; /* NULL: the log family, printed by log_function() */
  const char *calls[2];
} float_math_helper;

static const float_math_helper float_math_helpers[] = {
    {KL_BUILTIN_COUNT, "_cl_logr", log_reduce, {NULL, NULL}},
    {KL_BUILTIN_LOG, "_cl_log", NULL, {"_cl_logr", NULL}},
    {KL_BUILTIN_LOG2, "_cl_log2", NULL, {"_cl_logr", NULL}},
    {KL_BUILTIN_LOG10, "_cl_log10", NULL, {"_cl_logr", NULL}},
    {KL_BUILTIN_EXP, "_cl_exp", exp_float, {NULL, NULL}},
    {KL_BUILTIN_LOG1P, "_cl_log1p", log1p_float, {"_cl_log", NULL}},
    {KL_BUILTIN_EXPM1, "_cl_expm1", expm1_float, {"_cl_exp", "_cl_log"}},
    {KL_BUILTIN_SINH, "_cl_sinh", sinh_float, {"_cl_exp", "_cl_expm1"}},
    {KL_BUILTIN_COSH, "_cl_cosh", cosh_float, {"_cl_exp", NULL}},
    {KL_BUILTIN_TANH, "_cl_tanh", tanh_float, {"_cl_expm1", NULL}},
    {KL_BUILTIN_ASINH, "_cl_asinh", asinh_float, {"_cl_log", "_cl_log1p"}},
    {KL_BUILTIN_ACOSH, "_cl_acosh", acosh_float, {"_cl_log", "_cl_log1p"}},
    {KL_BUILTIN_ATANH, "_cl_atanh", atanh_float, {"_cl_log1p", NULL}},
};

static const float_math_helper *float_math_find(const char *name, kl_builtin_id builtin) {
  for (size_t i = 0; i < sizeof float_math_helpers / sizeof float_math_helpers[0]; i++) {
    const float_math_helper *h = &float_math_helpers[i];
    if (name ? strcmp(h->name, name) == 0 : h->builtin == builtin) return h;
  }
  return NULL;
}

static const char *float_math_text(glsl_emitter *e, const float_math_helper *h) {
  return h->text ? h->text : log_function(e, h->builtin);
}

/* Defines, as scalar float functions, everything `h` calls. */
static void float_math_define_callees(glsl_emitter *e, const float_math_helper *h) {
  const kl_type *f = kl_type_scalar(e->ctx, KL_TYPE_FLOAT);
  for (int i = 0; i < 2 && h->calls[i]; i++) {
    const float_math_helper *callee = float_math_find(h->calls[i], KL_BUILTIN_COUNT);
    float_math_define_callees(e, callee);
    glsl_helper(e, callee->name, f, f, f, 1, NULL, float_math_text(e, callee), NULL);
  }
}

/* The helper behind a float builtin, its callees defined; the caller
 * defines the helper itself for the argument's shape. */
static const float_math_helper *float_math_prepare(glsl_emitter *e, kl_builtin_id builtin) {
  const float_math_helper *h = float_math_find(NULL, builtin);
  float_math_define_callees(e, h);
  return h;
}

static const char fmod_float[] =
    "float _cl_fmod(float x, float y) { uint ux = floatBitsToUint(x), uy = floatBitsToUint(y); "
    "uint sign = ux & 0x80000000u; ux &= 0x7fffffffu; uy &= 0x7fffffffu; "
    "if (uy == 0u || ux >= 0x7f800000u || uy > 0x7f800000u) return uintBitsToFloat(0x7fc00000u); "
    "if (ux < uy) return x; if (ux == uy) return uintBitsToFloat(sign); "
    "int ex = int(ux >> 23), ey = int(uy >> 23); uint mx, my; "
    "if (ex == 0) { mx = ux; ex = 1; while (mx < 0x800000u) { mx <<= 1; ex--; } } "
    "else mx = (ux & 0x7fffffu) | 0x800000u; "
    "if (ey == 0) { my = uy; ey = 1; while (my < 0x800000u) { my <<= 1; ey--; } } "
    "else my = (uy & 0x7fffffu) | 0x800000u; "
    "for (; ex > ey; ex--) { if (mx >= my) mx -= my; mx <<= 1; } "
    "if (mx >= my) mx -= my; if (mx == 0u) return uintBitsToFloat(sign); "
    "while (mx < 0x800000u) { mx <<= 1; ex--; } "
    "uint r = ex > 0 ? (mx - 0x800000u) | (uint(ex) << 23) : mx >> uint(1 - ex); "
    "return uintBitsToFloat(r | sign); }";
static const char fmod_double[] =
    "double _cl_fmod(double x, double y) { uint64_t ux = doubleBitsToUint64(x), uy = "
    "doubleBitsToUint64(y); uint64_t sign = ux & 0x8000000000000000ul; ux &= "
    "0x7ffffffffffffffful; uy &= 0x7ffffffffffffffful; const uint64_t top = 0x10000000000000ul; "
    "if (uy == 0ul || ux >= 0x7ff0000000000000ul || uy > 0x7ff0000000000000ul) return "
    "uint64BitsToDouble(0x7ff8000000000000ul); "
    "if (ux < uy) return x; if (ux == uy) return uint64BitsToDouble(sign); "
    "int ex = int(ux >> 52), ey = int(uy >> 52); uint64_t mx, my; "
    "if (ex == 0) { mx = ux; ex = 1; while (mx < top) { mx <<= 1; ex--; } } "
    "else mx = (ux & (top - 1ul)) | top; "
    "if (ey == 0) { my = uy; ey = 1; while (my < top) { my <<= 1; ey--; } } "
    "else my = (uy & (top - 1ul)) | top; "
    "for (; ex > ey; ex--) { if (mx >= my) mx -= my; mx <<= 1; } "
    "if (mx >= my) mx -= my; if (mx == 0ul) return uint64BitsToDouble(sign); "
    "while (mx < top) { mx <<= 1; ex--; } "
    "uint64_t r = ex > 0 ? (mx - top) | (uint64_t(ex) << 52) : mx >> uint(1 - ex); "
    "return uint64BitsToDouble(r | sign); }";

/* remquo on float, exact (x - y * roundEven(x / y) is not): the remainder
 * of |x| by 2|y| (exact fmod) is brought to the nearest multiple of |y|,
 * ties to the even quotient, with exact subtractions (Sterbenz); the low
 * three bits of the quotient come from fmod by 2, 4 and 8 times |y|
 * (scaled down by 2^-32 first when |y| is so large that 8|y| overflows);
 * a non-zero quotient whose three low bits are 0 gives 8, to keep its
 * sign. */
static const char remquo_float[] =
    "float _cl_remquo(float x, float y, out int q) { q = 0; "
    "if (isnan(x) || isnan(y) || isinf(x) || y == 0.0) return uintBitsToFloat(0x7fc00000u); "
    "if (isinf(y)) return x; "
    "float ax = abs(x), ay = abs(y), sx = ax, sy = ay; "
    "if (ay > 4.0e37) { sx = ax * 2.3283064e-10; sy = ay * 2.3283064e-10; } "
    "int low = (_cl_fmod(sx, sy * 8.0) >= sy * 4.0 ? 4 : 0) | (_cl_fmod(sx, sy * 4.0) >= sy * 2.0 "
    "? 2 "
    ": 0); "
    "float r = ay <= 1.7014117e38 ? _cl_fmod(ax, ay + ay) : ax; int m = 0; "
    "if (r + r > ay) { r -= ay; m = 1; if (r + r >= ay) { r -= ay; m = 2; } } "
    "int n = (low + m) & 7; "
    "if (n == 0 && (m > 0 || (ay <= 1.7014117e38 && ax >= ay + ay))) n = 8; /* keeps the sign */ "
    "q = (x < 0.0) != (y < 0.0) ? -n : n; "
    "return x < 0.0 ? -r : r; }";

static void exact_remainder(glsl_emitter *e) {
  const kl_type *f = kl_type_scalar(e->ctx, KL_TYPE_FLOAT);
  glsl_helper(e, "_cl_fmod", f, f, f, 2, NULL, fmod_float, NULL);
  if (glsl_need(e, "_cl_remquo/float")) {
    klg_puts(&e->helpers, remquo_float);
    klg_puts(&e->helpers, "\n");
  }
}

/* The object an out-pointer argument names, as a GLSL lvalue. */
const char *glsl_out_lvalue(glsl_emitter *e, const kl_node *p) {
  klg_buf *saved = e->out;
  klg_buf tmp;
  klg_init(&tmp, e->ctx);
  e->out = &tmp;
  const kl_node *s = klg_strip_convert(p);
  if (s->kind == KL_EXPR_UNARY && s->op == KL_OP_ADDRESS_OF && !klg_is_pointer(s->lhs->type))
    glsl_expr_mode(e, s->lhs, ACCESS_WRITE);
  else
    glsl_element(e, p, NULL, ACCESS_WRITE, p->location);
  e->out = saved;
  return klg_text(&tmp);
}

/* fract, modf, sincos, frexp, remquo: a result and an out-pointer. */
void glsl_out_builtin(glsl_emitter *e, const kl_node *n) {
  const kl_builtin *b = n->builtin;
  const kl_node *x = n->args, *y = x->next;
  const char *t = glsl_type(e, n->type, n->location);
  const char *xs = glsl_text_of(e, x);
  if (kl_type_scalar_of(n->type)->kind == KL_TYPE_DOUBLE &&
      (b->id == KL_BUILTIN_SINCOS || b->id == KL_BUILTIN_REMQUO || b->id == KL_BUILTIN_LGAMMA_R ||
       b->id == KL_BUILTIN_MODF || b->id == KL_BUILTIN_FRACT)) {
    if (!glsl_fp64_out_call(e, n))
      glsl_fail(e, n->location,
                kl_format(e->ctx, "%s on double (GLSL has it for float only)", b->canonical));
    return;
  }
  switch (b->id) {
    case KL_BUILTIN_MODF:
      klg_printf(e->out, "modf(%s, %s)", xs, glsl_out_lvalue(e, y));
      return;
    case KL_BUILTIN_FREXP:
      klg_printf(e->out, "frexp(%s, %s)", xs, glsl_out_lvalue(e, y));
      return;
    case KL_BUILTIN_FRACT: {
      const char *name = "_cl_fract";
      if (glsl_need(e, kl_format(e->ctx, "_cl_fract/%s", t))) {
        const char *limit = kl_type_scalar_of(n->type)->kind == KL_TYPE_DOUBLE
                                ? "0.99999999999999989lf"
                                : "0.99999994";
        klg_printf(&e->helpers,
                   "%s _cl_fract(%s x, out %s i) { i = floor(x); return min(x - i, %s(%s)); }\n", t,
                   t, t, t, limit);
      }
      klg_printf(e->out, "%s(%s, %s)", name, xs, glsl_out_lvalue(e, y));
      return;
    }
    case KL_BUILTIN_SINCOS:
      if (glsl_need(e, kl_format(e->ctx, "_cl_sincos/%s", t)))
        klg_printf(&e->helpers, "%s _cl_sincos(%s x, out %s c) { c = cos(x); return sin(x); }\n", t,
                   t, t);
      klg_printf(e->out, "_cl_sincos(%s, %s)", xs, glsl_out_lvalue(e, y));
      return;
    case KL_BUILTIN_REMQUO: {
      const kl_node *q = y->next;
      const char *qt = glsl_type(e, q->type->element, n->location);
      if (kl_type_scalar_of(n->type)->kind != KL_TYPE_FLOAT) {
        glsl_fail(e, n->location, "remquo on this type");
        return;
      }
      exact_remainder(e);
      if (klg_is_vector(n->type) && glsl_need(e, kl_format(e->ctx, "_cl_remquo/%s", t)))
        klg_printf(
            &e->helpers,
            "%s _cl_remquo(%s x, %s y, out %s q) { %s r; for (int i = 0; i < %d; i++) { int k; "
            "r[i] = _cl_remquo(x[i], y[i], k); q[i] = k; } return r; }\n",
            t, t, t, qt, t, n->type->length);
      klg_printf(e->out, "_cl_remquo(%s, %s, %s)", xs, glsl_text_of(e, y), glsl_out_lvalue(e, q));
      return;
    }
    default:
      glsl_fail(e, n->location, kl_format(e->ctx, "%s (GLSL has no such function)", b->canonical));
      return;
  }
}

/* ------------------------------------------------- builtins by table */

/* Builtins that are one GLSL function of the same arguments: its name
 * (NULL: the OpenCL name), and whether it takes floating types only. */
static const struct {
  kl_builtin_id id;
  const char *glsl;
  bool float_only;
} glsl_same_calls[] = {
    {KL_BUILTIN_COS, NULL, true},
    {KL_BUILTIN_EXP2, NULL, true},
    {KL_BUILTIN_SIN, NULL, true},
    {KL_BUILTIN_TAN, NULL, true},
    {KL_BUILTIN_DEGREES, NULL, true},
    {KL_BUILTIN_RADIANS, NULL, true},
    {KL_BUILTIN_CEIL, NULL, false},
    {KL_BUILTIN_FLOOR, NULL, false},
    {KL_BUILTIN_SQRT, NULL, false},
    {KL_BUILTIN_TRUNC, NULL, false},
    {KL_BUILTIN_SIGN, NULL, false},
    {KL_BUILTIN_STEP, NULL, false},
    {KL_BUILTIN_SMOOTHSTEP, NULL, false},
    {KL_BUILTIN_CROSS, NULL, false}, /* of 4-vectors: glsl_math_builtin */
    {KL_BUILTIN_DOT, NULL, false},
    {KL_BUILTIN_DISTANCE, NULL, false},
    {KL_BUILTIN_LENGTH, NULL, false},
    {KL_BUILTIN_NORMALIZE, NULL, false},
    {KL_BUILTIN_LDEXP, NULL, false},
    {KL_BUILTIN_FAST_DISTANCE, "distance", false},
    {KL_BUILTIN_FAST_LENGTH, "length", false},
    {KL_BUILTIN_FAST_NORMALIZE, "normalize", false},
    {KL_BUILTIN_FABS, "abs", false},
    {KL_BUILTIN_FMAX, "max", false},
    {KL_BUILTIN_FMIN, "min", false},
    {KL_BUILTIN_MAX, NULL, false},
    {KL_BUILTIN_MIN, NULL, false},
    {KL_BUILTIN_CLAMP, NULL, false},
    {KL_BUILTIN_MIX, NULL, false},
    {KL_BUILTIN_RINT, "roundEven", false},
    {KL_BUILTIN_RSQRT, "inversesqrt", false},
    {KL_BUILTIN_POWR, "pow", true},
};

/* Which of a helper's two templates a call takes: the second one when
 * the argument's scalar type is double, signed, or 64 bits wide. */
typedef enum glsl_template_choice {
  GLSL_ONE_TEMPLATE,
  GLSL_SECOND_FOR_DOUBLE,
  GLSL_SECOND_FOR_SIGNED,
  GLSL_SECOND_FOR_64_BITS,
} glsl_template_choice;

/* Builtins GLSL lacks, as a helper function over the scalar type (a
 * template of glsl_fill); `int_second`: the second argument is an int. */
static const struct {
  kl_builtin_id id;
  const char *name;
  bool float_only, int_second;
  glsl_template_choice choice;
  const char *templates[2];
} glsl_helper_builtins[] = {
    {KL_BUILTIN_FDIM,
     "_cl_fdim",
     false,
     false,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_fdim($T x, $T y) { return x > y ? x - y : (isnan(x) || isnan(y) ? x + y : $T(0)); "
      "}"}},
    {KL_BUILTIN_ROUND,
     "_cl_round",
     false,
     false,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_round($T x) { $T t = trunc(x); return abs(x - t) >= $T(0.5) ? t + sign(x) : t; }"}},
    {KL_BUILTIN_COPYSIGN,
     "_cl_copysign",
     false,
     false,
     GLSL_SECOND_FOR_DOUBLE,
     {"$T _cl_copysign($T x, $T y) { return uintBitsToFloat((floatBitsToUint(x) & "
      "0x7fffffffu) | (floatBitsToUint(y) & 0x80000000u)); }",
      "$T _cl_copysign($T x, $T y) { uvec2 a = unpackDouble2x32(x), b = "
      "unpackDouble2x32(y); a.y = (a.y & 0x7fffffffu) | (b.y & 0x80000000u); return "
      "packDouble2x32(a); }"}},
    {KL_BUILTIN_MAXMAG,
     "_cl_maxmag",
     false,
     false,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_maxmag($T x, $T y) { $T a = abs(x), b = abs(y); return a > b ? x : (b > a ? y : "
      "max(x, y)); }"}},
    {KL_BUILTIN_MINMAG,
     "_cl_minmag",
     false,
     false,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_minmag($T x, $T y) { $T a = abs(x), b = abs(y); return a < b ? x : (b < a ? y : "
      "min(x, y)); }"}},
    {KL_BUILTIN_POW,
     "_cl_pow",
     true,
     false,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_pow($T x, $T y) { if (y == $T(0)) return $T(1); if (x > $T(0)) return pow(x, y); "
      "if (x == $T(0)) return y > $T(0) ? $T(0) : uintBitsToFloat(0x7f800000u); "
      "if (y != trunc(y)) return uintBitsToFloat(0x7fc00000u); $T r = pow(-x, y); return "
      "mod(y, $T(2)) != $T(0) ? -r : r; }"}},
    {KL_BUILTIN_POWN,
     "_cl_pown",
     true,
     true,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_pown($T x, int n) { if (n == 0) return $T(1); $T r = x == $T(0) ? (n > 0 ? $T(0) "
      ": uintBitsToFloat(0x7f800000u)) : pow(abs(x), $T(n)); "
      "return ((n & 1) != 0 && x < $T(0)) ? -r : r; }"}},
    {KL_BUILTIN_ROOTN,
     "_cl_rootn",
     true,
     true,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_rootn($T x, int n) { if (x < $T(0) && (n & 1) == 0) return "
      "uintBitsToFloat(0x7fc00000u); $T r = pow(abs(x), $T(1) / $T(n)); return x < $T(0) ? -r "
      ": r; }"}},
    {KL_BUILTIN_LOGB,
     "_cl_logb",
     false,
     false,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_logb($T x) { int e; frexp(x, e); return $T(e - 1); }"}},
    {KL_BUILTIN_NEXTAFTER,
     "_cl_nextafter",
     true,
     false,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_nextafter($T x, $T y) { if (isnan(x) || isnan(y)) return x + y; if (x == y) "
      "return y; "
      "if (x == $T(0)) return y > $T(0) ? uintBitsToFloat(1u) : uintBitsToFloat(0x80000001u); "
      "uint b = floatBitsToUint(x); b = ((x < y) == (x > $T(0))) ? b + 1u : b - 1u; return "
      "uintBitsToFloat(b); }"}},
    {KL_BUILTIN_ADD_SAT,
     "_cl_add_sat",
     false,
     false,
     GLSL_SECOND_FOR_SIGNED,
     {"$T _cl_add_sat($T a, $T b) { $T r = $T(a + b); return r < a ? $MAX : r; }",
      "$T _cl_add_sat($T a, $T b) { $T r = $T(a + b); if (b > $T(0) && r < a) return "
      "$MAX; if (b < $T(0) && r > a) return $MIN; return r; }"}},
    {KL_BUILTIN_SUB_SAT,
     "_cl_sub_sat",
     false,
     false,
     GLSL_SECOND_FOR_SIGNED,
     {"$T _cl_sub_sat($T a, $T b) { return a < b ? $T(0) : $T(a - b); }",
      "$T _cl_sub_sat($T a, $T b) { $T r = $T(a - b); if (b < $T(0) && r < a) return "
      "$MAX; if (b > $T(0) && r > a) return $MIN; return r; }"}},
    {KL_BUILTIN_HADD,
     "_cl_hadd",
     false,
     false,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_hadd($T a, $T b) { return $T((a >> $T(1)) + (b >> $T(1)) + (a & b & $T(1))); }"}},
    {KL_BUILTIN_RHADD,
     "_cl_rhadd",
     false,
     false,
     GLSL_ONE_TEMPLATE,
     {"$T _cl_rhadd($T a, $T b) { return $T((a >> $T(1)) + (b >> $T(1)) + ((a | b) & $T(1))); "
      "}"}},
    {KL_BUILTIN_CLZ,
     "_cl_clz",
     false,
     false,
     GLSL_SECOND_FOR_64_BITS,
     {"$T _cl_clz($T x) { uint u = uint($U(x)); return $T(u == 0u ? $W : $W - 1 - "
      "findMSB(u)); }",
      "$T _cl_clz($T x) { uvec2 h = unpackUint2x32(uint64_t(x)); return $T(h.y != 0u "
      "? 31 - findMSB(h.y) : (h.x != 0u ? 63 - findMSB(h.x) : 64)); }"}},
    {KL_BUILTIN_POPCOUNT,
     "_cl_popcount",
     false,
     false,
     GLSL_SECOND_FOR_64_BITS,
     {"$T _cl_popcount($T x) { return $T(bitCount(uint($U(x)))); }",
      "$T _cl_popcount($T x) { uvec2 h = unpackUint2x32(uint64_t(x)); "
      "return $T(bitCount(h.x) + bitCount(h.y)); }"}},
    {KL_BUILTIN_ROTATE,
     "_cl_rotate",
     false,
     false,
     GLSL_SECOND_FOR_64_BITS,
     {"$T _cl_rotate($T v, $T n) { uint u = uint($U(v)); uint k = uint($U(n)) & uint($W "
      "- 1); return k == 0u ? v : $T($U((u << k) | (u >> (uint($W) - k)))); }",
      "$T _cl_rotate($T v, $T n) { uint64_t u = uint64_t(v); uint k = uint(uint64_t(n) & "
      "63ul); return k == 0u ? v : $T((u << k) | (u >> (64u - k))); }"}},
};

static bool glsl_second_template(glsl_template_choice choice, const kl_type *scalar) {
  switch (choice) {
    case GLSL_SECOND_FOR_DOUBLE:
      return scalar->kind == KL_TYPE_DOUBLE;
    case GLSL_SECOND_FOR_SIGNED:
      return kl_type_is_signed(scalar);
    case GLSL_SECOND_FOR_64_BITS:
      return glsl_bits(scalar) == 64;
    default:
      return false;
  }
}

glsl_builtin_result glsl_table_builtin(glsl_emitter *e, const kl_node *n, glsl_template *t) {
  const kl_builtin *b = n->builtin;
  for (size_t i = 0; i < sizeof glsl_same_calls / sizeof glsl_same_calls[0]; i++) {
    if (glsl_same_calls[i].id != b->id) continue;
    if (glsl_same_calls[i].float_only && !glsl_float_only(e, n)) return GLSL_BUILTIN_DONE;
    glsl_call(e, glsl_same_calls[i].glsl ? glsl_same_calls[i].glsl : b->canonical, n->args);
    return GLSL_BUILTIN_DONE;
  }
  const kl_type *as = kl_type_scalar_of(n->args->type);
  for (size_t i = 0; i < sizeof glsl_helper_builtins / sizeof glsl_helper_builtins[0]; i++) {
    if (glsl_helper_builtins[i].id != b->id) continue;
    if (glsl_helper_builtins[i].float_only && !glsl_float_only(e, n)) return GLSL_BUILTIN_DONE;
    t->name = glsl_helper_builtins[i].name;
    t->text =
        glsl_helper_builtins[i].templates[glsl_second_template(glsl_helper_builtins[i].choice, as)];
    if (glsl_helper_builtins[i].int_second) t->second = kl_type_scalar(e->ctx, KL_TYPE_INT);
    return GLSL_BUILTIN_TEMPLATE;
  }
  return GLSL_BUILTIN_NOT_HERE;
}

/* ------------------------------------------------ builtins with code */

/* exp10, log10, expm1, log1p, the pi-scaled trigonometry, cbrt, hypot:
 * float only, from GLSL's functions. */
static glsl_builtin_result glsl_derived_math(glsl_emitter *e, const kl_node *n, glsl_template *t) {
  klg_buf *o = e->out;
  const kl_builtin *b = n->builtin;
  const kl_node *a0 = n->args, *a1 = a0->next;
  const kl_type *rt = n->type;
  if (!glsl_float_only(e, n)) return GLSL_BUILTIN_DONE;
  const char *x = glsl_text_of(e, a0);
  const char *ty = glsl_type(e, rt, n->location);
  switch (b->id) {
    case KL_BUILTIN_EXP10:
      klg_printf(o, "exp2((%s) * 3.32192809)", x);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_LOG10:
      klg_printf(o, "(log2(%s) * 0.301029996)", x);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_EXPM1:
    case KL_BUILTIN_LOG1P: {
      const kl_type *f = kl_type_scalar_of(rt);
      const float_math_helper *helper = float_math_prepare(e, b->id);
      glsl_helper(e, helper->name, rt, f, f, 1, NULL, float_math_text(e, helper), NULL);
      klg_printf(o, "%s(%s)", helper->name, x);
      return GLSL_BUILTIN_DONE;
    }
    case KL_BUILTIN_SINPI:
      klg_printf(o, "sin((%s) * 3.14159265)", x);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_COSPI:
      klg_printf(o, "cos((%s) * 3.14159265)", x);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_TANPI:
      klg_printf(o, "tan((%s) * 3.14159265)", x);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_ACOSPI:
      klg_printf(o, "(%s(%s) * 0.318309886)", inverse_trig(e, KL_BUILTIN_ACOS, rt), x);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_ASINPI:
      klg_printf(o, "(%s(%s) * 0.318309886)", inverse_trig(e, KL_BUILTIN_ASIN, rt), x);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_ATANPI:
      klg_printf(o, "(%s(%s) * 0.318309886)", inverse_trig(e, KL_BUILTIN_ATAN, rt), x);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_CBRT:
      klg_printf(o, "(sign(%s) * pow(abs(%s), %s(1.0 / 3.0)))", x, x, ty);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_HYPOT: {
      const char *y = glsl_text_of(e, a1);
      if (!klg_is_vector(rt)) {
        klg_printf(o, "length(vec2(%s, %s))", x, y);
        return GLSL_BUILTIN_DONE;
      }
      t->name = "_cl_hypot";
      t->text = "$T _cl_hypot($T x, $T y) { return length(vec2(x, y)); }";
      return GLSL_BUILTIN_TEMPLATE;
    }
    default: /* ATAN2PI */
      klg_printf(o, "(%s(%s, %s) * 0.318309886)", inverse_trig(e, KL_BUILTIN_ATAN2, rt), x,
                 glsl_text_of(e, a1));
      return GLSL_BUILTIN_DONE;
  }
}

/* The float helpers more accurate than the drivers' (float_math_helpers). */
static glsl_builtin_result glsl_float_helper(glsl_emitter *e, kl_builtin_id id, glsl_template *t) {
  const float_math_helper *helper = float_math_prepare(e, id);
  t->name = helper->name;
  t->text = float_math_text(e, helper);
  return GLSL_BUILTIN_TEMPLATE;
}

/* a * b + c, a / b, 1 / a, exactly as written. */
static void glsl_arithmetic_builtin(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_node *a0 = n->args, *a1 = a0->next, *a2 = a1 ? a1->next : NULL;
  switch (n->builtin->id) {
    case KL_BUILTIN_MAD:
      klg_puts(o, "(");
      glsl_expr(e, a0);
      klg_puts(o, " * ");
      glsl_expr(e, a1);
      klg_puts(o, " + ");
      glsl_expr(e, a2);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_DIVIDE:
      klg_puts(o, "(");
      glsl_expr(e, a0);
      klg_puts(o, " / ");
      glsl_expr(e, a1);
      klg_puts(o, ")");
      return;
    default: /* RECIP */
      klg_printf(o, "(%s(1) / ", glsl_type(e, n->type, n->location));
      glsl_expr(e, a0);
      klg_puts(o, ")");
      return;
  }
}

glsl_builtin_result glsl_math_builtin(glsl_emitter *e, const kl_node *n, glsl_template *t) {
  const kl_builtin *b = n->builtin;
  const kl_node *a0 = n->args, *a1 = a0 ? a0->next : NULL;
  const kl_type *rt = n->type;
  const kl_type *as = kl_type_scalar_of(a0->type);
  kl_location at = n->location;
  switch (b->id) {
    /* own atan with asin and acos from it (some drivers' asin and acos are
     * far less precise than OpenCL's 4 ulp, their atan hundreds of ulp) */
    case KL_BUILTIN_ASIN:
    case KL_BUILTIN_ACOS:
    case KL_BUILTIN_ATAN:
    case KL_BUILTIN_ATAN2:
      if (glsl_float_only(e, n)) glsl_call(e, inverse_trig(e, b->id, a0->type), a0);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_EXP:
    case KL_BUILTIN_ASINH:
    case KL_BUILTIN_ACOSH:
    case KL_BUILTIN_ATANH:
    case KL_BUILTIN_SINH:
    case KL_BUILTIN_COSH:
    case KL_BUILTIN_TANH:
      if (!glsl_float_only(e, n)) return GLSL_BUILTIN_DONE;
      return glsl_float_helper(e, b->id, t);
    case KL_BUILTIN_CROSS: /* the 4-vector form; the others are in the table */
      if (rt->length != 4) return GLSL_BUILTIN_NOT_HERE;
      klg_printf(e->out, "%s(cross((%s).xyz, (%s).xyz), 0)", glsl_type(e, rt, at),
                 glsl_text_of(e, a0), glsl_text_of(e, a1));
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_MAD:
    case KL_BUILTIN_DIVIDE:
    case KL_BUILTIN_RECIP:
      glsl_arithmetic_builtin(e, n);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_LOG:
    case KL_BUILTIN_LOG2:
    case KL_BUILTIN_LOG10:
      if (as->kind == KL_TYPE_FLOAT) return glsl_float_helper(e, b->id, t);
      if (b->id == KL_BUILTIN_LOG10) return glsl_derived_math(e, n, t);
      if (glsl_float_only(e, n)) glsl_call(e, b->canonical, a0);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_EXP10:
    case KL_BUILTIN_EXPM1:
    case KL_BUILTIN_LOG1P:
    case KL_BUILTIN_SINPI:
    case KL_BUILTIN_COSPI:
    case KL_BUILTIN_TANPI:
    case KL_BUILTIN_ACOSPI:
    case KL_BUILTIN_ASINPI:
    case KL_BUILTIN_ATANPI:
    case KL_BUILTIN_CBRT:
    case KL_BUILTIN_HYPOT:
    case KL_BUILTIN_ATAN2PI:
      return glsl_derived_math(e, n, t);
    case KL_BUILTIN_FMOD:
      t->name = "_cl_fmod";
      t->text = as->kind == KL_TYPE_DOUBLE ? fmod_double : fmod_float;
      if (as->kind == KL_TYPE_DOUBLE) e->caps |= KL_GLSL_NEEDS_INT64;
      return GLSL_BUILTIN_TEMPLATE;
    case KL_BUILTIN_FMA:
      /* double: correctly rounded where the driver fuses it */
      if (as->kind != KL_TYPE_FLOAT || kl_context_traits(e->ctx).fused_fma_float) {
        glsl_call(e, b->canonical, a0);
        return GLSL_BUILTIN_DONE;
      }
      t->name = "_cl_fma";
      t->text = fma_float;
      return GLSL_BUILTIN_TEMPLATE;
    case KL_BUILTIN_REMAINDER:
      if (as->kind != KL_TYPE_FLOAT) {
        glsl_fail(e, at, kl_format(e->ctx, "remainder on %s", glsl_scalar(e, as, at)));
        return GLSL_BUILTIN_DONE;
      }
      exact_remainder(e);
      t->name = "_cl_remainder";
      t->text = "float _cl_remainder(float x, float y) { int q; return _cl_remquo(x, y, q); }";
      return GLSL_BUILTIN_TEMPLATE;
    case KL_BUILTIN_ILOGB: {
      const char *name = "_cl_ilogb";
      glsl_helper(e, name, a0->type, as, kl_type_scalar(e->ctx, KL_TYPE_INT), 1, NULL,
                  "int _cl_ilogb($T x) { int e; frexp(x, e); return e - 1; }", NULL);
      glsl_call(e, name, a0);
      return GLSL_BUILTIN_DONE;
    }
    case KL_BUILTIN_FRACT:
    case KL_BUILTIN_MODF:
    case KL_BUILTIN_SINCOS:
    case KL_BUILTIN_FREXP:
    case KL_BUILTIN_REMQUO:
    case KL_BUILTIN_LGAMMA_R:
      glsl_out_builtin(e, n);
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_ERF:
    case KL_BUILTIN_ERFC:
    case KL_BUILTIN_LGAMMA:
    case KL_BUILTIN_TGAMMA:
      if (as->kind == KL_TYPE_DOUBLE && glsl_fp64_call(e, n)) return GLSL_BUILTIN_DONE;
      glsl_fail(e, at, kl_format(e->ctx, "%s (GLSL has no such function)", b->canonical));
      return GLSL_BUILTIN_DONE;
    default:
      return GLSL_BUILTIN_NOT_HERE;
  }
}
