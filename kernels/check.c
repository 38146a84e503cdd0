// SPDX-License-Identifier: Apache-2.0
/* Checks and facts after parsing: the call graph (recursion is rejected),
 * features, barriers, work-group uniformity, values live across barriers,
 * static local memory. */
#include <string.h>

#include "builtins.h"
#include "kl_front.h"

typedef struct call_site {
  kl_function *callee;
  kl_location at;
  struct call_site *next;
} call_site;

typedef struct fn_info {
  kl_function *f;
  call_site *calls;
  int state; /* 0 new, 1 on the stack, 2 done */
  bool own_barrier;
} fn_info;

typedef struct checker {
  kl_context *ctx;
  kl_program *program;
  fn_info *infos;
  int count;
  /* per variable (by id) */
  bool *uniform;
  int variable_count;
  /* per walk */
  kl_function *function;
  unsigned features;
  unsigned widths;
  bool changed;
  bool diverged;
  bool final_pass;
  const kl_node **divergent_loops;
  int divergent_count, divergent_capacity;
} checker;

static bool loop_divergent(checker *c, const kl_node *n) {
  for (int i = 0; i < c->divergent_count; i++)
    if (c->divergent_loops[i] == n) return true;
  return false;
}

static void mark_loop_divergent(checker *c, const kl_node *n) {
  if (loop_divergent(c, n)) return;
  if (c->divergent_count == c->divergent_capacity) {
    int capacity = c->divergent_capacity ? c->divergent_capacity * 2 : 16;
    const kl_node **list = kl_alloc(c->ctx, sizeof(kl_node *) * (size_t)capacity);
    if (c->divergent_count) memcpy(list, c->divergent_loops, sizeof(kl_node *) * (size_t)c->divergent_count);
    c->divergent_loops = list;
    c->divergent_capacity = capacity;
  }
  c->divergent_loops[c->divergent_count++] = n;
  c->changed = true;
}

static fn_info *info_of(checker *c, const kl_function *f) {
  for (int i = 0; i < c->count; i++)
    if (c->infos[i].f == f) return &c->infos[i];
  return NULL;
}

/* ------------------------------------------------------------ walking */

typedef void (*visit_fn)(checker *c, kl_node *n, void *data);

static void walk(checker *c, kl_node *n, visit_fn visit, void *data, int depth);

static void walk_list(checker *c, kl_node *n, visit_fn visit, void *data, int depth) {
  for (int guard = 0; n && guard < 1000000; n = n->next, guard++) walk(c, n, visit, data, depth);
}

static void walk(checker *c, kl_node *n, visit_fn visit, void *data, int depth) {
  if (!n || depth > 4 * KL_MAX_DEPTH) return;
  visit(c, n, data);
  walk(c, n->lhs, visit, data, depth + 1);
  walk(c, n->rhs, visit, data, depth + 1);
  walk(c, n->condition, visit, data, depth + 1);
  walk_list(c, n->then, visit, data, depth + 1);
  walk_list(c, n->otherwise, visit, data, depth + 1);
  walk_list(c, n->init, visit, data, depth + 1);
  walk(c, n->increment, visit, data, depth + 1);
  walk_list(c, n->body, visit, data, depth + 1);
  walk_list(c, n->args, visit, data, depth + 1);
  if (n->kind == KL_STMT_DECLARATION && n->variable) walk(c, n->variable->initializer, visit, data, depth + 1);
}

/* ---------------------------------------------------------- features */

static void type_features(checker *c, const kl_type *t) {
  for (int guard = 0; t && guard < 64; guard++) {
    switch (t->kind) {
      case KL_TYPE_DOUBLE: c->features |= KL_FEATURE_FP64; return;
      case KL_TYPE_HALF: c->features |= KL_FEATURE_FP16; return;
      case KL_TYPE_LONG:
      case KL_TYPE_ULONG: c->features |= KL_FEATURE_INT64; return;
      case KL_TYPE_VECTOR:
        if (t->length > 0 && t->length <= 16) c->widths |= 1u << t->length;
        t = t->element;
        break;
      case KL_TYPE_POINTER:
      case KL_TYPE_ARRAY: t = t->element; break;
      case KL_TYPE_STRUCT:
        /* not through pointer members: a struct may point to itself */
        for (kl_member *m = t->members; m; m = m->next)
          if (m->type != t && m->type->kind != KL_TYPE_POINTER) type_features(c, m->type);
        return;
      default: return;
    }
  }
}

