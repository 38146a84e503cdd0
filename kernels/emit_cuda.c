// SPDX-License-Identifier: Apache-2.0
/* The CUDA C++ (NVRTC) and HIP C++ (hiprtc) emitter.
 *
 * The output is one translation unit: a prelude (kernels/cuda_prelude.c)
 * that gives C++ the OpenCL C types and builtins (vector types _clv<T, N>
 * with OpenCL's sizes and alignments and with operators, swizzle helpers,
 * half, conversions with OpenCL's rounding and saturation, the integer,
 * math, common, geometric and relational builtins, vloadN/vstoreN,
 * atomics), then, in namespace kl, the program's structs, __constant
 * variables, helper functions (static __device__) and kernels (extern "C"
 * __global__, so their names are unmangled).
 *
 * Launch ABI (kernels/cuda_abi.h has the host-side struct):
 *  - parameters keep their order; a __global/__constant pointer is a device
 *    pointer, a scalar, vector or struct is passed by value with OpenCL's
 *    layout (a 3-vector takes 4 components);
 *  - a __local pointer parameter becomes a `uint` byte offset into the
 *    kernel's dynamic shared memory (extern __shared__ _cl_dynamic_shared[]):
 *    the runtime lays the __local arguments out in parameter order, each at a
 *    multiple of 16 bytes, passes each one's offset, and launches with the
 *    total as the dynamic shared memory size;
 *  - one hidden parameter follows the others: struct _agpu_launch by value
 *    (32 bytes: uint group_offset[3], uint work_dim, uint num_groups[3],
 *    uint last_short), so that get_group_id/get_global_id stay right when the
 *    runtime splits a grid over several launches, and get_num_groups,
 *    get_global_size and get_work_dim give the whole launch's values.
 *
 * OpenCL semantics kept: shift counts masked to the promoted width; signed
 * division and remainder as C (the same in CUDA); abs returns unsigned;
 * comparisons of vectors give -1/0 masks; convert_T_sat and the rounding
 * modes; float-to-int casts use the device's saturating conversion.
 * half is a 2-byte type of the prelude (_cl_half) whose arithmetic is done
 * in float and rounded to half after each operation; constant half
 * expressions are folded to their bits here.
 * HIP differs from CUDA only in the prelude's target part
 * (kernels/cuda_prelude.h).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "builtins.h"
#include "cuda_abi.h"
#include "cuda_prelude.h"
#include "emit_cuda_names.h"
#include "emit_isolate.h"
#include "gpu_emit.h"
#include "translate.h"

/* ------------------------------------------------------------------ */

typedef struct cuda_emitter {
  kl_context *ctx;
  const kl_program *program;
  klg_buf out;
  bool hip;
  bool failed;
  const kl_function *function; /* being emitted */
  const char *last_failure;
  const kl_node *volatile_raw; /* a volatile vector lvalue printed as is (an assignment's) */
  klg_c_printer printer;       /* statements and the expressions C-syntax targets share */
} cuda_emitter;

static void cuda_fail(cuda_emitter *e, kl_location at, const char *what) {
  if (e->failed && e->last_failure && strcmp(e->last_failure, what) == 0)
    return; /* once is enough */
  e->last_failure = what;
  kl_error(e->ctx, at, "the %s target does not support %s", e->hip ? "HIP" : "CUDA", what);
  e->failed = true;
}

/* A user identifier as printed. The program's own names live in namespace
 * kl, so that they cannot collide with the headers' functions and types;
 * what remains to escape are C++ words, the headers' macros and names
 * with the vendors' prefixes. */
static const char *cuda_name(cuda_emitter *e, const char *name) {
  const char *printed = klg_ident(e->ctx, name, kl_cuda_reserved, false);
  if (printed == name && kl_cuda_vendor_name(name)) printed = kl_format(e->ctx, "kl_%s", name);
  return printed;
}

/* A struct's tag or typedef name, escaped as other names; "_cl_struct<N>" for
 * an anonymous one. */
static const char *cuda_struct_name(cuda_emitter *e, const kl_type *t) {
  const char *name = klg_struct_name(e->ctx, e->program, t);
  return strncmp(name, "_cl_struct", 10) == 0 ? name : cuda_name(e, name);
}

static const char *cuda_scalar(cuda_emitter *e, const kl_type *t, kl_location at) {
  switch (t->kind) { /* CUDA's names where OpenCL C's differ (the prelude typedefs the others) */
    case KL_TYPE_CHAR:
      return "signed char";
    case KL_TYPE_LONG:
    case KL_TYPE_PTRDIFF_T:
      return "llong";
    case KL_TYPE_ULONG:
    case KL_TYPE_SIZE_T:
      return "ullong";
    case KL_TYPE_HALF:
      return "_cl_half";
    default: {
      const char *name = kl_scalar_spelling(t->kind);
      return name ? name : "int";
    }
  }
}

