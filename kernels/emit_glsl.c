// SPDX-License-Identifier: Apache-2.0
/* The GLSL 4.50 compute emitter (Vulkan): one shader per kernel.
 *
 * GLSL has no pointers. Every pointer is a (root, offset) pair: the root is
 * an array known when the shader is written (the storage buffer of a kernel
 * parameter, a shared array, a program-scope __constant array) and the
 * offset a uint count of elements. A pointer variable becomes a uint offset
 * variable whose root is fixed (every assignment must agree); a helper
 * function that takes pointers is specialised for each combination of roots
 * it is called with. Buffer bindings, the parameter block, specialisation
 * constants and what the runtime must fill are in kernels/glsl_layout.h.
 *
 * OpenCL semantics kept: scalar comparisons give int 0/1 and vector ones
 * -1/0 masks; signed % takes the sign of the dividend (GLSL's % does not
 * for negative operands); shift counts are masked to the width; abs returns
 * unsigned; conversions are explicit constructors; convert_T_sat and the
 * rounding modes; 8/16/64-bit integer types are the explicit arithmetic
 * types; 8- and 16-vectors are structs of 4-vectors (emit_glsl_wide.c).
 * docs/kernel-language.md ("The GLSL target") says how each difference is
 * kept and what is rejected with a diagnostic.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emit_glsl_internal.h"
#include "kl_front.h"
/* --------------------------------------------------------- statements */

void glsl_initializer(glsl_emitter *e, const kl_type *t, const kl_node *init) {
  klg_buf *o = e->out;
  if (init->kind == KL_EXPR_INIT_LIST) {
    const kl_node *item = init->args;
    if (t->kind == KL_TYPE_ARRAY) {
      long long elements = 1;
      for (const kl_type *a = t; a->kind == KL_TYPE_ARRAY; a = a->element) elements *= a->length;
      if (elements > KL_GLSL_MAX_INIT_ELEMENTS) {
        glsl_fail(e, init->location,
                  kl_format(e->ctx, "initialisers of arrays of more than %d elements here",
                            KL_GLSL_MAX_INIT_ELEMENTS));
        return;
      }
      klg_printf(o, "%s(", glsl_type(e, t, init->location));
      for (int i = 0; i < t->length; i++) {
        if (i) klg_puts(o, ", ");
        if (item) {
          glsl_initializer(e, t->element, item);
          item = item->next;
        } else {
          klg_puts(o, glsl_zero(e, t->element, init->location));
          if (t->element->kind == KL_TYPE_STRUCT || t->element->kind == KL_TYPE_ARRAY)
            glsl_fail(e, init->location, "partial initializers of arrays of structs or arrays");
        }
      }
      klg_puts(o, ")");
      return;
    }
    if (t->kind == KL_TYPE_STRUCT) {
      int index = klg_struct_index(e->program, t);
      const kl_type *st = index >= 0 ? e->program->structs[index] : t;
      klg_printf(o, "%s(", glsl_type(e, t, init->location));
      int natural = 0, pad = 0;
      bool first = true;
      for (const kl_member *m = st->members; m; m = m->next) {
        int ms, ma;
        glsl_std430(m->type, &ms, &ma);
        natural = (natural + ma - 1) / ma * ma;
        while (natural < m->offset) {
          klg_puts(o, first ? "" : ", ");
          if ((natural % 4) == 0 && m->offset - natural >= 4) {
            klg_puts(o, "0u");
            natural += 4;
          } else {
            klg_puts(o, "uint8_t(0)");
            natural += 1;
          }
          first = false;
          pad++;
        }
        klg_puts(o, first ? "" : ", ");
        first = false;
        if (item && m->type->kind == KL_TYPE_BOOL) { /* a uint8_t (glsl_struct) */
          klg_printf(o, "(%s ? uint8_t(1) : uint8_t(0))", glsl_cond_text(e, item));
          item = item->next;
        } else if (item) {
          glsl_initializer(e, m->type, item);
          item = item->next;
        } else if (m->type->kind == KL_TYPE_BOOL) {
          klg_puts(o, "uint8_t(0)");
        } else if (kl_type_is_scalar(m->type) || klg_is_vector(m->type)) {
          klg_puts(o, glsl_zero(e, m->type, init->location));
        } else {
          glsl_fail(e, init->location, "partial initializers of nested aggregates");
        }
        natural = m->offset + ms;
      }
      klg_puts(o, ")");
      return;
    }
    if (item) glsl_initializer(e, t, item);
    return;
  }
  glsl_expr_as(e, init, t);
}

