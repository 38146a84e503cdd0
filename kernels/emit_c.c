// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter: the CPU backend's translation of a program.
 *
 * Each kernel becomes a function that runs a range of whole work-groups
 * (see emit_c_abi.h). Its body is split at the barriers that sit in
 * work-group-uniform control flow: the statements between two barriers form
 * a region, emitted as a loop over the group's work-items; the control flow
 * around barriers (compound statements, and ifs and loops whose conditions
 * are uniform) is emitted once per work-group. A kernel without barriers is
 * one work-item loop the C compiler can vectorise.
 *
 * Variables: one used in a single region is an ordinary C local; one whose
 * value is a pure function of the work-item's ids and the parameters is
 * recomputed in each region that uses it; one used in the group-level
 * control flow is one scalar per work-group (its value is uniform there);
 * any other that lives across a barrier gets one copy per work-item in the
 * group's scratch memory. Barriers in non-uniform control flow, in helper
 * functions or in switch statements are rejected with a diagnostic.
 *
 * Names: every user identifier gets a prefix (v<id>_ variables, kl_f_
 * functions, kl_s<n> structs), so nothing clashes with C or libm. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_abi.h"
#include "emit_c_internal.h"
#include "translate.h"

/* ------------------------------------------------------------ buffers */

static void kc_reserve(kc_buf *buf, size_t more) {
  if (buf->failed) return;
  if (buf->length + more + 1 <= buf->capacity) return;
  size_t capacity = buf->capacity ? buf->capacity : 4096;
  while (buf->length + more + 1 > capacity) capacity *= 2;
  char *grown = realloc(buf->data, capacity);
  if (!grown) {
    buf->failed = true;
    return;
  }
  buf->data = grown;
  buf->capacity = capacity;
}

void kc_puts(kc_buf *buf, const char *text) {
  size_t length = strlen(text);
  kc_reserve(buf, length);
  if (buf->failed) return;
  memcpy(buf->data + buf->length, text, length + 1);
  buf->length += length;
}

void kc_printf(kc_buf *buf, const char *format, ...) {
  char small[512];
  va_list args;
  va_start(args, format);
  int length = vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (length < 0) return;
  if ((size_t)length < sizeof small) {
    kc_puts(buf, small);
    return;
  }
  kc_reserve(buf, (size_t)length);
  if (buf->failed) return;
  va_start(args, format);
  vsnprintf(buf->data + buf->length, (size_t)length + 1, format, args);
  va_end(args);
  buf->length += (size_t)length;
}

void kc_buf_free(kc_buf *buf) {
  free(buf->data);
  memset(buf, 0, sizeof *buf);
}

void kc_error(kc_emitter *e, kl_location at, const char *format, ...) {
  if (e->analyzing) return;
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  e->failed = true;
  kl_error(e->ctx, at, "%s", message);
}

bool kc_helper_new(kc_emitter *e, const char *name) {
  for (int i = 0; i < e->helper_count; i++)
    if (strcmp(e->helper_names[i], name) == 0) return false;
  if (e->helper_count == e->helper_capacity) {
    int capacity = e->helper_capacity ? e->helper_capacity * 2 : 64;
    char **grown = realloc(e->helper_names, (size_t)capacity * sizeof *grown);
    if (!grown) {
      e->failed = true;
      return false;
    }
    e->helper_names = grown;
    e->helper_capacity = capacity;
  }
  e->helper_names[e->helper_count++] = kl_strndup(e->ctx, name, strlen(name));
  return true;
}

/* -------------------------------------------------------------- types */

const char *kc_scalar_name(kl_type_kind kind) {
  switch (kind) {
    case KL_TYPE_VOID: return "void";
    case KL_TYPE_BOOL: return "_Bool";
    case KL_TYPE_CHAR: return "schar";
    case KL_TYPE_UCHAR: return "uchar";
    case KL_TYPE_SHORT: return "short";
    case KL_TYPE_USHORT: return "ushort";
    case KL_TYPE_INT: return "int";
    case KL_TYPE_UINT: return "uint";
    case KL_TYPE_LONG: return "long";
    case KL_TYPE_ULONG: return "ulong";
    case KL_TYPE_SIZE_T: return "size_t";
    case KL_TYPE_PTRDIFF_T: return "ptrdiff_t";
    case KL_TYPE_HALF: return "_Float16";
    case KL_TYPE_FLOAT: return "float";
    case KL_TYPE_DOUBLE: return "double";
    default: return NULL;
  }
}

static const char *kc_vector_element_name(kl_type_kind kind) {
  return kind == KL_TYPE_CHAR ? "char" : kc_scalar_name(kind);
}

static int kc_struct_index(kc_emitter *e, const kl_type *type) {
  for (int i = 0; i < e->program->struct_count; i++) {
    const kl_type *s = e->program->structs[i];
    if (s == type || (s->members && s->members == type->members)) return i;
    if (s->name && type->name && strcmp(s->name, type->name) == 0 && !s->members == !type->members)
      return i;
  }
  return -1;
}

static const char *kc_qualifiers(unsigned qualifiers) {
  if ((qualifiers & KL_QUALIFIER_CONST) && (qualifiers & KL_QUALIFIER_VOLATILE))
    return "const volatile ";
  if (qualifiers & KL_QUALIFIER_CONST) return "const ";
  if (qualifiers & KL_QUALIFIER_VOLATILE) return "volatile ";
  return "";
}

/* The name of a non-derived type. */
static const char *kc_base(kc_emitter *e, const kl_type *type) {
  switch (type->kind) {
    case KL_TYPE_VECTOR:
      return kl_format(e->ctx, "%s%d", kc_vector_element_name(type->element->kind), type->length);
    case KL_TYPE_STRUCT: {
      int index = kc_struct_index(e, type);
      if (index < 0) return kl_format(e->ctx, "struct kl_t_%s", type->name ? type->name : "anon");
      return kl_format(e->ctx, "struct kl_s%d", index);
    }
    default: {
      const char *name = kc_scalar_name(type->kind);
      return name ? name : "void";
    }
  }
}

const char *kc_decl(kc_emitter *e, const kl_type *type, const char *inner) {
  switch (type->kind) {
    case KL_TYPE_ARRAY: {
      const char *wrapped = inner[0] == '*' ? kl_format(e->ctx, "(%s)", inner) : inner;
      return kc_decl(e, type->element, kl_format(e->ctx, "%s[%d]", wrapped, type->length));
    }
    case KL_TYPE_POINTER: {
      const char *quals = "";
      if (type->qualifiers & KL_QUALIFIER_CONST) quals = " const";
      if (type->qualifiers & KL_QUALIFIER_RESTRICT) quals = " restrict";
      return kc_decl(e, type->element,
                     kl_format(e->ctx, "*%s%s%s", quals, inner[0] && quals[0] ? " " : "", inner));
    }
    case KL_TYPE_FUNCTION:
      return kl_format(e->ctx, "void %s", inner);
    default:
      return kl_format(e->ctx, "%s%s%s%s", kc_qualifiers(type->qualifiers), kc_base(e, type),
                       inner[0] ? " " : "", inner);
  }
}

const char *kc_type(kc_emitter *e, const kl_type *type) {
  return kc_decl(e, type, "");
}

/* The type without its top-level const (an array's elements included): the
 * storage of a variable that is declared in one place and assigned in
 * another (one per group, or one per work-item across barriers). */
static const kl_type *kc_unqualified(kc_emitter *e, const kl_type *type) {
  if (type->kind == KL_TYPE_ARRAY) {
    const kl_type *element = kc_unqualified(e, type->element);
    if (element == type->element) return type;
    kl_type *copy = kl_alloc(e->ctx, sizeof *copy);
    *copy = *type;
    copy->element = (kl_type *)element;
    return copy;
  }
  if (!(type->qualifiers & KL_QUALIFIER_CONST)) return type;
  kl_type *copy = kl_alloc(e->ctx, sizeof *copy);
  *copy = *type;
  copy->qualifiers &= ~(unsigned)KL_QUALIFIER_CONST;
  return copy;
}

/* ------------------------------------------------------------ helpers */

bool kc_node_int(const kl_node *node, int64_t *value) {
  while (node && (node->kind == KL_EXPR_CONVERT || node->kind == KL_EXPR_CAST)) node = node->lhs;
  if (!node || node->kind != KL_EXPR_INT_LITERAL) return false;
  *value = (int64_t)node->int_value;
  return true;
}

static bool kc_is_vector(const kl_type *type) {
  return type && type->kind == KL_TYPE_VECTOR;
}

static bool kc_is_barrier(const kl_node *node) {
  return node && node->kind == KL_EXPR_BUILTIN && node->builtin &&
         node->builtin->id == KL_BUILTIN_BARRIER;
}

static bool kc_is_barrier_statement(const kl_node *stmt) {
  return stmt->kind == KL_STMT_EXPRESSION && kc_is_barrier(stmt->lhs);
}

/* Whether a tree holds a barrier; user calls count when the callee has one. */
static bool kc_has_barrier(const kl_node *node, int depth) {
  if (!node || depth > 400) return false;
  if (kc_is_barrier(node)) return true;
  if (node->kind == KL_EXPR_CALL && node->function && node->function->body &&
      (node->function->features & KL_FEATURE_BARRIER))
    return true;
  const kl_node *children[] = {node->lhs,  node->rhs,       node->condition,
                               node->then, node->otherwise, node->increment};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    if (kc_has_barrier(children[i], depth + 1)) return true;
  for (const kl_node *init = node->init; init; init = init->next) /* every declarator */
    if (kc_has_barrier(init, depth + 1)) return true;
  for (const kl_node *child = node->body; child; child = child->next)
    if (kc_has_barrier(child, depth + 1)) return true;
  for (const kl_node *arg = node->args; arg; arg = arg->next)
    if (kc_has_barrier(arg, depth + 1)) return true;
  if (node->kind == KL_STMT_DECLARATION && node->variable && node->variable->initializer)
    return kc_has_barrier(node->variable->initializer, depth + 1);
  return false;
}

/* A call of a helper with a barrier inside a tree (statements of a
 * switch included), or NULL. */
static const kl_node *kc_barrier_call(const kl_node *node, int depth) {
  if (!node || depth > 400) return NULL;
  if (node->kind == KL_EXPR_CALL && kc_barrier_helper(node->function)) return node;
  const kl_node *children[] = {node->lhs,  node->rhs,       node->condition,
                               node->then, node->otherwise, node->increment};
  const kl_node *found = NULL;
  for (size_t i = 0; i < sizeof children / sizeof *children && !found; i++)
    found = kc_barrier_call(children[i], depth + 1);
  for (const kl_node *init = node->init; init && !found; init = init->next)
    found = kc_barrier_call(init, depth + 1);
  for (const kl_node *child = node->body; child && !found; child = child->next)
    found = kc_barrier_call(child, depth + 1);
  for (const kl_node *arg = node->args; arg && !found; arg = arg->next)
    found = kc_barrier_call(arg, depth + 1);
  if (!found && node->kind == KL_STMT_DECLARATION && node->variable)
    found = kc_barrier_call(node->variable->initializer, depth + 1);
  return found;
}