static void collect_visit(checker *c, kl_node *n, void *data) {
  fn_info *info = data;
  if (n->type) type_features(c, n->type);
  if (n->kind == KL_STMT_DECLARATION && n->variable) type_features(c, n->variable->type);
  if (n->kind == KL_EXPR_CALL && n->function) {
    call_site *s = kl_alloc(c->ctx, sizeof *s);
    s->callee = n->function;
    s->at = n->location;
    s->next = info->calls;
    info->calls = s;
    if (!n->function->body && !n->function->is_kernel)
      kl_error(c->ctx, n->location, "function '%s' is declared but not defined", n->function->name);
  }
  if (n->kind == KL_EXPR_BUILTIN && n->builtin) {
    const kl_builtin *b = n->builtin;
    if (b->id == KL_BUILTIN_BARRIER) {
      info->own_barrier = true;
      c->features |= KL_FEATURE_BARRIER;
    }
    if (b->category == KL_BUILTIN_ATOMIC && n->args && n->args->type && n->args->type->kind == KL_TYPE_POINTER)
      c->features |= n->args->type->pointee_space == KL_SPACE_LOCAL ? KL_FEATURE_LOCAL_ATOMICS
                                                                    : KL_FEATURE_GLOBAL_ATOMICS;
  }
}

/* --------------------------------------------------------- recursion */

static bool dfs(checker *c, fn_info *info, int depth) {
  if (depth > 10000) return false;
  info->state = 1;
  for (call_site *s = info->calls; s; s = s->next) {
    fn_info *callee = info_of(c, s->callee);
    if (!callee) continue;
    if (callee->state == 1) {
      if (callee == info)
        kl_error(c->ctx, s->at, "recursion is not supported: '%s' calls itself", info->f->name);
      else
        kl_error(c->ctx, s->at, "recursion is not supported: '%s' calls '%s', which is already being called",
                 info->f->name, s->callee->name);
      info->state = 2;
      return false;
    }
    if (callee->state == 0 && !dfs(c, callee, depth + 1)) {
      info->state = 2;
      return false;
    }
  }
  info->state = 2;
  /* post-order: callees are complete */
  kl_function *f = info->f;
  int n = 0;
  for (call_site *s = info->calls; s; s = s->next) {
    bool seen = false;
    for (call_site *t = info->calls; t != s; t = t->next)
      if (t->callee == s->callee) seen = true;
    if (!seen) n++;
  }
  f->callees = kl_alloc(c->ctx, sizeof(kl_function *) * (size_t)(n ? n : 1));
  f->callee_count = 0;
  for (call_site *s = info->calls; s; s = s->next) {
    kl_function *g = s->callee;
    bool seen = false;
    for (int j = 0; j < f->callee_count; j++)
      if (f->callees[j] == g) seen = true;
    if (!seen && f->callee_count < n) f->callees[f->callee_count++] = g;
    f->features |= g->features;
    f->vector_widths |= g->vector_widths;
    f->local_memory_bytes += 0; /* helpers cannot declare __local variables */
  }
  for (call_site *s = info->calls; s; s = s->next) {
    fn_info *g = info_of(c, s->callee);
    if (g && (g->own_barrier || (g->f->features & KL_FEATURE_BARRIER))) f->features |= KL_FEATURE_BARRIER;
  }
  return true;
}

/* --------------------------------------------------- contains_barrier */

static bool mark_barriers(kl_node *n, int depth);

static bool mark_list(kl_node *n, int depth) {
  bool any = false;
  for (int guard = 0; n && guard < 1000000; n = n->next, guard++)
    if (mark_barriers(n, depth)) any = true;
  return any;
}

void kl_mark_barriers(kl_node *tree) {
  mark_barriers(tree, 0);
}

