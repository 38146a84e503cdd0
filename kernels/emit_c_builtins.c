// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's builtins: each OpenCL C builtin becomes a call of a
 * small static helper, defined once per signature ahead of the kernels.
 * Scalar helpers spell the operation with OpenCL semantics (abs returns
 * unsigned, shifts and rotates mask their counts, _sat conversions clamp,
 * rounding modes are kept); vector helpers apply the scalar one per
 * component, which gcc vectorises where it can. */
#include <inttypes.h>
#include <string.h>

#include "emit_c_internal.h"
static bool kc_vec(const kl_type *type) {
  return type && type->kind == KL_TYPE_VECTOR;
}
static const kl_type *kc_elem(const kl_type *type) {
  return kc_vec(type) ? type->element : type;
}
static int kc_lanes(const kl_type *type) {
  return kc_vec(type) ? type->length : 1;
}

/* A name fragment for a type. */
static const char *kc_mangle(kc_emitter *e, const kl_type *type) {
  if (!type) return "v";
  if (type->kind == KL_TYPE_POINTER)
    return kl_format(e->ctx, "p%d%s%s", (int)type->pointee_space,
                     (type->element->qualifiers & KL_QUALIFIER_VOLATILE) ? "v" : "",
                     kc_mangle(e, type->element));
  if (kc_vec(type))
    return kl_format(e->ctx, "%s%d", kc_scalar_name(type->element->kind), type->length);
  const char *name = kc_scalar_name(type->kind);
  return name ? name : "x";
}

const char *kc_unsigned_name(kl_type_kind kind) {
  switch (kind) {
    case KL_TYPE_CHAR:
    case KL_TYPE_UCHAR:
      return "uchar";
    case KL_TYPE_SHORT:
    case KL_TYPE_USHORT:
      return "ushort";
    case KL_TYPE_INT:
    case KL_TYPE_UINT:
      return "uint";
    case KL_TYPE_LONG:
    case KL_TYPE_ULONG:
    case KL_TYPE_SIZE_T:
    case KL_TYPE_PTRDIFF_T:
      return "ulong";
    default:
      return kc_scalar_name(kind);
  }
}

bool kc_signed_kind(kl_type_kind kind) {
  return kind == KL_TYPE_CHAR || kind == KL_TYPE_SHORT || kind == KL_TYPE_INT ||
         kind == KL_TYPE_LONG || kind == KL_TYPE_PTRDIFF_T;
}

bool kc_float_kind(kl_type_kind kind) {
  return kind == KL_TYPE_FLOAT || kind == KL_TYPE_DOUBLE || kind == KL_TYPE_HALF;
}

/* The limits of an integer type as C literals. */
static const struct {
  const char *min, *max;
} kc_limits[] = {
    [KL_TYPE_CHAR] = {"(-128)", "127"},
    [KL_TYPE_UCHAR] = {"0", "255"},
    [KL_TYPE_SHORT] = {"(-32768)", "32767"},
    [KL_TYPE_USHORT] = {"0", "65535"},
    [KL_TYPE_INT] = {"(-2147483647 - 1)", "2147483647"},
    [KL_TYPE_UINT] = {"0", "4294967295u"},
    [KL_TYPE_LONG] = {"(-9223372036854775807L - 1)", "9223372036854775807L"},
    [KL_TYPE_PTRDIFF_T] = {"(-9223372036854775807L - 1)", "9223372036854775807L"},
};

static bool kc_has_limits(kl_type_kind kind) {
  return (size_t)kind < sizeof kc_limits / sizeof *kc_limits && kc_limits[kind].min;
}

const char *kc_min_of(kl_type_kind kind) {
  return kc_has_limits(kind) ? kc_limits[kind].min : "0";
}

const char *kc_max_of(kl_type_kind kind) {
  return kc_has_limits(kind) ? kc_limits[kind].max : "18446744073709551615ul";
}

static bool kc_relational(kl_builtin_id id) {
  return id >= KL_BUILTIN_ISEQUAL && id <= KL_BUILTIN_SIGNBIT;
}

