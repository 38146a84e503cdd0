// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: expressions, with OpenCL C semantics. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emit_glsl_internal.h"

/* The forms every C-syntax target prints alike (gpu_emit.h): "(a op b)",
 * "(a, b)". */
static void glsl_shared_expr(glsl_emitter *e, const kl_node *n) {
  klg_c_printer printer = glsl_printer(e);
  klg_c_expression(&printer, n);
}

void glsl_capture_begin(glsl_emitter *e, glsl_capture *capture) {
  capture->saved = e->out;
  klg_init(&capture->text, e->ctx);
  e->out = &capture->text;
}

const char *glsl_capture_end(glsl_emitter *e, glsl_capture *capture) {
  e->out = capture->saved;
  return klg_text(&capture->text);
}

const char *glsl_text_of(glsl_emitter *e, const kl_node *n) {
  glsl_capture capture;
  glsl_capture_begin(e, &capture);
  glsl_expr(e, n);
  return glsl_capture_end(e, &capture);
}

const char *glsl_cond_text(glsl_emitter *e, const kl_node *n) {
  glsl_capture capture;
  glsl_capture_begin(e, &capture);
  glsl_cond(e, n);
  return glsl_capture_end(e, &capture);
}

const char *glsl_pointer_text(glsl_emitter *e, const kl_node *n, glsl_root **root) {
  glsl_capture capture;
  glsl_capture_begin(e, &capture);
  *root = glsl_pointer(e, n);
  return glsl_capture_end(e, &capture);
}

/* An expression converted to `to` with a constructor where the types differ. */
void glsl_expr_as(glsl_emitter *e, const kl_node *n, const kl_type *to) {
  if (!to || kl_type_equal(n->type, to) || to->kind == KL_TYPE_STRUCT ||
      to->kind == KL_TYPE_ARRAY || to->kind == KL_TYPE_POINTER || to->kind == KL_TYPE_VOID) {
    glsl_expr(e, n);
    return;
  }
  klg_printf(e->out, "%s(", glsl_type(e, to, n->location));
  glsl_expr(e, n);
  klg_puts(e->out, ")");
}

bool glsl_is_comparison(kl_operator op) {
  return op == KL_OP_EQ || op == KL_OP_NE || op == KL_OP_LT || op == KL_OP_LE || op == KL_OP_GT ||
         op == KL_OP_GE;
}

const char *glsl_vector_compare(kl_operator op) {
  switch (op) {
    case KL_OP_EQ:
      return "equal";
    case KL_OP_NE:
      return "notEqual";
    case KL_OP_LT:
      return "lessThan";
    case KL_OP_LE:
      return "lessThanEqual";
    case KL_OP_GT:
      return "greaterThan";
    default:
      return "greaterThanEqual";
  }
}