static bool is_zero_literal(const kl_node *n) {
  n = klg_strip_convert(n);
  if (n->kind == KL_EXPR_INT_LITERAL) return n->int_value == 0;
  return n->kind == KL_EXPR_FLOAT_LITERAL && n->float_value == 0 && !signbit(n->float_value);
}

/* A private array of more than KL_GLSL_INLINE_ELEMENTS scalars or vectors
 * with a brace initialiser: zero-filled by a loop, then its non-zero
 * elements, so that `int a[1 << 24] = {1};` stays small (a GLSL array
 * constructor lists every element). Prints after the declaration, without
 * the last ';'. */
static bool compact_initializer(glsl_emitter *e, const kl_variable *v, const char *name) {
  const kl_type *t = v->type;
  if (t->kind != KL_TYPE_ARRAY || !v->initializer || v->initializer->kind != KL_EXPR_INIT_LIST ||
      t->length <= KL_GLSL_INLINE_ELEMENTS ||
      !(kl_type_is_scalar(t->element) || klg_is_vector(t->element)))
    return false;
  klg_buf *o = e->out;
  klg_printf(o, "; for (int _cl_k = 0; _cl_k < %d; _cl_k++) %s[_cl_k] = %s", t->length, name,
             glsl_zero(e, t->element, v->location));
  int i = 0;
  for (const kl_node *item = v->initializer->args; item && i < t->length; item = item->next, i++) {
    if (is_zero_literal(item)) continue;
    klg_printf(o, "; %s[%d] = ", name, i);
    glsl_expr_as(e, item, t->element);
  }
  return true;
}

/* "precise " for a float or double variable (or an array of them): SPIR-V
 * NoContraction on the arithmetic feeding it, so that drivers neither fuse
 * nor reassociate (lavapipe folds (x * 0.0625f) * 16.0f to x and
 * uint(float(u)) to u). OpenCL C allows that only under
 * -cl-fast-relaxed-math. */
const char *glsl_precise(glsl_emitter *e, const kl_type *t) {
  while (t->kind == KL_TYPE_ARRAY) t = t->element;
  if (e->ctx->fast_relaxed_math || klg_is_pointer(t) || !kl_type_is_arithmetic(t)) return "";
  return kl_type_is_floating(kl_type_scalar_of(t)) ? "precise " : "";
}

void glsl_declaration(glsl_emitter *e, const kl_variable *v, bool in_for) {
  klg_buf *o = e->out;
  if (v->space == KL_SPACE_LOCAL) {
    const char *name = kl_format(e->ctx, "_cl_s%d_%s", v->id, glsl_name(e, v->name));
    const char *flat = glsl_flat_local(e, v, name);
    klg_printf(&e->globals, "shared %s;\n", flat ? flat : glsl_decl(e, v->type, name, v->location));
    if (!flat) glsl_bind(e, v, name, NULL);
    if (v->initializer) glsl_fail(e, v->location, "initialised __local variables");
    if (!in_for) klg_printf(o, "/* __local %s: hoisted */", v->name);
    return;
  }
  const char *name = glsl_name(e, v->name);
  if (klg_is_pointer(v->type) && glsl_address_declaration(e, v, name)) return;
  if (klg_is_pointer(v->type)) {
    glsl_root *choice = glsl_choice_root(e, v, name);
    glsl_binding *b = glsl_bind(e, v, name, choice);
    klg_printf(o, "uint %s", name);
    if (v->initializer) {
      glsl_root *r;
      const char *text = glsl_pointer_text(e, v->initializer, &r);
      if (r && r->choices) {
        glsl_fail(e, v->location,
                  "a pointer initialised from one that points into one of several buffers");
      } else if (choice) {
        int k = r ? glsl_choice_index(choice, r) : -1;
        if (k >= 0) text = kl_format(e->ctx, "(%s = %du, %s)", choice->selector, k, text);
      } else {
        b->root = r && r->null ? NULL : r; /* NULL: the array comes with an assignment */
      }
      klg_printf(o, " = %s", text);
    }
    return;
  }
  glsl_bind(e, v, name, NULL);
  klg_printf(o, "%s%s", glsl_precise(e, v->type), glsl_decl(e, v->type, name, v->location));
  if (!in_for && compact_initializer(e, v, name)) return;
  if (v->initializer) {
    klg_puts(o, " = ");
    glsl_initializer(e, v->type, v->initializer);
  }
}

