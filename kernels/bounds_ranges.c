// SPDX-License-Identifier: Apache-2.0
/* Bounds checking's ranges (kernels/bounds.c): an access whose byte offset
 * is built from constants, local ids, the counters of counted loops and
 * variables given such a value once, by additions and multiplications by
 * constants, lies in a range the work-group's size bounds:
 *
 *   float tile[64][16]; ... tile[ty * 4 + r][j]
 *   (r < 4 and j < 16 loop counters, ty = get_local_id(1)):
 *   byte offset <= 252 + 256 * (get_local_size(1) - 1)
 *
 * Its check is then `fits || check`, where `fits` compares that bound with
 * the extent: the same in every work-item of the launch, so compilers hoist
 * it out of the loops (PoCL and Vulkan know the group's size when they
 * compile, the C target unswitches the work-item loop), and the check
 * itself runs only where the group is larger than the kernel expects. With
 * no local id in it the comparison is made here, and an access that always
 * fits is not checked at all. A tiled matrix product's inner loop over
 * __local tiles keeps no check. */
#include "bounds_internal.h"
#include "builtins.h"

enum { RANGE_DEPTH = 32 };
static const int64_t range_limit = (int64_t)1 << 40; /* no overflow below */

/* lo <= value <= hi + sum of lsz[d] * (get_local_size(d) - 1) */
typedef struct range {
  bool ok;
  int64_t lo, hi, lsz[3];
} range;

static const range unknown = {0};

/* `n` is variable `v` (any variable where v is NULL), converted or not. */
static bool is_variable(const kl_node *n, const kl_variable *v) {
  while (n && (n->kind == KL_EXPR_CONVERT || n->kind == KL_EXPR_CAST)) n = n->lhs;
  return n && n->kind == KL_EXPR_VARIABLE && (!v || n->variable == v);
}

/* A variable's facts, gathered before the rewrite: how many times the
 * function assigns it (or takes its address), and the for statement that
 * declares it as its counter. */
typedef struct variable_fact {
  const kl_variable *var;
  int assigned;
  const kl_node *loop;
} variable_fact;

static variable_fact *fact_of(bounds *b, const kl_variable *v, bool add) {
  variable_fact *facts = b->facts;
  for (int i = 0; i < b->fact_count; i++)
    if (facts[i].var == v) return &facts[i];
  if (!add) return NULL;
  b->facts = kb_grow(b, b->facts, b->fact_count, &b->fact_capacity, sizeof *facts);
  variable_fact *f = &((variable_fact *)b->facts)[b->fact_count++];
  *f = (variable_fact){.var = v};
  return f;
}

static void gather(bounds *b, const kl_node *n, int depth) {
  if (n && depth >= 2000) b->facts_incomplete = true; /* then no variable is trusted */
  for (; n && depth < 2000; n = n->next) {
    if ((n->kind == KL_EXPR_ASSIGN && is_variable(n->lhs, NULL)) ||
        (n->kind == KL_EXPR_UNARY &&
         ((n->op >= KL_OP_PRE_INCREMENT && n->op <= KL_OP_POST_DECREMENT) ||
          n->op == KL_OP_ADDRESS_OF) &&
         is_variable(n->lhs, NULL))) {
      const kl_node *target = n->lhs;
      while (target->kind != KL_EXPR_VARIABLE) target = target->lhs;
      fact_of(b, target->variable, true)->assigned++;
    }
    if (n->kind == KL_STMT_FOR && n->init && n->init->kind == KL_STMT_DECLARATION &&
        n->init->variable)
      fact_of(b, n->init->variable, true)->loop = n;
    if (n->kind == KL_STMT_DECLARATION && n->variable && n->variable->initializer)
      gather(b, n->variable->initializer, depth + 1);
    const kl_node *children[] = {n->lhs,       n->rhs,  n->condition, n->then, n->otherwise,
                                 n->increment, n->init, n->body,      n->args};
    for (size_t i = 0; i < sizeof children / sizeof *children; i++)
      if (children[i]) gather(b, children[i], depth + 1);
  }
}