/* An element-wise builtin: a scalar helper, and a per-component one for vectors. */
static void kc_elementwise(kc_emitter *e, const kl_node *call) {
  const kl_node *args[3] = {NULL, NULL, NULL};
  int count = 0;
  for (const kl_node *arg = call->args; arg && count < 3; arg = arg->next) args[count++] = arg;
  const kl_type *result = call->type;
  /* the element kind the operation works on: the first argument's */
  kl_type_kind k = count ? kc_elem(args[0]->type)->kind : kc_elem(result)->kind;
  kl_type_kind rk = kc_elem(result)->kind;
  const char *body = kc_formula(e, call, k, rk);
  if (!body) {
    kc_error(e, call->location, "builtin '%s' is not supported by the C target",
             call->spelling ? call->spelling : call->builtin->name);
    return;
  }
  bool relational = kc_relational(call->builtin->id);
  /* per argument: a pointer (an out parameter), its pointee, its element */
  bool is_pointer[3] = {false, false, false};
  const kl_type *base[3] = {NULL, NULL, NULL};
  const char *element[3] = {NULL, NULL, NULL};
  for (int i = 0; i < count; i++) {
    is_pointer[i] = args[i]->type->kind == KL_TYPE_POINTER;
    base[i] = is_pointer[i] ? args[i]->type->element : args[i]->type;
    element[i] = kc_scalar_name(kc_elem(base[i])->kind);
    if (!element[i]) {
      kc_error(e, call->location,
               "builtin '%s' with these argument types is not supported by the C target",
               call->spelling ? call->spelling : call->builtin->name);
      return;
    }
  }
  /* scalar helper */
  const char *scalar_result = relational ? "int" : kc_scalar_name(rk);
  const char *sname = kl_format(
      e->ctx, "kl_b_%s_%s",
      call->builtin->canonical ? call->builtin->canonical : call->builtin->name, kc_scalar_name(k));
  for (int i = 0; i < count; i++)
    sname = kl_format(e->ctx, "%s_%s%s", sname, is_pointer[i] ? "p" : "", element[i]);
  static const char names[] = "abc";
  if (kc_helper_new(e, sname)) {
    klg_printf(&e->helpers, "static inline %s %s(", scalar_result, sname);
    for (int i = 0; i < count; i++)
      klg_printf(&e->helpers, "%s%s %s%c", i ? ", " : "", element[i], is_pointer[i] ? "*" : "",
                 names[i]);
    if (count == 0) klg_puts(&e->helpers, "void");
    klg_printf(&e->helpers, ") { %s }\n", body);
  }
  int lanes = kc_lanes(result);
  for (int i = 0; i < count; i++)
    if (kc_lanes(base[i]) > lanes) lanes = kc_lanes(base[i]);
  const char *name = sname;
  if (kc_vec(result) || lanes > 1) {
    name = kl_format(e->ctx, "%s_v%d", sname, lanes);
    for (int i = 0; i < count; i++)
      name = kl_format(e->ctx, "%s%c", name, kc_vec(base[i]) ? 'v' : 's');
    if (kc_helper_new(e, name)) {
      const char *rtype = kc_type(e, result);
      klg_printf(&e->helpers, "static inline %s %s(", rtype, name);
      for (int i = 0; i < count; i++)
        klg_printf(&e->helpers, "%s%s", i ? ", " : "",
                   kc_decl(e, args[i]->type, kl_format(e->ctx, "%c", names[i])));
      klg_printf(&e->helpers, ") { %s r = {0}; ", rtype);
      for (int i = 0; i < count; i++)
        if (is_pointer[i]) klg_printf(&e->helpers, "%s t%c[16]; ", element[i], names[i]);
      klg_printf(&e->helpers, "for (int i = 0; i < %d; i++) r[i] = %s%s(", lanes,
                 relational ? "-" : "", sname);
      for (int i = 0; i < count; i++) {
        if (is_pointer[i])
          klg_printf(&e->helpers, "%s&t%c[i]", i ? ", " : "", names[i]);
        else
          klg_printf(&e->helpers, "%s%c%s", i ? ", " : "", names[i], kc_vec(base[i]) ? "[i]" : "");
      }
      klg_puts(&e->helpers, "); ");
      for (int i = 0; i < count; i++)
        if (is_pointer[i])
          klg_printf(&e->helpers, "for (int i = 0; i < %d; i++) (*%c)[i] = t%c[i]; ", lanes,
                     names[i], names[i]);
      klg_puts(&e->helpers, "return r; }\n");
    }
  }
  klg_printf(e->out, "%s(", name);
  for (int i = 0; i < count; i++) {
    if (i) klg_puts(e->out, ", ");
    kc_expr(e, args[i]);
  }
  klg_puts(e->out, ")");
}

