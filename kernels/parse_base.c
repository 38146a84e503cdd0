// SPDX-License-Identifier: Apache-2.0
/* The parser's base (parse_internal.h): tokens, diagnostics, scopes,
 * constant folding and implicit conversions. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

/* ---------------------------------------------------------- utilities */

kl_location kp_here(parser *p) {
  return kl_token_where(p->tok);
}

bool kp_is(parser *p, const char *text) {
  return p->tok->kind != KL_TOKEN_STRING && p->tok->kind != KL_TOKEN_CHARACTER &&
         kl_token_is(p->tok, text);
}

void kp_advance(parser *p) {
  if (p->tok->kind == KL_TOKEN_END) return;
  p->prev = p->tok;
  p->tok = p->tok->next;
}

bool kp_accept(parser *p, const char *text) {
  if (!kp_is(p, text)) return false;
  kp_advance(p);
  return true;
}

void kp_syntax_error_at(parser *p, kl_location at, const char *message, const char *detail) {
  if (p->panic) return;
  p->panic = true;
  if (detail)
    kl_error(p->ctx, at, "%s%s", message, detail);
  else
    kl_error(p->ctx, at, "%s", message);
}

const char *kp_token_text(parser *p, const kl_token *t) {
  if (t->kind == KL_TOKEN_END) return "end of input";
  return kl_format(p->ctx, "'%.*s'", t->length > 40 ? 40 : t->length, t->text);
}

/* Where "expected ';'" is reported: just after the previous token, as clang
 * and GCC do (the line the user forgot it on). */
static kl_location after_prev(parser *p) {
  if (!p->prev) return kp_here(p);
  kl_location at = kl_token_where(p->prev);
  if (!p->prev->expanded_from.source) at.column += p->prev->length;
  return at;
}

void kp_expect(parser *p, const char *text, const char *context) {
  if (kp_accept(p, text)) return;
  if (p->panic) return;
  /* A missing ';' at the end of the previous token, naming the next one;
   * other missing tokens at the token that is there instead. */
  kl_location at = strcmp(text, ";") == 0 ? after_prev(p) : kp_here(p);
  kp_syntax_error_at(p, at,
                     kl_format(p->ctx, "expected '%s'%s%s, found %s", text, context ? " " : "",
                               context ? context : "", kp_token_text(p, p->tok)),
                     NULL);
}

void kp_enter_depth(parser *p) {
  if (++p->depth > KL_MAX_DEPTH) {
    kl_limit_error(p->ctx, kp_here(p), "nested too deeply (more than %d levels)", KL_MAX_DEPTH);
    kl_bail(p->ctx);
  }
}
void kp_leave_depth(parser *p) {
  p->depth--;
}

kl_node *kp_new_node(parser *p, kl_node_kind kind, kl_location at) {
  kl_node *n = kl_alloc(p->ctx, sizeof *n);
  n->kind = kind;
  n->location = at;
  return n;
}

kl_type *kp_int_type(parser *p) {
  return kl_type_scalar(p->ctx, KL_TYPE_INT);
}

/* Where an expression starts in the source: its leftmost token. */
kl_location kp_expr_start(const kl_node *n) {
  for (int guard = 0; n && guard < 10000; guard++) {
    switch (n->kind) {
      case KL_EXPR_BINARY:
      case KL_EXPR_INDEX:
      case KL_EXPR_MEMBER:
      case KL_EXPR_SWIZZLE:
      case KL_EXPR_ASSIGN:
      case KL_EXPR_COMMA:
        if (!n->lhs) return n->location;
        n = n->lhs;
        break;
      case KL_EXPR_CONVERT:
        n = n->lhs;
        break;
      case KL_EXPR_UNARY:
        if (n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT) {
          n = n->lhs;
          break;
        }
        return n->location;
      case KL_EXPR_CONDITIONAL:
        n = n->condition;
        break;
      default:
        return n->location;
    }
  }
  return n ? n->location : (kl_location){0};
}

kl_node *kp_new_int(parser *p, uint64_t value, kl_type *type, kl_location at) {
  kl_node *n = kp_new_node(p, KL_EXPR_INT_LITERAL, at);
  n->int_value = value;
  n->type = type ? type : kp_int_type(p);
  return n;
}

