// SPDX-License-Identifier: Apache-2.0
/* The OpenCL C emitter: the program printed back from the typed AST as
 * normalised OpenCL C 1.2 (macros expanded, one declaration per line,
 * every expression parenthesised, literals with explicit suffixes, the
 * extension pragmas the features need). Implicit conversions are left to
 * the OpenCL compiler, which applies the same rules; explicit casts,
 * builtins (as spelled) and swizzles (as .sN) are printed as such.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "builtins.h"
#include "gpu_emit.h"
#include "translate.h"

typedef struct ocl_emitter {
  kl_context *ctx;
  const kl_program *program;
  klg_buf out;
  klg_c_printer printer; /* statements and the expressions C-syntax targets share */
  bool failed;
} ocl_emitter;

static void ocl_fail(ocl_emitter *e, kl_location at, const char *what) {
  kl_error(e->ctx, at, "the OpenCL target cannot print %s", what);
  e->failed = true;
}

static const char *ocl_scalar(const kl_type *t) {
  const char *name = kl_scalar_spelling(t->kind);
  return name ? name : "int";
}

static const char *ocl_space(kl_address_space space) {
  switch (space) {
    case KL_SPACE_GLOBAL: return "__global ";
    case KL_SPACE_LOCAL: return "__local ";
    case KL_SPACE_CONSTANT: return "__constant ";
    default: return "";
  }
}

static const char *ocl_type(ocl_emitter *e, const kl_type *t, kl_location at) {
  if (!t) return "void";
  switch (t->kind) {
    case KL_TYPE_VECTOR: return kl_format(e->ctx, "%s%d", ocl_scalar(t->element), t->length);
    case KL_TYPE_STRUCT:
      return kl_format(e->ctx, "%s %s", t->is_union ? "union" : "struct",
                       klg_struct_name(e->ctx, e->program, t));
    case KL_TYPE_POINTER: {
      const kl_type *p = t->element;
      if (p->kind == KL_TYPE_POINTER || p->kind == KL_TYPE_ARRAY || p->kind == KL_TYPE_FUNCTION) {
        ocl_fail(e, at, "pointers to pointers, arrays or functions");
        return "void*";
      }
      return kl_format(e->ctx, "%s%s%s%s*%s", ocl_space(t->pointee_space),
                       (p->qualifiers & KL_QUALIFIER_CONST) ? "const " : "",
                       (p->qualifiers & KL_QUALIFIER_VOLATILE) ? "volatile " : "", ocl_type(e, p, at),
                       (t->qualifiers & KL_QUALIFIER_RESTRICT) ? " restrict" : "");
    }
    case KL_TYPE_ARRAY: return ocl_type(e, t->element, at);
    case KL_TYPE_FUNCTION: ocl_fail(e, at, "function types"); return "void";
    default: return ocl_scalar(t);
  }
}

static const char *ocl_decl(ocl_emitter *e, const kl_type *t, const char *name, kl_location at) {
  const char *dims = "";
  while (t->kind == KL_TYPE_ARRAY) {
    dims = kl_format(e->ctx, "%s[%d]", dims, t->length);
    t = t->element;
  }
  const char *cv = (t->kind != KL_TYPE_POINTER && (t->qualifiers & KL_QUALIFIER_CONST)) ? "const " : "";
  return kl_format(e->ctx, "%s%s %s%s", cv, ocl_type(e, t, at), name, dims);
}

static void ocl_expr(ocl_emitter *e, const kl_node *n);

static void ocl_int_literal(ocl_emitter *e, const kl_type *t, uint64_t v) {
  static const klg_int_spelling spelling = {"L", "UL", "(-9223372036854775807L - 1L)", false};
  if (!klg_int_literal(&e->out, t, v, &spelling))
    klg_printf(&e->out, "((%s)%lldL)", ocl_scalar(t), (long long)(int64_t)v);
}

static void ocl_float_literal(ocl_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  double v = n->float_value;
  const char *suffix = n->type->kind == KL_TYPE_FLOAT ? "f" : n->type->kind == KL_TYPE_HALF ? "h" : "";
  if (v != v) klg_puts(o, n->type->kind == KL_TYPE_DOUBLE ? "((double)NAN)" : "NAN");
  else if (isinf(v)) klg_printf(o, "%s%s", v < 0 ? "-" : "", n->type->kind == KL_TYPE_DOUBLE ? "((double)INFINITY)" : "INFINITY");
  else if (n->type->kind == KL_TYPE_FLOAT) klg_printf(o, "%af", (double)(float)v);
  else klg_printf(o, "%a%s", v, suffix);
}