/* ---------------------------------------------------------- work items */

/* Builtins that only compute from their arguments or read the work-item
 * ids: nothing another work-item sees (emit_c_gang.c, emit_c_stream.c). */
bool kc_builtin_computes(const kl_builtin *b) {
  if (!b) return false;
  switch (b->category) {
    case KL_BUILTIN_WORK_ITEM:
    case KL_BUILTIN_MATH:
    case KL_BUILTIN_INTEGER:
    case KL_BUILTIN_COMMON:
    case KL_BUILTIN_GEOMETRIC:
    case KL_BUILTIN_RELATIONAL:
    case KL_BUILTIN_CONVERSION:
      return true;
    default:
      return false;
  }
}

void kc_work_item(kc_emitter *e, kl_builtin_id id, const kl_node *dim) {
  klg_buf *o = e->out;
  if (id == KL_BUILTIN_GET_WORK_DIM) {
    klg_puts(o, e->in_kernel ? "((uint)__L->work_dim)" : "((uint)__wi->dim)");
    return;
  }
  int64_t d = -1;
  bool constant = kc_node_int(dim, &d);
  if (!e->in_kernel) {
    const char *field = NULL;
    const char *fallback = "0";
    switch (id) {
      case KL_BUILTIN_GET_LOCAL_ID:
        field = "lid";
        break;
      case KL_BUILTIN_GET_GROUP_ID:
        field = "gid";
        break;
      case KL_BUILTIN_GET_LOCAL_SIZE:
        field = "lsz";
        fallback = "1";
        break;
      case KL_BUILTIN_GET_ENQUEUED_LOCAL_SIZE:
        field = "els";
        fallback = "1";
        break;
      case KL_BUILTIN_GET_NUM_GROUPS:
        field = "ngr";
        fallback = "1";
        break;
      case KL_BUILTIN_GET_GLOBAL_SIZE:
        field = "gsz";
        fallback = "1";
        break;
      case KL_BUILTIN_GET_GLOBAL_OFFSET:
        field = "goff";
        break;
      default:
        break;
    }
    int t = e->temp_counter++;
    klg_printf(o, "({ uint __d%d = (uint)(", t);
    kc_expr(e, dim);
    if (field)
      klg_printf(o, "); __d%d < 3 ? __wi->%s[__d%d] : (size_t)%s; })", t, field, t, fallback);
    else
      klg_printf(o, "); __d%d < 3 ? __wi->gb[__d%d] + __wi->lid[__d%d] : (size_t)0; })", t, t, t);
    return;
  }
  const char *forms[3];
  const char *fallback = "((size_t)0)";
  const char *axes[3] = {"0", "1", "2"};
  const char *local_axes[3] = {"__lx", "__ly", "__lz"};
  for (int i = 0; i < 3; i++) {
    switch (id) {
      case KL_BUILTIN_GET_LOCAL_ID:
        forms[i] = local_axes[i];
        break;
      case KL_BUILTIN_GET_GLOBAL_ID:
        forms[i] = kl_format(e->ctx, "(__gb%s + %s)", axes[i], local_axes[i]);
        break;
      case KL_BUILTIN_GET_GROUP_ID:
        forms[i] = kl_format(e->ctx, "__gid%s", axes[i]);
        break;
      case KL_BUILTIN_GET_LOCAL_SIZE:
        forms[i] = kl_format(e->ctx, "__ls%s", axes[i]);
        fallback = "((size_t)1)";
        break;
      case KL_BUILTIN_GET_ENQUEUED_LOCAL_SIZE: /* the size asked for; __ls is the group's own */
        forms[i] = kl_format(e->ctx, "__els%s", axes[i]);
        fallback = "((size_t)1)";
        break;
      case KL_BUILTIN_GET_NUM_GROUPS:
        forms[i] = kl_format(e->ctx, "__ng%s", axes[i]);
        fallback = "((size_t)1)";
        break;
      case KL_BUILTIN_GET_GLOBAL_SIZE:
        forms[i] = kl_format(e->ctx, "__gs%s", axes[i]);
        fallback = "((size_t)1)";
        break;
      default:
        forms[i] = kl_format(e->ctx, "__go%s", axes[i]);
        break;
    }
  }
  if (constant) {
    klg_puts(o, d >= 0 && d < 3 ? forms[d] : fallback);
    return;
  }
  int t = e->temp_counter++;
  klg_printf(o, "({ uint __d%d = (uint)(", t);
  kc_expr(e, dim);
  klg_printf(
      o, "); __d%d == 0 ? (size_t)%s : __d%d == 1 ? (size_t)%s : __d%d == 2 ? (size_t)%s : %s; })",
      t, forms[0], t, forms[1], t, forms[2], fallback);
}