/* A condition: a GLSL bool. */
void glsl_cond(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  if (n->narrow) n = n->narrow; /* a bounds check: offsets here are 32-bit */
  if (n->kind == KL_EXPR_CONVERT && kl_type_is_scalar(n->type) && kl_type_is_scalar(n->lhs->type) &&
      (n->type->kind == KL_TYPE_BOOL || kl_type_is_integer(n->type)) &&
      (n->type->kind == KL_TYPE_BOOL || n->lhs->type->kind == KL_TYPE_BOOL)) {
    glsl_cond(e, n->lhs);
    return;
  }
  if (glsl_address_cond(e, n)) return;
  if (klg_is_pointer(n->type)) {
    glsl_fail(e, n->location, "pointers as conditions (there are no null pointers)");
    return;
  }
  if (n->kind == KL_EXPR_BINARY && !klg_is_vector(n->type) && !klg_is_vector(n->lhs->type)) {
    if (glsl_is_comparison(n->op)) {
      if (klg_is_pointer(n->lhs->type)) {
        glsl_root *ra, *rb;
        const char *a = glsl_pointer_text(e, n->lhs, &ra), *b = glsl_pointer_text(e, n->rhs, &rb);
        if (ra && rb && ra != rb)
          glsl_fail(e, n->location, "comparing pointers into different arrays");
        klg_printf(o, "(%s %s %s)", a, kl_operator_text(n->op), b);
        return;
      }
      glsl_shared_expr(e, n);
      return;
    }
    if (n->op == KL_OP_LOGICAL_AND || n->op == KL_OP_LOGICAL_OR) {
      klg_puts(o, "(");
      glsl_cond(e, n->lhs);
      klg_printf(o, " %s ", kl_operator_text(n->op));
      glsl_cond(e, n->rhs);
      klg_puts(o, ")");
      return;
    }
  }
  if (n->kind == KL_EXPR_UNARY && n->op == KL_OP_LOGICAL_NOT && !klg_is_vector(n->type)) {
    klg_puts(o, "(!");
    glsl_cond(e, n->lhs);
    klg_puts(o, ")");
    return;
  }
  if (n->type->kind == KL_TYPE_BOOL) {
    glsl_expr(e, n);
    return;
  }
  if (klg_is_vector(n->type)) {
    glsl_fail(e, n->location, "vectors as conditions");
    return;
  }
  klg_puts(o, "(");
  glsl_expr(e, n);
  klg_printf(o, " != %s)", glsl_zero(e, n->type, n->location));
}

/* ----------------------------------------------------- calls of helpers */

void glsl_user_call(glsl_emitter *e, const kl_node *n) {
  const kl_function *f = n->function;
  int count = f->param_count;
  glsl_root **roots = kl_alloc(e->ctx, sizeof *roots * (size_t)(count + 1));
  const char **texts = kl_alloc(e->ctx, sizeof *texts * (size_t)(count + 1));
  const kl_node *a = n->args;
  const kl_variable *p = f->params;
  for (int i = 0; i < count && a && p; i++, a = a->next, p = p->next) {
    if (klg_is_pointer(p->type)) {
      texts[i] = glsl_pointer_text(e, a, &roots[i]);
      if (!roots[i]) return;
      if (roots[i]->choices) {
        glsl_fail(e, a->location, "passing a pointer that points into one of several buffers");
        return;
      }
      if (roots[i]->kind == ROOT_PRIVATE) {
        /* passed by copy (inout): two pointers into one private array would
         * be two copies */
        const glsl_root *under = roots[i]->base ? roots[i]->base : roots[i];
        for (int j = 0; j < i; j++)
          if (roots[j] && (roots[j] == under || roots[j]->base == under)) {
            glsl_fail(e, a->location,
                      "passing two pointers into one private array or variable to a function");
            return;
          }
        texts[i] = kl_format(e->ctx, "%s, %s", roots[i]->array, texts[i]);
      }
    } else {
      klg_buf *saved = e->out;
      klg_buf tmp;
      klg_init(&tmp, e->ctx);
      e->out = &tmp;
      glsl_expr_as(e, a, p->type);
      e->out = saved;
      texts[i] = klg_text(&tmp);
    }
  }
  glsl_spec *spec = NULL;
  for (glsl_spec *s = e->specs; s; s = s->next) {
    if (s->function != f) continue;
    bool same = true;
    for (int i = 0; i < count; i++)
      if (s->roots[i] != roots[i]) same = false;
    if (same) {
      spec = s;
      break;
    }
  }
  if (!spec) {
    spec = kl_alloc(e->ctx, sizeof *spec);
    spec->function = f;
    spec->roots = roots;
    bool has_pointers = false;
    for (int i = 0; i < count; i++)
      if (roots[i]) has_pointers = true;
    spec->name = has_pointers ? kl_format(e->ctx, "%s_%d", glsl_name(e, f->name), e->spec_count)
                              : glsl_name(e, f->name);
    e->spec_count++;
    spec->next = e->specs;
    e->specs = spec;
    glsl_function(e, f, spec);
  }
  klg_printf(e->out, "%s(", spec->name);
  for (int i = 0; i < count; i++)
    klg_printf(e->out, "%s%s", i ? ", " : "", texts[i] ? texts[i] : "");
  klg_puts(e->out, ")");
}

