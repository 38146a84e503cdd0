/* The GLSL emitter: double-precision math builtins. GLSL (and SPIR-V's
 * GLSL.std.450) has exp, log, sin, pow ... for float only; the double
 * versions come from a GLSL source library, kernels/glsl_fp64_math.h,
 * emitted into a shader that uses one. A build without that library keeps
 * rejecting the builtins with a diagnostic. */
#include <string.h>

#include "emit_glsl_internal.h"

#if defined(__has_include)
#if __has_include("glsl_fp64_math.h")
#include "glsl_fp64_math.h"
#define GLSL_HAVE_FP64_MATH 1
#endif
#endif

bool glsl_fp64_call(glsl_emitter *e, const kl_node *n) {
#ifdef GLSL_HAVE_FP64_MATH
  const char *name = kl_glsl_fp64_function(n->builtin->canonical);
  if (!name) return false;
  e->caps |= KL_GLSL_NEEDS_FP64;
  e->fp64_library = true;
  if (klg_is_vector(n->type) || (n->args && klg_is_vector(n->args->type))) {
    /* per component, as an overload of the library's function */
    int length = klg_is_vector(n->type) ? n->type->length : n->args->type->length;
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
#else
  (void)e;
  (void)n;
  return false;
#endif
}

const char *glsl_fp64_library(glsl_emitter *e) {
#ifdef GLSL_HAVE_FP64_MATH
  return e->fp64_library ? kl_glsl_fp64_library() : NULL;
#else
  (void)e;
  return NULL;
#endif
}