/* ------------------------------------------------------------- atomics */

static void kc_atomic(kc_emitter *e, const kl_node *call) {
  const kl_node *pointer = call->args;
  const kl_type *ptype = pointer ? pointer->type : NULL;
  if (!ptype || ptype->kind != KL_TYPE_POINTER) {
    kc_error(e, call->location, "an atomic needs a pointer");
    return;
  }
  const kl_type *T = ptype->element;
  const char *tname = kc_scalar_name(T->kind);
  bool is_float = T->kind == KL_TYPE_FLOAT;
  const char *vol = (T->qualifiers & KL_QUALIFIER_VOLATILE) ? "volatile " : "";
  const char *op = NULL;
  int values = 1;
  switch (call->builtin->id) {
    case KL_BUILTIN_ATOMIC_ADD:
      op = "add";
      break;
    case KL_BUILTIN_ATOMIC_SUB:
      op = "sub";
      break;
    case KL_BUILTIN_ATOMIC_XCHG:
      op = "xchg";
      break;
    case KL_BUILTIN_ATOMIC_INC:
      op = "inc";
      values = 0;
      break;
    case KL_BUILTIN_ATOMIC_DEC:
      op = "dec";
      values = 0;
      break;
    case KL_BUILTIN_ATOMIC_CMPXCHG:
      op = "cmpxchg";
      values = 2;
      break;
    case KL_BUILTIN_ATOMIC_MIN:
      op = "min";
      break;
    case KL_BUILTIN_ATOMIC_MAX:
      op = "max";
      break;
    case KL_BUILTIN_ATOMIC_AND:
      op = "and";
      break;
    case KL_BUILTIN_ATOMIC_OR:
      op = "or";
      break;
    case KL_BUILTIN_ATOMIC_XOR:
      op = "xor";
      break;
    default:
      break;
  }
  const char *name = kl_format(e->ctx, "kl_atomic_%s_%s%s", op, vol[0] ? "v" : "", tname);
  if (kc_helper_new(e, name)) {
    klg_buf *h = &e->helpers;
    const char *sig = kl_format(e->ctx, "static inline %s %s(%s%s *p", tname, name, vol, tname);
    const char *relaxed = "__ATOMIC_RELAXED";
    if (values == 0) {
      klg_printf(h, "%s) { return __atomic_fetch_%s(p, (%s)1, %s); }\n", sig,
                 strcmp(op, "inc") == 0 ? "add" : "sub", tname, relaxed);
    } else if (values == 2) {
      klg_printf(h,
                 "%s, %s c, %s v) { %s x = c; __atomic_compare_exchange_n(p, &x, v, 0, %s, %s); "
                 "return x; }\n",
                 sig, tname, tname, tname, relaxed, relaxed);
    } else if (strcmp(op, "xchg") == 0) {
      if (is_float)
        klg_printf(h, "%s, %s v) { %s r; __atomic_exchange(p, &v, &r, %s); return r; }\n", sig,
                   tname, tname, relaxed);
      else
        klg_printf(h, "%s, %s v) { return __atomic_exchange_n(p, v, %s); }\n", sig, tname, relaxed);
    } else if (strcmp(op, "min") == 0 || strcmp(op, "max") == 0) {
      klg_printf(h,
                 "%s, %s v) { %s old = __atomic_load_n(p, %s); while (v %s old && "
                 "!__atomic_compare_exchange_n(p, &old, v, 1, %s, %s)) {} return old; }\n",
                 sig, tname, tname, relaxed, strcmp(op, "min") == 0 ? "<" : ">", relaxed, relaxed);
    } else {
      klg_printf(h, "%s, %s v) { return __atomic_fetch_%s(p, v, %s); }\n", sig, tname, op, relaxed);
    }
  }
  klg_printf(e->out, "%s(", name);
  bool first = true;
  for (const kl_node *arg = call->args; arg; arg = arg->next) {
    if (!first) klg_puts(e->out, ", ");
    kc_expr(e, arg);
    first = false;
  }
  klg_puts(e->out, ")");
}

