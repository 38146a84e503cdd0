// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: pointers as (root array, uint offset) pairs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emit_glsl_internal.h"
/* -------------------------------------------------------- root access */

void glsl_mark(glsl_root *root, glsl_access mode) {
  if (!root) return;
  if (mode != ACCESS_WRITE) root->read = true;
  if (mode != ACCESS_READ) root->written = true;
  glsl_mark(root->base, mode); /* a view: its buffer's own declaration */
}

/* ROOT[offset + index] */
void glsl_element(glsl_emitter *e, const kl_node *pointer, const kl_node *index, glsl_access mode,
                  kl_location at) {
  glsl_root *root;
  const char *offset = glsl_pointer_text(e, pointer, &root);
  if (!root) return;
  if (root->kind == ROOT_ADDRESS) {
    glsl_address_element(e, root, offset, index, at);
    return;
  }
  if (root->words) {
    glsl_word_element(e, root, offset, index, mode, at);
    return;
  }
  if (root->null) {
    glsl_fail(e, at, "an access through a pointer made from an integer (or NULL)");
    return;
  }
  if (root->choices) {
    glsl_choice_element(e, root, offset, index, mode, at);
    return;
  }
  if (root->packed && mode != ACCESS_READ) {
    glsl_fail(e, at, "writing through a pointer cast from a private array to wider elements");
    return;
  }
  glsl_mark(root, mode);
  if (root->scalar) {
    klg_puts(e->out, root->array);
    return;
  }
  if (root->columns) { /* a row-major offset into an array of arrays */
    if (index && !glsl_pure(index)) {
      glsl_fail(e, at, "an index with side effects into an array of arrays through a pointer");
      return;
    }
    const char *at_text = index
                              ? kl_format(e->ctx, "(%s + uint(%s))", offset, glsl_text_of(e, index))
                              : kl_format(e->ctx, "(%s)", offset);
    klg_printf(e->out, "%s[%s / %du][%s %% %du]", root->array, at_text, root->columns, at_text,
               root->columns);
    return;
  }
  klg_printf(e->out, "%s[%s", root->array, offset);
  if (index) {
    klg_puts(e->out, " + uint(");
    glsl_low32(e, index);
    klg_puts(e->out, ")");
  }
  klg_puts(e->out, "]");
}

glsl_root *glsl_null_root(glsl_emitter *e) {
  static const char nothing[] = "_cl_null";
  glsl_root *r = glsl_new_root(e, ROOT_PRIVATE, NULL, nothing);
  r->null = true;
  return r;
}

glsl_root *glsl_new_root(glsl_emitter *e, glsl_root_kind kind, const kl_variable *var,
                         const char *array) {
  glsl_root *r = kl_alloc(e->ctx, sizeof *r);
  r->kind = kind;
  r->var = var;
  r->array = array;
  r->buffer = -1;
  return r;
}

/* A root for an array variable (shared, constant or private). */
glsl_root *glsl_array_root(glsl_emitter *e, const kl_variable *v, kl_location at) {
  glsl_binding *b = glsl_lookup(e, v);
  if (b && b->root) return b->root;
  int columns = 0;
  if (v->type->kind == KL_TYPE_ARRAY && v->type->element->kind == KL_TYPE_ARRAY) {
    if (v->type->element->element->kind == KL_TYPE_ARRAY) {
      glsl_fail(e, at, "pointers into arrays of arrays of arrays");
      return NULL;
    }
    columns = v->type->element->length; /* tpacf's atom_inc(&warp_hists[b][w]) */
  }
  glsl_root_kind kind = v->space == KL_SPACE_LOCAL                               ? ROOT_SHARED
                        : (v->is_program_scope || v->space == KL_SPACE_CONSTANT) ? ROOT_CONSTANT
                                                                                 : ROOT_PRIVATE;
  const char *array = b ? b->name : glsl_name(e, v->name);
  glsl_root *r = glsl_new_root(e, kind, v, array);
  r->columns = columns;
  if (b)
    b->root = r;
  else
    glsl_bind(e, v, array, r);
  return r;
}