/* ------------------------------------------------------- expressions */

bool glsl_pure(const kl_node *n) {
  switch (n->kind) {
    case KL_EXPR_VARIABLE:
    case KL_EXPR_INT_LITERAL:
    case KL_EXPR_FLOAT_LITERAL:
      return true;
    case KL_EXPR_INDEX:
      return glsl_pure(n->lhs) && glsl_pure(n->rhs);
    case KL_EXPR_MEMBER:
    case KL_EXPR_SWIZZLE:
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      return glsl_pure(n->lhs);
    case KL_EXPR_UNARY:
      return (n->op == KL_OP_DEREFERENCE || n->op == KL_OP_NEGATE || n->op == KL_OP_BIT_NOT ||
              n->op == KL_OP_PLUS) &&
             glsl_pure(n->lhs);
    case KL_EXPR_BINARY:
      return glsl_pure(n->lhs) && glsl_pure(n->rhs);
    default:
      return false;
  }
}

void glsl_swizzle_letters(glsl_emitter *e, const int *c, int count) {
  for (int i = 0; i < count; i++) klg_putn(e->out, &"xyzw"[c[i] & 3], 1);
}

/* What a member access reads the member of: the element a `->` points at,
 * or the parenthesised struct or union. */
void glsl_member_base(glsl_emitter *e, const kl_node *n, glsl_access mode) {
  if (n->is_arrow) {
    glsl_element(e, n->lhs, NULL, mode, n->location);
  } else {
    klg_puts(e->out, "(");
    glsl_expr_mode(e, n->lhs, mode);
    klg_puts(e->out, ")");
  }
}

/* A member of a union of 32-bit scalars (glsl_union_words): word 0 of its
 * `uint _cl_u[N]`, read as the member's type; written whole (the caller
 * converts, glsl_assign), updated in place only as a uint. */
static void glsl_union_member(glsl_emitter *e, const kl_node *n, glsl_access mode) {
  klg_buf *o = e->out;
  kl_type_kind k = n->member->type->kind;
  if (mode == ACCESS_READ_WRITE && k != KL_TYPE_UINT) {
    glsl_fail(e, n->location, "updating a union member other than a uint in place");
    return;
  }
  const char *cast = mode != ACCESS_READ  ? NULL
                     : k == KL_TYPE_FLOAT ? "uintBitsToFloat"
                     : k == KL_TYPE_INT   ? "int"
                                          : NULL;
  if (cast) klg_printf(o, "%s(", cast);
  glsl_member_base(e, n, mode);
  klg_puts(o, cast ? "._cl_u[0])" : "._cl_u[0]");
}

