// SPDX-License-Identifier: Apache-2.0
/* The builtin function table (OpenCL C 1.2, 6.12) and the typing of calls. */
#include <string.h>

#include "builtins.h"
#include "kl_front.h"

#define B(id, name, canonical, cat, rule, lo, hi)                                             \
  {                                                                                           \
    KL_BUILTIN_##id, name, canonical, KL_BUILTIN_##cat, KL_RULE_##rule, lo, hi, false, false, \
        KL_ROUND_DEFAULT                                                                      \
  }
#define R(id, name, canonical, cat, rule, lo, hi)                                            \
  {                                                                                          \
    KL_BUILTIN_##id, name, canonical, KL_BUILTIN_##cat, KL_RULE_##rule, lo, hi, true, false, \
        KL_ROUND_DEFAULT                                                                     \
  }
#define CV(name, sat, rounding)                                                                    \
  {                                                                                                \
    KL_BUILTIN_CONVERT, name, "convert", KL_BUILTIN_CONVERSION, KL_RULE_CONVERT, 1, 1, false, sat, \
        rounding                                                                                   \
  }

static const kl_builtin table[] = {
    B(GET_WORK_DIM, "get_work_dim", "get_work_dim", WORK_ITEM, WORK_ITEM, 0, 0),
    B(GET_GLOBAL_SIZE, "get_global_size", "get_global_size", WORK_ITEM, WORK_ITEM, 1, 1),
    B(GET_GLOBAL_ID, "get_global_id", "get_global_id", WORK_ITEM, WORK_ITEM, 1, 1),
    B(GET_LOCAL_SIZE, "get_local_size", "get_local_size", WORK_ITEM, WORK_ITEM, 1, 1),
    B(GET_LOCAL_ID, "get_local_id", "get_local_id", WORK_ITEM, WORK_ITEM, 1, 1),
    B(GET_NUM_GROUPS, "get_num_groups", "get_num_groups", WORK_ITEM, WORK_ITEM, 1, 1),
    B(GET_GROUP_ID, "get_group_id", "get_group_id", WORK_ITEM, WORK_ITEM, 1, 1),
    B(GET_GLOBAL_OFFSET, "get_global_offset", "get_global_offset", WORK_ITEM, WORK_ITEM, 1, 1),
    B(GET_ENQUEUED_LOCAL_SIZE, "get_enqueued_local_size", "get_enqueued_local_size", WORK_ITEM,
      WORK_ITEM, 1, 1),

    B(BARRIER, "barrier", "barrier", SYNC, VOID_FENCE, 1, 1),
    B(MEM_FENCE, "mem_fence", "mem_fence", SYNC, VOID_FENCE, 1, 1),
    B(READ_MEM_FENCE, "read_mem_fence", "read_mem_fence", SYNC, VOID_FENCE, 1, 1),
    B(WRITE_MEM_FENCE, "write_mem_fence", "write_mem_fence", SYNC, VOID_FENCE, 1, 1),

    B(ATOMIC_ADD, "atomic_add", "atomic_add", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_SUB, "atomic_sub", "atomic_sub", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_XCHG, "atomic_xchg", "atomic_xchg", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_INC, "atomic_inc", "atomic_inc", ATOMIC, ATOMIC, 1, 1),
    B(ATOMIC_DEC, "atomic_dec", "atomic_dec", ATOMIC, ATOMIC, 1, 1),
    B(ATOMIC_CMPXCHG, "atomic_cmpxchg", "atomic_cmpxchg", ATOMIC, ATOMIC, 3, 3),
    B(ATOMIC_MIN, "atomic_min", "atomic_min", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_MAX, "atomic_max", "atomic_max", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_AND, "atomic_and", "atomic_and", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_OR, "atomic_or", "atomic_or", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_XOR, "atomic_xor", "atomic_xor", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_ADD, "atom_add", "atomic_add", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_SUB, "atom_sub", "atomic_sub", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_XCHG, "atom_xchg", "atomic_xchg", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_INC, "atom_inc", "atomic_inc", ATOMIC, ATOMIC, 1, 1),
    B(ATOMIC_DEC, "atom_dec", "atomic_dec", ATOMIC, ATOMIC, 1, 1),
    B(ATOMIC_CMPXCHG, "atom_cmpxchg", "atomic_cmpxchg", ATOMIC, ATOMIC, 3, 3),
    B(ATOMIC_MIN, "atom_min", "atomic_min", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_MAX, "atom_max", "atomic_max", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_AND, "atom_and", "atomic_and", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_OR, "atom_or", "atomic_or", ATOMIC, ATOMIC, 2, 2),
    B(ATOMIC_XOR, "atom_xor", "atomic_xor", ATOMIC, ATOMIC, 2, 2),

    B(ACOS, "acos", "acos", MATH, FLOAT, 1, 1),
    B(ACOSH, "acosh", "acosh", MATH, FLOAT, 1, 1),
    B(ACOSPI, "acospi", "acospi", MATH, FLOAT, 1, 1),
    B(ASIN, "asin", "asin", MATH, FLOAT, 1, 1),
    B(ASINH, "asinh", "asinh", MATH, FLOAT, 1, 1),
    B(ASINPI, "asinpi", "asinpi", MATH, FLOAT, 1, 1),
    B(ATAN, "atan", "atan", MATH, FLOAT, 1, 1),
    B(ATAN2, "atan2", "atan2", MATH, FLOAT, 2, 2),
    B(ATANH, "atanh", "atanh", MATH, FLOAT, 1, 1),
    B(ATANPI, "atanpi", "atanpi", MATH, FLOAT, 1, 1),
    B(ATAN2PI, "atan2pi", "atan2pi", MATH, FLOAT, 2, 2),
    B(CBRT, "cbrt", "cbrt", MATH, FLOAT, 1, 1),
    B(CEIL, "ceil", "ceil", MATH, FLOAT, 1, 1),
    B(COPYSIGN, "copysign", "copysign", MATH, FLOAT, 2, 2),
    B(COS, "cos", "cos", MATH, FLOAT, 1, 1),
    B(COSH, "cosh", "cosh", MATH, FLOAT, 1, 1),
    B(COSPI, "cospi", "cospi", MATH, FLOAT, 1, 1),
    B(ERFC, "erfc", "erfc", MATH, FLOAT, 1, 1),
    B(ERF, "erf", "erf", MATH, FLOAT, 1, 1),
    B(EXP, "exp", "exp", MATH, FLOAT, 1, 1),
    B(EXP2, "exp2", "exp2", MATH, FLOAT, 1, 1),
    B(EXP10, "exp10", "exp10", MATH, FLOAT, 1, 1),
    B(EXPM1, "expm1", "expm1", MATH, FLOAT, 1, 1),
    B(FABS, "fabs", "fabs", MATH, FLOAT, 1, 1),
    B(FDIM, "fdim", "fdim", MATH, FLOAT, 2, 2),
    B(FLOOR, "floor", "floor", MATH, FLOAT, 1, 1),
    B(FMA, "fma", "fma", MATH, FLOAT, 3, 3),
    B(FMAX, "fmax", "fmax", MATH, FLOAT, 2, 2),
    B(FMIN, "fmin", "fmin", MATH, FLOAT, 2, 2),
    B(FMOD, "fmod", "fmod", MATH, FLOAT, 2, 2),
    B(HYPOT, "hypot", "hypot", MATH, FLOAT, 2, 2),
    B(LDEXP, "ldexp", "ldexp", MATH, FLOAT_INTN, 2, 2),
    B(LGAMMA, "lgamma", "lgamma", MATH, FLOAT, 1, 1),
    B(LOG, "log", "log", MATH, FLOAT, 1, 1),
    B(LOG2, "log2", "log2", MATH, FLOAT, 1, 1),
    B(LOG10, "log10", "log10", MATH, FLOAT, 1, 1),
    B(LOG1P, "log1p", "log1p", MATH, FLOAT, 1, 1),
    B(LOGB, "logb", "logb", MATH, FLOAT, 1, 1),
    B(ILOGB, "ilogb", "ilogb", MATH, ILOGB, 1, 1),
    B(MAD, "mad", "mad", MATH, FLOAT, 3, 3),
    B(MAXMAG, "maxmag", "maxmag", MATH, FLOAT, 2, 2),
    B(MINMAG, "minmag", "minmag", MATH, FLOAT, 2, 2),
    B(NEXTAFTER, "nextafter", "nextafter", MATH, FLOAT, 2, 2),
    B(POW, "pow", "pow", MATH, FLOAT, 2, 2),
    B(POWN, "pown", "pown", MATH, FLOAT_INTN, 2, 2),
    B(POWR, "powr", "powr", MATH, FLOAT, 2, 2),
    B(REMAINDER, "remainder", "remainder", MATH, FLOAT, 2, 2),
    B(RINT, "rint", "rint", MATH, FLOAT, 1, 1),
    B(ROOTN, "rootn", "rootn", MATH, FLOAT_INTN, 2, 2),
    B(ROUND, "round", "round", MATH, FLOAT, 1, 1),
    B(RSQRT, "rsqrt", "rsqrt", MATH, FLOAT, 1, 1),
    B(SIN, "sin", "sin", MATH, FLOAT, 1, 1),
    B(SINH, "sinh", "sinh", MATH, FLOAT, 1, 1),
    B(SINPI, "sinpi", "sinpi", MATH, FLOAT, 1, 1),
    B(SQRT, "sqrt", "sqrt", MATH, FLOAT, 1, 1),
    B(TAN, "tan", "tan", MATH, FLOAT, 1, 1),
    B(TANH, "tanh", "tanh", MATH, FLOAT, 1, 1),
    B(TANPI, "tanpi", "tanpi", MATH, FLOAT, 1, 1),
    B(TGAMMA, "tgamma", "tgamma", MATH, FLOAT, 1, 1),
    B(TRUNC, "trunc", "trunc", MATH, FLOAT, 1, 1),
    B(FRACT, "fract", "fract", MATH, FLOAT_PTR, 2, 2),
    B(MODF, "modf", "modf", MATH, FLOAT_PTR, 2, 2),
    B(SINCOS, "sincos", "sincos", MATH, FLOAT_PTR, 2, 2),
    B(FREXP, "frexp", "frexp", MATH, FLOAT_INTPTR, 2, 2),
    B(LGAMMA_R, "lgamma_r", "lgamma_r", MATH, FLOAT_INTPTR, 2, 2),
    B(REMQUO, "remquo", "remquo", MATH, FLOAT_INTPTR, 3, 3),
    R(COS, "native_cos", "cos", MATH, FLOAT, 1, 1),
    R(DIVIDE, "native_divide", "divide", MATH, FLOAT, 2, 2),
    R(EXP, "native_exp", "exp", MATH, FLOAT, 1, 1),
    R(EXP2, "native_exp2", "exp2", MATH, FLOAT, 1, 1),
    R(EXP10, "native_exp10", "exp10", MATH, FLOAT, 1, 1),
    R(LOG, "native_log", "log", MATH, FLOAT, 1, 1),
    R(LOG2, "native_log2", "log2", MATH, FLOAT, 1, 1),
    R(LOG10, "native_log10", "log10", MATH, FLOAT, 1, 1),
    R(POWR, "native_powr", "powr", MATH, FLOAT, 2, 2),
    R(RECIP, "native_recip", "recip", MATH, FLOAT, 1, 1),
    R(RSQRT, "native_rsqrt", "rsqrt", MATH, FLOAT, 1, 1),
    R(SIN, "native_sin", "sin", MATH, FLOAT, 1, 1),
    R(SQRT, "native_sqrt", "sqrt", MATH, FLOAT, 1, 1),
    R(TAN, "native_tan", "tan", MATH, FLOAT, 1, 1),
    R(COS, "half_cos", "cos", MATH, FLOAT, 1, 1),
    R(DIVIDE, "half_divide", "divide", MATH, FLOAT, 2, 2),
    R(EXP, "half_exp", "exp", MATH, FLOAT, 1, 1),
    R(EXP2, "half_exp2", "exp2", MATH, FLOAT, 1, 1),
    R(EXP10, "half_exp10", "exp10", MATH, FLOAT, 1, 1),
    R(LOG, "half_log", "log", MATH, FLOAT, 1, 1),
    R(LOG2, "half_log2", "log2", MATH, FLOAT, 1, 1),
    R(LOG10, "half_log10", "log10", MATH, FLOAT, 1, 1),
    R(POWR, "half_powr", "powr", MATH, FLOAT, 2, 2),
    R(RECIP, "half_recip", "recip", MATH, FLOAT, 1, 1),
    R(RSQRT, "half_rsqrt", "rsqrt", MATH, FLOAT, 1, 1),
    R(SIN, "half_sin", "sin", MATH, FLOAT, 1, 1),
    R(SQRT, "half_sqrt", "sqrt", MATH, FLOAT, 1, 1),
    R(TAN, "half_tan", "tan", MATH, FLOAT, 1, 1),

    B(ABS, "abs", "abs", INTEGER, UNSIGNED, 1, 1),
    B(ABS_DIFF, "abs_diff", "abs_diff", INTEGER, UNSIGNED, 2, 2),
    B(ADD_SAT, "add_sat", "add_sat", INTEGER, INT, 2, 2),
    B(HADD, "hadd", "hadd", INTEGER, INT, 2, 2),
    B(RHADD, "rhadd", "rhadd", INTEGER, INT, 2, 2),
    B(CLZ, "clz", "clz", INTEGER, INT, 1, 1),
    B(POPCOUNT, "popcount", "popcount", INTEGER, INT, 1, 1),
    B(MAD_HI, "mad_hi", "mad_hi", INTEGER, INT, 3, 3),
    B(MAD_SAT, "mad_sat", "mad_sat", INTEGER, INT, 3, 3),
    B(MUL_HI, "mul_hi", "mul_hi", INTEGER, INT, 2, 2),
    B(ROTATE, "rotate", "rotate", INTEGER, INT, 2, 2),
    B(SUB_SAT, "sub_sat", "sub_sat", INTEGER, INT, 2, 2),
    B(UPSAMPLE, "upsample", "upsample", INTEGER, UPSAMPLE, 2, 2),
    B(MAD24, "mad24", "mad24", INTEGER, INT, 3, 3),
    B(MUL24, "mul24", "mul24", INTEGER, INT, 2, 2),

    B(CLAMP, "clamp", "clamp", COMMON, ANY, 3, 3),
    B(DEGREES, "degrees", "degrees", COMMON, FLOAT, 1, 1),
    B(MAX, "max", "max", COMMON, ANY, 2, 2),
    B(MIN, "min", "min", COMMON, ANY, 2, 2),
    B(MIX, "mix", "mix", COMMON, FLOAT, 3, 3),
    B(RADIANS, "radians", "radians", COMMON, FLOAT, 1, 1),
    B(STEP, "step", "step", COMMON, FLOAT, 2, 2),
    B(SMOOTHSTEP, "smoothstep", "smoothstep", COMMON, FLOAT, 3, 3),
    B(SIGN, "sign", "sign", COMMON, FLOAT, 1, 1),

    B(CROSS, "cross", "cross", GEOMETRIC, FLOAT, 2, 2),
    B(DOT, "dot", "dot", GEOMETRIC, SCALAR, 2, 2),
    B(DISTANCE, "distance", "distance", GEOMETRIC, SCALAR, 2, 2),
    B(LENGTH, "length", "length", GEOMETRIC, SCALAR, 1, 1),
    B(NORMALIZE, "normalize", "normalize", GEOMETRIC, FLOAT, 1, 1),
    B(FAST_DISTANCE, "fast_distance", "fast_distance", GEOMETRIC, SCALAR, 2, 2),
    B(FAST_LENGTH, "fast_length", "fast_length", GEOMETRIC, SCALAR, 1, 1),
    B(FAST_NORMALIZE, "fast_normalize", "fast_normalize", GEOMETRIC, FLOAT, 1, 1),

    B(ISEQUAL, "isequal", "isequal", RELATIONAL, RELATIONAL, 2, 2),
    B(ISNOTEQUAL, "isnotequal", "isnotequal", RELATIONAL, RELATIONAL, 2, 2),
    B(ISGREATER, "isgreater", "isgreater", RELATIONAL, RELATIONAL, 2, 2),
    B(ISGREATEREQUAL, "isgreaterequal", "isgreaterequal", RELATIONAL, RELATIONAL, 2, 2),
    B(ISLESS, "isless", "isless", RELATIONAL, RELATIONAL, 2, 2),
    B(ISLESSEQUAL, "islessequal", "islessequal", RELATIONAL, RELATIONAL, 2, 2),
    B(ISLESSGREATER, "islessgreater", "islessgreater", RELATIONAL, RELATIONAL, 2, 2),
    B(ISFINITE, "isfinite", "isfinite", RELATIONAL, RELATIONAL, 1, 1),
    B(ISINF, "isinf", "isinf", RELATIONAL, RELATIONAL, 1, 1),
    B(ISNAN, "isnan", "isnan", RELATIONAL, RELATIONAL, 1, 1),
    B(ISNORMAL, "isnormal", "isnormal", RELATIONAL, RELATIONAL, 1, 1),
    B(ISORDERED, "isordered", "isordered", RELATIONAL, RELATIONAL, 2, 2),
    B(ISUNORDERED, "isunordered", "isunordered", RELATIONAL, RELATIONAL, 2, 2),
    B(SIGNBIT, "signbit", "signbit", RELATIONAL, RELATIONAL, 1, 1),
    B(ANY, "any", "any", RELATIONAL, ANY_ALL, 1, 1),
    B(ALL, "all", "all", RELATIONAL, ANY_ALL, 1, 1),
    B(BITSELECT, "bitselect", "bitselect", RELATIONAL, SELECT, 3, 3),
    B(SELECT, "select", "select", RELATIONAL, SELECT, 3, 3),

    CV("convert", false, KL_ROUND_DEFAULT),
    CV("convert_rte", false, KL_ROUND_RTE),
    CV("convert_rtz", false, KL_ROUND_RTZ),
    CV("convert_rtp", false, KL_ROUND_RTP),
    CV("convert_rtn", false, KL_ROUND_RTN),
    CV("convert_sat", true, KL_ROUND_DEFAULT),
    CV("convert_sat_rte", true, KL_ROUND_RTE),
    CV("convert_sat_rtz", true, KL_ROUND_RTZ),
    CV("convert_sat_rtp", true, KL_ROUND_RTP),
    CV("convert_sat_rtn", true, KL_ROUND_RTN),
    B(AS, "as", "as", CONVERSION, AS, 1, 1),
    B(VLOAD, "vload", "vload", MEMORY, VLOAD, 2, 2),
    B(VSTORE, "vstore", "vstore", MEMORY, VSTORE, 3, 3),
};