const char *glsl_var_name(glsl_emitter *e, const kl_variable *v) {
  glsl_binding *b = glsl_lookup(e, v);
  if (b) return b->name;
  return glsl_name(e, v->name);
}

/* Emits a pointer's offset (a uint expression); returns its root. */
/* A pointer cast: an array's decay, a cast between pointers to element
 * types that are the same in GLSL (one index unit), or a view of a buffer
 * with another element type (emit_glsl_views.c). */
static glsl_root *glsl_pointer_cast(glsl_emitter *e, const kl_node *n) {
  const kl_type *from = n->lhs->type;
  if (from->kind == KL_TYPE_ARRAY) {
    if (n->lhs->kind == KL_EXPR_VARIABLE) return glsl_pointer(e, n->lhs);
    glsl_fail(e, n->location, "pointers into this array");
    return NULL;
  }
  if (!klg_is_pointer(from)) {
    /* NULL, or an integer made a pointer: no array; assigned over before
     * any use in a kernel that works (the front end warned) */
    klg_puts(e->out, "0u");
    return glsl_null_root(e);
  }
  glsl_root *flat = glsl_flat_cast(e, n);
  if (flat) return flat;
  const kl_type *a = from->element, *b = n->type->element;
  if (kl_type_equal(a, b) ||
      (a->kind != KL_TYPE_VOID && b->kind != KL_TYPE_VOID && a->size == b->size &&
       strcmp(glsl_type(e, a, n->location), glsl_type(e, b, n->location)) == 0))
    return glsl_pointer(e, n->lhs);
  return glsl_cast_view(e, n);
}

/* `a[i]` of an array of arrays variable (a row), else NULL. */
static const kl_node *glsl_row_of(const kl_node *n) {
  if (n->kind != KL_EXPR_INDEX || n->lhs->kind != KL_EXPR_VARIABLE) return NULL;
  const kl_type *t = n->lhs->variable->type;
  return t->kind == KL_TYPE_ARRAY && t->element->kind == KL_TYPE_ARRAY &&
                 t->element->element->kind != KL_TYPE_ARRAY
             ? n
             : NULL;
}

/* &x: of an array or buffer element, of an array, or of a private or
 * __local scalar or vector (a root of its own). */
static glsl_root *glsl_address_of(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_node *t = n->lhs;
  glsl_root *flat = glsl_flat_cast(e, n);
  if (flat) return flat;
  if (t->kind == KL_EXPR_INDEX) {
    const kl_node *base = t->lhs;
    while (base->kind == KL_EXPR_CONVERT && base->lhs->type->kind == KL_TYPE_ARRAY)
      base = base->lhs;
    const kl_node *row = glsl_row_of(base);
    if (row) { /* &a[i][j] of an array of arrays: offset i * C + j */
      glsl_root *r = glsl_array_root(e, row->lhs->variable, n->location);
      if (!r) return NULL;
      klg_printf(o, "(uint(%s) * %du + uint(", glsl_text_of(e, row->rhs), r->columns);
      glsl_low32(e, t->rhs);
      klg_puts(o, "))");
      return r;
    }
    klg_puts(o, "(");
    glsl_root *r = glsl_pointer(e, base);
    klg_puts(o, " + uint(");
    glsl_low32(e, t->rhs);
    klg_puts(o, "))");
    return r;
  }
  if (t->kind == KL_EXPR_UNARY && t->op == KL_OP_DEREFERENCE) return glsl_pointer(e, t->lhs);
  if (t->kind == KL_EXPR_VARIABLE && t->variable->type->kind == KL_TYPE_ARRAY)
    return glsl_pointer(e, t);
  /* a private scalar, vector or struct (an out-parameter: Rodinia's cfd
   * `compute_velocity(d, m, &velocity)`): a root of its own, passed inout */
  const kl_type *vt = t->kind == KL_EXPR_VARIABLE ? t->variable->type : NULL;
  if (vt && !t->variable->is_parameter &&
      (kl_type_is_scalar(vt) || klg_is_vector(vt) ||
       (vt->kind == KL_TYPE_STRUCT && !vt->is_union))) {
    glsl_binding *b = glsl_lookup(e, t->variable);
    if (b && !b->root) {
      b->root = glsl_new_root(e, t->variable->space == KL_SPACE_LOCAL ? ROOT_SHARED : ROOT_PRIVATE,
                              t->variable, b->name);
      b->root->scalar = true;
    }
    if (b && b->root && b->root->scalar) {
      klg_puts(o, "0u");
      return b->root;
    }
  }
  glsl_fail(e, n->location, "pointers to variables or members (only to array and buffer elements)");
  return NULL;
}