void glsl_block(glsl_emitter *e, const kl_node *n, int depth) {
  klg_c_printer printer = glsl_printer(e);
  klg_c_block(&printer, n, depth);
}

/* switch (value): GLSL switches on 32 bits: a 64-bit value (size_t, long)
 * outside the 32-bit range becomes a sentinel that no case label has, so
 * that it takes the default; a label outside the range is refused (false). */
static bool glsl_switch_value(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_type *ct = n->condition->type;
  bool is_unsigned = !kl_type_is_signed(ct);
  if (ct->size == 8) {
    uint32_t sentinel = is_unsigned ? UINT32_MAX : (uint32_t)INT32_MIN;
    for (bool clash = true; clash;) {
      clash = false;
      for (const kl_node *c = n->cases; c; c = c->next_case) {
        if (c->is_default) continue;
        int64_t v = c->case_value;
        if (is_unsigned ? (uint64_t)v > UINT32_MAX : v < INT32_MIN || v > INT32_MAX) {
          glsl_fail(e, c->location, "case labels past 32 bits in a switch on 64-bit values");
          return false;
        }
        if ((uint32_t)v == sentinel) clash = true;
      }
      if (clash) sentinel += is_unsigned ? (uint32_t)-1 : 1u;
    }
    const char *helper = is_unsigned ? "_cl_switch_u64" : "_cl_switch_i64";
    if (glsl_need(e, helper))
      klg_puts(&e->helpers, is_unsigned ? "uint _cl_switch_u64(uint64_t v, uint s) { return v <= "
                                          "0xfffffffful ? uint(v) : s; }\n"
                                        : "int _cl_switch_i64(int64_t v, int s) { return v >= "
                                          "-2147483648l && v <= 2147483647l ? int(v) : s; }\n");
    klg_printf(o, "switch (%s(", helper);
    glsl_expr(e, n->condition);
    if (is_unsigned)
      klg_printf(o, ", %uu))\n", sentinel);
    else if ((int32_t)sentinel == INT32_MIN)
      klg_puts(o, ", (-2147483647 - 1)))\n");
    else
      klg_printf(o, ", (%d)))\n", (int32_t)sentinel);
  } else {
    klg_printf(o, "switch (%s(", is_unsigned ? "uint" : "int");
    glsl_expr(e, n->condition);
    klg_puts(o, "))\n");
  }
  return true;
}

/* switch: the value in 32 bits, the body, and a break at its end. */
static void glsl_switch(glsl_emitter *e, const kl_node *n, int depth) {
  klg_buf *o = e->out;
  klg_indent(o, depth);
  if (!glsl_switch_value(e, n)) return;
  klg_indent(o, depth);
  klg_puts(o, "{\n");
  const kl_node *body = n->body;
  if (body && body->kind == KL_STMT_COMPOUND) {
    for (const kl_node *s = body->body; s; s = s->next) glsl_stmt(e, s, depth + 1);
  } else if (body) {
    glsl_stmt(e, body, depth + 1);
  }
  klg_indent(o, depth + 1);
  klg_puts(o, "break;\n");
  klg_indent(o, depth);
  klg_puts(o, "}\n");
}

/* The statements GLSL prints its own way (the others print as C syntax,
 * gpu_emit.c): barriers and void casts, declarations (a __local one is
 * hoisted: its line is empty), switches, returns. */
