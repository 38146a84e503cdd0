// SPDX-License-Identifier: Apache-2.0
/* The builtin function table (OpenCL C 1.2, 6.12) and the lookup of a name
 * in it; the typing of calls is in builtins_check.c. */
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
