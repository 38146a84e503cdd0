// SPDX-License-Identifier: Apache-2.0
/* Expressions: primaries, vector literals, casts, sizeof and unary
 * operators (parse_internal.h); the literals are in parse_literals.c, the
 * names, calls, member access and swizzles in parse_postfix.c. */
#include <math.h>
#include <string.h>

#include "parse_expr_internal.h"

/* --------------------------------------------------------- expressions */

bool kp_check_scalar_condition(parser *p, kl_node *n, const char *what) {
  if (!n || !n->type) return false;
  if (kl_type_is_scalar(n->type) || n->type->kind == KL_TYPE_POINTER) return true;
  if (n->type->kind == KL_TYPE_VECTOR)
    kl_error(p->ctx, n->location, "%s must be a scalar, not '%s' (use any() or all())", what,
             kp_type_name(p, n->type));
  else
    kl_error(p->ctx, n->location, "%s must be a scalar, not '%s'", what, kp_type_name(p, n->type));
  return false;
}

/* primary = "(" expression ")" | "(" type ")" "(" vector-parts ")" | identifier
 *         | number | character | string | builtin-call | call */
static kl_node *primary(parser *p) {
  kl_token *t = p->tok;
  kl_location at = kp_here(p);
  if (kp_accept(p, "(")) {
    kl_node *n = kp_expression(p);
    kp_expect(p, ")", "to close the parenthesis");
    return n;
  }
  if (t->kind == KL_TOKEN_NUMBER) {
    kp_advance(p);
    return kp_number_literal(p, t);
  }
  if (t->kind == KL_TOKEN_CHARACTER) {
    kp_advance(p);
    return kp_char_literal(p, t);
  }
  if (t->kind == KL_TOKEN_STRING) {
    kp_advance(p);
    kl_error(p->ctx, at, "string literals are not supported");
    while (p->tok->kind == KL_TOKEN_STRING) kp_advance(p);
    return kp_error_expr(p, at);
  }
  if (t->kind == KL_TOKEN_IDENTIFIER) {
    if (kp_tok_is(t, "__kl_infinity") || kp_tok_is(t, "__kl_nan") ||
        kp_tok_is(t, "__kl_infinity_double")) {
      kp_advance(p);
      kl_node *n = kp_new_node(p, KL_EXPR_FLOAT_LITERAL, at);
      bool nan = kp_tok_is(t, "__kl_nan");
      n->float_value = nan ? (double)NAN : (double)INFINITY;
      n->type = kl_type_scalar(
          p->ctx, kp_tok_is(t, "__kl_infinity_double") ? KL_TYPE_DOUBLE : KL_TYPE_FLOAT);
      n->spelling = nan ? "NAN" : "INFINITY";
      return n;
    }
    if (kp_tok_is(t, "true") || kp_tok_is(t, "false")) {
      kp_advance(p);
      kl_node *n = kp_new_int(p, kp_tok_is(t, "true"), NULL, at);
      n->spelling = kp_tok_is(t, "true") ? "true" : "false";
      return n;
    }
    if (kp_tok_is(t, "printf")) {
      kl_error(p->ctx, at,
               "printf's result is not supported: call printf as a statement of its own");
      kp_advance(p);
      if (kp_is(p, "(")) kp_skip_parens(p);
      return kp_error_expr(p, at);
    }
    sym *s = kp_find_sym(p, t->text, t->length);
    if (s && s->is_enumerator) {
      kp_advance(p);
      return kp_new_int(p, (uint64_t)s->enumerator, NULL, at);
    }
    if (s && s->variable) {
      kp_advance(p);
      if (kp_is(p, "(")) {
        kl_error(p->ctx, at, "called object '%.*s' is not a function", t->length, t->text);
        kp_skip_parens(p);
        return kp_error_expr(p, at);
      }
      return kp_variable_ref(p, s->variable, at);
    }
    if (s && s->function) {
      kp_advance(p);
      if (!kp_is(p, "(")) {
        kl_error(p->ctx, at, "function pointers are not supported: '%.*s' must be called",
                 t->length, t->text);
        return kp_error_expr(p, at);
      }
      return kp_call_function(p, s->function, t);
    }
    kl_type *type = NULL;
    const kl_builtin *b = kl_builtin_lookup(p->ctx, t->text, t->length, &type);
    if (b) {
      kp_advance(p);
      if (!kp_is(p, "(")) {
        kl_error(p->ctx, at, "the builtin '%.*s' must be called", t->length, t->text);
        return kp_error_expr(p, at);
      }
      return kp_call_builtin(p, b, type, t);
    }
    kp_advance(p);
    const char *image_what = kp_image_name_kind(t);
    if (image_what)
      kl_error(p->ctx, at, "%s are not in the portable subset: '%.*s' is not supported", image_what,
               t->length, t->text);
    else if (kp_is(p, "("))
      kl_error(p->ctx, at, "call to undeclared function '%.*s'", t->length, t->text);
    else
      kl_error(p->ctx, at, "use of undeclared identifier '%.*s'", t->length, t->text);
    if (kp_is(p, "(")) kp_skip_parens(p);
    return kp_error_expr(p, at);
  }
  if (t->kind == KL_TOKEN_END)
    kp_syntax_error_at(p, at, "expected expression, found end of input", NULL);
  else
    kp_syntax_error_at(p, at, "expected expression, found ", kp_token_text(p, t));
  return kp_error_expr(p, at);
}

