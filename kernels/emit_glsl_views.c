// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: pointer casts between element types on __global and
 * __constant buffers.
 *
 * GLSL has no pointer casts, but several storage blocks may name one
 * binding. A cast pointer's root is a view of its buffer: a block at the
 * same binding (or, for a buffer reached by address, a buffer reference to
 * the same address) whose array has the new element type; its offset is
 * converted to elements of that type. SPIR-V lets a compiler assume that
 * blocks do not overlap unless they are decorated Aliased, so every block of
 * a buffer with views is (GL_EXT_spirv_intrinsics), and none is restrict.
 * A view of bytes (`uchar *`) needs 8-bit storage, as any buffer of bytes.
 *
 * Private and shared arrays cannot alias in GLSL. A private integer array
 * read as wider integers is a read-only view that packs its elements where
 * it is read (private_view); a __local array of arrays used only through
 * pointers from its start is declared flat (glsl_flat_local); other casts
 * of pointers into them are refused, naming the pointer.
 */
#include <string.h>

#include "emit_glsl_internal.h"

/* Bytes of an element; a `void *` between two casts counts bytes. */
static int element_bytes(const kl_type *t) {
  return t->kind == KL_TYPE_VOID ? 1 : t->size;
}

/* The GLSL name of an element type ("void" for void). */
static const char *element_name(glsl_emitter *e, const kl_type *t, kl_location at) {
  return t->kind == KL_TYPE_VOID ? "void" : glsl_type(e, t, at);
}

/* A pointer expression's variable, for diagnostics. */
static const char *pointer_name(const kl_node *n) {
  while (n && n->kind != KL_EXPR_VARIABLE) {
    if (n->kind == KL_EXPR_BINARY)
      n = klg_is_pointer(n->lhs->type) || n->lhs->type->kind == KL_TYPE_ARRAY ? n->lhs : n->rhs;
    else if (n->kind == KL_EXPR_CONDITIONAL)
      n = n->then;
    else if (n->kind == KL_EXPR_CONVERT || n->kind == KL_EXPR_CAST || n->kind == KL_EXPR_UNARY ||
             n->kind == KL_EXPR_ASSIGN || n->kind == KL_EXPR_INDEX || n->kind == KL_EXPR_COMMA)
      n = n->kind == KL_EXPR_COMMA ? n->rhs : n->lhs;
    else
      return "this pointer";
  }
  return n ? n->variable->name : "this pointer";
}

/* An element type a view can have: OpenCL's size is the std430 stride. */
static bool viewable(glsl_emitter *e, const kl_type *el, const char *name, kl_location at) {
  if (el->kind == KL_TYPE_VOID) return true;
  if (el->kind == KL_TYPE_STRUCT) {
    glsl_check_shared_struct(e, el, at);
    return !e->failed;
  }
  int size, align;
  glsl_std430(el, &size, &align);
  if (el->size == (size + align - 1) / align * align) return true;
  glsl_fail(e, at,
            kl_format(e->ctx, "reading the buffer of '%s' as elements of type %s", name,
                      kl_type_name(e->ctx, el)));
  return false;
}

/* A private integer array read as wider integers (`(uint *)key` of a
 * `uchar key[8]`, as SHOC's md5 passes it): a view whose array is an array
 * constructor packing the elements little-endian, written where it is read
 * (so it is always current) and passed by copy (`in`); writes through it
 * are refused (glsl_element). NULL for other casts. */
