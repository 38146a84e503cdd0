// SPDX-License-Identifier: Apache-2.0
/* Binary, conditional and assignment operators, with OpenCL C's usual
 * arithmetic conversions for scalars and vectors (parse_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

/* The common type of two arithmetic operands, with OpenCL's vector rules;
 * converts both. NULL (after an error) when they do not combine. */
static kl_type *arith_common(parser *p, kl_node **lhs, kl_node **rhs, kl_location at,
                             const char *op) {
  kl_type *a = (*lhs)->type, *b = (*rhs)->type;
  if (!kp_is_bool_or_arith(a) || !kp_is_bool_or_arith(b)) {
    kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", op, kp_type_name(p, a),
             kp_type_name(p, b));
    return NULL;
  }
  kl_type *t;
  if (a->kind == KL_TYPE_VECTOR && b->kind == KL_TYPE_VECTOR) {
    if (!kl_type_equal(a, b)) {
      kl_error(
          p->ctx, at,
          "invalid operands to binary '%s' ('%s' and '%s'): vector operands must have the same "
          "type (no implicit conversion between vector types)",
          op, kp_type_name(p, a), kp_type_name(p, b));
      return NULL;
    }
    t = kl_type_unqualified(p->ctx, a);
  } else if (a->kind == KL_TYPE_VECTOR) {
    t = kl_type_unqualified(p->ctx, a);
  } else if (b->kind == KL_TYPE_VECTOR) {
    t = kl_type_unqualified(p->ctx, b);
  } else {
    t = kl_type_common(p->ctx, a, b);
  }
  *lhs = kl_convert(p->ctx, *lhs, t);
  *rhs = kl_convert(p->ctx, *rhs, t);
  return t;
}

static const char *op_text(kl_operator op) {
  static const char *const texts[] = {
      [KL_OP_ADD] = "+",
      [KL_OP_SUB] = "-",
      [KL_OP_MUL] = "*",
      [KL_OP_DIV] = "/",
      [KL_OP_MOD] = "%",
      [KL_OP_SHL] = "<<",
      [KL_OP_SHR] = ">>",
      [KL_OP_BIT_AND] = "&",
      [KL_OP_BIT_OR] = "|",
      [KL_OP_BIT_XOR] = "^",
      [KL_OP_LOGICAL_AND] = "&&",
      [KL_OP_LOGICAL_OR] = "||",
      [KL_OP_EQ] = "==",
      [KL_OP_NE] = "!=",
      [KL_OP_LT] = "<",
      [KL_OP_LE] = "<=",
      [KL_OP_GT] = ">",
      [KL_OP_GE] = ">=",
      [KL_OP_NEGATE] = "-",
      [KL_OP_PLUS] = "+",
      [KL_OP_LOGICAL_NOT] = "!",
      [KL_OP_BIT_NOT] = "~",
      [KL_OP_PRE_INCREMENT] = "++",
      [KL_OP_PRE_DECREMENT] = "--",
      [KL_OP_POST_INCREMENT] = "++",
      [KL_OP_POST_DECREMENT] = "--",
      [KL_OP_DEREFERENCE] = "*",
      [KL_OP_ADDRESS_OF] = "&",
  };
  if ((int)op < 0 || (size_t)op >= sizeof texts / sizeof texts[0] || !texts[op]) return "?";
  return texts[op];
}

bool kp_is_integer_like(const kl_type *t) {
  const kl_type *s = kl_type_scalar_of(t);
  return kl_type_is_integer(s) || (s && s->kind == KL_TYPE_BOOL);
}

