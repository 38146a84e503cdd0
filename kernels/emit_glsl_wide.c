// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: vectors of 8 and 16 components.
 *
 * GLSL vectors stop at 4. An OpenCL N-vector (N = 8, 16) is a struct of N/4
 * GLSL 4-vectors named after the components they hold:
 *   struct _cl_float8 { vec4 s0123; vec4 s4567; };
 *   struct _cl_uchar16 { u8vec4 s0123; u8vec4 s4567; u8vec4 s89ab; u8vec4 scdef; };
 * so `v.s5` is `v.s4567.y`, `v.lo` of a float8 is `v.s0123`, and every
 * component-wise operation is done on 4-vectors, with GLSL's own vector
 * instructions. Its std430 size is OpenCL's (N elements, no padding), so
 * buffers of float8 and parameter blocks have OpenCL's layout (a member's
 * OpenCL offset is a multiple of the struct's std430 alignment of 4
 * elements).
 *
 * An operation on such vectors (operators, builtins, conversions, vector
 * ?:) is a call of a generated helper that takes the whole values and does
 * the operation on each 4-vector part, so each operand is evaluated once
 * and in order:
 *   _cl_int8 _cl_mul(_cl_int8 a, _cl_int8 b) { return _cl_int8(a.s0123 * b.s0123, a.s4567 *
 * b.s4567); } The part expressions are printed by the ordinary emitter from a copy of the node
 * whose operands are the parts, so the 4-vector semantics (masks, signed %, shift masking,
 * saturation, rounding) are the same code.
 */
#include <stdio.h>
#include <string.h>

#include "emit_glsl_internal.h"

static const char *const part_names[4] = {"s0123", "s4567", "s89ab", "scdef"};

bool glsl_is_wide(const kl_type *t) {
  return t && t->kind == KL_TYPE_VECTOR && t->length > 4;
}

static const kl_type *part_type(glsl_emitter *e, const kl_type *t) {
  return glsl_is_wide(t) ? kl_type_vector(e->ctx, t->element->kind, 4) : t;
}

const char *glsl_wide_type(glsl_emitter *e, const kl_type *t, kl_location at) {
  const char *name = kl_format(
      e->ctx, "_cl_%s", kl_type_name(e->ctx, kl_type_vector(e->ctx, t->element->kind, t->length)));
  const char *part = glsl_type(e, kl_type_vector(e->ctx, t->element->kind, 4), at);
  if (glsl_need(e, kl_format(e->ctx, "wide-type:%s", name))) {
    klg_printf(&e->wide_types, "struct %s {", name);
    for (int k = 0; k < t->length / 4; k++)
      klg_printf(&e->wide_types, " %s %s;", part, part_names[k]);
    klg_puts(&e->wide_types, " };\n");
  }
  return name;
}

/* A function returning its argument, for the branches of `c ? x : y` on
 * 8- or 16-vectors: glslang stores a buffer's element (the block's layout)
 * into the result's variable (no layout) with mismatched SPIR-V types,
 * where a call's argument is converted member by member. */
const char *glsl_wide_copy(glsl_emitter *e, const kl_type *t, kl_location at) {
  const char *type = glsl_wide_type(e, t, at);
  const char *name = kl_format(e->ctx, "%s_copy", type);
  if (glsl_need(e, kl_format(e->ctx, "wide-copy:%s", type)))
    klg_printf(&e->wide_types, "%s %s(%s x) { return x; }\n", type, name, type);
  return name;
}

/* "(text)" unless text is a plain name or member chain. */
static const char *wrapped(glsl_emitter *e, const char *text) {
  for (const char *p = text; *p; p++)
    if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9')))
      return kl_format(e->ctx, "(%s)", text);
  return text;
}

/* Component k of a vector value printed as `value` (a name or wrapped). */
const char *glsl_component(glsl_emitter *e, const char *value, const kl_type *t, int k) {
  if (!klg_is_vector(t)) return value;
  if (glsl_is_wide(t))
    return kl_format(e->ctx, "%s.%s.%c", value, part_names[k / 4], "xyzw"[k % 4]);
  return kl_format(e->ctx, "%s.%c", value, "xyzw"[k]);
}