void glsl_assign(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_node *l = n->lhs, *r = n->rhs;
  const kl_type *lt = l->type;
  if (n->op == KL_OP_NONE && l->kind == KL_EXPR_MEMBER && l->lhs->type->kind == KL_TYPE_STRUCT &&
      l->lhs->type->is_union) { /* the member's bits into the union's word */
    klg_puts(o, "(");
    glsl_expr_mode(e, l, ACCESS_WRITE);
    klg_printf(o, " = %s(", lt->kind == KL_TYPE_FLOAT ? "floatBitsToUint" : "uint");
    glsl_expr_as(e, r, lt);
    klg_puts(o, "))");
    return;
  }
  if (klg_is_pointer(lt)) {
    glsl_pointer(e, n);
    return;
  }
  if (glsl_split_pointer_choice(e, n)) return;
  if (glsl_choice_assign(e, n)) return;
  if (glsl_wide_assign(e, n)) return;
  if (n->op == KL_OP_NONE && l->kind == KL_EXPR_MEMBER && l->member->type->kind == KL_TYPE_BOOL) {
    /* a bool member is a uint8_t (glsl_struct) */
    klg_puts(o, "(");
    glsl_expr_mode(e, l, ACCESS_WRITE);
    klg_printf(o, " = (%s ? uint8_t(1) : uint8_t(0)))", glsl_cond_text(e, r));
    return;
  }
  if (n->op == KL_OP_NONE) {
    klg_puts(o, "(");
    glsl_expr_mode(e, l, ACCESS_WRITE);
    klg_puts(o, " = ");
    glsl_expr_as(e, r, lt);
    klg_puts(o, ")");
    return;
  }
  bool shift = n->op == KL_OP_SHL || n->op == KL_OP_SHR;
  /* the parser's type for `l op r` (kl_node.operation_type) */
  const kl_type *op_type = n->operation_type;
  if (!op_type) {
    glsl_fail(e, n->location, "this compound assignment");
    return;
  }
  bool srem = n->op == KL_OP_MOD && glsl_is_signed_int(op_type);
  bool native = kl_type_equal(op_type, lt) && !srem &&
                (shift || kl_type_equal(r->type, lt) ||
                 (klg_is_vector(lt) && !klg_is_vector(r->type) &&
                  kl_type_equal(kl_type_scalar_of(lt), r->type)));
  if (native) {
    klg_puts(o, "(");
    glsl_expr_mode(e, l, ACCESS_READ_WRITE);
    klg_printf(o, " %s= ", kl_operator_text(n->op));
    if (shift) {
      const kl_type *rs = kl_type_scalar_of(r->type);
      klg_printf(o, "(%s & ", glsl_text_of(e, r));
      glsl_int_literal(e, rs, (uint64_t)(glsl_bits(kl_type_scalar_of(lt)) - 1));
      klg_puts(o, ")");
    } else {
      glsl_expr(e, r);
    }
    klg_puts(o, ")");
    return;
  }
  if (!glsl_pure(l)) {
    glsl_fail(e, n->location, "this compound assignment to an lvalue with side effects");
    return;
  }
  /* l = LT(OT(l) op r) */
  const char *ltext = glsl_text_of(e, l);
  klg_buf *saved = e->out;
  klg_buf tmp;
  klg_init(&tmp, e->ctx);
  e->out = &tmp;
  glsl_expr_mode(e, l, ACCESS_READ_WRITE);
  e->out = saved;
  const char *ot = glsl_type(e, op_type, n->location);
  const char *rtext = kl_type_equal(r->type, op_type) || klg_is_vector(op_type)
                          ? glsl_text_of(e, r)
                          : kl_format(e->ctx, "%s(%s)", ot, glsl_text_of(e, r));
  const char *value;
  if (srem) {
    const kl_type *s = kl_type_scalar_of(op_type);
    glsl_helper(e, "_cl_srem", op_type, s, s, 2, NULL,
                "$T _cl_srem($T a, $T b) { return $T(a - b * (a / b)); }", NULL);
    value = kl_format(e->ctx, "_cl_srem(%s(%s), %s)", ot, ltext, rtext);
  } else if (shift) {
    const kl_type *rs = kl_type_scalar_of(r->type);
    klg_buf m;
    klg_init(&m, e->ctx);
    klg_buf *sv = e->out;
    e->out = &m;
    glsl_int_literal(e, rs, (uint64_t)(glsl_bits(kl_type_scalar_of(op_type)) - 1));
    e->out = sv;
    value = kl_format(e->ctx, "(%s(%s) %s (%s & %s))", ot, ltext, kl_operator_text(n->op),
                      glsl_text_of(e, r), klg_text(&m));
  } else {
    value = kl_format(e->ctx, "(%s(%s) %s %s)", ot, ltext, kl_operator_text(n->op), rtext);
  }
  klg_printf(o, "(%s = %s(%s))", klg_text(&tmp), glsl_type(e, lt, n->location), value);
}