/* --------------------------------------------------------- conversions */

static const char *kc_convert_body(kc_emitter *e, const kl_builtin *b, kl_type_kind to,
                                   kl_type_kind from) {
  kl_context *ctx = e->ctx;
  const char *T = kc_scalar_name(to);
  kl_rounding rounding = b->rounding;
  if (kc_float_kind(to)) {
    const char *f = to == KL_TYPE_FLOAT ? "f" : "";
    if (rounding == KL_ROUND_DEFAULT || rounding == KL_ROUND_RTE ||
        (kc_float_kind(from) && (int)from <= (int)to))
      return kl_format(ctx, "return (%s)a;", T);
    const char *fix;
    if (kc_float_kind(from)) {
      /* double to float */
      switch (rounding) {
        case KL_ROUND_RTZ:
          fix = kl_format(ctx, "if (fabs((double)r) > fabs(a)) r = nextafter%s(r, 0);", f);
          break;
        case KL_ROUND_RTP:
          fix = kl_format(ctx, "if ((double)r < a) r = nextafter%s(r, INFINITY);", f);
          break;
        default:
          fix = kl_format(ctx, "if ((double)r > a) r = nextafter%s(r, -INFINITY);", f);
          break;
      }
      return kl_format(ctx, "%s r = (%s)a; if (isnan(a)) return r; %s return r;", T, T, fix);
    }
    const char *W = kc_signed_kind(from) ? "__int128" : "unsigned __int128";
    switch (rounding) {
      case KL_ROUND_RTZ:
        fix = kl_format(ctx, "if (a >= 0 ? back > (%s)a : back < (%s)a) r = nextafter%s(r, 0);", W,
                        W, f);
        break;
      case KL_ROUND_RTP:
        fix = kl_format(ctx, "if (back < (%s)a) r = nextafter%s(r, INFINITY);", W, f);
        break;
      default:
        fix = kl_format(ctx, "if (back > (%s)a) r = nextafter%s(r, -INFINITY);", W, f);
        break;
    }
    return kl_format(ctx, "%s r = (%s)a; %s back = (%s)r; %s return r;", T, T, "__int128",
                     "__int128", fix);
  }
  if (kc_float_kind(from)) {
    const char *f = from == KL_TYPE_FLOAT ? "f" : "";
    const char *rounded;
    switch (rounding) {
      case KL_ROUND_RTE:
        rounded = kl_format(ctx, "rint%s(a)", f);
        break;
      case KL_ROUND_RTP:
        rounded = kl_format(ctx, "ceil%s(a)", f);
        break;
      case KL_ROUND_RTN:
        rounded = kl_format(ctx, "floor%s(a)", f);
        break;
      default:
        rounded = "a";
        break;
    }
    const char *F = kc_scalar_name(from);
    if (!b->saturate) return kl_format(ctx, "return (%s)%s;", T, rounded);
    return kl_format(
        ctx, "%s x = %s; return isnan(x) ? 0 : x <= (%s)%s ? %s : x >= (%s)%s ? %s : (%s)x;", F,
        rounded, F, kc_min_of(to), kc_min_of(to), F, kc_max_of(to), kc_max_of(to), T);
  }
  if (!b->saturate || to == KL_TYPE_BOOL) return kl_format(ctx, "return (%s)a;", T);
  return kl_format(
      ctx, "return (__int128)a < (__int128)%s ? %s : (__int128)a > (__int128)%s ? %s : (%s)a;",
      kc_min_of(to), kc_min_of(to), kc_max_of(to), kc_max_of(to), T);
}