static bool glsl_own_statement(void *emitter, const kl_node *n, int depth) {
  glsl_emitter *e = emitter;
  klg_buf *o = e->out;
  switch (n->kind) {
    case KL_STMT_EXPRESSION: {
      const kl_node *x = n->lhs;
      klg_indent(o, depth);
      if (x->kind == KL_EXPR_BUILTIN && x->builtin->id == KL_BUILTIN_BARRIER) {
        klg_printf(o, "%s; barrier();\n", glsl_fence(x->args));
        return true;
      }
      while (x->kind == KL_EXPR_CAST && x->type->kind == KL_TYPE_VOID) x = x->lhs;
      glsl_expr(e, x);
      klg_puts(o, ";\n");
      return true;
    }
    case KL_STMT_DECLARATION:
      klg_indent(o, depth);
      glsl_declaration(e, n->variable, false);
      klg_puts(o, n->variable->space == KL_SPACE_LOCAL ? "\n" : ";\n");
      return true;
    case KL_STMT_SWITCH:
      glsl_switch(e, n, depth);
      return true;
    case KL_STMT_RETURN:
      klg_indent(o, depth);
      if (!n->lhs) {
        klg_puts(o, "return;\n");
      } else if (klg_is_pointer(n->lhs->type)) {
        glsl_fail(e, n->location, "returning pointers");
      } else {
        klg_puts(o, "return ");
        glsl_expr_as(e, n->lhs, NULL);
        klg_puts(o, ";\n");
      }
      return true;
    default:
      return false;
  }
}

static void glsl_expression_callback(void *e, const kl_node *n) {
  glsl_expr(e, n);
}

/* The one a for's init holds (the others are statements of their own). */
static void glsl_for_declaration_callback(void *e, const kl_variable *v) {
  glsl_declaration(e, v, true);
}

static void glsl_condition_callback(void *e, const kl_node *n) {
  klg_puts(((glsl_emitter *)e)->out, glsl_cond_text(e, n));
}

static void glsl_fail_callback(void *e, kl_location at, const char *what) {
  glsl_fail(e, at, what);
}

klg_c_printer glsl_printer(glsl_emitter *e) {
  return (klg_c_printer){.out = e->out,
                         .emitter = e,
                         .expression = glsl_expression_callback,
                         .declaration = glsl_for_declaration_callback,
                         .fail = glsl_fail_callback,
                         .case_suffix = "",
                         .statement = glsl_own_statement,
                         .condition = glsl_condition_callback};
}

void glsl_stmt(glsl_emitter *e, const kl_node *n, int depth) {
  klg_c_printer printer = glsl_printer(e);
  klg_c_statement(&printer, n, depth);
}

/* A helper function specialised for its pointer arguments' roots. */
void glsl_function(glsl_emitter *e, const kl_function *f, glsl_spec *spec) {
  klg_buf *saved_out = e->out;
  glsl_binding *saved_env = e->env;
  int saved_count = e->env_count, saved_capacity = e->env_capacity;
  klg_buf body;
  klg_init(&body, e->ctx);
  e->out = &body;
  e->env = NULL;
  e->env_count = e->env_capacity = 0;
  /* program-scope constants stay visible */
  if (!f->body) {
    glsl_fail(e, f->location,
              kl_format(e->ctx, "calling '%s', which is declared but not defined", f->name));
  }
  if (f->return_type && klg_is_pointer(f->return_type))
    glsl_fail(e, f->location, "functions returning pointers");
  klg_printf(&body, "%s %s(", glsl_type(e, f->return_type, f->location), spec->name);
  int i = 0;
  for (const kl_variable *p = f->params; p; p = p->next, i++) {
    const char *name = glsl_name(e, p->name);
    if (i) klg_puts(&body, ", ");
    if (klg_is_pointer(p->type) && spec->roots[i] && spec->roots[i]->kind == ROOT_PRIVATE) {
      /* the caller's private array (or variable) itself, copied in, and
       * back out unless the pointee is const */
      const glsl_root *caller = spec->roots[i];
      const char *array = kl_format(e->ctx, "_cl_root_%s", name);
      glsl_root *r = glsl_new_root(e, ROOT_PRIVATE, caller->var, array);
      r->scalar = caller->scalar;
      r->packed = caller->packed;
      bool in = (p->type->element->qualifiers & KL_QUALIFIER_CONST) != 0 || caller->packed;
      klg_printf(&body, "%s%s, uint %s", in ? "in " : "inout ",
                 glsl_decl(e, caller->var->type, array, p->location), name);
      glsl_bind(e, p, name, r);
    } else if (klg_is_pointer(p->type)) {
      bool address = spec->roots[i] && spec->roots[i]->kind == ROOT_ADDRESS;
      klg_printf(&body, "%s %s", address ? "uint64_t" : "uint", name);
      glsl_bind(e, p, name, spec->roots[i]);
    } else {
      klg_puts(&body, glsl_decl(e, p->type, name, p->location));
      glsl_bind(e, p, name, NULL);
    }
  }
  klg_puts(&body, ") {\n");
  if (f->body && f->body->kind == KL_STMT_COMPOUND)
    for (const kl_node *s = f->body->body; s; s = s->next) glsl_stmt(e, s, 1);
  else if (f->body)
    glsl_stmt(e, f->body, 1);
  klg_puts(&body, "}\n\n");
  klg_puts(&e->functions, klg_text(&body));
  e->out = saved_out;
  e->env = saved_env;
  e->env_count = saved_count;
  e->env_capacity = saved_capacity;
}

