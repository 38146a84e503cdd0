// SPDX-License-Identifier: Apache-2.0
/* Bounds checking: what each pointer points into (its root: a kernel's
 * pointer parameter, a helper's pointer parameter or a __local array), the
 * variables and ids that stand for roots, and an access's place as a root
 * and a byte offset (kernels/bounds.c). */
#include <string.h>

#include "bounds_internal.h"

/* ------------------------------------------------------------- roots */

param_root *kb_param_root_of(bounds *b, const kl_variable *v) {
  for (int i = 0; i < b->param_count; i++)
    if (b->params[i].param == v) return &b->params[i];
  return NULL;
}

static pointer_root *pointer_root_of(bounds *b, const kl_variable *v) {
  for (int i = 0; i < b->pointer_count; i++)
    if (b->pointers[i].var == v) return &b->pointers[i];
  return NULL;
}

bool kb_is_local_array(const kl_variable *v) {
  return v->space == KL_SPACE_LOCAL && v->type->kind == KL_TYPE_ARRAY && v->type->size > 0;
}

bool kb_is_pointer(const kl_type *t) {
  return t && t->kind == KL_TYPE_POINTER;
}

/* The root a pointer-valued expression points into (no offsets). */
static kl_variable *root_of(bounds *b, const kl_node *n) {
  switch (n->kind) {
    case KL_EXPR_VARIABLE: {
      if (kb_param_root_of(b, n->variable)) return n->variable;
      if (kb_is_local_array(n->variable)) return n->variable;
      pointer_root *r = pointer_root_of(b, n->variable);
      return r && r->state == ROOT_ONE ? r->root : NULL;
    }
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
      return kb_is_pointer(n->lhs->type) || n->lhs->type->kind == KL_TYPE_ARRAY ? root_of(b, n->lhs)
                                                                                : NULL;
    case KL_EXPR_BINARY:
      if (kb_is_pointer(n->lhs->type)) return root_of(b, n->lhs);
      if (kb_is_pointer(n->rhs->type)) return root_of(b, n->rhs);
      return NULL;
    case KL_EXPR_UNARY:
      if (n->op == KL_OP_ADDRESS_OF) {
        const kl_node *e = n->lhs;
        while (e->kind == KL_EXPR_INDEX || (e->kind == KL_EXPR_MEMBER) ||
               e->kind == KL_EXPR_SWIZZLE)
          e = e->lhs;
        return root_of(b, e);
      }
      return NULL;
    case KL_EXPR_INDEX: /* an array of arrays' row */
    case KL_EXPR_MEMBER:
      return n->type->kind == KL_TYPE_ARRAY ? root_of(b, n->lhs) : NULL;
    case KL_EXPR_COMMA:
      return root_of(b, n->rhs);
    default:
      return NULL;
  }
}

static void note_pointer_value(bounds *b, kl_variable *v, const kl_node *value) {
  pointer_root *r = pointer_root_of(b, v);
  if (!r) return;
  kl_variable *root = value ? root_of(b, value) : NULL;
  if (!root)
    r->state = ROOT_MANY;
  else if (r->state == ROOT_UNSEEN) {
    r->state = ROOT_ONE;
    r->root = root;
  } else if (r->root != root)
    r->state = ROOT_MANY;
}

/* Every value given to a private pointer variable, and which root
 * parameters are assigned. */