/* Whether a statement holds a break or continue that leaves it (and so
 * targets a loop around it). */
static bool kc_has_escape(const kl_node *node, bool in_loop, bool in_switch, int depth) {
  if (!node || depth > 400) return false;
  switch (node->kind) {
    case KL_STMT_BREAK: return !in_loop && !in_switch;
    case KL_STMT_CONTINUE: return !in_loop;
    case KL_STMT_FOR:
    case KL_STMT_WHILE:
    case KL_STMT_DO: return kc_has_escape(node->body, true, in_switch, depth + 1);
    case KL_STMT_SWITCH: return kc_has_escape(node->body, in_loop, true, depth + 1);
    case KL_STMT_COMPOUND:
      for (const kl_node *child = node->body; child; child = child->next)
        if (kc_has_escape(child, in_loop, in_switch, depth + 1)) return true;
      return false;
    case KL_STMT_IF:
      return kc_has_escape(node->then, in_loop, in_switch, depth + 1) ||
             kc_has_escape(node->otherwise, in_loop, in_switch, depth + 1);
    case KL_STMT_CASE: return kc_has_escape(node->body, in_loop, in_switch, depth + 1);
    default: return false;
  }
}

static bool kc_has_return(const kl_node *node, int depth) {
  if (!node || depth > 400) return false;
  if (node->kind == KL_STMT_RETURN) return true;
  const kl_node *children[] = {node->then, node->otherwise, node->body};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    if (children[i] && kc_has_return(children[i], depth + 1)) return true;
  if (node->kind == KL_STMT_COMPOUND || node->kind == KL_STMT_SWITCH)
    for (const kl_node *child = node->body; child; child = child->next)
      if (kc_has_return(child, depth + 1)) return true;
  return false;
}

/* ---------------------------------------------------------- variables */

static kc_var *kc_var_of(kc_emitter *e, kl_variable *var) {
  if (var->id < 0) return NULL;
  if (var->id >= e->var_capacity) {
    int capacity = e->var_capacity ? e->var_capacity : 64;
    while (capacity <= var->id) capacity *= 2;
    kc_var **grown = realloc(e->vars, (size_t)capacity * sizeof *grown);
    if (!grown) {
      e->failed = true;
      return NULL;
    }
    memset(grown + e->var_capacity, 0, (size_t)(capacity - e->var_capacity) * sizeof *grown);
    e->vars = grown;
    e->var_capacity = capacity;
  }
  kc_var *info = e->vars[var->id];
  if (!info || info->var != var) {
    info = kl_alloc(e->ctx, sizeof *info);
    info->var = var;
    info->decl_region = -3;
    info->param_index = -1;
    e->vars[var->id] = info;
  }
  return info;
}

/* Adds `region` to a set of regions (arena memory). */
static void kc_region_set_add(kc_emitter *e, int **set, int *count, int *capacity, int region) {
  for (int i = 0; i < *count; i++)
    if ((*set)[i] == region) return;
  if (*count == *capacity) {
    int grown_capacity = *capacity ? *capacity * 2 : 4;
    int *grown = kl_alloc(e->ctx, (size_t)grown_capacity * sizeof *grown);
    if (*count) memcpy(grown, *set, (size_t)*count * sizeof *grown);
    *set = grown;
    *capacity = grown_capacity;
  }
  (*set)[(*count)++] = region;
}

static bool kc_region_set_has(const int *set, int count, int region) {
  for (int i = 0; i < count; i++)
    if (set[i] == region) return true;
  return false;
}

static void kc_var_use(kc_emitter *e, kl_variable *var) {
  if (!e->analyzing || var->is_program_scope) return;
  kc_var *info = kc_var_of(e, var);
  if (!info) return;
  if (e->region < 0) {
    info->used_at_group = true;
    return;
  }
  kc_region_set_add(e, &info->regions, &info->region_count, &info->region_capacity, e->region);
}

static bool kc_var_in_region(const kc_var *info, int region) {
  return kc_region_set_has(info->regions, info->region_count, region);
}

/* The variable an lvalue expression is rooted at, if private. */
static kl_variable *kc_root(const kl_node *node) {
  while (node) {
    switch (node->kind) {
      case KL_EXPR_VARIABLE: return node->variable;
      case KL_EXPR_SWIZZLE:
      case KL_EXPR_MEMBER:
        if (node->kind == KL_EXPR_MEMBER && node->is_arrow) return NULL;
        node = node->lhs;
        break;
      case KL_EXPR_INDEX:
        if (node->lhs->type && node->lhs->type->kind == KL_TYPE_POINTER) return NULL;
        node = node->lhs;
        break;
      default: return NULL;
    }
  }
  return NULL;
}

static void kc_note_assign(kc_emitter *e, const kl_node *lhs) {
  if (!e->analyzing) return;
  kl_variable *var = kc_root(lhs);
  if (!var || var->is_program_scope) return;
  kc_var *info = kc_var_of(e, var);
  if (!info) return;
  info->assigned = true;
  if (e->region >= 0) {
    info->assigned_in_region = true;
    kc_region_set_add(e, &info->assign_regions, &info->assign_region_count,
                      &info->assign_region_capacity, e->region);
  }
}

static const char *kc_var_name(kc_emitter *e, const kl_variable *var) {
  if (var->is_program_scope) return kl_format(e->ctx, "kl_c%d_%s", var->id, var->name);
  return kl_format(e->ctx, "v%d_%s", var->id, var->name);
}

/* A pure expression of the work-item's ids, literals, unassigned parameters
 * and other such variables: safe to recompute after a barrier. */
static bool kc_pure(kc_emitter *e, const kl_node *node, int depth) {
  if (!node || depth > 64) return false;
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL:
    case KL_EXPR_FLOAT_LITERAL: return true;
    case KL_EXPR_VARIABLE: {
      kl_variable *var = node->variable;
      if (var->is_program_scope) return !kc_is_vector(var->type) && var->type->kind != KL_TYPE_ARRAY;
      kc_var *info = kc_var_of(e, var);
      if (!info) return false;
      if (var->is_parameter) return !info->assigned && var->space != KL_SPACE_LOCAL;
      return info->cls == KC_VAR_REMAT;
    }
    case KL_EXPR_UNARY:
      if (node->op == KL_OP_DEREFERENCE || node->op == KL_OP_ADDRESS_OF ||
          node->op >= KL_OP_PRE_INCREMENT)
        return false;
      return kc_pure(e, node->lhs, depth + 1);
    case KL_EXPR_BINARY:
      return kc_pure(e, node->lhs, depth + 1) && kc_pure(e, node->rhs, depth + 1);
    case KL_EXPR_CONDITIONAL:
      return kc_pure(e, node->condition, depth + 1) && kc_pure(e, node->then, depth + 1) &&
             kc_pure(e, node->otherwise, depth + 1);
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
    case KL_EXPR_SWIZZLE: return kc_pure(e, node->lhs, depth + 1);
    case KL_EXPR_VECTOR_LITERAL:
      for (const kl_node *arg = node->args; arg; arg = arg->next)
        if (!kc_pure(e, arg, depth + 1)) return false;
      return true;
    case KL_EXPR_BUILTIN: {
      if (!node->builtin) return false;
      kl_builtin_category category = node->builtin->category;
      if (category == KL_BUILTIN_SYNC || category == KL_BUILTIN_ATOMIC ||
          category == KL_BUILTIN_MEMORY)
        return false;
      for (const kl_node *arg = node->args; arg; arg = arg->next)
        if (!kc_pure(e, arg, depth + 1)) return false;
      return true;
    }
    default: return false;
  }
}

/* Uniform across the work-group: the analysis here, or check.c's mark. */
static bool kc_uniform(kc_emitter *e, const kl_node *node, int depth) {
  if (!node) return true;
  if (node->is_uniform) return true;
  if (depth > 64) return false;
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL:
    case KL_EXPR_FLOAT_LITERAL: return true;
    case KL_EXPR_VARIABLE: {
      kl_variable *var = node->variable;
      if (var->is_program_scope) return true;
      kc_var *info = kc_var_of(e, var);
      if (!info) return false;
      if (var->is_parameter) return !info->assigned || !info->assigned_in_region;
      if (var->space == KL_SPACE_LOCAL) return false;
      if (info->decl_region == -1) return !info->assigned_in_region;
      if (info->cls == KC_VAR_GROUP || info->cls == KC_VAR_REMAT) {
        if (info->assigned) return false;
        return var->initializer && kc_uniform(e, var->initializer, depth + 1);
      }
      return false;
    }
    case KL_EXPR_UNARY:
      if (node->op == KL_OP_DEREFERENCE || node->op == KL_OP_ADDRESS_OF) return false;
      return kc_uniform(e, node->lhs, depth + 1);
    case KL_EXPR_BINARY:
    case KL_EXPR_COMMA:
    case KL_EXPR_ASSIGN:
      return kc_uniform(e, node->lhs, depth + 1) && kc_uniform(e, node->rhs, depth + 1);
    case KL_EXPR_CONDITIONAL:
      return kc_uniform(e, node->condition, depth + 1) && kc_uniform(e, node->then, depth + 1) &&
             kc_uniform(e, node->otherwise, depth + 1);
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
    case KL_EXPR_SWIZZLE: return kc_uniform(e, node->lhs, depth + 1);
    case KL_EXPR_VECTOR_LITERAL:
      for (const kl_node *arg = node->args; arg; arg = arg->next)
        if (!kc_uniform(e, arg, depth + 1)) return false;
      return true;
    case KL_EXPR_BUILTIN: {
      if (!node->builtin) return false;
      switch (node->builtin->id) {
        case KL_BUILTIN_GET_LOCAL_ID:
        case KL_BUILTIN_GET_GLOBAL_ID: return false;
        default: break;
      }
      kl_builtin_category category = node->builtin->category;
      if (category == KL_BUILTIN_SYNC || category == KL_BUILTIN_ATOMIC ||
          category == KL_BUILTIN_MEMORY)
        return false;
      for (const kl_node *arg = node->args; arg; arg = arg->next)
        if (!kc_uniform(e, arg, depth + 1)) return false;
      return true;
    }
    default: return false;
  }
}

/* -------------------------------------------------------- expressions */