/* An expression that stands in for an erroneous one: int, so that checking can go on. */
kl_node *kp_error_expr(parser *p, kl_location at) {
  return kp_new_int(p, 0, NULL, at);
}

const char *kp_type_name(parser *p, const kl_type *t) {
  return kl_type_name(p->ctx, t);
}

/* ------------------------------------------------------------- scopes */

void kp_push_scope(parser *p) {
  scope *s = kl_alloc(p->ctx, sizeof *s);
  s->parent = p->scope;
  p->scope = s;
}
void kp_pop_scope(parser *p) {
  p->scope = p->scope->parent;
}

sym *kp_find_sym(parser *p, const char *name, int length) {
  for (scope *s = p->scope; s; s = s->parent)
    for (sym *e = s->syms; e; e = e->next)
      if (e->length == length && memcmp(e->name, name, (size_t)length) == 0) return e;
  return NULL;
}

sym *kp_find_sym_here(parser *p, const char *name, int length) {
  for (sym *e = p->scope->syms; e; e = e->next)
    if (e->length == length && memcmp(e->name, name, (size_t)length) == 0) return e;
  return NULL;
}

sym *kp_add_sym(parser *p, const char *name, int length) {
  sym *e = kl_alloc(p->ctx, sizeof *e);
  e->name = name;
  e->length = length;
  e->next = p->scope->syms;
  p->scope->syms = e;
  return e;
}

tag *kp_find_tag(parser *p, const char *name, int length, bool here_only) {
  for (scope *s = p->scope; s; s = s->parent) {
    for (tag *t = s->tags; t; t = t->next)
      if (t->length == length && memcmp(t->name, name, (size_t)length) == 0) return t;
    if (here_only) break;
  }
  return NULL;
}

/* ---------------------------------------------------------- constants */

uint64_t kp_wrap_to(const kl_type *type, uint64_t v) {
  if (!type) return v;
  if (type->kind == KL_TYPE_BOOL) return v != 0;
  int size = type->size;
  if (size >= 8 || !kl_type_is_integer(type)) return v;
  uint64_t mask = (1ull << (size * 8)) - 1;
  v &= mask;
  if (kl_type_is_signed(type) && (v >> (size * 8 - 1)) & 1) v |= ~mask;
  return v;
}

