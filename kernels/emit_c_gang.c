// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's gangs (emit_c_regions.c calls kc_gang_region): a
 * region whose work-items each run a grid-stride loop,
 *
 *   pre; for (T i = START; i < N; i += STEP) BODY; post
 *
 * with N and STEP the same for the whole group, runs its work-items in
 * gangs of __gw lanes (a row of the group, __ls0 work-items, up to KG_MAX;
 * rows shorter than KG_MIN stay one work-item after another): the pre
 * statements lane by lane, then the loop
 * once for the gang, `for (ib = START of lane 0; ...; ib += STEP) for (lane)
 * BODY(i = ib + lane)`, so that lane l reads element ib + l and gcc turns
 * the lane loop into vector instructions, then the post statements lane by
 * lane. The variables the pre statements declare live in arrays of
 * KG_MAX on the stack between the phases (at most KG_BYTES in all). A gang runs so only when its
 * lanes' starts are consecutive and no `i` can wrap (checked at run time, else the gang runs the
 * loop lane by lane); the last lanes of a row that do not fill a gang, and every region the
 * analysis here does not accept, run one work-item after another as before.
 *
 * Work-items of a group that run between two barriers may be interleaved
 * in any order (OpenCL: their accesses to one location without a barrier
 * between are a data race), so the reordering is invisible to race-free
 * kernels; regions with atomics or calls are left alone all the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emit_c_internal.h"

enum { KG_MIN = 4, KG_MAX = 256, KG_BYTES = 64 * 1024 };

/* A call of bounds checking's prelude that only computes or reads the
 * check buffer's extents (kernels/bounds.c): no effect on other lanes. */
static bool kg_pure_check_call(const kl_node *node) {
  const char *name = node->function ? node->function->name : "";
  return strcmp(name, "__agpu_in") == 0 || strcmp(name, "__agpu_extent") == 0 ||
         strcmp(name, "__agpu_word") == 0;
}

/* Every node of a tree: no calls, no atomics or other builtins with effects
 * across work-items, no returns (but bounds checks' pure calls, and the
 * kernel's report, which the C target stores per work-item:
 * emit_c_report.c). */
static bool kg_tree_ok(const kc_emitter *e, const kl_node *node, bool chain, int depth) {
  for (; node; node = chain ? node->next : NULL) {
    if (depth > 200) return false;
    if (node == e->deferred_report) continue;
    if ((node->kind == KL_EXPR_CALL && !kg_pure_check_call(node)) || node->kind == KL_STMT_RETURN)
      return false;
    if (node->kind == KL_EXPR_BUILTIN && !kc_builtin_computes(node->builtin) &&
        (!node->builtin || node->builtin->category != KL_BUILTIN_MEMORY)) /* vloadN/vstoreN */
      return false;
    const kl_node *children[] = {node->lhs,  node->rhs,       node->condition,
                                 node->then, node->otherwise, node->increment};
    for (size_t i = 0; i < sizeof children / sizeof *children; i++)
      if (!kg_tree_ok(e, children[i], false, depth + 1)) return false;
    if (!kg_tree_ok(e, node->init, true, depth + 1) ||
        !kg_tree_ok(e, node->body, true, depth + 1) || !kg_tree_ok(e, node->args, true, depth + 1))
      return false;
    if (node->kind == KL_STMT_DECLARATION && node->variable &&
        !kg_tree_ok(e, node->variable->initializer, false, depth + 1))
      return false;
  }
  return true;
}

/* One value for the group that no work-item changes while the region runs:
 * literals, unassigned parameters, group-level variables (the caller has
 * checked that the region assigns none) and the group's sizes and ids. */