/* One part of a vector literal or of a vector's brace initializer: a
 * vector of the element type (its lanes count) or a scalar converted to
 * the element type; adds its lanes to *components. */
kl_node *kp_vector_part(parser *p, kl_type *type, bool in_braces, int *components) {
  kl_node *part = kp_assignment(p);
  if (!part->type) part->type = kp_int_type(p);
  const char *where = in_braces ? "the initializer of" : "";
  if (part->type->kind == KL_TYPE_VECTOR) {
    if (part->type->element->kind != type->element->kind)
      kl_error(p->ctx, part->location,
               "a '%s' part in %s%sa '%s'%s: vector parts must have the element type '%s' (use "
               "convert_%s%d())",
               kp_type_name(p, part->type), where, in_braces ? " " : "", kp_type_name(p, type),
               in_braces ? "" : " literal", kp_type_name(p, type->element),
               kp_type_name(p, type->element), part->type->length);
    *components += part->type->length;
  } else if (kp_is_bool_or_arith(part->type)) {
    part = kl_convert(p->ctx, part, type->element);
    (*components)++;
  } else {
    if (in_braces)
      kl_error(p->ctx, part->location, "a '%s' cannot initialise a part of a '%s'",
               kp_type_name(p, part->type), kp_type_name(p, type));
    else
      kl_error(p->ctx, part->location, "a '%s' cannot be part of a vector literal",
               kp_type_name(p, part->type));
    (*components)++;
  }
  return part;
}

/* (T)(a, b, ...) with T a vector type. */
static kl_node *vector_literal(parser *p, kl_type *type, kl_location at) {
  kp_advance(p); /* ( */
  kl_node head = {0}, *tail = &head;
  int count = 0, components = 0;
  do {
    kl_node *part = kp_vector_part(p, type, false, &components);
    tail->next = part;
    tail = part;
    count++;
  } while (kp_accept(p, ",") && !p->panic);
  kp_expect(p, ")", "to close the vector literal");
  if (count == 1 && head.next->type->kind != KL_TYPE_VECTOR) {
    /* (float4)(x): every component is x */
    kl_node *n = kp_new_node(p, KL_EXPR_CAST, at);
    n->lhs = head.next;
    n->type = type;
    return n;
  }
  if (count == 1 && kl_type_equal(head.next->type, type)) return head.next;
  if (components != type->length && !p->panic)
    kl_error(p->ctx, at, "wrong number of components in vector literal: '%s' needs %d, %d given",
             kp_type_name(p, type), type->length, components);
  kl_node *n = kp_new_node(p, KL_EXPR_VECTOR_LITERAL, at);
  n->args = head.next;
  n->arg_count = count;
  n->type = type;
  return n;
}