/* A type without declarator parts (arrays are handled by cuda_decl). */
static const char *cuda_type(cuda_emitter *e, const kl_type *t, kl_location at) {
  if (!t) return "void";
  switch (t->kind) {
    case KL_TYPE_VECTOR:
      return kl_format(e->ctx, "_clv<%s, %d>", cuda_scalar(e, t->element, at), t->length);
    case KL_TYPE_STRUCT:
      return cuda_struct_name(e, t);
    case KL_TYPE_POINTER: {
      const kl_type *p = t->element;
      const char *q = "";
      if (p->qualifiers & KL_QUALIFIER_CONST) q = kl_format(e->ctx, "%sconst ", q);
      if (p->qualifiers & KL_QUALIFIER_VOLATILE) q = kl_format(e->ctx, "%svolatile ", q);
      if (p->kind == KL_TYPE_ARRAY || p->kind == KL_TYPE_POINTER || p->kind == KL_TYPE_FUNCTION) {
        cuda_fail(e, at, "pointers to pointers, arrays or functions");
        return "void*";
      }
      return kl_format(e->ctx, "%s%s*%s", q, cuda_type(e, p, at),
                       (t->qualifiers & KL_QUALIFIER_RESTRICT) ? " __restrict__" : "");
    }
    case KL_TYPE_ARRAY:
      return cuda_type(e, t->element, at);
    case KL_TYPE_FUNCTION:
      cuda_fail(e, at, "function types");
      return "void";
    default:
      return cuda_scalar(e, t, at);
  }
}

static const char *cuda_decl(cuda_emitter *e, const kl_type *t, const char *name, kl_location at) {
  const char *dims = "";
  while (t->kind == KL_TYPE_ARRAY) {
    dims = kl_format(e->ctx, "%s[%d]", dims, t->length);
    t = t->element;
  }
  const char *cv =
      (t->kind != KL_TYPE_POINTER && (t->qualifiers & KL_QUALIFIER_CONST)) ? "const " : "";
  return kl_format(e->ctx, "%s%s %s%s", cv, cuda_type(e, t, at), name, dims);
}

static void cuda_expr(cuda_emitter *e, const kl_node *n);

/* The bits of the half nearest to v (ties to even). */
static uint16_t cuda_half_bits(double v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (a != a) return 0x7e00;
  if (a >= 65520.0) return sign | 0x7c00; /* 65504 and half its ulp: rounds to infinity */
  if (a < 0x1p-14)
    return sign | (uint16_t)nearbyint(a * 0x1p24); /* subnormal; 1024 is the smallest normal */
  int exponent;
  frexp(a, &exponent);                                  /* a in [2^(exponent-1), 2^exponent) */
  double mantissa = nearbyint(ldexp(a, 11 - exponent)); /* in [1024, 2048] */
  if (mantissa == 2048.0) {
    mantissa = 1024.0;
    exponent++;
  }
  if (exponent - 1 > 15) return sign | 0x7c00;
  return sign | (uint16_t)(((exponent - 1 + 15) << 10) | ((int)mantissa - 1024));
}

static double cuda_half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* The value of a constant floating expression made of literals, signs and
 * conversions between scalars, rounded as the target rounds it; false if n
 * is anything else. */
static bool cuda_fold_constant(const kl_node *n, double *value) {
  const kl_type *t = n->type;
  double v;
  switch (n->kind) {
    case KL_EXPR_FLOAT_LITERAL:
      v = n->float_value;
      break;
    case KL_EXPR_INT_LITERAL: {
      if (!kl_type_is_integer(t)) return false;
      int bits = klg_bits(t);
      uint64_t u = bits < 64 ? n->int_value & ((UINT64_C(1) << bits) - 1) : n->int_value;
      bool negative = kl_type_is_signed(t) && (u >> (bits - 1)) & 1;
      v = negative ? -(double)((~u + 1) & (bits < 64 ? (UINT64_C(1) << bits) - 1 : UINT64_MAX))
                   : (double)u;
      break;
    }
    case KL_EXPR_UNARY:
      /* integer negation only where it cannot wrap: signed, and not of the most negative value */
      if ((n->op != KL_OP_NEGATE && n->op != KL_OP_PLUS) ||
          !(kl_type_is_floating(t) || (kl_type_is_integer(t) && kl_type_is_signed(t))) ||
          !cuda_fold_constant(n->lhs, &v))
        return false;
      if (n->op == KL_OP_NEGATE) {
        if (kl_type_is_integer(t) && v <= -ldexp(1.0, klg_bits(t) - 1)) return false;
        v = -v;
      }
      break;
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      if (!kl_type_is_floating(t) || !kl_type_is_scalar(n->lhs->type) ||
          !cuda_fold_constant(n->lhs, &v))
        return false;
      break;
    default:
      return false;
  }
  if (t->kind == KL_TYPE_HALF)
    v = cuda_half_value(cuda_half_bits(v));
  else if (t->kind == KL_TYPE_FLOAT)
    v = (double)(float)v;
  else if (t->kind != KL_TYPE_DOUBLE && !kl_type_is_integer(t))
    return false;
  *value = v;
  return true;
}

/* A half constant as its bits (usable in __constant__ initialisers). */
static bool cuda_half_constant(cuda_emitter *e, const kl_node *n) {
  double v;
  if (!n->type || n->type->kind != KL_TYPE_HALF || !cuda_fold_constant(n, &v)) return false;
  klg_printf(&e->out, "_cl_hb(0x%04x)", cuda_half_bits(v));
  return true;
}

static void cuda_int_literal(cuda_emitter *e, const kl_type *t, uint64_t v) {
  static const klg_int_spelling spelling = {"ll", "ull", "(-9223372036854775807ll - 1)", true};
  if (!klg_int_literal(&e->out, t, v, &spelling))
    klg_printf(&e->out, "((%s)%lld)", cuda_scalar(e, t, (kl_location){0}), (long long)(int64_t)v);
}