static glsl_root *private_view(glsl_emitter *e, glsl_root *base, const kl_type *el,
                               kl_location at) {
  const kl_type *array = base->var->type, *from = array->element;
  if (base->scalar || array->kind != KL_TYPE_ARRAY || !kl_type_is_integer(from) ||
      !kl_type_is_integer(el) || el->size <= from->size || el->size > 4 || array->size % el->size ||
      array->size / el->size > KL_GLSL_INLINE_ELEMENTS)
    return NULL;
  const char *type = glsl_type(e, el, at);
  for (glsl_root *v = base->views; v; v = v->next_view)
    if (strcmp(type, glsl_type(e, v->element, at)) == 0) return v;
  int count = array->size / el->size, per = el->size / from->size;
  const char *bits = glsl_type(e, glsl_unsigned_of(e, from), at);
  klg_buf pack;
  klg_init(&pack, e->ctx);
  klg_printf(&pack, "%s[%d](", type, count);
  for (int j = 0; j < count; j++) {
    klg_printf(&pack, "%s%s(", j ? ", " : "", type);
    for (int k = 0; k < per; k++)
      klg_printf(&pack, "%s(uint(%s(%s[%d])) << %du)", k ? " | " : "", bits, base->array,
                 j * per + k, 8 * from->size * k);
    klg_puts(&pack, ")");
  }
  klg_puts(&pack, ")");
  kl_type *packed = kl_alloc(e->ctx, sizeof *packed);
  *packed = *array;
  packed->element = (kl_type *)el;
  packed->length = count;
  kl_variable *var = kl_alloc(e->ctx, sizeof *var);
  *var = *base->var;
  var->type = packed;
  glsl_root *v = glsl_new_root(e, ROOT_PRIVATE, var, klg_text(&pack));
  v->element = el;
  v->base = base;
  v->packed = true;
  v->next_view = base->views;
  base->views = v;
  return v;
}

/* The root that reads root's buffer as elements of `el`: its base when the
 * types agree in GLSL, else the view with that element type (made on first
 * use); NULL after a diagnostic when root is not a buffer. */