const char *glsl_zero_wide(glsl_emitter *e, const kl_type *t, kl_location at) {
  klg_buf b;
  klg_init(&b, e->ctx);
  const char *part = glsl_type(e, part_type(e, t), at);
  klg_printf(&b, "%s(", glsl_type(e, t, at));
  for (int k = 0; k < t->length / 4; k++) klg_printf(&b, "%s%s(0)", k ? ", " : "", part);
  klg_puts(&b, ")");
  return klg_text(&b);
}

/* A wide vector from its N element texts. */
const char *glsl_wide_from_elements(glsl_emitter *e, const kl_type *t, const char *const *elements,
                                    kl_location at) {
  klg_buf b;
  klg_init(&b, e->ctx);
  const char *part = glsl_type(e, part_type(e, t), at);
  klg_printf(&b, "%s(", glsl_type(e, t, at));
  for (int k = 0; k < t->length / 4; k++)
    klg_printf(&b, "%s%s(%s, %s, %s, %s)", k ? ", " : "", part, elements[4 * k],
               elements[4 * k + 1], elements[4 * k + 2], elements[4 * k + 3]);
  klg_puts(&b, ")");
  return klg_text(&b);
}

/* ------------------------------------------------------------ helpers */

typedef struct wide_fn {
  const char *name, *signature, *definition;
  struct wide_fn *next;
} wide_fn;

/* Defines `result name(params) body` once and returns the name it got:
 * `name` itself (an overload for these parameter types) unless another
 * helper of that name and parameter types exists with another body. */
static const char *define_helper(glsl_emitter *e, const char *name, const char *result,
                                 const char *params, const char *body) {
  int clashes = 0;
  for (const wide_fn *f = e->wide_fns; f; f = f->next) {
    if (strcmp(f->signature, params) != 0 || strncmp(f->name, name, strlen(name)) != 0) continue;
    const char *rest = f->name + strlen(name);
    if (*rest && *rest != '_') continue;
    if (strcmp(f->definition, kl_format(e->ctx, "%s %s", result, body)) == 0) return f->name;
    clashes++;
  }
  wide_fn *f = kl_alloc(e->ctx, sizeof *f);
  f->name = clashes ? kl_format(e->ctx, "%s_%d", name, clashes) : name;
  f->signature = params;
  f->definition = kl_format(e->ctx, "%s %s", result, body);
  f->next = e->wide_fns;
  e->wide_fns = f;
  klg_printf(&e->helpers, "%s %s(%s) %s\n", result, f->name, params, body);
  return f->name;
}

/* A variable node standing for `text` (a parameter or one of its parts). */
static kl_node *stand_in(glsl_emitter *e, const char *text, const kl_type *type, kl_location at) {
  kl_variable *v = kl_alloc(e->ctx, sizeof *v);
  v->name = text;
  v->type = (kl_type *)type;
  glsl_bind(e, v, text, NULL);
  kl_node *n = kl_alloc(e->ctx, sizeof *n);
  n->kind = KL_EXPR_VARIABLE;
  n->location = at;
  n->type = (kl_type *)type;
  n->variable = v;
  n->is_lvalue = true;
  return n;
}

static const char *const param_names[] = {"a", "b", "c", "d", "e", "f", "g", "h",
                                          "i", "j", "k", "l", "m", "n", "o", "p"};

/* The operands of a node, in evaluation order, as slots that can be
 * replaced in a copy. */