#define TABLE_SIZE ((int)(sizeof table / sizeof table[0]))
#define FIRST_CONVERT (TABLE_SIZE - 13)

const kl_builtin *kl_builtin_get(kl_builtin_id id) {
  for (int i = 0; i < TABLE_SIZE; i++)
    if (table[i].id == id) return &table[i];
  return NULL;
}

const char *kl_builtin_id_name(kl_builtin_id id) {
  const kl_builtin *b = kl_builtin_get(id);
  return b ? b->canonical : "?";
}

static bool has_prefix(const char *name, int length, const char *prefix, int *rest) {
  int n = (int)strlen(prefix);
  if (length <= n || memcmp(name, prefix, (size_t)n) != 0) return false;
  *rest = n;
  return true;
}

const kl_builtin *kl_builtin_lookup(kl_context *ctx, const char *name, int length,
                                    kl_type **type_out) {
  if (type_out) *type_out = NULL;
  if (length <= 1) return NULL;
  int rest;
  if (has_prefix(name, length, "convert_", &rest)) {
    /* convert_<type>[_sat][_rte|_rtz|_rtp|_rtn] */
    const char *t = name + rest;
    int n = length - rest;
    const char *us = memchr(t, '_', (size_t)n);
    int type_n = us ? (int)(us - t) : n;
    kl_type *type = kl_type_from_name(ctx, t, type_n);
    if (!type || type->kind == KL_TYPE_VOID || type->kind == KL_TYPE_BOOL ||
        type->kind == KL_TYPE_SIZE_T || type->kind == KL_TYPE_PTRDIFF_T)
      return NULL;
    const char *s = t + type_n;
    int sn = n - type_n;
    bool sat = false;
    kl_rounding rounding = KL_ROUND_DEFAULT;
    if (sn >= 4 && memcmp(s, "_sat", 4) == 0) {
      sat = true;
      s += 4;
      sn -= 4;
    }
    if (sn == 4) {
      if (memcmp(s, "_rte", 4) == 0)
        rounding = KL_ROUND_RTE;
      else if (memcmp(s, "_rtz", 4) == 0)
        rounding = KL_ROUND_RTZ;
      else if (memcmp(s, "_rtp", 4) == 0)
        rounding = KL_ROUND_RTP;
      else if (memcmp(s, "_rtn", 4) == 0)
        rounding = KL_ROUND_RTN;
      else
        return NULL;
    } else if (sn != 0) {
      return NULL;
    }
    for (int i = 0; i < TABLE_SIZE; i++)
      if (table[i].id == KL_BUILTIN_CONVERT && table[i].saturate == sat &&
          table[i].rounding == rounding) {
        if (type_out) *type_out = type;
        return &table[i];
      }
    return NULL;
  }
  if (has_prefix(name, length, "as_", &rest)) {
    kl_type *type = kl_type_from_name(ctx, name + rest, length - rest);
    if (!type || type->kind == KL_TYPE_VOID || type->kind == KL_TYPE_BOOL ||
        type->kind == KL_TYPE_SIZE_T || type->kind == KL_TYPE_PTRDIFF_T)
      return NULL;
    if (type_out) *type_out = type;
    return kl_builtin_get(KL_BUILTIN_AS);
  }
  bool load = has_prefix(name, length, "vload", &rest);
  if (load || has_prefix(name, length, "vstore", &rest)) {
    const char *n = name + rest;
    int nn = length - rest;
    int width = 0;
    if (nn == 1 && (n[0] == '2' || n[0] == '3' || n[0] == '4' || n[0] == '8')) width = n[0] - '0';
    if (nn == 2 && n[0] == '1' && n[1] == '6') width = 16;
    if (!width) return NULL;
    if (type_out)
      *type_out = kl_type_vector(ctx, KL_TYPE_INT,
                                 width); /* the width; the element comes from the pointer */
    return kl_builtin_get(load ? KL_BUILTIN_VLOAD : KL_BUILTIN_VSTORE);
  }
  for (int i = 0; i < FIRST_CONVERT; i++) {
    const char *s = table[i].name;
    if (s[0] == name[0] && (int)strlen(s) == length && memcmp(s, name, (size_t)length) == 0)
      return &table[i];
  }
  return NULL;
}

