// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: reading __local memory through a pointer cast to
 * another 32-bit scalar type. GLSL's shared arrays cannot alias (shared
 * blocks that can, VK_KHR_workgroup_memory_explicit_layout, are missing on
 * lavapipe), so a cast of a pointer into a shared array of 32- or 64-bit
 * integers or floats to `float *`, `int *` or `uint *` (mcxcl's
 * `((__local float *)sharedmem)[i]` of a `__local ulong *`) reads the
 * array's words where it is read: word o of a 64-bit array is
 * `uint(a[o / 2u] >> ((o % 2u) * 32u))`, then bit-cast to the view's type.
 * Writes through such a view are refused, naming it. */
#include "emit_glsl_internal.h"

static bool word_scalar(const kl_type *t, bool wide) {
  switch (t->kind) {
    case KL_TYPE_INT:
    case KL_TYPE_UINT:
    case KL_TYPE_FLOAT:
      return true;
    case KL_TYPE_LONG:
    case KL_TYPE_ULONG:
      return wide;
    default:
      return false;
  }
}

/* The element type of a shared root's array (or __local parameter). */
static const kl_type *shared_element(const glsl_root *base) {
  const kl_type *t = base->var ? base->var->type : NULL;
  if (!t || (t->kind != KL_TYPE_ARRAY && t->kind != KL_TYPE_POINTER)) return NULL;
  t = t->element;
  return t->kind == KL_TYPE_ARRAY ? NULL : t;
}

glsl_root *glsl_shared_word_view(glsl_emitter *e, glsl_root *root, const kl_type *el) {
  glsl_root *base = root->base ? root->base : root;
  if (root->kind != ROOT_SHARED || base->flat || base->columns || base->scalar) return NULL;
  const kl_type *from = shared_element(base);
  if (!from || !word_scalar(from, true) || !word_scalar(el, false)) return NULL;
  for (glsl_root *v = base->views; v; v = v->next_view)
    if (kl_type_equal(v->element, el)) return v;
  glsl_root *v = glsl_new_root(e, ROOT_SHARED, base->var, base->array);
  v->element = el;
  v->base = base;
  v->words = from->size / 4;
  v->word_source = from;
  v->next_view = base->views;
  base->views = v;
  return v;
}

/* array[offset + index] of a word view, read */
void glsl_word_element(glsl_emitter *e, const glsl_root *root, const char *offset,
                       const kl_node *index, glsl_access mode, kl_location at) {
  if (mode != ACCESS_READ) {
    glsl_fail(e, at,
              kl_format(e->ctx,
                        "writing through a pointer into __local array '%s' cast to another "
                        "element type (such a view is read only: GLSL's shared arrays cannot "
                        "alias)",
                        root->var ? root->var->name : "?"));
    return;
  }
  glsl_mark((glsl_root *)root, ACCESS_READ);
  const char *o = index ? kl_format(e->ctx, "(%s + uint(%s))", offset, glsl_text_of(e, index))
                        : kl_format(e->ctx, "(%s)", offset);
  const char *word = root->words == 2
                         ? kl_format(e->ctx, "uint(uint64_t(%s[%s / 2u]) >> ((%s %% 2u) * 32u))",
                                     root->array, o, o)
                     : root->word_source->kind == KL_TYPE_FLOAT
                         ? kl_format(e->ctx, "floatBitsToUint(%s[%s])", root->array, o)
                         : kl_format(e->ctx, "uint(%s[%s])", root->array, o);
  const char *cast = root->element->kind == KL_TYPE_FLOAT ? "uintBitsToFloat"
                     : root->element->kind == KL_TYPE_INT ? "int"
                                                          : "";
  klg_printf(e->out, "%s(%s)", cast, word);
}
