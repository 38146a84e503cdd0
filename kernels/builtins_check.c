// SPDX-License-Identifier: Apache-2.0
/* The typing of builtin calls (OpenCL C 1.2, 6.12): one check per result
 * rule of the table in builtins.c, which converts the arguments and sets
 * the call's type. */
#include "builtins_internal.h"

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
  kl_builtin_set_args(call, args, count);
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
  kl_builtin_set_args(call, args, count);
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
  kl_builtin_set_args(call, args, count);
  call->type = value;
  return true;
}

/* math, common, geometric and relational builtins over one gentype */
static bool check_gentype(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  const kl_builtin *b = call->builtin;
  kl_type *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type *g;
  g = kl_builtin_gentype(ctx, call, args, count, 0, count - 1, true);
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
  kl_builtin_set_args(call, args, count);
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
  g = kl_builtin_gentype(ctx, call, args, count, 0, count - 2, true);
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
  kl_builtin_set_args(call, args, count);
  call->type = g;
  return true;
}

/* ldexp, pown, rootn (an int second argument) and ilogb (an int result) */
static bool check_int_second(kl_context *ctx, kl_node *call, kl_node **args, int count) {
  const kl_builtin *b = call->builtin;
  kl_type *int_t = kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type *g;
  g = kl_builtin_gentype(ctx, call, args, count, 0, 0, true);
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
  kl_builtin_set_args(call, args, count);
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
  g = kl_builtin_gentype(ctx, call, args, count, 0, count - 1, false);
  if (!g) {
    call->type = int_t;
    return false;
  }
  if ((b->id == KL_BUILTIN_MAD24 || b->id == KL_BUILTIN_MUL24) &&
      kl_type_scalar_of(g)->kind != KL_TYPE_INT && kl_type_scalar_of(g)->kind != KL_TYPE_UINT)
    kl_error(ctx, call->location, "'%s' takes int or uint, not '%s'", call->spelling, tn(ctx, g));
  for (int i = 0; i < count; i++) args[i] = kl_convert(ctx, args[i], g);
  kl_builtin_set_args(call, args, count);
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
  g = kl_builtin_gentype(ctx, call, args, count, 0, 1, false);
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
  kl_builtin_set_args(call, args, count);
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
  kl_type *e = kl_builtin_pointee_scalar(ctx, call, args[1], "as argument 2");
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
  kl_builtin_set_args(call, args, count);
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
  kl_type *e = kl_builtin_pointee_scalar(ctx, call, args[2], "as argument 3");
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
  kl_builtin_set_args(call, args, count);
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
