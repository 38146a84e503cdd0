// SPDX-License-Identifier: Apache-2.0
/* Names and what follows a primary expression (parse_expr.c): variables,
 * calls of functions and builtins, swizzles, member access, indexing and
 * the postfix operators (parse_internal.h). */
#include <string.h>

#include "parse_expr_internal.h"

kl_node *kp_variable_ref(parser *p, kl_variable *v, kl_location at) {
  kl_node *n = kp_new_node(p, KL_EXPR_VARIABLE, at);
  n->variable = v;
  n->type = v->type;
  n->view = v->view;
  n->is_lvalue = true;
  return n;
}

bool kp_is_modifiable(parser *p, kl_node *n, const char *what) {
  kl_location at = kp_expr_start(n);
  if (!n->is_lvalue) {
    if (n->kind == KL_EXPR_SWIZZLE && n->lhs->is_lvalue)
      kl_error(p->ctx, at, "a swizzle with repeated components ('.%s') is not assignable (%s)",
               n->spelling, what);
    else
      kl_error(p->ctx, at, "expression is not assignable (%s)", what);
    return false;
  }
  if (n->type->kind == KL_TYPE_ARRAY) {
    kl_error(p->ctx, at, "array type '%s' is not assignable", kp_type_name(p, n->type));
    return false;
  }
  if (kp_lvalue_space(n) == KL_SPACE_CONSTANT ||
      (n->kind == KL_EXPR_VARIABLE && n->variable->is_program_scope)) {
    kl_error(p->ctx, at, "cannot assign to __constant memory");
    return false;
  }
  if (n->type->qualifiers & KL_QUALIFIER_CONST) {
    kl_error(p->ctx, at, "cannot assign to const-qualified '%s'", kp_type_name(p, n->type));
    return false;
  }
  return true;
}

kl_node *kp_call_function(parser *p, kl_function *f, kl_token *name) {
  kl_location at = kl_token_where(name);
  kl_node *n = kp_new_node(p, KL_EXPR_CALL, at);
  n->function = f;
  n->type = f->return_type;
  n->spelling = f->name;
  kp_advance(p); /* ( */
  kl_node head = {0}, *tail = &head;
  kl_variable *param = f->params;
  int count = 0;
  if (!kp_is(p, ")")) {
    do {
      kl_node *arg = kp_assignment(p);
      if (param) {
        kl_node *c =
            kp_assign_convert(p, arg, param->type, arg->location,
                              kl_format(p->ctx, "argument %d of '%s'", count + 1, f->name));
        if (c) arg = c;
        param = param->next;
      }
      tail->next = arg;
      tail = arg;
      count++;
    } while (kp_accept(p, ",") && !p->panic);
  }
  kp_expect(p, ")", "after the arguments");
  int expected = f->param_count - (f->printf_buffer != NULL);
  if (count != expected)
    kl_error(p->ctx, at, "too %s arguments to function '%s' (%d given, %d expected)",
             count < expected ? "few" : "many", f->name, count, expected);
  f->called = true;
  if (f->printf_buffer && p->function && count == expected) {
    /* it prints: it gets the caller's printf buffer, so the caller needs one */
    kl_node *buffer = kp_variable_ref(p, kp_printf_buffer(p), at);
    tail->next = buffer;
    tail = buffer;
    count++;
  }
  if (f->is_kernel)
    kl_error(p->ctx, at,
             "calling a kernel ('%s') from another function is not supported: "
             "move its body into a helper function",
             f->name);
  n->args = head.next;
  n->arg_count = count;
  if (p->function) {
    /* callees are gathered by check.c */
  }
  return n;
}

kl_node *kp_call_builtin(parser *p, const kl_builtin *b, kl_type *type, kl_token *name) {
  kl_location at = kl_token_where(name);
  kl_node *n = kp_new_node(p, KL_EXPR_BUILTIN, at);
  n->builtin = b;
  n->spelling = kl_strndup(p->ctx, name->text, (size_t)name->length);
  n->type = type; /* convert_T, as_T, vloadN: the T; set by the check otherwise */
  kp_advance(p);  /* ( */
  kl_node head = {0}, *tail = &head;
  int count = 0;
  if (!kp_is(p, ")")) {
    do {
      kl_node *arg = kp_decay(p, kp_assignment(p));
      tail->next = arg;
      tail = arg;
      count++;
    } while (kp_accept(p, ",") && !p->panic);
  }
  kp_expect(p, ")", "after the arguments");
  n->args = head.next;
  n->arg_count = count;
  if (p->panic) {
    n->type = type ? type : kp_int_type(p);
    return n;
  }
  if (!kl_builtin_check_call(p->ctx, n) && !n->type) n->type = kp_int_type(p);
  return n;
}

