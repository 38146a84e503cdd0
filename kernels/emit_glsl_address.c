// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: pointers stored in structs, as buffer device addresses
 * (GL_EXT_buffer_reference). A pointer member is a `uint64_t` (8 bytes,
 * 8-aligned, as in OpenCL C). A kernel that reads or writes one (or calls
 * a function that does) reaches every buffer parameter by address, so that
 * a pointer into a buffer can become its address: the buffer's address plus
 * the offset times the element's size. A pointer expression that comes
 * from a member (`s.p`, `n->next`, `s.p + i`, a cast of one) and a private
 * pointer variable assigned one (`n = n->next`) are addresses; an access
 * through one is a buffer reference to that element's type at that
 * address, `_cl_at_float(a).v`. Pointers into __local or private memory
 * have no address: storing one in a struct is refused. */
#include <string.h>

#include "emit_glsl_internal.h"

enum { MAX_DEPTH = 400 };

/* --------------------------------------------------- which kernels */

static bool has_pointer_member(const kl_node *n, int depth) {
  if (!n || depth > MAX_DEPTH) return false;
  if (n->kind == KL_EXPR_MEMBER && klg_is_pointer(n->type)) return true;
  if (n->kind == KL_STMT_DECLARATION && n->variable &&
      has_pointer_member(n->variable->initializer, depth + 1))
    return true;
  const kl_node *children[] = {n->lhs,       n->rhs,  n->condition, n->then,
                               n->otherwise, n->init, n->increment, n->body};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    if (has_pointer_member(children[i], depth + 1)) return true;
  for (const kl_node *a = n->args; a; a = a->next)
    if (has_pointer_member(a, depth + 1)) return true;
  if (n->kind == KL_STMT_COMPOUND || n->kind == KL_STMT_SWITCH)
    for (const kl_node *c = n->body; c; c = c->next)
      if (c != n->body && has_pointer_member(c, depth + 1)) return true;
  return false;
}

static bool function_uses(const kl_function *f, int depth) {
  if (!f || depth > 32) return false;
  if (has_pointer_member(f->body, 0)) return true;
  for (int i = 0; i < f->callee_count; i++)
    if (function_uses(f->callees[i], depth + 1)) return true;
  return false;
}

bool glsl_kernel_uses_addresses(const kl_function *kernel) {
  return function_uses(kernel, 0);
}

/* ------------------------------------------- which expressions */

static bool global_pointer(const kl_type *t) {
  return klg_is_pointer(t) &&
         (t->pointee_space == KL_SPACE_GLOBAL || t->pointee_space == KL_SPACE_CONSTANT);
}

static bool assigned_anywhere(const kl_variable *v, const kl_function *f, int hops);

/* n's value comes from a pointer member, from its syntax alone (before
 * the variables it names are declared): a member, or a private pointer
 * variable assigned one (`p = nx` after `nx = p->next`), within a few hops. */
static bool from_member(const kl_function *k, const kl_node *n, int hops, int depth) {
  if (!n || depth > 32) return false;
  switch (n->kind) {
    case KL_EXPR_MEMBER:
      return klg_is_pointer(n->type);
    case KL_EXPR_VARIABLE:
      return hops < 4 && !n->variable->is_parameter && n->variable->space == KL_SPACE_PRIVATE &&
             global_pointer(n->variable->type) && assigned_anywhere(n->variable, k, hops + 1);
    case KL_EXPR_BINARY:
      return (n->op == KL_OP_ADD || n->op == KL_OP_SUB) && klg_is_pointer(n->type) &&
             from_member(k, klg_is_pointer(n->lhs->type) ? n->lhs : n->rhs, hops, depth + 1);
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      return klg_is_pointer(n->lhs->type) && from_member(k, n->lhs, hops, depth + 1);
    case KL_EXPR_CONDITIONAL:
      return from_member(k, n->then, hops, depth + 1) ||
             from_member(k, n->otherwise, hops, depth + 1);
    case KL_EXPR_ASSIGN:
    case KL_EXPR_COMMA:
      return from_member(k, n->rhs, hops, depth + 1);
    default:
      return false;
  }
}

typedef struct assigned_scan {
  const kl_variable *v;
  const kl_function *kernel;
  int hops;
} assigned_scan;