bool kp_eval(kl_context *ctx, const kl_node *n, int64_t *out, int depth) {
  if (!n || depth > KL_MAX_TREE_DEPTH) return false;
  int64_t a, b;
  switch (n->kind) {
    case KL_EXPR_INT_LITERAL:
      *out = (int64_t)n->int_value;
      return true;
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
      if (!kl_type_is_integer(n->type) && n->type->kind != KL_TYPE_BOOL) return false;
      if (n->lhs->kind == KL_EXPR_FLOAT_LITERAL) {
        double d = n->lhs->float_value;
        if (!(d > -9.2e18 && d < 9.2e18)) return false;
        *out = (int64_t)kp_wrap_to(n->type, (uint64_t)(int64_t)d);
        return true;
      }
      if (!kp_eval(ctx, n->lhs, &a, depth + 1)) return false;
      *out = (int64_t)kp_wrap_to(n->type, (uint64_t)a);
      return true;
    case KL_EXPR_UNARY:
      if (!kp_eval(ctx, n->lhs, &a, depth + 1)) return false;
      switch (n->op) {
        case KL_OP_NEGATE:
          *out = (int64_t)kp_wrap_to(n->type, (uint64_t)0 - (uint64_t)a);
          return true;
        case KL_OP_PLUS:
          *out = a;
          return true;
        case KL_OP_BIT_NOT:
          *out = (int64_t)kp_wrap_to(n->type, ~(uint64_t)a);
          return true;
        case KL_OP_LOGICAL_NOT:
          *out = a == 0;
          return true;
        default:
          return false;
      }
    case KL_EXPR_BINARY: {
      if (!kl_type_is_integer(n->type)) return false;
      if (!kp_eval(ctx, n->lhs, &a, depth + 1) || !kp_eval(ctx, n->rhs, &b, depth + 1))
        return false;
      const kl_type *t = n->lhs->type;
      bool u = !kl_type_is_signed(t);
      uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
      uint64_t r;
      int bits = t->size * 8;
      switch (n->op) {
        case KL_OP_ADD:
          r = ua + ub;
          break;
        case KL_OP_SUB:
          r = ua - ub;
          break;
        case KL_OP_MUL:
          r = ua * ub;
          break;
        case KL_OP_DIV:
        case KL_OP_MOD:
          if (b == 0) return false;
          if (u)
            r = n->op == KL_OP_DIV ? ua / ub : ua % ub;
          else if (a == INT64_MIN && b == -1)
            r = n->op == KL_OP_DIV ? ua : 0;
          else
            r = (uint64_t)(n->op == KL_OP_DIV ? a / b : a % b);
          break;
        case KL_OP_SHL:
          r = ua << (ub & (uint64_t)(bits - 1));
          break;
        case KL_OP_SHR:
          if (u)
            r = (ua & (bits == 64 ? ~0ull : ((1ull << bits) - 1))) >> (ub & (uint64_t)(bits - 1));
          else
            r = (uint64_t)(a >> (ub & (uint64_t)(bits - 1)));
          break;
        case KL_OP_BIT_AND:
          r = ua & ub;
          break;
        case KL_OP_BIT_OR:
          r = ua | ub;
          break;
        case KL_OP_BIT_XOR:
          r = ua ^ ub;
          break;
        case KL_OP_LOGICAL_AND:
          r = a && b;
          break;
        case KL_OP_LOGICAL_OR:
          r = a || b;
          break;
        case KL_OP_EQ:
          r = ua == ub;
          break;
        case KL_OP_NE:
          r = ua != ub;
          break;
        case KL_OP_LT:
          r = u ? ua < ub : a < b;
          break;
        case KL_OP_LE:
          r = u ? ua <= ub : a <= b;
          break;
        case KL_OP_GT:
          r = u ? ua > ub : a > b;
          break;
        case KL_OP_GE:
          r = u ? ua >= ub : a >= b;
          break;
        default:
          return false;
      }
      *out = (int64_t)kp_wrap_to(n->type, r);
      return true;
    }
    case KL_EXPR_CONDITIONAL:
      if (!kp_eval(ctx, n->condition, &a, depth + 1)) return false;
      return kp_eval(ctx, a ? n->then : n->otherwise, out, depth + 1);
    case KL_EXPR_COMMA:
      return kp_eval(ctx, n->rhs, out, depth + 1);
    default:
      return false;
  }
}

bool kl_eval_int(kl_context *ctx, const kl_node *node, int64_t *value) {
  return kp_eval(ctx, node, value, 0);
}

/* -------------------------------------------------------- conversions */

kl_node *kl_convert(kl_context *ctx, kl_node *node, kl_type *type) {
  if (!node || !type) return node;
  if (kl_type_equal(node->type, type)) return node;
  kl_node *n = kl_alloc(ctx, sizeof *n);
  n->kind = KL_EXPR_CONVERT;
  n->location = node->location;
  n->lhs = node;
  n->type = kl_type_unqualified(ctx, type);
  return n;
}

bool kp_is_null_constant(parser *p, const kl_node *n) {
  int64_t v;
  return kl_type_is_integer(n->type) && kl_eval_int(p->ctx, n, &v) && v == 0;
}

bool kp_is_bool_or_arith(const kl_type *t) {
  return t && (kl_type_is_arithmetic(t) || t->kind == KL_TYPE_BOOL);
}

kl_node *kp_decay(parser *p, kl_node *n) {
  if (n->type && n->type->kind == KL_TYPE_ARRAY) {
    kl_address_space space = KL_SPACE_PRIVATE;
    if (n->kind == KL_EXPR_VARIABLE) space = n->variable->space;
    kl_node *c = kp_new_node(p, KL_EXPR_CONVERT, n->location);
    c->lhs = n;
    c->type = kl_type_pointer(p->ctx, n->type->element, space);
    return c;
  }
  return n;
}

