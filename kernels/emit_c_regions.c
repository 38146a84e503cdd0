// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's regions (emit_c.c): the statements between two
 * barriers become one loop over the group's work-items; the control flow
 * around barriers runs once per work-group. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_abi.h"
#include "emit_c_internal.h"
#include "translate.h"

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
        klg_printf(e->out,
                   "__typeof__(%s) __rin_%s; __builtin_memcpy(&__rin_%s, &%s, sizeof %s);\n", name,
                   name, name, name, name);
      else
        klg_printf(e->out, "__builtin_memcpy(&%s, &__rin_%s, sizeof %s);\n", name, name, name);
    }
}

/* Opens a region (here, in emit_c_gang.c and in emit_c_stream.c): a new
 * number, a block whose comment says `region N<note>`, the loop depths
 * reset, the group-level variables it assigns saved, the bounds of a region
 * of one `if (lid < U)`, then the loops over z and y, the y loop's line
 * ending in ` {` when `y_block`. The caller opens its loop over x. (Gangs
 * and streaming stores assign no group-level variable and have no such
 * bound: nothing is saved or bounded there.) */
void kc_region_begin(kc_emitter *e, const char *note, bool y_block) {
  klg_buf *o = e->out;
  e->region = e->region_count++;
  e->region_label = e->region;
  e->loop_depth = 0;
  e->breakable_depth = 0;
  kc_indent(e);
  klg_printf(o, "{ /* region %d%s */\n", e->region, note);
  kc_region_resets(e, true);
  if (e->bound_kind && !e->analyzing) {
    kc_indent(e);
    klg_printf(o, "const %s __u = ", kc_type(e, e->bound->type));
    kc_expr(e, e->bound);
    if (e->bound_kind == 1)
      klg_puts(o,
               "; const size_t __lo = 0, __hi = __u <= 0 ? 0 : (size_t)__u < __ls0 ? (size_t)__u : "
               "__ls0;\n");
    else
      klg_puts(o,
               "; const size_t __lo = __u < 0 || (size_t)__u >= __ls0 ? 0 : (size_t)__u, "
               "__hi = __u < 0 || (size_t)__u >= __ls0 ? 0 : (size_t)__u + 1;\n");
  }
  kc_indent(e);
  klg_puts(o, "for (size_t __lz = 0; __lz < __ls2; __lz++)\n");
  kc_indent(e);
  klg_puts(o, y_block ? "for (size_t __ly = 0; __ly < __ls1; __ly++) {\n"
                      : "for (size_t __ly = 0; __ly < __ls1; __ly++)\n");
  if (y_block) e->indent++;
}

void kc_region_open(kc_emitter *e) {
  kc_region_begin(e, "", false);
  kc_indent(e);
  if (e->bound_kind && !e->analyzing) {
    klg_puts(e->out, "for (size_t __lx = __lo; __lx < __hi; __lx++) {\n");
  } else {
    klg_puts(e->out, "for (size_t __lx = 0; __lx < __ls0; __lx++) {\n");
  }
  e->indent++;
  kc_region_item(e);
}

/* The start of one work-item's pass through the current region, inside a
 * loop that defines __lx, __ly and __lz (here and in emit_c_gang.c). */
void kc_region_item(kc_emitter *e) {
  klg_buf *o = e->out;
  kc_indent(e);
  klg_puts(o, "const size_t __li = (__lz * __ls1 + __ly) * __ls0 + __lx; (void)__li;\n");
  if (e->uses_calls) {
    kc_indent(e);
    klg_puts(o,
             "const kl_c_wi __wis = {{__lx, __ly, __lz}, {__gid0, __gid1, __gid2}, "
             "{__ls0, __ls1, __ls2}, {__ng0, __ng1, __ng2}, {__gs0, __gs1, __gs2}, "
             "{__go0, __go1, __go2}, {__gb0, __gb1, __gb2}, {__els0, __els1, __els2}, "
             "__L->work_dim}; "
             "const kl_c_wi *const __wi = &__wis; (void)__wi;\n");
  }
  if (e->barrier_mode && e->has_return) {
    kc_indent(e);
    klg_puts(o, "if (__ret[__li]) continue;\n");
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
      klg_printf(o, "const %s = ", kc_decl(e, var->type, kc_var_name(e, var)));
      kc_expr(e, var->initializer);
      klg_puts(o, ";\n");
    }
  }
  /* assigned parameters: a private copy per work-item */
  if (!e->barrier_mode) {
    for (kl_variable *var = e->function->params; var; var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (!info || info->cls != KC_VAR_PLAIN) continue;
      kc_indent(e);
      klg_printf(o, "%s = __arg_%s;\n", kc_decl(e, var->type, kc_var_name(e, var)),
                 kc_var_name(e, var));
    }
  }
}