/* The value of a float constant expression with float rounding at each
 * step, as OpenCL compilers fold it: glslang folds float arithmetic in
 * double (`1.0f + FLT_EPSILON * 0.5f == 1.0f` would be false). */
static bool float_constant(const kl_node *n, float *value) {
  float a, b;
  switch (n->kind) {
    case KL_EXPR_FLOAT_LITERAL:
      if (n->type->kind != KL_TYPE_FLOAT) return false;
      *value = (float)n->float_value;
      return true;
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      if (n->type->kind != KL_TYPE_FLOAT) return false;
      if (n->lhs->kind == KL_EXPR_INT_LITERAL && kl_type_is_integer(n->lhs->type)) {
        *value = kl_type_is_signed(n->lhs->type) ? (float)(int64_t)n->lhs->int_value
                                                 : (float)n->lhs->int_value;
        return true;
      }
      return n->lhs->type->kind == KL_TYPE_FLOAT && float_constant(n->lhs, value);
    case KL_EXPR_UNARY:
      if (n->type->kind != KL_TYPE_FLOAT || !float_constant(n->lhs, &a)) return false;
      if (n->op == KL_OP_NEGATE)
        *value = -a;
      else if (n->op == KL_OP_PLUS)
        *value = a;
      else
        return false;
      return true;
    case KL_EXPR_BINARY:
      if (n->type->kind != KL_TYPE_FLOAT || !float_constant(n->lhs, &a) ||
          !float_constant(n->rhs, &b))
        return false;
      switch (n->op) {
        case KL_OP_ADD:
          *value = a + b;
          return true;
        case KL_OP_SUB:
          *value = a - b;
          return true;
        case KL_OP_MUL:
          *value = a * b;
          return true;
        case KL_OP_DIV:
          *value = a / b;
          return true;
        default:
          return false;
      }
    default:
      return false;
  }
}

void glsl_expr(glsl_emitter *e, const kl_node *n) {
  glsl_expr_mode(e, n, ACCESS_READ);
}

/* Unary operators: increments and decrements as read-write lvalues, ! as
 * OpenCL's int or mask, * and & through the pointer model. */
static void glsl_unary(glsl_emitter *e, const kl_node *n, glsl_access mode) {
  klg_buf *o = e->out;
  switch (n->op) {
    case KL_OP_POST_INCREMENT:
    case KL_OP_POST_DECREMENT:
      klg_puts(o, "(");
      glsl_expr_mode(e, n->lhs, ACCESS_READ_WRITE);
      klg_puts(o, n->op == KL_OP_POST_INCREMENT ? "++)" : "--)");
      return;
    case KL_OP_PRE_INCREMENT:
    case KL_OP_PRE_DECREMENT:
      klg_puts(o, n->op == KL_OP_PRE_INCREMENT ? "(++" : "(--");
      glsl_expr_mode(e, n->lhs, ACCESS_READ_WRITE);
      klg_puts(o, ")");
      return;
    case KL_OP_LOGICAL_NOT:
      if (klg_is_vector(n->lhs->type)) {
        glsl_mask_from_bvec(e, n->type,
                            kl_format(e->ctx, "equal(%s, %s)", glsl_text_of(e, n->lhs),
                                      glsl_zero(e, n->lhs->type, n->location)));
        return;
      }
      klg_printf(o, "%s(!%s)", glsl_type(e, n->type, n->location), glsl_cond_text(e, n->lhs));
      return;
    case KL_OP_DEREFERENCE:
      glsl_element(e, n->lhs, NULL, mode, n->location);
      return;
    case KL_OP_ADDRESS_OF:
      glsl_fail(e, n->location, "this use of a pointer");
      return;
    default:
      klg_puts(o, n->op == KL_OP_NEGATE ? "(-" : n->op == KL_OP_PLUS ? "(+" : "(~");
      glsl_expr(e, n->lhs);
      klg_puts(o, ")");
      return;
  }
}