static bool mark_barriers(kl_node *n, int depth) {
  if (!n || depth > 4 * KL_MAX_DEPTH) return false;
  bool any = false;
  if (n->kind == KL_EXPR_BUILTIN && n->builtin && n->builtin->id == KL_BUILTIN_BARRIER) any = true;
  if (n->kind == KL_EXPR_CALL && n->function && (n->function->features & KL_FEATURE_BARRIER)) any = true;
  if (mark_barriers(n->lhs, depth + 1)) any = true;
  if (mark_barriers(n->rhs, depth + 1)) any = true;
  if (mark_barriers(n->condition, depth + 1)) any = true;
  if (mark_list(n->then, depth + 1)) any = true;
  if (mark_list(n->otherwise, depth + 1)) any = true;
  if (mark_list(n->init, depth + 1)) any = true;
  if (mark_barriers(n->increment, depth + 1)) any = true;
  if (mark_list(n->body, depth + 1)) any = true;
  if (mark_list(n->args, depth + 1)) any = true;
  if (n->kind == KL_STMT_DECLARATION && n->variable && mark_barriers(n->variable->initializer, depth + 1))
    any = true;
  n->contains_barrier = any;
  return any;
}

/* ---------------------------------------------------------- uniformity */

static bool var_uniform(checker *c, const kl_variable *v) {
  if (v->is_program_scope) return true;
  if (v->id < 0 || v->id >= c->variable_count) return false;
  return c->uniform[v->id];
}

static kl_variable *assigned_variable(kl_node *lhs) {
  for (int guard = 0; lhs && guard < 10000; guard++) {
    switch (lhs->kind) {
      case KL_EXPR_VARIABLE: return lhs->variable;
      case KL_EXPR_SWIZZLE: lhs = lhs->lhs; break;
      case KL_EXPR_MEMBER:
        if (lhs->is_arrow) return NULL;
        lhs = lhs->lhs;
        break;
      case KL_EXPR_INDEX:
        if (lhs->lhs->type && lhs->lhs->type->kind == KL_TYPE_ARRAY) {
          lhs = lhs->lhs;
          break;
        }
        return NULL;
      default: return NULL;
    }
  }
  return NULL;
}

/* Indexing `base` reads memory the whole group shares: __constant,
 * __global or __local (a pointer into it, or a __local or program-scope
 * array). A load of it at a uniform address is uniform: in a program
 * without data races (OpenCL leaves races undefined) no work-item writes
 * what another reads between two barriers, so they all read one value. */
static bool shared_load(const kl_node *base) {
  const kl_type *t = base->type;
  if (t->kind == KL_TYPE_POINTER) return t->pointee_space != KL_SPACE_PRIVATE;
  while (base->kind == KL_EXPR_INDEX || (base->kind == KL_EXPR_MEMBER && !base->is_arrow))
    base = base->lhs;
  if (base->kind == KL_EXPR_MEMBER) return base->lhs->type->pointee_space != KL_SPACE_PRIVATE;
  return base->kind == KL_EXPR_VARIABLE &&
         (base->variable->is_program_scope || base->variable->space == KL_SPACE_LOCAL);
}

static void make_varying(checker *c, kl_variable *v) {
  if (!v || v->id < 0 || v->id >= c->variable_count) return;
  if (c->uniform[v->id]) {
    c->uniform[v->id] = false;
    c->changed = true;
  }
}

static bool expr(checker *c, kl_node *n, bool control, int depth);

static bool expr_list(checker *c, kl_node *n, bool control, int depth) {
  bool all = true;
  for (int guard = 0; n && guard < 1000000; n = n->next, guard++)
    if (!expr(c, n, control, depth)) all = false;
  return all;
}

/* Whether an expression is work-group uniform; records assignments made
 * under `control` (whether the surrounding control flow is uniform). */