/* ------------------------------------------------------------- typing */

static const char *tn(kl_context *ctx, const kl_type *t) {
  return kl_type_name(ctx, t);
}

static bool is_int_like(const kl_type *t) {
  const kl_type *s = kl_type_scalar_of(t);
  return kl_type_is_integer(s) || (s && s->kind == KL_TYPE_BOOL);
}

static bool is_numeric(const kl_type *t) {
  return t && (kl_type_is_arithmetic(t) || t->kind == KL_TYPE_BOOL);
}

/* The scalar types as OpenCL C's overloads see them: size_t and ptrdiff_t
 * are typedefs of ulong and long. */
static kl_type_kind overload_kind(const kl_type *t) {
  if (t->kind == KL_TYPE_SIZE_T) return KL_TYPE_ULONG;
  if (t->kind == KL_TYPE_PTRDIFF_T) return KL_TYPE_LONG;
  return t->kind;
}

/* The rank of the implicit conversion of an argument of kind `from` to a
 * parameter of kind `to` (C++ overload ranking, which clang applies to the
 * overloadable builtins of opencl-c.h): 0 exact, 1 promotion, 2 conversion. */
static int conversion_rank(kl_type_kind from, kl_type_kind to) {
  if (from == to) return 0;
  if (to == KL_TYPE_INT && from >= KL_TYPE_BOOL && from <= KL_TYPE_USHORT) return 1;
  if ((from == KL_TYPE_FLOAT && to == KL_TYPE_DOUBLE) ||
      (from == KL_TYPE_HALF && to == KL_TYPE_FLOAT))
    return 1;
  return 2;
}

