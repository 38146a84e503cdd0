// SPDX-License-Identifier: Apache-2.0
/* Bounds checking's proof at launch (kl_check_proof in kl.h): for each
 * checked access of a kernel, a postfix program that computes the largest
 * byte the access can reach from the launch's sizes and the kernel's scalar
 * arguments. The host runs it at each launch (api/check_proof.c); where
 * every access fits the buffers it was given, the launch runs the program
 * built without checks, so that a kernel launched correctly pays nothing.
 *
 *   size_t i = get_global_id(0);  out[i] = a[i] + s * b[i];
 *   each access: (get_global_size(0) - 1) * 4 + 4 <= the buffer's bytes
 *
 *   for (uint k = 0; k < n; k++) acc += a[row * n + k];   (row: an id)
 *   ((largest row) * n + (n - 1)) * 4 + 4 <= the bytes of a
 *
 *   if (i < n) out[i] = ...;      (or `if (i >= n) return;` before it)
 *   min(largest i, n - 1) * 4 + 4 <= the bytes of out
 *
 * Every value in the program is a largest value and never negative: its
 * leaves are non-negative constants, work-item ids and sizes, scalar
 * arguments (the host refuses a negative one), loop counters that start at
 * such a value and only grow, and variables given such a value once; its
 * operations grow with their operands (+, *, << and >> and / and % by a
 * constant, & with a constant, min). After each operation the value must
 * fit its type's value bits, so that nothing the kernel computes wraps. */
#include "bounds_internal.h"
#include "builtins.h"

enum { PROOF_DEPTH = 24 };

/* `var + offset < bound` (`<=` where inclusive) holds where the rewrite
 * is. */
typedef struct kb_guard {
  const kl_variable *var;
  const kl_node *bound;
  int64_t offset;
  int sum_bits; /* the value bits of var + offset's type */
  bool inclusive;
} kb_guard;

void kb_proof_begin(bounds *b) {
  kl_check_proof *proof = kl_alloc(b->ctx, sizeof *proof);
  proof->kernel = b->function->name;
  kl_check_proof **tail = &b->program->check_proofs;
  while (*tail) tail = &(*tail)->next;
  *tail = proof;
  b->proof = proof;
  b->guard_count = 0;
}

void kb_proof_never(bounds *b, kl_location at, const char *why) {
  if (!b->proof || b->proof->never) return;
  b->proof->never = true;
  b->proof->why = why;
  b->proof->where = at;
}

static void push_op(bounds *b, kl_proof_op_kind kind, int index, unsigned long long value) {
  kl_check_proof *p = b->proof;
  p->ops = kb_grow(b, p->ops, p->op_count, &p->op_capacity, sizeof *p->ops);
  p->ops[p->op_count++] = (kl_proof_op){kind, index, value, 0};
  if (kind <= KL_PROOF_ARG)
    b->proof_depth++;
  else if (kind <= KL_PROOF_MIN || kind >= KL_PROOF_CHECK_WIDTH)
    b->proof_depth--;
}

/* A type's value bits: those of its largest value (0: not an integer). */
static int value_bits(const kl_type *t) {
  if (!kl_type_is_integer(t)) return 0;
  if (t->kind == KL_TYPE_BOOL) return 1;
  return t->size * 8 - (kl_type_is_signed(t) ? 1 : 0);
}

static void width(bounds *b, const kl_type *t) {
  int bits = value_bits(t);
  if (bits > 0 && bits < 64) push_op(b, KL_PROOF_WIDTH, 0, (unsigned long long)bits);
}

/* Drops what an attempt pushed (ops from `mark`, the depth it had). */
static bool undo(bounds *b, int mark, int depth) {
  b->proof->op_count = mark;
  b->proof_depth = depth;
  return false;
}

static bool emit_max(bounds *b, const kl_node *n, int depth);

/* A non-negative integer constant expression (`64 * 16 / 4 / (16 * 16)`
 * from a kernel's macros), up to 2^40. */
static bool constant(bounds *b, const kl_node *n, int64_t *value) {
  if (kb_constant_of(n, value)) return true;
  return n && kl_type_is_integer(n->type) && kl_eval_int(b->ctx, n, value) && *value >= 0 &&
         *value <= ((int64_t)1 << 40);
}

/* min and max of two bounded values; clamp(x, lo, hi) lies between lo and
 * hi whatever x is (and between hi and lo where lo > hi, which OpenCL
 * leaves undefined): at most the larger. */