static void ocl_expr(ocl_emitter *e, const kl_node *n) {
  klg_buf *o = &e->out;
  if (!n) return;
  switch (n->kind) {
    case KL_EXPR_INT_LITERAL: ocl_int_literal(e, n->type, n->int_value); return;
    case KL_EXPR_FLOAT_LITERAL: ocl_float_literal(e, n); return;
    case KL_EXPR_VARIABLE: klg_puts(o, n->variable->name); return;
    case KL_EXPR_VECTOR_LITERAL:
      klg_printf(o, "((%s)(", ocl_type(e, n->type, n->location));
      klg_c_arguments(&e->printer, n->args);
      klg_puts(o, "))");
      return;
    case KL_EXPR_UNARY: {
      bool post = n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT;
      klg_puts(o, "(");
      if (!post) klg_puts(o, kl_unary_text(n->op));
      ocl_expr(e, n->lhs);
      if (post) klg_puts(o, kl_unary_text(n->op));
      klg_puts(o, ")");
      return;
    }
    case KL_EXPR_CALL:
      klg_printf(o, "%s(", n->function->name);
      klg_c_arguments(&e->printer, n->args);
      klg_puts(o, ")");
      return;
    case KL_EXPR_BUILTIN:
      klg_printf(o, "%s(", n->spelling ? n->spelling : n->builtin->name);
      klg_c_arguments(&e->printer, n->args);
      klg_puts(o, ")");
      return;
    case KL_EXPR_CAST:
      if (n->type->kind == KL_TYPE_VOID) {
        klg_puts(o, "((void)(");
      } else {
        klg_printf(o, "((%s)(", ocl_type(e, n->type, n->location));
      }
      ocl_expr(e, n->lhs);
      klg_puts(o, "))");
      return;
    case KL_EXPR_CONVERT: ocl_expr(e, n->lhs); return;
    case KL_EXPR_SWIZZLE: {
      int c[16], count;
      const kl_node *base = klg_fold_swizzle(n, c, &count);
      klg_puts(o, "(");
      ocl_expr(e, base);
      klg_puts(o, ").s");
      for (int i = 0; i < count; i++) klg_printf(o, "%X", c[i]);
      return;
    }
    default:
      if (!klg_c_expression(&e->printer, n)) ocl_fail(e, n->location, "this expression");
      return;
  }
}

static void ocl_declaration(ocl_emitter *e, const kl_variable *v) {
  klg_buf *o = &e->out;
  const kl_type *t = v->type;
  while (t->kind == KL_TYPE_ARRAY) t = t->element;
  if (v->space == KL_SPACE_LOCAL && t->kind == KL_TYPE_POINTER) /* __global float* __local p */
    klg_puts(o, ocl_decl(e, v->type, kl_format(e->ctx, "__local %s", v->name), v->location));
  else
    klg_printf(o, "%s%s", v->space == KL_SPACE_LOCAL ? "__local " : v->space == KL_SPACE_CONSTANT ? "__constant " : "",
               ocl_decl(e, v->type, v->name, v->location));
  if (v->initializer) {
    klg_puts(o, " = ");
    ocl_expr(e, v->initializer);
  }
}

static void ocl_expression_callback(void *e, const kl_node *n) { ocl_expr(e, n); }
static void ocl_declaration_callback(void *e, const kl_variable *v) { ocl_declaration(e, v); }
static void ocl_fail_callback(void *e, kl_location at, const char *what) { ocl_fail(e, at, what); }

static void ocl_stmt(ocl_emitter *e, const kl_node *n, int depth) {
  klg_c_statement(&e->printer, n, depth);
}

static void ocl_signature(ocl_emitter *e, const kl_function *f) {
  klg_buf *o = &e->out;
  if (f->is_kernel) {
    klg_puts(o, "__kernel ");
    if (f->has_required_work_group_size)
      klg_printf(o, "__attribute__((reqd_work_group_size(%u, %u, %u))) ", f->required_work_group_size[0],
                 f->required_work_group_size[1], f->required_work_group_size[2]);
  }
  klg_printf(o, "%s %s(", ocl_type(e, f->return_type, f->location), f->name);
  if (!f->params) klg_puts(o, "void");
  for (const kl_variable *p = f->params; p; p = p->next) {
    klg_puts(o, ocl_decl(e, p->type, p->name, p->location));
    if (p->next) klg_puts(o, ", ");
  }
  klg_puts(o, ")");
}

static bool ocl_long_atomic(const kl_node *n) {
  return n->builtin->category == KL_BUILTIN_ATOMIC && n->type && n->type->size == 8;
}

static bool ocl_enqueued_local_size(const kl_node *n) {
  return n->builtin->id == KL_BUILTIN_GET_ENQUEUED_LOCAL_SIZE;
}