/* Binary operators: folded float constants, pointer differences and
 * comparisons, comparisons and logic as OpenCL's int or mask, signed %,
 * shifts with the count masked to the width. */
static void glsl_binary(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_type *t = n->type;
  float folded;
  if (t->kind == KL_TYPE_FLOAT && float_constant(n, &folded)) {
    glsl_float_value(e, folded, false);
    return;
  }
  if (klg_is_pointer(n->lhs->type) && klg_is_pointer(n->rhs->type) &&
      glsl_address_difference(e, n)) {
    return;
  }
  if (klg_is_pointer(n->lhs->type) && klg_is_pointer(n->rhs->type)) {
    glsl_root *ra, *rb;
    const char *a = glsl_pointer_text(e, n->lhs, &ra), *b = glsl_pointer_text(e, n->rhs, &rb);
    if (ra && rb && ra != rb) glsl_fail(e, n->location, "pointers into different arrays");
    if (n->op == KL_OP_SUB) /* uint offsets: the difference as a signed 32-bit value first */
      klg_printf(o, "%s(int(%s - %s))", glsl_type(e, t, n->location), a, b);
    else
      klg_printf(o, "int(%s %s %s)", a, kl_operator_text(n->op), b);
    return;
  }
  if (glsl_is_comparison(n->op) || n->op == KL_OP_LOGICAL_AND || n->op == KL_OP_LOGICAL_OR) {
    if (klg_is_vector(n->lhs->type)) {
      const char *a = glsl_text_of(e, n->lhs), *b = glsl_text_of(e, n->rhs);
      if (glsl_is_comparison(n->op)) {
        glsl_mask_from_bvec(e, t,
                            kl_format(e->ctx, "%s(%s, %s)", glsl_vector_compare(n->op), a, b));
      } else {
        const char *z = glsl_zero(e, n->lhs->type, n->location);
        const char *mt = glsl_type(e, t, n->location);
        klg_printf(o, "(-%s(%s(%s(notEqual(%s, %s)) %s %s(notEqual(%s, %s)))))", mt,
                   kl_format(e->ctx, "bvec%d", t->length), kl_format(e->ctx, "uvec%d", t->length),
                   a, z, n->op == KL_OP_LOGICAL_AND ? "&" : "|",
                   kl_format(e->ctx, "uvec%d", t->length), b, z);
      }
      return;
    }
    klg_printf(o, "%s(%s)", glsl_type(e, t, n->location), glsl_cond_text(e, n));
    return;
  }
  if (n->op == KL_OP_MOD && glsl_is_signed_int(t)) {
    const kl_type *s = kl_type_scalar_of(t);
    glsl_helper(e, "_cl_srem", t, s, s, 2, NULL,
                "$T _cl_srem($T a, $T b) { return $T(a - b * (a / b)); }", NULL);
    klg_puts(o, "_cl_srem(");
    glsl_expr(e, n->lhs);
    klg_puts(o, ", ");
    glsl_expr_as(e, n->rhs, t);
    klg_puts(o, ")");
    return;
  }
  if (n->op == KL_OP_SHL || n->op == KL_OP_SHR) {
    const kl_type *rs = kl_type_scalar_of(n->rhs->type);
    klg_puts(o, "(");
    glsl_expr(e, n->lhs);
    klg_printf(o, " %s (", kl_operator_text(n->op));
    glsl_expr(e, n->rhs);
    klg_puts(o, " & ");
    glsl_int_literal(e, rs, (uint64_t)(glsl_bits(kl_type_scalar_of(t)) - 1));
    klg_puts(o, "))");
    return;
  }
  glsl_shared_expr(e, n);
}

/* Casts and conversions: literals converted here, bool from a condition,
 * a work-item id's low 32 bits, else the GLSL constructor. */