static void kc_convert(kc_emitter *e, const kl_node *call) {
  const kl_node *arg = call->args;
  const kl_type *to = call->type, *from = arg->type;
  kl_type_kind tk = kc_elem(to)->kind, fk = kc_elem(from)->kind;
  const kl_builtin *b = call->builtin;
  const char *sname = kl_format(e->ctx, "kl_cvt_%s_%s%s_%d", kc_scalar_name(tk), kc_scalar_name(fk),
                                b->saturate ? "_sat" : "", (int)b->rounding);
  if (kc_helper_new(e, sname))
    klg_printf(&e->helpers, "static inline %s %s(%s a) { %s }\n", kc_scalar_name(tk), sname,
               kc_scalar_name(fk), kc_convert_body(e, b, tk, fk));
  const char *name = sname;
  if (kc_vec(to)) {
    name = kl_format(e->ctx, "%s_v%d", sname, to->length);
    if (kc_helper_new(e, name))
      klg_printf(&e->helpers,
                 "static inline %s %s(%s a) { %s r = {0}; for (int i = 0; i < %d; i++) r[i] = "
                 "%s(a[i]); return r; }\n",
                 kc_type(e, to), name, kc_type(e, from), kc_type(e, to), to->length, sname);
  }
  klg_printf(e->out, "%s(", name);
  kc_expr(e, arg);
  klg_puts(e->out, ")");
}

static void kc_as(kc_emitter *e, const kl_node *call) {
  const char *to = kc_type(e, call->type), *from = kc_type(e, call->args->type);
  const char *name =
      kl_format(e->ctx, "kl_as_%s_%s", kc_mangle(e, call->type), kc_mangle(e, call->args->type));
  if (kc_helper_new(e, name))
    klg_printf(
        &e->helpers,
        "static inline %s %s(%s a) { %s r; __builtin_memcpy(&r, &a, sizeof r); return r; }\n", to,
        name, from, to);
  klg_printf(e->out, "%s(", name);
  kc_expr(e, call->args);
  klg_puts(e->out, ")");
}

/* ----------------------------------------------------- loads and stores */

static void kc_vload(kc_emitter *e, const kl_node *call) {
  const kl_type *type = call->type;
  const kl_node *offset = call->args, *pointer = offset ? offset->next : NULL;
  if (!pointer || !kc_vec(type)) {
    kc_error(e, call->location, "vload needs an offset and a pointer");
    return;
  }
  const char *element = kc_scalar_name(type->element->kind);
  const char *name = kl_format(e->ctx, "kl_vload_%s", kc_mangle(e, type));
  if (kc_helper_new(e, name))
    klg_printf(&e->helpers,
               "static inline %s %s(size_t o, const volatile void *p) { %s r = {0}; "
               "__builtin_memcpy(&r, (const %s *)p + o * %d, %d * sizeof(%s)); return r; }\n",
               kc_type(e, type), name, kc_type(e, type), element, type->length, type->length,
               element);
  klg_printf(e->out, "%s(", name);
  kc_expr(e, offset);
  klg_puts(e->out, ", ");
  kc_expr(e, pointer);
  klg_puts(e->out, ")");
}

static void kc_vstore(kc_emitter *e, const kl_node *call) {
  const kl_node *data = call->args, *offset = data ? data->next : NULL,
                *pointer = offset ? offset->next : NULL;
  if (!pointer || !kc_vec(data->type)) {
    kc_error(e, call->location, "vstore needs data, an offset and a pointer");
    return;
  }
  const kl_type *type = data->type;
  const char *element = kc_scalar_name(type->element->kind);
  const char *name = kl_format(e->ctx, "kl_vstore_%s", kc_mangle(e, type));
  if (kc_helper_new(e, name))
    klg_printf(&e->helpers,
               "static inline void %s(%s d, size_t o, volatile void *p) { __builtin_memcpy((%s *)p "
               "+ o * %d, &d, %d * sizeof(%s)); }\n",
               name, kc_type(e, type), element, type->length, type->length, element);
  klg_printf(e->out, "%s(", name);
  kc_expr(e, data);
  klg_puts(e->out, ", ");
  kc_expr(e, offset);
  klg_puts(e->out, ", ");
  kc_expr(e, pointer);
  klg_puts(e->out, ")");
}

/* ----------------------------------------------------------- geometric */