kl_node *kp_new_binary(parser *p, kl_operator op, kl_node *lhs, kl_node *rhs, kl_location at) {
  lhs = kp_decay(p, lhs);
  rhs = kp_decay(p, rhs);
  kl_node *n = kp_new_node(p, KL_EXPR_BINARY, at);
  n->op = op;
  kl_type *a = lhs->type, *b = rhs->type;
  const char *text = op_text(op);
  switch (op) {
    case KL_OP_ADD:
    case KL_OP_SUB:
      if (a->kind == KL_TYPE_POINTER || b->kind == KL_TYPE_POINTER) {
        if (a->kind == KL_TYPE_POINTER && b->kind == KL_TYPE_POINTER && op == KL_OP_SUB) {
          if (!kl_type_equal(a, b))
            kl_error(p->ctx, at, "subtracting pointers of different types ('%s' and '%s')",
                     kp_type_name(p, a), kp_type_name(p, b));
          n->type = kl_type_scalar(p->ctx, KL_TYPE_PTRDIFF_T);
        } else if (a->kind == KL_TYPE_POINTER && kp_is_integer_like(b) &&
                   b->kind != KL_TYPE_VECTOR) {
          n->type = kl_type_unqualified(p->ctx, a);
        } else if (op == KL_OP_ADD && b->kind == KL_TYPE_POINTER && kp_is_integer_like(a) &&
                   a->kind != KL_TYPE_VECTOR) {
          /* i + p: canonical order p + i */
          kl_node *t = lhs;
          lhs = rhs;
          rhs = t;
          n->type = kl_type_unqualified(p->ctx, lhs->type);
        } else {
          kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", text,
                   kp_type_name(p, a), kp_type_name(p, b));
          n->type = kp_int_type(p);
        }
        if (n->type->kind == KL_TYPE_POINTER && n->type->element->kind == KL_TYPE_VOID)
          kl_error(p->ctx, at, "arithmetic on a pointer to void");
        break;
      }
      /* fallthrough */
    case KL_OP_MUL:
    case KL_OP_DIV: {
      kl_type *t = arith_common(p, &lhs, &rhs, at, text);
      n->type = t ? t : kp_int_type(p);
      break;
    }
    case KL_OP_MOD:
    case KL_OP_BIT_AND:
    case KL_OP_BIT_OR:
    case KL_OP_BIT_XOR: {
      if (!kp_is_integer_like(a) || !kp_is_integer_like(b)) {
        if (op == KL_OP_MOD && kp_is_bool_or_arith(a) && kp_is_bool_or_arith(b))
          kl_error(p->ctx, at,
                   "invalid operands to binary '%%' ('%s' and '%s'): use fmod() for floating point",
                   kp_type_name(p, a), kp_type_name(p, b));
        else
          kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s'): integers needed",
                   text, kp_type_name(p, a), kp_type_name(p, b));
        n->type = kp_int_type(p);
        break;
      }
      kl_type *t = arith_common(p, &lhs, &rhs, at, text);
      n->type = t ? t : kp_int_type(p);
      break;
    }
    case KL_OP_SHL:
    case KL_OP_SHR: {
      if (!kp_is_integer_like(a) || !kp_is_integer_like(b)) {
        kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s'): integers needed",
                 text, kp_type_name(p, a), kp_type_name(p, b));
        n->type = kp_int_type(p);
        break;
      }
      if (a->kind != KL_TYPE_VECTOR && b->kind == KL_TYPE_VECTOR) {
        kl_error(p->ctx, at,
                 "invalid operands to binary '%s' ('%s' and '%s'): a scalar shifted by a vector",
                 text, kp_type_name(p, a), kp_type_name(p, b));
        n->type = kp_int_type(p);
        break;
      }
      kl_type *t =
          a->kind == KL_TYPE_VECTOR ? kl_type_unqualified(p->ctx, a) : kl_type_promote(p->ctx, a);
      if (a->kind == KL_TYPE_VECTOR && b->kind == KL_TYPE_VECTOR && a->length != b->length) {
        kl_error(p->ctx, at,
                 "invalid operands to binary '%s' ('%s' and '%s'): vectors of different lengths",
                 text, kp_type_name(p, a), kp_type_name(p, b));
      }
      lhs = kl_convert(p->ctx, lhs, t);
      rhs = kl_convert(p->ctx, rhs, t); /* the count, masked to the width by every target */
      n->type = t;
      break;
    }
    case KL_OP_EQ:
    case KL_OP_NE:
    case KL_OP_LT:
    case KL_OP_LE:
    case KL_OP_GT:
    case KL_OP_GE: {
      if (a->kind == KL_TYPE_POINTER || b->kind == KL_TYPE_POINTER) {
        bool ok = (a->kind == KL_TYPE_POINTER && b->kind == KL_TYPE_POINTER &&
                   a->pointee_space == b->pointee_space) ||
                  (a->kind == KL_TYPE_POINTER && kp_is_null_constant(p, rhs)) ||
                  (b->kind == KL_TYPE_POINTER && kp_is_null_constant(p, lhs));
        if (!ok)
          kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", text,
                   kp_type_name(p, a), kp_type_name(p, b));
        if (a->kind != KL_TYPE_POINTER) lhs = kl_convert(p->ctx, lhs, b);
        if (b->kind != KL_TYPE_POINTER) rhs = kl_convert(p->ctx, rhs, a);
        n->type = kp_int_type(p);
        break;
      }
      kl_type *t = arith_common(p, &lhs, &rhs, at, text);
      n->type = t ? kl_type_signed_int_like(p->ctx, t) : kp_int_type(p);
      break;
    }
    case KL_OP_LOGICAL_AND:
    case KL_OP_LOGICAL_OR: {
      if (a->kind == KL_TYPE_VECTOR || b->kind == KL_TYPE_VECTOR) {
        if (!kp_is_integer_like(a) || !kp_is_integer_like(b)) {
          kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", text,
                   kp_type_name(p, a), kp_type_name(p, b));
          n->type = kp_int_type(p);
          break;
        }
        kl_type *t = arith_common(p, &lhs, &rhs, at, text);
        n->type = t ? kl_type_signed_int_like(p->ctx, t) : kp_int_type(p);
        break;
      }
      if (!(kl_type_is_scalar(a) || a->kind == KL_TYPE_POINTER) ||
          !(kl_type_is_scalar(b) || b->kind == KL_TYPE_POINTER))
        kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", text,
                 kp_type_name(p, a), kp_type_name(p, b));
      n->type = kp_int_type(p);
      break;
    }
    default:
      n->type = kp_int_type(p);
      break;
  }
  n->lhs = lhs;
  n->rhs = rhs;
  return n;
}