static int swizzle_index(char c, bool numeric) {
  if (numeric) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  switch (c) {
    case 'x':
      return 0;
    case 'y':
      return 1;
    case 'z':
      return 2;
    case 'w':
      return 3;
    default:
      return -1;
  }
}

static kl_node *swizzle(parser *p, kl_node *base, kl_token *name) {
  kl_location at = kl_token_where(name);
  const kl_type *vt = base->type;
  int length = vt->length;
  int comps[16], count = 0;
  const char *s = name->text;
  int n = name->length;
  if (kp_tok_is(name, "lo") || kp_tok_is(name, "hi") || kp_tok_is(name, "even") ||
      kp_tok_is(name, "odd")) {
    int half = (length == 3 ? 4 : length) / 2;
    if (length == 3 && (kp_tok_is(name, "hi") || kp_tok_is(name, "odd"))) {
      kl_error(p->ctx, at,
               "'.%.*s' of a 3-component vector reads an undefined component: "
               "not in the portable subset",
               n, s);
      half = 1;
    }
    for (int i = 0; i < half; i++) {
      if (kp_tok_is(name, "lo"))
        comps[i] = i;
      else if (kp_tok_is(name, "hi"))
        comps[i] = half + i;
      else if (kp_tok_is(name, "even"))
        comps[i] = 2 * i;
      else
        comps[i] = 2 * i + 1;
      if (comps[i] >= length) comps[i] = length - 1;
    }
    count = half;
  } else {
    bool numeric = n >= 2 && (s[0] == 's' || s[0] == 'S');
    int start = numeric ? 1 : 0;
    for (int i = start; i < n; i++) {
      int c = swizzle_index(s[i], numeric);
      if (c < 0 || (!numeric && length > 4)) {
        if (!numeric && length > 4 && c >= 0)
          kl_error(p->ctx, at,
                   "'.%.*s': the .xyzw names are for vectors of up to 4 components; "
                   "'%s' has %d (use .s0 ... .sF)",
                   n, s, kp_type_name(p, vt), length);
        else
          kl_error(p->ctx, at, "invalid vector component '%.*s' for '%s'", n, s,
                   kp_type_name(p, vt));
        return kp_error_expr(p, at);
      }
      if (c >= length) {
        kl_error(p->ctx, at, "invalid vector component '%s%c' for '%s'", numeric ? "s" : "", s[i],
                 kp_type_name(p, vt));
        return kp_error_expr(p, at);
      }
      if (count >= 16) {
        kl_error(p->ctx, at, "too many components in '.%.*s'", n, s);
        return kp_error_expr(p, at);
      }
      comps[count++] = c;
    }
  }
  if (count == 0 || (count > 4 && count != 8 && count != 16)) {
    kl_error(p->ctx, at, "'.%.*s' selects %d components: a vector has 2, 3, 4, 8 or 16", n, s,
             count);
    return kp_error_expr(p, at);
  }
  kl_node *node = kp_new_node(p, KL_EXPR_SWIZZLE, at);
  node->lhs = base;
  memcpy(node->components, comps, sizeof(int) * (size_t)count);
  node->component_count = count;
  node->spelling = kl_strndup(p->ctx, s, (size_t)n);
  kl_type *element = kl_type_scalar(p->ctx, vt->element->kind);
  node->type = count == 1 ? element : kl_type_vector(p->ctx, vt->element->kind, count);
  if (base->type->qualifiers)
    node->type = kl_type_qualified(p->ctx, node->type, base->type->qualifiers);
  bool repeats = false;
  for (int i = 0; i < count; i++)
    for (int j = 0; j < i; j++)
      if (comps[i] == comps[j]) repeats = true;
  node->is_lvalue = base->is_lvalue && !repeats;
  return node;
}