uint32_t glsl_align_up(uint32_t v, uint32_t a) {
  return a ? (v + a - 1) / a * a : v;
}

/* Program-scope __constant data, written into the shader as constants. */
static void glsl_program_constants(glsl_emitter *e, klg_buf *constants) {
  for (const kl_variable *v = e->program->constants; v; v = v->next) {
    klg_buf *saved = e->out;
    e->out = constants;
    if ((uint32_t)v->type->size > KL_GLSL_MAX_CONSTANT_BYTES) {
      glsl_fail(e, v->location,
                kl_format(e->ctx,
                          "__constant data over %u bytes (OpenCL's smallest constant buffer; GLSL "
                          "writes it into the shader)",
                          KL_GLSL_MAX_CONSTANT_BYTES));
      continue;
    }
    klg_printf(constants, "const %s = ", glsl_decl(e, v->type, glsl_name(e, v->name), v->location));
    if (v->initializer)
      glsl_initializer(e, v->type, v->initializer);
    else
      klg_printf(constants, "%s(0)", glsl_type(e, v->type, v->location));
    klg_puts(constants, ";\n");
    e->out = saved;
  }
}

/* The storage buffers of the kernel's buffer parameters, readonly or
 * writeonly now that the body's reads and writes are known; a by-address
 * one as a buffer reference type. */
static void glsl_buffer_declarations(glsl_emitter *e, klg_buf *buffers, klg_buf *references) {
  int i = 0;
  for (const kl_variable *p = e->kernel->params; p; p = p->next, i++) {
    kl_glsl_param *lp = &e->params[i];
    if (lp->kind != KL_GLSL_PARAM_BUFFER) continue;
    glsl_root *r = e->param_roots[i];
    if (!r) continue;
    bool is_const = p->type->pointee_space == KL_SPACE_CONSTANT ||
                    (p->type->element->qualifiers & KL_QUALIFIER_CONST);
    lp->readonly = is_const || !r->written;
    lp->writeonly = !lp->readonly && !r->read;
    const char *q = lp->readonly ? "readonly " : lp->writeonly ? "writeonly " : "";
    /* a buffer with views: every block of it Aliased, none restrict */
    const char *restrict_q =
        !r->views && !e->addresses && (p->type->qualifiers & KL_QUALIFIER_RESTRICT) ? "restrict "
                                                                                    : "";
    const char *aliased = r->views ? "spirv_decorate(20) " : "";
    const char *vol =
        (p->type->element->qualifiers & KL_QUALIFIER_VOLATILE) ? "coherent volatile " : "";
    const char *element = glsl_type(e, p->type->element, p->location);
    if (lp->by_address) {
      /* the buffer reference type, and the array's name for its contents */
      klg_printf(references,
                 "layout(buffer_reference, std430, buffer_reference_align = 16) %s%s%sbuffer "
                 "_cl_Ref%u { %s _cl_data[]; };\n",
                 restrict_q, vol, q, lp->binding, element);
      klg_printf(buffers, "#define %s _cl_p._cl_addr%u._cl_data\n", r->array, lp->binding);
      glsl_view_declarations(e, r, kl_format(e->ctx, "%s%s", vol, q), buffers, references);
      continue;
    }
    klg_printf(buffers,
               "layout(std430, set = 0, binding = %u) %s%s%s%sbuffer _cl_Buffer%u { %s %s[]; };\n",
               lp->binding, aliased, restrict_q, vol, q, lp->binding, element, r->array);
    glsl_view_declarations(e, r, kl_format(e->ctx, "%s%s", vol, q), buffers, references);
  }
}