/* The scalar gentype of an integer (or, for max/min/clamp/select, any
 * arithmetic) builtin from scalar arguments of different types: OpenCL C's
 * builtins are overloaded per gentype (char f(char, char), short f(short,
 * short), ...), so the arguments are not promoted; a call resolves to the
 * overload whose parameters match every argument at least as well as any
 * other overload and one argument better (add_sat(int, bool) is the int
 * one), as clang resolves them; there is no such overload for
 * add_sat((short)a, 1) or min(uint, int): OpenCL C compilers reject these
 * as ambiguous, and so do we. NULL after the error. */
static kl_type *resolve_scalars(kl_context *ctx, kl_node *call, kl_node **args, int count,
                                int first, int last, bool any_arithmetic) {
  static const kl_type_kind candidates[] = {
      KL_TYPE_CHAR, KL_TYPE_UCHAR, KL_TYPE_SHORT, KL_TYPE_USHORT, KL_TYPE_INT,   KL_TYPE_UINT,
      KL_TYPE_LONG, KL_TYPE_ULONG, KL_TYPE_HALF,  KL_TYPE_FLOAT,  KL_TYPE_DOUBLE};
  int candidate_count = any_arithmetic ? 11 : 8;
  int best = -1;
  for (int c = 0; c < candidate_count; c++) {
    bool beats_all = true;
    for (int d = 0; d < candidate_count && beats_all; d++) {
      if (d == c) continue;
      bool strictly = false, worse = false;
      for (int i = first; i <= last && i < count; i++) {
        kl_type_kind from = overload_kind(args[i]->type);
        int rc = conversion_rank(from, candidates[c]), rd = conversion_rank(from, candidates[d]);
        if (rc < rd) strictly = true;
        if (rc > rd) worse = true;
      }
      if (worse || !strictly) beats_all = false;
    }
    if (beats_all) {
      best = c;
      break;
    }
  }
  if (best >= 0) return kl_type_scalar(ctx, candidates[best]);
  const char *types = "";
  for (int i = first; i <= last && i < count; i++)
    types = kl_format(ctx, "%s%s'%s'", types,
                      i == first                    ? ""
                      : i == last || i + 1 == count ? " and "
                                                    : ", ",
                      tn(ctx, kl_type_unqualified(ctx, args[i]->type)));
  kl_error(ctx, call->location,
           "call to '%s' is ambiguous: OpenCL C overloads it with arguments of one type, not %s "
           "(cast the arguments to one type)",
           call->spelling, types);
  return NULL;
}