static bool assigned_from_member(const assigned_scan *s, const kl_node *n, int depth) {
  if (!n || depth > MAX_DEPTH) return false;
  if (n->kind == KL_STMT_DECLARATION && n->variable == s->v &&
      from_member(s->kernel, s->v->initializer, s->hops, 0))
    return true;
  if (n->kind == KL_EXPR_ASSIGN && n->op == KL_OP_NONE && n->lhs->kind == KL_EXPR_VARIABLE &&
      n->lhs->variable == s->v && from_member(s->kernel, n->rhs, s->hops, 0))
    return true;
  const kl_node *children[] = {n->lhs,       n->rhs,  n->condition, n->then,
                               n->otherwise, n->init, n->increment, n->body};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    if (assigned_from_member(s, children[i], depth + 1)) return true;
  for (const kl_node *a = n->args; a; a = a->next)
    if (assigned_from_member(s, a, depth + 1)) return true;
  if (n->kind == KL_STMT_COMPOUND || n->kind == KL_STMT_SWITCH)
    for (const kl_node *c = n->body; c; c = c->next)
      if (c != n->body && assigned_from_member(s, c, depth + 1)) return true;
  return false;
}

static bool assigned_in(const assigned_scan *s, const kl_function *f, int depth) {
  if (!f || depth > 32) return false;
  if (assigned_from_member(s, f->body, 0)) return true;
  for (int i = 0; i < f->callee_count; i++)
    if (assigned_in(s, f->callees[i], depth + 1)) return true;
  return false;
}

/* v is assigned (or initialised with) a pointer from a member somewhere in
 * the kernel or the functions it calls */
static bool assigned_anywhere(const kl_variable *v, const kl_function *kernel, int hops) {
  assigned_scan s = {v, kernel, hops};
  return assigned_in(&s, kernel, 0);
}

bool glsl_is_address(glsl_emitter *e, const kl_node *n) {
  if (!e->addresses || !n || !klg_is_pointer(n->type)) return false;
  switch (n->kind) {
    case KL_EXPR_MEMBER:
      return true;
    case KL_EXPR_VARIABLE: {
      glsl_binding *b = glsl_lookup(e, n->variable);
      return b && b->root && b->root->kind == ROOT_ADDRESS;
    }
    case KL_EXPR_BINARY:
      return (n->op == KL_OP_ADD || n->op == KL_OP_SUB) &&
             glsl_is_address(e, klg_is_pointer(n->lhs->type) ? n->lhs : n->rhs);
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      return glsl_is_address(e, n->lhs);
    case KL_EXPR_CONDITIONAL:
      return glsl_is_address(e, n->then) || glsl_is_address(e, n->otherwise);
    case KL_EXPR_ASSIGN:
      return glsl_is_address(e, n->lhs);
    case KL_EXPR_COMMA:
      return glsl_is_address(e, n->rhs);
    case KL_EXPR_UNARY:
      if (n->op == KL_OP_ADDRESS_OF && n->lhs->kind == KL_EXPR_INDEX)
        return glsl_is_address(e, n->lhs->lhs);
      if (n->op == KL_OP_ADDRESS_OF && n->lhs->kind == KL_EXPR_UNARY &&
          n->lhs->op == KL_OP_DEREFERENCE)
        return glsl_is_address(e, n->lhs->lhs);
      return n->op != KL_OP_ADDRESS_OF && n->op != KL_OP_DEREFERENCE && glsl_is_address(e, n->lhs);
    default:
      return false;
  }
}

/* ------------------------------------------------------ the text */

static glsl_root *address_root(glsl_emitter *e, const kl_type *element) {
  for (glsl_root *r = e->address_roots; r; r = r->next_view)
    if (kl_type_equal(r->element, element)) return r;
  glsl_root *r = glsl_new_root(e, ROOT_ADDRESS, NULL, "_cl_address");
  r->element = element;
  r->next_view = e->address_roots;
  e->address_roots = r;
  return r;
}

static int element_size(const kl_type *pointer) {
  const kl_type *t = pointer->element;
  return t->kind == KL_TYPE_VOID || t->size <= 0 ? 1 : t->size;
}

/* `base + i` elements of the pointer's type, as bytes */
static void moved(glsl_emitter *e, const char *base, const char *op, const kl_node *i,
                  const kl_type *pointer) {
  klg_printf(e->out, "(%s %s uint64_t(int64_t(%s) * %dl))", base, op, glsl_text_of(e, i),
             element_size(pointer));
}