static void kc_geometric(kc_emitter *e, const kl_node *call) {
  const kl_node *a = call->args, *b = a ? a->next : NULL;
  const kl_type *type = a->type;
  int n = kc_lanes(type);
  const char *T = kc_scalar_name(kc_elem(type)->kind);
  const char *V = kc_type(e, type);
  const char *f = kc_elem(type)->kind == KL_TYPE_FLOAT ? "f" : "";
  const char *mangle = kc_mangle(e, type);
  klg_buf *h = &e->helpers;
  const char *dot = kl_format(e->ctx, "kl_dot_%s", mangle);
  if (kc_helper_new(e, dot)) {
    if (n == 1)
      klg_printf(h, "static inline %s %s(%s a, %s b) { return a * b; }\n", T, dot, V, V);
    else
      klg_printf(h,
                 "static inline %s %s(%s a, %s b) { %s s = a[0] * b[0]; for (int i = 1; i < %d; "
                 "i++) s += a[i] * b[i]; return s; }\n",
                 T, dot, V, V, T, n);
  }
  const char *length = kl_format(e->ctx, "kl_length_%s", mangle);
  if (kc_helper_new(e, length))
    klg_printf(h, "static inline %s %s(%s a) { return sqrt%s(%s(a, a)); }\n", T, length, V, f, dot);
  const char *name = NULL;
  switch (call->builtin->id) {
    case KL_BUILTIN_DOT:
      name = dot;
      break;
    case KL_BUILTIN_LENGTH:
    case KL_BUILTIN_FAST_LENGTH:
      name = length;
      break;
    case KL_BUILTIN_DISTANCE:
    case KL_BUILTIN_FAST_DISTANCE:
      name = kl_format(e->ctx, "kl_distance_%s", mangle);
      if (kc_helper_new(e, name))
        klg_printf(h, "static inline %s %s(%s a, %s b) { return %s(a - b); }\n", T, name, V, V,
                   length);
      break;
    case KL_BUILTIN_NORMALIZE:
    case KL_BUILTIN_FAST_NORMALIZE:
      name = kl_format(e->ctx, "kl_normalize_%s", mangle);
      if (kc_helper_new(e, name))
        klg_printf(
            h, "static inline %s %s(%s a) { %s l = %s(a); if (l == 0) return a; return a / l; }\n",
            V, name, V, T, length);
      break;
    case KL_BUILTIN_CROSS:
      name = kl_format(e->ctx, "kl_cross_%s", mangle);
      if (kc_helper_new(e, name))
        klg_printf(
            h,
            "static inline %s %s(%s a, %s b) { %s r = {0}; r[0] = a[1] * b[2] - a[2] * b[1]; r[1] "
            "= a[2] * b[0] - a[0] * b[2]; r[2] = a[0] * b[1] - a[1] * b[0]; return r; }\n",
            V, name, V, V, V);
      break;
    default:
      break;
  }
  klg_printf(e->out, "%s(", name);
  kc_expr(e, a);
  if (b) {
    klg_puts(e->out, ", ");
    kc_expr(e, b);
  }
  klg_puts(e->out, ")");
}

/* ------------------------------------------------------ select, any, all */