static void scan_assignments(bounds *b, const kl_node *n) {
  for (; n; n = n->next) {
    if (n->kind == KL_STMT_DECLARATION && n->variable && n->variable->initializer &&
        n->variable->initializer->kind != KL_EXPR_INIT_LIST)
      note_pointer_value(b, n->variable, n->variable->initializer);
    if (n->kind == KL_EXPR_ASSIGN && n->lhs->kind == KL_EXPR_VARIABLE) {
      param_root *p = kb_param_root_of(b, n->lhs->variable);
      if (p) p->assigned = true;
      if (n->op == KL_OP_NONE) note_pointer_value(b, n->lhs->variable, n->rhs);
    }
    if (n->kind == KL_EXPR_UNARY && n->op >= KL_OP_PRE_INCREMENT && n->op <= KL_OP_POST_DECREMENT &&
        n->lhs->kind == KL_EXPR_VARIABLE) {
      param_root *p = kb_param_root_of(b, n->lhs->variable);
      if (p) p->assigned = true;
    }
    if (n->kind == KL_EXPR_UNARY && n->op == KL_OP_ADDRESS_OF && n->lhs->kind == KL_EXPR_VARIABLE) {
      /* a pointer whose address is taken can change behind the pass's back */
      pointer_root *r = pointer_root_of(b, n->lhs->variable);
      if (r) r->state = ROOT_MANY;
      param_root *p = kb_param_root_of(b, n->lhs->variable);
      if (p) p->assigned = true;
    }
    scan_assignments(b, n->lhs);
    scan_assignments(b, n->rhs);
    scan_assignments(b, n->condition);
    scan_assignments(b, n->then);
    scan_assignments(b, n->otherwise);
    scan_assignments(b, n->init);
    scan_assignments(b, n->increment);
    scan_assignments(b, n->body);
    scan_assignments(b, n->args);
    if (n->kind == KL_STMT_DECLARATION && n->variable && n->variable->initializer &&
        n->variable->initializer->kind == KL_EXPR_INIT_LIST)
      scan_assignments(b, n->variable->initializer->args);
  }
}

helper *kb_helper_of(bounds *b, const kl_function *f) {
  for (int i = 0; i < b->helper_count; i++)
    if (b->helpers[i].function == f) return &b->helpers[i];
  return NULL;
}

bool kb_is_user_pointer(const kl_function *f, const kl_variable *v) {
  return kb_is_pointer(v->type) && v->type->pointee_space != KL_SPACE_PRIVATE &&
         v != f->printf_buffer && v != f->check_buffer && strncmp(v->name, "__agpu_", 7) != 0;
}

void kb_find_roots(bounds *b) {
  kl_function *k = b->function;
  int index = 0;
  helper *h = kb_helper_of(b, k);
  b->params = kl_alloc(b->ctx, (size_t)(k->param_count + 1) * sizeof *b->params);
  for (kl_variable *v = k->params; v; v = v->next, index++) {
    if (!kb_is_user_pointer(k, v)) continue;
    param_root r = {.param = v, .index = index, .root = -1};
    if (h) {
      int i = 0;
      while (i < h->pointer_count && h->pointers[i] != v) i++;
      if (i == h->pointer_count) continue;
      r.offset = h->offsets[i];
      r.extent = h->extents[i];
      r.root_id = h->roots[i];
    }
    b->params[b->param_count++] = r;
  }
  for (kl_variable *v = k->locals; v; v = v->next) {
    if (!kb_is_pointer(v->type) || v->space != KL_SPACE_PRIVATE) continue;
    b->pointers =
        kb_grow(b, b->pointers, b->pointer_count, &b->pointer_capacity, sizeof *b->pointers);
    b->pointers[b->pointer_count++] = (pointer_root){.var = v};
  }
  /* a pointer made from another: until nothing changes */
  for (int round = 0; round < 8; round++) {
    pointer_root *before = kl_alloc(b->ctx, (size_t)(b->pointer_count + 1) * sizeof *before);
    if (b->pointer_count) memcpy(before, b->pointers, (size_t)b->pointer_count * sizeof *before);
    for (int i = 0; i < b->pointer_count; i++) b->pointers[i].state = ROOT_UNSEEN;
    scan_assignments(b, k->body);
    bool same = true;
    for (int i = 0; i < b->pointer_count; i++)
      if (before[i].state != b->pointers[i].state || before[i].root != b->pointers[i].root)
        same = false;
    if (same && round > 0) break;
  }
}

/* --------------------------------------------------------- declarations */

kl_node *kb_local(bounds *b, const char *name, kl_type *type, kl_node *initializer,
                  kl_location at) {
  kl_variable *v = kl_alloc(b->ctx, sizeof *v);
  v->name = name;
  v->type = type;
  v->space = KL_SPACE_PRIVATE;
  v->location = at;
  v->id = b->ctx->next_variable_id++;
  v->initializer = initializer;
  kl_variable **last = &b->function->locals;
  while (*last) last = &(*last)->next;
  *last = v;
  kl_node *d = kb_new_node(b, KL_STMT_DECLARATION, at, NULL);
  d->variable = v;
  return d;
}

kl_variable *kb_declare(bounds *b, const char *name, kl_type *type, kl_node *initializer) {
  kl_node *d = kb_local(b, name, type, initializer, b->function->location);
  kl_variable *v = d->variable;
  if (b->declarations_tail)
    b->declarations_tail->next = d;
  else
    b->declarations = d;
  b->declarations_tail = d;
  return v;
}