static kl_type *type_name_parse(parser *p, kl_location *at_out) {
  decl_spec spec;
  *at_out = kp_here(p);
  kp_declspec(p, &spec, false);
  kl_token *name = NULL;
  kl_type *base = kl_type_qualified(p->ctx, spec.type, spec.qualifiers | spec.type->qualifiers);
  kl_type *t = kp_declarator(p, base, spec.has_space ? spec.space : KL_SPACE_PRIVATE, &name, true);
  kp_check_pointer_depth(p, t, *at_out);
  if (name) kl_error(p->ctx, kl_token_where(name), "unexpected name in a type");
  t = kp_array_suffix(p, t, NULL);
  if (spec.has_space && t->kind != KL_TYPE_POINTER)
    kl_error(p->ctx, *at_out, "an address space in a cast applies to pointers only");
  return t;
}

static kl_node *cast_to(parser *p, kl_type *type, kl_node *x, kl_location at) {
  if (kp_is_pointer_to_array(type)) return kp_view_cast(p, type, x, at, cast_to);
  x = kp_decay(p, x);
  kl_type *from = x->type;
  kl_node *n = kp_new_node(p, KL_EXPR_CAST, at);
  n->lhs = x;
  n->type = kl_type_unqualified(p->ctx, type);
  if (type->kind == KL_TYPE_VOID) return n;
  if (kl_type_is_scalar(type) && kl_type_is_scalar(from)) return n;
  if (type->kind == KL_TYPE_VECTOR) {
    if (kl_type_is_scalar(from)) return n;
    if (kl_type_equal(from, type)) return n;
    if (from->kind == KL_TYPE_VECTOR) {
      kl_error(p->ctx, at,
               "cannot cast '%s' to '%s': casts between vector types are not allowed in "
               "OpenCL C (use convert_%s() or as_%s())",
               kp_type_name(p, from), kp_type_name(p, type), kp_type_name(p, n->type),
               kp_type_name(p, n->type));
      return n;
    }
  }
  if (type->kind == KL_TYPE_POINTER && from->kind == KL_TYPE_POINTER) {
    if (type->pointee_space != from->pointee_space) {
      kl_error(p->ctx, at, "cannot cast between address spaces ('%s' to '%s')",
               kp_type_name(p, from), kp_type_name(p, type));
    }
    return n;
  }
  if (type->kind == KL_TYPE_POINTER && kp_is_null_constant(p, x)) return n;
  if (type->kind == KL_TYPE_POINTER && kp_is_integer_like(from)) {
    /* Parboil's `p = (__global uint *)get_global_id(0);`, assigned over
     * before use: kept; an access through it is undefined (and refused on
     * Vulkan, where a pointer is an index into one array) */
    kl_warning(p->ctx, at,
               "a pointer made from an integer ('%s' to '%s') points nowhere portable: only "
               "assign over it",
               kp_type_name(p, from), kp_type_name(p, type));
    return n;
  }
  if ((type->kind == KL_TYPE_POINTER && kl_type_is_scalar(from)) ||
      (from->kind == KL_TYPE_POINTER && kl_type_is_scalar(type))) {
    kl_error(p->ctx, at, "casts between pointers and integers are not supported");
    return n;
  }
  if (type->kind == KL_TYPE_STRUCT && kl_type_equal(type, from)) return n;
  kl_error(p->ctx, at, "cannot cast '%s' to '%s'", kp_type_name(p, from), kp_type_name(p, type));
  return n;
}

/* sizeof = ("sizeof" | "_Alignof" | "__alignof__" | "__alignof") ("(" type ")"
 *          | unary) */