void kb_ranges_prepare(bounds *b, const kl_function *f) {
  b->fact_count = 0;
  b->facts_incomplete = false;
  gather(b, f->body, 0);
}

bool kb_variable_fact(bounds *b, const kl_variable *v, int *assigned, const kl_node **loop) {
  const variable_fact *fact = b->facts_incomplete ? NULL : fact_of(b, v, false);
  *assigned = fact ? fact->assigned : 0;
  *loop = fact ? fact->loop : NULL;
  return !b->facts_incomplete;
}

bool kb_constant_of(const kl_node *n, int64_t *value) {
  while (n && (n->kind == KL_EXPR_CONVERT || n->kind == KL_EXPR_CAST) &&
         kl_type_is_integer(n->type))
    n = n->lhs;
  if (!n || n->kind != KL_EXPR_INT_LITERAL || !kl_type_is_integer(n->type)) return false;
  int64_t v = (int64_t)n->int_value;
  if (v < 0 || v > range_limit) return false;
  *value = v;
  return true;
}

static range range_of(bounds *b, const kl_node *n, int depth);

/* A loop counter's range (`for (T v = c0; v < c1; v++)`, or <=, ++v,
 * v += 1, with constants), or that of a variable given one value and
 * never assigned. */
static range variable_range(bounds *b, const kl_variable *v, int depth) {
  if (v->is_parameter || v->space != KL_SPACE_PRIVATE || !kl_type_is_integer(v->type) ||
      b->facts_incomplete)
    return unknown;
  const variable_fact *fact = fact_of(b, v, false);
  int assigned = fact ? fact->assigned : 0;
  const kl_node *loop = fact ? fact->loop : NULL;
  if (!loop) {
    if (assigned || !v->initializer) return unknown;
    return range_of(b, v->initializer, depth + 1);
  }
  int64_t first, end;
  const kl_node *c = loop->condition, *inc = loop->increment;
  if (assigned != 1 || !v->initializer || !kb_constant_of(v->initializer, &first) || !c ||
      c->kind != KL_EXPR_BINARY || (c->op != KL_OP_LT && c->op != KL_OP_LE) ||
      !is_variable(c->lhs, v) || !kb_constant_of(c->rhs, &end) || !inc)
    return unknown;
  int64_t one;
  bool step = (inc->kind == KL_EXPR_UNARY &&
               (inc->op == KL_OP_PRE_INCREMENT || inc->op == KL_OP_POST_INCREMENT)) ||
              (inc->kind == KL_EXPR_ASSIGN && inc->op == KL_OP_ADD &&
               kb_constant_of(inc->rhs, &one) && one == 1);
  if (!step || !is_variable(inc->lhs, v)) return unknown;
  int64_t last = c->op == KL_OP_LT ? end - 1 : end;
  return (range){.ok = true, .lo = first, .hi = last > first ? last : first};
}

static range scaled(range r, int64_t k) {
  if (!r.ok || k < 0 || k > range_limit) return unknown;
  r.lo *= k;
  r.hi *= k;
  for (int d = 0; d < 3; d++) r.lsz[d] *= k;
  if (r.hi > range_limit || r.lsz[0] > range_limit || r.lsz[1] > range_limit ||
      r.lsz[2] > range_limit)
    return unknown;
  return r;
}

