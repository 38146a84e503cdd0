// SPDX-License-Identifier: Apache-2.0
/* Compound literals of structs and arrays (issue 31): `(dcomplex){re, im}`.
 * The parser hoists each one into a private temporary declared just before
 * the statement that holds it (an expression statement, a declaration or a
 * return), initialised with the brace list, and leaves a reference to the
 * temporary in the expression; the targets see the plain declarations they
 * already print. Where hoisting would change what is evaluated (a loop's or
 * an if's condition, the operands of &&, || and ?:, program scope), the
 * literal is refused with the place named. */
#include <stdio.h>
#include <string.h>

#include "parse_internal.h"

/* The statement parser opens a place where literals can be hoisted. */
void kp_hoist_open(parser *p, kp_hoist *saved) {
  saved->head = p->hoisted;
  saved->open = p->hoist_open;
  saved->blocked = p->hoist_blocked;
  p->hoisted = NULL;
  p->hoist_open = true;
  p->hoist_blocked = 0;
}

/* The statement n with the temporaries hoisted while it was parsed before
 * it: a chain for a declaration (its names stay in the enclosing block), a
 * block otherwise. */
kl_node *kp_hoist_close(parser *p, kp_hoist *saved, kl_node *n, bool is_declaration) {
  kl_node *temps = p->hoisted;
  p->hoisted = saved->head;
  p->hoist_open = saved->open;
  p->hoist_blocked = saved->blocked;
  if (!temps) return n;
  kl_node *tail = temps;
  while (tail->next) tail = tail->next;
  tail->next = n;
  if (is_declaration) return temps;
  kl_node *block = kp_new_node(p, KL_STMT_COMPOUND, temps->location);
  block->body = temps;
  return block;
}

/* (type){...}: the current token is '{' */
kl_node *kp_compound_literal(parser *p, kl_type *type, kl_location at) {
  if (type->kind != KL_TYPE_STRUCT && type->kind != KL_TYPE_ARRAY && type->kind != KL_TYPE_VECTOR) {
    kl_error(p->ctx, at,
             "compound literals of '%s' are not supported: only of structs, arrays and vectors",

             kp_type_name(p, type));
  } else if (!p->hoist_open || !p->function) {
    kl_error(p->ctx, at,
             "a compound literal here is not supported: only in an expression statement, a "
             "declaration or a return (assign it to a variable first)");
  } else if (p->hoist_blocked) {
    kl_error(p->ctx, at,
             "a compound literal in an operand of &&, || or ?: is not supported (it would be "
             "evaluated unconditionally): assign it to a variable first");
  } else if (type->kind == KL_TYPE_VECTOR) {
    return kp_initializer(p, type, 0); /* (float4){a, b, c, d}: a vector literal */
  } else {
    kl_token name = *p->tok;
    name.text = kl_format(p->ctx, "compound_literal_%d", ++p->compound_literals);
    name.length = (int)strlen(name.text);
    name.location = at;
    name.expanded_from = (kl_location){0};
    kl_variable *v = kp_new_variable(p, &name, kl_type_unqualified(p->ctx, type), KL_SPACE_PRIVATE);
    v->initializer = kp_initializer(p, v->type, 0);
    if (p->locals_tail)
      p->locals_tail->next = v;
    else
      p->function->locals = v;
    p->locals_tail = v;
    kl_node *decl = kp_new_node(p, KL_STMT_DECLARATION, at);
    decl->variable = v;
    kl_node **tail = &p->hoisted;
    while (*tail) tail = &(*tail)->next;
    *tail = decl;
    kl_node *ref = kp_new_node(p, KL_EXPR_VARIABLE, at);
    ref->variable = v;
    ref->type = v->type;
    ref->is_lvalue = true;
    return ref;
  }
  for (int level = 0; p->tok->kind != KL_TOKEN_END;) { /* skip the braces */
    level += kp_is(p, "{") ? 1 : kp_is(p, "}") ? -1 : 0;
    kp_advance(p);
    if (level <= 0) break;
  }
  kl_node *error = kp_error_expr(p, at);
  error->type = type; /* no second error where it is used */
  return error;
}