static int operand_slots(kl_node *copy, kl_node ***slots) {
  switch (copy->kind) {
    case KL_EXPR_UNARY:
      slots[0] = &copy->lhs;
      return 1;
    case KL_EXPR_BINARY:
      slots[0] = &copy->lhs;
      slots[1] = &copy->rhs;
      return 2;
    case KL_EXPR_CONDITIONAL:
      slots[0] = &copy->condition;
      slots[1] = &copy->then;
      slots[2] = &copy->otherwise;
      return 3;
    case KL_EXPR_BUILTIN: {
      int count = 0;
      for (kl_node **p = &copy->args; *p && count < 6; p = &(*p)->next) slots[count++] = p;
      return count;
    }
    default:
      return 0;
  }
}

/* The helper's name for an operation. */
static const char *operation_name(glsl_emitter *e, const kl_node *n) {
  static const char *const binary[] = {[KL_OP_ADD] = "add",
                                       [KL_OP_SUB] = "sub",
                                       [KL_OP_MUL] = "mul",
                                       [KL_OP_DIV] = "div",
                                       [KL_OP_MOD] = "rem",
                                       [KL_OP_SHL] = "shl",
                                       [KL_OP_SHR] = "shr",
                                       [KL_OP_BIT_AND] = "and",
                                       [KL_OP_BIT_OR] = "or",
                                       [KL_OP_BIT_XOR] = "xor",
                                       [KL_OP_LOGICAL_AND] = "logical_and",
                                       [KL_OP_LOGICAL_OR] = "logical_or",
                                       [KL_OP_EQ] = "eq",
                                       [KL_OP_NE] = "ne",
                                       [KL_OP_LT] = "lt",
                                       [KL_OP_LE] = "le",
                                       [KL_OP_GT] = "gt",
                                       [KL_OP_GE] = "ge",
                                       [KL_OP_NEGATE] = "neg",
                                       [KL_OP_PLUS] = "plus",
                                       [KL_OP_LOGICAL_NOT] = "not",
                                       [KL_OP_BIT_NOT] = "bit_not"};
  switch (n->kind) {
    case KL_EXPR_CONDITIONAL:
      return "_cl_choose";
    case KL_EXPR_BUILTIN:
      if (n->builtin->category == KL_BUILTIN_CONVERSION && n->spelling)
        return kl_format(e->ctx, "_cl_%s", n->spelling);
      return kl_format(e->ctx, "_cl_%s", n->builtin->canonical);
    default:
      if ((size_t)n->op < sizeof binary / sizeof binary[0] && binary[n->op])
        return kl_format(e->ctx, "_cl_%s", binary[n->op]);
      return "_cl_op";
  }
}

/* The helper doing n on each 4-vector part; `operands` are the node's
 * operand types. Returns its name, or NULL after a diagnostic. */
static const char *parts_helper(glsl_emitter *e, const kl_node *n) {
  kl_node *probe = kl_alloc(e->ctx, sizeof *probe);
  *probe = *n;
  kl_node **slots[6];
  int count = operand_slots(probe, slots);
  const kl_node *operands[6];
  for (int i = 0; i < count; i++) operands[i] = *slots[i];
  int parts = 0;
  if (glsl_is_wide(n->type)) parts = n->type->length / 4;
  for (int i = 0; i < count; i++)
    if (glsl_is_wide(operands[i]->type)) parts = operands[i]->type->length / 4;
  klg_buf params;
  klg_init(&params, e->ctx);
  for (int i = 0; i < count; i++)
    klg_printf(&params, "%s%s", i ? ", " : "",
               glsl_decl(e, operands[i]->type, param_names[i], n->location));
  const char *pieces[4];
  for (int k = 0; k < parts; k++) {
    kl_node *copy = kl_alloc(e->ctx, sizeof *copy);
    *copy = *n;
    copy->type = (kl_type *)part_type(e, n->type);
    kl_node **copy_slots[6];
    operand_slots(copy, copy_slots);
    kl_node *previous = NULL;
    for (int i = 0; i < count; i++) {
      const kl_type *t = operands[i]->type;
      const char *text = glsl_is_wide(t) ? kl_format(e->ctx, "%s.%s", param_names[i], part_names[k])
                                         : param_names[i];
      kl_node *s = stand_in(e, text, part_type(e, t), operands[i]->location);
      if (n->kind == KL_EXPR_BUILTIN) {
        if (previous)
          previous->next = s;
        else
          copy->args = s;
        previous = s;
      } else {
        *copy_slots[i] = s;
      }
    }
    pieces[k] = glsl_text_of(e, copy);
  }
  if (e->failed) return NULL;
  const char *rt = glsl_type(e, n->type, n->location);
  klg_buf body;
  klg_init(&body, e->ctx);
  if (glsl_is_wide(n->type)) {
    klg_printf(&body, "{ return %s(", rt);
    for (int k = 0; k < parts; k++) klg_printf(&body, "%s%s", k ? ", " : "", pieces[k]);
    klg_puts(&body, "); }");
  } else { /* any / all: the parts' results combined */
    const char *join = n->builtin->id == KL_BUILTIN_ANY ? " | " : " & ";
    klg_puts(&body, "{ return ");
    for (int k = 0; k < parts; k++) klg_printf(&body, "%s%s", k ? join : "", pieces[k]);
    klg_puts(&body, "; }");
  }
  return define_helper(e, operation_name(e, n), rt, klg_text(&params), klg_text(&body));
}