static bool emit_min_max(bounds *b, const kl_node *n, int depth) {
  const kl_node *first = n->args, *second = first ? first->next : NULL;
  kl_builtin_id id = n->builtin->id;
  if (id == KL_BUILTIN_CLAMP) {
    if (n->arg_count != 3) return false;
    first = second;
    second = second->next;
  } else if (n->arg_count != 2) {
    return false;
  }
  if (!emit_max(b, first, depth + 1) || !emit_max(b, second, depth + 1)) return false;
  push_op(b, id == KL_BUILTIN_MIN ? KL_PROOF_MIN : KL_PROOF_MAX, 0, 0);
  width(b, n->type);
  return true;
}

static bool emit_builtin(bounds *b, const kl_node *n, int depth) {
  kl_builtin_id id = n->builtin->id;
  if (id == KL_BUILTIN_MIN || id == KL_BUILTIN_MAX || id == KL_BUILTIN_CLAMP)
    return emit_min_max(b, n, depth);
  int64_t dim;
  if (!n->args || !constant(b, n->args, &dim) || dim > 2) return false;
  kl_proof_op_kind kind;
  switch (n->builtin->id) {
    case KL_BUILTIN_GET_GLOBAL_ID:
      kind = KL_PROOF_GLOBAL_ID;
      break;
    case KL_BUILTIN_GET_LOCAL_ID:
      kind = KL_PROOF_LOCAL_ID;
      break;
    case KL_BUILTIN_GET_GROUP_ID:
      kind = KL_PROOF_GROUP_ID;
      break;
    case KL_BUILTIN_GET_GLOBAL_SIZE:
      kind = KL_PROOF_GLOBAL_SIZE;
      break;
    case KL_BUILTIN_GET_LOCAL_SIZE:
      kind = KL_PROOF_LOCAL_SIZE;
      break;
    case KL_BUILTIN_GET_NUM_GROUPS:
      kind = KL_PROOF_NUM_GROUPS;
      break;
    default:
      return false;
  }
  push_op(b, kind, (int)dim, 0);
  width(b, n->type);
  return true;
}

/* `n` is at most `limit` and at most `x`'s largest value; where `any_x`
 * (an unsigned remainder, a mask: never negative), whatever x is. */
static bool at_most(bounds *b, const kl_node *n, const kl_node *x, int64_t limit, bool any_x,
                    int depth) {
  int mark = b->proof->op_count, saved = b->proof_depth;
  bool bounded = emit_max(b, x, depth + 1);
  if (!bounded && !any_x) return false;
  if (!bounded) undo(b, mark, saved);
  push_op(b, KL_PROOF_CONST, 0, (unsigned long long)limit);
  if (bounded) push_op(b, KL_PROOF_MIN, 0, 0);
  width(b, n->type);
  return true;
}

static bool emit_binary(bounds *b, const kl_node *n, int depth) {
  int64_t k = 0;
  bool r_const = constant(b, n->rhs, &k);
  switch (n->op) {
    case KL_OP_ADD:
    case KL_OP_MUL:
      if (!emit_max(b, n->lhs, depth + 1) || !emit_max(b, n->rhs, depth + 1)) return false;
      push_op(b, n->op == KL_OP_ADD ? KL_PROOF_ADD : KL_PROOF_MUL, 0, 0);
      break;
    case KL_OP_SHL:
    case KL_OP_SHR:
      if (!r_const || k > 62 || !emit_max(b, n->lhs, depth + 1)) return false;
      push_op(b, n->op == KL_OP_SHL ? KL_PROOF_SHL : KL_PROOF_SHR, 0, (unsigned long long)k);
      break;
    case KL_OP_DIV:
      if (!r_const || k == 0 || !emit_max(b, n->lhs, depth + 1)) return false;
      push_op(b, KL_PROOF_DIV, 0, (unsigned long long)k);
      break;
    case KL_OP_MOD: /* below the divisor, and at most the dividend */
      if (!r_const || k == 0) return false;
      return at_most(b, n, n->lhs, k - 1, !kl_type_is_signed(n->type), depth);
    case KL_OP_BIT_AND: { /* x & mask: at most either, whatever x is */
      const kl_node *other = n->lhs;
      if (!r_const) {
        if (!constant(b, n->lhs, &k)) return false;
        other = n->rhs;
      }
      return at_most(b, n, other, k, true, depth);
    }
    default:
      return false;
  }
  width(b, n->type);
  return true;
}