kl_node *kp_new_unary(parser *p, kl_operator op, kl_node *x, kl_location at) {
  kl_node *n = kp_new_node(p, KL_EXPR_UNARY, at);
  n->op = op;
  kl_type *t = x->type;
  switch (op) {
    case KL_OP_NEGATE:
    case KL_OP_PLUS:
    case KL_OP_BIT_NOT: {
      bool bitwise = op == KL_OP_BIT_NOT;
      if (bitwise ? !kp_is_integer_like(t) : !kp_is_bool_or_arith(t)) {
        kl_error(p->ctx, at, "invalid operand to unary '%s' ('%s')%s", op_text(op),
                 kp_type_name(p, t), bitwise ? ": an integer needed" : "");
        n->type = kp_int_type(p);
        break;
      }
      n->type =
          t->kind == KL_TYPE_VECTOR ? kl_type_unqualified(p->ctx, t) : kl_type_promote(p->ctx, t);
      x = kl_convert(p->ctx, x, n->type);
      break;
    }
    case KL_OP_LOGICAL_NOT:
      x = kp_decay(p, x);
      t = x->type;
      if (t->kind == KL_TYPE_VECTOR) {
        if (!kp_is_integer_like(t))
          kl_error(p->ctx, at, "invalid operand to unary '!' ('%s')", kp_type_name(p, t));
        n->type = kl_type_signed_int_like(p->ctx, t);
      } else {
        if (!kl_type_is_scalar(t) && t->kind != KL_TYPE_POINTER)
          kl_error(p->ctx, at, "invalid operand to unary '!' ('%s')", kp_type_name(p, t));
        n->type = kp_int_type(p);
      }
      break;
    case KL_OP_PRE_INCREMENT:
    case KL_OP_PRE_DECREMENT:
    case KL_OP_POST_INCREMENT:
    case KL_OP_POST_DECREMENT:
      if (!(kp_is_bool_or_arith(t) || t->kind == KL_TYPE_POINTER) || t->kind == KL_TYPE_BOOL) {
        kl_error(p->ctx, at, "invalid operand to '%s' ('%s')", op_text(op), kp_type_name(p, t));
      } else {
        kp_is_modifiable(p, x, kl_format(p->ctx, "'%s'", op_text(op)));
      }
      n->type = kl_type_unqualified(p->ctx, t);
      break;
    case KL_OP_DEREFERENCE:
      x = kp_decay(p, x);
      t = x->type;
      if (t->kind != KL_TYPE_POINTER) {
        kl_error(p->ctx, at, "invalid operand to unary '*' ('%s'): not a pointer",
                 kp_type_name(p, t));
        n->type = kp_int_type(p);
        break;
      }
      if (t->element->kind == KL_TYPE_VOID)
        kl_error(p->ctx, at, "dereference of a pointer to void");
      n->type = t->element;
      n->is_lvalue = true;
      break;
    case KL_OP_ADDRESS_OF:
      if (!x->is_lvalue) {
        kl_error(p->ctx, at, "cannot take the address of an rvalue");
        n->type = kl_type_pointer(p->ctx, t, KL_SPACE_PRIVATE);
        break;
      }
      if (x->kind == KL_EXPR_SWIZZLE || (x->kind == KL_EXPR_MEMBER && false)) {
        kl_error(p->ctx, at, "cannot take the address of a vector component");
      }
      if (x->kind == KL_EXPR_VARIABLE) x->variable->address_taken = true;
      {
        /* the variable whose storage this is, if any */
        kl_node *base = x;
        for (int guard = 0; base && guard < 10000; guard++) {
          if (base->kind == KL_EXPR_INDEX && base->lhs->type->kind == KL_TYPE_ARRAY)
            base = base->lhs;
          else if (base->kind == KL_EXPR_MEMBER && !base->is_arrow)
            base = base->lhs;
          else
            break;
        }
        if (base && base->kind == KL_EXPR_VARIABLE) base->variable->address_taken = true;
      }
      n->type = kl_type_pointer(p->ctx, t, kp_lvalue_space(x));
      break;
    default:
      n->type = kp_int_type(p);
      break;
  }
  n->lhs = x;
  return n;
}