static void cuda_float_literal(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  double v = n->float_value;
  bool is_float = n->type->kind != KL_TYPE_DOUBLE;
  if (v != v) {
    klg_puts(
        o, is_float ? "__int_as_float(0x7fc00000)" : "__longlong_as_double(0x7ff8000000000000ll)");
  } else if (isinf(v)) {
    if (is_float)
      klg_puts(o, v > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float((int)0xff800000u)");
    else
      klg_puts(o, v > 0 ? "__longlong_as_double(0x7ff0000000000000ll)"
                        : "__longlong_as_double((llong)0xfff0000000000000ull)");
  } else if (is_float) {
    klg_printf(o, "%af", (double)(float)v);
  } else {
    klg_printf(o, "%a", v);
  }
}

/* The launch-info argument a call needs: every helper takes it last. */
static const char *cuda_launch_arg(void) {
  return "_cl_L";
}

static void cuda_args(cuda_emitter *e, const kl_node *args) {
  klg_c_arguments(&e->printer, args);
}

static bool cuda_fence_is_local_only(const kl_node *flags) {
  flags = klg_strip_convert(flags);
  return flags && flags->kind == KL_EXPR_INT_LITERAL && flags->int_value == 1;
}

static void cuda_builtin(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  const kl_builtin *b = n->builtin;
  const kl_node *a0 = n->args, *a1 = a0 ? a0->next : NULL;
  switch (b->id) {
    case KL_BUILTIN_GET_WORK_DIM:
      klg_printf(o, "_cl_work_dim(%s)", cuda_launch_arg());
      return;
    case KL_BUILTIN_GET_GLOBAL_ID:
    case KL_BUILTIN_GET_GLOBAL_SIZE:
    case KL_BUILTIN_GET_GROUP_ID:
    case KL_BUILTIN_GET_NUM_GROUPS:
    case KL_BUILTIN_GET_ENQUEUED_LOCAL_SIZE: {
      const char *f = b->id == KL_BUILTIN_GET_GLOBAL_ID     ? "_cl_global_id"
                      : b->id == KL_BUILTIN_GET_GLOBAL_SIZE ? "_cl_global_size"
                      : b->id == KL_BUILTIN_GET_GROUP_ID    ? "_cl_group_id"
                      : b->id == KL_BUILTIN_GET_NUM_GROUPS  ? "_cl_num_groups"
                                                            : "_cl_enqueued_local_size";
      klg_printf(o, "%s(%s, (uint)(", f, cuda_launch_arg());
      cuda_expr(e, a0);
      klg_puts(o, "))");
      return;
    }
    case KL_BUILTIN_GET_LOCAL_ID:
    case KL_BUILTIN_GET_LOCAL_SIZE:
    case KL_BUILTIN_GET_GLOBAL_OFFSET: {
      const char *f = b->id == KL_BUILTIN_GET_LOCAL_ID     ? "_cl_local_id"
                      : b->id == KL_BUILTIN_GET_LOCAL_SIZE ? "_cl_local_size"
                                                           : "_cl_global_offset";
      klg_printf(o, "%s((uint)(", f);
      cuda_expr(e, a0);
      klg_puts(o, "))");
      return;
    }
    case KL_BUILTIN_BARRIER:
      klg_puts(o, "__syncthreads()");
      return;
    case KL_BUILTIN_MEM_FENCE:
    case KL_BUILTIN_READ_MEM_FENCE:
    case KL_BUILTIN_WRITE_MEM_FENCE:
      klg_puts(o, cuda_fence_is_local_only(a0) ? "__threadfence_block()" : "__threadfence()");
      return;
    case KL_BUILTIN_ATOMIC_ADD:
    case KL_BUILTIN_ATOMIC_SUB:
    case KL_BUILTIN_ATOMIC_XCHG:
    case KL_BUILTIN_ATOMIC_INC:
    case KL_BUILTIN_ATOMIC_DEC:
    case KL_BUILTIN_ATOMIC_CMPXCHG:
    case KL_BUILTIN_ATOMIC_MIN:
    case KL_BUILTIN_ATOMIC_MAX:
    case KL_BUILTIN_ATOMIC_AND:
    case KL_BUILTIN_ATOMIC_OR:
    case KL_BUILTIN_ATOMIC_XOR:
      klg_printf(o, "_cl_%s(_cl_nv(", b->canonical);
      cuda_expr(e, a0);
      klg_puts(o, ")");
      for (const kl_node *a = a1; a; a = a->next) {
        klg_puts(o, ", ");
        cuda_expr(e, a);
      }
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_CONVERT: {
      const kl_type *to = kl_type_scalar_of(n->type);
      klg_printf(o, "_cl_convert<%s, %d, %d>(", cuda_scalar(e, to, n->location),
                 b->saturate ? 1 : 0, (int)b->rounding);
      cuda_expr(e, a0);
      klg_puts(o, ")");
      return;
    }
    case KL_BUILTIN_AS:
      klg_printf(o, "_cl_as<%s>(", cuda_type(e, n->type, n->location));
      cuda_expr(e, a0);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_VLOAD:
      klg_printf(o, "_cl_vload<%d>(", n->type->length);
      cuda_args(e, a0);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_VSTORE:
      klg_puts(o, "_cl_vstore(");
      cuda_args(e, a0);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_FAST_LENGTH:
      klg_puts(o, "_cl_length(");
      break;
    case KL_BUILTIN_FAST_DISTANCE:
      klg_puts(o, "_cl_distance(");
      break;
    case KL_BUILTIN_FAST_NORMALIZE:
      klg_puts(o, "_cl_normalize(");
      break;
    case KL_BUILTIN_SIN:
    case KL_BUILTIN_COS:
    case KL_BUILTIN_EXP:
    case KL_BUILTIN_LOG:
    case KL_BUILTIN_DIVIDE:
      if (n->spelling && strncmp(n->spelling, "native_", 7) == 0) {
        klg_printf(o, "_cl_fast_%s(", b->canonical);
        break;
      }
      klg_printf(o, "_cl_%s(", b->canonical);
      break;
    default:
      klg_printf(o, "_cl_%s(", b->canonical);
      break;
  }
  cuda_args(e, a0);
  klg_puts(o, ")");
}

static void cuda_swizzle_indices(cuda_emitter *e, const int *c, int count) {
  for (int i = 0; i < count; i++) klg_printf(&e->out, i ? ", %d" : "%d", c[i]);
}

/* lvalue: the swizzle is assigned to (a reference proxy for several components). */
static void cuda_swizzle(cuda_emitter *e, const kl_node *n, bool lvalue) {
  int c[16], count;
  const kl_node *base = klg_fold_swizzle(n, c, &count);
  if (count == 1) {
    klg_puts(&e->out, "(");
    cuda_expr(e, base);
    klg_printf(&e->out, ").s[%d]", c[0]);
    return;
  }
  klg_printf(&e->out, lvalue ? "_cl_swzr<" : "_cl_swz<");
  cuda_swizzle_indices(e, c, count);
  klg_puts(&e->out, ">(");
  cuda_expr(e, base);
  klg_puts(&e->out, ")");
}

static void cuda_lvalue(cuda_emitter *e, const kl_node *n) {
  if (n->kind == KL_EXPR_SWIZZLE)
    cuda_swizzle(e, n, true);
  else
    cuda_expr(e, n);
}

/* A scalar conversion of the emitted expression to `to`. */
static void cuda_convert_to(cuda_emitter *e, const kl_type *to, const kl_node *from,
                            kl_location at) {
  klg_buf *o = &e->out;
  const kl_type *ft = from->type;
  if (to->kind == KL_TYPE_VECTOR) {
    if (klg_is_vector(ft)) {
      if (kl_type_equal(kl_type_scalar_of(ft), to->element)) {
        cuda_expr(e, from);
        return;
      }
      klg_printf(o, "_cl_convert<%s, 0, 0>(", cuda_scalar(e, to->element, at));
      cuda_expr(e, from);
      klg_puts(o, ")");
      return;
    }
    klg_printf(o, "_cl_splat<%s, %d>((%s)(", cuda_scalar(e, to->element, at), to->length,
               cuda_scalar(e, to->element, at));
    cuda_expr(e, from);
    klg_puts(o, "))");
    return;
  }
  /* an array of arrays decaying to a pointer to its rows: C++ decays it
   * the same way, and the row pointer's type has no spelling here */
  bool decay_to_rows = to->kind == KL_TYPE_POINTER && to->element->kind == KL_TYPE_ARRAY &&
                       ft->kind == KL_TYPE_ARRAY;
  if (to->kind == KL_TYPE_STRUCT || to->kind == KL_TYPE_VOID || kl_type_equal(to, ft) ||
      decay_to_rows) {
    if (to->kind == KL_TYPE_VOID) klg_puts(o, "(void)");
    cuda_expr(e, from);
    return;
  }
  klg_printf(o, "((%s)(", cuda_type(e, to, at));
  cuda_expr(e, from);
  klg_puts(o, "))");
}

/* A vector literal: a splat of one scalar, or the parts in order. */
static void cuda_vector_literal(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  const kl_type *t = n->type;
  const char *el = cuda_scalar(e, t->element, n->location);
  if (n->arg_count == 1 && !klg_is_vector(n->args->type)) {
    klg_printf(o, "_cl_splat<%s, %d>((%s)(", el, t->length, el);
    cuda_expr(e, n->args);
    klg_puts(o, "))");
    return;
  }
  klg_printf(o, "_cl_make<%s, %d>(", el, t->length);
  for (const kl_node *a = n->args; a; a = a->next) {
    if (!klg_is_vector(a->type)) {
      klg_printf(o, "(%s)(", el);
      cuda_expr(e, a);
      klg_puts(o, ")");
    } else {
      cuda_expr(e, a);
    }
    if (a->next) klg_puts(o, ", ");
  }
  klg_puts(o, ")");
}

/* Unary operators; increments and decrements on an lvalue. */
static void cuda_unary(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  switch (n->op) {
    case KL_OP_POST_INCREMENT:
    case KL_OP_POST_DECREMENT:
      klg_puts(o, "(");
      cuda_lvalue(e, n->lhs);
      klg_puts(o, n->op == KL_OP_POST_INCREMENT ? "++)" : "--)");
      return;
    case KL_OP_PRE_INCREMENT:
    case KL_OP_PRE_DECREMENT:
      klg_puts(o, n->op == KL_OP_PRE_INCREMENT ? "(++" : "(--");
      cuda_lvalue(e, n->lhs);
      klg_puts(o, ")");
      return;
    default:
      break;
  }
  klg_puts(o, n->op == KL_OP_NEGATE        ? "(-"
              : n->op == KL_OP_PLUS        ? "(+"
              : n->op == KL_OP_LOGICAL_NOT ? "(!"
              : n->op == KL_OP_BIT_NOT     ? "(~"
              : n->op == KL_OP_DEREFERENCE ? "(*"
                                           : "(&");
  cuda_expr(e, n->lhs);
  klg_puts(o, ")");
}

/* Assignments; a shift's count masked to the promoted left operand's width
 * as OpenCL does. */
static void cuda_assign(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  klg_puts(o, "(");
  cuda_lvalue(e, n->lhs);
  if (n->op == KL_OP_NONE) {
    klg_puts(o, " = ");
    cuda_expr(e, n->rhs);
  } else if ((n->op == KL_OP_SHL || n->op == KL_OP_SHR) && !klg_is_vector(n->lhs->type)) {
    int bits = klg_bits(kl_type_scalar_of(n->operation_type)); /* the promoted left operand */
    klg_printf(o, " %s= ((", kl_operator_text(n->op));
    cuda_expr(e, n->rhs);
    klg_printf(o, ") & %d)", bits - 1);
  } else {
    klg_printf(o, " %s= ", kl_operator_text(n->op));
    cuda_expr(e, n->rhs);
  }
  klg_puts(o, ")");
}

/* An element of a volatile vector pointer: p[i] or *p. */
static bool cuda_is_volatile_vector(const kl_node *n) {
  return n && n->type && n->type->kind == KL_TYPE_VECTOR &&
         (n->type->qualifiers & KL_QUALIFIER_VOLATILE) &&
         (n->kind == KL_EXPR_INDEX || (n->kind == KL_EXPR_UNARY && n->op == KL_OP_DEREFERENCE));
}

/* CUDA's vector types are aggregates without a volatile copy or
 * assignment: a whole vector through a volatile pointer is read with
 * _cl_vld(&p[i]) and written with _cl_vst(&p[i], v), component by
 * component; a component (p[i].x = 1) keeps the volatile lvalue. Returns
 * whether n was printed. */
static bool cuda_volatile_vector(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  if (n == e->volatile_raw) {
    e->volatile_raw = NULL;
    return false;
  }
  const kl_node *target =
      n->kind == KL_EXPR_ASSIGN ? n->lhs
      : n->kind == KL_EXPR_UNARY && n->op >= KL_OP_PRE_INCREMENT && n->op <= KL_OP_ADDRESS_OF
          ? n->lhs
          : NULL;
  if (n->kind == KL_EXPR_UNARY && n->op == KL_OP_ADDRESS_OF && cuda_is_volatile_vector(n->lhs)) {
    e->volatile_raw = n->lhs; /* &p[i]: the pointer itself */
    return false;
  }
  if (target && (target->kind == KL_EXPR_SWIZZLE || target->kind == KL_EXPR_MEMBER) &&
      cuda_is_volatile_vector(target->lhs)) {
    e->volatile_raw = target->lhs; /* p[i].x = v: a volatile uint */
    return false;
  }
  if (n->kind == KL_EXPR_ASSIGN && cuda_is_volatile_vector(n->lhs)) {
    static const char *const ops[] = {
        [KL_OP_ADD] = "+",     [KL_OP_SUB] = "-",    [KL_OP_MUL] = "*",
        [KL_OP_BIT_AND] = "&", [KL_OP_BIT_OR] = "|", [KL_OP_BIT_XOR] = "^"};
    const char *op = (size_t)n->op < sizeof ops / sizeof ops[0] ? ops[n->op] : NULL;
    if (n->op != KL_OP_NONE && !op) {
      cuda_fail(e, n->location, "this compound assignment through a volatile vector pointer");
      return true;
    }
    klg_puts(o, "_cl_vst(&(");
    e->volatile_raw = n->lhs;
    cuda_expr(e, n->lhs);
    klg_puts(o, "), ");
    if (op) {
      klg_puts(o, "_cl_vld(&(");
      e->volatile_raw = n->lhs;
      cuda_expr(e, n->lhs);
      klg_printf(o, ")) %s ", op);
    }
    klg_puts(o, "(");
    cuda_expr(e, n->rhs);
    klg_puts(o, "))");
    return true;
  }
  if (!cuda_is_volatile_vector(n)) return false;
  klg_puts(o, "_cl_vld(&(");
  e->volatile_raw = n;
  cuda_expr(e, n);
  klg_puts(o, "))");
  return true;
}

static void cuda_expr(cuda_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  if (!n || cuda_half_constant(e, n) || cuda_volatile_vector(e, n)) return;
  switch (n->kind) {
    case KL_EXPR_INT_LITERAL:
      cuda_int_literal(e, n->type, n->int_value);
      return;
    case KL_EXPR_FLOAT_LITERAL:
      cuda_float_literal(e, n);
      return;
    case KL_EXPR_VARIABLE:
      klg_puts(o, cuda_name(e, n->variable->name));
      return;
    case KL_EXPR_VECTOR_LITERAL:
      cuda_vector_literal(e, n);
      return;
    case KL_EXPR_UNARY:
      cuda_unary(e, n);
      return;
    case KL_EXPR_BINARY:
      if ((n->op == KL_OP_SHL || n->op == KL_OP_SHR) && !klg_is_vector(n->type)) {
        /* OpenCL masks the count to the width of the (promoted) left operand */
        klg_puts(o, "(");
        cuda_expr(e, n->lhs);
        klg_printf(o, " %s ((", kl_operator_text(n->op));
        cuda_expr(e, n->rhs);
        klg_printf(o, ") & %d))", klg_bits(kl_type_scalar_of(n->type)) - 1);
        return;
      }
      break;
    case KL_EXPR_ASSIGN:
      cuda_assign(e, n);
      return;
    case KL_EXPR_CONDITIONAL:
      if (klg_is_vector(n->condition->type)) {
        klg_puts(o, "_cl_vcond(");
        cuda_expr(e, n->condition);
        klg_puts(o, ", ");
        cuda_expr(e, n->then);
        klg_puts(o, ", ");
        cuda_expr(e, n->otherwise);
        klg_puts(o, ")");
        return;
      }
      break;
    case KL_EXPR_CALL:
      klg_printf(o, "%s(", cuda_name(e, n->function->name));
      cuda_args(e, n->args);
      klg_printf(o, "%s%s)", n->args ? ", " : "", cuda_launch_arg());
      return;
    case KL_EXPR_BUILTIN:
      cuda_builtin(e, n);
      return;
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
      cuda_convert_to(e, n->type, n->lhs, n->location);
      return;
    case KL_EXPR_INDEX:
      if (!klg_is_vector(n->lhs->type)) break;
      klg_puts(o, "(");
      cuda_expr(e, n->lhs);
      klg_puts(o, ").s[");
      cuda_expr(e, n->rhs);
      klg_puts(o, "]");
      return;
    case KL_EXPR_SWIZZLE:
      cuda_swizzle(e, n, false);
      return;
    default:
      break;
  }
  if (!klg_c_expression(&e->printer, n)) cuda_fail(e, n->location, "this expression");
}

/* A vector literal as an aggregate initializer (constant initialisation). */
static void cuda_const_vector_parts(cuda_emitter *e, const kl_node *n, int *count) {
  n = klg_strip_convert(n);
  if (n->kind == KL_EXPR_VECTOR_LITERAL) {
    if (n->arg_count == 1 && !klg_is_vector(n->args->type)) {
      for (int i = 0; i < n->type->length; i++) cuda_const_vector_parts(e, n->args, count);
      return;
    }
    for (const kl_node *a = n->args; a; a = a->next) cuda_const_vector_parts(e, a, count);
    return;
  }
  if (klg_is_vector(n->type)) {
    cuda_fail(e, n->location, "this vector in a constant initializer");
    return;
  }
  klg_puts(&e->out, (*count)++ ? ", " : "");
  cuda_expr(e, n);
}

static void cuda_initializer(cuda_emitter *e, const kl_node *init);

static void cuda_constant_initializer(cuda_emitter *e, const kl_type *t, const kl_node *init) {
  const kl_node *s = klg_strip_convert(init);
  if (klg_is_vector(t) && s->kind == KL_EXPR_VECTOR_LITERAL) {
    int count = 0;
    klg_puts(&e->out, "{{");
    cuda_const_vector_parts(e, s, &count);
    klg_puts(&e->out, "}}");
    return;
  }
  if (init->kind == KL_EXPR_INIT_LIST) {
    klg_puts(&e->out, "{");
    const kl_member *m = t->kind == KL_TYPE_STRUCT ? t->members : NULL;
    int si = t->kind == KL_TYPE_STRUCT ? klg_struct_index(e->program, t) : -1;
    if (si >= 0) m = e->program->structs[si]->members;
    for (const kl_node *a = init->args; a; a = a->next) {
      const kl_type *et = t->kind == KL_TYPE_ARRAY ? t->element : m ? m->type : a->type;
      cuda_constant_initializer(e, et, a);
      if (m) m = m->next;
      if (a->next) klg_puts(&e->out, ", ");
    }
    klg_puts(&e->out, "}");
    return;
  }
  cuda_expr(e, init);
}

static void cuda_initializer(cuda_emitter *e, const kl_node *init) {
  if (init->kind == KL_EXPR_INIT_LIST) {
    klg_puts(&e->out, "{");
    for (const kl_node *a = init->args; a; a = a->next) {
      cuda_initializer(e, a);
      if (a->next) klg_puts(&e->out, ", ");
    }
    klg_puts(&e->out, "}");
    return;
  }
  cuda_expr(e, init);
}

static void cuda_declaration(cuda_emitter *e, const kl_variable *v) {
  klg_buf *o = &e->out;
  const char *name = cuda_name(e, v->name);
  if (v->space == KL_SPACE_LOCAL) {
    klg_printf(o, "__shared__ %s", cuda_decl(e, v->type, name, v->location));
  } else {
    klg_puts(o, cuda_decl(e, v->type, name, v->location));
  }
  if (v->initializer) {
    klg_puts(o, " = ");
    cuda_initializer(e, v->initializer);
  }
}

static void cuda_expression_callback(void *e, const kl_node *n) {
  cuda_expr(e, n);
}
static void cuda_declaration_callback(void *e, const kl_variable *v) {
  cuda_declaration(e, v);
}
static void cuda_fail_callback(void *e, kl_location at, const char *what) {
  cuda_fail(e, at, what);
}

static void cuda_stmt(cuda_emitter *e, const kl_node *n, int depth) {
  klg_c_statement(&e->printer, n, depth);
}

static void cuda_struct(cuda_emitter *e, const kl_type *t) {
  klg_buf *o = &e->out;
  /* EDG reads a struct's attributes before its name only */
  klg_printf(o, "%s%s %s {\n", t->is_union ? "union" : "struct",
             kl_struct_gnu_attributes(e->ctx, t), cuda_struct_name(e, t));
  for (const kl_member *m = t->members; m; m = m->next)
    klg_printf(o, "  %s%s;\n", cuda_decl(e, m->type, m->name, m->location),
               kl_member_gnu_attributes(e->ctx, m));
  /* OpenCL C's layout, as the front end computed it, checked by the compiler. */
  klg_printf(o, "};\nstatic_assert(sizeof(%s) == %d, \"struct layout\");\n", cuda_struct_name(e, t),
             t->size);
  for (const kl_member *m = t->members; m; m = m->next)
    klg_printf(o, "static_assert(_CL_OFFSETOF(%s, %s) == %d, \"offset of %s\");\n",
               cuda_struct_name(e, t), m->name, m->offset, m->name);
}

static void cuda_signature(cuda_emitter *e, const kl_function *f) {
  klg_buf *o = &e->out;
  const char *name = cuda_name(e, f->name);
  if (f->is_kernel) {
    /* the runtime finds a kernel by its name: it cannot be escaped (a vendor
     * prefix alone is allowed: cudaSaxpy collides with nothing) */
    if (klg_ident(e->ctx, f->name, kl_cuda_reserved, false) != f->name ||
        (!e->hip && kl_cuda_kernel_name_taken(f->name)))
      cuda_fail(
          e, f->location,
          kl_format(e->ctx, "a kernel named '%s' (the name is taken in its headers)", f->name));
    name = f->name;
    klg_puts(o, "extern \"C\" __global__ ");
    if (f->has_required_work_group_size) {
      uint64_t threads = (uint64_t)f->required_work_group_size[0] * f->required_work_group_size[1] *
                         f->required_work_group_size[2];
      if (threads > 0 && threads <= 1024)
        klg_printf(o, "__launch_bounds__(%u) ", (unsigned)threads);
    }
    klg_printf(o, "void %s(", name);
  } else {
    klg_printf(o, "static __device__ %s %s(", cuda_type(e, f->return_type, f->location), name);
    if (f->return_type && f->return_type->kind == KL_TYPE_ARRAY)
      cuda_fail(e, f->location, "functions returning arrays");
  }
  for (const kl_variable *p = f->params; p; p = p->next) {
    const char *pname = cuda_name(e, p->name);
    if (f->is_kernel && klg_is_pointer(p->type) && p->type->pointee_space == KL_SPACE_LOCAL)
      klg_printf(o, "uint _cl_loff_%s", pname);
    else
      klg_puts(o, cuda_decl(e, p->type, pname, p->location));
    klg_puts(o, ", ");
  }
  klg_puts(o, f->is_kernel ? "const _agpu_launch _cl_L)" : "const _agpu_launch &_cl_L)");
}

static void cuda_function(cuda_emitter *e, const kl_function *f) {
  klg_buf *o = &e->out;
  e->function = f;
  cuda_signature(e, f);
  klg_puts(o, " {\n");
  if (f->is_kernel) {
    for (const kl_variable *p = f->params; p; p = p->next) {
      if (!(klg_is_pointer(p->type) && p->type->pointee_space == KL_SPACE_LOCAL)) continue;
      const char *pname = cuda_name(e, p->name);
      const char *t = cuda_type(e, p->type, p->location);
      klg_printf(o, "  %s %s = (%s)(_cl_dynamic_shared + _cl_loff_%s);\n", t, pname, t, pname);
    }
  }
  if (f->body && f->body->kind == KL_STMT_COMPOUND) {
    for (const kl_node *s = f->body->body; s; s = s->next) cuda_stmt(e, s, 1);
  } else if (f->body) {
    cuda_stmt(e, f->body, 1);
  }
  klg_puts(o, "}\n\n");
}

/* The most bytes of static __local arrays one kernel may have: CUDA's
 * static shared memory stops at 48 KiB whatever the device (more is
 * dynamic, past an opt-in); HIP's gfx targets have 64 KiB of LDS, or what
 * the device says it has. Past it NVRTC or hiprtc would fail the whole
 * program. */
static uint32_t cuda_local_limit(const cuda_emitter *e) {
  uint32_t device = kl_context_traits(e->ctx).local_memory_limit;
  uint32_t target = e->hip ? 65536 : 49152;
  if (e->hip && device) return device;
  return device && device < target ? device : target;
}

static void cuda_kernel(cuda_emitter *e, const kl_function *f) {
  uint32_t limit = cuda_local_limit(e);
  if (f->local_memory_bytes > limit) {
    kl_error(e->ctx, f->location,
             "kernel '%s' needs %u bytes of shared memory for its __local arrays; the %s target "
             "allows %u in one kernel",
             f->name, f->local_memory_bytes, e->hip ? "HIP" : "CUDA", limit);
    e->failed = true;
    return;
  }
  cuda_function(e, f);
}

/* With `isolate`, a function the target cannot express is recorded as
 * failed (what the emitter said of it since `mark`) and the next one is
 * emitted afresh; without, the program fails. */
static void cuda_isolate(cuda_emitter *e, kl_isolation *iso, const kl_function *f, int mark,
                         bool isolate) {
  if (!isolate || !e->failed) return;
  kl_isolation_fail(iso, f, mark);
  e->failed = false;
  e->last_failure = NULL;
}

/* The helpers' prototypes, so that helpers may be called before their
 * definition, then every function; a helper whose prototype fails is not
 * defined (it would fail again). */
static void cuda_functions(cuda_emitter *e, kl_isolation *iso, bool isolate) {
  for (const kl_function *f = e->program->functions; f; f = f->next) {
    if (f->is_kernel || !f->body) continue;
    int mark = kl_diagnostic_count(e->ctx);
    kl_isolation_segment_at(iso, f, e->out.length);
    cuda_signature(e, f);
    klg_puts(&e->out, ";\n");
    cuda_isolate(e, iso, f, mark, isolate);
  }
  kl_isolation_segment_at(iso, NULL, e->out.length);
  klg_puts(&e->out, "\n");
  for (const kl_function *f = e->program->functions; f; f = f->next) {
    if (!f->body || (!f->is_kernel && kl_isolation_failed(iso, f))) continue;
    int mark = kl_diagnostic_count(e->ctx);
    kl_isolation_segment_at(iso, f, e->out.length);
    if (f->is_kernel)
      cuda_kernel(e, f);
    else
      cuda_function(e, f);
    cuda_isolate(e, iso, f, mark, isolate);
  }
  kl_isolation_segment_at(iso, NULL, e->out.length);
}

const char *kl_emit_cuda(kl_context *ctx, const kl_program *program, bool hip) {
  return kl_emit_cuda_kernels(ctx, program, hip, NULL);
}

const char *kl_emit_cuda_kernels(kl_context *ctx, const kl_program *program, bool hip,
                                 kl_refused_kernel **refused) {
  cuda_emitter e = {.ctx = ctx, .program = program, .hip = hip};
  klg_init(&e.out, ctx);
  e.printer = klg_c_printer_of(&e.out, &e, cuda_expression_callback, cuda_declaration_callback,
                               cuda_fail_callback, "ll");
  klg_puts(&e.out, hip ? "/* HIP C++ for hiprtc, translated by anygpu */\n"
                       : "/* CUDA C++ for NVRTC, translated by anygpu */\n");
  /* #pragma OPENCL FP_CONTRACT OFF: hiprtc is clang and takes its pragma;
   * NVRTC has none, so the CUDA backend sees this line and compiles with
   * --fmad=false (backends/cuda/cuda_nvrtc.c). */
  if (program->fp_contract_off)
    klg_puts(&e.out, hip ? "#pragma clang fp contract(off)\n" : KL_CUDA_FP_CONTRACT_OFF_MARK "\n");
  klg_puts(&e.out, kl_cuda_prelude_types);
  klg_puts(&e.out, hip ? kl_cuda_prelude_hip : kl_cuda_prelude_cuda);
  klg_puts(&e.out, kl_cuda_prelude_half);
  klg_puts(&e.out, kl_cuda_prelude_body);
  klg_puts(&e.out, "namespace kl { /* the program's own names */\n\n");
  /* offsetof for the layout checks: NVRTC (EDG) has no __builtin_offsetof
   * and no <cstddef>, but folds __INTADDR__; hiprtc is clang. */
  if (program->struct_count)
    klg_puts(&e.out,
             "#if defined(__CUDACC_RTC__) && !defined(__clang__)\n"
             "#define _CL_OFFSETOF(T, m) ((unsigned long long)__INTADDR__(&(((T *)0)->m)))\n"
             "#else\n"
             "#define _CL_OFFSETOF(T, m) __builtin_offsetof(T, m)\n"
             "#endif\n");
  for (int i = 0; i < program->struct_count; i++) cuda_struct(&e, program->structs[i]);
  for (const kl_variable *v = program->constants; v; v = v->next) {
    klg_printf(&e.out, "__constant__ %s",
               cuda_decl(&e, v->type, cuda_name(&e, v->name), v->location));
    if (v->initializer) {
      klg_puts(&e.out, " = ");
      cuda_constant_initializer(&e, v->type, v->initializer);
    }
    klg_puts(&e.out, ";\n");
  }
  /* with `refused`, a helper or kernel the target cannot express is left
   * out, and so is every kernel that calls such a helper (emit_isolate.h);
   * a struct or constant that fails fails the program */
  bool isolate = refused && !e.failed;
  kl_isolation iso;
  kl_isolation_init(&iso, ctx, program, hip ? "HIP" : "CUDA");
  cuda_functions(&e, &iso, isolate);
  klg_puts(&e.out, "} /* namespace kl */\n");
  if (e.failed) return NULL;
  if (!isolate) return klg_text(&e.out);
  kl_isolation_refuse_kernels(&iso, refused);
  size_t length = 0;
  return kl_isolation_text(&iso, e.out.data, e.out.length, &length);
}
