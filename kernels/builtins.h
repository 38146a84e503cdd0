// SPDX-License-Identifier: Apache-2.0
/* The kernel language's builtin functions: one table, shared by the parser
 * (which types every call with its OpenCL C result-type rule) and the
 * emitters (which switch on kl_builtin_id).
 *
 * A KL_EXPR_BUILTIN node has:
 *   builtin  -> the table entry (id, canonical name, category, flags)
 *   spelling -> the name as written ("atom_add", "native_sin", "convert_int4_sat_rte")
 *   type     -> the result type (for convert_T / as_T / vloadN: the T or vector type)
 *   args     -> the arguments, already converted (KL_EXPR_CONVERT) to the
 *               parameter types the rule chose, except:
 *                 convert_T / as_T: the one argument, unconverted;
 *                 vloadN(offset, p): offset converted to size_t, p as written;
 *                 vstoreN(data, offset, p): data as written, offset size_t;
 *                 atomics: the pointer as written, values converted to the
 *                 pointee type;
 *                 shifts/ldexp/pown/rootn: the int argument keeps int(n).
 *
 * Entries that share an id are alternative spellings of one operation:
 * atom_add and atomic_add are both KL_BUILTIN_ATOMIC_ADD; native_sin and
 * half_sin are KL_BUILTIN_SIN with `relaxed` set (an emitter may use a fast
 * version or the precise one). convert_T has one entry per saturation and
 * rounding combination, all with id KL_BUILTIN_CONVERT.
 */
#ifndef AGPU_KL_BUILTINS_H
#define AGPU_KL_BUILTINS_H

#include "kl.h"

#define KL_BUILTIN_LIST(X)                                                     \
  /* work-item functions: uint get_work_dim(), size_t get_*(uint dim) */       \
  X(GET_WORK_DIM) X(GET_GLOBAL_SIZE) X(GET_GLOBAL_ID) X(GET_LOCAL_SIZE)        \
  X(GET_LOCAL_ID) X(GET_NUM_GROUPS) X(GET_GROUP_ID) X(GET_GLOBAL_OFFSET)       \
  X(GET_ENQUEUED_LOCAL_SIZE) /* OpenCL C 2.0 */                               \
  /* synchronisation: void f(cl_mem_fence_flags) */                           \
  X(BARRIER) X(MEM_FENCE) X(READ_MEM_FENCE) X(WRITE_MEM_FENCE)                 \
  /* atomics on (volatile) __global or __local int/uint; xchg also float */    \
  X(ATOMIC_ADD) X(ATOMIC_SUB) X(ATOMIC_XCHG) X(ATOMIC_INC) X(ATOMIC_DEC)       \
  X(ATOMIC_CMPXCHG) X(ATOMIC_MIN) X(ATOMIC_MAX) X(ATOMIC_AND) X(ATOMIC_OR)     \
  X(ATOMIC_XOR)                                                                \
  /* math (floating gentype) */                                               \
  X(ACOS) X(ACOSH) X(ACOSPI) X(ASIN) X(ASINH) X(ASINPI) X(ATAN) X(ATAN2)       \
  X(ATANH) X(ATANPI) X(ATAN2PI) X(CBRT) X(CEIL) X(COPYSIGN) X(COS) X(COSH)     \
  X(COSPI) X(ERFC) X(ERF) X(EXP) X(EXP2) X(EXP10) X(EXPM1) X(FABS) X(FDIM)     \
  X(FLOOR) X(FMA) X(FMAX) X(FMIN) X(FMOD) X(HYPOT) X(LDEXP) X(LGAMMA) X(LOG)   \
  X(LOG2) X(LOG10) X(LOG1P) X(LOGB) X(ILOGB) X(MAD) X(MAXMAG) X(MINMAG)        \
  X(NEXTAFTER) X(POW) X(POWN) X(POWR) X(REMAINDER) X(RINT) X(ROOTN) X(ROUND)   \
  X(RSQRT) X(SIN) X(SINH) X(SINPI) X(SQRT) X(TAN) X(TANH) X(TANPI) X(TGAMMA)   \
  X(TRUNC) X(DIVIDE) X(RECIP)                                                  \
  X(FRACT) X(MODF) X(SINCOS) X(FREXP) X(LGAMMA_R) X(REMQUO)                    \
  /* integer (integer gentype) */                                             \
  X(ABS) X(ABS_DIFF) X(ADD_SAT) X(HADD) X(RHADD) X(CLZ) X(POPCOUNT) X(MAD_HI)  \
  X(MAD_SAT) X(MUL_HI) X(ROTATE) X(SUB_SAT) X(UPSAMPLE) X(MAD24) X(MUL24)      \
  /* common: max/min/clamp take integers too */                               \
  X(CLAMP) X(DEGREES) X(MAX) X(MIN) X(MIX) X(RADIANS) X(STEP) X(SMOOTHSTEP)    \
  X(SIGN)                                                                      \
  /* geometric (float/double, scalar or 2/3/4-vectors) */                     \
  X(CROSS) X(DOT) X(DISTANCE) X(LENGTH) X(NORMALIZE) X(FAST_DISTANCE)          \
  X(FAST_LENGTH) X(FAST_NORMALIZE)                                             \
  /* relational */                                                            \
  X(ISEQUAL) X(ISNOTEQUAL) X(ISGREATER) X(ISGREATEREQUAL) X(ISLESS)            \
  X(ISLESSEQUAL) X(ISLESSGREATER) X(ISFINITE) X(ISINF) X(ISNAN) X(ISNORMAL)    \
  X(ISORDERED) X(ISUNORDERED) X(SIGNBIT) X(ANY) X(ALL) X(BITSELECT) X(SELECT)  \
  /* conversions and loads */                                                 \
  X(CONVERT) X(AS) X(VLOAD) X(VSTORE)