static kl_node *member_access(parser *p, kl_node *base, bool arrow) {
  kl_location at = kp_here(p);
  kp_advance(p); /* . or -> */
  kl_token *name = p->tok;
  if (name->kind != KL_TOKEN_IDENTIFIER) {
    kp_syntax_error_at(p, kp_here(p), "expected a member name after ", arrow ? "'->'" : "'.'");
    return base;
  }
  kp_advance(p);
  kl_type *t = base->type;
  if (arrow && t->kind == KL_TYPE_POINTER && t->element->kind == KL_TYPE_VECTOR)
    return swizzle(p, kp_new_unary(p, KL_OP_DEREFERENCE, base, at), name); /* p->x: (*p).x */
  if (arrow) {
    if (t->kind != KL_TYPE_POINTER || t->element->kind != KL_TYPE_STRUCT) {
      kl_error(p->ctx, at, "'->' needs a pointer to a struct or vector, not '%s'",
               kp_type_name(p, t));
      return kp_error_expr(p, at);
    }
    t = t->element;
  } else if (t->kind == KL_TYPE_VECTOR) {
    return swizzle(p, base, name);
  } else if (t->kind != KL_TYPE_STRUCT) {
    kl_error(p->ctx, kl_token_where(name), "no member named '%.*s' in '%s'", name->length,
             name->text, t->name ? t->name : kp_type_name(p, t));
    return kp_error_expr(p, at);
  }
  for (kl_member *m = t->members; m; m = m->next) {
    if ((int)strlen(m->name) == name->length &&
        memcmp(m->name, name->text, (size_t)name->length) == 0) {
      kl_node *n = kp_new_node(p, KL_EXPR_MEMBER, kl_token_where(name));
      n->lhs = base;
      n->member = m;
      n->is_arrow = arrow;
      n->type = m->type;
      unsigned q = t->qualifiers & (KL_QUALIFIER_CONST | KL_QUALIFIER_VOLATILE);
      if (q) n->type = kl_type_qualified(p->ctx, n->type, n->type->qualifiers | q);
      n->is_lvalue = arrow || base->is_lvalue;
      return n;
    }
  }
  kl_error(p->ctx, kl_token_where(name), "no member named '%.*s' in '%s'", name->length, name->text,
           t->name ? t->name : kp_type_name(p, t));
  return kp_error_expr(p, at);
}

/* postfix = primary ("[" expression "]" | "(" arguments? ")" | "." identifier
 *           | "->" identifier | "++" | "--")* */
kl_node *kp_postfix(parser *p, kl_node *n) {
  bool must_index = n->view && n->kind == KL_EXPR_VARIABLE; /* a pointer to an array */
  for (;;) {
    if (p->panic) return n;
    kl_location at = kp_here(p);
    if (must_index && !kp_is(p, "[")) {
      kp_view_escapes(p, n);
      must_index = false;
    }
    if (kp_is(p, "[")) {
      kp_advance(p);
      kl_node *index = kp_expression(p);
      kp_expect(p, "]", "after the index");
      if (n->view) {
        n = kp_view_index(p, n, index, at);
        must_index = n->view != NULL;
        continue;
      }
      kl_type *t = n->type;
      if (t->kind == KL_TYPE_VECTOR) {
        kl_error(p->ctx, at, "subscripting a vector ('%s') is not supported: use .s0 ... .sF",
                 kp_type_name(p, t));
        n = kp_error_expr(p, at);
        continue;
      }
      if (t->kind != KL_TYPE_POINTER && t->kind != KL_TYPE_ARRAY) {
        kl_error(p->ctx, at, "subscripted value of type '%s' is not an array or pointer",
                 kp_type_name(p, t));
        n = kp_error_expr(p, at);
        continue;
      }
      if (!kl_type_is_integer(index->type) && index->type->kind != KL_TYPE_BOOL) {
        kl_error(p->ctx, index->location, "array subscript is not an integer ('%s')",
                 kp_type_name(p, index->type));
      }
      if (t->kind == KL_TYPE_POINTER && t->element->kind == KL_TYPE_VOID) {
        kl_error(p->ctx, at, "subscript of a pointer to void");
      }
      kl_node *x = kp_new_node(p, KL_EXPR_INDEX, at);
      x->lhs = n;
      x->rhs = index;
      x->type = t->element;
      x->is_lvalue = true;
      n = x;
      continue;
    }
    if (kp_is(p, ".") || kp_is(p, "->")) {
      n = member_access(p, n, kp_is(p, "->"));
      continue;
    }
    if (kp_is(p, "++") || kp_is(p, "--")) {
      bool inc = kp_is(p, "++");
      kp_advance(p);
      n = kp_new_unary(p, inc ? KL_OP_POST_INCREMENT : KL_OP_POST_DECREMENT, n, at);
      continue;
    }
    return n;
  }
}