/* `n` is `v`, or `v` widened (every value of v's type is kept). */
static bool is_kept_variable(const kl_node *n, const kl_variable **v) {
  while (n && (n->kind == KL_EXPR_CONVERT || n->kind == KL_EXPR_CAST)) {
    if (!value_bits(n->type) || value_bits(n->lhs->type) > value_bits(n->type)) return false;
    n = n->lhs;
  }
  if (!n || n->kind != KL_EXPR_VARIABLE || !value_bits(n->type)) return false;
  *v = n->variable;
  return true;
}

/* A shrinking counter: `for (T v = first; v > end; v >>= k | v /= k | v--)`
 * (or >=; a decrement with >= only where T is signed, since an unsigned v
 * would wrap below 0). Inside the body v is at most `first` and above
 * `end`, which is bounded, so not negative. */
static bool emit_shrinking(bounds *b, const kl_variable *v, const kl_node *loop, int depth) {
  const kl_node *c = loop->condition, *inc = loop->increment;
  const kl_variable *stepped;
  int64_t k;
  if (!inc || !is_kept_variable(inc->lhs, &stepped) || stepped != v) return false;
  bool decrement = inc->kind == KL_EXPR_UNARY &&
                   (inc->op == KL_OP_PRE_DECREMENT || inc->op == KL_OP_POST_DECREMENT);
  bool divides = inc->kind == KL_EXPR_ASSIGN && (inc->op == KL_OP_SHR || inc->op == KL_OP_DIV) &&
                 constant(b, inc->rhs, &k) && (inc->op == KL_OP_SHR || k > 0);
  if (!divides && !(decrement && (c->op == KL_OP_GT || kl_type_is_signed(v->type)))) return false;
  if (!emit_max(b, c->rhs, depth + 1)) return false;
  push_op(b, KL_PROOF_CHECK_WIDTH, 0, 64);
  return emit_max(b, v->initializer, depth + 1);
}

/* A loop's counter, shrinking (emit_shrinking) or growing: `for (T v =
 * first; v < end; v++ | v += step)` (or <=), with `first`, `end` and `step` bounded. Inside the
 * body v is below `end` (at most it, for <=); the counter only grows, from a non-negative start,
 * and `end + step` fits its type, so it never wraps round to a small value. From 0 by a constant
 * step, its largest value is the last multiple of the step below `end`. */
static bool emit_counter(bounds *b, const kl_variable *v, const kl_node *loop, int depth) {
  const kl_node *c = loop->condition, *inc = loop->increment;
  const kl_variable *compared;
  if (!c || c->kind != KL_EXPR_BINARY || !is_kept_variable(c->lhs, &compared) || compared != v ||
      !inc || !v->initializer)
    return false;
  if (c->op == KL_OP_GT || c->op == KL_OP_GE) return emit_shrinking(b, v, loop, depth);
  if (c->op != KL_OP_LT && c->op != KL_OP_LE) return false;
  const kl_node *step = NULL; /* NULL: 1 */
  if (inc->kind == KL_EXPR_ASSIGN && inc->op == KL_OP_ADD)
    step = inc->rhs;
  else if (inc->kind != KL_EXPR_UNARY ||
           (inc->op != KL_OP_PRE_INCREMENT && inc->op != KL_OP_POST_INCREMENT))
    return false;
  if (!is_kept_variable(inc->lhs, &compared) || compared != v) return false;
  unsigned long long bits = (unsigned long long)value_bits(v->type);
  /* the start is bounded (so not negative) and fits */
  if (!emit_max(b, v->initializer, depth + 1)) return false;
  push_op(b, KL_PROOF_CHECK_WIDTH, 0, bits);
  /* end + step fits: the last step does not wrap */
  if (!emit_max(b, c->rhs, depth + 1)) return false;
  if (!step)
    push_op(b, KL_PROOF_CONST, 0, 1);
  else if (!emit_max(b, step, depth + 1))
    return false;
  push_op(b, KL_PROOF_ADD, 0, 0);
  push_op(b, KL_PROOF_CHECK_WIDTH, 0, bits);
  /* the largest value inside the body */
  if (!emit_max(b, c->rhs, depth + 1)) return false;
  if (c->op == KL_OP_LT) push_op(b, KL_PROOF_DEC, 0, 0);
  int64_t first, by;
  if (c->op == KL_OP_LT && step && constant(b, v->initializer, &first) && first == 0 &&
      constant(b, step, &by) && by > 1) {
    push_op(b, KL_PROOF_DIV, 0, (unsigned long long)by);
    push_op(b, KL_PROOF_CONST, 0, (unsigned long long)by);
    push_op(b, KL_PROOF_MUL, 0, 0);
  }
  return true;
}

