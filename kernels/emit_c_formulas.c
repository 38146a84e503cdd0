// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's scalar formulas: the body of each builtin's helper
 * over one element kind, with OpenCL's semantics (emit_c_builtins.c makes
 * the helpers). */
#include <stdlib.h>
#include <string.h>

#include "emit_c_internal.h"
#include "translate.h"

/* Builtins that are a C math library function of the same arguments. */
static const struct {
  kl_builtin_id id;
  const char *function;
  int args;
} kc_libm_calls[] = {
    {KL_BUILTIN_ACOS, "acos", 1},
    {KL_BUILTIN_ACOSH, "acosh", 1},
    {KL_BUILTIN_ASIN, "asin", 1},
    {KL_BUILTIN_ASINH, "asinh", 1},
    {KL_BUILTIN_ATAN, "atan", 1},
    {KL_BUILTIN_ATAN2, "atan2", 2},
    {KL_BUILTIN_ATANH, "atanh", 1},
    {KL_BUILTIN_CBRT, "cbrt", 1},
    {KL_BUILTIN_CEIL, "ceil", 1},
    {KL_BUILTIN_COPYSIGN, "copysign", 2},
    {KL_BUILTIN_COS, "cos", 1},
    {KL_BUILTIN_COSH, "cosh", 1},
    {KL_BUILTIN_ERFC, "erfc", 1},
    {KL_BUILTIN_ERF, "erf", 1},
    {KL_BUILTIN_EXP, "exp", 1},
    {KL_BUILTIN_EXP2, "exp2", 1},
    {KL_BUILTIN_EXP10, "exp10", 1},
    {KL_BUILTIN_EXPM1, "expm1", 1},
    {KL_BUILTIN_FABS, "fabs", 1},
    {KL_BUILTIN_FDIM, "fdim", 2},
    {KL_BUILTIN_FLOOR, "floor", 1},
    {KL_BUILTIN_FMOD, "fmod", 2},
    {KL_BUILTIN_HYPOT, "hypot", 2},
    {KL_BUILTIN_LGAMMA, "lgamma", 1},
    {KL_BUILTIN_LOG, "log", 1},
    {KL_BUILTIN_LOG2, "log2", 1},
    {KL_BUILTIN_LOG10, "log10", 1},
    {KL_BUILTIN_LOG1P, "log1p", 1},
    {KL_BUILTIN_LOGB, "logb", 1},
    {KL_BUILTIN_NEXTAFTER, "nextafter", 2},
    {KL_BUILTIN_POW, "pow", 2},
    {KL_BUILTIN_POWR, "pow", 2},
    {KL_BUILTIN_REMAINDER, "remainder", 2},
    {KL_BUILTIN_RINT, "rint", 1},
    {KL_BUILTIN_ROUND, "round", 1},
    {KL_BUILTIN_SIN, "sin", 1},
    {KL_BUILTIN_SINH, "sinh", 1},
    {KL_BUILTIN_SQRT, "sqrt", 1},
    {KL_BUILTIN_TAN, "tan", 1},
    {KL_BUILTIN_TANH, "tanh", 1},
    {KL_BUILTIN_TGAMMA, "tgamma", 1},
    {KL_BUILTIN_TRUNC, "trunc", 1},
};

/* The width in bits of an integer or float kind (64 for the others). */
static int kc_bits_of(kl_type_kind k) {
  switch (k) {
    case KL_TYPE_CHAR:
    case KL_TYPE_UCHAR:
      return 8;
    case KL_TYPE_SHORT:
    case KL_TYPE_USHORT:
      return 16;
    case KL_TYPE_INT:
    case KL_TYPE_UINT:
    case KL_TYPE_FLOAT:
      return 32;
    default:
      return 64;
  }
}

