// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: a private pointer variable that points into one of
 * several kernel buffers (Rodinia's heartwall assigns `d_unique_d_Row =
 * d_endoRow;` in one branch and `= d_epiRow;` in the other). A GLSL pointer
 * is an offset into one array, so such a variable gets a companion,
 * `_cl_which<id>` (a global, private to each invocation), set with every assignment to the index of
 * the buffer assigned, and a read through it picks the buffer:
 * `(p_cl_which == 0u ? _cl_buf1[p + i] : _cl_buf2[p + i])`.
 *
 * The buffers are found before the body is emitted, from the assignments'
 * own syntax (a buffer parameter, plus or minus an offset, a cast to the
 * same element type, `&b[i]`, or a conditional of those): a variable whose
 * every assignment is one of those, to buffers of one element type, with
 * two or more of them. Anything else about the variable (a write through
 * it, passing it to a function, copying it into another pointer) is
 * refused where it is used. */
#include <string.h>

#include "emit_glsl_internal.h"

enum { MAX_CHOICES = 4 };

typedef struct choice_scan {
  const kl_variable *var;
  const kl_variable *buffers[MAX_CHOICES];
  int count;
  bool unknown; /* an assignment that is not a buffer expression */
} choice_scan;

/* The buffer parameter a pointer expression starts from, or NULL. */
static void add_buffers(choice_scan *s, const kl_node *n, int depth) {
  if (!n || depth > 32) {
    s->unknown = true;
    return;
  }
  switch (n->kind) {
    case KL_EXPR_VARIABLE:
      if (n->variable->is_parameter && klg_is_pointer(n->variable->type) &&
          n->variable->type->pointee_space == KL_SPACE_GLOBAL) {
        for (int i = 0; i < s->count; i++)
          if (s->buffers[i] == n->variable) return;
        if (s->count == MAX_CHOICES) {
          s->unknown = true;
          return;
        }
        s->buffers[s->count++] = n->variable;
        return;
      }
      break;
    case KL_EXPR_BINARY:
      if (n->op == KL_OP_ADD || n->op == KL_OP_SUB) {
        add_buffers(s, klg_is_pointer(n->lhs->type) ? n->lhs : n->rhs, depth + 1);
        return;
      }
      break;
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      if (klg_is_pointer(n->lhs->type) && kl_type_equal(n->lhs->type->element, n->type->element)) {
        add_buffers(s, n->lhs, depth + 1);
        return;
      }
      break;
    case KL_EXPR_UNARY:
      if (n->op == KL_OP_ADDRESS_OF && n->lhs->kind == KL_EXPR_INDEX) {
        add_buffers(s, n->lhs->lhs, depth + 1);
        return;
      }
      break;
    case KL_EXPR_CONDITIONAL:
      add_buffers(s, n->then, depth + 1);
      add_buffers(s, n->otherwise, depth + 1);
      return;
    default:
      break;
  }
  s->unknown = true;
}

static void scan(choice_scan *s, const kl_node *n, int depth) {
  if (!n || depth > 400) return;
  if (n->kind == KL_STMT_DECLARATION && n->variable == s->var && n->variable->initializer)
    add_buffers(s, n->variable->initializer, 0);
  if (n->kind == KL_EXPR_ASSIGN && n->lhs->kind == KL_EXPR_VARIABLE && n->lhs->variable == s->var) {
    if (n->op == KL_OP_NONE) add_buffers(s, n->rhs, 0);
    /* p += k keeps the buffer */
  }
  const kl_node *children[] = {n->lhs,       n->rhs,  n->condition, n->then,
                               n->otherwise, n->init, n->increment, n->body};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++) scan(s, children[i], depth + 1);
  for (const kl_node *a = n->args; a; a = a->next) scan(s, a, depth + 1);
  if (n->kind == KL_STMT_COMPOUND || n->kind == KL_STMT_SWITCH)
    for (const kl_node *c = n->body; c; c = c->next)
      if (c != n->body) scan(s, c, depth + 1);
}

glsl_root *glsl_choice_root(glsl_emitter *e, const kl_variable *v, const char *name) {
  const kl_function *f = e->kernel;
  if (!f || !f->body || v->is_parameter || v->space != KL_SPACE_PRIVATE || !klg_is_pointer(v->type))
    return NULL;
  choice_scan s = {.var = v};
  scan(&s, f->body, 0);
  if (s.unknown || s.count < 2) return NULL;
  glsl_root **choices = kl_alloc(e->ctx, sizeof *choices * (size_t)s.count);
  for (int i = 0; i < s.count; i++) {
    glsl_binding *b = glsl_lookup(e, s.buffers[i]);
    if (!b || !b->root || b->root->kind != ROOT_BUFFER ||
        !kl_type_equal(s.buffers[i]->type->element, s.buffers[0]->type->element))
      return NULL;
    choices[i] = b->root;
  }
  glsl_root *r = glsl_new_root(e, ROOT_BUFFER, v, name);
  r->choices = choices;
  r->choice_count = s.count;
  r->selector = kl_format(e->ctx, "_cl_which%d", v->id);
  klg_printf(&e->globals, "uint %s = 0u;\n", r->selector); /* private per invocation */
  r->element = choices[0]->element;
  return r;
}

int glsl_choice_index(const glsl_root *choice, const glsl_root *root) {
  for (int i = 0; i < choice->choice_count; i++)
    if (choice->choices[i] == root) return i;
  return -1;
}

void glsl_choice_element(glsl_emitter *e, glsl_root *root, const char *offset, const kl_node *index,
                         glsl_access mode, kl_location at) {
  if (mode != ACCESS_READ) {
    glsl_fail(e, at,
              kl_format(e->ctx, "writing through pointer '%s', which points into one of %d buffers",
                        root->var->name, root->choice_count));
    return;
  }
  const char *at_text =
      index ? kl_format(e->ctx, "%s + uint(%s)", offset, glsl_text_of(e, index)) : offset;
  klg_buf *o = e->out;
  klg_puts(o, "(");
  for (int i = 0; i < root->choice_count; i++) {
    glsl_root *c = root->choices[i];
    glsl_mark(c, mode);
    if (i + 1 < root->choice_count)
      klg_printf(o, "%s == %du ? %s[%s] : ", root->selector, i, c->array, at_text);
    else
      klg_printf(o, "%s[%s]", c->array, at_text);
  }
  klg_puts(o, ")");
}

/* `p[i] = v` (or `*p = v`, or a compound assignment of the element's own
 * type) through such a pointer: the store in each buffer's arm. false when
 * the assignment is not one through such a pointer. */
bool glsl_choice_assign(glsl_emitter *e, const kl_node *n) {
  if (n->kind != KL_EXPR_ASSIGN) return false;
  const kl_node *l = n->lhs, *pointer = NULL, *index = NULL;
  if (l->kind == KL_EXPR_INDEX && klg_is_pointer(l->lhs->type)) {
    pointer = l->lhs;
    index = l->rhs;
  } else if (l->kind == KL_EXPR_UNARY && l->op == KL_OP_DEREFERENCE) {
    pointer = l->lhs;
  } else {
    return false;
  }
  /* the variable under `p`, `p + k`, `p - k` */
  const kl_node *base = pointer;
  while (base->kind == KL_EXPR_BINARY && (base->op == KL_OP_ADD || base->op == KL_OP_SUB))
    base = klg_is_pointer(base->lhs->type) ? base->lhs : base->rhs;
  if (base->kind != KL_EXPR_VARIABLE) return false;
  glsl_binding *b = glsl_lookup(e, base->variable);
  if (!b || !b->root || !b->root->choices) return false;
  glsl_root *root = b->root, *found;
  const char *offset = glsl_pointer_text(e, pointer, &found);
  if (found != root) return false;
  if (n->op != KL_OP_NONE && !(n->operation_type && kl_type_equal(n->operation_type, l->type) &&
                               kl_type_equal(n->rhs->type, l->type))) {
    glsl_fail(e, n->location,
              "this compound assignment through a pointer into one of several buffers");
    return true;
  }
  const char *value;
  if (n->op == KL_OP_NONE) {
    klg_buf *saved = e->out;
    klg_buf tmp;
    klg_init(&tmp, e->ctx);
    e->out = &tmp;
    glsl_expr_as(e, n->rhs, l->type);
    e->out = saved;
    value = klg_text(&tmp);
  } else {
    value = glsl_text_of(e, n->rhs);
  }
  const char *at =
      index ? kl_format(e->ctx, "%s + uint(%s)", offset, glsl_text_of(e, index)) : offset;
  const char *op = n->op == KL_OP_NONE ? "=" : kl_format(e->ctx, "%s=", kl_operator_text(n->op));
  klg_buf *o = e->out;
  klg_puts(o, "(");
  for (int i = 0; i < root->choice_count; i++) {
    glsl_root *c = root->choices[i];
    glsl_mark(c, n->op == KL_OP_NONE ? ACCESS_WRITE : ACCESS_READ_WRITE);
    if (i + 1 < root->choice_count)
      klg_printf(o, "%s == %du ? (%s[%s] %s %s) : ", root->selector, i, c->array, at, op, value);
    else
      klg_printf(o, "(%s[%s] %s %s)", c->array, at, op, value);
  }
  klg_puts(o, ")");
  return true;
}