static void call_with_operands(glsl_emitter *e, const char *name, const kl_node *n) {
  kl_node *probe = kl_alloc(e->ctx, sizeof *probe);
  *probe = *n;
  kl_node **slots[6];
  int count = operand_slots(probe, slots);
  klg_printf(e->out, "%s(", name);
  for (int i = 0; i < count; i++) {
    if (i) klg_puts(e->out, ", ");
    glsl_expr(e, *slots[i]);
  }
  klg_puts(e->out, ")");
}

/* ----------------------------------------------------------- swizzles */

/* The value of components c[0..count) of a vector printed as `base` (of
 * type bt), as an rvalue of type rt; an lvalue when the components lie in
 * one 4-vector part and do not repeat. */
static const char *compose(glsl_emitter *e, const char *base, const kl_type *bt, const int *c,
                           int count, const kl_type *rt, kl_location at) {
  bool wide_base = glsl_is_wide(bt);
  if (count > 4) {
    klg_buf b;
    klg_init(&b, e->ctx);
    klg_printf(&b, "%s(", glsl_type(e, rt, at));
    const kl_type *pt = part_type(e, rt);
    for (int k = 0; k < count / 4; k++)
      klg_printf(&b, "%s%s", k ? ", " : "", compose(e, base, bt, c + 4 * k, 4, pt, at));
    klg_puts(&b, ")");
    return klg_text(&b);
  }
  /* runs of components in one part of the base */
  klg_buf b;
  klg_init(&b, e->ctx);
  int runs = 0;
  for (int i = 0; i < count;) {
    int part = wide_base ? c[i] / 4 : 0, j = i;
    while (j < count && (wide_base ? c[j] / 4 : 0) == part) j++;
    klg_puts(&b, runs ? ", " : "");
    bool whole_part = wide_base && j - i == 4;
    for (int k = i; k < j && whole_part; k++) whole_part = c[k] % 4 == k - i;
    if (wide_base)
      klg_printf(&b, "%s.%s%s", base, part_names[part], whole_part ? "" : ".");
    else
      klg_printf(&b, "%s.", base);
    for (int k = i; k < j && !whole_part; k++) klg_putn(&b, &"xyzw"[c[k] % 4], 1);
    runs++;
    i = j;
  }
  if (runs == 1) return klg_text(&b);
  return kl_format(e->ctx, "%s(%s)", glsl_type(e, rt, at), klg_text(&b));
}

static bool one_part(const kl_type *bt, const int *c, int count) {
  if (count > 4) return false;
  if (!glsl_is_wide(bt)) return true;
  for (int i = 1; i < count; i++)
    if (c[i] / 4 != c[0] / 4) return false;
  return true;
}

