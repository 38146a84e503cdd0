// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's expressions (emit_c.c says how a kernel becomes C):
 * literals, vector values, conversions, operators, swizzles. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_abi.h"
#include "emit_c_internal.h"
#include "translate.h"

/* The forms every C-syntax target prints alike (gpu_emit.h). */
static void kc_shared_expr(kc_emitter *e, const kl_node *node) {
  e->printer.out = e->out;
  klg_c_expression(&e->printer, node);
}

/* -------------------------------------------------------- expressions */

static void kc_literal(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  const kl_type *type = node->type;
  if (node->kind == KL_EXPR_FLOAT_LITERAL) {
    double v = node->float_value;
    bool is_float = type->kind == KL_TYPE_FLOAT;
    if (v != v) {
      klg_puts(o, is_float ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")");
    } else if (v == __builtin_inf() || v == -__builtin_inf()) {
      klg_printf(o, "(%s%s)", v < 0 ? "-" : "", is_float ? "__builtin_inff()" : "__builtin_inf()");
    } else {
      klg_printf(o, is_float ? "%af" : "%a", v);
    }
    return;
  }
  bool is_signed = kl_type_is_signed(type);
  const char *name = kc_type(e, type);
  if (type->kind == KL_TYPE_BOOL) {
    klg_puts(o, node->int_value ? "((_Bool)1)" : "((_Bool)0)");
  } else if (is_signed) {
    int64_t v = (int64_t)node->int_value;
    if (v == INT64_MIN)
      klg_printf(o, "((%s)(-9223372036854775807ll - 1))", name);
    else
      klg_printf(o, "((%s)%" PRId64 "ll)", name, v);
  } else {
    klg_printf(o, "((%s)%" PRIu64 "ull)", name, node->int_value);
  }
}

/* A scalar value broadcast to a vector type. */
static void kc_splat(kc_emitter *e, const kl_type *vector, const kl_node *scalar) {
  klg_buf *o = e->out;
  const char *element = kc_type(e, vector->element);
  if (e->static_init) {
    klg_puts(o, "{");
    for (int i = 0; i < vector->length; i++) {
      if (i) klg_puts(o, ", ");
      klg_printf(o, "(%s)", element);
      kc_expr(e, scalar);
    }
    klg_puts(o, "}");
    return;
  }
  int t = e->temp_counter++;
  klg_printf(o, "({ %s __s%d = (%s)(", element, t, element);
  kc_expr(e, scalar);
  klg_printf(o, "); (%s){", kc_type(e, vector));
  for (int i = 0; i < vector->length; i++) klg_printf(o, "%s__s%d", i ? ", " : "", t);
  klg_puts(o, "}; })");
}

static void kc_vector_literal(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  const kl_type *type = node->type;
  const char *element = kc_type(e, type->element);
  if (node->arg_count == 1 && node->args && !kc_is_vector(node->args->type)) {
    kc_splat(e, type, node->args);
    return;
  }
  bool any_vector = false;
  for (const kl_node *part = node->args; part; part = part->next)
    if (kc_is_vector(part->type)) any_vector = true;
  if (!any_vector || e->static_init) {
    klg_printf(o, e->static_init ? "{" : "((%s){", kc_type(e, type));
    bool first = true;
    for (const kl_node *part = node->args; part; part = part->next) {
      if (kc_is_vector(part->type)) {
        kc_error(e, part->location,
                 "a vector part in a constant vector literal is not supported by the C target");
        return;
      }
      klg_printf(o, "%s(%s)(", first ? "" : ", ", element);
      kc_expr(e, part);
      klg_puts(o, ")");
      first = false;
    }
    klg_puts(o, e->static_init ? "}" : "})");
    return;
  }
  int base = e->temp_counter;
  e->temp_counter += node->arg_count + 1;
  klg_puts(o, "({ ");
  int index = 0;
  for (const kl_node *part = node->args; part; part = part->next, index++) {
    klg_printf(o, "%s __p%d_%d = ", kc_type(e, part->type), base, index);
    kc_expr(e, part);
    klg_puts(o, "; ");
  }
  klg_printf(o, "(%s){", kc_type(e, type));
  index = 0;
  bool first = true;
  for (const kl_node *part = node->args; part; part = part->next, index++) {
    int count = kc_is_vector(part->type) ? part->type->length : 1;
    for (int c = 0; c < count; c++) {
      if (kc_is_vector(part->type))
        klg_printf(o, "%s(%s)__p%d_%d[%d]", first ? "" : ", ", element, base, index, c);
      else
        klg_printf(o, "%s(%s)__p%d_%d", first ? "" : ", ", element, base, index);
      first = false;
    }
  }
  klg_puts(o, "}; })");
}

