// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's statements inside a work-item loop (emit_c.c). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_abi.h"
#include "emit_c_internal.h"
#include "translate.h"

/* --------------------------------------------------------- statements */

void kc_close(kc_emitter *e, const char *text) {
  e->indent--;
  kc_indent(e);
  klg_puts(e->out, text);
}

void kc_indent(kc_emitter *e) {
  for (int i = 0; i < e->indent; i++) klg_puts(e->out, "  ");
}

void kc_stmt(kc_emitter *e, const kl_node *node);

void kc_initializer(kc_emitter *e, const kl_node *init) {
  if (init->kind == KL_EXPR_INIT_LIST || init->kind == KL_STMT_COMPOUND) {
    klg_puts(e->out, "{");
    for (const kl_node *item = init->kind == KL_EXPR_INIT_LIST ? init->args : init->body; item;
         item = item->next) {
      kc_initializer(e, item);
      if (item->next) klg_puts(e->out, ", ");
    }
    klg_puts(e->out, "}");
    return;
  }
  kc_expr(e, init);
}

static void kc_declaration(kc_emitter *e, const kl_node *node) {
  kl_variable *var = node->variable;
  if (!var) return;
  kc_var *info = kc_var_of(e, var);
  if (!info) return;
  if (e->analyzing && info->decl_region == -3) info->decl_region = e->region;
  if (var->space == KL_SPACE_LOCAL) {
    if (var->initializer) kc_error(e, var->location, "a __local variable cannot be initialised");
    return; /* a pointer into the group's scratch, set up in the prologue */
  }
  if (e->analyzing) kc_var_use(e, var);
  const char *name = kc_var_name(e, var);
  klg_buf *o = e->out;
  switch (info->cls) {
    case KC_VAR_ARRAY:
    case KC_VAR_GROUP: {
      if (!var->initializer) return;
      kc_indent(e);
      const char *target = info->cls == KC_VAR_ARRAY ? kl_format(e->ctx, "%s[__li]", name) : name;
      if (var->type->kind == KL_TYPE_ARRAY || var->initializer->kind == KL_STMT_COMPOUND ||
          var->initializer->kind == KL_EXPR_INIT_LIST) {
        int t = e->temp_counter++;
        klg_printf(o, "{ %s = ", kc_decl(e, var->type, kl_format(e->ctx, "__init%d", t)));
        kc_initializer(e, var->initializer);
        klg_printf(o, "; __builtin_memcpy(&%s, &__init%d, sizeof __init%d); }\n", target, t, t);
      } else {
        klg_printf(o, "%s = ", target);
        kc_expr(e, var->initializer);
        klg_puts(o, ";\n");
      }
      return;
    }
    default:
      kc_indent(e);
      klg_puts(o, kc_decl(e, var->type, name));
      if (var->initializer) {
        klg_puts(o, " = ");
        kc_initializer(e, var->initializer);
      } else if (var->type->kind != KL_TYPE_ARRAY && var->type->kind != KL_TYPE_STRUCT) {
        /* OpenCL leaves it undefined; zero keeps the C compiler quiet and
         * results reproducible */
        klg_puts(o, " = {0}");
      }
      klg_puts(o, ";\n");
      return;
  }
}

static void kc_body(kc_emitter *e, const kl_node *node) {
  if (node && node->kind == KL_STMT_COMPOUND) {
    kc_stmt(e, node);
    return;
  }
  klg_puts(e->out, "{\n");
  e->indent++;
  if (node) kc_stmt(e, node);
  kc_close(e, "}\n");
}

/* An indented `before` condition `after`: "while (c) ", "switch (c) ". */
static void kc_head(kc_emitter *e, const char *before, const kl_node *condition,
                    const char *after) {
  kc_indent(e);
  klg_puts(e->out, before);
  kc_expr(e, condition);
  klg_puts(e->out, after);
}

/* The body of a loop (`loop`) or a switch: where break (and, in a loop,
 * continue) lands. */