/* The gentype of a call: the vector argument's type if there is one (all
 * vector arguments must agree), else the type of the scalars: for the
 * floating builtins the usual arithmetic conversion of the scalars (a
 * superset of OpenCL C's overloads), for the others (`floating` false) the
 * overload of OpenCL C: scalars of one type keep it (add_sat(short, short)
 * is short, not int), mixed ones resolve as resolve_scalars says. NULL
 * after an error. */
static kl_type *gentype(kl_context *ctx, kl_node *call, kl_node **args, int count, int first,
                        int last, bool floating) {
  kl_type *vector = NULL, *scalar = NULL;
  bool mixed = false;
  for (int i = first; i <= last && i < count; i++) {
    kl_type *t = args[i]->type;
    if (!is_numeric(t)) {
      kl_error(ctx, args[i]->location, "argument %d of '%s' has type '%s': a number is needed",
               i + 1, call->spelling, tn(ctx, t));
      return NULL;
    }
    if (t->kind == KL_TYPE_VECTOR) {
      if (vector && !kl_type_equal(vector, t)) {
        kl_error(ctx, args[i]->location,
                 "the arguments of '%s' have different vector types ('%s' and '%s')",
                 call->spelling, tn(ctx, vector), tn(ctx, t));
        return NULL;
      }
      vector = kl_type_unqualified(ctx, t);
    } else {
      if (!scalar) {
        scalar = kl_type_unqualified(ctx, t);
      } else if (floating) {
        scalar = kl_type_common(ctx, scalar, t);
      } else if (overload_kind(scalar) != overload_kind(t)) {
        mixed = true;
      }
    }
  }
  if (!vector && !floating && mixed) {
    bool any_arithmetic = false;
    for (int i = first; i <= last && i < count; i++)
      if (kl_type_is_floating(args[i]->type)) any_arithmetic = true;
    scalar = resolve_scalars(ctx, call, args, count, first, last, any_arithmetic);
    if (!scalar) return NULL;
  }
  kl_type *g = vector ? vector : scalar;
  if (!g) return NULL;
  if (floating && !kl_type_is_floating(kl_type_scalar_of(g))) {
    if (vector) {
      kl_error(ctx, call->location,
               "'%s' needs floating-point arguments, not '%s' (use convert_float%d())",
               call->spelling, tn(ctx, g), g->length);
      return NULL;
    }
    /* only integer scalars: OpenCL C finds this call ambiguous */
    kl_error(ctx, call->location,
             "'%s' needs a floating-point argument: '%s' is ambiguous in OpenCL C (write a float, "
             "e.g. 2.0f)",
             call->spelling, tn(ctx, g));
    return NULL;
  }
  if (!floating && g->kind != KL_TYPE_VECTOR) g = kl_type_unqualified(ctx, g);
  if (g->kind == KL_TYPE_BOOL) g = kl_type_scalar(ctx, KL_TYPE_INT);
  return g;
}

static void set_args(kl_node *call, kl_node **args, int count) {
  call->args = count ? args[0] : NULL;
  for (int i = 0; i < count; i++) args[i]->next = i + 1 < count ? args[i + 1] : NULL;
}

static kl_type *pointee_scalar(kl_context *ctx, kl_node *call, kl_node *arg, const char *what) {
  kl_type *t = arg->type;
  if (t->kind != KL_TYPE_POINTER) {
    kl_error(ctx, arg->location, "'%s' needs a pointer %s, not '%s'", call->spelling, what,
             tn(ctx, t));
    return NULL;
  }
  return t->element;
}

/* get_global_id(dim) and the other work-item functions */
static bool check_work_item(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  const kl_builtin *b = call->builtin;
  kl_type *uint_t = kl_type_scalar(ctx, KL_TYPE_UINT);
  if (b->id == KL_BUILTIN_GET_WORK_DIM) {
    call->type = uint_t;
    return true;
  }
  if (!is_int_like(args[0]->type) || args[0]->type->kind == KL_TYPE_VECTOR) {
    kl_error(ctx, args[0]->location, "'%s' takes a dimension index (uint), not '%s'",
             call->spelling, tn(ctx, args[0]->type));
  } else {
    int64_t dim;
    if (kl_eval_int(ctx, args[0], &dim) && (dim < 0 || dim > 2))
      kl_warning(ctx, args[0]->location, "dimension %lld of '%s' is out of range: the result is %s",
                 (long long)dim, call->spelling,
                 b->id == KL_BUILTIN_GET_GLOBAL_SIZE || b->id == KL_BUILTIN_GET_LOCAL_SIZE ||
                         b->id == KL_BUILTIN_GET_NUM_GROUPS ||
                         b->id == KL_BUILTIN_GET_ENQUEUED_LOCAL_SIZE
                     ? "1"
                     : "0");
    args[0] = kl_convert(ctx, args[0], uint_t);
  }
  set_args(call, args, count);
  call->type = kl_type_scalar(ctx, KL_TYPE_SIZE_T);
  return true;
}

/* barrier and the fences: a flags argument */
static bool check_fence(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  kl_type *uint_t = kl_type_scalar(ctx, KL_TYPE_UINT);
  if (!is_int_like(args[0]->type) || args[0]->type->kind == KL_TYPE_VECTOR) {
    kl_error(ctx, args[0]->location, "'%s' takes CLK_LOCAL_MEM_FENCE and/or CLK_GLOBAL_MEM_FENCE",
             call->spelling);
  } else {
    args[0] = kl_convert(ctx, args[0], uint_t);
  }
  set_args(call, args, count);
  call->type = kl_type_scalar(ctx, KL_TYPE_VOID);
  return true;
}