/* True when some builtin call in the tree satisfies `what`. */
static bool ocl_uses(const kl_node *n, bool (*what)(const kl_node *)) {
  for (; n; n = n->next) {
    if (n->kind == KL_EXPR_BUILTIN && n->builtin && what(n)) return true;
    const kl_node *kids[] = {n->lhs, n->rhs, n->condition, n->then, n->otherwise, n->init, n->increment, n->body, n->args};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
      if (kids[i] && ocl_uses(kids[i], what)) return true;
    if (n->kind == KL_STMT_DECLARATION && n->variable && n->variable->initializer &&
        ocl_uses(n->variable->initializer, what))
      return true;
  }
  return false;
}

const char *kl_emit_opencl(kl_context *ctx, const kl_program *program) {
  ocl_emitter e = {.ctx = ctx, .program = program};
  klg_init(&e.out, ctx);
  e.printer = klg_c_printer_of(&e.out, &e, ocl_expression_callback, ocl_declaration_callback,
                               ocl_fail_callback, "L");
  klg_buf *o = &e.out;
  klg_puts(o, "/* OpenCL C 1.2, normalised by anygpu */\n");
  if (program->features & KL_FEATURE_FP64) klg_puts(o, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  if (program->features & KL_FEATURE_FP16) klg_puts(o, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
  if (program->fp_contract_off) klg_puts(o, "#pragma OPENCL FP_CONTRACT OFF\n");
  bool long_atomics = false, enqueued = false;
  for (const kl_function *f = program->functions; f; f = f->next) {
    if (f->body && ocl_uses(f->body, ocl_long_atomic)) long_atomics = true;
    if (f->body && ocl_uses(f->body, ocl_enqueued_local_size)) enqueued = true;
  }
  if (long_atomics)
    klg_puts(o, "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
                "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n");
  /* OpenCL C 2.0's get_enqueued_local_size on a 1.x compiler: the OpenCL
   * backend runs a smaller last group as an enqueue of its own (see
   * agpu_cl_launch), where the enqueued size is that group's size. */
  if (enqueued)
    klg_puts(o, "#if !defined(get_enqueued_local_size) && (!defined(__OPENCL_C_VERSION__) || "
                "__OPENCL_C_VERSION__ < 200)\n"
                "#define get_enqueued_local_size(d) get_local_size(d)\n#endif\n");
  for (int i = 0; i < program->struct_count; i++) {
    const kl_type *t = program->structs[i];
    const char *keyword = t->is_union ? "union" : "struct";
    klg_printf(o, "%s %s {\n", keyword, klg_struct_name(ctx, program, t));
    for (const kl_member *m = t->members; m; m = m->next)
      klg_printf(o, "  %s%s;\n", ocl_decl(&e, m->type, m->name, m->location),
                 kl_member_gnu_attributes(ctx, m));
    klg_printf(o, "}%s;\n", kl_struct_gnu_attributes(ctx, t));
    /* The layout the other targets are checked against; clang-based OpenCL
     * compilers check the front end's numbers too. */
    const char *name = klg_struct_name(ctx, program, t);
    klg_puts(o, "#ifdef __clang__\n");
    klg_printf(o, "_Static_assert(sizeof(%s %s) == %d, \"size of %s\");\n", keyword, name,
               t->size, name);
    for (const kl_member *m = t->members; m; m = m->next)
      klg_printf(o, "_Static_assert(__builtin_offsetof(%s %s, %s) == %d, \"offset of %s\");\n",
                 keyword, name, m->name, m->offset, m->name);
    klg_puts(o, "#endif\n");
  }
  for (const kl_variable *v = program->constants; v; v = v->next) {
    klg_printf(o, "__constant %s", ocl_decl(&e, v->type, v->name, v->location));
    if (v->initializer) {
      klg_puts(o, " = ");
      ocl_expr(&e, v->initializer);
    }
    klg_puts(o, ";\n");
  }
  for (const kl_function *f = program->functions; f; f = f->next) {
    if (f->is_kernel || !f->body) continue;
    ocl_signature(&e, f);
    klg_puts(o, ";\n");
  }
  for (const kl_function *f = program->functions; f; f = f->next) {
    if (!f->body) continue;
    klg_puts(o, "\n");
    ocl_signature(&e, f);
    klg_puts(o, " {\n");
    if (f->body->kind == KL_STMT_COMPOUND)
      for (const kl_node *s = f->body->body; s; s = s->next) ocl_stmt(&e, s, 1);
    else
      ocl_stmt(&e, f->body, 1);
    klg_puts(o, "}\n");
  }
  if (e.failed) return NULL;
  return klg_text(o);
}