static void kc_loop_body(kc_emitter *e, const kl_node *body, bool loop) {
  e->loop_depth += loop;
  e->breakable_depth++;
  kc_body(e, body);
  e->loop_depth -= loop;
  e->breakable_depth--;
}

void kc_stmt(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  if (kc_report_stmt(e, node)) return;
  switch (node->kind) {
    case KL_STMT_COMPOUND:
      kc_indent(e);
      klg_puts(o, "{\n");
      e->indent++;
      for (const kl_node *child = node->body; child; child = child->next) kc_stmt(e, child);
      kc_close(e, "}\n");
      return;
    case KL_STMT_EXPRESSION:
      if (kc_is_barrier(node->lhs)) {
        kc_error(e, node->location,
                 "this barrier is in control flow that the C target cannot split into "
                 "work-group regions (a condition that may differ between work-items, a "
                 "switch, or a helper function); the CPU backend supports barriers in "
                 "work-group-uniform if/for/while/do and straight-line code of a kernel");
        return;
      }
      kc_indent(e);
      kc_expr(e, node->lhs);
      klg_puts(o, ";\n");
      return;
    case KL_STMT_DECLARATION:
      kc_declaration(e, node);
      return;
    case KL_STMT_IF:
      kc_head(e, "if (", node->condition, ") ");
      kc_body(e, node->then);
      if (node->otherwise) {
        kc_indent(e);
        klg_puts(o, "else ");
        kc_body(e, node->otherwise);
      }
      return;
    case KL_STMT_FOR:
      kc_indent(e);
      klg_puts(o, "{\n");
      e->indent++;
      for (const kl_node *init = node->init; init; init = init->next) kc_stmt(e, init);
      kc_indent(e);
      klg_puts(o, "for (; ");
      if (node->condition) kc_expr(e, node->condition);
      klg_puts(o, "; ");
      if (node->increment) kc_expr(e, node->increment);
      klg_puts(o, ") ");
      kc_loop_body(e, node->body, true);
      kc_close(e, "}\n");
      return;
    case KL_STMT_WHILE:
    case KL_STMT_SWITCH: {
      bool loop = node->kind == KL_STMT_WHILE;
      kc_head(e, loop ? "while (" : "switch (", node->condition, ") ");
      kc_loop_body(e, node->body, loop);
      return;
    }
    case KL_STMT_DO:
      kc_indent(e);
      klg_puts(o, "do ");
      kc_loop_body(e, node->body, true);
      kc_head(e, "while (", node->condition, ");\n");
      return;
    case KL_STMT_CASE:
      kc_indent(e);
      if (node->is_default)
        klg_puts(o, "default:\n");
      else
        klg_printf(o, "case %" PRId64 ":\n", node->case_value);
      if (node->body)
        kc_stmt(e, node->body);
      else {
        kc_indent(e);
        klg_puts(o, ";\n");
      }
      return;
    case KL_STMT_BREAK:
    case KL_STMT_CONTINUE: {
      bool is_break = node->kind == KL_STMT_BREAK;
      if (e->in_kernel && (is_break ? e->breakable_depth : e->loop_depth) == 0) {
        kc_error(e, node->location,
                 "this %s leaves a loop that contains a barrier from inside control flow the "
                 "C target cannot make work-group-uniform",
                 is_break ? "break" : "continue");
        return;
      }
      kc_indent(e);
      klg_puts(o, is_break ? "break;\n" : "continue;\n");
      return;
    }
    case KL_STMT_RETURN:
      kc_indent(e);
      if (e->in_kernel) {
        if (e->barrier_mode)
          klg_printf(o, "{ __ret[__li] = %d; goto __kl_next%d; }\n", KC_RETURNED, e->region_label);
        else
          klg_printf(o, "goto __kl_next%d;\n", e->region_label);
        return;
      }
      klg_puts(o, "return");
      if (node->lhs) {
        klg_puts(o, " ");
        kc_expr(e, node->lhs);
      }
      klg_puts(o, ";\n");
      return;
    case KL_STMT_EMPTY:
      return;
    default:
      kc_error(e, node->location, "this statement is not supported by the C target");
      return;
  }
}