/* The root's extent: a kernel parameter's is a variable read once at the
 * kernel's start, a helper's pointer parameter's a hidden parameter, a
 * __local array's its size. */
kl_node *kb_extent_node(bounds *b, kl_variable *root, kl_location at) {
  kl_type *ulong_type = kl_type_scalar(b->ctx, KL_TYPE_ULONG);
  param_root *p = kb_param_root_of(b, root);
  if (!p) return kb_int_node(b, ulong_type, root->type->size, at);
  if (!p->extent) {
    kl_location start = b->function->location;
    kl_node *read = kb_call(
        b, b->extent_of, start, kb_variable_node(b, b->check, start),
        kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_UINT), 2 * p->index, start), NULL, NULL);
    p->extent = kb_declare(b, kl_format(b->ctx, "__agpu_extent%d", p->index), ulong_type, read);
  }
  return kb_variable_node(b, p->extent, at);
}

static element_count *new_count(bounds *b) {
  b->counts = kb_grow(b, b->counts, b->count_count, &b->count_capacity, sizeof *b->counts);
  element_count *c = &b->counts[b->count_count++];
  memset(c, 0, sizeof *c);
  return c;
}

/* A kernel parameter's extent / stride, which the host divides: its words
 * (kl_check_count) as the count and a 32-bit copy clamped to UINT_MAX. */
static void host_count(bounds *b, param_root *p, element_count *e) {
  kl_check_count *c = kl_alloc(b->ctx, sizeof *c);
  c->id = b->program->check_count_count++;
  c->param_index = p->index;
  c->stride = e->stride;
  if (b->counts_tail)
    b->counts_tail->next = c;
  else
    b->program->check_counts = c;
  b->counts_tail = c;
  kl_location start = b->function->location;
  kl_type *uint_type = kl_type_scalar(b->ctx, KL_TYPE_UINT);
  int word = 2 * b->user_params + 3 * c->id;
  kl_node *wide = kb_call(b, b->extent_of, start, kb_variable_node(b, b->check, start),
                          kb_int_node(b, uint_type, word, start), NULL, NULL);
  kl_node *narrow = kb_call(b, b->word, start, kb_variable_node(b, b->check, start),
                            kb_int_node(b, uint_type, word + 2, start), NULL, NULL);
  e->count = kb_declare(b, kl_format(b->ctx, "__agpu_count%d_%d", p->index, e->stride),
                        kl_type_scalar(b->ctx, KL_TYPE_ULONG), wide);
  e->narrow = kb_declare(b, kl_format(b->ctx, "__agpu_count32_%d_%d", p->index, e->stride),
                         uint_type, narrow);
}

/* The root's extent / stride: a constant for a __local array, else a
 * variable declared once at the function's start; *narrow, where there is
 * one, the same clamped to 32 bits (a target with 32-bit offsets compares
 * in 32 bits: bounds.c). */
kl_node *kb_count_node(bounds *b, kl_variable *root, int stride, kl_location at, kl_node **narrow) {
  kl_type *ulong_type = kl_type_scalar(b->ctx, KL_TYPE_ULONG);
  param_root *p = kb_param_root_of(b, root);
  *narrow = NULL;
  if (!p) {
    unsigned long long count = (unsigned long long)root->type->size / (unsigned)stride;
    *narrow = kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_UINT),
                          count > 0xffffffffull ? 0xffffffffll : (long long)count, at);
    return kb_int_node(b, ulong_type, (long long)count, at);
  }
  element_count *e = NULL;
  for (int i = 0; i < b->count_count && !e; i++)
    if (b->counts[i].root == root && b->counts[i].stride == stride) e = &b->counts[i];
  if (!e) {
    e = new_count(b);
    e->root = root;
    e->stride = stride;
    if (p->offset) { /* a helper's: divided here */
      kl_location start = b->function->location;
      e->count = kb_declare(b, kl_format(b->ctx, "__agpu_count%d_%d", p->index, stride), ulong_type,
                            kb_binary(b, KL_OP_DIV, kb_extent_node(b, root, start),
                                      kb_int_node(b, ulong_type, stride, start), ulong_type));
    } else {
      host_count(b, p, e);
    }
  }
  if (e->narrow) *narrow = kb_variable_node(b, e->narrow, at);
  return kb_variable_node(b, e->count, at);
}