/* atomic_*: a pointer to __global or __local int or uint, then values */
static bool check_atomic(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  const kl_builtin *b = call->builtin;
  kl_type *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  call->type = int_t;
  kl_type *pt = args[0]->type;
  if (pt->kind != KL_TYPE_POINTER) {
    kl_error(ctx, call->location,
             "no matching function for call to '%s': it needs a pointer to a __global or __local "
             "int or uint, not '%s'",
             call->spelling, tn(ctx, pt));
    return false;
  }
  kl_type *e = pt->element;
  bool is_float = e->kind == KL_TYPE_FLOAT;
  if (!(e->kind == KL_TYPE_INT || e->kind == KL_TYPE_UINT ||
        (is_float && b->id == KL_BUILTIN_ATOMIC_XCHG))) {
    kl_error(ctx, call->location,
             "no matching function for call to '%s': atomics work on int and uint%s, not '%s' "
             "(64-bit and other atomics are not supported)",
             call->spelling, b->id == KL_BUILTIN_ATOMIC_XCHG ? " (and float)" : "", tn(ctx, e));
    return false;
  }
  if (pt->pointee_space != KL_SPACE_GLOBAL && pt->pointee_space != KL_SPACE_LOCAL) {
    kl_error(ctx, call->location,
             "no matching function for call to '%s': it needs a pointer to __global or __local "
             "memory, not '%s'",
             call->spelling, tn(ctx, pt));
    return false;
  }
  if (e->qualifiers & KL_QUALIFIER_CONST) {
    kl_error(ctx, call->location,
             "no matching function for call to '%s': the pointer is to const ('%s')",
             call->spelling, tn(ctx, pt));
    return false;
  }
  kl_type *value = kl_type_unqualified(ctx, e);
  for (int i = 1; i < count; i++) {
    if (!is_numeric(args[i]->type) || args[i]->type->kind == KL_TYPE_VECTOR) {
      kl_error(ctx, args[i]->location, "argument %d of '%s' must be a '%s', not '%s'", i + 1,
               call->spelling, tn(ctx, value), tn(ctx, args[i]->type));
      return false;
    }
    args[i] = kl_convert(ctx, args[i], value);
  }
  set_args(call, args, count);
  call->type = value;
  return true;
}

/* math, common, geometric and relational builtins over one gentype */
static bool check_gentype(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  const kl_builtin *b = call->builtin;
  kl_type *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type *g;
  g = gentype(ctx, call, args, count, 0, count - 1, true);
  if (!g) {
    call->type = b->rule == KL_RULE_FLOAT ? kl_type_scalar(ctx, KL_TYPE_FLOAT) : int_t;
    return false;
  }
  if (b->category == KL_BUILTIN_GEOMETRIC) {
    int n = g->kind == KL_TYPE_VECTOR ? g->length : 1;
    if (b->id == KL_BUILTIN_CROSS ? (n != 3 && n != 4) : n > 4) {
      kl_error(ctx, call->location, "'%s' takes %s, not '%s'", call->spelling,
               b->id == KL_BUILTIN_CROSS ? "3- or 4-component vectors"
                                         : "a scalar or a vector of up to 4 components",
               tn(ctx, g));
    }
    if (kl_type_scalar_of(g)->kind == KL_TYPE_HALF)
      kl_error(ctx, call->location, "'%s' does not take half", call->spelling);
  }
  for (int i = 0; i < count; i++) args[i] = kl_convert(ctx, args[i], g);
  set_args(call, args, count);
  if (b->rule == KL_RULE_FLOAT)
    call->type = g;
  else if (b->rule == KL_RULE_SCALAR)
    call->type = kl_type_scalar(ctx, kl_type_scalar_of(g)->kind);
  else
    call->type = kl_type_signed_int_like(ctx, g);
  return true;
}

/* fract, modf, sincos, frexp, lgamma_r, remquo: the last argument points to a result */
static bool check_out_pointer(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  const kl_builtin *b = call->builtin;
  kl_type *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type *g;
  /* fract/modf/sincos(x, gentype *out); frexp/lgamma_r(x, intn *out); remquo(x, y, intn *out) */
  g = gentype(ctx, call, args, count, 0, count - 2, true);
  if (!g) {
    call->type = kl_type_scalar(ctx, KL_TYPE_FLOAT);
    return false;
  }
  for (int i = 0; i < count - 1; i++) args[i] = kl_convert(ctx, args[i], g);
  kl_node *out = args[count - 1];
  kl_type *want = b->rule == KL_RULE_FLOAT_PTR ? g
                  : g->kind == KL_TYPE_VECTOR  ? kl_type_vector(ctx, KL_TYPE_INT, g->length)
                                               : int_t;
  kl_type *pt = out->type;
  if (pt->kind != KL_TYPE_POINTER || !kl_type_equal(pt->element, want) ||
      (pt->element->qualifiers & KL_QUALIFIER_CONST) || pt->pointee_space == KL_SPACE_CONSTANT) {
    kl_error(ctx, out->location,
             "the last argument of '%s' must point to a writable '%s', not '%s'", call->spelling,
             tn(ctx, want), tn(ctx, pt));
  }
  set_args(call, args, count);
  call->type = g;
  return true;
}

/* ldexp, pown, rootn (an int second argument) and ilogb (an int result) */
static bool check_int_second(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  const kl_builtin *b = call->builtin;
  kl_type *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type *g;
  g = gentype(ctx, call, args, count, 0, 0, true);
  kl_type *n_type =
      g && g->kind == KL_TYPE_VECTOR ? kl_type_vector(ctx, KL_TYPE_INT, g->length) : int_t;
  if (!g) {
    call->type = b->rule == KL_RULE_ILOGB ? int_t : kl_type_scalar(ctx, KL_TYPE_FLOAT);
    return false;
  }
  args[0] = kl_convert(ctx, args[0], g);
  if (count > 1) {
    kl_type *t = args[1]->type;
    if (!is_int_like(t) || (t->kind == KL_TYPE_VECTOR && !kl_type_equal(t, n_type) &&
                            t->length != (g->kind == KL_TYPE_VECTOR ? g->length : 1))) {
      kl_error(ctx, args[1]->location, "argument 2 of '%s' must be '%s', not '%s'", call->spelling,
               tn(ctx, n_type), tn(ctx, t));
    } else if (t->kind == KL_TYPE_VECTOR && g->kind != KL_TYPE_VECTOR) {
      kl_error(ctx, args[1]->location, "argument 2 of '%s' must be 'int', not '%s'", call->spelling,
               tn(ctx, t));
    } else {
      /* ldexp(floatn, int) keeps the scalar; pown/rootn take intn */
      kl_type *want = b->id == KL_BUILTIN_LDEXP && t->kind != KL_TYPE_VECTOR ? int_t : n_type;
      args[1] = kl_convert(ctx, args[1], want);
    }
  }
  set_args(call, args, count);
  call->type = b->rule == KL_RULE_ILOGB ? n_type : g;
  return true;
}