static int kc_element_bits(const kl_type *type) {
  const kl_type *scalar = kc_is_vector(type) ? type->element : type;
  int bits = scalar->size * 8;
  return bits > 0 ? bits : 32;
}

static void kc_conversion(kc_emitter *e, const kl_type *to, const kl_node *from) {
  klg_buf *o = e->out;
  const kl_type *source = from->type;
  if (to->kind == KL_TYPE_VOID) {
    klg_puts(o, "((void)(");
    kc_expr(e, from);
    klg_puts(o, "))");
    return;
  }
  if (kc_is_vector(to) && !kc_is_vector(source)) {
    kc_splat(e, to, from);
    return;
  }
  if (kc_is_vector(to) && kc_is_vector(source)) {
    if (kl_type_equal(to->element, source->element)) {
      kc_expr(e, from);
      return;
    }
    klg_printf(o, "__builtin_convertvector(");
    kc_expr(e, from);
    klg_printf(o, ", %s)", kc_type(e, to));
    return;
  }
  if (source && source->kind == KL_TYPE_ARRAY && to->kind == KL_TYPE_POINTER) {
    kc_expr(e, from);
    return;
  }
  if (to->kind == KL_TYPE_STRUCT || to->kind == KL_TYPE_ARRAY) {
    kc_expr(e, from);
    return;
  }
  if (e->static_init) {
    klg_printf(o, "(%s)(", kc_type(e, to));
  } else {
    klg_printf(o, "((%s)(", kc_type(e, to));
  }
  kc_expr(e, from);
  klg_puts(o, e->static_init ? ")" : "))");
}

static bool kc_is_comparison(kl_operator op) {
  return op >= KL_OP_EQ && op <= KL_OP_GE;
}

/* The right operand of a shift, masked to the width of the left (6.3.j). */
static void kc_shift_count(kc_emitter *e, const kl_type *left, const kl_node *count) {
  int bits = kc_element_bits(left);
  if (!kc_is_vector(left) && bits < 32) bits = 32; /* promoted */
  klg_puts(e->out, "((");
  kc_expr(e, count);
  klg_printf(e->out, ") & %d)", bits - 1);
}

static void kc_binary(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  kl_operator op = node->op;
  bool vector = kc_is_vector(node->lhs->type) || kc_is_vector(node->rhs->type);
  if (vector && (op == KL_OP_LOGICAL_AND || op == KL_OP_LOGICAL_OR)) {
    klg_printf(o, "((%s)(((", kc_type(e, node->type));
    kc_expr(e, node->lhs);
    klg_printf(o, ") != 0) %s ((", op == KL_OP_LOGICAL_AND ? "&" : "|");
    kc_expr(e, node->rhs);
    klg_puts(o, ") != 0)))");
    return;
  }
  if (vector && kc_is_comparison(op)) {
    klg_printf(o, "((%s)((", kc_type(e, node->type));
    kc_expr(e, node->lhs);
    klg_printf(o, ") %s (", kl_operator_text(op));
    kc_expr(e, node->rhs);
    klg_puts(o, ")))");
    return;
  }
  if (e->gid_fast)
    for (int i = 0; i < e->gid_cmp_count; i++)
      if (e->gid_cmp[i] == node) {
        klg_puts(o, e->gid_cmp_value[i] ? "((int)1)" : "((int)0)");
        return;
      }
  if (op != KL_OP_SHL && op != KL_OP_SHR) {
    kc_shared_expr(e, node);
    return;
  }
  klg_puts(o, "(");
  kc_expr(e, node->lhs);
  klg_printf(o, " %s ", kl_operator_text(op));
  kc_shift_count(e, node->lhs->type, node->rhs);
  klg_puts(o, ")");
}

static void kc_swizzle_read(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  if (node->component_count == 1) {
    klg_puts(o, "(");
    kc_expr(e, node->lhs);
    klg_printf(o, ")[%d]", node->components[0]);
    return;
  }
  int t = e->temp_counter++;
  klg_printf(o, "({ %s __w%d = ", kc_type(e, node->lhs->type), t);
  kc_expr(e, node->lhs);
  klg_printf(o, "; (%s){", kc_type(e, node->type));
  for (int i = 0; i < node->component_count; i++)
    klg_printf(o, "%s__w%d[%d]", i ? ", " : "", t, node->components[i]);
  klg_puts(o, "}; })");
}