static int binary_precedence(parser *p, kl_operator *op) {
  static const struct {
    const char *text;
    kl_operator op;
    int precedence;
  } ops[] = {
      {"*", KL_OP_MUL, 10},   {"/", KL_OP_DIV, 10},         {"%", KL_OP_MOD, 10},
      {"+", KL_OP_ADD, 9},    {"-", KL_OP_SUB, 9},          {"<<", KL_OP_SHL, 8},
      {">>", KL_OP_SHR, 8},   {"<", KL_OP_LT, 7},           {"<=", KL_OP_LE, 7},
      {">", KL_OP_GT, 7},     {">=", KL_OP_GE, 7},          {"==", KL_OP_EQ, 6},
      {"!=", KL_OP_NE, 6},    {"&", KL_OP_BIT_AND, 5},      {"^", KL_OP_BIT_XOR, 4},
      {"|", KL_OP_BIT_OR, 3}, {"&&", KL_OP_LOGICAL_AND, 2}, {"||", KL_OP_LOGICAL_OR, 1},
  };
  if (p->tok->kind != KL_TOKEN_PUNCTUATOR) return 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (kl_token_is(p->tok, ops[i].text)) {
      *op = ops[i].op;
      return ops[i].precedence;
    }
  return 0;
}

/* binary = cast (binary-operator cast)*, by precedence climbing: "*" "/" "%"
 * bind tighter than "+" "-", then shifts, relations, equality, "&", "^", "|",
 * "&&", "||" */