glsl_root *glsl_pointer(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  if (glsl_is_address(e, n)) return glsl_address_pointer(e, n);
  switch (n->kind) {
    case KL_EXPR_VARIABLE: {
      if (n->variable->type->kind == KL_TYPE_ARRAY) {
        glsl_root *r = glsl_array_root(e, n->variable, n->location);
        klg_puts(o, "0u");
        return r;
      }
      glsl_binding *b = glsl_lookup(e, n->variable);
      if (!b || !b->root) {
        glsl_fail(e, n->location,
                  kl_format(e->ctx,
                            "pointer '%s' whose array is not known here (assign it before use, "
                            "from one array only)",
                            n->variable->name));
        return NULL;
      }
      klg_puts(o, b->name);
      return b->root;
    }
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      return glsl_pointer_cast(e, n);
    case KL_EXPR_BINARY:
      if (n->op == KL_OP_ADD || n->op == KL_OP_SUB) {
        const kl_node *p =
            klg_is_pointer(n->lhs->type) || n->lhs->type->kind == KL_TYPE_ARRAY ? n->lhs : n->rhs;
        const kl_node *i = p == n->lhs ? n->rhs : n->lhs;
        klg_puts(o, "(");
        glsl_root *r = glsl_pointer(e, p);
        klg_printf(o, " %s uint(", n->op == KL_OP_ADD ? "+" : "-");
        glsl_low32(e, i);
        klg_puts(o, "))");
        return r;
      }
      break;
    case KL_EXPR_UNARY:
      if (n->op == KL_OP_ADDRESS_OF) return glsl_address_of(e, n);
      if (n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT ||
          n->op == KL_OP_PRE_INCREMENT || n->op == KL_OP_PRE_DECREMENT) {
        if (n->lhs->kind != KL_EXPR_VARIABLE) break;
        glsl_binding *b = glsl_lookup(e, n->lhs->variable);
        if (!b || !b->root) break;
        const char *op =
            (n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_PRE_INCREMENT) ? "++" : "--";
        bool post = n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT;
        if (post)
          klg_printf(o, "(%s%s)", b->name, op);
        else
          klg_printf(o, "(%s%s)", op, b->name);
        return b->root;
      }
      break;
    case KL_EXPR_CONDITIONAL: {
      glsl_root *ra, *rb;
      const char *c = glsl_cond_text(e, n->condition);
      const char *a = glsl_pointer_text(e, n->then, &ra),
                 *b = glsl_pointer_text(e, n->otherwise, &rb);
      if (ra && ra->null) ra = rb;
      if (rb && rb->null) rb = ra;
      if (ra && rb && ra != rb) {
        glsl_fail(e, n->location, "a pointer that may point into different arrays");
        return NULL;
      }
      klg_printf(o, "(%s ? %s : %s)", c, a, b);
      return ra;
    }
    case KL_EXPR_COMMA:
      klg_puts(o, "(");
      glsl_expr(e, n->lhs);
      klg_puts(o, ", ");
      {
        glsl_root *r = glsl_pointer(e, n->rhs);
        klg_puts(o, ")");
        return r;
      }
    case KL_EXPR_ASSIGN: {
      if (n->lhs->kind != KL_EXPR_VARIABLE) break;
      glsl_binding *b = glsl_lookup(e, n->lhs->variable);
      if (!b) break;
      if (n->op == KL_OP_NONE) {
        glsl_root *r;
        const char *v = glsl_pointer_text(e, n->rhs, &r);
        if (!r) return NULL;
        if (r->null) { /* the pointer keeps its array, if it has one */
          klg_printf(o, "(%s = %s)", b->name, v);
          return b->root ? b->root : r;
        }
        if (r->choices) {
          glsl_fail(e, n->location, "copying a pointer that points into one of several buffers");
          return NULL;
        }
        if (b->root && b->root->choices) { /* which buffer, then where in it */
          int k = glsl_choice_index(b->root, r);
          if (k < 0) {
            glsl_fail(e, n->location,
                      kl_format(e->ctx, "pointer '%s' pointing into different arrays",
                                n->lhs->variable->name));
            return NULL;
          }
          klg_printf(o, "(%s = %du, %s = %s)", b->root->selector, k, b->name, v);
          return r;
        }
        if (b->root && b->root != r) {
          glsl_fail(e, n->location,
                    kl_format(e->ctx, "pointer '%s' pointing into different arrays",
                              n->lhs->variable->name));
          return NULL;
        }
        b->root = r;
        klg_printf(o, "(%s = %s)", b->name, v);
        return r;
      }
      if (!b->root) break;
      klg_printf(o, "(%s %s= uint(", b->name, n->op == KL_OP_ADD ? "+" : "-");
      glsl_low32(e, n->rhs);
      klg_puts(o, "))");
      return b->root;
    }
    default:
      break;
  }
  glsl_fail(e, n->location, "this pointer expression");
  return NULL;
}