/* integer builtins, and those of any number type */
static bool check_integer(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  const kl_builtin *b = call->builtin;
  kl_type *uint_t = kl_type_scalar(ctx, KL_TYPE_UINT), *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type *g;
  bool integer = b->rule != KL_RULE_ANY;
  for (int i = 0; i < count; i++)
    if (integer && is_numeric(args[i]->type) && !is_int_like(args[i]->type)) {
      kl_error(ctx, args[i]->location, "'%s' takes integers, not '%s'%s", call->spelling,
               tn(ctx, args[i]->type), b->id == KL_BUILTIN_ABS ? " (use fabs())" : "");
      call->type = b->rule == KL_RULE_UNSIGNED ? uint_t : int_t;
      return false;
    }
  g = gentype(ctx, call, args, count, 0, count - 1, false);
  if (!g) {
    call->type = int_t;
    return false;
  }
  if ((b->id == KL_BUILTIN_MAD24 || b->id == KL_BUILTIN_MUL24) &&
      kl_type_scalar_of(g)->kind != KL_TYPE_INT && kl_type_scalar_of(g)->kind != KL_TYPE_UINT)
    kl_error(ctx, call->location, "'%s' takes int or uint, not '%s'", call->spelling, tn(ctx, g));
  for (int i = 0; i < count; i++) args[i] = kl_convert(ctx, args[i], g);
  set_args(call, args, count);
  call->type = b->rule == KL_RULE_UNSIGNED ? kl_type_unsigned_of(ctx, g) : g;
  return true;
}

/* upsample(hi, lo) */
static bool check_upsample(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  (void)count;
  kl_type *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type *hi = args[0]->type, *lo = args[1]->type;
  const kl_type *hs = kl_type_scalar_of(hi), *ls = kl_type_scalar_of(lo);
  bool ok = kl_type_is_integer(hs) && kl_type_is_integer(ls) && hs->size == ls->size &&
            hs->size < 8 && !kl_type_is_signed(ls) &&
            (hi->kind == KL_TYPE_VECTOR) == (lo->kind == KL_TYPE_VECTOR) &&
            (hi->kind != KL_TYPE_VECTOR || hi->length == lo->length) && hs->kind != KL_TYPE_SIZE_T;
  if (!ok) {
    kl_error(ctx, call->location,
             "'upsample' takes (hi, lo) with lo the unsigned type of hi's size "
             "(char/uchar, short/ushort, int/uint), not '%s' and '%s'",
             tn(ctx, hi), tn(ctx, lo));
    call->type = int_t;
    return false;
  }
  kl_type_kind k;
  bool s = kl_type_is_signed(hs);
  if (hs->size == 1)
    k = s ? KL_TYPE_SHORT : KL_TYPE_USHORT;
  else if (hs->size == 2)
    k = s ? KL_TYPE_INT : KL_TYPE_UINT;
  else
    k = s ? KL_TYPE_LONG : KL_TYPE_ULONG;
  call->type =
      hi->kind == KL_TYPE_VECTOR ? kl_type_vector(ctx, k, hi->length) : kl_type_scalar(ctx, k);
  return true;
}

/* any and all: a signed integer (vector) */
static bool check_any_all(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  (void)count;
  kl_type *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type *t = args[0]->type;
  call->type = int_t;
  if (!is_int_like(t) || !kl_type_is_signed(t)) {
    kl_error(ctx, args[0]->location,
             "'%s' takes a signed integer (vector), such as a comparison's result, not '%s'",
             call->spelling, tn(ctx, t));
    return false;
  }
  return true;
}

/* bitselect and select */
static bool check_select(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  const kl_builtin *b = call->builtin;
  kl_type *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type *g;
  g = gentype(ctx, call, args, count, 0, 1, false);
  if (!g) {
    call->type = int_t;
    return false;
  }
  args[0] = kl_convert(ctx, args[0], g);
  args[1] = kl_convert(ctx, args[1], g);
  kl_type *c = args[2]->type;
  if (b->id == KL_BUILTIN_BITSELECT) {
    if (!kl_type_equal(c, g) && !(kl_type_is_scalar(c) && g->kind != KL_TYPE_VECTOR)) {
      kl_error(ctx, args[2]->location, "argument 3 of 'bitselect' must be '%s', not '%s'",
               tn(ctx, g), tn(ctx, c));
    } else {
      args[2] = kl_convert(ctx, args[2], g);
    }
    if (kl_type_is_floating(kl_type_scalar_of(g)) && !kl_type_equal(c, g))
      kl_error(ctx, args[2]->location, "argument 3 of 'bitselect' must be '%s'", tn(ctx, g));
  } else {
    int gl = g->kind == KL_TYPE_VECTOR ? g->length : 1;
    int cl = c->kind == KL_TYPE_VECTOR ? c->length : 1;
    if (!is_int_like(c) || gl != cl ||
        (g->kind == KL_TYPE_VECTOR && kl_type_scalar_of(c)->size != kl_type_scalar_of(g)->size)) {
      kl_error(
          ctx, args[2]->location,
          "argument 3 of 'select' must be an integer %s with elements the size of '%s'%s, not '%s'",
          gl > 1 ? "vector" : "scalar", tn(ctx, kl_type_scalar_of(g)),
          gl > 1 ? kl_format(ctx, " (such as %s)", tn(ctx, kl_type_signed_int_like(ctx, g))) : "",
          tn(ctx, c));
    }
  }
  set_args(call, args, count);
  call->type = g;
  return true;
}

/* convert_<type>[_sat][_<rounding>] */
static bool check_convert(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  (void)count;
  const kl_builtin *b = call->builtin;
  kl_type *to = call->type, *from = args[0]->type;
  if (!is_numeric(from)) {
    kl_error(ctx, args[0]->location, "'%s' converts numbers, not '%s'", call->spelling,
             tn(ctx, from));
    return false;
  }
  int tl = to->kind == KL_TYPE_VECTOR ? to->length : 1,
      fl = from->kind == KL_TYPE_VECTOR ? from->length : 1;
  if (tl != fl) {
    kl_error(ctx, call->location, "'%s' converts a value of %d component%s, not '%s'",
             call->spelling, tl, tl == 1 ? "" : "s", tn(ctx, from));
    return false;
  }
  if (b->saturate && !kl_type_is_integer(kl_type_scalar_of(to))) {
    kl_error(ctx, call->location, "'_sat' applies to conversions to integer types only");
    return false;
  }
  /* a rounding mode on an integer-to-integer conversion has no effect */
  return true;
}