/* The extensions the shader's capabilities need, the float-controls modes
 * and the fp64 library. */
static void glsl_preamble(glsl_emitter *e, klg_buf *out, bool by_address) {
  if (e->caps & KL_GLSL_NEEDS_INT8)
    klg_puts(out,
             "#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require\n#extension "
             "GL_EXT_shader_8bit_storage : require\n");
  if (e->caps & KL_GLSL_NEEDS_INT16)
    klg_puts(out, "#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require\n");
  if (e->caps & KL_GLSL_NEEDS_FP16)
    klg_puts(out, "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n");
  if (e->caps & (KL_GLSL_NEEDS_FP16 | KL_GLSL_NEEDS_INT16))
    klg_puts(out, "#extension GL_EXT_shader_16bit_storage : require\n");
  if (e->caps & KL_GLSL_NEEDS_INT64)
    klg_puts(out, "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n");
  if (e->int64_atomics) klg_puts(out, "#extension GL_EXT_shader_atomic_int64 : require\n");
  if (by_address)
    klg_puts(out,
             "#extension GL_EXT_buffer_reference : require\n#extension GL_EXT_buffer_reference2 : "
             "require\n");
  if (e->aliased && !(e->caps & KL_GLSL_NEEDS_FLOAT_CONTROLS))
    klg_puts(out, "#extension GL_EXT_spirv_intrinsics : require\n");
  if (e->caps & KL_GLSL_NEEDS_FLOAT_CONTROLS) {
    /* IEEE infinities, NaNs and signed zeros kept (drivers may assume none) */
    static const char mode[] =
        "spirv_execution_mode(extensions = [\"SPV_KHR_float_controls\"], capabilities = [4466], "
        "4461, %d);\n";
    klg_puts(out, "#extension GL_EXT_spirv_intrinsics : require\n");
    if (e->caps & KL_GLSL_NEEDS_FP16) klg_printf(out, mode, 16);
    klg_printf(out, mode, 32);
    if (e->caps & KL_GLSL_NEEDS_FP64) klg_printf(out, mode, 64);
  }
  const char *fp64_library = glsl_fp64_library(e);
  if (fp64_library) {
    klg_puts(out, fp64_library);
    klg_puts(out, "\n");
  }
}

/* A pointer parameter: a __local one becomes a shared array sized by a
 * specialisation constant, a __global or __constant one a storage buffer
 * (reached by address when its bit in by_address is set). */
static void glsl_pointer_param(glsl_emitter *e, const kl_variable *p, const char *name, int i,
                               uint64_t by_address, klg_buf *copies, uint32_t *binding,
                               uint32_t *local_index) {
  kl_glsl_param *lp = &e->params[i];
  const kl_type *el = p->type->element;
  if (el->kind == KL_TYPE_VOID) {
    glsl_fail(e, p->location, "void pointer parameters");
    return;
  }
  int es, ea;
  glsl_std430(el, &es, &ea);
  glsl_check_shared_struct(e, el, p->location);
  lp->element_size = (uint32_t)el->size;
  if (p->type->pointee_space == KL_SPACE_LOCAL) {
    lp->kind = KL_GLSL_PARAM_LOCAL;
    lp->spec_id = KL_GLSL_FIRST_LOCAL_SPEC_ID + *local_index;
    const char *array = kl_format(e->ctx, "_cl_local%u", *local_index);
    klg_printf(&e->globals, "layout(constant_id = %u) const uint _cl_local%u_count = 1u;\n",
               lp->spec_id, *local_index);
    klg_printf(&e->globals, "shared %s %s[_cl_local%u_count];\n", glsl_type(e, el, p->location),
               array, *local_index);
    (*local_index)++;
    glsl_root *r = glsl_new_root(e, ROOT_SHARED, p, array);
    glsl_bind(e, p, name, r);
    klg_printf(copies, "  uint %s = 0u;\n", name);
  } else {
    lp->kind = KL_GLSL_PARAM_BUFFER;
    lp->binding = (*binding)++;
    /* a kernel that stores pointers in structs reaches every buffer by address */
    lp->by_address = e->addresses || (i < 64 && ((by_address >> i) & 1u));
    const char *array = kl_format(e->ctx, "_cl_buf%u", lp->binding);
    glsl_root *r = glsl_new_root(e, ROOT_BUFFER, p, array);
    r->buffer = i;
    r->element = el;
    e->param_roots[i] = r;
    glsl_bind(e, p, name, r);
    klg_printf(copies, "  uint %s = 0u;\n", name);
    if (el->size != (es + ea - 1) / ea * ea && el->kind != KL_TYPE_STRUCT)
      glsl_fail(e, p->location, "buffers of this element type");
  }
}