static const char *swizzle_suffix(glsl_emitter *e, const int *c, int count) {
  char text[20];
  for (int i = 0; i < count; i++) text[i] = "0123456789abcdef"[c[i]];
  text[count] = 0;
  return kl_format(e->ctx, "s%s", text);
}

static void swizzle_read(glsl_emitter *e, const kl_node *n, glsl_access mode) {
  int c[16], count;
  const kl_node *base = klg_fold_swizzle(n, c, &count);
  if (glsl_pure(base) || one_part(base->type, c, count)) {
    klg_buf tmp, *saved = e->out;
    klg_init(&tmp, e->ctx);
    e->out = &tmp;
    glsl_expr_mode(e, base, mode);
    e->out = saved;
    klg_puts(e->out,
             compose(e, wrapped(e, klg_text(&tmp)), base->type, c, count, n->type, n->location));
    return;
  }
  const char *bt = glsl_type(e, base->type, n->location), *rt = glsl_type(e, n->type, n->location);
  const char *body = kl_format(e->ctx, "{ return %s; }",
                               compose(e, "v", base->type, c, count, n->type, n->location));
  const char *name = define_helper(e, kl_format(e->ctx, "_cl_get_%s", swizzle_suffix(e, c, count)),
                                   rt, kl_format(e->ctx, "%s v", bt), body);
  klg_printf(e->out, "%s(%s)", name, glsl_text_of(e, base));
}

/* The helper that stores x into components c of v and returns x. */
static const char *setter(glsl_emitter *e, const kl_type *bt, const int *c, int count,
                          const kl_type *rt, kl_location at) {
  klg_buf body;
  klg_init(&body, e->ctx);
  klg_puts(&body, "{");
  for (int i = 0; i < count; i++) {
    bool whole = glsl_is_wide(bt) && glsl_is_wide(rt) && i % 4 == 0 && c[i] % 4 == 0;
    for (int k = 1; k < 4 && whole; k++) whole = c[i + k] == c[i] + k;
    if (whole) { /* four components in order: one part to one part */
      klg_printf(&body, " v.%s = x.%s;", part_names[c[i] / 4], part_names[i / 4]);
      i += 3;
      continue;
    }
    int one = c[i];
    klg_printf(&body, " %s = %s;", compose(e, "v", bt, &one, 1, kl_type_scalar_of(bt), at),
               glsl_component(e, "x", rt, i));
  }
  klg_puts(&body, " return x; }");
  return define_helper(
      e, kl_format(e->ctx, "_cl_set_%s", swizzle_suffix(e, c, count)), glsl_type(e, rt, at),
      kl_format(e->ctx, "inout %s v, %s x", glsl_type(e, bt, at), glsl_type(e, rt, at)),
      klg_text(&body));
}

/* -------------------------------------------------------- vector literal */