static kl_node *sizeof_expr(parser *p) {
  kl_location at = kp_here(p);
  bool align = !kp_is(p, "sizeof"); /* __alignof__, _Alignof */
  kp_advance(p);
  kl_type *t;
  bool paren_string = kp_is(p, "(") && p->tok->next->kind == KL_TOKEN_STRING;
  if (p->tok->kind == KL_TOKEN_STRING || paren_string) {
    /* sizeof "text": the one use of a string literal in the subset */
    if (paren_string) kp_advance(p);
    int64_t bytes = 1;
    while (p->tok->kind == KL_TOKEN_STRING) {
      const char *s = p->tok->text + 1, *end = p->tok->text + p->tok->length - 1;
      for (; s < end; s++) {
        if (*s == '\\' && s + 1 < end) {
          s++;
          if (*s == 'x') {
            while (s + 1 < end && strchr("0123456789abcdefABCDEF", s[1])) s++;
          } else if (*s >= '0' && *s <= '7') {
            for (int k = 0; k < 2 && s + 1 < end && s[1] >= '0' && s[1] <= '7'; k++) s++;
          }
        }
        bytes++;
      }
      kp_advance(p);
    }
    if (paren_string) kp_expect(p, ")", "after the string");
    return kp_new_int(p, (uint64_t)bytes, kl_type_scalar(p->ctx, KL_TYPE_SIZE_T), at);
  }
  if (kp_is(p, "(") && kp_is_type_start(p, p->tok->next)) {
    kp_advance(p);
    kl_location type_at;
    t = type_name_parse(p, &type_at);
    kp_expect(p, ")", "after the type");
  } else {
    kl_node *x = kp_cast_expr(p);
    t = x->type;
  }
  if (t->kind == KL_TYPE_VOID || t->kind == KL_TYPE_FUNCTION ||
      (t->kind == KL_TYPE_STRUCT && !t->members))
    kl_error(p->ctx, at, "sizeof of an incomplete type '%s'", kp_type_name(p, t));
  return kp_new_int(p, (uint64_t)(align ? t->align : t->size),
                    kl_type_scalar(p->ctx, KL_TYPE_SIZE_T), at);
}

/* unary = ("+" | "-" | "!" | "~" | "*" | "&" | "++" | "--") cast | sizeof
 *       | postfix */
kl_node *kp_unary(parser *p) {
  kp_enter_depth(p);
  kl_location at = kp_here(p);
  kl_node *n;
  if (kp_is(p, "-") || kp_is(p, "+") || kp_is(p, "!") || kp_is(p, "~") || kp_is(p, "*") ||
      kp_is(p, "&")) {
    char c = p->tok->text[0];
    kp_advance(p);
    kl_node *x = kp_cast_expr(p);
    kl_operator op = c == '-'   ? KL_OP_NEGATE
                     : c == '+' ? KL_OP_PLUS
                     : c == '!' ? KL_OP_LOGICAL_NOT
                     : c == '~' ? KL_OP_BIT_NOT
                     : c == '*' ? KL_OP_DEREFERENCE
                                : KL_OP_ADDRESS_OF;
    n = kp_new_unary(p, op, x, at);
  } else if (kp_is(p, "++") || kp_is(p, "--")) {
    bool inc = kp_is(p, "++");
    kp_advance(p);
    kl_node *x = kp_unary(p);
    n = kp_new_unary(p, inc ? KL_OP_PRE_INCREMENT : KL_OP_PRE_DECREMENT, x, at);
  } else if (kp_is(p, "sizeof") || kp_is(p, "__alignof__") || kp_is(p, "__alignof") ||
             kp_is(p, "_Alignof")) {
    n = sizeof_expr(p);
  } else if (kp_is(p, "vec_step")) {
    kp_advance(p);
    kp_expect(p, "(", "after 'vec_step'");
    kl_type *t;
    if (kp_is_type_start(p, p->tok)) {
      kl_location type_at;
      t = type_name_parse(p, &type_at);
    } else {
      t = kp_expression(p)->type;
    }
    kp_expect(p, ")", "after the vec_step operand");
    int steps = t->kind == KL_TYPE_VECTOR ? (t->length == 3 ? 4 : t->length) : 1;
    n = kp_new_int(p, (uint64_t)steps, NULL, at);
  } else {
    n = kp_postfix(p, primary(p));
  }
  kp_leave_depth(p);
  return n;
}

/* cast = "(" type ")" (cast | "{" initializer-list "}") | unary */
kl_node *kp_cast_expr(parser *p) {
  if (kp_is(p, "(") && kp_is_type_start(p, p->tok->next)) {
    kp_enter_depth(p);
    kl_location at = kp_here(p);
    kp_advance(p);
    kl_location type_at;
    kl_type *type = type_name_parse(p, &type_at);
    kp_expect(p, ")", "after the type in a cast");
    kl_node *n;
    if (type->kind == KL_TYPE_VECTOR && kp_is(p, "(")) {
      n = kp_postfix(p, vector_literal(p, type, at));
    } else if (kp_is(p, "{")) {
      n = kp_postfix(p, kp_compound_literal(p, type, at));
    } else {
      n = cast_to(p, type, kp_cast_expr(p), at);
    }
    kp_leave_depth(p);
    return n;
  }
  return kp_unary(p);
}