static bool expr(checker *c, kl_node *n, bool control, int depth) {
  if (!n) return true;
  if (depth > 4 * KL_MAX_DEPTH) return false;
  bool u = false;
  switch (n->kind) {
    case KL_EXPR_INT_LITERAL:
    case KL_EXPR_FLOAT_LITERAL: u = true; break;
    case KL_EXPR_VARIABLE:
      /* a __local variable's value is a load of shared memory (shared_load) */
      u = n->variable->space == KL_SPACE_PRIVATE && n->variable->type->kind != KL_TYPE_ARRAY
              ? var_uniform(c, n->variable)
              : n->variable->is_program_scope || n->variable->space == KL_SPACE_LOCAL;
      break;
    case KL_EXPR_VECTOR_LITERAL:
    case KL_EXPR_INIT_LIST: u = expr_list(c, n->args, control, depth + 1); break;
    case KL_EXPR_UNARY: {
      bool x = expr(c, n->lhs, control, depth + 1);
      switch (n->op) {
        case KL_OP_DEREFERENCE:
          u = x && n->lhs->type && n->lhs->type->kind == KL_TYPE_POINTER &&
              n->lhs->type->pointee_space != KL_SPACE_PRIVATE;
          break;
        case KL_OP_ADDRESS_OF: {
          /* the address of __local or __constant storage is the same for the whole group */
          kl_variable *v = n->lhs->kind == KL_EXPR_VARIABLE ? n->lhs->variable : NULL;
          u = v && (v->space == KL_SPACE_LOCAL || v->is_program_scope);
          break;
        }
        case KL_OP_PRE_INCREMENT:
        case KL_OP_PRE_DECREMENT:
        case KL_OP_POST_INCREMENT:
        case KL_OP_POST_DECREMENT: {
          kl_variable *v = assigned_variable(n->lhs);
          if (v && !(control && x)) make_varying(c, v);
          u = x && control;
          break;
        }
        default: u = x; break;
      }
      break;
    }
    case KL_EXPR_BINARY: {
      bool a = expr(c, n->lhs, control, depth + 1);
      bool short_circuit = n->op == KL_OP_LOGICAL_AND || n->op == KL_OP_LOGICAL_OR;
      bool b = expr(c, n->rhs, short_circuit ? control && a : control, depth + 1);
      u = a && b;
      break;
    }
    case KL_EXPR_ASSIGN: {
      bool r = expr(c, n->rhs, control, depth + 1);
      bool l = expr(c, n->lhs, control, depth + 1);
      kl_variable *v = assigned_variable(n->lhs);
      bool value = r && (n->op == KL_OP_NONE || l);
      if (n->lhs->kind == KL_EXPR_INDEX) value = false; /* arrays are not tracked */
      if (v && !(control && value)) make_varying(c, v);
      u = value && control && v && var_uniform(c, v);
      break;
    }
    case KL_EXPR_CONDITIONAL: {
      bool k = expr(c, n->condition, control, depth + 1);
      bool a = expr(c, n->then, control && k, depth + 1);
      bool b = expr(c, n->otherwise, control && k, depth + 1);
      u = k && a && b;
      break;
    }
    case KL_EXPR_COMMA:
      expr(c, n->lhs, control, depth + 1);
      u = expr(c, n->rhs, control, depth + 1);
      break;
    case KL_EXPR_CALL:
      expr_list(c, n->args, control, depth + 1);
      if (n->function && (n->function->features & KL_FEATURE_BARRIER)) {
        if (c->final_pass && !control)
          kl_warning(c->ctx, n->location,
                     "'%s' contains a barrier and is called in control flow that is not provably uniform "
                     "across the work-group", n->function->name);
      }
      u = false;
      break;
    case KL_EXPR_BUILTIN: {
      bool args = expr_list(c, n->args, control, depth + 1);
      const kl_builtin *b = n->builtin;
      switch (b->id) {
        case KL_BUILTIN_GET_GROUP_ID:
        case KL_BUILTIN_GET_LOCAL_SIZE:
        case KL_BUILTIN_GET_ENQUEUED_LOCAL_SIZE:
        case KL_BUILTIN_GET_NUM_GROUPS:
        case KL_BUILTIN_GET_GLOBAL_SIZE:
        case KL_BUILTIN_GET_WORK_DIM:
        case KL_BUILTIN_GET_GLOBAL_OFFSET: u = args; break;
        case KL_BUILTIN_GET_GLOBAL_ID:
        case KL_BUILTIN_GET_LOCAL_ID: u = false; break;
        case KL_BUILTIN_BARRIER:
          if (c->final_pass) {
            if (!control)
              kl_warning(c->ctx, n->location,
                         "barrier() in control flow that is not provably uniform across the work-group");
          }
          u = true;
          break;
        case KL_BUILTIN_VLOAD:
          u = args && n->args && n->args->next && n->args->next->type &&
              n->args->next->type->pointee_space == KL_SPACE_CONSTANT;
          break;
        default:
          u = b->category != KL_BUILTIN_ATOMIC && b->category != KL_BUILTIN_SYNC && b->rule != KL_RULE_VSTORE &&
              args;
          break;
      }
      break;
    }
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
    case KL_EXPR_SWIZZLE: u = expr(c, n->lhs, control, depth + 1); break;
    case KL_EXPR_MEMBER:
      u = expr(c, n->lhs, control, depth + 1) &&
          (!n->is_arrow || n->lhs->type->pointee_space != KL_SPACE_PRIVATE);
      break;
    case KL_EXPR_INDEX: {
      bool a = expr(c, n->lhs, control, depth + 1);
      bool i = expr(c, n->rhs, control, depth + 1);
      u = a && i && shared_load(n->lhs);
      break;
    }
    default: u = false; break;
  }
  if (c->final_pass) n->is_uniform = u;
  return u;
}