static void vector_literal(glsl_emitter *e, const kl_node *n) {
  const kl_node *args[16];
  int count = 0;
  for (const kl_node *a = n->args; a && count < 16; a = a->next) args[count++] = a;
  /* which argument and which of its components each result component is */
  int from_arg[16], from_comp[16], j = 0;
  for (int i = 0; i < count; i++) {
    int len = klg_is_vector(args[i]->type) ? args[i]->type->length : 1;
    if (count == 1 && len == 1) len = n->type->length; /* (float8)(x): every component */
    for (int k = 0; k < len && j < 16; k++, j++) {
      from_arg[j] = i;
      from_comp[j] = klg_is_vector(args[i]->type) ? k : 0;
    }
  }
  /* printed in place unless an argument with side effects spans parts */
  bool pure = true;
  for (int i = 0, first = -1; i < j; i++) {
    if (i == 0 || from_arg[i] != from_arg[i - 1]) first = i;
    if (i / 4 != first / 4 && !glsl_pure(args[from_arg[i]])) pure = false;
  }
  const char *names[16];
  for (int i = 0; i < count; i++)
    names[i] = pure ? wrapped(e, glsl_text_of(e, args[i])) : param_names[i];
  const kl_type *pt = part_type(e, n->type);
  const char *ptn = glsl_type(e, pt, n->location);
  klg_buf b;
  klg_init(&b, e->ctx);
  klg_printf(&b, "%s(", glsl_type(e, n->type, n->location));
  for (int k = 0; k < n->type->length / 4; k++) {
    klg_buf p;
    klg_init(&p, e->ctx);
    int pieces = 0;
    bool whole = false;
    for (int i = 4 * k; i < 4 * k + 4;) {
      int a = from_arg[i], m = i;
      const kl_type *at = args[a]->type;
      /* a run of components of one argument (within one of its parts) */
      while (m < 4 * k + 4 && from_arg[m] == a &&
             (!glsl_is_wide(at) || from_comp[m] / 4 == from_comp[i] / 4) &&
             from_comp[m] == from_comp[i] + (m - i) * (klg_is_vector(at) ? 1 : 0))
        m++;
      klg_puts(&p, pieces++ ? ", " : "");
      if (!klg_is_vector(at)) {
        klg_puts(&p, names[a]);
      } else {
        int comps[4];
        for (int q = i; q < m; q++) comps[q - i] = from_comp[q];
        bool all = !glsl_is_wide(at) && m - i == at->length && from_comp[i] == 0;
        klg_puts(&p, all ? names[a]
                         : compose(e, names[a], at, comps, m - i,
                                   kl_type_vector(e->ctx, at->element->kind, m - i > 1 ? m - i : 2),
                                   n->location));
        whole = pieces == 1 && m - i == 4 && m == 4 * k + 4 && i == 4 * k;
      }
      i = m;
    }
    if (whole)
      klg_printf(&b, "%s%s", k ? ", " : "", klg_text(&p));
    else
      klg_printf(&b, "%s%s(%s)", k ? ", " : "", ptn, klg_text(&p));
  }
  klg_puts(&b, ")");
  if (pure) {
    klg_puts(e->out, klg_text(&b));
    return;
  }
  klg_buf params;
  klg_init(&params, e->ctx);
  for (int i = 0; i < count; i++)
    klg_printf(&params, "%s%s", i ? ", " : "",
               glsl_decl(e, args[i]->type, param_names[i], n->location));
  const char *name = define_helper(e, kl_format(e->ctx, "_cl_make%d", n->type->length),
                                   glsl_type(e, n->type, n->location), klg_text(&params),
                                   kl_format(e->ctx, "{ return %s; }", klg_text(&b)));
  klg_printf(e->out, "%s(", name);
  for (int i = 0; i < count; i++) {
    if (i) klg_puts(e->out, ", ");
    glsl_expr(e, args[i]);
  }
  klg_puts(e->out, ")");
}

/* ------------------------------------------------------- assignments */

/* Compound assignment to a wide vector, or any assignment to components
 * that span parts, as a helper taking the lvalue inout (evaluated once). */