static bool kg_invariant(kc_emitter *e, const kl_node *node, int depth) {
  if (!node || depth > 32) return false;
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL:
      return true;
    case KL_EXPR_VARIABLE: {
      kl_variable *var = node->variable;
      if (var->is_program_scope) return true;
      kc_var *info = kc_var_of(e, var);
      if (!info || info->address_taken || var->address_taken) return false;
      return info->cls == KC_VAR_PARAM || info->cls == KC_VAR_GROUP ||
             (info->cls == KC_VAR_PLAIN && info->decl_region == -1 && !var->is_parameter);
    }
    case KL_EXPR_BINARY: {
      int64_t divisor;
      if ((node->op == KL_OP_DIV || node->op == KL_OP_MOD) &&
          !(kc_node_int(node->rhs, &divisor) && divisor > 0 && divisor < INT32_MAX))
        return false; /* no traps */
      return kl_type_is_integer(node->type) && kg_invariant(e, node->lhs, depth + 1) &&
             kg_invariant(e, node->rhs, depth + 1);
    }
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      return kl_type_is_integer(node->type) && kg_invariant(e, node->lhs, depth + 1);
    case KL_EXPR_BUILTIN: {
      int64_t d;
      if (!node->builtin || !kc_node_int(node->args, &d)) return false;
      switch (node->builtin->id) {
        case KL_BUILTIN_GET_LOCAL_SIZE:
        case KL_BUILTIN_GET_ENQUEUED_LOCAL_SIZE:
        case KL_BUILTIN_GET_NUM_GROUPS:
        case KL_BUILTIN_GET_GROUP_ID:
        case KL_BUILTIN_GET_GLOBAL_SIZE:
        case KL_BUILTIN_GET_GLOBAL_OFFSET:
          return true;
        default:
          return false;
      }
    }
    default:
      return false;
  }
}

/* No assignment, increment, call or memory read: evaluating it twice gives
 * the same value (a lane's START). */
static bool kg_pure(const kl_node *node, int depth) {
  if (!node) return true;
  if (depth > 64) return false;
  switch (node->kind) {
    case KL_EXPR_INT_LITERAL:
    case KL_EXPR_FLOAT_LITERAL:
    case KL_EXPR_VARIABLE:
      return true;
    case KL_EXPR_UNARY:
      if (node->op != KL_OP_NEGATE && node->op != KL_OP_PLUS && node->op != KL_OP_BIT_NOT &&
          node->op != KL_OP_LOGICAL_NOT)
        return false;
      return kg_pure(node->lhs, depth + 1);
    case KL_EXPR_BINARY:
      if (node->op == KL_OP_DIV || node->op == KL_OP_MOD) return false;
      return kg_pure(node->lhs, depth + 1) && kg_pure(node->rhs, depth + 1);
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      return kg_pure(node->lhs, depth + 1);
    case KL_EXPR_BUILTIN:
      if (!node->builtin || node->builtin->category != KL_BUILTIN_WORK_ITEM) return false;
      for (const kl_node *arg = node->args; arg; arg = arg->next)
        if (!kg_pure(arg, depth + 1)) return false;
      return true;
    default:
      return false;
  }
}

/* Whether an expression reads get_local_id(0) or get_global_id(0), itself
 * or through unassigned variables initialised from them: a start that may
 * be consecutive across the lanes. Others (`j = 0`) would only pay for the
 * run-time check and the lane-by-lane path. */
static bool kg_reads_id0(kc_emitter *e, const kl_node *node, int depth) {
  if (!node || depth > 32) return false;
  if (node->kind == KL_EXPR_BUILTIN && node->builtin &&
      (node->builtin->id == KL_BUILTIN_GET_LOCAL_ID ||
       node->builtin->id == KL_BUILTIN_GET_GLOBAL_ID)) {
    int64_t d;
    return kc_node_int(node->args, &d) && d == 0;
  }
  if (node->kind == KL_EXPR_VARIABLE) {
    kl_variable *var = node->variable;
    kc_var *info = var->is_program_scope ? NULL : kc_var_of(e, var);
    return info && !info->assigned && !var->is_parameter && var->initializer &&
           kg_reads_id0(e, var->initializer, depth + 1);
  }
  const kl_node *children[] = {node->lhs, node->rhs, node->condition, node->then, node->otherwise};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    if (kg_reads_id0(e, children[i], depth + 1)) return true;
  for (const kl_node *arg = node->args; arg; arg = arg->next)
    if (kg_reads_id0(e, arg, depth + 1)) return true;
  return false;
}

