// SPDX-License-Identifier: Apache-2.0
/* The gentype of a builtin call (builtins_check.c): how its arguments'
 * types resolve against OpenCL C's overloads, and the small helpers the
 * typing rules share. */
#include "builtins_internal.h"

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
kl_type *kl_builtin_gentype(kl_context *ctx, kl_node *call, kl_node **args, int count, int first,
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

void kl_builtin_set_args(kl_node *call, kl_node **args, int count) {
  call->args = count ? args[0] : NULL;
  for (int i = 0; i < count; i++) args[i]->next = i + 1 < count ? args[i + 1] : NULL;
}

kl_type *kl_builtin_pointee_scalar(kl_context *ctx, kl_node *call, kl_node *arg, const char *what) {
  kl_type *t = arg->type;
  if (t->kind != KL_TYPE_POINTER) {
    kl_error(ctx, arg->location, "'%s' needs a pointer %s, not '%s'", call->spelling, what,
             tn(ctx, t));
    return NULL;
  }
  return t->element;
}