/* The conditional a dereference (`*p`, `p[i]`) reads through, looking
 * through conversions between pointers to the same element type. */
static const kl_node *chosen_pointer(const kl_node *lvalue) {
  const kl_node *p = NULL;
  if (lvalue->kind == KL_EXPR_UNARY && lvalue->op == KL_OP_DEREFERENCE)
    p = lvalue->lhs;
  else if (lvalue->kind == KL_EXPR_INDEX && klg_is_pointer(lvalue->lhs->type))
    p = lvalue->lhs;
  while (p && (p->kind == KL_EXPR_CONVERT || p->kind == KL_EXPR_CAST) &&
         klg_is_pointer(p->lhs->type) && kl_type_equal(p->lhs->type->element, p->type->element))
    p = p->lhs;
  return p && p->kind == KL_EXPR_CONDITIONAL ? p : NULL;
}

/* lvalue with its pointer replaced by `arm`. */
static kl_node *through(glsl_emitter *e, const kl_node *lvalue, kl_node *arm) {
  kl_node *copy = kl_alloc(e->ctx, sizeof *copy);
  *copy = *lvalue;
  copy->lhs = arm;
  return copy;
}

/* GLSL has no pointers to choose between objects: a dereference of
 * `c ? p : q` (`*(c ? &a : &b) = v`, `(c ? p : q)[i]++`) becomes the
 * conditional of the two dereferences (`c ? (a = v) : (b = v)`). Only one
 * arm runs, so the condition and the other operands are evaluated once.
 * Returns false when n is not such an expression. */
bool glsl_split_pointer_choice(glsl_emitter *e, const kl_node *n) {
  const kl_node *target = n, *choice = NULL;
  bool wraps = false; /* n is an assignment or increment of the dereference */
  if (n->kind == KL_EXPR_ASSIGN ||
      (n->kind == KL_EXPR_UNARY &&
       (n->op == KL_OP_PRE_INCREMENT || n->op == KL_OP_PRE_DECREMENT ||
        n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT))) {
    target = n->lhs;
    wraps = true;
  }
  if (klg_is_pointer(target->type) || !(choice = chosen_pointer(target))) return false;
  kl_node *arms[2] = {choice->then, choice->otherwise};
  kl_node *split = kl_alloc(e->ctx, sizeof *split);
  split->kind = KL_EXPR_CONDITIONAL;
  split->location = n->location;
  split->type = n->type;
  split->condition = choice->condition;
  for (int k = 0; k < 2; k++) {
    kl_node *deref = through(e, target, arms[k]);
    kl_node *whole = deref;
    if (wraps) {
      whole = kl_alloc(e->ctx, sizeof *whole);
      *whole = *n;
      whole->lhs = deref;
    }
    if (k == 0)
      split->then = whole;
    else
      split->otherwise = whole;
  }
  glsl_expr(e, split);
  return true;
}