static int element_bytes(const kl_type *t) {
  while (t->kind == KL_TYPE_ARRAY || t->kind == KL_TYPE_POINTER) t = t->element;
  return t->size > 0 ? t->size : 1;
}

static int new_root(bounds *b, kl_variable *v, int param_index) {
  kl_check_root *r = kl_alloc(b->ctx, sizeof *r);
  r->id = b->program->check_root_count++;
  r->kernel = b->function->name;
  r->name = v->name;
  r->param_index = param_index;
  r->extent = param_index < 0 ? (unsigned long long)v->type->size : 0;
  r->element_bytes = element_bytes(v->type);
  if (b->roots_tail)
    b->roots_tail->next = r;
  else
    b->program->check_roots = r;
  b->roots_tail = r;
  return r->id;
}

/* The root's id: a constant in a kernel, a hidden parameter in a helper
 * (-1 for the site: the record says which). */
int kb_static_root_id(bounds *b, kl_variable *root) {
  param_root *p = kb_param_root_of(b, root);
  if (p) {
    if (p->root_id) return -1;
    if (p->root < 0) p->root = new_root(b, root, p->index);
    return p->root;
  }
  for (int i = 0; i < b->array_count; i++)
    if (b->arrays[i].array == root) return b->arrays[i].root;
  b->arrays = kb_grow(b, b->arrays, b->array_count, &b->array_capacity, sizeof *b->arrays);
  int id = new_root(b, root, -1);
  b->arrays[b->array_count++] = (array_root){root, id};
  return id;
}

kl_node *kb_root_id_node(bounds *b, kl_variable *root, kl_location at) {
  param_root *p = kb_param_root_of(b, root);
  if (p && p->root_id) return kb_variable_node(b, p->root_id, at);
  return kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_UINT), kb_static_root_id(b, root), at);
}

/* The root parameter's value at the kernel's start. */
static kl_node *base_node(bounds *b, param_root *p, kl_location at) {
  if (!p->assigned) return kb_variable_node(b, p->param, at);
  if (!p->base)
    p->base = kb_declare(b, kl_format(b->ctx, "__agpu_base%d", p->index), p->param->type,
                         kb_variable_node(b, p->param, b->function->location));
  return kb_variable_node(b, p->base, at);
}

/* ---------------------------------------------------------- places */

kl_node *kb_add_bytes(bounds *b, kl_node *byte, kl_node *more) {
  if (!more) return byte;
  if (!byte) return kb_convert(b, more, kb_type_long(b));
  return kb_binary(b, KL_OP_ADD, byte, more, kb_type_long(b));
}

kl_node *kb_scaled(bounds *b, const kl_node *index, int size) {
  kl_node *i = kb_convert(b, kb_copy_tree(b, index), kb_type_long(b));
  if (size == 1) return i;
  return kb_binary(b, KL_OP_MUL, i, kb_int_node(b, kb_type_long(b), size, index->location),
                   kb_type_long(b));
}

/* An lvalue's place in memory. */
bool kb_lvalue_place(bounds *b, const kl_node *n, place *out) {
  switch (n->kind) {
    case KL_EXPR_VARIABLE:
      if (!kb_is_local_array(n->variable)) return false;
      *out = (place){n->variable, NULL, NULL, 0};
      return true;
    case KL_EXPR_INDEX: {
      place base;
      bool found = kb_is_pointer(n->lhs->type) ? kb_pointer_place(b, n->lhs, &base)
                                               : kb_lvalue_place(b, n->lhs, &base);
      if (!found || !kb_pure(b, n->rhs)) return false;
      *out = (place){base.root, kb_add_bytes(b, base.byte, kb_scaled(b, n->rhs, n->type->size)),
                     NULL, 0};
      if (!base.byte && n->type->size > 0) { /* root[i]: the cheap check */
        out->index = n->rhs;
        out->stride = n->type->size;
      }
      return true;
    }
    case KL_EXPR_MEMBER: {
      place base;
      bool found =
          n->is_arrow ? kb_pointer_place(b, n->lhs, &base) : kb_lvalue_place(b, n->lhs, &base);
      if (!found) return false;
      int offset = n->member ? n->member->offset : 0;
      *out = (place){
          base.root,
          offset ? kb_add_bytes(b, base.byte, kb_int_node(b, kb_type_long(b), offset, n->location))
                 : base.byte,
          NULL, 0};
      return true;
    }
    case KL_EXPR_SWIZZLE: /* checked as the whole vector */
      return kb_lvalue_place(b, n->lhs, out);
    case KL_EXPR_UNARY:
      return n->op == KL_OP_DEREFERENCE && kb_pointer_place(b, n->lhs, out);
    default:
      return false;
  }
}