static const char *address_text(glsl_emitter *e, const kl_node *n) {
  glsl_capture capture;
  glsl_capture_begin(e, &capture);
  glsl_address_pointer(e, n);
  return glsl_capture_end(e, &capture);
}

/* where an address is stored: a pointer member or an address variable */
static void address_lvalue(glsl_emitter *e, const kl_node *l) {
  if (l->kind == KL_EXPR_MEMBER) {
    glsl_member_base(e, l, ACCESS_WRITE);
    klg_printf(e->out, ".%s", glsl_name(e, l->member->name));
  } else {
    glsl_binding *b = glsl_lookup(e, l->variable);
    klg_puts(e->out, b ? b->name : "_cl_unknown");
  }
}

static void address_assign(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  klg_puts(o, "(");
  address_lvalue(e, n->lhs);
  if (n->op == KL_OP_NONE) {
    klg_printf(o, " = %s)", glsl_to_address(e, n->rhs));
    return;
  }
  klg_printf(o, " %s= uint64_t(int64_t(%s) * %dl))", n->op == KL_OP_ADD ? "+" : "-",
             glsl_text_of(e, n->rhs), element_size(n->lhs->type));
}

static void address_unary(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  if (n->op == KL_OP_ADDRESS_OF && n->lhs->kind == KL_EXPR_INDEX) {
    moved(e, address_text(e, n->lhs->lhs), "+", n->lhs->rhs, n->lhs->lhs->type);
    return;
  }
  if (n->op == KL_OP_ADDRESS_OF) { /* &*p */
    glsl_address_pointer(e, n->lhs->lhs);
    return;
  }
  bool up = n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_PRE_INCREMENT;
  bool post = n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT;
  if (!up && !post && n->op != KL_OP_PRE_DECREMENT) {
    glsl_fail(e, n->location, "this operator on a pointer loaded from a struct");
    return;
  }
  int size = element_size(n->type);
  klg_puts(o, post ? "((" : "(");
  address_lvalue(e, n->lhs);
  klg_printf(o, " %s= %dul)", up ? "+" : "-", size);
  if (post) klg_printf(o, " %s %dul)", up ? "-" : "+", size);
}

glsl_root *glsl_address_pointer(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  switch (n->kind) {
    case KL_EXPR_MEMBER:
      klg_puts(o, "(");
      glsl_member_base(e, n, ACCESS_READ);
      klg_printf(o, ".%s)", glsl_name(e, n->member->name));
      break;
    case KL_EXPR_VARIABLE:
      klg_puts(o, glsl_lookup(e, n->variable)->name);
      break;
    case KL_EXPR_BINARY: {
      bool left = klg_is_pointer(n->lhs->type);
      const kl_node *p = left ? n->lhs : n->rhs;
      moved(e, address_text(e, p), n->op == KL_OP_ADD ? "+" : "-", left ? n->rhs : n->lhs, p->type);
      break;
    }
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      glsl_address_pointer(e, n->lhs);
      break;
    case KL_EXPR_CONDITIONAL: {
      const char *c = glsl_cond_text(e, n->condition);
      const char *a = glsl_to_address(e, n->then), *b = glsl_to_address(e, n->otherwise);
      klg_printf(o, "(%s ? %s : %s)", c, a, b);
      break;
    }
    case KL_EXPR_ASSIGN:
      address_assign(e, n);
      break;
    case KL_EXPR_COMMA:
      klg_puts(o, "(");
      glsl_expr(e, n->lhs);
      klg_printf(o, ", %s)", address_text(e, n->rhs));
      break;
    case KL_EXPR_UNARY:
      address_unary(e, n);
      break;
    default:
      glsl_fail(e, n->location, "this use of a pointer loaded from a struct");
      return NULL;
  }
  return address_root(e, n->type->element);
}

/* n as a byte address: an address already, or a pointer into a buffer
 * (reached by address in such a kernel) converted to one. */
