// SPDX-License-Identifier: Apache-2.0
/* Helpers shared by the GPU-target emitters: see gpu_emit.h. */
#include "gpu_emit.h"

#include <stdio.h>
#include <string.h>

const char *klg_ident(kl_context *ctx, const char *name, const char *const *reserved,
                      bool no_double_underscore) {
  bool escape = strncmp(name, "_cl_", 4) == 0 || strncmp(name, "_agpu", 5) == 0 ||
                strncmp(name, "gl_", 3) == 0 || strncmp(name, "kl_", 3) == 0;
  if (no_double_underscore && strstr(name, "__")) escape = true;
  for (int i = 0; !escape && reserved && reserved[i]; i++)
    if (strcmp(reserved[i], name) == 0) escape = true;
  if (!escape) return name;
  /* kl_<name> with every "__" written "_9": unique since user names do not start with kl_
   * (those are escaped too). */
  size_t length = strlen(name);
  char *out = kl_alloc(ctx, length * 2 + 4);
  char *o = out;
  memcpy(o, "kl_", 3);
  o += 3;
  for (size_t i = 0; i < length; i++) {
    if (no_double_underscore && name[i] == '_' && name[i + 1] == '_') {
      *o++ = '_';
      *o++ = '9';
      i++;
    } else {
      *o++ = name[i];
    }
  }
  *o = '\0';
  return out;
}

int klg_struct_index(const kl_program *program, const kl_type *type) {
  for (int i = 0; i < program->struct_count; i++) {
    const kl_type *s = program->structs[i];
    if (s == type || (s->members && s->members == type->members)) return i;
  }
  return -1;
}

const char *klg_struct_name(kl_context *ctx, const kl_program *program, const kl_type *type) {
  int index = klg_struct_index(program, type);
  if (index >= 0) type = program->structs[index];
  if (type->name && type->name[0]) return kl_format(ctx, "%s", type->name);
  return kl_format(ctx, "_cl_struct%d", index < 0 ? 0 : index);
}

const kl_node *klg_fold_swizzle(const kl_node *node, int *components, int *count) {
  int n = node->component_count;
  for (int i = 0; i < n; i++) components[i] = node->components[i];
  const kl_node *base = node->lhs;
  while (base->kind == KL_EXPR_SWIZZLE) {
    for (int i = 0; i < n; i++) components[i] = base->components[components[i]];
    base = base->lhs;
  }
  *count = n;
  return base;
}

const kl_node *klg_strip_convert(const kl_node *node) {
  while (node && node->kind == KL_EXPR_CONVERT) node = node->lhs;
  return node;
}

bool klg_is_vector(const kl_type *type) {
  return type && type->kind == KL_TYPE_VECTOR;
}

bool klg_is_pointer(const kl_type *type) {
  return type && type->kind == KL_TYPE_POINTER;
}

int klg_bits(const kl_type *scalar) {
  return scalar->size * 8;
}

klg_c_printer klg_c_printer_of(klg_buf *out, void *emitter,
                               void (*expression)(void *emitter, const kl_node *expression),
                               void (*declaration)(void *emitter, const kl_variable *variable),
                               void (*fail)(void *emitter, kl_location at, const char *what),
                               const char *case_suffix) {
  return (klg_c_printer){.out = out,
                         .emitter = emitter,
                         .expression = expression,
                         .declaration = declaration,
                         .fail = fail,
                         .case_suffix = case_suffix};
}

void klg_c_block(const klg_c_printer *p, const kl_node *n, int depth) {
  if (n && n->kind == KL_STMT_COMPOUND) {
    klg_c_statement(p, n, depth);
    return;
  }
  klg_indent(p->out, depth);
  klg_puts(p->out, "{\n");
  if (n) klg_c_statement(p, n, depth + 1);
  klg_indent(p->out, depth);
  klg_puts(p->out, "}\n");
}

/* An if, while or do condition. */
static void klg_c_condition(const klg_c_printer *p, const kl_node *condition) {
  if (p->condition)
    p->condition(p->emitter, condition);
  else
    p->expression(p->emitter, condition);
}

