// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's variables (emit_c.c says how each is kept): where
 * each is used, which regions, whether its value is pure or uniform. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_abi.h"
#include "emit_c_internal.h"
#include "translate.h"

/* ---------------------------------------------------------- variables */

kc_var *kc_var_of(kc_emitter *e, kl_variable *var) {
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

bool kc_region_set_has(const int *set, int count, int region) {
  for (int i = 0; i < count; i++)
    if (set[i] == region) return true;
  return false;
}

void kc_var_use(kc_emitter *e, kl_variable *var) {
  if (!e->analyzing || var->is_program_scope) return;
  kc_var *info = kc_var_of(e, var);
  if (!info) return;
  if (e->region < 0) {
    info->used_at_group = true;
    return;
  }
  kc_region_set_add(e, &info->regions, &info->region_count, &info->region_capacity, e->region);
}

bool kc_var_in_region(const kc_var *info, int region) {
  return kc_region_set_has(info->regions, info->region_count, region);
}

/* The variable an lvalue expression is rooted at, if private. */
kl_variable *kc_root(const kl_node *node) {
  while (node) {
    switch (node->kind) {
      case KL_EXPR_VARIABLE:
        return node->variable;
      case KL_EXPR_SWIZZLE:
      case KL_EXPR_MEMBER:
        if (node->kind == KL_EXPR_MEMBER && node->is_arrow) return NULL;
        node = node->lhs;
        break;
      case KL_EXPR_INDEX:
        if (node->lhs->type && node->lhs->type->kind == KL_TYPE_POINTER) return NULL;
        node = node->lhs;
        break;
      default:
        return NULL;
    }
  }
  return NULL;
}

void kc_note_assign(kc_emitter *e, const kl_node *lhs) {
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

const char *kc_var_name(kc_emitter *e, const kl_variable *var) {
  if (var->is_program_scope) return kl_format(e->ctx, "kl_c%d_%s", var->id, var->name);
  return kl_format(e->ctx, "v%d_%s", var->id, var->name);
}

typedef bool (*kc_node_test)(kc_emitter *e, const kl_node *node, int depth);

/* Whether `holds` is true of every operand of an operator, a conversion, a
 * swizzle, a vector literal or a builtin call; false for other kinds. */
static bool kc_operands_all(kc_emitter *e, const kl_node *node, int depth, kc_node_test holds) {
  switch (node->kind) {
    case KL_EXPR_BINARY:
    case KL_EXPR_COMMA:
    case KL_EXPR_ASSIGN:
      return holds(e, node->lhs, depth + 1) && holds(e, node->rhs, depth + 1);
    case KL_EXPR_CONDITIONAL:
      return holds(e, node->condition, depth + 1) && holds(e, node->then, depth + 1) &&
             holds(e, node->otherwise, depth + 1);
    case KL_EXPR_UNARY:
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
    case KL_EXPR_SWIZZLE:
      return holds(e, node->lhs, depth + 1);
    case KL_EXPR_VECTOR_LITERAL:
    case KL_EXPR_BUILTIN:
      for (const kl_node *arg = node->args; arg; arg = arg->next)
        if (!holds(e, arg, depth + 1)) return false;
      return true;
    default:
      return false;
  }
}

/* Barriers, atomics and fences are neither pure nor uniform values. */
static bool kc_builtin_has_effects(const kl_node *node) {
  kl_builtin_category category = node->builtin->category;
  return category == KL_BUILTIN_SYNC || category == KL_BUILTIN_ATOMIC ||
         category == KL_BUILTIN_MEMORY;
}

/* A variable whose value can be recomputed after a barrier. */
static bool kc_pure_variable(kc_emitter *e, kl_variable *var) {
  if (var->is_program_scope) return !kc_is_vector(var->type) && var->type->kind != KL_TYPE_ARRAY;
  kc_var *info = kc_var_of(e, var);
  if (!info) return false;
  if (var->is_parameter) return !info->assigned && var->space != KL_SPACE_LOCAL;
  return info->cls == KC_VAR_REMAT;
}

/* A pure expression of the work-item's ids, literals, unassigned parameters
 * and other such variables: safe to recompute after a barrier. */
bool kc_pure(kc_emitter *e, const kl_node *node, int depth) {
  if (!node || depth > 64) return false;
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL:
    case KL_EXPR_FLOAT_LITERAL:
      return true;
    case KL_EXPR_VARIABLE:
      return kc_pure_variable(e, node->variable);
    case KL_EXPR_UNARY:
      if (node->op == KL_OP_DEREFERENCE || node->op == KL_OP_ADDRESS_OF ||
          node->op >= KL_OP_PRE_INCREMENT)
        return false;
      return kc_pure(e, node->lhs, depth + 1);
    case KL_EXPR_COMMA:
    case KL_EXPR_ASSIGN:
      return false;
    case KL_EXPR_BUILTIN:
      return node->builtin && !kc_builtin_has_effects(node) &&
             kc_operands_all(e, node, depth, kc_pure);
    default:
      return kc_operands_all(e, node, depth, kc_pure);
  }
}

/* A variable with one value across the work-group where it is read. */
static bool kc_uniform_variable(kc_emitter *e, kl_variable *var, int depth) {
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

/* Uniform across the work-group: the analysis here, or check.c's mark. */
bool kc_uniform(kc_emitter *e, const kl_node *node, int depth) {
  if (!node) return true;
  if (node->is_uniform) return true;
  if (depth > 64) return false;
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL:
    case KL_EXPR_FLOAT_LITERAL:
      return true;
    case KL_EXPR_VARIABLE:
      return kc_uniform_variable(e, node->variable, depth);
    case KL_EXPR_UNARY:
      if (node->op == KL_OP_DEREFERENCE || node->op == KL_OP_ADDRESS_OF) return false;
      return kc_uniform(e, node->lhs, depth + 1);
    case KL_EXPR_BUILTIN: {
      if (!node->builtin) return false;
      switch (node->builtin->id) {
        case KL_BUILTIN_GET_LOCAL_ID:
        case KL_BUILTIN_GET_GLOBAL_ID:
          return false;
        default:
          break;
      }
      return !kc_builtin_has_effects(node) && kc_operands_all(e, node, depth, kc_uniform);
    }
    default:
      return kc_operands_all(e, node, depth, kc_uniform);
  }
}