const char *glsl_to_address(glsl_emitter *e, const kl_node *n) {
  if (glsl_is_address(e, n)) return address_text(e, n);
  glsl_root *r;
  const char *offset = glsl_pointer_text(e, n, &r);
  if (!r) return "uint64_t(0)";
  if (r->null) return "uint64_t(0)";
  const glsl_root *buffer = r->base ? r->base : r;
  if (r->kind != ROOT_BUFFER || r->choices || buffer->buffer < 0 ||
      !e->params[buffer->buffer].by_address) {
    glsl_fail(e, n->location,
              "storing a pointer into __local, private or program-scope memory in a struct "
              "(only pointers into __global and __constant buffers have addresses)");
    return "uint64_t(0)";
  }
  glsl_mark(r, ACCESS_READ_WRITE); /* it may be read and written through the address */
  const kl_type *element = r->element ? r->element : n->type->element;
  return kl_format(e->ctx, "(uint64_t(_cl_p._cl_addr%u) + uint64_t(%s) * %dul)",
                   e->params[buffer->buffer].binding, offset,
                   element->size > 0 ? element->size : 1);
}

/* A private pointer variable that is assigned a pointer from a member, or
 * initialised with an address: a uint64_t address. */
bool glsl_address_declaration(glsl_emitter *e, const kl_variable *v, const char *name) {
  if (!e->addresses || v->space != KL_SPACE_PRIVATE || !global_pointer(v->type) ||
      !(glsl_is_address(e, v->initializer) || assigned_anywhere(v, e->kernel, 0)))
    return false;
  glsl_bind(e, v, name, address_root(e, v->type->element));
  klg_printf(e->out, "uint64_t %s", name);
  if (v->initializer) klg_printf(e->out, " = %s", glsl_to_address(e, v->initializer));
  return true;
}

/* The buffer reference type of an element type, declared once. */
static const char *reference_type(glsl_emitter *e, const kl_type *element, kl_location at) {
  const char *glsl = glsl_type(e, element, at);
  char *name = (char *)kl_format(e->ctx, "_cl_at_%s", glsl);
  for (char *c = name; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
      *c = '_';
  const char *declared = kl_format(e->ctx, " %s {", name);
  const char *text = klg_text(&e->address_types);
  if (!text || !strstr(text, declared)) {
    int align = element->align > 0 ? element->align : 1;
    klg_printf(&e->address_types,
               "layout(buffer_reference, std430, buffer_reference_align = %d) buffer%s %s v; };\n",
               align, declared, glsl);
  }
  return name;
}

/* *(address + index) */
void glsl_address_element(glsl_emitter *e, const glsl_root *root, const char *address,
                          const kl_node *index, kl_location at) {
  const char *type = reference_type(e, root->element, at);
  if (!index) {
    klg_printf(e->out, "%s(%s).v", type, address);
    return;
  }
  klg_printf(e->out, "%s(%s + uint64_t(int64_t(%s) * %dl)).v", type, address,
             glsl_text_of(e, index), root->element->size > 0 ? root->element->size : 1);
}

/* `if (p)`, `p == q`, `p != NULL` where one side is an address */
bool glsl_address_cond(glsl_emitter *e, const kl_node *n) {
  if (!e->addresses) return false;
  if (klg_is_pointer(n->type) && glsl_is_address(e, n)) {
    klg_printf(e->out, "(%s != uint64_t(0))", address_text(e, n));
    return true;
  }
  if (n->kind != KL_EXPR_BINARY || !glsl_is_comparison(n->op) || !klg_is_pointer(n->lhs->type) ||
      !klg_is_pointer(n->rhs->type) || !(glsl_is_address(e, n->lhs) || glsl_is_address(e, n->rhs)))
    return false;
  const char *a = glsl_to_address(e, n->lhs), *b = glsl_to_address(e, n->rhs);
  klg_printf(e->out, "(%s %s %s)", a, kl_operator_text(n->op), b);
  return true;
}

/* `p - q` (elements) and `p < q` as values, where one side is an address */
bool glsl_address_difference(glsl_emitter *e, const kl_node *n) {
  if (!glsl_is_address(e, n->lhs) && !glsl_is_address(e, n->rhs)) return false;
  const char *a = glsl_to_address(e, n->lhs), *b = glsl_to_address(e, n->rhs);
  if (n->op == KL_OP_SUB)
    klg_printf(e->out, "%s(int64_t(%s - %s) / %dl)", glsl_type(e, n->type, n->location), a, b,
               element_size(n->lhs->type));
  else
    klg_printf(e->out, "int(%s %s %s)", a, kl_operator_text(n->op), b);
  return true;
}