static void glsl_cast(glsl_emitter *e, const kl_node *n, glsl_access mode) {
  klg_buf *o = e->out;
  const kl_type *to = n->type, *from = n->lhs->type;
  if (kl_type_equal(to, from) || to->kind == KL_TYPE_STRUCT) {
    glsl_expr_mode(e, n->lhs, mode);
    return;
  }
  if (to->kind == KL_TYPE_VOID) {
    glsl_expr(e, n->lhs);
    return;
  }
  const kl_node *inner = n->lhs;
  if (inner->kind == KL_EXPR_INT_LITERAL && kl_type_is_scalar(to) && to->kind != KL_TYPE_BOOL) {
    uint64_t v = inner->int_value;
    if (kl_type_is_floating(to)) {
      double d = kl_type_is_signed(inner->type) ? (double)(int64_t)v : (double)v;
      glsl_float_value(e, to->kind == KL_TYPE_FLOAT ? (double)(float)d : d,
                       to->kind == KL_TYPE_DOUBLE);
      return;
    }
    if (to->kind == KL_TYPE_INT || to->kind == KL_TYPE_UINT || to->kind == KL_TYPE_SIZE_T ||
        to->kind == KL_TYPE_PTRDIFF_T || to->kind == KL_TYPE_LONG || to->kind == KL_TYPE_ULONG) {
      glsl_int_literal(e, to, v);
      return;
    }
  }
  if (to->kind == KL_TYPE_BOOL && !klg_is_vector(from)) {
    klg_puts(o, glsl_cond_text(e, n->lhs));
    return;
  }
  if (inner->kind == KL_EXPR_BUILTIN && inner->builtin &&
      inner->builtin->category == KL_BUILTIN_WORK_ITEM && kl_type_is_integer(to) &&
      kl_type_is_scalar(to) && to->size <= 4) {
    /* (uint)get_global_id(0): the low 32 bits, computed in 32 bits */
    klg_printf(o, "%s(", glsl_type(e, to, n->location));
    glsl_work_item(e, inner, false);
    klg_puts(o, ")");
    return;
  }
  klg_printf(o, "%s(", glsl_type(e, to, n->location));
  if (!klg_is_vector(from) && (from->kind == KL_TYPE_BOOL || glsl_is_comparison(inner->op)) &&
      inner->kind == KL_EXPR_BINARY && klg_is_vector(to)) {
    glsl_expr(e, inner);
  } else {
    glsl_expr(e, inner);
  }
  klg_puts(o, ")");
}

/* a[i]: through a pointer, or into an array or vector with an int index. */
static void glsl_index(glsl_emitter *e, const kl_node *n, glsl_access mode) {
  klg_buf *o = e->out;
  const kl_node *base = n->lhs;
  while ((base->kind == KL_EXPR_CONVERT || base->kind == KL_EXPR_CAST) &&
         base->lhs->type->kind == KL_TYPE_ARRAY)
    base = base->lhs;
  if (klg_is_pointer(base->type)) {
    glsl_element(e, base, n->rhs, mode, n->location);
    return;
  }
  klg_puts(o, "(");
  glsl_expr_mode(e, base, mode);
  klg_puts(o, ")[");
  const kl_type *it = kl_type_scalar_of(n->rhs->type);
  if (it->kind == KL_TYPE_INT || it->kind == KL_TYPE_UINT) { /* a 64-bit index: int() */
    glsl_expr(e, n->rhs);
  } else {
    klg_puts(o, "int(");
    glsl_low32(e, n->rhs);
    klg_puts(o, ")");
  }
  klg_puts(o, "]");
}