static void kc_literal(kc_emitter *e, const kl_node *node) {
  kc_buf *o = e->out;
  const kl_type *type = node->type;
  if (node->kind == KL_EXPR_FLOAT_LITERAL) {
    double v = node->float_value;
    bool is_float = type->kind == KL_TYPE_FLOAT;
    if (v != v) {
      kc_puts(o, is_float ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")");
    } else if (v == __builtin_inf() || v == -__builtin_inf()) {
      kc_printf(o, "(%s%s)", v < 0 ? "-" : "", is_float ? "__builtin_inff()" : "__builtin_inf()");
    } else {
      kc_printf(o, is_float ? "%af" : "%a", v);
    }
    return;
  }
  bool is_signed = kl_type_is_signed(type);
  const char *name = kc_type(e, type);
  if (type->kind == KL_TYPE_BOOL) {
    kc_puts(o, node->int_value ? "((_Bool)1)" : "((_Bool)0)");
  } else if (is_signed) {
    int64_t v = (int64_t)node->int_value;
    if (v == INT64_MIN)
      kc_printf(o, "((%s)(-9223372036854775807ll - 1))", name);
    else
      kc_printf(o, "((%s)%" PRId64 "ll)", name, v);
  } else {
    kc_printf(o, "((%s)%" PRIu64 "ull)", name, node->int_value);
  }
}

/* A scalar value broadcast to a vector type. */
static void kc_splat(kc_emitter *e, const kl_type *vector, const kl_node *scalar) {
  kc_buf *o = e->out;
  const char *element = kc_type(e, vector->element);
  if (e->static_init) {
    kc_puts(o, "{");
    for (int i = 0; i < vector->length; i++) {
      if (i) kc_puts(o, ", ");
      kc_printf(o, "(%s)", element);
      kc_expr(e, scalar);
    }
    kc_puts(o, "}");
    return;
  }
  int t = e->temp_counter++;
  kc_printf(o, "({ %s __s%d = (%s)(", element, t, element);
  kc_expr(e, scalar);
  kc_printf(o, "); (%s){", kc_type(e, vector));
  for (int i = 0; i < vector->length; i++) kc_printf(o, "%s__s%d", i ? ", " : "", t);
  kc_puts(o, "}; })");
}

static void kc_vector_literal(kc_emitter *e, const kl_node *node) {
  kc_buf *o = e->out;
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
    kc_printf(o, e->static_init ? "{" : "((%s){", kc_type(e, type));
    bool first = true;
    for (const kl_node *part = node->args; part; part = part->next) {
      if (kc_is_vector(part->type)) {
        kc_error(e, part->location, "a vector part in a constant vector literal is not supported by the C target");
        return;
      }
      kc_printf(o, "%s(%s)(", first ? "" : ", ", element);
      kc_expr(e, part);
      kc_puts(o, ")");
      first = false;
    }
    kc_puts(o, e->static_init ? "}" : "})");
    return;
  }
  int base = e->temp_counter;
  e->temp_counter += node->arg_count + 1;
  kc_puts(o, "({ ");
  int index = 0;
  for (const kl_node *part = node->args; part; part = part->next, index++) {
    kc_printf(o, "%s __p%d_%d = ", kc_type(e, part->type), base, index);
    kc_expr(e, part);
    kc_puts(o, "; ");
  }
  kc_printf(o, "(%s){", kc_type(e, type));
  index = 0;
  bool first = true;
  for (const kl_node *part = node->args; part; part = part->next, index++) {
    int count = kc_is_vector(part->type) ? part->type->length : 1;
    for (int c = 0; c < count; c++) {
      if (kc_is_vector(part->type))
        kc_printf(o, "%s(%s)__p%d_%d[%d]", first ? "" : ", ", element, base, index, c);
      else
        kc_printf(o, "%s(%s)__p%d_%d", first ? "" : ", ", element, base, index);
      first = false;
    }
  }
  kc_puts(o, "}; })");
}

static int kc_element_bits(const kl_type *type) {
  const kl_type *scalar = kc_is_vector(type) ? type->element : type;
  int bits = scalar->size * 8;
  return bits > 0 ? bits : 32;
}

static void kc_conversion(kc_emitter *e, const kl_type *to, const kl_node *from) {
  kc_buf *o = e->out;
  const kl_type *source = from->type;
  if (to->kind == KL_TYPE_VOID) {
    kc_puts(o, "((void)(");
    kc_expr(e, from);
    kc_puts(o, "))");
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
    kc_printf(o, "__builtin_convertvector(");
    kc_expr(e, from);
    kc_printf(o, ", %s)", kc_type(e, to));
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
    kc_printf(o, "(%s)(", kc_type(e, to));
  } else {
    kc_printf(o, "((%s)(", kc_type(e, to));
  }
  kc_expr(e, from);
  kc_puts(o, e->static_init ? ")" : "))");
}

static bool kc_is_comparison(kl_operator op) {
  return op >= KL_OP_EQ && op <= KL_OP_GE;
}

/* The right operand of a shift, masked to the width of the left (6.3.j). */
static void kc_shift_count(kc_emitter *e, const kl_type *left, const kl_node *count) {
  int bits = kc_element_bits(left);
  if (!kc_is_vector(left) && bits < 32) bits = 32; /* promoted */
  kc_puts(e->out, "((");
  kc_expr(e, count);
  kc_printf(e->out, ") & %d)", bits - 1);
}

static void kc_binary(kc_emitter *e, const kl_node *node) {
  kc_buf *o = e->out;
  kl_operator op = node->op;
  bool vector = kc_is_vector(node->lhs->type) || kc_is_vector(node->rhs->type);
  if (vector && (op == KL_OP_LOGICAL_AND || op == KL_OP_LOGICAL_OR)) {
    kc_printf(o, "((%s)(((", kc_type(e, node->type));
    kc_expr(e, node->lhs);
    kc_printf(o, ") != 0) %s ((", op == KL_OP_LOGICAL_AND ? "&" : "|");
    kc_expr(e, node->rhs);
    kc_puts(o, ") != 0)))");
    return;
  }
  if (vector && kc_is_comparison(op)) {
    kc_printf(o, "((%s)((", kc_type(e, node->type));
    kc_expr(e, node->lhs);
    kc_printf(o, ") %s (", kl_operator_text(op));
    kc_expr(e, node->rhs);
    kc_puts(o, ")))");
    return;
  }
  if (e->gid_fast)
    for (int i = 0; i < e->gid_cmp_count; i++)
      if (e->gid_cmp[i] == node) {
        kc_puts(o, e->gid_cmp_value[i] ? "((int)1)" : "((int)0)");
        return;
      }
  kc_puts(o, "(");
  kc_expr(e, node->lhs);
  kc_printf(o, " %s ", kl_operator_text(op));
  if (op == KL_OP_SHL || op == KL_OP_SHR)
    kc_shift_count(e, node->lhs->type, node->rhs);
  else
    kc_expr(e, node->rhs);
  kc_puts(o, ")");
}

static void kc_swizzle_read(kc_emitter *e, const kl_node *node) {
  kc_buf *o = e->out;
  if (node->component_count == 1) {
    kc_puts(o, "(");
    kc_expr(e, node->lhs);
    kc_printf(o, ")[%d]", node->components[0]);
    return;
  }
  int t = e->temp_counter++;
  kc_printf(o, "({ %s __w%d = ", kc_type(e, node->lhs->type), t);
  kc_expr(e, node->lhs);
  kc_printf(o, "; (%s){", kc_type(e, node->type));
  for (int i = 0; i < node->component_count; i++)
    kc_printf(o, "%s__w%d[%d]", i ? ", " : "", t, node->components[i]);
  kc_puts(o, "}; })");
}

/* lhs.xy = rhs, lhs.xy op= rhs */
static void kc_swizzle_assign(kc_emitter *e, const kl_node *node) {
  kc_buf *o = e->out;
  const kl_node *swizzle = node->lhs;
  int t = e->temp_counter++;
  kc_printf(o, "({ %s *__q%d = &(", kc_type(e, swizzle->lhs->type), t);
  kc_expr(e, swizzle->lhs);
  kc_printf(o, "); %s __r%d = ", kc_type(e, swizzle->type), t);
  if (node->kind == KL_EXPR_ASSIGN && node->op != KL_OP_NONE) {
    kc_printf(o, "(%s){", kc_type(e, swizzle->type));
    for (int i = 0; i < swizzle->component_count; i++)
      kc_printf(o, "%s(*__q%d)[%d]", i ? ", " : "", t, swizzle->components[i]);
    kc_printf(o, "} %s ", kl_operator_text(node->op));
    if (node->op == KL_OP_SHL || node->op == KL_OP_SHR)
      kc_shift_count(e, swizzle->type, node->rhs);
    else {
      kc_printf(o, "(%s)(", kc_type(e, swizzle->type));
      kc_expr(e, node->rhs);
      kc_puts(o, ")");
    }
  } else {
    kc_expr(e, node->rhs);
  }
  kc_puts(o, "; ");
  for (int i = 0; i < swizzle->component_count; i++)
    kc_printf(o, "(*__q%d)[%d] = __r%d[%d]; ", t, swizzle->components[i], t, i);
  kc_printf(o, "__r%d; })", t);
}

static void kc_assign(kc_emitter *e, const kl_node *node) {
  kc_buf *o = e->out;
  kc_note_assign(e, node->lhs);
  if (node->lhs->kind == KL_EXPR_SWIZZLE && node->lhs->component_count > 1) {
    kc_swizzle_assign(e, node);
    return;
  }
  kc_puts(o, "(");
  kc_expr(e, node->lhs);
  if (node->op == KL_OP_NONE) {
    kc_puts(o, " = ");
    kc_expr(e, node->rhs);
  } else {
    kc_printf(o, " %s= ", kl_operator_text(node->op));
    if (node->op == KL_OP_SHL || node->op == KL_OP_SHR) {
      kc_shift_count(e, node->lhs->type, node->rhs);
    } else if (kc_is_vector(node->lhs->type) && !kc_is_vector(node->rhs->type)) {
      kc_printf(o, "(%s)(", kc_type(e, node->lhs->type->element));
      kc_expr(e, node->rhs);
      kc_puts(o, ")");
    } else {
      kc_expr(e, node->rhs);
    }
  }
  kc_puts(o, ")");
}

static void kc_variable(kc_emitter *e, const kl_node *node) {
  kl_variable *var = node->variable;
  kc_var_use(e, var);
  const char *name = kc_var_name(e, var);
  if (var->is_program_scope) {
    kc_puts(e->out, name);
    return;
  }
  kc_var *info = kc_var_of(e, var);
  if (!info) return;
  switch (info->cls) {
    case KC_VAR_ARRAY: kc_printf(e->out, "%s[__li]", name); return;
    case KC_VAR_LOCAL_STATIC:
      if (var->type->kind == KL_TYPE_ARRAY)
        kc_puts(e->out, name);
      else
        kc_printf(e->out, "(*%s)", name);
      return;
    default: kc_puts(e->out, name); return;
  }
}