static bool kg_is_var(const kl_node *node, const kl_variable *var) {
  return node && node->kind == KL_EXPR_VARIABLE && node->variable == var;
}

/* How `var` appears in a tree: *assigned when something writes it or takes
 * its address; *narrow when a use is other than an array index or a
 * conversion to a 64-bit integer (where a wider copy gives the same value). */
static void kg_uses(const kl_node *node, const kl_variable *var, bool chain, bool *assigned,
                    bool *narrow, int depth) {
  for (; node; node = chain ? node->next : NULL) {
    if (depth > 200) {
      *assigned = *narrow = true;
      return;
    }
    bool write = (node->kind == KL_EXPR_ASSIGN && kc_root(node->lhs) == var) ||
                 (node->kind == KL_EXPR_UNARY &&
                  (node->op == KL_OP_PRE_INCREMENT || node->op == KL_OP_PRE_DECREMENT ||
                   node->op == KL_OP_POST_INCREMENT || node->op == KL_OP_POST_DECREMENT ||
                   node->op == KL_OP_ADDRESS_OF) &&
                  kc_root(node->lhs) == var);
    if (write) *assigned = true;
    if (kg_is_var(node, var)) *narrow = true;
    const kl_node *lhs = node->lhs, *rhs = node->rhs;
    if (node->kind == KL_EXPR_INDEX && kg_is_var(rhs, var)) rhs = NULL;
    if ((node->kind == KL_EXPR_CONVERT || node->kind == KL_EXPR_CAST) && kg_is_var(lhs, var) &&
        kl_type_is_integer(node->type) && node->type->size >= 8)
      lhs = NULL;
    const kl_node *children[] = {
        lhs, rhs, node->condition, node->then, node->otherwise, node->increment};
    for (size_t i = 0; i < sizeof children / sizeof *children; i++)
      kg_uses(children[i], var, false, assigned, narrow, depth + 1);
    kg_uses(node->init, var, true, assigned, narrow, depth + 1);
    kg_uses(node->body, var, true, assigned, narrow, depth + 1);
    kg_uses(node->args, var, true, assigned, narrow, depth + 1);
    if (node->kind == KL_STMT_DECLARATION && node->variable)
      kg_uses(node->variable->initializer, var, false, assigned, narrow, depth + 1);
  }
}

typedef struct kg_loop {
  const kl_node *loop;
  kl_variable *var;     /* i */
  const kl_node *start; /* its initializer */
  const kl_node *bound; /* N */
  const kl_node *step;  /* STEP, or NULL for ++ */
  bool wide;            /* i used only as an index: a size_t copy in full gangs */
} kg_loop;

/* `for (T i = START; i < N; i += STEP | i++ | ++i) BODY` with T a 32- or
 * 64-bit integer and N, STEP invariant integers. */
static bool kg_match_loop(kc_emitter *e, const kl_node *s, kg_loop *g) {
  if (s->kind != KL_STMT_FOR || !s->init || s->init->next || !s->condition || !s->increment)
    return false;
  const kl_node *init = s->init;
  if (init->kind != KL_STMT_DECLARATION || !init->variable || !init->variable->initializer)
    return false;
  kl_variable *var = init->variable;
  kc_var *info = kc_var_of(e, var);
  if (!info || info->cls != KC_VAR_PLAIN || info->address_taken || var->address_taken ||
      !kl_type_is_integer(var->type) || (var->type->size != 4 && var->type->size != 8))
    return false;
  if (!kg_pure(var->initializer, 0) || !kl_type_is_integer(var->initializer->type) ||
      !kg_reads_id0(e, var->initializer, 0))
    return false;
  const kl_node *c = s->condition;
  if (c->kind != KL_EXPR_BINARY || c->op != KL_OP_LT || !kg_is_var(kc_strip(c->lhs), var) ||
      !kl_type_is_integer(c->rhs->type) || !kg_invariant(e, c->rhs, 0))
    return false;
  const kl_node *inc = s->increment, *step = NULL;
  if (inc->kind == KL_EXPR_ASSIGN && inc->op == KL_OP_ADD && kg_is_var(inc->lhs, var) && inc->rhs &&
      kl_type_is_integer(inc->rhs->type) && inc->operation_type &&
      kl_type_is_integer(inc->operation_type) && kg_invariant(e, inc->rhs, 0))
    step = inc->rhs;
  else if (!(inc->kind == KL_EXPR_UNARY &&
             (inc->op == KL_OP_PRE_INCREMENT || inc->op == KL_OP_POST_INCREMENT) &&
             kg_is_var(inc->lhs, var)))
    return false;
  bool assigned = false, narrow = false;
  kg_uses(s->body, var, false, &assigned, &narrow, 0);
  if (assigned || kc_has_escape(s->body, false, false, 0)) return false;
  *g = (kg_loop){s, var, var->initializer, c->rhs, step, !narrow};
  return true;
}

