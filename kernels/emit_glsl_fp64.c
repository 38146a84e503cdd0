// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: double-precision math builtins. GLSL (and SPIR-V's
 * GLSL.std.450) has exp, log, sin, pow ... for float only; the double
 * versions come from the GLSL source library of kernels/glsl_fp64_math.h.
 * A shader gets the library functions it calls (and what they use) once,
 * after its #extension lines; vectors are done per component by overloads
 * of the library's scalar functions. */
#include <string.h>

#include "emit_glsl_internal.h"
#include "glsl_fp64_math.h"

/* Records that the shader needs the library's version of `builtin`. */
static void use(glsl_emitter *e, const char *builtin) {
  e->caps |= KL_GLSL_NEEDS_FP64;
  if (!glsl_need(e, kl_format(e->ctx, "fp64-use:%s", builtin))) return;
  if (e->fp64_count == e->fp64_capacity) {
    int capacity = e->fp64_capacity ? 2 * e->fp64_capacity : 8;
    const char **names = kl_alloc(e->ctx, sizeof *names * (size_t)capacity);
    if (e->fp64_count) memcpy(names, e->fp64_names, sizeof *names * (size_t)e->fp64_count);
    e->fp64_names = names;
    e->fp64_capacity = capacity;
  }
  e->fp64_names[e->fp64_count++] = builtin;
}

static int vector_length(const kl_node *n) {
  if (klg_is_vector(n->type)) return n->type->length;
  for (const kl_node *a = n->args; a; a = a->next)
    if (klg_is_vector(a->type)) return a->type->length;
  return 0;
}

bool glsl_fp64_call(glsl_emitter *e, const kl_node *n) {
  const kl_builtin_rule rule = n->builtin->rule;
  if (rule == KL_RULE_FLOAT_PTR || rule == KL_RULE_FLOAT_INTPTR) return false;
  const char *name = kl_glsl_fp64_function(n->builtin->canonical);
  if (!name) return false;
  use(e, n->builtin->canonical);
  int length = vector_length(n);
  if (length) { /* per component, as an overload of the library's function */
    klg_buf params, key;
    klg_init(&params, e->ctx);
    klg_init(&key, e->ctx);
    int count = 0;
    for (const kl_node *a = n->args; a; a = a->next, count++) {
      const char *t = glsl_type(e, a->type, a->location);
      klg_printf(&params, "%s%s %c", count ? ", " : "", t, 'a' + count);
      klg_printf(&key, "/%s", t);
    }
    if (glsl_need(e, kl_format(e->ctx, "fp64:%s%s", name, klg_text(&key)))) {
      const char *rt = glsl_type(e, n->type, n->location);
      klg_printf(&e->helpers, "%s %s(%s) { %s r; for (int i = 0; i < %d; i++) r[i] = %s(", rt, name,
                 klg_text(&params), rt, length, name);
      for (int i = 0; i < count; i++) klg_printf(&e->helpers, "%s%c[i]", i ? ", " : "", 'a' + i);
      klg_puts(&e->helpers, "); return r; }\n");
    }
  }
  glsl_call(e, name, n->args);
  return true;
}

/* sincos, remquo, lgamma_r on double: the value and what is stored through
 * the pointer (the last argument), each from the library. */
bool glsl_fp64_out_call(glsl_emitter *e, const kl_node *n) {
  const char *canonical = n->builtin->canonical;
  const char *value = kl_glsl_fp64_function(canonical);
  const char *stored = kl_glsl_fp64_out_function(canonical);
  if (!value || !stored) return false;
  use(e, canonical);
  const kl_node *args[3];
  int count = 0;
  for (const kl_node *a = n->args; a && count < 3; a = a->next) args[count++] = a;
  const kl_node *pointer = args[count - 1];
  int values = count - 1, length = vector_length(n);
  const char *rt = glsl_type(e, n->type, n->location);
  const char *ot = glsl_type(e, pointer->type->element, n->location);
  const char *at = glsl_type(e, args[0]->type, n->location);
  const char *name = kl_format(e->ctx, "_cl_%s_f64", canonical);
  if (glsl_need(e, kl_format(e->ctx, "fp64-out:%s/%s", name, rt))) {
    klg_buf *h = &e->helpers;
    const char *index = length ? "[i]" : "";
    klg_printf(h, "%s %s(%s a%s, out %s o) { ", rt, name, at,
               values > 1 ? kl_format(e->ctx, ", %s b", at) : "", ot);
    if (length) klg_printf(h, "%s r; for (int i = 0; i < %d; i++) { ", rt, length);
    const char *call_args = values > 1 ? kl_format(e->ctx, "(a%s, b%s)", index, index)
                                       : kl_format(e->ctx, "(a%s)", index);
    klg_printf(h, "o%s = %s%s; ", index, stored, call_args);
    if (length)
      klg_printf(h, "r[i] = %s%s; } return r; }\n", value, call_args);
    else
      klg_printf(h, "return %s%s; }\n", value, call_args);
  }
  klg_printf(e->out, "%s(", name);
  for (int i = 0; i < values; i++) {
    glsl_expr(e, args[i]);
    klg_puts(e->out, ", ");
  }
  klg_printf(e->out, "%s)", glsl_out_lvalue(e, pointer));
  return true;
}

/* The name of the library's version of floor, ceil, trunc, rint or round
 * for double, marked as used, with an overload for `type` where it is a
 * vector (conversions with a rounding mode call them). */
const char *glsl_fp64_rounding(glsl_emitter *e, const char *builtin, const kl_type *type,
                               kl_location at) {
  use(e, builtin);
  const char *name = kl_glsl_fp64_function(builtin);
  if (klg_is_vector(type)) {
    const char *t = glsl_type(e, type, at);
    if (glsl_need(e, kl_format(e->ctx, "fp64:%s/%s", name, t)))
      klg_printf(&e->helpers,
                 "%s %s(%s a) { %s r; for (int i = 0; i < %d; i++) r[i] = %s(a[i]); return r; }\n",
                 t, name, t, t, type->length, name);
  }
  return name;
}

const char *glsl_fp64_library(glsl_emitter *e) {
  if (!e->fp64_count) return NULL;
  /* the device's own rounding only where the backend found it exact */
  const char *rounding = kl_context_traits(e->ctx).f64_rounding_exact
                             ? "#define KL_F64_SOFT_ROUNDING 0\n"
                             : "#define KL_F64_SOFT_ROUNDING 1\n";
  size_t prefix = strlen(rounding);
  size_t length = kl_glsl_fp64_source(e->fp64_names, (size_t)e->fp64_count, NULL, 0);
  char *text = kl_alloc(e->ctx, prefix + length + 1);
  memcpy(text, rounding, prefix);
  kl_glsl_fp64_source(e->fp64_names, (size_t)e->fp64_count, text + prefix, length + 1);
  return text;
}