void kc_expr(kc_emitter *e, const kl_node *node) {
  kc_buf *o = e->out;
  if (!node) {
    kc_puts(o, "0");
    return;
  }
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL:
    case KL_EXPR_FLOAT_LITERAL: kc_literal(e, node); return;
    case KL_EXPR_VARIABLE: kc_variable(e, node); return;
    case KL_EXPR_VECTOR_LITERAL: kc_vector_literal(e, node); return;
    case KL_EXPR_UNARY:
      switch (node->op) {
        case KL_OP_NEGATE: kc_puts(o, "(-"); break;
        case KL_OP_PLUS: kc_puts(o, "(+"); break;
        case KL_OP_BIT_NOT: kc_puts(o, "(~"); break;
        case KL_OP_LOGICAL_NOT:
          if (kc_is_vector(node->lhs->type)) {
            kc_printf(o, "((%s)((", kc_type(e, node->type));
            kc_expr(e, node->lhs);
            kc_puts(o, ") == 0))");
            return;
          }
          kc_puts(o, "(!");
          break;
        case KL_OP_DEREFERENCE: kc_puts(o, "(*"); break;
        case KL_OP_ADDRESS_OF: {
          kl_variable *var = kc_root(node->lhs);
          if (var && e->analyzing && !var->is_program_scope) {
            kc_var *info = kc_var_of(e, var);
            if (info) info->address_taken = true;
          }
          kc_puts(o, "(&");
          break;
        }
        case KL_OP_PRE_INCREMENT: kc_note_assign(e, node->lhs); kc_puts(o, "(++"); break;
        case KL_OP_PRE_DECREMENT: kc_note_assign(e, node->lhs); kc_puts(o, "(--"); break;
        case KL_OP_POST_INCREMENT:
        case KL_OP_POST_DECREMENT:
          kc_note_assign(e, node->lhs);
          kc_puts(o, "(");
          kc_expr(e, node->lhs);
          kc_puts(o, node->op == KL_OP_POST_INCREMENT ? "++)" : "--)");
          return;
        default: kc_puts(o, "("); break;
      }
      if (node->lhs && node->lhs->kind == KL_EXPR_SWIZZLE && node->lhs->component_count > 1 &&
          node->op >= KL_OP_PRE_INCREMENT && node->op <= KL_OP_POST_DECREMENT) {
        kc_error(e, node->location, "++/-- of a multi-component swizzle is not supported by the C target");
        return;
      }
      kc_expr(e, node->lhs);
      kc_puts(o, ")");
      return;
    case KL_EXPR_BINARY: kc_binary(e, node); return;
    case KL_EXPR_ASSIGN: kc_assign(e, node); return;
    case KL_EXPR_CONDITIONAL:
      if (kc_is_vector(node->condition->type)) {
        /* per component, by the condition's most significant bit */
        int t = e->temp_counter++;
        const char *type = kc_type(e, node->type);
        kc_printf(o, "({ %s __c%d = ", kc_type(e, node->condition->type), t);
        kc_expr(e, node->condition);
        kc_printf(o, "; %s __a%d = ", type, t);
        kc_expr(e, node->then);
        kc_printf(o, "; %s __b%d = ", type, t);
        kc_expr(e, node->otherwise);
        kc_printf(o, "; %s __r%d; for (int __i = 0; __i < %d; __i++) __r%d[__i] = __c%d[__i] < 0 ? __a%d[__i] : __b%d[__i]; __r%d; })",
                  type, t, node->type->length, t, t, t, t, t);
        return;
      }
      kc_puts(o, "(");
      kc_expr(e, node->condition);
      kc_puts(o, " ? ");
      kc_expr(e, node->then);
      kc_puts(o, " : ");
      kc_expr(e, node->otherwise);
      kc_puts(o, ")");
      return;
    case KL_EXPR_COMMA:
      kc_puts(o, "(");
      kc_expr(e, node->lhs);
      kc_puts(o, ", ");
      kc_expr(e, node->rhs);
      kc_puts(o, ")");
      return;
    case KL_EXPR_CALL: {
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
        kc_error(e, node->location, "a function call in work-group-level control flow is not supported by the C target");
        return;
      }
      e->uses_calls = true;
      kc_printf(o, "kl_f_%s(__wi", callee->name);
      for (const kl_node *arg = node->args; arg; arg = arg->next) {
        kc_puts(o, ", ");
        kc_expr(e, arg);
      }
      kc_puts(o, ")");
      return;
    }
    case KL_EXPR_BUILTIN: kc_builtin(e, node); return;
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT: kc_conversion(e, node->type, node->lhs); return;
    case KL_EXPR_INDEX:
      kc_puts(o, "(");
      kc_expr(e, node->lhs);
      kc_puts(o, ")[");
      kc_expr(e, node->rhs);
      kc_puts(o, "]");
      return;
    case KL_EXPR_MEMBER:
      kc_puts(o, "(");
      kc_expr(e, node->lhs);
      kc_printf(o, ")%s%s", node->is_arrow ? "->" : ".", node->member->name);
      return;
    case KL_EXPR_SWIZZLE: kc_swizzle_read(e, node); return;
    default:
      kc_error(e, node->location, "this expression is not supported by the C target");
      return;
  }
}

/* --------------------------------------------------------- statements */

static void kc_indent(kc_emitter *e) {
  for (int i = 0; i < e->indent; i++) kc_puts(e->out, "  ");
}

static void kc_stmt(kc_emitter *e, const kl_node *node);