/* The variables of the pre statements (top level, emitted as C locals)
 * that later phases read: kept in arrays of KG_MAX. false when one
 * cannot be so kept. */
static bool kg_carried(kc_emitter *e, const kl_node *first, const kl_node *loop, kl_variable ***out,
                       int *count) {
  int n = 0;
  for (const kl_node *s = first; s != loop; s = s->next) n += s->kind == KL_STMT_DECLARATION;
  kl_variable **vars = kl_alloc(e->ctx, sizeof *vars * (size_t)(n + 1));
  size_t bytes = 8 * KG_MAX; /* the starts */
  n = 0;
  for (const kl_node *s = first; s != loop; s = s->next) {
    if (s->kind != KL_STMT_DECLARATION || !s->variable) continue;
    kl_variable *var = s->variable;
    kc_var *info = kc_var_of(e, var);
    if (!info || var->space == KL_SPACE_LOCAL || info->cls == KC_VAR_ARRAY) continue;
    if (info->cls == KC_VAR_GROUP || info->address_taken || var->address_taken ||
        var->type->kind == KL_TYPE_ARRAY || var->type->kind == KL_TYPE_STRUCT)
      return false;
    bytes += (size_t)var->type->size * KG_MAX;
    if (var->type->size == 0 || bytes > KG_BYTES) return false;
    vars[n++] = var;
  }
  *out = vars;
  *count = n;
  return true;
}

/* Every variable the region assigns is its own (declared in it) or one per
 * work-item: nothing the group shares changes while the gang runs. */
static bool kg_assigns_private(kc_emitter *e, int region) {
  for (int pass = 0; pass < 2; pass++)
    for (kl_variable *var = pass ? e->function->locals : e->function->params; var;
         var = var->next) {
      kc_var *info = kc_var_of(e, var);
      if (!info || !kc_region_set_has(info->assign_regions, info->assign_region_count, region))
        continue;
      if (info->decl_region != region && info->cls != KC_VAR_ARRAY) return false;
    }
  return true;
}

/* `for (size_t __gl = 0; __gl < __gw; __gl++) {` with lane __gl's
 * work-item ids, then the carried variables restored when `restore`. */
static void kg_lane_open(kc_emitter *e, kl_variable **carried, int count, bool restore) {
  kc_indent(e);
  klg_puts(e->out, "for (size_t __gl = 0; __gl < __gw; __gl++) {\n");
  e->indent++;
  kc_indent(e);
  klg_puts(e->out, "const size_t __lx = __gx + __gl;\n");
  kc_region_item(e);
  for (int i = 0; restore && i < count; i++) {
    const char *name = kc_var_name(e, carried[i]);
    kc_indent(e);
    klg_printf(e->out, "%s = __gc_%s[__gl]; (void)%s;\n", kc_decl(e, carried[i]->type, name), name,
               name);
  }
}

/* Saves the carried variables when `save`, and closes the lane loop. */
static void kg_lane_close(kc_emitter *e, kl_variable **carried, int count, bool save) {
  for (int i = 0; save && i < count; i++) {
    const char *name = kc_var_name(e, carried[i]);
    kc_indent(e);
    klg_printf(e->out, "__gc_%s[__gl] = %s;\n", name, name);
  }
  kc_close(e, "}\n");
}

static void kg_stmts(kc_emitter *e, const kl_node *first, const kl_node *end) {
  for (const kl_node *s = first; s && s != end; s = s->next) kc_stmt(e, s);
}