/* Float builtins the C library lacks or defines otherwise. */
static const char *kc_float_formula(kc_emitter *e, const kl_node *call, kl_type_kind k,
                                    kl_type_kind result) {
  (void)result;
  kl_context *ctx = e->ctx;
  const char *f = k == KL_TYPE_FLOAT ? "f" : "";
  const char *T = kc_scalar_name(k);
  switch (call->builtin->id) {
    case KL_BUILTIN_ACOSPI:
      return kl_format(ctx, "return (%s)(acos((double)a) / M_PI);", T);
    case KL_BUILTIN_ASINPI:
      return kl_format(ctx, "return (%s)(asin((double)a) / M_PI);", T);
    case KL_BUILTIN_ATANPI:
      return kl_format(ctx, "return (%s)(atan((double)a) / M_PI);", T);
    case KL_BUILTIN_ATAN2PI:
      return kl_format(ctx, "return (%s)(atan2((double)a, (double)b) / M_PI);", T);
    case KL_BUILTIN_SINPI:
      return kl_format(ctx,
                       "double r = fmod((double)a, 2.0); return (%s)(r == 0 ? copysign(0.0, "
                       "(double)a) : sin(M_PI * r));",
                       T);
    case KL_BUILTIN_COSPI:
      return kl_format(ctx,
                       "double r = fabs(fmod((double)a, 2.0)); return (%s)(r == 0.5 || r == 1.5 ? "
                       "0.0 : cos(M_PI * r));",
                       T);
    case KL_BUILTIN_TANPI:
      return kl_format(ctx,
                       "double r = fmod((double)a, 1.0); return (%s)(r == 0 ? copysign(0.0, "
                       "(double)a) : tan(M_PI * r));",
                       T);
    case KL_BUILTIN_FMA:
      return kl_format(ctx, "return fma%s(a, b, c);", f);
    case KL_BUILTIN_MAD:
      return "return a * b + c;";
    case KL_BUILTIN_FMAX:
      return kl_format(ctx, "return fmax%s(a, b);", f);
    case KL_BUILTIN_FMIN:
      return kl_format(ctx, "return fmin%s(a, b);", f);
    case KL_BUILTIN_LDEXP:
      return kl_format(ctx, "return ldexp%s(a, b);", f);
    case KL_BUILTIN_ILOGB:
      return kl_format(ctx, "return ilogb%s(a);", f);
    case KL_BUILTIN_POWN:
      return kl_format(ctx, "return pow%s(a, (%s)b);", f, T);
    case KL_BUILTIN_ROOTN:
      return kl_format(ctx,
                       "if (b == 0) return NAN; if (a < 0 && (b & 1)) return -pow%s(-a, (%s)1 / "
                       "(%s)b); return pow%s(a, (%s)1 / (%s)b);",
                       f, T, T, f, T, T);
    case KL_BUILTIN_RSQRT:
      return kl_format(ctx, "return (%s)(1.0 / sqrt((double)a));", T);
    case KL_BUILTIN_MAXMAG:
      return kl_format(
          ctx, "%s x = fabs%s(a), y = fabs%s(b); return x > y ? a : y > x ? b : fmax%s(a, b);", T,
          f, f, f);
    case KL_BUILTIN_MINMAG:
      return kl_format(
          ctx, "%s x = fabs%s(a), y = fabs%s(b); return x < y ? a : y < x ? b : fmin%s(a, b);", T,
          f, f, f);
    case KL_BUILTIN_DIVIDE:
      return "return a / b;";
    case KL_BUILTIN_FRACT:
      return kl_format(
          ctx,
          "if (isnan(a)) { *b = a; return a; } if (isinf(a)) { *b = a; return copysign%s(0, a); } "
          "%s fl = floor%s(a); *b = fl; return fmin%s(a - fl, %s);",
          f, T, f, f, k == KL_TYPE_FLOAT ? "0x1.fffffep-1f" : "0x1.fffffffffffffp-1");
    case KL_BUILTIN_MODF:
      return kl_format(ctx, "return modf%s(a, b);", f);
    case KL_BUILTIN_SINCOS:
      return kl_format(ctx, "*b = cos%s(a); return sin%s(a);", f, f);
    case KL_BUILTIN_FREXP:
      return kl_format(ctx, "return frexp%s(a, b);", f);
    case KL_BUILTIN_LGAMMA_R:
      return kl_format(ctx, "return lgamma%s_r(a, b);", f);
    case KL_BUILTIN_REMQUO:
      return kl_format(ctx, "return remquo%s(a, b, c);", f);
    case KL_BUILTIN_RECIP:
      return kl_format(ctx, "return (%s)1 / a;", T);
    default:
      return NULL;
  }
}