static void kc_initializer(kc_emitter *e, const kl_node *init) {
  if (init->kind == KL_EXPR_INIT_LIST) {
    kc_puts(e->out, "{");
    for (const kl_node *item = init->args; item; item = item->next) {
      kc_initializer(e, item);
      if (item->next) kc_puts(e->out, ", ");
    }
    kc_puts(e->out, "}");
    return;
  }
  if (init->kind == KL_STMT_COMPOUND) {
    kc_puts(e->out, "{");
    for (const kl_node *item = init->body; item; item = item->next) {
      kc_initializer(e, item);
      if (item->next) kc_puts(e->out, ", ");
    }
    kc_puts(e->out, "}");
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
  kc_buf *o = e->out;
  switch (info->cls) {
    case KC_VAR_ARRAY:
    case KC_VAR_GROUP: {
      if (!var->initializer) return;
      kc_indent(e);
      const char *target = info->cls == KC_VAR_ARRAY ? kl_format(e->ctx, "%s[__li]", name) : name;
      if (var->type->kind == KL_TYPE_ARRAY || var->initializer->kind == KL_STMT_COMPOUND ||
          var->initializer->kind == KL_EXPR_INIT_LIST) {
        int t = e->temp_counter++;
        kc_printf(o, "{ %s = ", kc_decl(e, var->type, kl_format(e->ctx, "__init%d", t)));
        kc_initializer(e, var->initializer);
        kc_printf(o, "; __builtin_memcpy(&%s, &__init%d, sizeof __init%d); }\n", target, t, t);
      } else {
        kc_printf(o, "%s = ", target);
        kc_expr(e, var->initializer);
        kc_puts(o, ";\n");
      }
      return;
    }
    default:
      kc_indent(e);
      kc_puts(o, kc_decl(e, var->type, name));
      if (var->initializer) {
        kc_puts(o, " = ");
        kc_initializer(e, var->initializer);
      } else if (var->type->kind != KL_TYPE_ARRAY && var->type->kind != KL_TYPE_STRUCT) {
        /* OpenCL leaves it undefined; zero keeps the C compiler quiet and
         * results reproducible */
        kc_puts(o, " = {0}");
      }
      kc_puts(o, ";\n");
      return;
  }
}

static void kc_body(kc_emitter *e, const kl_node *node) {
  if (node && node->kind == KL_STMT_COMPOUND) {
    kc_stmt(e, node);
    return;
  }
  kc_puts(e->out, "{\n");
  e->indent++;
  if (node) kc_stmt(e, node);
  e->indent--;
  kc_indent(e);
  kc_puts(e->out, "}\n");
}

static void kc_stmt(kc_emitter *e, const kl_node *node) {
  kc_buf *o = e->out;
  switch (node->kind) {
    case KL_STMT_COMPOUND:
      kc_indent(e);
      kc_puts(o, "{\n");
      e->indent++;
      for (const kl_node *child = node->body; child; child = child->next) kc_stmt(e, child);
      e->indent--;
      kc_indent(e);
      kc_puts(o, "}\n");
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
      kc_puts(o, ";\n");
      return;
    case KL_STMT_DECLARATION: kc_declaration(e, node); return;
    case KL_STMT_IF:
      kc_indent(e);
      kc_puts(o, "if (");
      kc_expr(e, node->condition);
      kc_puts(o, ") ");
      kc_body(e, node->then);
      if (node->otherwise) {
        kc_indent(e);
        kc_puts(o, "else ");
        kc_body(e, node->otherwise);
      }
      return;
    case KL_STMT_FOR:
      kc_indent(e);
      kc_puts(o, "{\n");
      e->indent++;
      for (const kl_node *init = node->init; init; init = init->next) kc_stmt(e, init);
      kc_indent(e);
      kc_puts(o, "for (; ");
      if (node->condition) kc_expr(e, node->condition);
      kc_puts(o, "; ");
      if (node->increment) kc_expr(e, node->increment);
      kc_puts(o, ") ");
      e->loop_depth++;
      e->breakable_depth++;
      kc_body(e, node->body);
      e->loop_depth--;
      e->breakable_depth--;
      e->indent--;
      kc_indent(e);
      kc_puts(o, "}\n");
      return;
    case KL_STMT_WHILE:
      kc_indent(e);
      kc_puts(o, "while (");
      kc_expr(e, node->condition);
      kc_puts(o, ") ");
      e->loop_depth++;
      e->breakable_depth++;
      kc_body(e, node->body);
      e->loop_depth--;
      e->breakable_depth--;
      return;
    case KL_STMT_DO:
      kc_indent(e);
      kc_puts(o, "do ");
      e->loop_depth++;
      e->breakable_depth++;
      kc_body(e, node->body);
      e->loop_depth--;
      e->breakable_depth--;
      kc_indent(e);
      kc_puts(o, "while (");
      kc_expr(e, node->condition);
      kc_puts(o, ");\n");
      return;
    case KL_STMT_SWITCH:
      kc_indent(e);
      kc_puts(o, "switch (");
      kc_expr(e, node->condition);
      kc_puts(o, ") ");
      e->breakable_depth++;
      kc_body(e, node->body);
      e->breakable_depth--;
      return;
    case KL_STMT_CASE:
      kc_indent(e);
      if (node->is_default)
        kc_puts(o, "default:\n");
      else
        kc_printf(o, "case %" PRId64 ":\n", node->case_value);
      if (node->body) kc_stmt(e, node->body);
      else {
        kc_indent(e);
        kc_puts(o, ";\n");
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
      kc_puts(o, is_break ? "break;\n" : "continue;\n");
      return;
    }
    case KL_STMT_RETURN:
      kc_indent(e);
      if (e->in_kernel) {
        if (e->barrier_mode)
          kc_printf(o, "{ __ret[__li] = 1; goto __kl_next%d; }\n", e->region_label);
        else
          kc_printf(o, "goto __kl_next%d;\n", e->region_label);
        return;
      }
      kc_puts(o, "return");
      if (node->lhs) {
        kc_puts(o, " ");
        kc_expr(e, node->lhs);
      }
      kc_puts(o, ";\n");
      return;
    case KL_STMT_EMPTY: return;
    default:
      kc_error(e, node->location, "this statement is not supported by the C target");
      return;
  }
}

/* ------------------------------------------------------------ regions */

/* One copy for the whole group (a group-level variable) that a region
 * assigns: every work-item of the region must start from the value it had
 * when the region began (`t += TILE` runs once per work-item). */
static bool kc_reset_in_region(kc_emitter *e, kl_variable *var) {
  kc_var *info = kc_var_of(e, var);
  if (!info || info->decl_region == e->region) return false;
  bool group = info->cls == KC_VAR_GROUP || (info->cls == KC_VAR_PLAIN && info->decl_region == -1);
  return group && kc_region_set_has(info->assign_regions, info->assign_region_count, e->region);
}

static void kc_region_resets(kc_emitter *e, bool snapshot) {
  if (e->analyzing || !e->barrier_mode) return;
  for (int pass = 0; pass < 2; pass++)
    for (kl_variable *var = pass ? e->function->locals : e->function->params; var;
         var = var->next) {
      if (!kc_reset_in_region(e, var)) continue;
      const char *name = kc_var_name(e, var);
      kc_indent(e);
      if (snapshot)
        kc_printf(e->out, "__typeof__(%s) __rin_%s; __builtin_memcpy(&__rin_%s, &%s, sizeof %s);\n",
                  name, name, name, name, name);
      else
        kc_printf(e->out, "__builtin_memcpy(&%s, &__rin_%s, sizeof %s);\n", name, name, name);
    }
}

static void kc_region_open(kc_emitter *e) {
  kc_buf *o = e->out;
  e->region = e->region_count++;
  e->region_label = e->region;
  e->loop_depth = 0;
  e->breakable_depth = 0;
  kc_indent(e);
  kc_printf(o, "{ /* region %d */\n", e->region);
  kc_region_resets(e, true);
  if (e->bound_kind && !e->analyzing) {
    kc_indent(e);
    kc_printf(o, "const %s __u = ", kc_type(e, e->bound->type));
    kc_expr(e, e->bound);
    if (e->bound_kind == 1)
      kc_puts(o, "; const size_t __lo = 0, __hi = __u <= 0 ? 0 : (size_t)__u < __ls0 ? (size_t)__u : __ls0;\n");
    else
      kc_puts(o, "; const size_t __lo = __u < 0 || (size_t)__u >= __ls0 ? 0 : (size_t)__u, "
                 "__hi = __u < 0 || (size_t)__u >= __ls0 ? 0 : (size_t)__u + 1;\n");
  }
  kc_indent(e);
  kc_puts(o, "for (size_t __lz = 0; __lz < __ls2; __lz++)\n");
  kc_indent(e);
  kc_puts(o, "for (size_t __ly = 0; __ly < __ls1; __ly++)\n");
  kc_indent(e);
  if (e->bound_kind && !e->analyzing) {
    kc_puts(o, "for (size_t __lx = __lo; __lx < __hi; __lx++) {\n");
  } else {
    kc_puts(o, "for (size_t __lx = 0; __lx < __ls0; __lx++) {\n");
  }
  e->indent++;
  kc_indent(e);
  kc_puts(o, "const size_t __li = (__lz * __ls1 + __ly) * __ls0 + __lx; (void)__li;\n");
  if (e->uses_calls) {
    kc_indent(e);
    kc_puts(o,
            "const kl_c_wi __wis = {{__lx, __ly, __lz}, {__gid0, __gid1, __gid2}, "
            "{__ls0, __ls1, __ls2}, {__ng0, __ng1, __ng2}, {__gs0, __gs1, __gs2}, "
            "{__go0, __go1, __go2}, {__gb0, __gb1, __gb2}, __L->work_dim}; "
            "const kl_c_wi *const __wi = &__wis; (void)__wi;\n");
  }
  if (e->barrier_mode && e->has_return) {
    kc_indent(e);
    kc_puts(o, "if (__ret[__li]) continue;\n");
  }
  kc_region_resets(e, false);
  if (!e->analyzing && e->barrier_mode) {
    /* values recomputed here rather than kept per work-item */
    const kl_function *fn = e->function;
    for (kl_variable *var = fn->locals; var; var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (!info || info->cls != KC_VAR_REMAT || info->decl_region == e->region) continue;
      if (!kc_var_in_region(info, e->region)) continue;
      kc_indent(e);
      kc_printf(o, "const %s = ", kc_decl(e, var->type, kc_var_name(e, var)));
      kc_expr(e, var->initializer);
      kc_puts(o, ";\n");
    }
  }
  /* assigned parameters: a private copy per work-item */
  if (!e->barrier_mode) {
    for (kl_variable *var = e->function->params; var; var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (!info || info->cls != KC_VAR_PLAIN) continue;
      kc_indent(e);
      kc_printf(o, "%s = __arg_%s;\n", kc_decl(e, var->type, kc_var_name(e, var)),
                kc_var_name(e, var));
    }
  }
}

static void kc_region_close(kc_emitter *e) {
  kc_buf *o = e->out;
  if (e->has_return) {
    kc_indent(e);
    kc_printf(o, "__kl_next%d: ;\n", e->region_label);
  }
  e->indent--;
  kc_indent(e);
  kc_puts(o, "}}\n");
  e->region = -1;
}

static void kc_group_list(kc_emitter *e, const kl_node *first, bool single);

static const kl_node *kc_strip(const kl_node *node) {
  while (node && (node->kind == KL_EXPR_CONVERT || node->kind == KL_EXPR_CAST) &&
         node->lhs && kl_type_is_integer(node->type) && kl_type_is_integer(node->lhs->type) &&
         node->type->size >= node->lhs->type->size)
    node = node->lhs;
  return node;
}

static bool kc_is_local_id0(kc_emitter *e, const kl_node *node, int depth) {
  node = kc_strip(node);
  if (!node || depth > 4) return false;
  if (node->kind == KL_EXPR_BUILTIN && node->builtin && node->builtin->id == KL_BUILTIN_GET_LOCAL_ID) {
    int64_t d;
    return kc_node_int(node->args, &d) && d == 0;
  }
  if (node->kind == KL_EXPR_VARIABLE && !node->variable->is_program_scope) {
    kc_var *info = kc_var_of(e, node->variable);
    return info && info->cls == KC_VAR_REMAT && !info->assigned &&
           kc_is_local_id0(e, node->variable->initializer, depth + 1);
  }
  return false;
}

/* Evaluable before a region's work-item loop: literals, work-group values. */
static bool kc_group_visible(kc_emitter *e, const kl_node *node, int depth) {
  if (!node || depth > 32) return false;
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL: return true;
    case KL_EXPR_VARIABLE: {
      kl_variable *var = node->variable;
      if (var->is_program_scope) return true;
      kc_var *info = kc_var_of(e, var);
      if (!info) return false;
      if (var->is_parameter) return info->cls == KC_VAR_PARAM;
      return info->decl_region == -1 || info->cls == KC_VAR_GROUP;
    }
    case KL_EXPR_BINARY:
      return kc_group_visible(e, node->lhs, depth + 1) && kc_group_visible(e, node->rhs, depth + 1);
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST: return kl_type_is_integer(node->type) && kc_group_visible(e, node->lhs, depth + 1);
    case KL_EXPR_BUILTIN:
      if (!node->builtin) return false;
      switch (node->builtin->id) {
        case KL_BUILTIN_GET_LOCAL_SIZE:
        case KL_BUILTIN_GET_NUM_GROUPS:
        case KL_BUILTIN_GET_GROUP_ID:
        case KL_BUILTIN_GET_GLOBAL_SIZE: return kc_group_visible(e, node->args, depth + 1);
        default: return false;
      }
    default: return false;
  }
}

static void kc_match_bound(kc_emitter *e, const kl_node *stmt) {
  if (stmt->kind != KL_STMT_IF || stmt->otherwise) return;
  const kl_node *c = stmt->condition;
  if (!c || c->kind != KL_EXPR_BINARY || (c->op != KL_OP_LT && c->op != KL_OP_EQ)) return;
  if (!kl_type_is_integer(c->lhs->type) || !kl_type_is_integer(c->rhs->type)) return;
  if (!kc_is_local_id0(e, c->lhs, 0)) return;
  if (!kc_uniform(e, c->rhs, 0) || !kc_group_visible(e, c->rhs, 0)) return;
  e->bound_kind = c->op == KL_OP_LT ? 1 : 2;
  e->bound = c->rhs;
}

/* The largest value of an integer type of 32 or 64 bits; 0 for others. */
static uint64_t kc_int_max(const kl_type *type) {
  if (!type || !kl_type_is_integer(type) || type->size < 4) return 0;
  bool is_signed = kl_type_is_signed(type);
  if (type->size >= 8) return is_signed ? (uint64_t)INT64_MAX : UINT64_MAX;
  return is_signed ? (uint64_t)INT32_MAX : UINT32_MAX;
}

/* The global id in dimension 0 through integer conversions: exact while the
 * ids stay at most *max (the smallest largest value of the types on the way). */
static bool kc_is_global_id0(kc_emitter *e, const kl_node *node, uint64_t *max, int depth) {
  if (!node || depth > 8) return false;
  if (node->kind == KL_EXPR_CONVERT || node->kind == KL_EXPR_CAST) {
    uint64_t m = kc_int_max(node->type);
    if (!m || !node->lhs) return false;
    if (m < *max) *max = m;
    return kc_is_global_id0(e, node->lhs, max, depth + 1);
  }
  if (node->kind == KL_EXPR_BUILTIN && node->builtin && node->builtin->id == KL_BUILTIN_GET_GLOBAL_ID) {
    int64_t d;
    return kc_node_int(node->args, &d) && d == 0;
  }
  if (node->kind == KL_EXPR_VARIABLE && !node->variable->is_program_scope &&
      !node->variable->is_parameter && node->variable->initializer) {
    kc_var *info = kc_var_of(e, node->variable);
    uint64_t m = kc_int_max(node->variable->type);
    if (!m) return false;
    if (m < *max) *max = m;
    return info && !info->assigned && !info->address_taken &&
           (info->cls == KC_VAR_REMAT || info->cls == KC_VAR_PLAIN || info->cls == KC_VAR_ARRAY) &&
           kc_is_global_id0(e, node->variable->initializer, max, depth + 1);
  }
  return false;
}

/* Records the comparisons of the global id in dimension 0 with a uniform,
 * group-visible bound under `node`: each is constant when every global id of
 * the group is below its bound. */