void klg_c_statement(const klg_c_printer *p, const kl_node *n, int depth) {
  klg_buf *o = p->out;
  if (p->statement && p->statement(p->emitter, n, depth)) return;
  switch (n->kind) {
    case KL_STMT_COMPOUND:
      klg_indent(o, depth);
      klg_puts(o, "{\n");
      for (const kl_node *s = n->body; s; s = s->next) klg_c_statement(p, s, depth + 1);
      klg_indent(o, depth);
      klg_puts(o, "}\n");
      return;
    case KL_STMT_EXPRESSION:
      klg_indent(o, depth);
      p->expression(p->emitter, n->lhs);
      klg_puts(o, ";\n");
      return;
    case KL_STMT_DECLARATION:
      klg_indent(o, depth);
      p->declaration(p->emitter, n->variable);
      klg_puts(o, ";\n");
      return;
    case KL_STMT_IF:
      klg_indent(o, depth);
      klg_puts(o, "if (");
      klg_c_condition(p, n->condition);
      klg_puts(o, ")\n");
      klg_c_block(p, n->then, depth);
      if (n->otherwise) {
        klg_indent(o, depth);
        klg_puts(o, "else\n");
        klg_c_block(p, n->otherwise, depth);
      }
      return;
    case KL_STMT_FOR: {
      /* an init that is not one declaration or expression goes in a block
       * around the loop (a __local declaration too: GLSL hoists it) */
      bool simple =
          !n->init ||
          (!n->init->next &&
           (n->init->kind == KL_STMT_EXPRESSION || n->init->kind == KL_STMT_EMPTY ||
            (n->init->kind == KL_STMT_DECLARATION && n->init->variable->space != KL_SPACE_LOCAL)));
      int d = depth;
      if (!simple) {
        klg_indent(o, depth);
        klg_puts(o, "{\n");
        for (const kl_node *s = n->init; s; s = s->next) klg_c_statement(p, s, depth + 1);
        d = depth + 1;
      }
      klg_indent(o, d);
      klg_puts(o, "for (");
      if (simple && n->init && n->init->kind == KL_STMT_DECLARATION)
        p->declaration(p->emitter, n->init->variable);
      else if (simple && n->init && n->init->kind == KL_STMT_EXPRESSION)
        p->expression(p->emitter, n->init->lhs);
      klg_puts(o, "; ");
      if (n->condition) klg_c_condition(p, n->condition);
      klg_puts(o, "; ");
      if (n->increment) p->expression(p->emitter, n->increment);
      klg_puts(o, ")\n");
      klg_c_block(p, n->body, d);
      if (!simple) {
        klg_indent(o, depth);
        klg_puts(o, "}\n");
      }
      return;
    }
    case KL_STMT_WHILE:
      klg_indent(o, depth);
      klg_puts(o, "while (");
      klg_c_condition(p, n->condition);
      klg_puts(o, ")\n");
      klg_c_block(p, n->body, depth);
      return;
    case KL_STMT_DO:
      klg_indent(o, depth);
      klg_puts(o, "do\n");
      klg_c_block(p, n->body, depth);
      klg_indent(o, depth);
      klg_puts(o, "while (");
      klg_c_condition(p, n->condition);
      klg_puts(o, ");\n");
      return;
    case KL_STMT_SWITCH:
      klg_indent(o, depth);
      klg_puts(o, "switch (");
      p->expression(p->emitter, n->condition);
      klg_puts(o, ")\n");
      klg_c_block(p, n->body, depth);
      return;
    case KL_STMT_CASE:
      klg_indent(o, depth > 0 ? depth - 1 : 0);
      if (n->is_default)
        klg_puts(o, "default:\n");
      else
        klg_printf(o, "case %lld%s:\n", (long long)n->case_value, p->case_suffix);
      if (n->body) klg_c_statement(p, n->body, depth);
      return;
    case KL_STMT_BREAK:
      klg_indent(o, depth);
      klg_puts(o, "break;\n");
      return;
    case KL_STMT_CONTINUE:
      klg_indent(o, depth);
      klg_puts(o, "continue;\n");
      return;
    case KL_STMT_RETURN:
      klg_indent(o, depth);
      if (n->lhs) {
        klg_puts(o, "return ");
        p->expression(p->emitter, n->lhs);
        klg_puts(o, ";\n");
      } else {
        klg_puts(o, "return;\n");
      }
      return;
    case KL_STMT_EMPTY:
      klg_indent(o, depth);
      klg_puts(o, ";\n");
      return;
    default:
      p->fail(p->emitter, n->location, "this statement");
      return;
  }
}