/* Integer builtins. */
static const char *kc_integer_formula(kc_emitter *e, const kl_node *call, kl_type_kind k,
                                      kl_type_kind result) {
  kl_context *ctx = e->ctx;
  const char *f = k == KL_TYPE_FLOAT ? "f" : "";
  bool fl = kc_float_kind(k);
  const char *T = kc_scalar_name(k);
  int bits = kc_bits_of(k);
  const char *U = kc_unsigned_name(k);
  const char *W = kc_signed_kind(k) ? "__int128" : "unsigned __int128";
  switch (call->builtin->id) {
    /* integer */
    case KL_BUILTIN_ABS:
      if (fl) return kl_format(ctx, "return fabs%s(a);", f);
      return kl_format(ctx, "return (%s)(a < 0 ? (%s)0 - (%s)a : (%s)a);", U, U, U, U);
    case KL_BUILTIN_ABS_DIFF:
      return kl_format(ctx, "return (%s)(a > b ? (%s)a - (%s)b : (%s)b - (%s)a);", U, U, U, U, U);
    case KL_BUILTIN_ADD_SAT:
      return kl_format(ctx, "%s r; if (__builtin_add_overflow(a, b, &r)) return %s; return r;", T,
                       kc_signed_kind(k)
                           ? kl_format(ctx, "a < 0 ? %s : %s", kc_min_of(k), kc_max_of(k))
                           : kc_max_of(k));
    case KL_BUILTIN_SUB_SAT:
      return kl_format(
          ctx, "%s r; if (__builtin_sub_overflow(a, b, &r)) return %s; return r;", T,
          kc_signed_kind(k) ? kl_format(ctx, "a < 0 ? %s : %s", kc_min_of(k), kc_max_of(k)) : "0");
    case KL_BUILTIN_HADD:
      return kl_format(ctx, "return (%s)((a >> 1) + (b >> 1) + (a & b & 1));", T);
    case KL_BUILTIN_RHADD:
      return kl_format(ctx, "return (%s)((a >> 1) + (b >> 1) + ((a | b) & 1));", T);
    case KL_BUILTIN_CLZ:
      if (bits == 64)
        return kl_format(ctx, "return (%s)(a == 0 ? 64 : __builtin_clzll((unsigned long long)a));",
                         T);
      return kl_format(ctx, "return (%s)(a == 0 ? %d : __builtin_clz((uint)(%s)a) - %d);", T, bits,
                       U, 32 - bits);
    case KL_BUILTIN_POPCOUNT:
      if (bits == 64)
        return kl_format(ctx, "return (%s)__builtin_popcountll((unsigned long long)a);", T);
      return kl_format(ctx, "return (%s)__builtin_popcount((uint)(%s)a);", T, U);
    case KL_BUILTIN_MUL_HI:
      return kl_format(ctx, "return (%s)(((%s)a * (%s)b) >> %d);", T, W, W, bits);
    case KL_BUILTIN_MAD_HI:
      return kl_format(ctx, "return (%s)((%s)(((%s)a * (%s)b) >> %d) + c);", T, T, W, W, bits);
    case KL_BUILTIN_MAD_SAT:
      return kl_format(
          ctx, "%s r = (%s)a * (%s)b + (%s)c; return r < (%s)%s ? %s : r > (%s)%s ? %s : (%s)r;", W,
          W, W, W, W, kc_min_of(k), kc_min_of(k), W, kc_max_of(k), kc_max_of(k), T);
    case KL_BUILTIN_ROTATE:
      return kl_format(ctx,
                       "unsigned n = (unsigned)((%s)b & %d); return (%s)(%s)(((%s)a << n) | ((%s)a "
                       ">> ((%d - n) & %d)));",
                       U, bits - 1, T, U, U, U, bits, bits - 1);
    case KL_BUILTIN_UPSAMPLE: {
      const char *R = kc_scalar_name(result);
      const char *UR = kc_unsigned_name(result);
      return kl_format(ctx, "return (%s)(((%s)(%s)a << %d) | (%s)b);", R, UR, U, bits, UR);
    }
    case KL_BUILTIN_MAD24:
      return kl_format(ctx, "return (%s)(a * b + c);", T);
    case KL_BUILTIN_MUL24:
      return kl_format(ctx, "return (%s)(a * b);", T);
    default:
      return NULL;
  }
}