/* The address space of the storage an lvalue designates. */
kl_address_space kp_lvalue_space(const kl_node *n) {
  for (int guard = 0; n && guard < 10000; guard++) {
    switch (n->kind) {
      case KL_EXPR_VARIABLE:
        return n->variable->space;
      case KL_EXPR_UNARY:
        if (n->op == KL_OP_DEREFERENCE) return n->lhs->type->pointee_space;
        return KL_SPACE_PRIVATE;
      case KL_EXPR_INDEX:
        if (n->lhs->type->kind == KL_TYPE_POINTER) return n->lhs->type->pointee_space;
        n = n->lhs;
        break;
      case KL_EXPR_MEMBER:
        if (n->is_arrow) return n->lhs->type->pointee_space;
        n = n->lhs;
        break;
      case KL_EXPR_SWIZZLE:
      case KL_EXPR_CONVERT:
        n = n->lhs;
        break;
      default:
        return KL_SPACE_PRIVATE;
    }
  }
  return KL_SPACE_PRIVATE;
}

/* An implicit conversion for assignment, initialisation, argument passing
 * and return (OpenCL C 6.2.1): reports and returns NULL when not allowed. */
kl_node *kp_assign_convert(parser *p, kl_node *n, kl_type *to, kl_location at, const char *what) {
  n = kp_decay(p, n);
  kl_type *from = n->type;
  if (!from || !to) return n;
  if (to->kind == KL_TYPE_VOID) return n;
  if (kl_type_is_scalar(to) && kp_is_bool_or_arith(from) && from->kind != KL_TYPE_VECTOR)
    return kl_convert(p->ctx, n, to);
  if (to->kind == KL_TYPE_VECTOR) {
    if (kl_type_equal(from, to)) return kl_convert(p->ctx, n, to);
    if (kl_type_is_scalar(from)) return kl_convert(p->ctx, n, to);
    if (from->kind == KL_TYPE_VECTOR) {
      kl_error(p->ctx, at, "cannot convert '%s' to '%s' implicitly in %s: use convert_%s()",
               kp_type_name(p, from), kp_type_name(p, to), what,
               kp_type_name(p, kl_type_unqualified(p->ctx, to)));
      return NULL;
    }
  }
  if (to->kind == KL_TYPE_POINTER) {
    if (from->kind == KL_TYPE_POINTER) {
      if (from->pointee_space != to->pointee_space) {
        kl_error(p->ctx, at, "cannot convert between address spaces ('%s' to '%s') in %s",
                 kp_type_name(p, from), kp_type_name(p, to), what);
        return NULL;
      }
      bool void_either = from->element->kind == KL_TYPE_VOID || to->element->kind == KL_TYPE_VOID;
      if ((from->element->qualifiers & KL_QUALIFIER_CONST) &&
          !(to->element->qualifiers & KL_QUALIFIER_CONST)) {
        kl_error(p->ctx, at, "%s discards the const qualifier of '%s'", what,
                 kp_type_name(p, from));
        return NULL;
      }
      if (!void_either && !kl_type_equal(from->element, to->element)) {
        /* C (and every OpenCL C compiler) converts with a warning: the
         * conversion becomes the cast the user left out, which the targets
         * take as they take a written one (GLSL refuses it) */
        kl_warning(p->ctx, at,
                   "incompatible pointer types: '%s' converted to '%s' in %s (write the cast)",
                   kp_type_name(p, from), kp_type_name(p, to), what);
        kl_node *cast = kp_new_node(p, KL_EXPR_CAST, at);
        cast->lhs = n;
        cast->type = kl_type_unqualified(p->ctx, to);
        return cast;
      }
      return kl_convert(p->ctx, n, to);
    }
    if (kp_is_null_constant(p, n)) return kl_convert(p->ctx, n, to);
  }
  if (to->kind == KL_TYPE_STRUCT && kl_type_equal(from, to)) return n;
  if (to->kind == KL_TYPE_ARRAY) {
    kl_error(p->ctx, at, "arrays cannot be assigned");
    return NULL;
  }
  kl_error(p->ctx, at, "cannot convert '%s' to '%s' in %s", kp_type_name(p, from),
           kp_type_name(p, to), what);
  return NULL;
}