/* A pointer value's place: where it points. */
bool kb_pointer_place(bounds *b, const kl_node *n, place *out) {
  if (!kb_pure(b, n)) return false;
  switch (n->kind) {
    case KL_EXPR_VARIABLE: {
      kl_variable *v = n->variable;
      param_root *p = kb_param_root_of(b, v);
      if (p) {
        /* a helper's parameter starts where its caller's pointer was */
        kl_node *start = p->offset ? kb_variable_node(b, p->offset, n->location) : NULL;
        if (!p->assigned) {
          *out = (place){v, start, NULL, 0};
          return true;
        }
        /* (p - p at entry) elements */
        kl_node *d =
            kb_new_node(b, KL_EXPR_BINARY, n->location, kl_type_scalar(b->ctx, KL_TYPE_PTRDIFF_T));
        d->op = KL_OP_SUB;
        d->lhs = kb_variable_node(b, v, n->location);
        d->rhs = base_node(b, p, n->location);
        *out = (place){v, kb_add_bytes(b, start, kb_scaled(b, d, v->type->element->size)), NULL, 0};
        return true;
      }
      if (kb_is_local_array(v)) {
        *out = (place){v, NULL, NULL, 0};
        return true;
      }
      pointer_root *r = pointer_root_of(b, v);
      if (!r || r->state != ROOT_ONE) return false;
      kl_variable *root = r->root;
      if (kb_is_local_array(root)) return false; /* a pointer into a __local array: not yet */
      param_root *rp = kb_param_root_of(b, root);
      /* (v - root at entry) in the root's elements: v as a pointer of the
       * root's type where the pointer was cast (a float4 view of floats) */
      kl_node *pointer = kb_variable_node(b, v, n->location);
      if (!kl_type_equal(v->type->element, root->type->element)) {
        kl_node *cast = kb_new_node(b, KL_EXPR_CAST, n->location, root->type);
        cast->lhs = pointer;
        pointer = cast;
      }
      kl_node *d =
          kb_new_node(b, KL_EXPR_BINARY, n->location, kl_type_scalar(b->ctx, KL_TYPE_PTRDIFF_T));
      d->op = KL_OP_SUB;
      d->lhs = pointer;
      d->rhs = base_node(b, rp, n->location);
      kl_node *start = rp->offset ? kb_variable_node(b, rp->offset, n->location) : NULL;
      *out = (place){root, kb_add_bytes(b, start, kb_scaled(b, d, root->type->element->size)), NULL,
                     0};
      return true;
    }
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
      if (n->lhs->type->kind == KL_TYPE_ARRAY) return kb_lvalue_place(b, n->lhs, out);
      return kb_is_pointer(n->lhs->type) && kb_pointer_place(b, n->lhs, out);
    case KL_EXPR_BINARY: {
      if (n->op != KL_OP_ADD && n->op != KL_OP_SUB) return false;
      bool left = kb_is_pointer(n->lhs->type);
      const kl_node *pointer = left ? n->lhs : n->rhs, *offset = left ? n->rhs : n->lhs;
      place base;
      if (!kb_pointer_place(b, pointer, &base)) return false;
      kl_node *bytes = kb_scaled(b, offset, n->type->element->size);
      if (n->op == KL_OP_SUB) {
        kl_node *negated = kb_new_node(b, KL_EXPR_UNARY, n->location, kb_type_long(b));
        negated->op = KL_OP_NEGATE;
        negated->lhs = bytes;
        bytes = negated;
      }
      *out = (place){base.root, kb_add_bytes(b, base.byte, bytes), NULL, 0};
      return true;
    }
    case KL_EXPR_UNARY:
      return n->op == KL_OP_ADDRESS_OF && kb_lvalue_place(b, n->lhs, out);
    case KL_EXPR_INDEX:
    case KL_EXPR_MEMBER:
      return n->type->kind == KL_TYPE_ARRAY && kb_lvalue_place(b, n, out);
    default:
      return false;
  }
}