/* The loop's BODY for lane __gl at base __gib: i declared, then BODY, under
 * `if (i < N)` when `masked`. */
static void kg_lane_body(kc_emitter *e, const kg_loop *g, bool masked) {
  const char *name = kc_var_name(e, g->var);
  kc_indent(e);
  if (g->wide && !masked)
    klg_printf(e->out, "const size_t %s = __gib + __gl;\n", name);
  else
    klg_printf(e->out, "%s = (%s)(__gib + __gl);\n", kc_decl(e, g->var->type, name),
               kc_type(e, kc_unqualified(e, g->var->type)));
  int loop_depth = e->loop_depth, breakable_depth = e->breakable_depth;
  e->loop_depth++;
  e->breakable_depth++;
  if (masked) {
    kc_indent(e);
    klg_puts(e->out, "if (");
    kc_expr(e, g->loop->condition);
    klg_puts(e->out, ") {\n");
    e->indent++;
    kc_stmt(e, g->loop->body);
    kc_close(e, "}\n");
  } else {
    kc_stmt(e, g->loop->body);
  }
  e->loop_depth = loop_depth;
  e->breakable_depth = breakable_depth;
}

/* __gok: the lanes' starts are consecutive, the step positive and no lane's
 * `i` can leave its type's range (so `i < N` and `i += STEP` are exact). */
static void kg_guard(kc_emitter *e, const kg_loop *g) {
  klg_buf *o = e->out;
  const kl_type *t = g->var->type;
  const char *max =
      t->size == 8 ? (kl_type_is_signed(t) ? "9223372036854775807ull" : "18446744073709551615ull")
                   : (kl_type_is_signed(t) ? "2147483647ull" : "4294967295ull");
  kc_indent(e);
  klg_puts(o, "const __int128 __gn = (__int128)(");
  kc_expr(e, g->bound);
  klg_puts(o, "), __gsp = (__int128)(");
  if (g->step)
    kc_expr(e, g->step);
  else
    klg_puts(o, "1");
  klg_printf(o, "), __gmx = (__int128)%s;\n", max);
  kc_indent(e);
  klg_puts(o,
           "_Bool __gok = __gsp >= 1 && __gn >= 0 && (__int128)__gst[0] >= 0 && "
           "(__int128)__gst[0] + __gw - 1 <= __gmx && "
           "__gn + (__gsp > __gw ? __gsp : __gw) <= __gmx;\n");
  kc_indent(e);
  klg_puts(o,
           "for (size_t __gl = 1; __gl < __gw; __gl++) "
           "__gok = __gok && (__int128)__gst[__gl] == (__int128)__gst[0] + (__int128)__gl;\n");
}

/* The full steps (every lane below N): without a mask, the streamed
 * stores of the body (emit_c_stream.c) to stack arrays copied out after
 * each step when `stream`. */
static void kg_full_steps(kc_emitter *e, const kg_loop *g, kl_variable **carried, int count,
                          bool stream) {
  kc_indent(e);
  klg_puts(e->out, "for (; __gib <= __glim; __gib += (size_t)__gsp) {\n");
  e->indent++;
  if (stream) kc_stream_gang_open(e);
  kg_lane_open(e, carried, count, true);
  kg_lane_body(e, g, false);
  kg_lane_close(e, carried, count, true);
  if (stream) kc_stream_gang_close(e);
  kc_close(e, "}\n");
}

/* The loop for a whole gang: full steps (every lane below N) without a
 * mask, then the last steps with one. */