static void kc_find_gid_cmps(kc_emitter *e, const kl_node *node, bool chain, int depth) {
  for (; node; node = chain ? node->next : NULL) {
    if (depth > 64) return;
    if (node->kind == KL_EXPR_BINARY && node->lhs && node->rhs &&
        (node->op == KL_OP_LT || node->op == KL_OP_LE || node->op == KL_OP_GT ||
         node->op == KL_OP_GE) &&
        node->lhs->type && node->rhs->type && !kc_is_vector(node->lhs->type) &&
        !kc_is_vector(node->rhs->type) && kl_type_is_integer(node->lhs->type) &&
        kc_int_max(node->lhs->type) && kc_int_max(node->rhs->type)) {
      uint64_t max = UINT64_MAX;
      bool left = kc_is_global_id0(e, node->lhs, &max, 0);
      const kl_node *bound = left ? node->rhs : node->lhs;
      if ((left || kc_is_global_id0(e, node->rhs, &max, 0)) && kc_uniform(e, bound, 0) &&
          kc_group_visible(e, bound, 0)) {
        if (e->gid_cmp_count == 4) {
          e->gid_cmp_count = 5; /* too many: no copy */
          return;
        }
        if (e->gid_cmp_count < 4) {
          bool less = node->op == KL_OP_LT || node->op == KL_OP_LE;
          e->gid_cmp[e->gid_cmp_count] = node;
          e->gid_cmp_max[e->gid_cmp_count] = max;
          e->gid_cmp_left[e->gid_cmp_count] = left;
          e->gid_cmp_value[e->gid_cmp_count++] = left ? less : !less;
        }
        continue;
      }
    }
    const kl_node *children[] = {node->lhs,  node->rhs,       node->condition,
                                 node->then, node->otherwise, node->increment};
    for (size_t i = 0; i < sizeof children / sizeof *children; i++)
      kc_find_gid_cmps(e, children[i], false, depth + 1);
    kc_find_gid_cmps(e, node->init, true, depth + 1);
    kc_find_gid_cmps(e, node->body, true, depth + 1);
    kc_find_gid_cmps(e, node->args, true, depth + 1);
    if (node->kind == KL_STMT_DECLARATION && node->variable)
      kc_find_gid_cmps(e, node->variable->initializer, false, depth + 1);
  }
}

static bool kc_needs_group(kc_emitter *e, const kl_node *stmt) {
  if (kc_has_barrier(stmt, 0)) return true;
  if (e->group_loop_depth > 0 && kc_has_escape(stmt, false, false, 0)) return true;
  return false;
}

static void kc_group_condition(kc_emitter *e, const kl_node *condition, const char *what) {
  if (!e->analyzing && !kc_uniform(e, condition, 0))
    kc_error(e, condition->location,
             "the condition of this %s, which contains a barrier, may differ between the "
             "work-items of a group; the CPU backend needs barriers in work-group-uniform "
             "control flow",
             what);
  kc_expr(e, condition);
}

/* One part of the init of a `for` with a barrier inside (each declarator
 * of `int a = x, b = y` is one, in order): a group-level variable, so
 * its start must be the same for every work-item of the group. */
static void kc_group_for_init(kc_emitter *e, const kl_node *init) {
  const kl_node *start = NULL;
  if (init->kind == KL_STMT_DECLARATION && init->variable) {
    kc_var *info = kc_var_of(e, init->variable);
    if (info && e->analyzing) info->decl_region = -1;
    if (info) info->cls = KC_VAR_PLAIN;
    start = init->variable->initializer;
  } else if (init->kind == KL_STMT_EXPRESSION) {
    start = init->lhs;
  }
  if (start && !e->analyzing && !kc_uniform(e, start, 0))
    kc_error(e, init->location,
             "the start of this loop, which contains a barrier, may differ between the "
             "work-items of a group");
  kc_stmt(e, init);
}

static void kc_group_stmt(kc_emitter *e, const kl_node *node) {
  kc_buf *o = e->out;
  switch (node->kind) {
    case KL_STMT_COMPOUND:
      kc_indent(e);
      kc_puts(o, "{\n");
      e->indent++;
      kc_group_list(e, node->body, false);
      e->indent--;
      kc_indent(e);
      kc_puts(o, "}\n");
      return;
    case KL_STMT_IF:
      kc_indent(e);
      kc_puts(o, "if (");
      kc_group_condition(e, node->condition, "if");
      kc_puts(o, ") {\n");
      e->indent++;
      kc_group_list(e, node->then, true);
      e->indent--;
      kc_indent(e);
      kc_puts(o, "}\n");
      if (node->otherwise) {
        kc_indent(e);
        kc_puts(o, "else {\n");
        e->indent++;
        kc_group_list(e, node->otherwise, true);
        e->indent--;
        kc_indent(e);
        kc_puts(o, "}\n");
      }
      return;
    case KL_STMT_FOR:
      kc_indent(e);
      kc_puts(o, "{\n");
      e->indent++;
      for (const kl_node *init = node->init; init; init = init->next) kc_group_for_init(e, init);
      kc_indent(e);
      kc_puts(o, "for (; ");
      if (node->condition) kc_group_condition(e, node->condition, "loop");
      kc_puts(o, "; ");
      if (node->increment) {
        if (!e->analyzing && !kc_uniform(e, node->increment, 0))
          kc_error(e, node->increment->location,
                   "the step of this loop, which contains a barrier, may differ between the "
                   "work-items of a group");
        kc_expr(e, node->increment);
      }
      kc_puts(o, ") {\n");
      e->indent++;
      e->group_loop_depth++;
      kc_group_list(e, node->body, true);
      e->group_loop_depth--;
      e->indent--;
      kc_indent(e);
      kc_puts(o, "}\n");
      e->indent--;
      kc_indent(e);
      kc_puts(o, "}\n");
      return;
    case KL_STMT_WHILE:
      kc_indent(e);
      kc_puts(o, "while (");
      kc_group_condition(e, node->condition, "loop");
      kc_puts(o, ") {\n");
      e->indent++;
      e->group_loop_depth++;
      kc_group_list(e, node->body, true);
      e->group_loop_depth--;
      e->indent--;
      kc_indent(e);
      kc_puts(o, "}\n");
      return;
    case KL_STMT_DO:
      kc_indent(e);
      kc_puts(o, "do {\n");
      e->indent++;
      e->group_loop_depth++;
      kc_group_list(e, node->body, true);
      e->group_loop_depth--;
      e->indent--;
      kc_indent(e);
      kc_puts(o, "} while (");
      kc_group_condition(e, node->condition, "loop");
      kc_puts(o, ");\n");
      return;
    case KL_STMT_BREAK:
      kc_indent(e);
      kc_puts(o, "break;\n");
      return;
    case KL_STMT_CONTINUE:
      kc_indent(e);
      kc_puts(o, "continue;\n");
      return;
    default:
      if (kc_barrier_call(node, 0)) {
        kc_expr(e, kc_barrier_call(node, 0)); /* reports where such a call can be inlined */
        return;
      }
      kc_error(e, node->location,
               "a barrier inside this statement cannot be split into work-group regions by the "
               "C target (barriers may sit in straight-line code and in work-group-uniform "
               "if/for/while/do)");
      return;
  }
}

/* Emits the region of statements `first` .. `last` twice (see gid_cmp):
 * for groups whose every global id in dimension 0 lies below each bound,
 * with those comparisons constant, and as is for the others. */
static void kc_emit_gid_versions(kc_emitter *e, const kl_node *first, const kl_node *last) {
  kc_buf *o = e->out;
  kc_indent(e);
  kc_puts(o, "if (");
  for (int i = 0; i < e->gid_cmp_count; i++) {
    const kl_node *c = e->gid_cmp[i];
    const kl_node *bound = e->gid_cmp_left[i] ? c->rhs : c->lhs;
    if (i) kc_puts(o, " && ");
    /* the group's ids are exact in the types on the way, and below the bound */
    kc_printf(o, "__gb0 + __ls0 - 1 <= (size_t)%lluull && !((",
              (unsigned long long)e->gid_cmp_max[i]);
    kc_expr(e, bound);
    kc_puts(o, ") < 0) && (size_t)(");
    kc_expr(e, bound);
    kc_puts(o, ") >= __gb0 + __ls0");
  }
  kc_puts(o, ") {\n");
  e->indent++;
  int region_count = e->region_count, bound_kind = e->bound_kind;
  const kl_node *bound = e->bound;
  e->gid_fast = true;
  kc_region_open(e);
  e->region_label = e->region + 1000000; /* its own labels */
  e->bound_kind = 0;
  for (const kl_node *s = first;; s = s->next) {
    kc_stmt(e, s);
    if (s == last) break;
  }
  kc_region_close(e);
  e->gid_fast = false;
  e->indent--;
  kc_indent(e);
  kc_puts(o, "} else {\n");
  e->indent++;
  e->region_count = region_count;
  e->bound_kind = bound_kind;
  e->bound = bound;
  if (!e->failed) {
    kc_region_open(e);
    e->bound_kind = 0;
    for (const kl_node *s = first;; s = s->next) {
      kc_stmt(e, s);
      if (s == last) break;
    }
    kc_region_close(e);
  }
  e->indent--;
  kc_indent(e);
  kc_puts(o, "}\n");
  e->gid_cmp_count = 0;
}

/* A statement list at group level; `single`: `first` is one statement that
 * may not be a compound (an if's branch, a loop's body). */
static void kc_group_list(kc_emitter *e, const kl_node *first, bool single) {
  if (single && first && first->kind == KL_STMT_COMPOUND) {
    first = first->body;
    single = false;
  }
  bool open = false;
  for (const kl_node *stmt = first; stmt; stmt = single ? NULL : stmt->next) {
    if (kc_is_barrier_statement(stmt)) {
      if (open) kc_region_close(e);
      open = false;
      continue;
    }
    if ((stmt->kind == KL_STMT_BREAK || stmt->kind == KL_STMT_CONTINUE) &&
        e->group_loop_depth > 0) {
      if (open) kc_region_close(e);
      open = false;
      kc_group_stmt(e, stmt);
      continue;
    }
    if (kc_needs_group(e, stmt)) {
      if (open) kc_region_close(e);
      open = false;
      kc_group_stmt(e, stmt);
      continue;
    }
    if (!open) {
      /* a region of one `if (lid < U)`: loop over the passing items only */
      e->bound_kind = 0;
      const kl_node *next = single ? NULL : stmt->next;
      bool alone = !next || kc_is_barrier_statement(next) || kc_needs_group(e, next);
      if (e->barrier_mode && alone && !e->analyzing) kc_match_bound(e, stmt);
      /* the region's statements: up to the next barrier or group-level statement */
      const kl_node *last = stmt;
      while (!single && last->next && !kc_is_barrier_statement(last->next) &&
             !((last->next->kind == KL_STMT_BREAK || last->next->kind == KL_STMT_CONTINUE) &&
               e->group_loop_depth > 0) &&
             !kc_needs_group(e, last->next))
        last = last->next;
      e->gid_cmp_count = 0;
      if (e->barrier_mode && !e->analyzing && !e->failed)
        for (const kl_node *s = stmt;; s = s->next) {
          kc_find_gid_cmps(e, s, false, 0);
          if (s == last) break;
        }
      if (e->gid_cmp_count > 0 && e->gid_cmp_count <= 4) {
        kc_emit_gid_versions(e, stmt, last);
        stmt = last;
        continue;
      }
      e->gid_cmp_count = 0;
      kc_region_open(e);
      e->bound_kind = 0;
    }
    open = true;
    kc_stmt(e, stmt);
  }
  if (open) kc_region_close(e);
}