/* Common and relational builtins (relational: 1 or 0). */
static const char *kc_common_formula(kc_emitter *e, const kl_node *call, kl_type_kind k,
                                     kl_type_kind result) {
  (void)result;
  kl_context *ctx = e->ctx;
  const char *f = k == KL_TYPE_FLOAT ? "f" : "";
  bool fl = kc_float_kind(k);
  const char *T = kc_scalar_name(k);
  switch (call->builtin->id) {
    /* common */
    case KL_BUILTIN_CLAMP:
      if (fl) return kl_format(ctx, "return fmin%s(fmax%s(a, b), c);", f, f);
      return "return a < b ? b : (a > c ? c : a);";
    case KL_BUILTIN_MAX:
      if (fl) return kl_format(ctx, "return fmax%s(a, b);", f);
      return "return a > b ? a : b;";
    case KL_BUILTIN_MIN:
      if (fl) return kl_format(ctx, "return fmin%s(a, b);", f);
      return "return a < b ? a : b;";
    case KL_BUILTIN_MIX:
      return "return a + (b - a) * c;";
    case KL_BUILTIN_DEGREES:
      return kl_format(ctx, "return (%s)(a * (%s)57.295779513082320876798);", T, T);
    case KL_BUILTIN_RADIANS:
      return kl_format(ctx, "return (%s)(a * (%s)0.017453292519943295769237);", T, T);
    case KL_BUILTIN_STEP:
      return kl_format(ctx, "return b < a ? (%s)0 : (%s)1;", T, T);
    case KL_BUILTIN_SMOOTHSTEP:
      return kl_format(ctx,
                       "%s t = fmin%s(fmax%s((c - a) / (b - a), (%s)0), (%s)1); return t * t * "
                       "((%s)3 - (%s)2 * t);",
                       T, f, f, T, T, T, T);
    case KL_BUILTIN_SIGN:
      return kl_format(ctx, "return isnan(a) ? (%s)0 : a > 0 ? (%s)1 : a < 0 ? (%s)-1 : a;", T, T,
                       T);
    /* relational: 1 or 0 */
    case KL_BUILTIN_ISEQUAL:
      return "return a == b;";
    case KL_BUILTIN_ISNOTEQUAL:
      return "return a != b;";
    case KL_BUILTIN_ISGREATER:
      return "return isgreater(a, b);";
    case KL_BUILTIN_ISGREATEREQUAL:
      return "return isgreaterequal(a, b);";
    case KL_BUILTIN_ISLESS:
      return "return isless(a, b);";
    case KL_BUILTIN_ISLESSEQUAL:
      return "return islessequal(a, b);";
    case KL_BUILTIN_ISLESSGREATER:
      return "return islessgreater(a, b);";
    case KL_BUILTIN_ISFINITE:
      return "return isfinite(a) != 0;";
    case KL_BUILTIN_ISINF:
      return "return isinf(a) != 0;";
    case KL_BUILTIN_ISNAN:
      return "return isnan(a) != 0;";
    case KL_BUILTIN_ISNORMAL:
      return "return isnormal(a) != 0;";
    case KL_BUILTIN_ISORDERED:
      return "return !isunordered(a, b);";
    case KL_BUILTIN_ISUNORDERED:
      return "return isunordered(a, b) != 0;";
    case KL_BUILTIN_SIGNBIT:
      return "return signbit(a) != 0;";
    default:
      return NULL;
  }
}

/* The body of the scalar helper for `id` over element kind k with arguments
 * a, b, c (scalars). NULL when unsupported. */
const char *kc_formula(kc_emitter *e, const kl_node *call, kl_type_kind k, kl_type_kind result) {
  for (size_t i = 0; i < sizeof kc_libm_calls / sizeof kc_libm_calls[0]; i++)
    if (kc_libm_calls[i].id == call->builtin->id)
      return kl_format(e->ctx,
                       kc_libm_calls[i].args == 1 ? "return %s%s(a);" : "return %s%s(a, b);",
                       kc_libm_calls[i].function, k == KL_TYPE_FLOAT ? "f" : "");
  const char *formula = kc_float_formula(e, call, k, result);
  if (!formula) formula = kc_integer_formula(e, call, k, result);
  if (!formula) formula = kc_common_formula(e, call, k, result);
  return formula;
}