bool glsl_wide_assign(glsl_emitter *e, const kl_node *n) {
  const kl_node *l = n->lhs;
  int c[16], count = 0;
  const kl_node *base = NULL;
  if (l->kind == KL_EXPR_SWIZZLE) {
    base = klg_fold_swizzle(l, c, &count);
    if (one_part(base->type, c, count)) base = NULL;
  }
  if (!base && !(glsl_is_wide(l->type) && n->op != KL_OP_NONE)) return false;
  const kl_type *target = base ? base->type : l->type;
  const char *tt = glsl_type(e, target, n->location);
  const char *rt = glsl_type(e, n->rhs->type, n->location);
  const char *value = "b";
  if (n->op != KL_OP_NONE) {
    /* the operation on a stand-in for the target and the right operand */
    kl_node *op = kl_alloc(e->ctx, sizeof *op);
    op->kind = KL_EXPR_BINARY;
    op->location = n->location;
    op->op = n->op;
    op->type = l->type;
    kl_node *v = stand_in(e, "v", target, n->location);
    if (base) {
      kl_node *sw = kl_alloc(e->ctx, sizeof *sw);
      sw->kind = KL_EXPR_SWIZZLE;
      sw->location = n->location;
      sw->type = l->type;
      sw->lhs = v;
      memcpy(sw->components, c, sizeof c);
      sw->component_count = count;
      op->lhs = sw;
    } else {
      op->lhs = v;
    }
    op->rhs = stand_in(e, "b", n->rhs->type, n->location);
    if (!kl_type_equal(op->rhs->type, l->type) && !(n->op == KL_OP_SHL || n->op == KL_OP_SHR)) {
      glsl_fail(e, n->location, "this compound assignment to an 8- or 16-vector");
      return true;
    }
    value = glsl_text_of(e, op);
  }
  const char *body;
  const char *lt = glsl_type(e, l->type, n->location);
  if (base && n->op == KL_OP_NONE) {
    klg_printf(e->out, "%s(", setter(e, target, c, count, l->type, n->location));
    glsl_expr_mode(e, base, ACCESS_READ_WRITE);
    klg_puts(e->out, ", ");
    glsl_expr(e, n->rhs);
    klg_puts(e->out, ")");
    return true;
  }
  if (base) {
    const char *set = setter(e, target, c, count, l->type, n->location);
    body = kl_format(e->ctx, "{ return %s(v, %s); }", set, value);
  } else {
    body = kl_format(e->ctx, "{ v = %s; return v; }", value);
  }
  const char *name = define_helper(
      e,
      kl_format(e->ctx, "_cl_%s%s", n->op == KL_OP_NONE ? "assign" : operation_name(e, n) + 4,
                base ? kl_format(e->ctx, "_%s", swizzle_suffix(e, c, count)) : "_assign"),
      lt, kl_format(e->ctx, "inout %s v, %s b", tt, rt), body);
  klg_printf(e->out, "%s(", name);
  glsl_expr_mode(e, base ? base : l, ACCESS_READ_WRITE);
  klg_puts(e->out, ", ");
  glsl_expr(e, n->rhs);
  klg_puts(e->out, ")");
  return true;
}

static void increment(glsl_emitter *e, const kl_node *n) {
  bool pre = n->op == KL_OP_PRE_INCREMENT || n->op == KL_OP_PRE_DECREMENT;
  const char *step = n->op == KL_OP_PRE_INCREMENT || n->op == KL_OP_POST_INCREMENT ? "++" : "--";
  const char *t = glsl_type(e, n->type, n->location);
  klg_buf body;
  klg_init(&body, e->ctx);
  klg_puts(&body, pre ? "{" : kl_format(e->ctx, "{ %s r = v;", t));
  for (int k = 0; k < n->type->length / 4; k++) klg_printf(&body, " v.%s%s;", part_names[k], step);
  klg_puts(&body, pre ? " return v; }" : " return r; }");
  const char *name = define_helper(
      e, kl_format(e->ctx, "_cl_%s%s", pre ? "pre" : "post", step[0] == '+' ? "inc" : "dec"), t,
      kl_format(e->ctx, "inout %s v", t), klg_text(&body));
  klg_printf(e->out, "%s(", name);
  glsl_expr_mode(e, n->lhs, ACCESS_READ_WRITE);
  klg_puts(e->out, ")");
}

/* ------------------------------------------------------------ dispatch */

static bool any_wide_operand(const kl_node *n) {
  if (n->kind == KL_EXPR_BUILTIN) {
    for (const kl_node *a = n->args; a; a = a->next)
      if (glsl_is_wide(a->type)) return true;
    return false;
  }
  if (n->kind == KL_EXPR_CONDITIONAL) return glsl_is_wide(n->condition->type);
  return (n->lhs && glsl_is_wide(n->lhs->type)) || (n->rhs && glsl_is_wide(n->rhs->type));
}