static range range_of(bounds *b, const kl_node *n, int depth) {
  if (!n || depth > RANGE_DEPTH || !kl_type_is_integer(n->type)) return unknown;
  int64_t k;
  switch (n->kind) {
    case KL_EXPR_INT_LITERAL:
      if (!kb_constant_of(n, &k)) return unknown;
      return (range){.ok = true, .lo = k, .hi = k};
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST: /* a wider or same-size integer: the value stays */
      if (n->type->size < 4 || !kl_type_is_integer(n->lhs->type)) return unknown;
      return range_of(b, n->lhs, depth + 1);
    case KL_EXPR_VARIABLE:
      return variable_range(b, n->variable, depth);
    case KL_EXPR_BUILTIN:
      if (n->builtin->id != KL_BUILTIN_GET_LOCAL_ID || !kb_constant_of(n->args, &k)) return unknown;
      if (k > 2) return (range){.ok = true};
      range id = {.ok = true};
      id.lsz[k] = 1;
      return id;
    case KL_EXPR_BINARY: {
      range l = range_of(b, n->lhs, depth + 1), r = range_of(b, n->rhs, depth + 1);
      if (!l.ok || !r.ok) return unknown;
      if (n->op == KL_OP_ADD) {
        range sum = {.ok = true, .lo = l.lo + r.lo, .hi = l.hi + r.hi};
        for (int d = 0; d < 3; d++) sum.lsz[d] = l.lsz[d] + r.lsz[d];
        return sum.hi > range_limit ? unknown : sum;
      }
      bool l_const = l.lo == l.hi && !l.lsz[0] && !l.lsz[1] && !l.lsz[2];
      bool r_const = r.lo == r.hi && !r.lsz[0] && !r.lsz[1] && !r.lsz[2];
      if (n->op == KL_OP_MUL && r_const) return scaled(l, r.lo);
      if (n->op == KL_OP_MUL && l_const) return scaled(r, l.lo);
      if (n->op == KL_OP_SHL && r_const && r.lo < 32) return scaled(l, (int64_t)1 << r.lo);
      return unknown;
    }
    default:
      return unknown;
  }
}

kb_fit kb_fits(bounds *b, const place *where, int bytes, kl_location at, kl_node **fits) {
  *fits = NULL;
  if (!where->byte) return KB_FIT_UNKNOWN;
  range r = range_of(b, where->byte, 0);
  if (!r.ok || r.lo < 0) return KB_FIT_UNKNOWN;
  kl_type *ulong_type = kl_type_scalar(b->ctx, KL_TYPE_ULONG);
  /* roots whose size is their type's (__local arrays): the condition
   * reads nothing but the group's size, which every target has at hand
   * wherever it tests it (the C target: before a region's work-item loop) */
  if (kb_param_root_of(b, where->root) || !kb_is_local_array(where->root)) return KB_FIT_UNKNOWN;
  bool grows = r.lsz[0] || r.lsz[1] || r.lsz[2];
  if (!grows)
    return (uint64_t)r.hi + (uint64_t)bytes <= (uint64_t)where->root->type->size ? KB_FIT_ALWAYS
                                                                                 : KB_FIT_UNKNOWN;
  /* hi + sum of lsz[d] * (get_local_size(d) - 1) + bytes <= extent */
  kl_node *end = kb_int_node(b, ulong_type, r.hi + bytes, at);
  for (int d = 0; d < 3; d++) {
    if (!r.lsz[d]) continue;
    kl_node *size = kb_new_node(b, KL_EXPR_BUILTIN, at, kl_type_scalar(b->ctx, KL_TYPE_SIZE_T));
    size->builtin = kl_builtin_get(KL_BUILTIN_GET_LOCAL_SIZE);
    size->args = kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_UINT), d, at);
    size->arg_count = 1;
    kl_node *lmax = kb_binary(b, KL_OP_SUB, size, kb_int_node(b, ulong_type, 1, at), ulong_type);
    kl_node *term =
        kb_binary(b, KL_OP_MUL, kb_int_node(b, ulong_type, r.lsz[d], at), lmax, ulong_type);
    end = kb_binary(b, KL_OP_ADD, end, term, ulong_type);
  }
  /* a comparison of ulongs (kb_binary would convert them to its int type) */
  kl_node *le = kb_new_node(b, KL_EXPR_BINARY, at, kl_type_scalar(b->ctx, KL_TYPE_INT));
  le->op = KL_OP_LE;
  le->lhs = end;
  le->rhs = kb_int_node(b, ulong_type, where->root->type->size, at);
  le->check_fits = true;
  *fits = le;
  return KB_FIT_IF;
}