/* The guards on `v` cap its value (`v < bound`: at most bound - 1). A
 * variable with no bound of its own takes the cap alone where its type has
 * no negative values. */
static bool emit_capped(bounds *b, const kl_variable *v, bool own, int depth) {
  for (int i = 0; i < b->guard_count; i++) {
    const kb_guard *g = &b->guards[i];
    if (g->var != v) continue;
    if (!own && (g->offset || kl_type_is_signed(v->type))) continue;
    int mark = b->proof->op_count, saved = b->proof_depth;
    if (g->offset) { /* var + offset did not wrap round below the bound */
      push_op(b, KL_PROOF_WIDTH, 0, (unsigned long long)g->sum_bits);
      b->proof->ops[b->proof->op_count - 1].extent = (unsigned long long)g->offset;
    }
    if (!emit_max(b, g->bound, depth + 1)) {
      undo(b, mark, saved);
      continue;
    }
    /* var <= bound - offset - 1 (a cap below 0 only where no value of var
     * passes the guard: the access is not reached) */
    if (!g->inclusive) push_op(b, KL_PROOF_DEC, 0, 0);
    if (g->offset) push_op(b, KL_PROOF_SUB, 0, (unsigned long long)g->offset);
    if (own) push_op(b, KL_PROOF_MIN, 0, 0);
    own = true;
  }
  return own;
}

static bool emit_variable(bounds *b, const kl_variable *v, int depth) {
  if (!value_bits(v->type) || v->space != KL_SPACE_PRIVATE) return false;
  int assigned;
  const kl_node *loop;
  if (!kb_variable_fact(b, v, &assigned, &loop)) return false;
  if (v->is_parameter) { /* a scalar argument, as the launch gives it */
    int index = 0;
    const kl_variable *p = b->function->params;
    while (p && p != v) p = p->next, index++;
    if (assigned || !p || index >= b->user_params) return false;
    push_op(b, KL_PROOF_ARG, index, (unsigned long long)v->type->size);
    b->proof->ops[b->proof->op_count - 1].extent = kl_type_is_signed(v->type);
    return true;
  }
  /* stable: its value where a guard was tested is its value after it
   * (a counter's one assignment is its loop's increment, after the body) */
  const kl_variable *stepped = NULL;
  const kl_node *inc = loop ? loop->increment : NULL;
  bool increments = inc &&
                    (inc->kind == KL_EXPR_ASSIGN ||
                     (inc->kind == KL_EXPR_UNARY && inc->op >= KL_OP_PRE_INCREMENT &&
                      inc->op <= KL_OP_POST_DECREMENT)) &&
                    is_kept_variable(inc->lhs, &stepped) && stepped == v;
  bool stable = loop ? assigned == 1 && increments : assigned == 0;
  if (!stable) return false;
  int mark = b->proof->op_count, saved = b->proof_depth;
  bool own = loop ? emit_counter(b, v, loop, depth)
                  : v->initializer && emit_max(b, v->initializer, depth + 1);
  if (own)
    width(b, v->type);
  else
    undo(b, mark, saved);
  return emit_capped(b, v, own, depth);
}

static bool emit_max(bounds *b, const kl_node *n, int depth) {
  if (!n || depth > PROOF_DEPTH || !value_bits(n->type)) return false;
  int64_t k;
  if (constant(b, n, &k)) {
    push_op(b, KL_PROOF_CONST, 0, (unsigned long long)k);
    return true;
  }
  switch (n->kind) {
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST:
      if (!value_bits(n->lhs->type) || !emit_max(b, n->lhs, depth + 1)) return false;
      width(b, n->type);
      return true;
    case KL_EXPR_VARIABLE:
      return emit_variable(b, n->variable, depth);
    case KL_EXPR_BUILTIN:
      return emit_builtin(b, n, depth);
    case KL_EXPR_CONDITIONAL: { /* the larger branch, each under its guards */
      int mark = kb_guards_mark(b);
      kb_guard_condition(b, n->condition, false);
      bool then = emit_max(b, n->then, depth + 1);
      kb_guards_restore(b, mark);
      kb_guard_condition(b, n->condition, true);
      bool otherwise = then && emit_max(b, n->otherwise, depth + 1);
      kb_guards_restore(b, mark);
      if (!otherwise) return false;
      push_op(b, KL_PROOF_MAX, 0, 0);
      width(b, n->type);
      return true;
    }
    case KL_EXPR_BINARY:
      return emit_binary(b, n, depth);
    default:
      return false;
  }
}

