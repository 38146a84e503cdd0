// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's inlining of helper functions that contain barriers.
 *
 * The C target splits a kernel at its barriers into work-item loops
 * (emit_c.c); a barrier inside a C function called from such a loop cannot
 * be split. So before the kernel is emitted, every call of a helper with a
 * barrier (itself or in a callee) that is a statement of its own, or the
 * whole initializer of a declaration, or the whole right-hand side of an
 * assignment, is replaced in a copy of the kernel's tree by the helper's
 * body:
 *
 *     int sum = reduce(scratch, v);    =>   int result;
 *                                           { __local int *scratch = scratch0;
 *                                             int value = v;
 *                                             ... body, `return e` -> result = e ... }
 *                                           int sum = result;
 *
 * Parameters become local variables initialised with the arguments (each
 * evaluated once, in order); the helper's variables are copied with fresh
 * ids, so two calls do not share them. A single trailing `return e` becomes
 * an assignment; any other return sets a per-work-item `done` flag, the
 * statements after it run under `if (!done)` (barriers excepted: with the
 * return in uniform control flow every work-item is done, and a barrier all
 * of them reach is harmless), and loops around it stop (`!done && cond`,
 * their step skipped). A call inside a larger expression, or in the
 * condition of an `if` or `switch`, is first computed into a temporary
 * (kc_hoist_call). The original tree is not changed. Helpers without
 * barriers stay ordinary C functions; a call of one with a barrier where it
 * may run other than once (under && or ||, an arm of ?:, after a comma, in
 * a loop's condition) is left for emit_c.c to report. */
#include <string.h>

#include "emit_c_internal.h"

#define KC_INLINE_MAX_DEPTH 64

#define KC_INLINE_MAX_DEPTH 64  /* nested inlined calls */
#define KC_INLINE_MAX_TREE 1000 /* nesting of a tree walked here */

typedef struct kc_var_map {
  const kl_variable *from;
  kl_variable *to;
  struct kc_var_map *next;
} kc_var_map;

typedef struct kc_node_map {
  const kl_node *from;
  kl_node *to;
  struct kc_node_map *next;
} kc_node_map;

typedef struct kc_inliner {
  kc_emitter *e;
  kl_context *ctx;
  kl_variable *locals, **locals_tail; /* the new kernel's variables */
  int depth;
} kc_inliner;

/* One copy of a function's body: the kernel's, or an inlined call's. */
typedef struct kc_instance {
  kc_var_map *vars;
  kc_node_map *cases;  /* case statements of copied switches */
  bool keep_uniform;   /* the kernel's own tree: check.c's marks hold */
  kl_variable *result; /* NULL for void helpers and unused results */
  kl_variable *done;   /* NULL when the only return is the trailing one */
} kc_instance;

bool kc_barrier_helper(const kl_function *fn) {
  return fn && fn->body && !fn->is_kernel && (fn->features & KL_FEATURE_BARRIER);
}

/* ------------------------------------------------------------ nodes */

static kl_node *kc_new_node(kc_inliner *in, kl_node_kind kind, kl_location at) {
  kl_node *node = kl_alloc(in->ctx, sizeof *node);
  node->kind = kind;
  node->location = at;
  return node;
}

static void kc_add_local(kc_inliner *in, kl_variable *var) {
  var->id = in->e->next_variable_id++;
  var->next = NULL;
  *in->locals_tail = var;
  in->locals_tail = &var->next;
}

static kl_variable *kc_new_variable(kc_inliner *in, const char *name, kl_type *type,
                                    kl_location at) {
  kl_variable *var = kl_alloc(in->ctx, sizeof *var);
  var->name = name;
  var->type = type;
  var->space = KL_SPACE_PRIVATE;
  var->location = at;
  kc_add_local(in, var);
  return var;
}

static kl_node *kc_var_ref(kc_inliner *in, kl_variable *var, kl_location at) {
  kl_node *node = kc_new_node(in, KL_EXPR_VARIABLE, at);
  node->variable = var;
  node->type = var->type;
  node->is_lvalue = true;
  return node;
}

static kl_node *kc_declare(kc_inliner *in, kl_variable *var, kl_node *initializer) {
  kl_node *node = kc_new_node(in, KL_STMT_DECLARATION, var->location);
  node->variable = var;
  var->initializer = initializer;
  return node;
}

static kl_node *kc_expression_stmt(kc_inliner *in, kl_node *expr) {
  kl_node *node = kc_new_node(in, KL_STMT_EXPRESSION, expr->location);
  node->lhs = expr;
  return node;
}

static kl_node *kc_assign_to(kc_inliner *in, kl_variable *var, kl_node *value) {
  kl_node *node = kc_new_node(in, KL_EXPR_ASSIGN, value->location);
  node->op = KL_OP_NONE;
  node->lhs = kc_var_ref(in, var, value->location);
  node->rhs = value;
  node->type = var->type;
  return kc_expression_stmt(in, node);
}

static kl_node *kc_int(kc_inliner *in, uint64_t value, kl_location at) {
  kl_node *node = kc_new_node(in, KL_EXPR_INT_LITERAL, at);
  node->type = kl_type_scalar(in->ctx, KL_TYPE_INT);
  node->int_value = value;
  node->spelling = value ? "1" : "0";
  return node;
}

static kl_node *kc_compound(kc_inliner *in, kl_node *first, kl_location at) {
  kl_node *node = kc_new_node(in, KL_STMT_COMPOUND, at);
  node->body = first;
  return node;
}

/* !done */
static kl_node *kc_not_done(kc_inliner *in, const kc_instance *inst, kl_location at) {
  kl_node *node = kc_new_node(in, KL_EXPR_UNARY, at);
  node->op = KL_OP_LOGICAL_NOT;
  node->lhs = kc_var_ref(in, inst->done, at);
  node->type = kl_type_scalar(in->ctx, KL_TYPE_INT);
  return node;
}

static kl_node *kc_if_not_done(kc_inliner *in, const kc_instance *inst, kl_node *stmt) {
  kl_node *node = kc_new_node(in, KL_STMT_IF, stmt->location);
  node->condition = kc_not_done(in, inst, stmt->location);
  node->then = stmt;
  return node;
}

/* ------------------------------------------------------------ copying */

static kl_variable *kc_mapped(const kc_instance *inst, const kl_variable *var) {
  for (const kc_var_map *m = inst->vars; m; m = m->next)
    if (m->from == var) return m->to;
  return NULL;
}

static void kc_map_variable(kc_inliner *in, kc_instance *inst, const kl_variable *from,
                            kl_variable *to) {
  kc_var_map *m = kl_alloc(in->ctx, sizeof *m);
  m->from = from;
  m->to = to;
  m->next = inst->vars;
  inst->vars = m;
}

static kl_node *kc_copy(kc_inliner *in, kc_instance *inst, const kl_node *node, int depth);

static kl_node *kc_copy_list(kc_inliner *in, kc_instance *inst, const kl_node *first, int depth) {
  kl_node head = {0}, *tail = &head;
  for (const kl_node *item = first; item; item = item->next) {
    tail->next = kc_copy(in, inst, item, depth + 1);
    tail = tail->next;
  }
  return head.next;
}

/* A deep copy of a statement or expression: each variable declared in it
 * is a new one (with a new id) in the new kernel's list, and the uses
 * follow; outside the kernel's own tree check.c's uniformity marks are
 * dropped (they took the helper's parameters as uniform; emit_c.c proves
 * uniformity itself). */
static kl_node *kc_copy(kc_inliner *in, kc_instance *inst, const kl_node *node, int depth) {
  if (!node) return NULL;
  kl_node *copy = kl_alloc(in->ctx, sizeof *copy);
  *copy = *node;
  copy->next = NULL;
  if (depth > KC_INLINE_MAX_TREE) {
    kc_error(in->e, node->location, "this function is nested too deeply for the C target");
    return copy;
  }
  if (!inst->keep_uniform) copy->is_uniform = false;
  copy->init = kc_copy_list(in, inst, node->init, depth + 1); /* first: it declares variables */
  copy->lhs = kc_copy(in, inst, node->lhs, depth + 1);
  copy->rhs = kc_copy(in, inst, node->rhs, depth + 1);
  copy->condition = kc_copy(in, inst, node->condition, depth + 1);
  copy->then = kc_copy(in, inst, node->then, depth + 1);
  copy->otherwise = kc_copy(in, inst, node->otherwise, depth + 1);
  copy->increment = kc_copy(in, inst, node->increment, depth + 1);
  if (node->kind == KL_STMT_DECLARATION && node->variable) {
    const kl_variable *var = node->variable;
    kl_variable *fresh = kl_alloc(in->ctx, sizeof *fresh);
    *fresh = *var;
    if (!inst->keep_uniform) fresh->is_uniform = false;
    fresh->initializer = kc_copy(in, inst, var->initializer, depth + 1);
    kc_add_local(in, fresh);
    kc_map_variable(in, inst, var, fresh);
    copy->variable = fresh;
  } else if (node->kind == KL_EXPR_VARIABLE && node->variable) {
    kl_variable *mapped = kc_mapped(inst, node->variable);
    if (mapped) copy->variable = mapped;
  }
  copy->body = kc_copy_list(in, inst, node->body, depth);
  copy->args = kc_copy_list(in, inst, node->args, depth);
  if (node->kind == KL_STMT_CASE) {
    kc_node_map *m = kl_alloc(in->ctx, sizeof *m);
    m->from = node;
    m->to = copy;
    m->next = inst->cases;
    inst->cases = m;
  }
  if (node->kind == KL_STMT_SWITCH) {
    /* the case list, in source order, through the copies */
    kl_node **link = &copy->cases;
    for (const kl_node *c = node->cases; c; c = c->next_case) {
      kl_node *to = NULL;
      for (const kc_node_map *m = inst->cases; m && !to; m = m->next)
        if (m->from == c) to = m->to;
      if (!to) continue;
      *link = to;
      link = &to->next_case;
    }
    *link = NULL;
  }
  return copy;
}

/* ------------------------------------------------------------ facts */

static bool kc_may_return(const kl_node *node, int depth) {
  if (!node || depth > KC_INLINE_MAX_TREE) return false;
  switch (node->kind) {
    case KL_STMT_RETURN:
      return true;
    case KL_STMT_COMPOUND:
      for (const kl_node *child = node->body; child; child = child->next)
        if (kc_may_return(child, depth + 1)) return true;
      return false;
    case KL_STMT_IF:
      return kc_may_return(node->then, depth + 1) || kc_may_return(node->otherwise, depth + 1);
    case KL_STMT_SWITCH:
    case KL_STMT_CASE:
    case KL_STMT_FOR:
    case KL_STMT_WHILE:
    case KL_STMT_DO:
      return kc_may_return(node->body, depth + 1);
    default:
      return false;
  }
}

/* A tree that holds a barrier, or a call of a helper with one. */
static bool kc_is_barrier_or_call(const kl_node *node) {
  return kc_is_barrier(node) || (node->kind == KL_EXPR_CALL && kc_barrier_helper(node->function));
}

static bool kc_holds_barrier(const kl_node *node, int depth) {
  return kc_find(node, depth, kc_is_barrier_or_call) != NULL;
}

/* ------------------------------------------------------------ returns */

static kl_node *kc_lower_list(kc_inliner *in, const kc_instance *inst, kl_node *first,
                              bool pending);

/* `return e` -> { result = e; done = 1; } */
static kl_node *kc_lower_return(kc_inliner *in, const kc_instance *inst, kl_node *ret) {
  kl_node head = {0}, *tail = &head;
  if (ret->lhs) {
    tail->next =
        inst->result ? kc_assign_to(in, inst->result, ret->lhs) : kc_expression_stmt(in, ret->lhs);
    tail = tail->next;
  }
  if (inst->done) tail->next = kc_assign_to(in, inst->done, kc_int(in, 1, ret->location));
  return kc_compound(in, head.next, ret->location);
}

/* A statement of an inlined body with its returns lowered; `pending`: a
 * return may have run before it. A declaration may come back followed by
 * its guarded initialisation (through next). */
static kl_node *kc_lower(kc_inliner *in, const kc_instance *inst, kl_node *stmt, bool pending) {
  if (!stmt) return NULL;
  bool returns = kc_may_return(stmt, 0);
  if (!returns && !pending) return stmt;
  bool barrier = kc_holds_barrier(stmt, 0);
  if (pending && !barrier && stmt->kind != KL_STMT_CASE && stmt->kind != KL_STMT_DECLARATION)
    return kc_if_not_done(in, inst, kc_lower(in, inst, stmt, false));
  kl_location at = stmt->location;
  switch (stmt->kind) {
    case KL_STMT_RETURN:
      return kc_lower_return(in, inst, stmt);
    case KL_STMT_COMPOUND:
      stmt->body = kc_lower_list(in, inst, stmt->body, pending);
      return stmt;
    case KL_STMT_IF:
      stmt->then = kc_lower(in, inst, stmt->then, pending);
      stmt->otherwise = kc_lower(in, inst, stmt->otherwise, pending);
      return stmt;
    case KL_STMT_CASE:
    case KL_STMT_SWITCH:
      stmt->body = kc_lower(in, inst, stmt->body, pending);
      return stmt;
    case KL_STMT_FOR:
    case KL_STMT_WHILE:
    case KL_STMT_DO:
      if (returns) {
        /* a return leaves the loop: `!done && cond`, and `done ? 0 : (step, 0)` */
        kl_node *cond = kc_not_done(in, inst, at);
        if (stmt->condition) {
          kl_node *both = kc_new_node(in, KL_EXPR_BINARY, at);
          both->op = KL_OP_LOGICAL_AND;
          both->lhs = cond;
          both->rhs = stmt->condition;
          both->type = kl_type_scalar(in->ctx, KL_TYPE_INT);
          cond = both;
        }
        stmt->condition = cond;
        if (stmt->increment) {
          kl_node *step = kc_new_node(in, KL_EXPR_COMMA, at);
          step->lhs = stmt->increment;
          step->rhs = kc_int(in, 0, at);
          step->type = step->rhs->type;
          kl_node *skip = kc_new_node(in, KL_EXPR_CONDITIONAL, at);
          skip->condition = kc_var_ref(in, inst->done, at);
          skip->then = kc_int(in, 0, at);
          skip->otherwise = step;
          skip->type = step->type;
          stmt->increment = skip;
        }
      }
      stmt->body = kc_lower(in, inst, stmt->body, pending);
      return stmt;
    case KL_STMT_DECLARATION: {
      /* the variable stays visible to what follows: declared unguarded,
       * initialised under the guard */
      kl_variable *var = stmt->variable;
      kl_node *init = var ? var->initializer : NULL;
      if (!init || !pending || barrier) return stmt;
      if (init->kind == KL_EXPR_INIT_LIST || init->kind == KL_STMT_COMPOUND ||
          var->type->kind == KL_TYPE_ARRAY) {
        kc_error(in->e, var->location,
                 "the C target cannot inline this helper function, which contains a barrier: "
                 "'%s' has a brace initializer after a return (declare it before the return)",
                 var->name);
        return stmt;
      }
      var->initializer = NULL;
      stmt->next = kc_if_not_done(in, inst, kc_assign_to(in, var, init));
      return stmt;
    }
    default:
      return stmt; /* a statement with a barrier: every work-item runs it */
  }
}

static kl_node *kc_lower_list(kc_inliner *in, const kc_instance *inst, kl_node *first,
                              bool pending) {
  kl_node head = {0}, *tail = &head;
  for (kl_node *stmt = first, *next; stmt; stmt = next) {
    next = stmt->next;
    stmt->next = NULL;
    bool returns = kc_may_return(stmt, 0);
    tail->next = kc_lower(in, inst, stmt, pending);
    while (tail->next) tail = tail->next;
    if (returns) pending = true;
  }
  return head.next;
}

/* ------------------------------------------------------------ calls */

static kl_node *kc_inline_list(kc_inliner *in, kl_node *first);

/* The call of a helper with a barrier that is the whole of `expr` (under
 * implicit conversions), or NULL. */
static kl_node *kc_call_in(kl_node *expr) {
  while (expr && expr->kind == KL_EXPR_CONVERT) expr = expr->lhs;
  return expr && expr->kind == KL_EXPR_CALL && kc_barrier_helper(expr->function) ? expr : NULL;
}

/* `expr` (the call under its conversions) with the call replaced by `value`. */
static kl_node *kc_replace_call(kl_node *expr, kl_node *value) {
  if (expr->kind != KL_EXPR_CONVERT) return value;
  expr->lhs = kc_replace_call(expr->lhs, value);
  return expr;
}

/* The block that replaces `call`, its value going to `result`. */
static kl_node *kc_expand(kc_inliner *in, kl_node *call, kl_variable *result) {
  const kl_function *callee = call->function;
  kc_instance inst = {0};
  inst.result = result;
  /* parameters: locals initialised with the arguments, in order */
  kl_node params = {0}, *tail = &params;
  kl_node *arg = call->args;
  for (const kl_variable *param = callee->params; param; param = param->next) {
    kl_variable *local = kc_new_variable(
        in, param->name, kl_type_qualified(in->ctx, param->type, 0), call->location);
    local->address_taken = param->address_taken;
    kc_map_variable(in, &inst, param, local);
    kl_node *value = arg;
    if (arg) {
      arg = arg->next;
      value->next = NULL;
    }
    tail->next = kc_declare(in, local, value);
    tail = tail->next;
  }
  call->args = NULL;
  kl_node *first_param = kc_inline_list(in, params.next); /* calls in the arguments */
  kl_node *body = kc_copy(in, &inst, callee->body, 0);
  kl_node *stmts = body && body->kind == KL_STMT_COMPOUND ? body->body : body;
  stmts = kc_inline_list(in, stmts); /* calls in the body, before its own returns are lowered */
  /* one trailing return becomes an assignment; other returns need the flag */
  bool early = false;
  for (kl_node *s = stmts; s; s = s->next)
    if (kc_may_return(s, 0) && (s->next || s->kind != KL_STMT_RETURN)) early = true;
  kl_node *done_decl = NULL;
  if (early) {
    inst.done = kc_new_variable(in, "done", kl_type_scalar(in->ctx, KL_TYPE_INT), call->location);
    done_decl = kc_declare(in, inst.done, kc_int(in, 0, call->location));
  }
  stmts = kc_lower_list(in, &inst, stmts, false);
  /* parameters, flag, body */
  kl_node head = {0};
  tail = &head;
  tail->next = first_param;
  while (tail->next) tail = tail->next;
  tail->next = done_decl;
  while (tail->next) tail = tail->next;
  tail->next = stmts;
  return kc_compound(in, head.next, call->location);
}

/* The slot of the first call of a helper with a barrier inside `*slot`
 * that is evaluated whenever the expression is, once, and may run before
 * the rest of it: not under the right of && or ||, an arm of ?:, or after
 * a comma (a sequence point would move). NULL when there is none. */
static kl_node **kc_nested_call(kl_node **slot, int depth) {
  kl_node *n = *slot;
  if (!n || depth > KC_INLINE_MAX_TREE) return NULL;
  if (n->kind == KL_EXPR_CALL && kc_barrier_helper(n->function))
    return n->function->return_type->kind == KL_TYPE_VOID ? NULL : slot;
  if (n->kind == KL_EXPR_CONDITIONAL) return kc_nested_call(&n->condition, depth + 1);
  kl_node **found = kc_nested_call(&n->lhs, depth + 1);
  bool lhs_only =
      n->kind == KL_EXPR_COMMA ||
      (n->kind == KL_EXPR_BINARY && (n->op == KL_OP_LOGICAL_AND || n->op == KL_OP_LOGICAL_OR));
  if (!found && !lhs_only) found = kc_nested_call(&n->rhs, depth + 1);
  for (kl_node **arg = &n->args; *arg && !found; arg = &(*arg)->next)
    found = kc_nested_call(arg, depth + 1);
  return found;
}

/* Where a statement evaluates an expression once, before anything else it
 * does: the expression's slot, or NULL. */
static kl_node **kc_evaluated_once(kl_node *stmt) {
  switch (stmt->kind) {
    case KL_STMT_EXPRESSION:
    case KL_STMT_RETURN:
      return &stmt->lhs;
    case KL_STMT_DECLARATION:
      return stmt->variable && stmt->variable->space != KL_SPACE_LOCAL
                 ? &stmt->variable->initializer
                 : NULL;
    case KL_STMT_IF:
    case KL_STMT_SWITCH:
      return &stmt->condition;
    default:
      return NULL;
  }
}

/* A call of a helper with a barrier inside a larger expression,
 * `a = b * f(v)` or `return x + f(v)`, is first computed into a temporary,
 * `T f_value = f(v); a = b * f_value;`, as a compiler would; then both
 * statements are inlined as usual. NULL when `stmt` has no such call. */
static kl_node *kc_hoist_call(kc_inliner *in, kl_node *stmt) {
  kl_node **expr = kc_evaluated_once(stmt);
  kl_node **slot = expr ? kc_nested_call(expr, 0) : NULL;
  if (!slot) return NULL;
  kl_node *call = *slot;
  kl_variable *value =
      kc_new_variable(in, kl_format(in->ctx, "%s_value", call->function->name),
                      kl_type_qualified(in->ctx, call->function->return_type, 0), call->location);
  kl_node *ref = kc_var_ref(in, value, call->location);
  ref->next = call->next; /* an argument keeps its place in the list */
  call->next = NULL;
  *slot = ref;
  kl_node *hoisted = kc_declare(in, value, call);
  hoisted->next = stmt;
  return kc_inline_list(in, hoisted);
}

/* A statement that is such a call, or declares a variable initialised
 * with one, or assigns one, or (in an inlined body) returns one: the
 * statements that replace it; NULL when it is none of these. */
static kl_node *kc_inline_stmt(kc_inliner *in, kl_node *stmt) {
  kl_node *call = NULL, **whole = NULL;
  switch (stmt->kind) {
    case KL_STMT_EXPRESSION:
      if (!stmt->lhs) break;
      if (stmt->lhs->kind == KL_EXPR_ASSIGN && kc_call_in(stmt->lhs->rhs)) {
        whole = &stmt->lhs->rhs;
        call = kc_call_in(*whole);
      } else {
        call = kc_call_in(stmt->lhs);
      }
      break;
    case KL_STMT_DECLARATION:
      if (stmt->variable && stmt->variable->space != KL_SPACE_LOCAL &&
          kc_call_in(stmt->variable->initializer)) {
        whole = &stmt->variable->initializer;
        call = kc_call_in(*whole);
      }
      break;
    case KL_STMT_RETURN:
      if (kc_call_in(stmt->lhs)) {
        whole = &stmt->lhs;
        call = kc_call_in(*whole);
      }
      break;
    default:
      break;
  }
  if (!call) return kc_hoist_call(in, stmt);
  if (in->depth >= KC_INLINE_MAX_DEPTH) {
    kc_error(in->e, call->location,
             "helper functions with barriers nest too deeply for the C target");
    return NULL;
  }
  in->depth++;
  kl_type *type = call->function->return_type;
  kl_variable *result =
      whole && type->kind != KL_TYPE_VOID
          ? kc_new_variable(in, kl_format(in->ctx, "%s_result", call->function->name),
                            kl_type_qualified(in->ctx, type, 0), call->location)
          : NULL;
  kl_node head = {0}, *tail = &head;
  if (result) {
    tail->next = kc_declare(in, result, NULL);
    tail = tail->next;
  }
  tail->next = kc_expand(in, call, result);
  tail = tail->next;
  if (result) {
    *whole = kc_replace_call(*whole, kc_var_ref(in, result, call->location));
    tail->next = stmt;
  }
  in->depth--;
  return head.next;
}

static kl_node *kc_inline_single(kc_inliner *in, kl_node *stmt) {
  if (!stmt) return NULL;
  kl_node *list = kc_inline_list(in, stmt);
  if (list && !list->next) return list;
  return kc_compound(in, list, stmt->location);
}

/* A statement list with the calls in it inlined (in place: the nodes are
 * this kernel's copies). */
static kl_node *kc_inline_list(kc_inliner *in, kl_node *first) {
  kl_node head = {0}, *tail = &head;
  for (kl_node *stmt = first, *next; stmt; stmt = next) {
    next = stmt->next;
    stmt->next = NULL;
    kl_node *list = kc_holds_barrier(stmt, 0) ? kc_inline_stmt(in, stmt) : NULL;
    if (!list) {
      list = stmt;
      if (kc_holds_barrier(stmt, 0)) switch (stmt->kind) {
          case KL_STMT_COMPOUND:
            stmt->body = kc_inline_list(in, stmt->body);
            break;
          case KL_STMT_IF:
            stmt->then = kc_inline_single(in, stmt->then);
            stmt->otherwise = kc_inline_single(in, stmt->otherwise);
            break;
          case KL_STMT_FOR:
          case KL_STMT_WHILE:
          case KL_STMT_DO:
            stmt->body = kc_inline_single(in, stmt->body);
            break;
          default:
            break; /* a switch, a call inside an expression: emit_c.c reports it */
        }
    }
    tail->next = list;
    while (tail->next) tail = tail->next;
  }
  return head.next;
}

/* ------------------------------------------------------------ loop counters */

/* Renames `from` to `to` in a tree (in place) and marks the uses uniform. */
static void kc_rename(kl_node *n, const kl_variable *from, kl_variable *to, int depth) {
  for (; n && depth <= KC_INLINE_MAX_TREE; n = n->next) {
    if (n->kind == KL_EXPR_VARIABLE && n->variable == from) {
      n->variable = to;
      n->is_uniform = true; /* kc_fresh_counter proved it */
    }
    kl_node *children[] = {n->lhs,       n->rhs,       n->condition, n->then, n->init,
                           n->otherwise, n->increment, n->args,      n->body};
    for (size_t i = 0; i < sizeof children / sizeof *children; i++)
      kc_rename(children[i], from, to, depth + 1);
    if (n->kind == KL_STMT_DECLARATION && n->variable && n->variable->initializer)
      kc_rename(n->variable->initializer, from, to, depth + 1);
  }
}

/* A tree that assigns `var` or takes its address. */
static bool kc_writes(const kl_node *n, const kl_variable *var, int depth) {
  for (; n; n = n->next) {
    if (depth > KC_INLINE_MAX_TREE) return true;
    bool changes =
        n->kind == KL_EXPR_ASSIGN ||
        (n->kind == KL_EXPR_UNARY && (n->op == KL_OP_ADDRESS_OF || n->op >= KL_OP_PRE_INCREMENT));
    if (changes && kc_root(n->lhs) == var) return true;
    const kl_node *children[] = {n->lhs,       n->rhs,       n->condition, n->then, n->init,
                                 n->otherwise, n->increment, n->args,      n->body};
    for (size_t i = 0; i < sizeof children / sizeof *children; i++)
      if (kc_writes(children[i], var, depth + 1)) return true;
    if (n->kind == KL_STMT_DECLARATION && n->variable && n->variable->initializer &&
        kc_writes(n->variable->initializer, var, depth + 1))
      return true;
  }
  return false;
}

/* An expression of `var` and uniform values, with no side effect. */
static bool kc_uniform_given(const kl_node *n, const kl_variable *var, int depth) {
  if (!n || depth > KC_INLINE_MAX_TREE) return false;
  if (n->is_uniform || n->kind == KL_EXPR_INT_LITERAL) return true;
  switch (n->kind) {
    case KL_EXPR_VARIABLE:
      return n->variable == var;
    case KL_EXPR_UNARY:
      if (n->op == KL_OP_DEREFERENCE || n->op == KL_OP_ADDRESS_OF || n->op >= KL_OP_PRE_INCREMENT)
        return false;
      return kc_uniform_given(n->lhs, var, depth + 1);
    case KL_EXPR_BINARY:
      return kc_uniform_given(n->lhs, var, depth + 1) && kc_uniform_given(n->rhs, var, depth + 1);
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
      return kc_uniform_given(n->lhs, var, depth + 1);
    default:
      return false;
  }
}

/* `var++`, `--var`, `var op= e` or `var = e` where e is an expression of
 * var and uniform values (`th /= 2`, `i = 2 * i`). */
static bool kc_uniform_step(const kl_node *step, const kl_variable *var) {
  if (!step || step->next || !step->lhs || step->lhs->kind != KL_EXPR_VARIABLE ||
      step->lhs->variable != var)
    return false;
  if (step->kind == KL_EXPR_UNARY) return step->op >= KL_OP_PRE_INCREMENT;
  return step->kind == KL_EXPR_ASSIGN && kc_uniform_given(step->rhs, var, 0);
}

/* The counter a `for` with a barrier starts by assignment, `for (i = 0; ...)`,
 * when it is a private scalar declared before the loop; else NULL. */
static kl_variable *kc_reused_counter(const kl_node *loop) {
  if (loop->kind != KL_STMT_FOR || !kc_holds_barrier(loop->body, 0)) return NULL;
  const kl_node *init = loop->init;
  if (!init || init->next || init->kind != KL_STMT_EXPRESSION || !init->lhs) return NULL;
  const kl_node *assign = init->lhs;
  if (assign->kind != KL_EXPR_ASSIGN || assign->op != KL_OP_NONE ||
      assign->lhs->kind != KL_EXPR_VARIABLE)
    return NULL;
  kl_variable *var = assign->lhs->variable;
  bool integer = kl_type_is_integer(var->type) && var->space == KL_SPACE_PRIVATE &&
                 !var->is_program_scope && !var->address_taken;
  /* one value in every work-item for the whole loop: a uniform start, a
   * uniform step, and no other write */
  bool uniform = integer && assign->rhs->is_uniform && !kc_writes(assign->rhs, var, 0) &&
                 kc_uniform_step(loop->increment, var) && !kc_writes(loop->body, var, 0) &&
                 !kc_writes(loop->condition, var, 0);
  return uniform ? var : NULL;
}

/* `for (i = start; cond; step) body` with a barrier in the body, where `i`
 * was declared (and maybe stepped by a divergent loop) before, becomes
 * `{ T i_loop = start; for (; cond'; step') body'; i = i_loop; }` with the
 * loop's uses of `i` renamed and marked uniform: the region splitter judges
 * a variable's uniformity over the whole kernel, and this loop's counter
 * has one value in every work-item whatever `i` held before
 * (kc_reused_counter checks the start, the step and that nothing else
 * writes it). */
static kl_node *kc_fresh_counter(kc_inliner *in, kl_node *loop) {
  kl_variable *var = kc_reused_counter(loop);
  if (!var) return loop;
  kl_location at = loop->location;
  kl_variable *fresh = kc_new_variable(in, kl_format(in->ctx, "%s_loop", var->name),
                                       kl_type_qualified(in->ctx, var->type, 0), at);
  kl_node *start = loop->init->lhs->rhs;
  loop->init = NULL;
  kc_rename(loop->condition, var, fresh, 0);
  kc_rename(loop->increment, var, fresh, 0);
  kc_rename(loop->body, var, fresh, 0);
  kl_node *decl = kc_declare(in, fresh, start);
  decl->next = loop;
  loop->next = kc_assign_to(in, var, kc_var_ref(in, fresh, at));
  return kc_compound(in, decl, at);
}

/* Every such loop in a statement list (in place). */
static void kc_fresh_counters(kc_inliner *in, kl_node **link, int depth) {
  for (; *link && depth <= KC_INLINE_MAX_TREE; link = &(*link)->next) {
    kl_node *stmt = *link, *next = stmt->next;
    if (!kc_holds_barrier(stmt, 0)) continue;
    if (stmt->kind == KL_STMT_COMPOUND) kc_fresh_counters(in, &stmt->body, depth + 1);
    if (stmt->kind == KL_STMT_IF || stmt->kind == KL_STMT_FOR || stmt->kind == KL_STMT_WHILE ||
        stmt->kind == KL_STMT_DO) {
      kl_node **arms[] = {&stmt->then, &stmt->otherwise, &stmt->body}; /* one statement each */
      for (size_t i = 0; i < 3; i++) kc_fresh_counters(in, arms[i], depth + 1);
    }
    kl_node *replaced = kc_fresh_counter(in, stmt);
    if (replaced != stmt) {
      replaced->next = next;
      *link = replaced;
    }
  }
}

static bool kc_has_reused_counter(const kl_node *n, int depth) {
  for (; n && depth <= KC_INLINE_MAX_TREE; n = n->next) {
    if (kc_reused_counter(n)) return true;
    const kl_node *kids[] = {n->then, n->otherwise, n->body};
    for (size_t i = 0; i < 3; i++)
      if (kc_has_reused_counter(kids[i], depth + 1)) return true;
  }
  return false;
}

const kl_function *kc_inline_barrier_helpers(kc_emitter *e, const kl_function *kernel) {
  if (!kernel->body || !(kernel->features & KL_FEATURE_BARRIER)) return kernel;
  bool calls = false;
  for (int i = 0; i < kernel->callee_count; i++)
    if (kc_barrier_helper(kernel->callees[i])) calls = true;
  if (!calls && !kc_has_reused_counter(kernel->body, 0)) return kernel;
  kc_inliner in = {.e = e, .ctx = e->ctx};
  in.locals_tail = &in.locals;
  /* a copy of the kernel's tree, with its own variables, to change in place */
  kc_instance self = {.keep_uniform = true};
  kl_node *body = kc_copy(&in, &self, kernel->body, 0);
  for (const kl_variable *var = kernel->locals; var; var = var->next)
    if (!kc_mapped(&self, var)) return kernel; /* not declared in the tree: leave it be */
  if (body->kind != KL_STMT_COMPOUND) body = kc_compound(&in, body, body->location);
  body->body = kc_inline_list(&in, body->body);
  kc_fresh_counters(&in, &body->body, 0);
  kl_mark_barriers(body);
  kl_function *fn = kl_alloc(e->ctx, sizeof *fn);
  *fn = *kernel;
  fn->body = body;
  fn->locals = in.locals;
  return fn;
}