/* Emits n when it is an operation on 8- or 16-vectors; false otherwise. */
bool glsl_wide_expr(glsl_emitter *e, const kl_node *n, glsl_access mode) {
  bool wide = glsl_is_wide(n->type);
  switch (n->kind) {
    case KL_EXPR_SWIZZLE: {
      int c[16], count;
      const kl_node *base = klg_fold_swizzle(n, c, &count);
      if (!wide && !glsl_is_wide(base->type)) return false;
      swizzle_read(e, n, mode);
      return true;
    }
    case KL_EXPR_VECTOR_LITERAL:
      if (!wide) return false;
      vector_literal(e, n);
      return true;
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT: {
      if (!wide || kl_type_equal(n->type, n->lhs->type)) return false;
      if (klg_is_vector(n->lhs->type)) {
        glsl_fail(e, n->location, "this conversion between vector types");
        return true;
      }
      /* a scalar widened to every component */
      const kl_type *el = kl_type_scalar_of(n->type);
      const char *x = kl_type_equal(n->lhs->type, el)
                          ? glsl_text_of(e, n->lhs)
                          : kl_format(e->ctx, "%s(%s)", glsl_scalar(e, el, n->location),
                                      glsl_text_of(e, n->lhs));
      if (glsl_pure(n->lhs)) {
        const char *part = glsl_type(e, part_type(e, n->type), n->location);
        klg_printf(e->out, "%s(", glsl_type(e, n->type, n->location));
        for (int k = 0; k < n->type->length / 4; k++)
          klg_printf(e->out, "%s%s(%s)", k ? ", " : "", part, x);
        klg_puts(e->out, ")");
        return true;
      }
      const char *t = glsl_type(e, n->type, n->location);
      const char *part = glsl_type(e, part_type(e, n->type), n->location);
      klg_buf body;
      klg_init(&body, e->ctx);
      klg_printf(&body, "{ return %s(", t);
      for (int k = 0; k < n->type->length / 4; k++)
        klg_printf(&body, "%s%s(x)", k ? ", " : "", part);
      klg_puts(&body, "); }");
      const char *name = define_helper(e, kl_format(e->ctx, "_cl_splat%d", n->type->length), t,
                                       kl_format(e->ctx, "%s x", glsl_scalar(e, el, n->location)),
                                       klg_text(&body));
      klg_printf(e->out, "%s(%s)", name, x);
      return true;
    }
    case KL_EXPR_UNARY:
      if (!wide) return false;
      if (n->op == KL_OP_PRE_INCREMENT || n->op == KL_OP_PRE_DECREMENT ||
          n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT) {
        increment(e, n);
        return true;
      }
      if (n->op == KL_OP_DEREFERENCE) return false;
      break;
    case KL_EXPR_BINARY:
      if (!wide && !any_wide_operand(n)) return false;
      break;
    case KL_EXPR_CONDITIONAL:
      if (!glsl_is_wide(n->condition->type)) return false;
      break;
    case KL_EXPR_BUILTIN:
      if (!wide && !any_wide_operand(n)) return false;
      switch (n->builtin->category) {
        case KL_BUILTIN_MEMORY:
          return false; /* vloadN / vstoreN know wide vectors */
        case KL_BUILTIN_CONVERSION:
          if (n->builtin->id == KL_BUILTIN_AS &&
              kl_type_scalar_of(n->type)->size != kl_type_scalar_of(n->args->type)->size) {
            glsl_fail(e, n->location, "as_T between 8- or 16-vectors of different element sizes");
            return true;
          }
          break;
        default:
          break;
      }
      if (n->builtin->rule == KL_RULE_FLOAT_PTR || n->builtin->rule == KL_RULE_FLOAT_INTPTR) {
        glsl_fail(e, n->location,
                  kl_format(e->ctx, "%s on 8- or 16-vectors", n->builtin->canonical));
        return true;
      }
      break;
    default:
      return false;
  }
  const char *name = parts_helper(e, n);
  if (name) call_with_operands(e, name, n);
  return true;
}