/* as_<type>: a reinterpretation of the same size */
static bool check_as(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  (void)count;
  kl_type *to = call->type, *from = args[0]->type;
  if (!is_numeric(from) || from->kind == KL_TYPE_BOOL) {
    kl_error(ctx, args[0]->location, "'%s' reinterprets numbers, not '%s'", call->spelling,
             tn(ctx, from));
    return false;
  }
  int tl = to->kind == KL_TYPE_VECTOR ? to->length : 1,
      fl = from->kind == KL_TYPE_VECTOR ? from->length : 1;
  if (from->size != to->size || ((tl == 3) != (fl == 3))) {
    kl_error(
        ctx, call->location, "'%s' needs an operand of the same size: '%s' has %d bytes, '%s' %d%s",
        call->spelling, tn(ctx, from), from->size, tn(ctx, to), to->size,
        from->size == to->size ? " (3-component vectors reinterpret only as 3-component vectors)"
                               : "");
    return false;
  }
  return true;
}

/* vload<n>(offset, pointer) */
static bool check_vload(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  int width = call->type ? call->type->length : 4;
  call->type = kl_type_vector(ctx, KL_TYPE_FLOAT, width);
  if (!is_int_like(args[0]->type) || args[0]->type->kind == KL_TYPE_VECTOR) {
    kl_error(ctx, args[0]->location, "argument 1 of '%s' is an offset (size_t), not '%s'",
             call->spelling, tn(ctx, args[0]->type));
    return false;
  }
  kl_type *e = pointee_scalar(ctx, call, args[1], "as argument 2");
  if (!e) return false;
  if (!kl_type_is_integer(e) && !kl_type_is_floating(e)) {
    kl_error(ctx, args[1]->location, "'%s' loads from a pointer to a scalar number type, not '%s'",
             call->spelling, tn(ctx, args[1]->type));
    return false;
  }
  if (e->kind == KL_TYPE_SIZE_T || e->kind == KL_TYPE_PTRDIFF_T) {
    kl_error(ctx, args[1]->location, "'%s' of '%s' is not portable", call->spelling, tn(ctx, e));
    return false;
  }
  args[0] = kl_convert(ctx, args[0], kl_type_scalar(ctx, KL_TYPE_SIZE_T));
  set_args(call, args, count);
  call->type = kl_type_vector(ctx, e->kind, width);
  return true;
}

/* vstore<n>(value, offset, pointer) */
static bool check_vstore(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  int width = call->type ? call->type->length : 4;
  call->type = kl_type_scalar(ctx, KL_TYPE_VOID);
  if (!is_int_like(args[1]->type) || args[1]->type->kind == KL_TYPE_VECTOR) {
    kl_error(ctx, args[1]->location, "argument 2 of '%s' is an offset (size_t), not '%s'",
             call->spelling, tn(ctx, args[1]->type));
    return false;
  }
  kl_type *e = pointee_scalar(ctx, call, args[2], "as argument 3");
  if (!e) return false;
  kl_type *want = kl_type_vector(ctx, e->kind, width);
  if (!kl_type_is_integer(e) && !kl_type_is_floating(e)) {
    kl_error(ctx, args[2]->location, "'%s' stores to a pointer to a scalar number type, not '%s'",
             call->spelling, tn(ctx, args[2]->type));
    return false;
  }
  if ((e->qualifiers & KL_QUALIFIER_CONST) || args[2]->type->pointee_space == KL_SPACE_CONSTANT) {
    kl_error(ctx, args[2]->location, "'%s' to a pointer to const ('%s')", call->spelling,
             tn(ctx, args[2]->type));
    return false;
  }
  if (!kl_type_equal(args[0]->type, want)) {
    kl_error(ctx, args[0]->location,
             "argument 1 of '%s' must be '%s' to store through '%s', not '%s'", call->spelling,
             tn(ctx, want), tn(ctx, args[2]->type), tn(ctx, args[0]->type));
    return false;
  }
  args[1] = kl_convert(ctx, args[1], kl_type_scalar(ctx, KL_TYPE_SIZE_T));
  set_args(call, args, count);
  return true;
}

/* The check of each rule: the arguments' types, their conversions, the
 * call's type. */
static bool (*const kl_rule_checks[])(kl_context *ctx, kl_node *call, kl_node **args, int count) = {
    [KL_RULE_WORK_ITEM] = check_work_item,   [KL_RULE_VOID_FENCE] = check_fence,
    [KL_RULE_ATOMIC] = check_atomic,         [KL_RULE_FLOAT] = check_gentype,
    [KL_RULE_SCALAR] = check_gentype,        [KL_RULE_RELATIONAL] = check_gentype,
    [KL_RULE_FLOAT_PTR] = check_out_pointer, [KL_RULE_FLOAT_INTPTR] = check_out_pointer,
    [KL_RULE_FLOAT_INTN] = check_int_second, [KL_RULE_ILOGB] = check_int_second,
    [KL_RULE_INT] = check_integer,           [KL_RULE_UNSIGNED] = check_integer,
    [KL_RULE_ANY] = check_integer,           [KL_RULE_UPSAMPLE] = check_upsample,
    [KL_RULE_ANY_ALL] = check_any_all,       [KL_RULE_SELECT] = check_select,
    [KL_RULE_CONVERT] = check_convert,       [KL_RULE_AS] = check_as,
    [KL_RULE_VLOAD] = check_vload,           [KL_RULE_VSTORE] = check_vstore,
};

bool kl_builtin_check_call(kl_context *ctx, kl_node *call) {
  const kl_builtin *b = call->builtin;
  kl_node *args[8];
  int count = 0;
  for (kl_node *a = call->args; a; a = a->next) {
    if (count < 8) args[count] = a;
    count++;
  }
  if (count < b->min_args || count > b->max_args) {
    kl_error(ctx, call->location, "too %s arguments to function '%s' (%d given, %d expected)",
             count < b->min_args ? "few" : "many", call->spelling, count,
             count < b->min_args ? b->min_args : b->max_args);
    if (!call->type || b->rule == KL_RULE_VLOAD) call->type = kl_type_scalar(ctx, KL_TYPE_INT);
    if (b->rule == KL_RULE_VSTORE) call->type = kl_type_scalar(ctx, KL_TYPE_VOID);
    return false;
  }
  for (int i = 0; i < count; i++)
    if (!args[i]->type) return false;
  if ((size_t)b->rule >= sizeof kl_rule_checks / sizeof kl_rule_checks[0] ||
      !kl_rule_checks[b->rule])
    return false;
  return kl_rule_checks[b->rule](ctx, call, args, count);
}