static kl_node *binary(parser *p, int min_precedence) {
  kp_enter_depth(p);
  kl_node *lhs = kp_cast_expr(p);
  for (;;) {
    kl_operator op;
    int precedence = binary_precedence(p, &op);
    if (!precedence || precedence < min_precedence || p->panic) break;
    kl_location at = kp_here(p);
    kp_advance(p);
    bool conditional = op == KL_OP_LOGICAL_AND || op == KL_OP_LOGICAL_OR;
    p->hoist_blocked += conditional; /* compound literals: parse_compound.c */
    kl_node *rhs = binary(p, precedence + 1);
    p->hoist_blocked -= conditional;
    lhs = kp_new_binary(p, op, lhs, rhs, at);
  }
  kp_leave_depth(p);
  return lhs;
}

/* conditional = binary ("?" expression ":" conditional)? */
kl_node *kp_conditional(parser *p) {
  kp_enter_depth(p);
  kl_node *condition = binary(p, 1);
  if (!kp_is(p, "?")) {
    kp_leave_depth(p);
    return condition;
  }
  kl_location at = kp_here(p);
  kp_advance(p);
  p->hoist_blocked++;
  kl_node *a = kp_decay(p, kp_expression(p));
  kp_expect(p, ":", "in the conditional expression");
  kl_node *b = kp_decay(p, kp_conditional(p));
  p->hoist_blocked--;
  kl_node *n = kp_new_node(p, KL_EXPR_CONDITIONAL, at);
  condition = kp_decay(p, condition);
  kl_type *ta = a->type, *tb = b->type;
  if (condition->type->kind == KL_TYPE_VECTOR) {
    /* c ? a : b with a vector c: component-wise, as select(b, a, c) */
    kl_type *ct = condition->type;
    kl_type *t = kp_is_bool_or_arith(ta) && kp_is_bool_or_arith(tb)
                     ? arith_common(p, &a, &b, at, "?:")
                     : NULL;
    if (!kp_is_integer_like(ct)) {
      kl_error(p->ctx, condition->location,
               "a vector condition must have integer components, not '%s'", kp_type_name(p, ct));
    } else if (t && t->kind != KL_TYPE_VECTOR) {
      t = kl_type_vector(p->ctx, t->kind, ct->length);
      a = kl_convert(p->ctx, a, t);
      b = kl_convert(p->ctx, b, t);
    } else if (t && (t->length != ct->length || t->element->size != ct->element->size)) {
      kl_error(p->ctx, condition->location,
               "the vector condition '%s' does not match the operands' type '%s' (same length and "
               "element size needed)",
               kp_type_name(p, ct), kp_type_name(p, t));
    } else if (!t && !(kp_is_bool_or_arith(ta) && kp_is_bool_or_arith(tb))) {
      kl_error(p->ctx, at, "the operands of a vector '?:' must be numbers ('%s' and '%s')",
               kp_type_name(p, ta), kp_type_name(p, tb));
    }
    n->type = t ? t : kp_int_type(p);
    n->condition = condition;
    n->then = a;
    n->otherwise = b;
    kp_leave_depth(p);
    return n;
  }
  kp_check_scalar_condition(p, condition, "the condition of '?:'");
  if (kp_is_bool_or_arith(ta) && kp_is_bool_or_arith(tb)) {
    kl_type *t = arith_common(p, &a, &b, at, "?:");
    n->type = t ? t : kp_int_type(p);
  } else if (ta->kind == KL_TYPE_POINTER || tb->kind == KL_TYPE_POINTER) {
    if (ta->kind == KL_TYPE_POINTER && tb->kind == KL_TYPE_POINTER && kl_type_equal(ta, tb))
      n->type = kl_type_unqualified(p->ctx, ta);
    else if (ta->kind == KL_TYPE_POINTER && kp_is_null_constant(p, b)) {
      n->type = kl_type_unqualified(p->ctx, ta);
      b = kl_convert(p->ctx, b, ta);
    } else if (tb->kind == KL_TYPE_POINTER && kp_is_null_constant(p, a)) {
      n->type = kl_type_unqualified(p->ctx, tb);
      a = kl_convert(p->ctx, a, tb);
    } else {
      kl_error(p->ctx, at, "incompatible operand types ('%s' and '%s') in '?:'",
               kp_type_name(p, ta), kp_type_name(p, tb));
      n->type = kl_type_unqualified(p->ctx, ta);
    }
  } else if (kl_type_equal(ta, tb)) {
    n->type = kl_type_unqualified(p->ctx, ta);
  } else {
    kl_error(p->ctx, at, "incompatible operand types ('%s' and '%s') in '?:'", kp_type_name(p, ta),
             kp_type_name(p, tb));
    n->type = ta;
  }
  n->condition = condition;
  n->then = a;
  n->otherwise = b;
  kp_leave_depth(p);
  return n;
}