/* "(" lhs between rhs close */
static void klg_c_pair(const klg_c_printer *p, const kl_node *lhs, const char *between,
                       const kl_node *rhs, const char *close) {
  klg_puts(p->out, "(");
  p->expression(p->emitter, lhs);
  klg_puts(p->out, between);
  p->expression(p->emitter, rhs);
  klg_puts(p->out, close);
}

/* " op " or " op= " */
static const char *klg_c_operator(klg_buf *o, kl_operator op, bool assign) {
  if (assign) return op == KL_OP_NONE ? " = " : kl_format(o->ctx, " %s= ", kl_operator_text(op));
  return kl_format(o->ctx, " %s ", kl_operator_text(op));
}

bool klg_c_expression(const klg_c_printer *p, const kl_node *n) {
  klg_buf *o = p->out;
  switch (n->kind) {
    case KL_EXPR_BINARY:
      klg_c_pair(p, n->lhs, klg_c_operator(o, n->op, false), n->rhs, ")");
      return true;
    case KL_EXPR_ASSIGN:
      klg_c_pair(p, n->lhs, klg_c_operator(o, n->op, true), n->rhs, ")");
      return true;
    case KL_EXPR_COMMA:
      klg_c_pair(p, n->lhs, ", ", n->rhs, ")");
      return true;
    case KL_EXPR_CONDITIONAL:
      klg_puts(o, "(");
      p->expression(p->emitter, n->condition);
      klg_puts(o, " ? ");
      p->expression(p->emitter, n->then);
      klg_puts(o, " : ");
      p->expression(p->emitter, n->otherwise);
      klg_puts(o, ")");
      return true;
    case KL_EXPR_INDEX:
      klg_c_pair(p, n->lhs, ")[", n->rhs, "]");
      return true;
    case KL_EXPR_MEMBER:
      klg_puts(o, "(");
      p->expression(p->emitter, n->lhs);
      klg_printf(o, ")%s%s", n->is_arrow ? "->" : ".", n->member->name);
      return true;
    case KL_EXPR_INIT_LIST:
      klg_puts(o, "{");
      klg_c_arguments(p, n->args);
      klg_puts(o, "}");
      return true;
    default:
      return false;
  }
}

void klg_c_arguments(const klg_c_printer *p, const kl_node *arguments) {
  for (const kl_node *a = arguments; a; a = a->next) {
    p->expression(p->emitter, a);
    if (a->next) klg_puts(p->out, ", ");
  }
}

bool klg_int_literal(klg_buf *o, const kl_type *t, uint64_t v, const klg_int_spelling *s) {
  kl_type_kind kind = t->kind;
  if (s->size_types_as_long && kind == KL_TYPE_PTRDIFF_T) kind = KL_TYPE_LONG;
  if (s->size_types_as_long && kind == KL_TYPE_SIZE_T) kind = KL_TYPE_ULONG;
  switch (kind) {
    case KL_TYPE_BOOL:
      klg_puts(o, v ? "true" : "false");
      return true;
    case KL_TYPE_INT:
      if ((int32_t)v == INT32_MIN)
        klg_puts(o, "(-2147483647 - 1)");
      else
        klg_printf(o, (int32_t)v < 0 ? "(%d)" : "%d", (int32_t)v);
      return true;
    case KL_TYPE_UINT:
      klg_printf(o, "%uu", (uint32_t)v);
      return true;
    case KL_TYPE_LONG:
      if ((int64_t)v == INT64_MIN)
        klg_puts(o, s->long_min);
      else
        klg_printf(o, (int64_t)v < 0 ? "(%lld%s)" : "%lld%s", (long long)(int64_t)v,
                   s->long_suffix);
      return true;
    case KL_TYPE_ULONG:
      klg_printf(o, "%llu%s", (unsigned long long)v, s->ulong_suffix);
      return true;
    default:
      return false;
  }
}