static glsl_root *view_of(glsl_emitter *e, glsl_root *root, const kl_type *el, const char *name,
                          kl_location at) {
  if (root->kind == ROOT_PRIVATE) {
    glsl_root *base = root->base ? root->base : root;
    if (!base->scalar && base->var->type->kind == KL_TYPE_ARRAY &&
        strcmp(element_name(e, el, at), glsl_type(e, base->var->type->element, at)) == 0)
      return base;
    glsl_root *v = private_view(e, base, el, at);
    if (v) return v;
  }
  if (root->kind == ROOT_SHARED) {
    glsl_root *w = glsl_shared_word_view(e, root, el);
    if (w) return w;
  }
  if (root->kind != ROOT_BUFFER) {
    const char *space = root->kind == ROOT_SHARED     ? "__local"
                        : root->kind == ROOT_CONSTANT ? "program-scope __constant"
                                                      : "private";
    glsl_fail(e, at,
              kl_format(e->ctx,
                        "casting '%s', a pointer into %s memory, to a pointer to another element "
                        "type (pointer casts work on __global and __constant buffers, and "
                        "private integer arrays read as wider integers)",
                        name, space));
    return NULL;
  }
  glsl_root *base = root->base ? root->base : root;
  const char *type = element_name(e, el, at);
  if (strcmp(type, element_name(e, base->element, at)) == 0) return base;
  for (glsl_root *v = base->views; v; v = v->next_view)
    if (strcmp(type, element_name(e, v->element, at)) == 0) return v;
  if (!viewable(e, el, name, at)) return NULL;
  char *suffix = kl_format(e->ctx, "%s", type);
  for (char *c = suffix; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
      *c = '_';
  glsl_root *v =
      glsl_new_root(e, ROOT_BUFFER, base->var, kl_format(e->ctx, "%s_%s", base->array, suffix));
  v->buffer = base->buffer;
  v->element = el;
  v->base = base;
  v->next_view = base->views;
  base->views = v;
  if (el->kind != KL_TYPE_VOID) e->aliased = true;
  return v;
}

/* A walk of a function's tree (walk_finds): what to do at a node. */
typedef enum walk_step { WALK_INTO, WALK_FOUND, WALK_SKIP } walk_step;

/* Whether step finds a node under n (n's list included) for variable v. */
static bool walk_finds(const kl_node *n, const kl_variable *v,
                       walk_step (*step)(const kl_node *, const kl_variable *)) {
  for (; n; n = n->next) {
    walk_step at = step(n, v);
    if (at == WALK_FOUND) return true;
    if (at == WALK_SKIP) continue;
    const kl_node *kids[] = {n->lhs,  n->rhs,       n->condition, n->then, n->otherwise,
                             n->init, n->increment, n->body,      n->args};
    for (size_t k = 0; k < sizeof kids / sizeof kids[0]; k++)
      if (walk_finds(kids[k], v, step)) return true;
    if (n->kind == KL_STMT_DECLARATION && n->variable &&
        walk_finds(n->variable->initializer, v, step))
      return true;
  }
  return false;
}

/* An assignment or increment of v. */
static walk_step write_of(const kl_node *n, const kl_variable *v) {
  bool writes = n->kind == KL_EXPR_ASSIGN ||
                (n->kind == KL_EXPR_UNARY &&
                 (n->op == KL_OP_PRE_INCREMENT || n->op == KL_OP_PRE_DECREMENT ||
                  n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT));
  return writes && n->lhs->kind == KL_EXPR_VARIABLE && n->lhs->variable == v ? WALK_FOUND
                                                                             : WALK_INTO;
}

/* Whether integer expression n is a multiple of k in every work-item: a
 * literal multiple, a product with one, a sum or difference of two. */
static bool multiple_of(const kl_node *n, int64_t k) {
  n = klg_strip_convert(n);
  if (n->kind == KL_EXPR_INT_LITERAL) return (int64_t)n->int_value % k == 0;
  if (n->kind != KL_EXPR_BINARY) return false;
  if (n->op == KL_OP_MUL) return multiple_of(n->lhs, k) || multiple_of(n->rhs, k);
  if (n->op == KL_OP_ADD || n->op == KL_OP_SUB)
    return multiple_of(n->lhs, k) && multiple_of(n->rhs, k);
  return false;
}

/* Whether pointer p's offset is a multiple of k elements where the shader
 * is written: a kernel's buffer parameter never assigned (offset 0), moved
 * by multiples of k. */
static bool whole_offset(glsl_emitter *e, const kl_node *p, int64_t k) {
  while ((p->kind == KL_EXPR_CONVERT || p->kind == KL_EXPR_CAST) && klg_is_pointer(p->lhs->type) &&
         p->lhs->type->element->size == p->type->element->size)
    p = p->lhs;
  if (p->kind == KL_EXPR_BINARY && (p->op == KL_OP_ADD || p->op == KL_OP_SUB)) {
    bool left = klg_is_pointer(p->lhs->type);
    return whole_offset(e, left ? p->lhs : p->rhs, k) && multiple_of(left ? p->rhs : p->lhs, k);
  }
  if (p->kind != KL_EXPR_VARIABLE || !p->variable->is_parameter || p->variable->address_taken ||
      !e->kernel)
    return false; /* a helper's parameter is none of the kernel's */
  for (const kl_variable *q = e->kernel->params; q; q = q->next)
    if (q == p->variable) return !walk_finds(e->kernel->body, q, write_of);
  return false;
}

/* (T *)p between element types: p's root seen as T, p's offset in T. An
 * offset that is not a whole number of T is rounded down: such a pointer is
 * misaligned for T, which OpenCL C leaves undefined. A struct whose
 * alignment is less than its size could sit between elements: refused
 * unless the offset is whole where the shader is written. */
glsl_root *glsl_cast_view(glsl_emitter *e, const kl_node *n) {
  const kl_type *from = n->lhs->type->element, *to = n->type->element;
  const char *name = pointer_name(n->lhs);
  glsl_root *r;
  const char *offset = glsl_pointer_text(e, n->lhs, &r);
  if (!r) return NULL;
  glsl_root *v = view_of(e, r, to, name, n->location);
  if (!v) return NULL;
  int a = element_bytes(from), b = element_bytes(to);
  klg_buf *o = e->out;
  if (a == b) {
    klg_puts(o, offset);
  } else if (a % b == 0) {
    klg_printf(o, "(%s * %du)", offset, a / b);
  } else if (to->kind == KL_TYPE_STRUCT && to->align < b &&
             !(b % a == 0 && whole_offset(e, n->lhs, b / a))) {
    glsl_fail(e, n->location,
              kl_format(e->ctx,
                        "casting '%s' to a pointer to %s, whose size (%d bytes) is more than its "
                        "alignment (%d): the offset may not be a whole number of elements",
                        name, kl_type_name(e->ctx, to), b, to->align));
    return NULL;
  } else if (b % a == 0) {
    klg_printf(o, "(%s / %du)", offset, b / a);
  } else {
    klg_printf(o, "(%s * %du / %du)", offset, a, b);
  }
  return v;
}

/* The blocks of base's views (none of void), after base's own, with its
 * qualifiers. */
void glsl_view_declarations(glsl_emitter *e, const glsl_root *base, const char *qualifiers,
                            klg_buf *buffers, klg_buf *references) {
  const kl_glsl_param *lp = &e->params[base->buffer];
  for (const glsl_root *v = base->views; v; v = v->next_view) {
    if (v->element->kind == KL_TYPE_VOID) continue;
    const char *element = glsl_type(e, v->element, v->var->location);
    const char *suffix = v->array + strlen(base->array) + 1;
    if (lp->by_address) {
      klg_printf(references,
                 "layout(buffer_reference, std430, buffer_reference_align = 16) %sbuffer "
                 "_cl_Ref%u_%s { %s _cl_data[]; };\n",
                 qualifiers, lp->binding, suffix, element);
      klg_printf(buffers, "#define %s _cl_Ref%u_%s(_cl_p._cl_addr%u)._cl_data\n", v->array,
                 lp->binding, suffix, lp->binding);
      continue;
    }
    klg_printf(buffers,
               "layout(std430, set = 0, binding = %u) spirv_decorate(20) %sbuffer "
               "_cl_Buffer%u_%s { %s %s[]; };\n",
               lp->binding, qualifiers, lp->binding, suffix, element, v->array);
  }
}

/* ------------------------------------ __local arrays of arrays, flat */

/* The innermost element of an array of arrays. */
static const kl_type *innermost(const kl_type *t) {
  while (t->kind == KL_TYPE_ARRAY) t = t->element;
  return t;
}

/* The array of arrays whose start n is, through conversions, casts and
 * `&v[0][0]`; NULL for anything else. */
static const kl_variable *flat_start(const kl_node *n) {
  bool address = false;
  for (;;) {
    if (n->kind == KL_EXPR_CONVERT || n->kind == KL_EXPR_CAST) {
      n = n->lhs;
    } else if (n->kind == KL_EXPR_UNARY && n->op == KL_OP_ADDRESS_OF && !address) {
      address = true;
      n = n->lhs;
    } else if (n->kind == KL_EXPR_INDEX && address &&
               klg_strip_convert(n->rhs)->kind == KL_EXPR_INT_LITERAL &&
               klg_strip_convert(n->rhs)->int_value == 0) {
      n = n->lhs;
    } else {
      break;
    }
  }
  return n->kind == KL_EXPR_VARIABLE && n->variable->type->kind == KL_TYPE_ARRAY ? n->variable
                                                                                 : NULL;
}

/* n is a pointer to the innermost element of v made from v's start:
 * `(T *)v`, `&v[0][0]`. */
static bool flat_cast_of(const kl_node *n, const kl_variable *v) {
  return klg_is_pointer(n->type) && (n->kind != KL_EXPR_VARIABLE) && flat_start(n) == v &&
         kl_type_equal(n->type->element, innermost(v->type));
}

/* A use of v other than a flat cast. */
static walk_step other_use(const kl_node *n, const kl_variable *v) {
  if (flat_cast_of(n, v)) return WALK_SKIP;
  return n->kind == KL_EXPR_VARIABLE && n->variable == v ? WALK_FOUND : WALK_INTO;
}

/* A __local array of arrays that the kernel uses only through casts to a
 * pointer to its innermost element (`(__local uint *)sub_histo` of
 * `__local uint sub_histo[KB][256]`): declared as one flat array, whose
 * root those pointers index; NULL for any other variable. */
const char *glsl_flat_local(glsl_emitter *e, const kl_variable *v, const char *name) {
  if (v->type->kind != KL_TYPE_ARRAY || v->type->element->kind != KL_TYPE_ARRAY || !e->kernel ||
      walk_finds(e->kernel->body, v, other_use))
    return NULL;
  kl_type *flat = kl_alloc(e->ctx, sizeof *flat);
  *flat = *v->type;
  flat->element = (kl_type *)innermost(v->type);
  flat->length = v->type->size / (flat->element->size ? flat->element->size : 1);
  glsl_root *r = glsl_new_root(e, ROOT_SHARED, v, name);
  r->flat = true;
  glsl_bind(e, v, name, r);
  return glsl_decl(e, flat, name, v->location);
}

/* `(T *)v` or `&v[0][0]` of a flat __local array of arrays: its root,
 * offset 0; NULL when n is not one. */
glsl_root *glsl_flat_cast(glsl_emitter *e, const kl_node *n) {
  const kl_variable *v = flat_start(n);
  if (!v || !flat_cast_of(n, v)) return NULL;
  glsl_binding *b = glsl_lookup(e, v);
  if (!b || !b->root || !b->root->flat) return NULL;
  klg_puts(e->out, "0u");
  return b->root;
}