/* assignment = conditional (assignment-operator assignment)? */
kl_node *kp_assignment(parser *p) {
  kp_enter_depth(p);
  kl_node *lhs = kp_conditional(p);
  static const struct {
    const char *text;
    kl_operator op;
  } ops[] = {{"=", KL_OP_NONE},     {"+=", KL_OP_ADD},    {"-=", KL_OP_SUB},    {"*=", KL_OP_MUL},
             {"/=", KL_OP_DIV},     {"%=", KL_OP_MOD},    {"<<=", KL_OP_SHL},   {">>=", KL_OP_SHR},
             {"&=", KL_OP_BIT_AND}, {"|=", KL_OP_BIT_OR}, {"^=", KL_OP_BIT_XOR}};
  if (p->tok->kind == KL_TOKEN_PUNCTUATOR && !p->panic) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
      if (!kl_token_is(p->tok, ops[i].text)) continue;
      kl_location at = kp_here(p);
      kp_advance(p);
      kl_node *rhs = kp_assignment(p);
      kl_node *n = kp_new_node(p, KL_EXPR_ASSIGN, at);
      n->op = ops[i].op;
      n->type = kl_type_unqualified(p->ctx, lhs->type);
      bool ok = kp_is_modifiable(p, lhs, "assignment");
      if (ops[i].op == KL_OP_NONE) {
        if (ok) {
          kl_node *c = kp_assign_convert(p, rhs, lhs->type, at, "assignment");
          if (c) rhs = c;
        }
      } else if (ok) {
        /* lhs op= rhs: rhs is converted to the operation's type (rhs->type
         * afterwards), the result back to lhs's type. */
        kl_node probe = *lhs;
        kl_node *op_node = kp_new_binary(p, ops[i].op, &probe, rhs, at);
        if (lhs->type->kind == KL_TYPE_POINTER) {
          rhs = op_node->rhs;
        } else {
          kl_type *op_type = op_node->type;
          n->operation_type = op_node->type;
          if (ops[i].op == KL_OP_SHL || ops[i].op == KL_OP_SHR) op_type = op_node->rhs->type;
          rhs = kl_convert(p->ctx, rhs, op_node->rhs->type);
          if (lhs->type->kind != KL_TYPE_VECTOR && op_type->kind == KL_TYPE_VECTOR)
            kl_error(p->ctx, at, "cannot assign a vector result to a scalar ('%s')",
                     kp_type_name(p, lhs->type));
        }
      }
      n->lhs = lhs;
      n->rhs = rhs;
      kp_leave_depth(p);
      return n;
    }
  }
  kp_leave_depth(p);
  return lhs;
}

/* expression = assignment ("," assignment)* */
kl_node *kp_expression(parser *p) {
  kp_enter_depth(p);
  kl_node *n = kp_assignment(p);
  while (kp_is(p, ",") && !p->panic) {
    kl_location at = kp_here(p);
    kp_advance(p);
    kl_node *rhs = kp_assignment(p);
    kl_node *c = kp_new_node(p, KL_EXPR_COMMA, at);
    c->lhs = n;
    c->rhs = rhs;
    c->type = rhs->type;
    n = c;
  }
  kp_leave_depth(p);
  return n;
}