void glsl_expr_mode(glsl_emitter *e, const kl_node *n, glsl_access mode) {
  klg_buf *o = e->out;
  if (!n) return;
  if (n->narrow) n = n->narrow; /* a bounds check: offsets here are 32-bit */
  if (klg_is_pointer(n->type) && n->kind != KL_EXPR_ASSIGN) {
    glsl_pointer(e, n);
    return;
  }
  if (glsl_split_pointer_choice(e, n)) return;
  if (glsl_wide_expr(e, n, mode)) return;
  switch (n->kind) {
    case KL_EXPR_INT_LITERAL:
      glsl_int_literal(e, n->type, n->int_value);
      return;
    case KL_EXPR_FLOAT_LITERAL:
      if (n->type->kind == KL_TYPE_HALF) { /* rounded to half by the conversion */
        klg_printf(o, "%s(", glsl_scalar(e, n->type, n->location));
        glsl_float_value(e, n->float_value, false);
        klg_puts(o, ")");
        return;
      }
      glsl_float_value(e, n->float_value, n->type->kind == KL_TYPE_DOUBLE);
      return;
    case KL_EXPR_VARIABLE:
      klg_puts(o, glsl_var_name(e, n->variable));
      return;
    case KL_EXPR_VECTOR_LITERAL:
      klg_printf(o, "%s(", glsl_type(e, n->type, n->location));
      glsl_call_args(e, n->args);
      klg_puts(o, ")");
      return;
    case KL_EXPR_UNARY:
      glsl_unary(e, n, mode);
      return;
    case KL_EXPR_BINARY:
      glsl_binary(e, n);
      return;
    case KL_EXPR_ASSIGN:
      glsl_assign(e, n);
      return;
    case KL_EXPR_CONDITIONAL:
      if (klg_is_vector(n->condition->type)) {
        const char *c = glsl_text_of(e, n->condition);
        klg_printf(o, "mix(%s, %s, lessThan(%s, %s))", glsl_text_of(e, n->otherwise),
                   glsl_text_of(e, n->then), c, glsl_zero(e, n->condition->type, n->location));
        return;
      }
      klg_printf(o, "(%s ? ", glsl_cond_text(e, n->condition));
      if (glsl_is_wide(n->type)) { /* each branch copied (glsl_wide_copy) */
        const char *copy = glsl_wide_copy(e, n->type, n->location);
        klg_printf(o, "%s(%s) : %s(%s))", copy, glsl_text_of(e, n->then), copy,
                   glsl_text_of(e, n->otherwise));
        return;
      }
      glsl_expr_as(e, n->then, n->type);
      klg_puts(o, " : ");
      glsl_expr_as(e, n->otherwise, n->type);
      klg_puts(o, ")");
      return;
    case KL_EXPR_COMMA:
      glsl_shared_expr(e, n);
      return;
    case KL_EXPR_CALL:
      glsl_user_call(e, n);
      return;
    case KL_EXPR_BUILTIN:
      glsl_builtin(e, n);
      return;
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
      glsl_cast(e, n, mode);
      return;
    case KL_EXPR_INDEX:
      glsl_index(e, n, mode);
      return;
    case KL_EXPR_MEMBER: {
      if (n->lhs->type->kind == KL_TYPE_STRUCT && n->lhs->type->is_union) {
        glsl_union_member(e, n, mode);
        return;
      }
      /* a bool member is a uint8_t (glsl_struct): read as a comparison */
      bool byte_bool = n->member->type->kind == KL_TYPE_BOOL;
      if (byte_bool && mode == ACCESS_READ_WRITE) {
        glsl_fail(e, n->location, "updating a bool member in place");
        return;
      }
      if (byte_bool && mode == ACCESS_READ) klg_puts(o, "(");
      glsl_member_base(e, n, mode);
      klg_printf(o, ".%s", glsl_name(e, n->member->name));
      if (byte_bool && mode == ACCESS_READ) klg_puts(o, " != uint8_t(0))");
      return;
    }
    case KL_EXPR_SWIZZLE: {
      int c[16], count;
      const kl_node *base = klg_fold_swizzle(n, c, &count);
      klg_puts(o, "(");
      glsl_expr_mode(e, base, mode);
      klg_puts(o, ").");
      glsl_swizzle_letters(e, c, count);
      return;
    }
    default:
      glsl_fail(e, n->location, "this expression");
      return;
  }
}