/* ---------------------------------------------------------- functions */

static void kc_reset_function(kc_emitter *e, const kl_function *fn) {
  e->function = fn;
  e->region = -1;
  e->region_count = 0;
  e->region_label = 0;
  e->loop_depth = e->breakable_depth = e->group_loop_depth = 0;
  e->indent = 1;
}

static void kc_helper_function(kc_emitter *e, const kl_function *fn, bool prototype_only) {
  kc_buf *o = e->out;
  kc_reset_function(e, fn);
  e->in_kernel = false;
  e->barrier_mode = false;
  kc_printf(o, "static %s(const kl_c_wi *__wi", kc_decl(e, fn->return_type, kl_format(e->ctx, "kl_f_%s", fn->name)));
  for (kl_variable *param = fn->params; param; param = param->next) {
    kc_var *info = kc_var_of(e, param);
    if (info) info->cls = KC_VAR_PLAIN;
    kc_printf(o, ", %s", kc_decl(e, param->type, kc_var_name(e, param)));
  }
  kc_puts(o, ")");
  if (prototype_only) {
    kc_puts(o, ";\n");
    return;
  }
  for (kl_variable *var = fn->locals; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (info) info->cls = KC_VAR_PLAIN;
    if (var->space == KL_SPACE_LOCAL)
      kc_error(e, var->location, "__local variables may only be declared in a kernel");
  }
  if (fn->features & KL_FEATURE_BARRIER || kc_has_barrier(fn->body, 0)) {
    /* reported at the barrier by kc_stmt */
  }
  kc_puts(o, " {\n  (void)__wi;\n");
  if (fn->body)
    for (const kl_node *stmt = fn->body->kind == KL_STMT_COMPOUND ? fn->body->body : fn->body; stmt;
         stmt = stmt->next)
      kc_stmt(e, stmt);
  kc_puts(o, "}\n\n");
}

static bool kc_calls_anything(const kl_node *node, int depth) {
  if (!node || depth > 400) return false;
  if (node->kind == KL_EXPR_CALL) return true;
  const kl_node *children[] = {node->lhs,  node->rhs,       node->condition,
                               node->then, node->otherwise, node->increment};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    if (kc_calls_anything(children[i], depth + 1)) return true;
  for (const kl_node *init = node->init; init; init = init->next)
    if (kc_calls_anything(init, depth + 1)) return true;
  for (const kl_node *child = node->body; child; child = child->next)
    if (kc_calls_anything(child, depth + 1)) return true;
  for (const kl_node *arg = node->args; arg; arg = arg->next)
    if (kc_calls_anything(arg, depth + 1)) return true;
  if (node->kind == KL_STMT_DECLARATION && node->variable && node->variable->initializer)
    return kc_calls_anything(node->variable->initializer, depth + 1);
  return false;
}

/* Decides how each variable of a kernel with barriers is kept. */
static void kc_classify(kc_emitter *e, const kl_function *fn) {
  for (kl_variable *var = fn->locals; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (!info) continue;
    if (var->space == KL_SPACE_LOCAL) {
      info->cls = KC_VAR_LOCAL_STATIC;
      continue;
    }
    if (info->decl_region == -1) {
      info->cls = KC_VAR_PLAIN;
      continue;
    }
    bool other_region = false;
    for (int i = 0; i < info->region_count; i++)
      if (info->regions[i] != info->decl_region) other_region = true;
    info->cls = KC_VAR_REMAT; /* provisional, for kc_pure of later variables */
    bool remat = !info->assigned && !info->address_taken && var->initializer &&
                 var->initializer->kind != KL_STMT_COMPOUND &&
                 var->initializer->kind != KL_EXPR_INIT_LIST &&
                 (kl_type_is_scalar(var->type) || kc_is_vector(var->type)) &&
                 kc_pure(e, var->initializer, 0);
    if (info->used_at_group)
      info->cls = KC_VAR_GROUP;
    else if (remat)
      info->cls = KC_VAR_REMAT;
    else if (!other_region)
      info->cls = KC_VAR_PLAIN;
    else
      info->cls = KC_VAR_ARRAY;
  }
  /* a remat variable's inputs must be available wherever it is recomputed */
  bool changed = true;
  while (changed) {
    changed = false;
    for (kl_variable *var = fn->locals; var; var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (!info || info->cls != KC_VAR_REMAT) continue;
      if (!kc_pure(e, var->initializer, 0)) {
        bool other_region = false;
        for (int i = 0; i < info->region_count; i++)
          if (info->regions[i] != info->decl_region) other_region = true;
        info->cls = other_region ? KC_VAR_ARRAY : KC_VAR_PLAIN;
        changed = true;
      }
    }
  }
}

/* Adds each remat variable's inputs to the regions it is used in. */
static void kc_remat_closure(kc_emitter *e, const kl_node *node, int region, int depth) {
  if (!node || depth > 64) return;
  if (node->kind == KL_EXPR_VARIABLE && !node->variable->is_program_scope) {
    kc_var *info = kc_var_of(e, node->variable);
    if (info && info->cls == KC_VAR_REMAT && !kc_var_in_region(info, region)) {
      int saved = e->region;
      bool analyzing = e->analyzing;
      e->region = region;
      e->analyzing = true;
      kc_var_use(e, node->variable);
      e->analyzing = analyzing;
      e->region = saved;
      kc_remat_closure(e, node->variable->initializer, region, depth + 1);
    }
    return;
  }
  const kl_node *children[] = {node->lhs, node->rhs, node->condition, node->then, node->otherwise};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    kc_remat_closure(e, children[i], region, depth + 1);
  for (const kl_node *arg = node->args; arg; arg = arg->next)
    kc_remat_closure(e, arg, region, depth + 1);
}