static void kg_gang_loop(kc_emitter *e, const kg_loop *g, kl_variable **carried, int count) {
  klg_buf *o = e->out;
  kc_indent(e);
  klg_puts(o, "size_t __gib = (size_t)__gst[0];\n");
  kc_indent(e);
  klg_puts(o, "if (__gn >= __gw) {\n");
  e->indent++;
  kc_indent(e);
  klg_puts(o, "const size_t __glim = (size_t)(__gn - __gw);\n");
  if (kc_stream_gang_plan(e, g->loop)) { /* opens `if (the launch is large) {` */
    kg_full_steps(e, g, carried, count, true);
    kc_close(e, "} else {\n");
    e->indent++;
  }
  kg_full_steps(e, g, carried, count, false);
  if (e->gang_stream.count) kc_close(e, "}\n");
  kc_close(e, "}\n");
  kc_indent(e);
  klg_puts(o, "for (; (__int128)__gib < __gn; __gib += (size_t)__gsp) {\n");
  e->indent++;
  kg_lane_open(e, carried, count, true);
  kg_lane_body(e, g, true);
  kg_lane_close(e, carried, count, true);
  kc_close(e, "}\n");
}

/* One full gang at __gx: the pre statements and the starts lane by lane,
 * the loop as a gang (or lane by lane when the guard fails), the post
 * statements lane by lane. */
static void kg_gang(kc_emitter *e, const kg_loop *g, const kl_node *first, const kl_node *last,
                    kl_variable **carried, int count) {
  klg_buf *o = e->out;
  for (int i = 0; i < count; i++) {
    const char *name = kc_var_name(e, carried[i]);
    kc_indent(e);
    klg_printf(o, "%s;\n",
               kc_decl(e, kc_unqualified(e, carried[i]->type),
                       kl_format(e->ctx, "__gc_%s[%d]", name, KG_MAX)));
  }
  kc_indent(e);
  klg_printf(o, "%s;\n",
             kc_decl(e, kc_unqualified(e, g->var->type), kl_format(e->ctx, "__gst[%d]", KG_MAX)));
  kg_lane_open(e, carried, count, false);
  kg_stmts(e, first, g->loop);
  kc_indent(e);
  klg_puts(o, "__gst[__gl] = ");
  kc_expr(e, g->start);
  klg_puts(o, ";\n");
  kg_lane_close(e, carried, count, true);
  kg_guard(e, g);
  kc_indent(e);
  klg_puts(o, "if (__gok) {\n");
  e->indent++;
  kg_gang_loop(e, g, carried, count);
  kg_lane_open(e, carried, count, true);
  kg_stmts(e, g->loop->next, last->next);
  kg_lane_close(e, carried, count, false);
  kc_close(e, "} else {\n");
  e->indent++;
  kg_lane_open(e, carried, count, true);
  kg_stmts(e, g->loop, last->next);
  kg_lane_close(e, carried, count, false);
  kc_close(e, "}\n");
}

bool kc_gang_region(kc_emitter *e, const kl_node *first, const kl_node *last) {
  if (e->analyzing || e->failed || e->bound_kind || e->has_return || e->gid_fast) return false;
  kg_loop g;
  const kl_node *loop = NULL;
  for (const kl_node *s = first;; s = s->next) {
    if (!kg_tree_ok(e, s, false, 0) || kc_has_escape(s, false, false, 0)) return false;
    if (!loop && kg_match_loop(e, s, &g)) loop = s;
    if (s == last) break;
  }
  kl_variable **carried;
  int count;
  if (!loop || !kg_assigns_private(e, e->region_count) ||
      !kg_carried(e, first, loop, &carried, &count))
    return false;
  klg_buf *o = e->out;
  kc_region_begin(e, kl_format(e->ctx, ": work-items in gangs of up to %d lanes", KG_MAX), true);
  kc_indent(e);
  klg_printf(o, "const size_t __gw = __ls0 < %d ? 0 : __ls0 < %d ? __ls0 : %d; size_t __gx = 0;\n",
             KG_MIN, KG_MAX, KG_MAX);
  kc_indent(e);
  klg_puts(o, "for (; __gw && __gx + __gw <= __ls0; __gx += __gw) {\n");
  e->indent++;
  kg_gang(e, &g, first, last, carried, count);
  kc_close(e, "}\n");
  /* the lanes that do not fill a gang: one after another */
  kc_indent(e);
  klg_puts(o, "for (size_t __lx = __gx; __lx < __ls0; __lx++) {\n");
  e->indent++;
  kc_region_item(e);
  kg_stmts(e, first, last->next);
  kc_close(e, "}\n");
  kc_close(e, "}}\n");
  e->region = -1;
  return true;
}