const char *kl_emit_glsl_variant(kl_context *ctx, const kl_program *program,
                                 const kl_function *kernel, uint64_t by_address,
                                 const kl_glsl_layout **layout_out) {
  if (layout_out) *layout_out = NULL;
  if (!kernel || !kernel->is_kernel) {
    kl_error(ctx, kernel ? kernel->location : (kl_location){0}, "GLSL: no kernel given");
    return NULL;
  }
  glsl_emitter e = {.ctx = ctx, .program = program, .kernel = kernel};
  klg_init(&e.helpers, ctx);
  klg_init(&e.functions, ctx);
  klg_init(&e.globals, ctx);
  klg_init(&e.wide_types, ctx);
  klg_buf main_body;
  klg_init(&main_body, ctx);
  e.out = &main_body;
  int count = kernel->param_count;
  e.params = kl_alloc(ctx, sizeof *e.params * (size_t)(count + 1));
  e.param_roots = kl_alloc(ctx, sizeof *e.param_roots * (size_t)(count + 1));
  klg_init(&e.address_types, ctx);
  e.addresses = glsl_kernel_uses_addresses(kernel);
  if (e.addresses) e.caps |= KL_GLSL_NEEDS_BUFFER_ADDRESS | KL_GLSL_NEEDS_INT64;

  /* parameters: buffers, the block, shared arrays */
  klg_buf block, copies;
  klg_init(&block, ctx);
  klg_init(&copies, ctx);
  uint32_t binding = 0, offset = KL_GLSL_HEADER_SIZE, local_index = 0;
  int i = 0;
  for (const kl_variable *p = kernel->params; p; p = p->next, i++) {
    kl_glsl_param *lp = &e.params[i];
    const char *name = glsl_name(&e, p->name);
    lp->name = p->name;
    if (klg_is_pointer(p->type)) {
      glsl_pointer_param(&e, p, name, i, by_address, &copies, &binding, &local_index);
      continue;
    }
    lp->kind = KL_GLSL_PARAM_VALUE;
    const kl_type *t = p->type;
    glsl_check_shared_struct(&e, t, p->location);
    uint32_t align = (uint32_t)(t->align ? t->align : 1);
    offset = glsl_align_up(offset, align);
    lp->offset = offset;
    lp->size = (uint32_t)t->size;
    klg_printf(&block, "  layout(offset = %u) %s;\n", offset, glsl_decl(&e, t, name, p->location));
    klg_printf(&copies, "  %s = _cl_p.%s;\n", glsl_decl(&e, t, name, p->location), name);
    glsl_bind(&e, p, name, NULL);
    offset += (uint32_t)t->size;
  }
  /* by-address buffers: a buffer reference each, after the values */
  uint32_t address_count = 0;
  for (int k = 0; k < count; k++) {
    kl_glsl_param *lp = &e.params[k];
    if (lp->kind != KL_GLSL_PARAM_BUFFER || !lp->by_address) continue;
    offset = glsl_align_up(offset, 8);
    lp->address_offset = offset;
    klg_printf(&block, "  layout(offset = %u) _cl_Ref%u _cl_addr%u;\n", offset, lp->binding,
               lp->binding);
    offset += 8;
    address_count++;
  }
  uint32_t block_size = glsl_align_up(offset, 16);
  bool in_buffer = block_size > KL_GLSL_PUSH_LIMIT;
  uint32_t block_binding = in_buffer ? binding : 0;

  /* program-scope constants */
  klg_buf constants;
  klg_init(&constants, ctx);
  glsl_program_constants(&e, &constants);

  /* the kernel body */
  klg_puts(&main_body, "void main() {\n");
  klg_puts(&main_body, klg_text(&copies));
  if (kernel->body && kernel->body->kind == KL_STMT_COMPOUND)
    for (const kl_node *s = kernel->body->body; s; s = s->next) glsl_stmt(&e, s, 1);
  else if (kernel->body)
    glsl_stmt(&e, kernel->body, 1);
  klg_puts(&main_body, "}\n");

  /* structs (after the body: types used there set the capabilities) */
  klg_buf structs;
  klg_init(&structs, ctx);
  for (int s = 0; s < program->struct_count; s++) glsl_struct(&e, program->structs[s], &structs);

  /* buffers, now that reads and writes are known */
  klg_buf buffers, references;
  klg_init(&buffers, ctx);
  klg_init(&references, ctx);
  glsl_buffer_declarations(&e, &buffers, &references);

  kl_glsl_layout *layout = kl_alloc(ctx, sizeof *layout);
  layout->kernel = kernel->name;
  layout->param_count = count;
  layout->params = e.params;
  layout->buffer_count = binding;
  layout->block_size = block_size;
  layout->block_in_buffer = in_buffer;
  layout->block_binding = block_binding;
  layout->local_param_count = local_index;
  layout->capabilities = e.caps;
  if (e.failed) return NULL;

  klg_buf out;
  klg_init(&out, ctx);
  klg_printf(&out, "#version 450\n/* kernel %s, translated by anygpu */\n", kernel->name);
  glsl_preamble(&e, &out, address_count > 0 || e.addresses);
  uint32_t wg[3] = {1, 1, 1};
  if (kernel->has_required_work_group_size)
    for (int d = 0; d < 3; d++)
      wg[d] = kernel->required_work_group_size[d] ? kernel->required_work_group_size[d] : 1;
  klg_printf(&out,
             "layout(local_size_x = %u, local_size_y = %u, local_size_z = %u, local_size_x_id = 0, "
             "local_size_y_id = 1, local_size_z_id = 2) in;\n",
             wg[0], wg[1], wg[2]);
  klg_puts(&out, klg_text(&e.wide_types));
  klg_puts(&out, klg_text(&structs));
  klg_puts(&out, klg_text(&references));
  klg_puts(&out, klg_text(&e.address_types));
  if (in_buffer)
    klg_printf(&out, "layout(std430, set = 0, binding = %u) readonly buffer _cl_Block {\n",
               block_binding);
  else
    klg_puts(&out, "layout(push_constant, std430) uniform _cl_Block {\n");
  klg_puts(
      &out,
      "  layout(offset = 0) uvec3 _cl_group_offset;\n  layout(offset = 12) uint _cl_work_dim;\n"
      "  layout(offset = 16) uvec3 _cl_num_groups;\n");
  /* declared only where get_global_size(0) reads it (kernels/glsl_layout.h) */
  for (glsl_key *k = e.keys; k; k = k->next)
    if (strcmp(k->key, "_cl_last_short") == 0)
      klg_puts(&out, "  layout(offset = 28) uint _cl_last_short;\n");
  klg_puts(&out, klg_text(&block));
  klg_puts(&out, "} _cl_p;\n");
  klg_puts(&out, klg_text(&buffers));
  klg_puts(&out, klg_text(&e.globals));
  klg_puts(&out, klg_text(&constants));
  klg_puts(&out, klg_text(&e.helpers));
  klg_puts(&out, klg_text(&e.functions));
  klg_puts(&out, klg_text(&main_body));
  if (layout_out) *layout_out = layout;
  return klg_text(&out);
}

const char *kl_emit_glsl_with_layout(kl_context *ctx, const kl_program *program,
                                     const kl_function *kernel, const kl_glsl_layout **layout) {
  return kl_emit_glsl_variant(ctx, program, kernel, 0, layout);
}

const char *kl_emit_glsl(kl_context *ctx, const kl_program *program, const kl_function *kernel) {
  return kl_emit_glsl_with_layout(ctx, program, kernel, NULL);
}

const kl_glsl_layout *kl_glsl_layout_of(kl_context *ctx, const kl_program *program,
                                        const kl_function *kernel) {
  const kl_glsl_layout *layout = NULL;
  if (!kl_emit_glsl_with_layout(ctx, program, kernel, &layout)) return NULL;
  return layout;
}