static bool stmt(checker *c, kl_node *n, bool control, int depth);

typedef struct loop_frame {
  bool control; /* the loop's own control-flow uniformity */
} loop_frame;

static bool stmt_list(checker *c, kl_node *n, bool control, int depth) {
  bool divergent_exit = false;
  for (int guard = 0; n && guard < 1000000; n = n->next, guard++)
    if (stmt(c, n, control && !c->diverged, depth)) divergent_exit = true;
  return divergent_exit;
}

/* Returns whether the statement holds a break/continue/return taken under
 * control flow that is not uniform (which makes an enclosing loop's exit,
 * or the rest of the function, diverge). */
static bool stmt(checker *c, kl_node *n, bool control, int depth) {
  if (!n || depth > 4 * KL_MAX_DEPTH) return false;
  bool divergent = false;
  switch (n->kind) {
    case KL_STMT_COMPOUND: divergent = stmt_list(c, n->body, control, depth + 1); break;
    case KL_STMT_EXPRESSION: expr(c, n->lhs, control, depth + 1); break;
    case KL_STMT_DECLARATION: {
      kl_variable *v = n->variable;
      if (v->initializer) {
        bool u = expr(c, v->initializer, control, depth + 1);
        if (v->initializer->kind == KL_EXPR_INIT_LIST || !(u && control)) make_varying(c, v);
      } else if (!control) {
        make_varying(c, v);
      }
      break;
    }
    case KL_STMT_IF: {
      bool k = expr(c, n->condition, control, depth + 1);
      bool inner = control && k;
      bool a = stmt_list(c, n->then, inner, depth + 1);
      bool b = stmt_list(c, n->otherwise, inner, depth + 1);
      if (c->final_pass) n->is_uniform = inner;
      divergent = a || b;
      break;
    }
    case KL_STMT_FOR:
    case KL_STMT_WHILE:
    case KL_STMT_DO: {
      if (n->kind == KL_STMT_FOR) stmt_list(c, n->init, control, depth + 1);
      /* Twice: the second pass sees what the body did to the condition's
       * variables (the fixpoint outside converges anyway). */
      bool saved = c->diverged;
      bool k = n->condition ? expr(c, n->condition, control, depth + 1) : true;
      bool inner = control && k && !loop_divergent(c, n);
      bool exits = stmt_list(c, n->body, inner, depth + 1);
      expr(c, n->increment, inner, depth + 1);
      if (n->kind == KL_STMT_DO && n->condition) k = expr(c, n->condition, inner, depth + 1);
      /* some work-items leave early: nothing in the loop is uniform */
      if (exits || c->diverged != saved) mark_loop_divergent(c, n);
      if (c->final_pass) n->is_uniform = control && k && !loop_divergent(c, n);
      divergent = false; /* break/continue belong to this loop; returns set c->diverged */
      break;
    }
    case KL_STMT_SWITCH: {
      bool k = expr(c, n->condition, control, depth + 1);
      bool exits = stmt_list(c, n->body, control && k, depth + 1);
      if (c->final_pass) n->is_uniform = control && k;
      (void)exits;
      break;
    }
    case KL_STMT_CASE: divergent = stmt_list(c, n->body, control, depth + 1); break;
    case KL_STMT_BREAK:
    case KL_STMT_CONTINUE: divergent = !control; break;
    case KL_STMT_RETURN:
      expr(c, n->lhs, control, depth + 1);
      if (!control) c->diverged = true;
      divergent = !control;
      break;
    default: break;
  }
  return divergent;
}