static void kc_select_like(kc_emitter *e, const kl_node *call) {
  const kl_node *a = call->args, *b = a ? a->next : NULL, *c = b ? b->next : NULL;
  kl_builtin_id id = call->builtin->id;
  klg_buf *h = &e->helpers;
  if (id == KL_BUILTIN_ANY || id == KL_BUILTIN_ALL) {
    const kl_type *type = a->type;
    const char *name =
        kl_format(e->ctx, "kl_%s_%s", id == KL_BUILTIN_ANY ? "any" : "all", kc_mangle(e, type));
    if (kc_helper_new(e, name)) {
      int bits = kc_elem(type)->size * 8;
      klg_printf(h,
                 "static inline int %s(%s a) { int r = %d; for (int i = 0; i < %d; i++) { int m = "
                 "(int)(((%s)a%s >> %d) & 1); r = r %s m; } return r; }\n",
                 name, kc_type(e, type), id == KL_BUILTIN_ALL, kc_lanes(type),
                 kc_unsigned_name(kc_elem(type)->kind), kc_vec(type) ? "[i]" : "", bits - 1,
                 id == KL_BUILTIN_ANY ? "|" : "&");
    }
    klg_printf(e->out, "%s(", name);
    kc_expr(e, a);
    klg_puts(e->out, ")");
    return;
  }
  const kl_type *type = call->type;
  const char *V = kc_type(e, type);
  const char *name =
      kl_format(e->ctx, "kl_%s_%s_%s", id == KL_BUILTIN_SELECT ? "select" : "bitselect",
                kc_mangle(e, type), kc_mangle(e, c->type));
  if (kc_helper_new(e, name)) {
    int n = kc_lanes(type);
    const char *U = kc_unsigned_name(kc_elem(type)->kind == KL_TYPE_FLOAT    ? KL_TYPE_UINT
                                     : kc_elem(type)->kind == KL_TYPE_DOUBLE ? KL_TYPE_ULONG
                                                                             : kc_elem(type)->kind);
    if (id == KL_BUILTIN_SELECT) {
      if (!kc_vec(type))
        klg_printf(h, "static inline %s %s(%s a, %s b, %s c) { return c ? b : a; }\n", V, name, V,
                   V, kc_type(e, c->type));
      else
        klg_printf(h,
                   "static inline %s %s(%s a, %s b, %s c) { %s r = a; for (int i = 0; i < %d; i++) "
                   "if ((c[i] >> %d) & 1) r[i] = b[i]; return r; }\n",
                   V, name, V, V, kc_type(e, c->type), V, n, kc_elem(c->type)->size * 8 - 1);
    } else {
      klg_printf(h,
                 "static inline %s %s(%s a, %s b, %s c) { %s r; for (int i = 0; i < %d; i++) { %s "
                 "x, y, z, w; __builtin_memcpy(&x, (char *)&a + i * sizeof x, sizeof x); "
                 "__builtin_memcpy(&y, (char *)&b + i * sizeof x, sizeof x); __builtin_memcpy(&z, "
                 "(char *)&c + i * sizeof x, sizeof x); w = (x & ~z) | (y & z); "
                 "__builtin_memcpy((char *)&r + i * sizeof x, &w, sizeof x); } return r; }\n",
                 V, name, V, V, kc_type(e, c->type), V, n, U);
    }
  }
  klg_printf(e->out, "%s(", name);
  kc_expr(e, a);
  klg_puts(e->out, ", ");
  kc_expr(e, b);
  klg_puts(e->out, ", ");
  kc_expr(e, c);
  klg_puts(e->out, ")");
}

void kc_builtin(kc_emitter *e, const kl_node *call) {
  const kl_builtin *b = call->builtin;
  if (!b) {
    kc_error(e, call->location, "unknown builtin");
    return;
  }
  switch (b->category) {
    case KL_BUILTIN_WORK_ITEM:
      kc_work_item(e, b->id, call->args);
      return;
    case KL_BUILTIN_SYNC:
      if (b->id == KL_BUILTIN_BARRIER) {
        kc_error(e, call->location,
                 "this barrier is in control flow that the C target cannot split into "
                 "work-group regions; the CPU backend supports barriers in straight-line code "
                 "and in work-group-uniform if/for/while/do of a kernel");
        return;
      }
      klg_puts(e->out, "((void)0)"); /* a group's work-items run on one thread, in order */
      return;
    case KL_BUILTIN_ATOMIC:
      kc_atomic(e, call);
      return;
    case KL_BUILTIN_CONVERSION:
      if (b->id == KL_BUILTIN_AS)
        kc_as(e, call);
      else
        kc_convert(e, call);
      return;
    case KL_BUILTIN_MEMORY:
      if (b->id == KL_BUILTIN_VLOAD)
        kc_vload(e, call);
      else
        kc_vstore(e, call);
      return;
    case KL_BUILTIN_GEOMETRIC:
      kc_geometric(e, call);
      return;
    default:
      break;
  }
  switch (b->id) {
    case KL_BUILTIN_ANY:
    case KL_BUILTIN_ALL:
    case KL_BUILTIN_SELECT:
    case KL_BUILTIN_BITSELECT:
      kc_select_like(e, call);
      return;
    default:
      kc_elementwise(e, call);
      return;
  }
}