void kb_prove(bounds *b, const place *where, int bytes, kl_location at) {
  if (!b->proof || b->proof->never) return;
  int param = -1;
  unsigned long long extent = 0;
  const param_root *p = kb_param_root_of(b, where->root);
  if (p)
    param = p->index;
  else if (kb_is_local_array(where->root))
    extent = (unsigned long long)where->root->type->size;
  else
    return kb_proof_never(b, at, "an access whose buffer the proof does not know");
  b->proof_depth = 0;
  bool bounded = true;
  if (where->byte)
    bounded = emit_max(b, where->byte, 0);
  else
    push_op(b, KL_PROOF_CONST, 0, 0);
  if (!bounded || b->proof_depth != 1 || b->proof->op_count > 100000)
    return kb_proof_never(b, at, "an access whose offset the proof cannot bound");
  push_op(b, KL_PROOF_FITS, param, (unsigned long long)bytes);
  b->proof->ops[b->proof->op_count - 1].extent = extent;
}

/* ----------------------------------------------------------- guards */

int kb_guards_mark(const bounds *b) {
  return b->guard_count;
}

void kb_guards_restore(bounds *b, int mark) {
  if (mark < b->guard_count) b->guard_count = mark;
}

/* `var < bound`, or `var + c < bound` (c a constant, the sum in a type
 * that keeps var's values: it cannot wrap below the bound). */
static void push_guard(bounds *b, const kl_node *var, const kl_node *bound, bool inclusive) {
  const kl_variable *v;
  int64_t offset = 0;
  int sum_bits = value_bits(var->type);
  if (var->kind == KL_EXPR_BINARY && var->op == KL_OP_ADD &&
      sum_bits >= value_bits(var->lhs->type) && sum_bits >= value_bits(var->rhs->type)) {
    const kl_node *term = var->lhs;
    if (!constant(b, var->rhs, &offset)) {
      if (!constant(b, var->lhs, &offset)) return;
      term = var->rhs;
    }
    var = term;
  }
  if (!is_kept_variable(var, &v)) return;
  b->guards = kb_grow(b, b->guards, b->guard_count, &b->guard_capacity, sizeof *b->guards);
  b->guards[b->guard_count++] = (kb_guard){v, bound, offset, sum_bits, inclusive};
}

void kb_guard_condition(bounds *b, const kl_node *c, bool negated) {
  if (!c || !b->proof) return;
  if (c->kind == KL_EXPR_UNARY && c->op == KL_OP_LOGICAL_NOT)
    return kb_guard_condition(b, c->lhs, !negated);
  if (c->kind != KL_EXPR_BINARY) return;
  if (c->op == (negated ? KL_OP_LOGICAL_OR : KL_OP_LOGICAL_AND)) {
    kb_guard_condition(b, c->lhs, negated);
    kb_guard_condition(b, c->rhs, negated);
    return;
  }
  kl_operator op = c->op;
  if (negated) {
    static const kl_operator opposite[][2] = {
        {KL_OP_LT, KL_OP_GE}, {KL_OP_LE, KL_OP_GT}, {KL_OP_GT, KL_OP_LE}, {KL_OP_GE, KL_OP_LT}};
    kl_operator flipped = KL_OP_NONE;
    for (size_t i = 0; i < sizeof opposite / sizeof *opposite; i++)
      if (opposite[i][0] == op) flipped = opposite[i][1];
    op = flipped;
  }
  if (op == KL_OP_LT || op == KL_OP_LE) push_guard(b, c->lhs, c->rhs, op == KL_OP_LE);
  if (op == KL_OP_GT || op == KL_OP_GE) push_guard(b, c->rhs, c->lhs, op == KL_OP_GE);
}