static void analyse_function(checker *c, kl_function *f) {
  c->function = f;
  for (int i = 0; i < c->variable_count; i++) c->uniform[i] = false;
  for (kl_variable *v = f->params; v; v = v->next)
    if (v->id >= 0 && v->id < c->variable_count) c->uniform[v->id] = f->is_kernel;
  for (kl_variable *v = f->locals; v; v = v->next)
    if (v->id >= 0 && v->id < c->variable_count)
      c->uniform[v->id] = v->space == KL_SPACE_PRIVATE && !v->address_taken &&
                          v->type->kind != KL_TYPE_ARRAY;
  c->final_pass = false;
  for (int round = 0; round < 64; round++) {
    c->changed = false;
    c->diverged = false;
    stmt(c, f->body, true, 0);
    if (!c->changed) break;
  }
  /* the final pass records the facts */
  c->final_pass = true;
  c->diverged = false;
  stmt(c, f->body, true, 0);
  c->final_pass = false;
  for (kl_variable *v = f->params; v; v = v->next) v->is_uniform = var_uniform(c, v);
  for (kl_variable *v = f->locals; v; v = v->next) v->is_uniform = var_uniform(c, v);
}

void kl_check_program(kl_context *ctx, kl_program *program) {
  checker c = {.ctx = ctx, .program = program};
  for (kl_function *f = program->functions; f; f = f->next) c.count++;
  c.infos = kl_alloc(ctx, sizeof(fn_info) * (size_t)(c.count ? c.count : 1));
  int i = 0;
  for (kl_function *f = program->functions; f; f = f->next) c.infos[i++].f = f;

  /* own facts */
  for (i = 0; i < c.count; i++) {
    kl_function *f = c.infos[i].f;
    if (!f->body) continue;
    c.features = 0;
    c.widths = 0;
    type_features(&c, f->return_type);
    for (kl_variable *v = f->params; v; v = v->next) {
      type_features(&c, v->type);
      if (v->type->kind == KL_TYPE_POINTER && v->type->pointee_space == KL_SPACE_LOCAL)
        c.features |= KL_FEATURE_LOCAL_MEMORY;
    }
    uint64_t local_bytes = 0;
    for (kl_variable *v = f->locals; v; v = v->next) {
      type_features(&c, v->type);
      if (v->space == KL_SPACE_LOCAL) {
        c.features |= KL_FEATURE_LOCAL_MEMORY;
        local_bytes += (uint64_t)v->type->size;
      }
    }
    walk(&c, f->body, collect_visit, &c.infos[i], 0);
    if (f->printf_buffer) c.features |= KL_FEATURE_PRINTF;
    f->features = c.features;
    f->vector_widths = c.widths;
    f->local_memory_bytes = local_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)local_bytes;
  }
  for (kl_variable *v = program->constants; v; v = v->next) {
    c.features = 0;
    c.widths = 0;
    type_features(&c, v->type);
    walk(&c, v->initializer, collect_visit, &c.infos[0], 0);
    program->features |= c.features;
  }

  /* calls in source order (they were prepended) */
  for (i = 0; i < c.count; i++) {
    call_site *reversed = NULL;
    for (call_site *s = c.infos[i].calls; s;) {
      call_site *next = s->next;
      s->next = reversed;
      reversed = s;
      s = next;
    }
    c.infos[i].calls = reversed;
  }
  /* the call graph, callees first: from the kernels, then the rest */
  for (int pass = 0; pass < 2; pass++)
    for (i = 0; i < c.count; i++)
      if (c.infos[i].state == 0 && c.infos[i].f->is_kernel == (pass == 0)) dfs(&c, &c.infos[i], 0);
  if (kl_error_count(ctx)) return;

  for (i = 0; i < c.count; i++)
    if (c.infos[i].f->body) mark_barriers(c.infos[i].f->body, 0);

  c.variable_count = ctx->next_variable_id;
  size_t n = (size_t)(c.variable_count ? c.variable_count : 1);
  c.uniform = kl_alloc(ctx, sizeof(bool) * n);
  for (i = 0; i < c.count; i++) {
    kl_function *f = c.infos[i].f;
    if (!f->body) continue;
    analyse_function(&c, f);
    program->features |= f->features;
    if (f->is_kernel && f->local_memory_bytes > 32768)
      kl_warning(ctx, f->location, "kernel '%s' uses %u bytes of __local memory: many devices have 32 KiB",
                 f->name, f->local_memory_bytes);
  }
}