void kc_region_close(kc_emitter *e) {
  klg_buf *o = e->out;
  if (e->has_return) {
    kc_indent(e);
    klg_printf(o, "__kl_next%d: ;\n", e->region_label);
  }
  kc_close(e, "}}\n");
  e->region = -1;
}

void kc_group_list(kc_emitter *e, const kl_node *first, bool single);

const kl_node *kc_strip(const kl_node *node) {
  while (node && (node->kind == KL_EXPR_CONVERT || node->kind == KL_EXPR_CAST) && node->lhs &&
         kl_type_is_integer(node->type) && kl_type_is_integer(node->lhs->type) &&
         node->type->size >= node->lhs->type->size)
    node = node->lhs;
  return node;
}

static bool kc_is_local_id0(kc_emitter *e, const kl_node *node, int depth) {
  node = kc_strip(node);
  if (!node || depth > 4) return false;
  if (node->kind == KL_EXPR_BUILTIN && node->builtin &&
      node->builtin->id == KL_BUILTIN_GET_LOCAL_ID) {
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

/* A variable with one value for the whole group before a region runs. */
static bool kc_group_variable(kc_emitter *e, kl_variable *var) {
  if (var->is_program_scope) return true;
  kc_var *info = kc_var_of(e, var);
  if (!info) return false;
  if (var->is_parameter) return info->cls == KC_VAR_PARAM;
  return info->decl_region == -1 || info->cls == KC_VAR_GROUP;
}

/* Evaluable before a region's work-item loop: literals, work-group values. */
static bool kc_group_visible(kc_emitter *e, const kl_node *node, int depth) {
  if (!node || depth > 32) return false;
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL:
      return true;
    case KL_EXPR_VARIABLE:
      return kc_group_variable(e, node->variable);
    case KL_EXPR_BINARY:
      return kc_group_visible(e, node->lhs, depth + 1) && kc_group_visible(e, node->rhs, depth + 1);
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      return kl_type_is_integer(node->type) && kc_group_visible(e, node->lhs, depth + 1);
    case KL_EXPR_BUILTIN:
      if (!node->builtin) return false;
      switch (node->builtin->id) {
        case KL_BUILTIN_GET_LOCAL_SIZE:
        case KL_BUILTIN_GET_ENQUEUED_LOCAL_SIZE:
        case KL_BUILTIN_GET_NUM_GROUPS:
        case KL_BUILTIN_GET_GROUP_ID:
        case KL_BUILTIN_GET_GLOBAL_SIZE:
          return kc_group_visible(e, node->args, depth + 1);
        default:
          return false;
      }
    default:
      return false;
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
bool kc_is_global_id0(kc_emitter *e, const kl_node *node, uint64_t *max, int depth) {
  if (!node || depth > 8) return false;
  if (node->kind == KL_EXPR_CONVERT || node->kind == KL_EXPR_CAST) {
    uint64_t m = kc_int_max(node->type);
    if (!m || !node->lhs) return false;
    if (m < *max) *max = m;
    return kc_is_global_id0(e, node->lhs, max, depth + 1);
  }
  if (node->kind == KL_EXPR_BUILTIN && node->builtin &&
      node->builtin->id == KL_BUILTIN_GET_GLOBAL_ID) {
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
/* `node` is such a comparison: *max and *left (the id on the left) set. */
static bool kc_gid_cmp_match(kc_emitter *e, const kl_node *node, uint64_t *max, bool *left) {
  if (node->kind != KL_EXPR_BINARY || !node->lhs || !node->rhs ||
      !(node->op == KL_OP_LT || node->op == KL_OP_LE || node->op == KL_OP_GT ||
        node->op == KL_OP_GE) ||
      !node->lhs->type || !node->rhs->type || kc_is_vector(node->lhs->type) ||
      kc_is_vector(node->rhs->type) || !kl_type_is_integer(node->lhs->type) ||
      !kc_int_max(node->lhs->type) || !kc_int_max(node->rhs->type))
    return false;
  *max = UINT64_MAX;
  *left = kc_is_global_id0(e, node->lhs, max, 0);
  const kl_node *bound = *left ? node->rhs : node->lhs;
  return (*left || kc_is_global_id0(e, node->rhs, max, 0)) && kc_uniform(e, bound, 0) &&
         kc_group_visible(e, bound, 0);
}

bool kc_gid_guard(kc_emitter *e, const kl_node *condition) {
  uint64_t max;
  bool left;
  if (!condition || !kc_gid_cmp_match(e, condition, &max, &left)) return false;
  bool less = condition->op == KL_OP_LT || condition->op == KL_OP_LE;
  return left ? less : !less;
}

static kc_visit_step kc_gid_cmp_visit(const kl_node *node, void *context) {
  kc_emitter *e = context;
  uint64_t max;
  bool left;
  if (!kc_gid_cmp_match(e, node, &max, &left)) return KC_VISIT_INTO;
  if (e->gid_cmp_count >= 4) {
    e->gid_cmp_count = 5; /* too many: no copy */
    return KC_VISIT_STOP;
  }
  bool less = node->op == KL_OP_LT || node->op == KL_OP_LE;
  e->gid_cmp[e->gid_cmp_count] = node;
  e->gid_cmp_max[e->gid_cmp_count] = max;
  e->gid_cmp_left[e->gid_cmp_count] = left;
  e->gid_cmp_value[e->gid_cmp_count++] = left ? less : !less;
  return KC_VISIT_OVER;
}

static bool kc_needs_group(kc_emitter *e, const kl_node *stmt) {
  if (kc_has_barrier(stmt)) return true;
  if (e->group_loop_depth > 0 && kc_has_escape(stmt, false, false, 0)) return true;
  return false;
}

/* What makes a condition differ between work-items: the first variable
 * or work-item function in it that is not uniform ("'row'",
 * "get_global_id(0)"), or NULL. */
static const char *kc_varying_part(kc_emitter *e, const kl_node *node, int depth) {
  if (!node || depth > 64 || kc_uniform(e, node, 0)) return NULL;
  if (node->kind == KL_EXPR_VARIABLE) return kl_format(e->ctx, "'%s'", node->variable->name);
  if (node->kind == KL_EXPR_BUILTIN && node->builtin &&
      (node->builtin->id == KL_BUILTIN_GET_LOCAL_ID ||
       node->builtin->id == KL_BUILTIN_GET_GLOBAL_ID))
    return kl_format(e->ctx, "%s()", node->builtin->name);
  const kl_node *children[] = {node->lhs, node->rhs, node->condition, node->then, node->otherwise};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++) {
    const char *part = kc_varying_part(e, children[i], depth + 1);
    if (part) return part;
  }
  for (const kl_node *arg = node->args; arg; arg = arg->next) {
    const char *part = kc_varying_part(e, arg, depth + 1);
    if (part) return part;
  }
  return NULL;
}

static void kc_group_condition(kc_emitter *e, const kl_node *condition, const char *what) {
  if (!e->analyzing && !kc_uniform(e, condition, 0)) {
    const char *part = kc_varying_part(e, condition, 0);
    kc_error(e, condition->location,
             "the condition of this %s, which contains a barrier, may differ between the "
             "work-items of a group%s%s%s (OpenCL leaves a barrier that not every work-item "
             "reaches undefined); the CPU backend needs barriers in work-group-uniform control "
             "flow: test the condition inside the block, between the barriers",
             what, part ? ": " : "", part ? part : "", part ? " differs" : "");
  }
  kc_expr(e, condition);
}

/* An indented "if (" or "while (", the condition, ") ". */
static void kc_group_head(kc_emitter *e, const char *keyword, const kl_node *condition,
                          const char *what) {
  kc_indent(e);
  klg_puts(e->out, keyword);
  kc_group_condition(e, condition, what);
  klg_puts(e->out, ") ");
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

/* "{", the list one level deeper (inside a group-level loop when `loop`),
 * then the closing "}" with `after`. */
static bool kc_list_has_return(const kl_node *list, bool single) {
  for (const kl_node *stmt = list; stmt; stmt = single ? NULL : stmt->next)
    if (kc_has_return(stmt, 0)) return true;
  return false;
}

static void kc_group_block(kc_emitter *e, const kl_node *list, bool single, bool loop,
                           const char *after) {
  klg_puts(e->out, "{\n");
  e->indent++;
  if (loop && kc_list_has_return(list, single)) {
    /* a work-group-uniform loop (`while (1)`) that its work-items leave by
     * `return`: once every one has returned, the group leaves the loop (and
     * the loops around it, each at its next iteration), else it would go
     * round its regions, all skipped, for ever */
    kc_indent(e);
    klg_printf(e->out,
               "{ int __live = 0; for (size_t __i = 0; __i < __ls0 * __ls1 * __ls2 && !__live; "
               "__i++) __live = __ret[__i] != %d; if (!__live) break; }\n",
               KC_RETURNED);
  }
  e->group_loop_depth += loop;
  kc_group_list(e, list, single);
  e->group_loop_depth -= loop;
  kc_close(e, after);
}

bool kc_is_divergent_barrier_if(const kl_node *node) {
  return node->kind == KL_STMT_IF && node->contains_barrier && !node->is_uniform &&
         !kc_has_escape(node, false, false, 0);
}

bool kc_is_divergent_barrier_loop(const kl_node *node) {
  return (node->kind == KL_STMT_FOR || node->kind == KL_STMT_WHILE || node->kind == KL_STMT_DO) &&
         node->contains_barrier && !node->is_uniform && node->condition &&
         !kc_has_escape(node->body, false, false, 0);
}

bool kc_is_masked(const kl_node *node) {
  return kc_is_divergent_barrier_if(node) || kc_is_divergent_barrier_loop(node);
}

/* A mask of its own for a divergent if or loop: its depth, or 0 (an error). */
static int kc_mask_enter(kc_emitter *e, const kl_node *node) {
  if (e->mask_depth == KC_MAX_MASK_DEPTH) {
    kc_error(e, node->location, "divergent ifs and loops with barriers nested too deeply");
    return 0;
  }
  return ++e->mask_depth;
}

/* A region masking the active work-items for which `condition` is false. */
static void kc_mask_unless(kc_emitter *e, const kl_node *condition, int level) {
  kc_region_open(e);
  kc_indent(e);
  klg_puts(e->out, "if (!(");
  kc_expr(e, condition);
  klg_printf(e->out, ")) __ret[__li] = %d;\n", level);
  kc_region_close(e);
}

/* Every work-item of the group (masked or not): `statement` with __i its
 * linear local id. */
static void kc_all_items(kc_emitter *e, const char *statement) {
  kc_indent(e);
  klg_printf(e->out, "for (size_t __i = 0; __i < __ls0 * __ls1 * __ls2; __i++) %s\n", statement);
}

/* `if (c) A else B` with barriers inside, where c may differ between the
 * work-items (a partial last group's `if (row < n)` around a tiled loop):
 * OpenCL leaves a barrier not every work-item reaches undefined; here the
 * work-items that do not take a branch sit its regions out, masked at this
 * if's depth, and every barrier inside waits for the others (what such
 * kernels mean, and what PoCL does). */
static void kc_group_masked_if(kc_emitter *e, const kl_node *node) {
  int level = kc_mask_enter(e, node);
  if (!level) return;
  kc_mask_unless(e, node->condition, level);
  kc_indent(e);
  kc_group_block(e, node->then, true, false, "}\n");
  if (node->otherwise) {
    kc_all_items(
        e,
        kl_format(e->ctx, "__ret[__i] = __ret[__i] == %d ? 0 : __ret[__i] == 0 ? %d : __ret[__i];",
                  level, level));
    kc_indent(e);
    kc_group_block(e, node->otherwise, true, false, "}\n");
  }
  kc_all_items(e, kl_format(e->ctx, "if (__ret[__i] == %d) __ret[__i] = 0;", level));
  e->mask_depth--;
}

/* Masks the work-items whose loop condition fails, then leaves the loop
 * when no work-item of the group is left in it. */
static void kc_leave_unless_live(kc_emitter *e, const kl_node *condition, int level) {
  kc_mask_unless(e, condition, level);
  kc_indent(e);
  klg_puts(e->out,
           "{ int __live = 0; for (size_t __i = 0; __i < __ls0 * __ls1 * __ls2 && !__live; "
           "__i++) __live = !__ret[__i]; if (!__live) break; }\n");
}

/* A loop with barriers whose trip count may differ between the work-items
 * (`for (i = lid; i < n; i += ls)`, `while (i < count[row])`): the group
 * runs it while any work-item is still in it; a work-item whose condition
 * fails is masked at the loop's depth until the loop ends. */
static void kc_group_masked_loop(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  int level = kc_mask_enter(e, node);
  if (!level) return;
  kc_indent(e);
  klg_puts(o, "{\n");
  e->indent++;
  if (node->kind == KL_STMT_FOR && node->init) {
    kc_region_open(e);
    for (const kl_node *init = node->init; init; init = init->next) kc_stmt(e, init);
    kc_region_close(e);
  }
  kc_indent(e);
  klg_puts(o, "for (;;) {\n");
  e->indent++;
  if (node->kind != KL_STMT_DO) kc_leave_unless_live(e, node->condition, level);
  kc_group_list(e, node->body, true);
  if (node->kind == KL_STMT_FOR && node->increment) {
    kc_region_open(e);
    kc_indent(e);
    kc_expr(e, node->increment);
    klg_puts(o, ";\n");
    kc_region_close(e);
  }
  if (node->kind == KL_STMT_DO) kc_leave_unless_live(e, node->condition, level);
  kc_close(e, "}\n");
  kc_all_items(e, kl_format(e->ctx, "if (__ret[__i] == %d) __ret[__i] = 0;", level));
  kc_close(e, "}\n");
  e->mask_depth--;
}

static void kc_group_stmt(kc_emitter *e, const kl_node *node) {
  klg_buf *o = e->out;
  if (e->barrier_mode && kc_is_divergent_barrier_loop(node)) {
    kc_group_masked_loop(e, node);
    return;
  }
  switch (node->kind) {
    case KL_STMT_COMPOUND:
      kc_indent(e);
      kc_group_block(e, node->body, false, false, "}\n");
      return;
    case KL_STMT_IF:
      if (e->barrier_mode && kc_is_divergent_barrier_if(node)) {
        kc_group_masked_if(e, node);
        return;
      }
      kc_group_head(e, "if (", node->condition, "if");
      kc_group_block(e, node->then, true, false, "}\n");
      if (node->otherwise) {
        kc_indent(e);
        klg_puts(o, "else ");
        kc_group_block(e, node->otherwise, true, false, "}\n");
      }
      return;
    case KL_STMT_FOR:
      kc_indent(e);
      klg_puts(o, "{\n");
      e->indent++;
      for (const kl_node *init = node->init; init; init = init->next) kc_group_for_init(e, init);
      kc_indent(e);
      klg_puts(o, "for (; ");
      if (node->condition) kc_group_condition(e, node->condition, "loop");
      klg_puts(o, "; ");
      if (node->increment) {
        if (!e->analyzing && !kc_uniform(e, node->increment, 0))
          kc_error(e, node->increment->location,
                   "the step of this loop, which contains a barrier, may differ between the "
                   "work-items of a group");
        kc_expr(e, node->increment);
      }
      klg_puts(o, ") ");
      kc_group_block(e, node->body, true, true, "}\n");
      kc_close(e, "}\n");
      return;
    case KL_STMT_WHILE:
      kc_group_head(e, "while (", node->condition, "loop");
      kc_group_block(e, node->body, true, true, "}\n");
      return;
    case KL_STMT_DO:
      kc_indent(e);
      klg_puts(o, "do ");
      kc_group_block(e, node->body, true, true, "} while (");
      kc_group_condition(e, node->condition, "loop");
      klg_puts(o, ");\n");
      return;
    case KL_STMT_BREAK:
      kc_indent(e);
      klg_puts(o, "break;\n");
      return;
    case KL_STMT_CONTINUE:
      kc_indent(e);
      klg_puts(o, "continue;\n");
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

/* After `if (condition) {`: the region of statements `first` .. `last`
 * with *fast set (the copy for groups where the condition holds, its own
 * labels from label_base on; with streaming stores where `may_stream` and
 * the region can), `} else {`, the region as is, `}`. */
static void kc_emit_copies(kc_emitter *e, const kl_node *first, const kl_node *last, bool *fast,
                           int label_base, bool may_stream) {
  e->indent++;
  int region_count = e->region_count, bound_kind = e->bound_kind;
  const kl_node *bound = e->bound;
  *fast = true;
  /* the fast copy with streaming stores where it can (emit_c_stream.c) */
  if (!may_stream || !kc_stream_region(e, first, last)) {
    kc_region_open(e);
    e->region_label = e->region + label_base;
    e->bound_kind = 0;
    for (const kl_node *s = first;; s = s->next) {
      kc_stmt(e, s);
      if (s == last) break;
    }
    kc_region_close(e);
  }
  *fast = false;
  kc_close(e, "} else {\n");
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
  kc_close(e, "}\n");
}

/* Emits the region of statements `first` .. `last` twice (see gid_cmp):
 * for groups whose every global id in dimension 0 lies below each bound,
 * with those comparisons constant, and as is for the others. */
static void kc_emit_gid_versions(kc_emitter *e, const kl_node *first, const kl_node *last) {
  klg_buf *o = e->out;
  kc_indent(e);
  klg_puts(o, "if (");
  for (int i = 0; i < e->gid_cmp_count; i++) {
    const kl_node *c = e->gid_cmp[i];
    const kl_node *bound = e->gid_cmp_left[i] ? c->rhs : c->lhs;
    if (i) klg_puts(o, " && ");
    /* the group's ids are exact in the types on the way, and below the bound */
    klg_printf(o, "__gb0 + __ls0 - 1 <= (size_t)%lluull && !((",
               (unsigned long long)e->gid_cmp_max[i]);
    kc_expr(e, bound);
    klg_puts(o, ") < 0) && (size_t)(");
    kc_expr(e, bound);
    klg_puts(o, ") >= __gb0 + __ls0");
  }
  klg_puts(o, ") {\n");
  kc_emit_copies(e, first, last, &e->gid_fast, 1000000, true);
  e->gid_cmp_count = 0;
}

typedef struct kc_fits_state {
  kc_emitter *e;
  klg_buf *condition;
  int count;
} kc_fits_state;

/* Appends a bounds check's `fits` condition (kernels/bounds_ranges.c) to
 * the condition, joined with &&. */
static kc_visit_step kc_fits_visit(const kl_node *node, void *context) {
  kc_fits_state *state = context;
  if (!node->check_fits) return KC_VISIT_INTO;
  kc_emitter *e = state->e;
  klg_buf *saved = e->out;
  e->out = state->condition;
  klg_puts(state->condition, state->count++ ? " && " : "");
  kc_expr(e, node);
  e->out = saved;
  return KC_VISIT_OVER;
}

/* The `fits` conditions of the region `first` .. `last`; false when there
 * is none. */
static bool kc_fits_condition(kc_emitter *e, const kl_node *first, const kl_node *last,
                              klg_buf *condition) {
  kc_fits_state state = {.e = e, .condition = condition};
  for (const kl_node *s = first;; s = s->next) {
    kc_visit(s, 1000, kc_fits_visit, &state);
    if (s == last) break;
  }
  return state.count > 0;
}

/* A region with bounds checks that the group's size decides (`fits ||
 * check`): emitted twice, for groups where every such condition holds
 * (checks and their notes gone: the loops unroll and vectorise as without
 * checks) and as is for the others. */
static bool kc_emit_fits_versions(kc_emitter *e, const kl_node *first, const kl_node *last) {
  if (e->analyzing || e->failed || !e->program->checks_bounds) return false;
  klg_buf condition;
  klg_init(&condition, e->ctx);
  if (!kc_fits_condition(e, first, last, &condition)) return false;
  klg_buf *o = e->out;
  kc_indent(e);
  klg_printf(o, "if (%s) {\n", klg_text(&condition));
  kc_emit_copies(e, first, last, &e->fits_fast, 2000000, false);
  return true;
}

/* A statement list at group level; `single`: `first` is one statement that
 * may not be a compound (an if's branch, a loop's body). */
void kc_group_list(kc_emitter *e, const kl_node *first, bool single) {
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
      if ((e->barrier_mode || e->stream_guarded) && !e->analyzing && !e->failed)
        for (const kl_node *s = stmt;; s = s->next) {
          kc_visit(s, 64, kc_gid_cmp_visit, e);
          if (s == last) break;
        }
      if (e->gid_cmp_count > 0 && e->gid_cmp_count <= 4) {
        kc_emit_gid_versions(e, stmt, last);
        stmt = last;
        continue;
      }
      e->gid_cmp_count = 0;
      if (kc_emit_fits_versions(e, stmt, last)) {
        stmt = last;
        continue;
      }
      if (kc_gang_region(e, stmt, last)) { /* gangs of work-items (emit_c_gang.c) */
        stmt = last;
        continue;
      }
      if (kc_stream_region(e, stmt, last)) { /* streaming stores (emit_c_stream.c) */
        stmt = last;
        continue;
      }
      kc_region_open(e);
      e->bound_kind = 0;
    }
    open = true;
    kc_stmt(e, stmt);
  }
  if (open) kc_region_close(e);
}
