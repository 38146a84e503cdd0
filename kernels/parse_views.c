// SPDX-License-Identifier: Apache-2.0
/* Pointers to arrays (issue 31): `__global double (*u)[N][M] = (__global
 * double (*)[N][M]) buf;` indexed `u[k][j][i]`. The front end keeps such a
 * pointer as a pointer to the innermost element (what every target already
 * handles, GLSL's buffers included) and lowers each subscript that yields
 * an array into pointer arithmetic: u[k][j][i] is ((u + k*N*M) + j*M)[i].
 * The pointer-to-array type itself rides on the nodes (kl_node.view) and
 * variables (kl_variable.view) while parsing and is never emitted. Only
 * subscripts are in the subset: arithmetic on such a pointer, passing it to
 * a function or taking its value otherwise is refused. */
#include <string.h>

#include "parse_internal.h"

bool kp_is_pointer_to_array(const kl_type *t) {
  return t && t->kind == KL_TYPE_POINTER && t->element->kind == KL_TYPE_ARRAY;
}

/* The pointer to the innermost element that stands for pointer-to-array t. */
kl_type *kp_view_flat(parser *p, const kl_type *t) {
  kl_type *e = t->element;
  while (e->kind == KL_TYPE_ARRAY) e = e->element;
  kl_type *flat = kl_type_pointer(p->ctx, e, t->pointee_space);
  return t->qualifiers ? kl_type_qualified(p->ctx, flat, t->qualifiers) : flat;
}

/* (T (*)[N]...) x: x as a pointer to T (a cast only if x points to another
 * type), remembered as the view. */
kl_node *kp_view_cast(parser *p, kl_type *type, kl_node *x, kl_location at,
                      kl_node *(*cast)(parser *, kl_type *, kl_node *, kl_location)) {
  kl_type *flat = kp_view_flat(p, type);
  kl_node *n;
  while (x->type->kind == KL_TYPE_ARRAY && x->type->element->kind == KL_TYPE_ARRAY) {
    kl_node *first = kp_new_node(p, KL_EXPR_INDEX, at); /* a[2][3] as &a[0][0] */
    first->lhs = x;
    first->rhs = kp_new_int(p, 0, kp_int_type(p), at);
    first->type = x->type->element;
    first->is_lvalue = true;
    x = first;
  }
  x = kp_decay(p, x);
  if (x->type->kind == KL_TYPE_POINTER && x->type->pointee_space == flat->pointee_space &&
      kl_type_equal(x->type->element, flat->element)) {
    n = kp_new_node(p, KL_EXPR_CAST, at);
    *n = *x; /* the same pointer: no cast in the output */
  } else {
    n = cast(p, kl_type_unqualified(p->ctx, flat), x, at);
  }
  n->view = kl_type_unqualified(p->ctx, type);
  return n;
}

/* "__global float (*)[3][4]" */
static const char *view_name(parser *p, const kl_type *t) {
  const char *flat = kp_type_name(p, kp_view_flat(p, t));
  const char *name = kl_format(p->ctx, "%.*s (*)", (int)strlen(flat) - 1, flat);
  for (const kl_type *a = t->element; a->kind == KL_TYPE_ARRAY; a = a->element)
    name = kl_format(p->ctx, "%s[%d]", name, a->length);
  return name;
}

static int64_t element_count(const kl_type *t) {
  int64_t n = 1;
  for (; t->kind == KL_TYPE_ARRAY; t = t->element) n *= t->length;
  return n;
}

/* base[index] where base stands for a pointer to an array A: the array
 * base[index] as a pointer to its first innermost element, itself standing
 * for a pointer to A's element if that is an array too. */
kl_node *kp_view_index(parser *p, kl_node *base, kl_node *index, kl_location at) {
  const kl_type *array = base->view->element;
  kl_type *itype = kl_type_is_integer(index->type) ? index->type : kp_int_type(p);
  kl_node *scaled = kp_new_binary(p, KL_OP_MUL, index,
                                  kp_new_int(p, (uint64_t)element_count(array), itype, at), at);
  kl_node *base_flat = kp_new_node(p, KL_EXPR_CAST, at);
  *base_flat = *base;
  base_flat->view = NULL;
  kl_node *n = kp_new_binary(p, KL_OP_ADD, base_flat, scaled, at);
  if (array->element->kind == KL_TYPE_ARRAY)
    n->view = kl_type_pointer(p->ctx, array->element, base->view->pointee_space);
  return n;
}

/* A declared pointer to an array becomes a pointer to its element. */
kl_type *kp_view_declare(parser *p, kl_variable *v) {
  if (!kp_is_pointer_to_array(v->type)) return v->type;
  v->view = v->type;
  v->type = kp_view_flat(p, v->type);
  return v->type;
}

/* The initializer of a pointer-to-array variable must be one too, of its type. */
void kp_view_check_init(parser *p, const kl_variable *v, const kl_node *init) {
  if (!v->view || !init || init->kind == KL_EXPR_INIT_LIST) return;
  if (!init->view || !kl_type_equal(init->view, v->view))
    kl_error(p->ctx, v->location,
             "'%s' is a pointer to an array ('%s'): initialise it with a cast of a pointer, "
             "'(%s)buf'",
             v->name, view_name(p, v->view), view_name(p, v->view));
}

/* What is left of a pointer to an array outside a subscript is refused. */
void kp_view_escapes(parser *p, const kl_node *n) {
  kl_error(p->ctx, kp_expr_start(n),
           "a pointer to an array ('%s') can only be subscripted here (u[i][j]); "
           "arithmetic on it, its value and passing it on are not supported",
           view_name(p, n->view));
}