/* lhs.xy = rhs, lhs.xy op= rhs */
static void kc_swizzle_assign(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  const kl_node *swizzle = node->lhs;
  int t = e->temp_counter++;
  klg_printf(o, "({ %s *__q%d = &(", kc_type(e, swizzle->lhs->type), t);
  kc_expr(e, swizzle->lhs);
  klg_printf(o, "); %s __r%d = ", kc_type(e, swizzle->type), t);
  if (node->kind == KL_EXPR_ASSIGN && node->op != KL_OP_NONE) {
    klg_printf(o, "(%s){", kc_type(e, swizzle->type));
    for (int i = 0; i < swizzle->component_count; i++)
      klg_printf(o, "%s(*__q%d)[%d]", i ? ", " : "", t, swizzle->components[i]);
    klg_printf(o, "} %s ", kl_operator_text(node->op));
    if (node->op == KL_OP_SHL || node->op == KL_OP_SHR)
      kc_shift_count(e, swizzle->type, node->rhs);
    else {
      klg_printf(o, "(%s)(", kc_type(e, swizzle->type));
      kc_expr(e, node->rhs);
      klg_puts(o, ")");
    }
  } else {
    kc_expr(e, node->rhs);
  }
  klg_puts(o, "; ");
  for (int i = 0; i < swizzle->component_count; i++)
    klg_printf(o, "(*__q%d)[%d] = __r%d[%d]; ", t, swizzle->components[i], t, i);
  klg_printf(o, "__r%d; })", t);
}

static void kc_assign(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  kc_note_assign(e, node->lhs);
  if (e->stream_redirect && kc_stream_assign(e, node)) return; /* emit_c_stream.c */
  if (node->lhs->kind == KL_EXPR_SWIZZLE && node->lhs->component_count > 1) {
    kc_swizzle_assign(e, node);
    return;
  }
  klg_puts(o, "(");
  kc_expr(e, node->lhs);
  if (node->op == KL_OP_NONE) {
    klg_puts(o, " = ");
    kc_expr(e, node->rhs);
  } else {
    klg_printf(o, " %s= ", kl_operator_text(node->op));
    if (node->op == KL_OP_SHL || node->op == KL_OP_SHR) {
      kc_shift_count(e, node->lhs->type, node->rhs);
    } else if (kc_is_vector(node->lhs->type) && !kc_is_vector(node->rhs->type)) {
      klg_printf(o, "(%s)(", kc_type(e, node->lhs->type->element));
      kc_expr(e, node->rhs);
      klg_puts(o, ")");
    } else {
      kc_expr(e, node->rhs);
    }
  }
  klg_puts(o, ")");
}

static void kc_variable(kc_emitter *e, const kl_node *node) {
  kl_variable *var = node->variable;
  kc_var_use(e, var);
  const char *name = kc_var_name(e, var);
  if (var->is_program_scope) {
    klg_puts(e->out, name);
    return;
  }
  kc_var *info = kc_var_of(e, var);
  if (!info) return;
  switch (info->cls) {
    case KC_VAR_ARRAY:
      klg_printf(e->out, "%s[__li]", name);
      return;
    case KC_VAR_LOCAL_STATIC:
      if (var->type->kind == KL_TYPE_ARRAY)
        klg_puts(e->out, name);
      else
        klg_printf(e->out, "(*%s)", name);
      return;
    default:
      klg_puts(e->out, name);
      return;
  }
}