static size_t kc_align_up(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

static void kc_kernel(kc_emitter *e, const kl_function *fn) {
  kc_reset_function(e, fn);
  e->in_kernel = true;
  e->uses_calls = kc_calls_anything(fn->body, 0);
  e->barrier_mode = kc_has_barrier(fn->body, 0);
  e->has_return = kc_has_return(fn->body, 0);
  kc_buf *final = e->out;

  /* parameters */
  int index = 0;
  for (kl_variable *param = fn->params; param; param = param->next, index++) {
    kc_var *info = kc_var_of(e, param);
    if (!info) return;
    info->param_index = index;
    info->decl_region = -2;
    info->cls = KC_VAR_PARAM;
  }
  for (kl_variable *var = fn->locals; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (!info) return;
    info->cls = var->space == KL_SPACE_LOCAL ? KC_VAR_LOCAL_STATIC : KC_VAR_PLAIN;
  }

  /* pass 1: which variables are used where (the text is thrown away) */
  kc_buf scratch = {0};
  e->out = &scratch;
  e->analyzing = true;
  e->indent = 2;
  kc_group_list(e, fn->body && fn->body->kind == KL_STMT_COMPOUND ? fn->body->body : fn->body,
                false);
  e->analyzing = false;
  kc_buf_free(&scratch);
  e->out = final;

  for (kl_variable *param = fn->params; param; param = param->next) {
    kc_var *info = kc_var_of(e, param);
    /* assigned: a copy per work-item, or one per group when the group-level
     * control flow reads it (then it is uniform, or the condition is refused) */
    if (info->assigned)
      info->cls = !e->barrier_mode      ? KC_VAR_PLAIN
                  : info->used_at_group ? KC_VAR_GROUP
                                        : KC_VAR_ARRAY;
  }
  if (e->barrier_mode) {
    kc_classify(e, fn);
    for (kl_variable *var = fn->locals; var; var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (info && info->cls == KC_VAR_REMAT)
        for (int i = 0; i < info->region_count; i++)
          kc_remat_closure(e, var->initializer, info->regions[i], 0);
    }
  }

  kc_buf *o = e->out;
  /* private bytes per work-item */
  kc_printf(o, "static size_t kl_private_%s(size_t items) {\n  size_t bytes = 0;\n", fn->name);
  if (e->barrier_mode && e->has_return) kc_puts(o, "  bytes += kl_align_(items);\n");
  for (kl_variable *var = fn->params; var; var = var->next)
    if (kc_var_of(e, var)->cls == KC_VAR_ARRAY)
      kc_printf(o, "  bytes += kl_align_(sizeof(%s) * items);\n", kc_type(e, var->type));
  for (kl_variable *var = fn->locals; var; var = var->next)
    if (kc_var_of(e, var)->cls == KC_VAR_ARRAY)
      kc_printf(o, "  bytes += kl_align_(sizeof(%s) * items);\n", kc_type(e, var->type));
  kc_puts(o, "  (void)items;\n  return bytes;\n}\n\n");

  kc_printf(o, "static void kl_run_%s(const kl_c_launch *__L, size_t __first, size_t __count, "
               "char *__scratch) {\n", fn->name);
  /* __els: the enqueued local size; a group's own size (__ls) is smaller
   * in the last group of a dimension the local size does not divide */
  kc_puts(o,
          "  const size_t __els0 = __L->local_size[0], __els1 = __L->local_size[1], "
          "__els2 = __L->local_size[2];\n"
          "  const size_t __ng0 = __L->num_groups[0], __ng1 = __L->num_groups[1], "
          "__ng2 = __L->num_groups[2];\n"
          "  const size_t __gs0 = __L->global_size[0], __gs1 = __L->global_size[1], "
          "__gs2 = __L->global_size[2];\n"
          "  const size_t __go0 = __L->global_offset[0], __go1 = __L->global_offset[1], "
          "__go2 = __L->global_offset[2];\n"
          "  const size_t __items = __els0 * __els1 * __els2;\n"
          "  (void)__ng2; (void)__gs0; (void)__gs1; (void)__gs2; (void)__items;\n");
  /* parameters */
  for (kl_variable *param = fn->params; param; param = param->next) {
    kc_var *info = kc_var_of(e, param);
    const char *name = kc_var_name(e, param);
    bool copy = info->cls != KC_VAR_PARAM;
    const char *target = copy ? kl_format(e->ctx, "__arg_%s", name) : name;
    if (param->type->kind == KL_TYPE_POINTER) {
      if (param->type->pointee_space == KL_SPACE_LOCAL)
        /* __local memory is reached through this pointer only: restrict */
        kc_printf(o, "  %s = (%s)(__scratch + (uintptr_t)__L->args[%d]);\n",
                  kc_decl(e, param->type, copy ? target : kl_format(e->ctx, "restrict %s", target)),
                  kc_type(e, param->type), info->param_index);
      else
        kc_printf(o, "  %s = (%s)__L->args[%d];\n", kc_decl(e, param->type, target),
                  kc_type(e, param->type), info->param_index);
    } else {
      kc_printf(o, "  %s; __builtin_memcpy(&%s, __L->args[%d], sizeof %s);\n",
                kc_decl(e, param->type, target), target, info->param_index, target);
    }
    kc_printf(o, "  (void)%s;\n", target);
  }
  /* static __local variables */
  size_t local_offset = 0;
  for (kl_variable *var = fn->locals; var; var = var->next) {
    if (var->space != KL_SPACE_LOCAL) continue;
    size_t alignment = var->type->align > 16 ? (size_t)var->type->align : 16;
    local_offset = kc_align_up(local_offset, alignment);
    const char *name = kc_var_name(e, var);
    if (var->type->kind == KL_TYPE_ARRAY) {
      const char *pointer = kc_decl(e, var->type->element, kl_format(e->ctx, "*%s", name));
      const char *cast = kc_decl(e, var->type->element, "*");
      kc_printf(o, "  %s = (%s)(__scratch + %zu);\n", pointer, cast, local_offset);
    } else {
      kc_printf(o, "  %s = (%s)(__scratch + %zu);\n",
                kc_decl(e, var->type, kl_format(e->ctx, "*%s", name)),
                kc_decl(e, var->type, "*"), local_offset);
    }
    local_offset += (size_t)(var->type->size > 0 ? var->type->size : 1);
  }
  /* per-work-item arrays */
  kc_puts(o, "  char *__priv = __scratch + __L->private_offset; (void)__priv;\n");
  if (e->barrier_mode && e->has_return)
    kc_puts(o, "  unsigned char *__ret = (unsigned char *)__priv; __priv += kl_align_(__items);\n");
  for (int pass = 0; pass < 2; pass++) {
    for (kl_variable *var = pass == 0 ? fn->params : fn->locals; var; var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (info->cls != KC_VAR_ARRAY) continue;
      const char *name = kc_var_name(e, var);
      const kl_type *type = kc_unqualified(e, var->type);
      kc_printf(o, "  %s = (%s)__priv; __priv += kl_align_(sizeof(%s) * __items);\n",
                kc_decl(e, type, kl_format(e->ctx, "*%s", name)), kc_decl(e, type, "*"),
                kc_type(e, type));
    }
  }
  kc_puts(o,
          "  for (size_t __g = __first; __g < __first + __count; __g++) {\n"
          "    const size_t __gid0 = __g % __ng0, __gid1 = (__g / __ng0) % __ng1, "
          "__gid2 = __g / __ng0 / __ng1;\n"
          "    const size_t __ls0 = __gs0 - __gid0 * __els0 < __els0 ? __gs0 - __gid0 * __els0 : "
          "__els0, __ls1 = __gs1 - __gid1 * __els1 < __els1 ? __gs1 - __gid1 * __els1 : __els1, "
          "__ls2 = __gs2 - __gid2 * __els2 < __els2 ? __gs2 - __gid2 * __els2 : __els2;\n"
          "    const size_t __gb0 = __gid0 * __els0 + __go0, __gb1 = __gid1 * __els1 + __go1, "
          "__gb2 = __gid2 * __els2 + __go2;\n"
          "    (void)__gb0; (void)__gb1; (void)__gb2;\n");
  if (e->barrier_mode && e->has_return) kc_puts(o, "    __builtin_memset(__ret, 0, __items);\n");
  for (kl_variable *var = fn->params; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (info->cls != KC_VAR_ARRAY) continue;
    const char *name = kc_var_name(e, var);
    kc_printf(o, "    for (size_t __i = 0; __i < __items; __i++) %s[__i] = __arg_%s;\n", name, name);
  }
  for (kl_variable *var = fn->params; var; var = var->next)
    if (kc_var_of(e, var)->cls == KC_VAR_GROUP)
      kc_printf(o, "    %s = __arg_%s;\n",
                kc_decl(e, kc_unqualified(e, var->type), kc_var_name(e, var)), kc_var_name(e, var));
  for (kl_variable *var = fn->locals; var; var = var->next) {
    kc_var *info = kc_var_of(e, var);
    if (info->cls != KC_VAR_GROUP) continue;
    kc_printf(o, "    %s;\n", kc_decl(e, kc_unqualified(e, var->type), kc_var_name(e, var)));
  }
  /* pass 2: the code */
  e->indent = 2;
  e->region_count = 0;
  e->region = -1;
  kc_group_list(e, fn->body && fn->body->kind == KL_STMT_COMPOUND ? fn->body->body : fn->body,
                false);
  kc_puts(o, "  }\n}\n\n");
  int param_count = 0;
  for (kl_variable *param = fn->params; param; param = param->next) param_count++;
  kc_printf(o, "KL_EXPORT const kl_c_kernel kl_c_kernel_%s = {%uu, %d, %zu, kl_private_%s, "
               "kl_run_%s};\n\n",
            fn->name, KL_C_ABI_VERSION, param_count, local_offset, fn->name, fn->name);
}

/* ------------------------------------------------------------ prelude */

static void kc_prelude(kc_buf *o) {
  kc_puts(o, "/* generated by anygpu's host-C emitter, translator version ");
  kc_puts(o, KL_TRANSLATOR_VERSION);
  kc_puts(o, " */\n"
             "#define _GNU_SOURCE 1\n"
             "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n\n"
             "typedef signed char schar;\ntypedef unsigned char uchar;\n"
             "typedef unsigned short ushort;\ntypedef unsigned int uint;\n"
             "typedef unsigned long ulong;\n");
  static const char *const elements[][2] = {
      {"char", "signed char"}, {"uchar", "unsigned char"}, {"short", "short"},
      {"ushort", "unsigned short"}, {"int", "int"}, {"uint", "unsigned int"},
      {"long", "long"}, {"ulong", "unsigned long"}, {"float", "float"}, {"double", "double"}};
  static const int sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  static const int lengths[] = {2, 3, 4, 8, 16};
  for (int i = 0; i < 10; i++)
    for (int l = 0; l < 5; l++) {
      int lanes = lengths[l] == 3 ? 4 : lengths[l];
      kc_printf(o, "typedef %s %s%d __attribute__((vector_size(%d)));\n", elements[i][1],
                elements[i][0], lengths[l], lanes * sizes[i]);
    }
  kc_puts(o,
          "\n" KL_C_ABI_TEXT
          "\n\n"
          "typedef struct kl_c_wi { size_t lid[3], gid[3], lsz[3], ngr[3], gsz[3], goff[3], gb[3]; "
          "unsigned dim; } kl_c_wi;\n"
          "#define KL_EXPORT __attribute__((visibility(\"default\")))\n"
          "static inline size_t kl_align_(size_t n) { return (n + 127) & ~(size_t)127; }\n\n");
}

static void kc_structs(kc_emitter *e, kc_buf *o) {
  for (int i = 0; i < e->program->struct_count; i++) {
    const kl_type *s = e->program->structs[i];
    kc_printf(o, "struct kl_s%d {\n", i);
    for (const kl_member *m = s->members; m; m = m->next)
      kc_printf(o, "  %s;\n", kc_decl(e, m->type, m->name));
    kc_puts(o, "};\n");
    for (const kl_member *m = s->members; m; m = m->next)
      kc_printf(o, "_Static_assert(offsetof(struct kl_s%d, %s) == %d, \"layout of %s\");\n", i,
                m->name, m->offset, s->name ? s->name : "struct");
    if (s->size > 0)
      kc_printf(o, "_Static_assert(sizeof(struct kl_s%d) == %d, \"size of %s\");\n", i, s->size,
                s->name ? s->name : "struct");
  }
  if (e->program->struct_count) kc_puts(o, "\n");
}

const char *kl_emit_c(kl_context *ctx, const kl_program *program) {
  kc_emitter emitter;
  memset(&emitter, 0, sizeof emitter);
  kc_emitter *e = &emitter;
  e->ctx = ctx;
  e->program = program;
  e->region = -1;
  kc_buf prelude = {0}, body = {0};
  kc_prelude(&prelude);
  kc_structs(e, &prelude);

  e->out = &body;
  /* program-scope constants */
  for (kl_variable *var = program->constants; var; var = var->next) {
    kc_printf(&body, "static const %s", kc_decl(e, var->type, kc_var_name(e, var)));
    if (var->initializer) {
      kc_puts(&body, " = ");
      e->static_init = true;
      kc_initializer(e, var->initializer);
      e->static_init = false;
    }
    kc_puts(&body, ";\n");
  }
  /* helpers with barriers are inlined into the kernels (emit_c_inline.c),
   * whose variables then need ids of their own */
  for (const kl_variable *var = program->constants; var; var = var->next)
    if (var->id >= e->next_variable_id) e->next_variable_id = var->id + 1;
  for (const kl_function *fn = program->functions; fn; fn = fn->next) {
    for (const kl_variable *var = fn->params; var; var = var->next)
      if (var->id >= e->next_variable_id) e->next_variable_id = var->id + 1;
    for (const kl_variable *var = fn->locals; var; var = var->next)
      if (var->id >= e->next_variable_id) e->next_variable_id = var->id + 1;
  }
  for (const kl_function *fn = program->functions; fn; fn = fn->next)
    if (!fn->is_kernel && fn->body && !kc_barrier_helper(fn)) kc_helper_function(e, fn, true);
  kc_puts(&body, "\n");
  for (const kl_function *fn = program->functions; fn; fn = fn->next)
    if (!fn->is_kernel && fn->body && !kc_barrier_helper(fn)) kc_helper_function(e, fn, false);
  for (const kl_function *fn = program->functions; fn; fn = fn->next)
    if (fn->is_kernel && fn->body) kc_kernel(e, kc_inline_barrier_helpers(e, fn));

  const char *result = NULL;
  if (prelude.failed || body.failed || e->helpers.failed) {
    kl_error(ctx, program->functions ? program->functions->location : (kl_location){0},
             "out of memory in the C emitter");
  } else if (!e->failed) {
    size_t total = prelude.length + e->helpers.length + body.length;
    char *text = kl_alloc(ctx, total + 1);
    memcpy(text, prelude.data, prelude.length);
    if (e->helpers.length) memcpy(text + prelude.length, e->helpers.data, e->helpers.length);
    memcpy(text + prelude.length + e->helpers.length, body.data, body.length);
    text[total] = '\0';
    result = text;
  }
  kc_buf_free(&prelude);
  kc_buf_free(&body);
  kc_buf_free(&e->helpers);
  free(e->helper_names);
  free(e->vars);
  return result;
}