typedef enum kl_builtin_id {
#define KL_BUILTIN_ENUM_(name) KL_BUILTIN_##name,
  KL_BUILTIN_LIST(KL_BUILTIN_ENUM_)
#undef KL_BUILTIN_ENUM_
  KL_BUILTIN_COUNT
} kl_builtin_id;

typedef enum kl_builtin_category {
  KL_BUILTIN_WORK_ITEM,
  KL_BUILTIN_SYNC,
  KL_BUILTIN_ATOMIC,
  KL_BUILTIN_MATH,
  KL_BUILTIN_INTEGER,
  KL_BUILTIN_COMMON,
  KL_BUILTIN_GEOMETRIC,
  KL_BUILTIN_RELATIONAL,
  KL_BUILTIN_CONVERSION, /* convert_T, as_T */
  KL_BUILTIN_MEMORY,     /* vloadN, vstoreN */
} kl_builtin_category;

/* How the result type follows from the arguments (OpenCL C 1.2, 6.12). */
typedef enum kl_builtin_rule {
  KL_RULE_WORK_ITEM,  /* size_t f(uint); get_work_dim: uint f(void) */
  KL_RULE_VOID_FENCE, /* void f(flags) */
  KL_RULE_ATOMIC,     /* T f(volatile space T *p, T...): T is the pointee */
  KL_RULE_FLOAT,      /* gentype f(gentype...), floating gentype; scalar args widen to gentype */
  KL_RULE_FLOAT_INTN, /* ldexp/pown/rootn: gentype f(gentype, intn) */
  KL_RULE_ILOGB,      /* intn f(floatn) */
  KL_RULE_FLOAT_PTR,  /* fract/modf/sincos: gentype f(gentype, gentype *out) */
  KL_RULE_FLOAT_INTPTR, /* frexp/lgamma_r: gentype f(gentype, intn *out); remquo(x, y, intn *out) */
  KL_RULE_INT,        /* gentype f(gentype...), integer gentype */
  KL_RULE_UNSIGNED,   /* abs/abs_diff: ugentype f(gentype...) */
  KL_RULE_UPSAMPLE,   /* upsample(hi, ulo): twice the width */
  KL_RULE_ANY,        /* max/min/clamp: integer or floating gentype */
  KL_RULE_SCALAR,     /* dot/length/distance: the scalar of a floating gentype */
  KL_RULE_RELATIONAL, /* int for scalars, intn (same element size, signed) for vectors */
  KL_RULE_ANY_ALL,    /* int f(igentype) */
  KL_RULE_SELECT,     /* select(a, b, c) -> type of a; bitselect the same */
  KL_RULE_CONVERT,    /* convert_T */
  KL_RULE_AS,         /* as_T: same size, reinterpreted */
  KL_RULE_VLOAD,      /* vloadN(size_t, const space T*) -> Tn */
  KL_RULE_VSTORE,     /* vstoreN(Tn, size_t, space T*) -> void */
} kl_builtin_rule;

typedef enum kl_rounding {
  KL_ROUND_DEFAULT, /* convert_T: rtz to integers, rte to floating */
  KL_ROUND_RTE,
  KL_ROUND_RTZ,
  KL_ROUND_RTP,
  KL_ROUND_RTN,
} kl_rounding;

struct kl_builtin {
  kl_builtin_id id;
  const char *name;       /* the spelling of this entry ("atom_add", "convert"; "convert_sat_rte") */
  const char *canonical;  /* the OpenCL 1.2 spelling of the operation ("atomic_add", "sin") */
  kl_builtin_category category;
  kl_builtin_rule rule;
  int min_args, max_args;
  bool relaxed;           /* native_X / half_X: any precision is allowed */
  bool saturate;          /* convert_T_sat */
  kl_rounding rounding;   /* convert_T_rXX */
};

/* The entry for a name as written (the builtins' namespace is separate
 * from user functions', but a user function of the same name is rejected).
 * convert_T... / as_T / vloadN / vstoreN are matched by their prefix; the T
 * or N is returned through *type_out (may be NULL) as a kl_type made in ctx.
 * NULL when the name is not a builtin. */
const kl_builtin *kl_builtin_lookup(kl_context *ctx, const char *name, int length,
                                    kl_type **type_out);

/* The entry with this id and default flags (the first spelling). */
const kl_builtin *kl_builtin_get(kl_builtin_id id);

/* "GET_GLOBAL_ID" style names are not exposed; this gives "get_global_id". */
const char *kl_builtin_id_name(kl_builtin_id id);

/* Types a call: converts the arguments in place (inserting KL_EXPR_CONVERT)
 * and sets call->type, or reports an error at the call and returns false.
 * Used by the parser; emitters need not call it. */
bool kl_builtin_check_call(kl_context *ctx, kl_node *call);

#endif /* AGPU_KL_BUILTINS_H */