/* Unary operators; ! of a vector is OpenCL's mask. */
static void kc_unary(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  if (node->op == KL_OP_LOGICAL_NOT && kc_is_vector(node->lhs->type)) {
    klg_printf(o, "((%s)((", kc_type(e, node->type));
    kc_expr(e, node->lhs);
    klg_puts(o, ") == 0))");
    return;
  }
  if (node->op == KL_OP_ADDRESS_OF) {
    kl_variable *var = kc_root(node->lhs);
    kc_var *info = var && e->analyzing && !var->is_program_scope ? kc_var_of(e, var) : NULL;
    if (info) info->address_taken = true;
  }
  bool step = node->op >= KL_OP_PRE_INCREMENT && node->op <= KL_OP_POST_DECREMENT;
  if (step) kc_note_assign(e, node->lhs);
  if (node->op == KL_OP_POST_INCREMENT || node->op == KL_OP_POST_DECREMENT) {
    klg_puts(o, "(");
    kc_expr(e, node->lhs);
    klg_printf(o, "%s)", kl_unary_text(node->op));
    return;
  }
  klg_printf(o, "(%s", kl_unary_text(node->op));
  if (node->lhs && node->lhs->kind == KL_EXPR_SWIZZLE && node->lhs->component_count > 1 &&
      node->op >= KL_OP_PRE_INCREMENT && node->op <= KL_OP_POST_DECREMENT) {
    kc_error(e, node->location,
             "++/-- of a multi-component swizzle is not supported by the C target");
    return;
  }
  kc_expr(e, node->lhs);
  klg_puts(o, ")");
}

/* a ? b : c; with a vector condition, per component by its sign bit. */
static void kc_conditional(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  if (kc_is_vector(node->condition->type)) {
    /* per component, by the condition's most significant bit */
    int t = e->temp_counter++;
    const char *type = kc_type(e, node->type);
    klg_printf(o, "({ %s __c%d = ", kc_type(e, node->condition->type), t);
    kc_expr(e, node->condition);
    klg_printf(o, "; %s __a%d = ", type, t);
    kc_expr(e, node->then);
    klg_printf(o, "; %s __b%d = ", type, t);
    kc_expr(e, node->otherwise);
    klg_printf(o,
               "; %s __r%d; for (int __i = 0; __i < %d; __i++) __r%d[__i] = __c%d[__i] < 0 ? "
               "__a%d[__i] : __b%d[__i]; __r%d; })",
               type, t, node->type->length, t, t, t, t, t);
    return;
  }
  kc_shared_expr(e, node);
}

/* A call of a helper function: with the work-item's context first. */
static void kc_call(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  const kl_function *callee = node->function;
  if (!callee) {
    kc_error(e, node->location, "call of an unknown function");
    return;
  }
  if (callee->is_kernel) {
    kc_error(e, node->location,
             "calling kernel '%s' from another function is not supported by the C target",
             callee->name);
    return;
  }
  if (kc_barrier_helper(callee)) {
    kc_error(e, node->location,
             "'%s' contains a barrier: the C target inlines a call of it that is a statement "
             "of its own, a declaration's initializer or an assignment's right-hand side, "
             "not one inside another expression or statement",
             callee->name);
    return;
  }
  if (e->in_kernel && e->barrier_mode && e->region < 0) {
    kc_error(e, node->location,
             "a function call in work-group-level control flow is not supported by the C target");
    return;
  }
  e->uses_calls = true;
  klg_printf(o, "kl_f_%s(__wi", callee->name);
  for (const kl_node *arg = node->args; arg; arg = arg->next) {
    klg_puts(o, ", ");
    kc_expr(e, arg);
  }
  klg_puts(o, ")");
}

void kc_expr(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  if (!node) {
    klg_puts(o, "0");
    return;
  }
  if (node->check_fits && e->fits_fast) {
    klg_puts(o, "1");
    return;
  }
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL:
    case KL_EXPR_FLOAT_LITERAL:
      kc_literal(e, node);
      return;
    case KL_EXPR_VARIABLE:
      kc_variable(e, node);
      return;
    case KL_EXPR_VECTOR_LITERAL:
      kc_vector_literal(e, node);
      return;
    case KL_EXPR_UNARY:
      kc_unary(e, node);
      return;
    case KL_EXPR_BINARY:
      kc_binary(e, node);
      return;
    case KL_EXPR_ASSIGN:
      kc_assign(e, node);
      return;
    case KL_EXPR_CONDITIONAL:
      kc_conditional(e, node);
      return;
    case KL_EXPR_CALL:
      kc_call(e, node);
      return;
    case KL_EXPR_BUILTIN:
      kc_builtin(e, node);
      return;
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
      kc_conversion(e, node->type, node->lhs);
      return;
    case KL_EXPR_SWIZZLE:
      kc_swizzle_read(e, node);
      return;
    case KL_EXPR_COMMA:
    case KL_EXPR_INDEX:
    case KL_EXPR_MEMBER:
      kc_shared_expr(e, node);
      return;
    default:
      kc_error(e, node->location, "this expression is not supported by the C target");
      return;
  }
}
