// SPDX-License-Identifier: Apache-2.0
/* Bounds checking: building the nodes of the checks, and which
 * expressions may be evaluated twice (kernels/bounds.c). */
#include <string.h>

#include "bounds_internal.h"
#include "builtins.h"

kl_type *kb_type_long(bounds *b) {
  return kl_type_scalar(b->ctx, KL_TYPE_LONG);
}

kl_node *kb_new_node(bounds *b, kl_node_kind kind, kl_location at, kl_type *type) {
  kl_node *n = kl_alloc(b->ctx, sizeof *n);
  n->kind = kind;
  n->location = at;
  n->type = type;
  return n;
}

kl_node *kb_int_node(bounds *b, kl_type *type, long long value, kl_location at) {
  kl_node *n = kb_new_node(b, KL_EXPR_INT_LITERAL, at, type);
  n->int_value = (uint64_t)value;
  return n;
}

kl_node *kb_convert(bounds *b, kl_node *n, kl_type *to) {
  if (kl_type_equal(n->type, to)) return n;
  kl_node *c = kb_new_node(b, KL_EXPR_CONVERT, n->location, to);
  c->lhs = n;
  return c;
}

kl_node *kb_variable_node(bounds *b, kl_variable *v, kl_location at) {
  kl_node *n = kb_new_node(b, KL_EXPR_VARIABLE, at, v->type);
  n->variable = v;
  n->is_lvalue = true;
  return n;
}

kl_node *kb_binary(bounds *b, kl_operator op, kl_node *lhs, kl_node *rhs, kl_type *type) {
  kl_node *n = kb_new_node(b, KL_EXPR_BINARY, lhs->location, type);
  n->op = op;
  n->lhs = kb_convert(b, lhs, type);
  n->rhs = kb_convert(b, rhs, type);
  return n;
}

/* A kb_call of a prelude function with the arguments converted to its
 * parameters' types. */
kl_node *kb_call(bounds *b, kl_function *f, kl_location at, kl_node *a0, kl_node *a1, kl_node *a2,
                 kl_node *a3) {
  kl_node *n = kb_new_node(b, KL_EXPR_CALL, at, f->return_type);
  n->function = f;
  kl_node *args[4] = {a0, a1, a2, a3}, head = {0}, *tail = &head;
  kl_variable *param = f->params;
  for (int i = 0; i < 4 && args[i] && param; i++, param = param->next) {
    tail = tail->next = kb_convert(b, args[i], param->type);
    n->arg_count++;
  }
  n->args = head.next;
  return n;
}

kl_node *kb_copy_tree(bounds *b, const kl_node *n) {
  if (!n) return NULL;
  kl_node *c = kl_alloc(b->ctx, sizeof *c);
  *c = *n;
  c->next = NULL;
  c->lhs = kb_copy_tree(b, n->lhs);
  c->rhs = kb_copy_tree(b, n->rhs);
  c->condition = kb_copy_tree(b, n->condition);
  c->then = kb_copy_tree(b, n->then);
  c->otherwise = kb_copy_tree(b, n->otherwise);
  kl_node head = {0}, *tail = &head;
  for (const kl_node *a = n->args; a; a = a->next) tail = tail->next = kb_copy_tree(b, a);
  c->args = head.next;
  return c;
}

bool kb_is_prelude(const bounds *b, const kl_function *f) {
  return f == b->in || f == b->fault || f == b->faults || f == b->extent_of || f == b->word;
}

/* Room for one more item in an array that grows by doubling (kl_alloc'd:
 * the context owns the old one). */
void *kb_grow(bounds *b, void *items, int count, int *capacity, size_t item_size) {
  if (count < *capacity) return items;
  int bigger = *capacity ? 2 * *capacity : 8;
  void *grown = kl_alloc(b->ctx, (size_t)bigger * item_size);
  if (count) memcpy(grown, items, (size_t)count * item_size);
  *capacity = bigger;
  return grown;
}

/* Evaluating it twice does what evaluating it once does (the checks' own
 * calls count: a second violation is only counted again). */
bool kb_pure(const bounds *b, const kl_node *n) {
  if (!n) return true;
  switch (n->kind) {
    case KL_EXPR_ASSIGN: /* but a kernel's notes of a violation (counted again) */
      if (!(n->lhs->kind == KL_EXPR_VARIABLE && b->bad &&
            (n->lhs->variable == b->bad || n->lhs->variable == b->bad_site ||
             n->lhs->variable == b->bad_at)))
        return false;
      break;
    case KL_EXPR_INIT_LIST:
      return false;
    case KL_EXPR_CALL:
      if (!kb_is_prelude(b, n->function)) return false;
      break;
    case KL_EXPR_UNARY:
      if (n->op >= KL_OP_PRE_INCREMENT && n->op <= KL_OP_POST_DECREMENT) return false;
      break;
    case KL_EXPR_BUILTIN: {
      kl_builtin_category c = n->builtin->category;
      if (c == KL_BUILTIN_ATOMIC || c == KL_BUILTIN_SYNC || n->builtin->id == KL_BUILTIN_VSTORE ||
          n->builtin->rule == KL_RULE_FLOAT_PTR || n->builtin->rule == KL_RULE_FLOAT_INTPTR)
        return false;
      break;
    }
    default:
      break;
  }
  if (!kb_pure(b, n->lhs) || !kb_pure(b, n->rhs) || !kb_pure(b, n->condition) ||
      !kb_pure(b, n->then) || !kb_pure(b, n->otherwise))
    return false;
  for (const kl_node *a = n->args; a; a = a->next)
    if (!kb_pure(b, a)) return false;
  return true;
}

void kb_unchecked(bounds *b, kl_location at, const char *why) {
  if (!b->unchecked_count++) {
    b->first_unchecked = at;
    b->unchecked_why = why;
  }
}
