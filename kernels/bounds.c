// SPDX-License-Identifier: Apache-2.0
/* Bounds checking (-anygpu-check=bounds, docs/debugging.md): a pass over
 * the parsed program that guards each kernel's accesses to memory through
 * its __global, __constant and __local pointer parameters and its __local
 * arrays. Every target translates the result as it translates any kernel:
 *
 *   x = a[i];      becomes   x = __agpu_in(B, E, 4) ? a[i] : (__agpu_fault(c, S, B), 0.0f);
 *   a[i] = x;      becomes   if (__agpu_in(B, E, 4)) a[i] = x; else __agpu_fault(c, S, B);
 *
 * where B is the access's byte offset from the start of the buffer the
 * pointer was made from (its "root"), E that buffer's extent (from the
 * hidden check buffer `c`, which the core fills at each launch) and S the
 * site's id, which the host turns back into kernel, parameter and source
 * position (kl_check_site). A violating load gives 0, a violating store is
 * dropped, and the first violation is recorded (__agpu_fault).
 *
 * What is not checked, said in the build log: accesses through pointer
 * parameters of helper functions, pointers whose root the pass cannot
 * trace (a private pointer assigned from two buffers), whole-struct loads,
 * and accesses whose index has side effects other than a store at
 * statement level. */
#include <string.h>

#include "bounds_internal.h"
#include "builtins.h"

static const char bounds_prelude[] =
    "ulong __agpu_extent(__global uint *c, uint w) {\n"
    "  return (ulong)c[16u + w] | ((ulong)c[17u + w] << 32);\n"
    "}\n"
    "uint __agpu_word(__global uint *c, uint w) {\n"
    "  return c[16u + w];\n"
    "}\n"
    "int __agpu_in(long at, ulong extent, ulong size) {\n"
    "  return (ulong)at < extent && extent - (ulong)at >= size;\n"
    "}\n"
    "int __agpu_faults(__global uint *c, uint site, uint root, long at, uint count) {\n"
    "  if (atomic_add(c, count) == 0u) {\n"
    "    c[1] = site + 1u;\n"
    "    c[2] = (uint)((ulong)at & 0xffffffffUL);\n"
    "    c[3] = (uint)((ulong)at >> 32);\n"
    "    c[4] = (uint)get_global_id(0);\n"
    "    c[5] = (uint)get_global_id(1);\n"
    "    c[6] = (uint)get_global_id(2);\n"
    "    c[7] = (uint)get_group_id(0);\n"
    "    c[8] = (uint)get_group_id(1);\n"
    "    c[9] = (uint)get_group_id(2);\n"
    "    c[10] = root;\n"
    "  }\n"
    "  return 0;\n"
    "}\n"
    "int __agpu_fault(__global uint *c, uint site, uint root, long at) {\n"
    "  return __agpu_faults(c, site, root, at, 1u);\n"
    "}\n";

kl_token *kl_bounds_prelude(kl_context *ctx, kl_token *rest) {
  kl_source *source = kl_new_source(ctx, "<bounds>", bounds_prelude, strlen(bounds_prelude));
  kl_token *tokens = kl_tokenize(ctx, source), *last = NULL;
  for (kl_token *t = tokens; t->kind != KL_TOKEN_END; t = t->next) last = t;
  if (!last) return rest;
  last->next = rest;
  return tokens;
}

/* ----------------------------------------------------------- guards */

/* A checked access: its site, and its part of the kernel's proof. */
static kl_check_site *new_site(bounds *b, const kl_node *at, const place *where, int bytes,
                               bool write) {
  kb_prove(b, where, bytes, at->location);
  kl_variable *root = where->root;
  kl_check_site *s = kl_alloc(b->ctx, sizeof *s);
  s->id = b->program->check_site_count++;
  s->location = at->location;
  s->function = b->function->name;
  s->root = kb_static_root_id(b, root);
  s->bytes = bytes;
  s->write = write;
  if (b->sites_tail)
    b->sites_tail->next = s;
  else
    b->program->check_sites = s;
  b->sites_tail = s;
  return s;
}

/* __agpu_in(byte, extent, bytes) for a place, and its fault kb_call. */
static kl_node *in_bounds(bounds *b, const place *where, int bytes, kl_location at) {
  if (where->index && where->stride == bytes) { /* (ulong)i < extent / stride */
    kl_type *ulong_type = kl_type_scalar(b->ctx, KL_TYPE_ULONG);
    kl_type *uint_type = kl_type_scalar(b->ctx, KL_TYPE_UINT);
    kl_type *int_type = kl_type_scalar(b->ctx, KL_TYPE_INT);
    kl_node *narrow_count = NULL;
    kl_node *n = kb_new_node(b, KL_EXPR_BINARY, at, int_type);
    n->op = KL_OP_LT;
    n->lhs = kb_convert(b, kb_copy_tree(b, where->index), ulong_type);
    n->rhs = kb_count_node(b, where->root, where->stride, at, &narrow_count);
    if (narrow_count) { /* (uint)i < min(count, UINT_MAX): for 32-bit offsets */
      n->narrow = kb_new_node(b, KL_EXPR_BINARY, at, int_type);
      n->narrow->op = KL_OP_LT;
      n->narrow->lhs = kb_convert(b, kb_copy_tree(b, where->index), uint_type);
      n->narrow->rhs = narrow_count;
    }
    return n;
  }
  kl_node *byte = where->byte ? where->byte : kb_int_node(b, kb_type_long(b), 0, at);
  return kb_call(b, b->in, at, byte, kb_extent_node(b, where->root, at),
                 kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_ULONG), bytes, at), NULL);
}

/* `fits || check` (kb_fits), or the check alone. */
static kl_node *either(bounds *b, kl_node *fits, kl_node *check) {
  if (!fits) return check;
  return kb_binary(b, KL_OP_LOGICAL_OR, fits, check, kl_type_scalar(b->ctx, KL_TYPE_INT));
}

static kl_node *assign(bounds *b, kl_variable *v, kl_node *value, kl_location at) {
  kl_node *n = kb_new_node(b, KL_EXPR_ASSIGN, at, v->type);
  n->lhs = kb_variable_node(b, v, at);
  n->rhs = kb_convert(b, value, v->type);
  return n;
}

static kl_node *comma(bounds *b, kl_node *lhs, kl_node *rhs) {
  kl_node *n = kb_new_node(b, KL_EXPR_COMMA, rhs->location, rhs->type);
  n->lhs = lhs;
  n->rhs = rhs;
  return n;
}

/* `__agpu_bad != 0u` */
static kl_node *any_bad(bounds *b, kl_location at) {
  kl_node *n = kb_new_node(b, KL_EXPR_BINARY, at, kl_type_scalar(b->ctx, KL_TYPE_INT));
  n->op = KL_OP_NE;
  n->lhs = kb_variable_node(b, b->bad, at);
  n->rhs = kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_UINT), 0, at);
  return n;
}

/* `v = bad ? v : value`: the work-item's first violation is kept */
static kl_node *keep_first(bounds *b, kl_variable *v, kl_node *value, kl_location at) {
  kl_node *choice = kb_new_node(b, KL_EXPR_CONDITIONAL, at, v->type);
  choice->condition = any_bad(b, at);
  choice->then = kb_variable_node(b, v, at);
  choice->otherwise = kb_convert(b, value, v->type);
  return assign(b, v, choice, at);
}

/* A violation. In a kernel, noted in private variables (the first one's
 * site and offset, and how many), which the kernel reports once at its
 * end (report_statement): a call with atomics on the checked path keeps
 * some compilers (llvmpipe's) from vectorising the kernel at all. In a
 * helper, reported at once. */
static kl_node *fault_call(bounds *b, const place *where, const kl_check_site *site,
                           kl_location at) {
  kl_node *byte =
      where->byte ? kb_copy_tree(b, where->byte) : kb_int_node(b, kb_type_long(b), 0, at);
  kl_type *uint_type = kl_type_scalar(b->ctx, KL_TYPE_UINT);
  if (b->bad && site->root >= 0) {
    kl_node *count = kb_binary(b, KL_OP_ADD, kb_variable_node(b, b->bad, at),
                               kb_int_node(b, uint_type, 1, at), uint_type);
    return comma(b, keep_first(b, b->bad_at, byte, at),
                 comma(b, keep_first(b, b->bad_site, kb_int_node(b, uint_type, site->id, at), at),
                       assign(b, b->bad, count, at)));
  }
  return kb_call(b, b->fault, at, kb_variable_node(b, b->check, at),
                 kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_UINT), site->id, at),
                 kb_root_id_node(b, where->root, at), byte);
}

/* A zero of the type, or NULL where there is no such expression. */
static kl_node *zero_of(bounds *b, kl_type *type, kl_location at) {
  if (type->kind == KL_TYPE_VECTOR) {
    kl_node *scalar = zero_of(b, type->element, at);
    if (!scalar) return NULL;
    kl_node *n = kb_new_node(b, KL_EXPR_CAST, at, type);
    n->lhs = scalar;
    return n;
  }
  if (type->kind == KL_TYPE_HALF || type->kind == KL_TYPE_FLOAT || type->kind == KL_TYPE_DOUBLE) {
    kl_node *n = kb_new_node(b, KL_EXPR_FLOAT_LITERAL, at, type);
    n->spelling = type->kind == KL_TYPE_FLOAT  ? "0.0f"
                  : type->kind == KL_TYPE_HALF ? "0.0h"
                                               : "0.0";
    return n;
  }
  if (type->kind >= KL_TYPE_BOOL && type->kind <= KL_TYPE_PTRDIFF_T)
    return kb_int_node(b, type, 0, at);
  return NULL;
}

/* `check ? value : (fault, 0)` for an access of `bytes` at `where`. */
static kl_node *guarded_value(bounds *b, kl_node *value, const place *where, int bytes,
                              bool write) {
  kl_node *zero = zero_of(b, value->type, value->location);
  if (!zero) {
    kb_unchecked(b, value->location, "an access to a whole struct or array");
    return value;
  }
  kl_node *fits;
  if (kb_fits(b, where, bytes, value->location, &fits) == KB_FIT_ALWAYS) return value;
  kl_check_site *site = new_site(b, value, where, bytes, write);
  kl_node *n = kb_new_node(b, KL_EXPR_CONDITIONAL, value->location, value->type);
  n->condition = either(b, fits, in_bounds(b, where, bytes, value->location));
  kl_node *comma = kb_new_node(b, KL_EXPR_COMMA, value->location, value->type);
  comma->lhs = fault_call(b, where, site, value->location);
  comma->rhs = zero;
  n->then = value;
  n->otherwise = comma;
  return n;
}

static kl_node *rewrite(bounds *b, kl_node *n);
static void add_helper_arguments(bounds *b, kl_node *n, const helper *h);

/* The subexpressions of an lvalue other than its chain to memory (the
 * indices), rewritten. */
static void rewrite_inside(bounds *b, kl_node *n) {
  switch (n->kind) {
    case KL_EXPR_INDEX:
      if (kb_is_pointer(n->lhs->type))
        n->lhs = rewrite(b, n->lhs);
      else
        rewrite_inside(b, n->lhs);
      n->rhs = rewrite(b, n->rhs);
      return;
    case KL_EXPR_MEMBER:
      if (n->is_arrow)
        n->lhs = rewrite(b, n->lhs);
      else
        rewrite_inside(b, n->lhs);
      return;
    case KL_EXPR_SWIZZLE:
      rewrite_inside(b, n->lhs);
      return;
    case KL_EXPR_UNARY:
      if (n->op == KL_OP_DEREFERENCE) n->lhs = rewrite(b, n->lhs);
      return;
    default:
      return;
  }
}

static bool is_access(const kl_node *n) {
  return n->kind == KL_EXPR_INDEX || n->kind == KL_EXPR_MEMBER || n->kind == KL_EXPR_SWIZZLE ||
         (n->kind == KL_EXPR_UNARY && n->op == KL_OP_DEREFERENCE);
}

/* The bytes an access covers (a swizzle: its whole vector). */
static int access_bytes(const kl_node *n) {
  while (n->kind == KL_EXPR_SWIZZLE) n = n->lhs;
  return n->type->size;
}

/* Whether an access goes through a pointer into __global, __constant or
 * __local memory (or a __local array): what the pass should check. */
static bool memory_access(const kl_node *n) {
  for (;;) {
    if (n->kind == KL_EXPR_VARIABLE) return n->variable->space == KL_SPACE_LOCAL;
    if ((n->kind == KL_EXPR_INDEX && kb_is_pointer(n->lhs->type)) ||
        (n->kind == KL_EXPR_MEMBER && n->is_arrow) ||
        (n->kind == KL_EXPR_UNARY && n->op == KL_OP_DEREFERENCE))
      return n->lhs->type->pointee_space != KL_SPACE_PRIVATE;
    if (!is_access(n)) return false;
    n = n->lhs;
  }
}

/* An lvalue in memory that the pass checks: where it is. */
static bool checked_lvalue(bounds *b, kl_node *n, place *where) {
  if (!is_access(n) || n->type->kind == KL_TYPE_ARRAY) return false;
  if (n->kind == KL_EXPR_MEMBER && !n->is_arrow && !is_access(n->lhs)) return false;
  if (n->kind == KL_EXPR_SWIZZLE && !is_access(n->lhs)) return false;
  return kb_lvalue_place(b, n, where);
}

/* The number of elements a vloadN/vstoreN moves. */
static int vector_count(const kl_type *t) {
  return t->kind == KL_TYPE_VECTOR ? t->length : 1;
}

/* A builtin that reads or writes through a pointer argument: where, how
 * many bytes, and whether it writes. */
static bool builtin_access(bounds *b, kl_node *n, place *where, int *bytes, bool *write) {
  const kl_builtin *f = n->builtin;
  kl_node *pointer = NULL;
  if (f->category == KL_BUILTIN_ATOMIC && n->args) {
    pointer = n->args;
    *bytes = pointer->type->element ? pointer->type->element->size : 4;
    *write = true;
  } else if (f->id == KL_BUILTIN_VLOAD && n->arg_count == 2) {
    pointer = n->args->next;
    int element = pointer->type->element ? pointer->type->element->size : 1;
    *bytes = vector_count(n->type) * element;
    *write = false;
  } else if (f->id == KL_BUILTIN_VSTORE && n->arg_count == 3) {
    pointer = n->args->next->next;
    int element = pointer->type->element ? pointer->type->element->size : 1;
    *bytes = vector_count(n->args->type) * element;
    *write = true;
  }
  if (!pointer || !kb_is_pointer(pointer->type) || pointer->type->pointee_space == KL_SPACE_PRIVATE)
    return false;
  place base;
  if (!kb_pointer_place(b, pointer, &base)) {
    kb_unchecked(b, n->location, "a builtin's pointer whose buffer the pass cannot trace");
    return false;
  }
  if (f->category != KL_BUILTIN_ATOMIC) { /* offset * N elements further */
    const kl_node *offset = n->args->next;
    if (f->id == KL_BUILTIN_VLOAD) offset = n->args;
    if (!kb_pure(b, offset)) return false;
    base.byte = kb_add_bytes(b, base.byte, kb_scaled(b, offset, *bytes));
  }
  *where = base;
  return true;
}

static void rewrite_args(bounds *b, kl_node *n) {
  kl_node head = {0}, *tail = &head;
  for (kl_node *a = n->args; a;) {
    kl_node *next = a->next;
    a->next = NULL;
    tail = tail->next = rewrite(b, a);
    a = next;
  }
  n->args = head.next;
}

/* *n rewritten where `condition` holds (is false, where negated). */
static void guarded_rewrite(bounds *b, const kl_node *condition, bool negated, kl_node **n) {
  int mark = kb_guards_mark(b);
  kb_guard_condition(b, condition, negated);
  *n = rewrite(b, *n);
  kb_guards_restore(b, mark);
}

/* An expression with its accesses guarded (loads and stores inside
 * expressions: `check ? access : (fault, 0)`). */
static kl_node *rewrite(bounds *b, kl_node *n) {
  if (!n) return n;
  place where;
  if (is_access(n) && n->type->kind != KL_TYPE_ARRAY &&
      (n->kind != KL_EXPR_MEMBER || n->is_arrow || is_access(n->lhs)) &&
      (n->kind != KL_EXPR_SWIZZLE || is_access(n->lhs)) && memory_access(n)) { /* a load */
    rewrite_inside(b, n);
    if (!checked_lvalue(b, n, &where)) {
      kb_unchecked(b, n->location,
                   "an access through a pointer whose buffer the pass cannot trace");
      return n;
    }
    return guarded_value(b, n, &where, access_bytes(n), false);
  }
  switch (n->kind) {
    case KL_EXPR_ASSIGN:
    case KL_EXPR_UNARY: {
      bool store = n->kind == KL_EXPR_ASSIGN ||
                   (n->op >= KL_OP_PRE_INCREMENT && n->op <= KL_OP_POST_DECREMENT);
      if (n->kind == KL_EXPR_UNARY && n->op == KL_OP_ADDRESS_OF) {
        rewrite_inside(b, n->lhs); /* no access: the indices only */
        if (!is_access(n->lhs)) n->lhs = rewrite(b, n->lhs);
        return n;
      }
      if (store && is_access(n->lhs)) {
        rewrite_inside(b, n->lhs);
        n->rhs = rewrite(b, n->rhs);
        if (checked_lvalue(b, n->lhs, &where))
          return guarded_value(b, n, &where, access_bytes(n->lhs), true);
        if (memory_access(n->lhs))
          kb_unchecked(b, n->location,
                       "a store through a pointer whose buffer the pass cannot trace");
        return n;
      }
      n->lhs = rewrite(b, n->lhs);
      n->rhs = rewrite(b, n->rhs);
      return n;
    }
    case KL_EXPR_CALL: {
      rewrite_args(b, n);
      const helper *h = kb_helper_of(b, n->function);
      if (h) add_helper_arguments(b, n, h);
      if (h && h->pointer_count)
        kb_proof_never(b, n->location, "a call of a helper function that checks its accesses");
      return n;
    }
    case KL_EXPR_BINARY: /* `c && x`: x is evaluated where c holds */
      if (n->op != KL_OP_LOGICAL_AND && n->op != KL_OP_LOGICAL_OR) break;
      n->lhs = rewrite(b, n->lhs);
      guarded_rewrite(b, n->lhs, n->op == KL_OP_LOGICAL_OR, &n->rhs);
      return n;
    case KL_EXPR_CONDITIONAL:
      n->condition = rewrite(b, n->condition);
      guarded_rewrite(b, n->condition, false, &n->then);
      guarded_rewrite(b, n->condition, true, &n->otherwise);
      return n;
    case KL_EXPR_BUILTIN: {
      rewrite_args(b, n);
      int bytes;
      bool write;
      if (n->type->kind != KL_TYPE_VOID && builtin_access(b, n, &where, &bytes, &write))
        return guarded_value(b, n, &where, bytes, write);
      return n;
    }
    default:
      break;
  }
  n->lhs = rewrite(b, n->lhs);
  n->rhs = rewrite(b, n->rhs);
  n->condition = rewrite(b, n->condition);
  n->then = rewrite(b, n->then);
  n->otherwise = rewrite(b, n->otherwise);
  if (n->kind != KL_EXPR_INIT_LIST || n->args) rewrite_args(b, n);
  return n;
}

static kl_node *rewrite_statements(bounds *b, kl_node *list);

static kl_node *guarded_statement(bounds *b, kl_node *statement);

/* A store statement `p[index] = x;` whose index has side effects
 * (`out[atomic_inc(count)] = v;`, `out[n++] = v;`) cannot be checked as it
 * is (the check would evaluate the index again): `{ T i = index; p[i] = x;
 * }`, then checked. */
static kl_node *hoisted_index(bounds *b, kl_node *statement) {
  kl_node *access = statement->lhs->lhs, *index = access->rhs;
  const char *name = kl_format(b->ctx, "__agpu_index%d", b->ctx->next_variable_id);
  kl_node *declaration = kb_local(b, name, index->type, rewrite(b, index), index->location);
  access->rhs = kb_variable_node(b, declaration->variable, index->location);
  kl_node *block = kb_new_node(b, KL_STMT_COMPOUND, statement->location, NULL);
  block->body = declaration;
  declaration->next = guarded_statement(b, statement);
  return block;
}

/* A store statement through p[index] with an index that has side effects
 * and a base that has none. */
static bool needs_hoisting(const bounds *b, const kl_node *e) {
  bool store =
      e->kind == KL_EXPR_ASSIGN ||
      (e->kind == KL_EXPR_UNARY && e->op >= KL_OP_PRE_INCREMENT && e->op <= KL_OP_POST_DECREMENT);
  const kl_node *access = e->lhs;
  return store && access && access->kind == KL_EXPR_INDEX && kb_is_pointer(access->lhs->type) &&
         access->lhs->type->pointee_space != KL_SPACE_PRIVATE &&
         kl_type_is_integer(access->rhs->type) && !kb_pure(b, access->rhs) &&
         kb_pure(b, access->lhs);
}

/* A store or void builtin as a whole statement: `if (check) it; else fault;`. */
static kl_node *guarded_statement(bounds *b, kl_node *statement) {
  kl_node *e = statement->lhs;
  if (needs_hoisting(b, e)) return hoisted_index(b, statement);
  place where;
  int bytes = 0;
  bool write = true, found = false;
  if ((e->kind == KL_EXPR_ASSIGN || (e->kind == KL_EXPR_UNARY && e->op >= KL_OP_PRE_INCREMENT &&
                                     e->op <= KL_OP_POST_DECREMENT)) &&
      is_access(e->lhs)) {
    rewrite_inside(b, e->lhs);
    e->rhs = rewrite(b, e->rhs);
    found = checked_lvalue(b, e->lhs, &where);
    bytes = access_bytes(e->lhs);
    if (!found && memory_access(e->lhs))
      kb_unchecked(b, e->location, "a store through a pointer whose buffer the pass cannot trace");
    write = true;
  } else if (e->kind == KL_EXPR_ASSIGN && e->op == KL_OP_NONE && !is_access(e->lhs) &&
             e->rhs->type->kind == KL_TYPE_STRUCT && checked_lvalue(b, e->rhs, &where)) {
    /* a whole struct loaded: `if (check) s = p[i]; else fault;` */
    rewrite_inside(b, e->rhs);
    found = checked_lvalue(b, e->rhs, &where);
    bytes = access_bytes(e->rhs);
    write = false;
  } else if (e->kind == KL_EXPR_BUILTIN &&
             (e->builtin->category == KL_BUILTIN_ATOMIC || e->builtin->id == KL_BUILTIN_VSTORE)) {
    rewrite_args(b, e);
    found = builtin_access(b, e, &where, &bytes, &write);
  } else {
    statement->lhs = rewrite(b, e);
    return statement;
  }
  if (!found) return statement;
  kl_node *fits;
  if (kb_fits(b, &where, bytes, e->location, &fits) == KB_FIT_ALWAYS) return statement;
  kl_check_site *site = new_site(b, e, &where, bytes, write);
  kl_node *n = kb_new_node(b, KL_STMT_IF, statement->location, NULL);
  n->condition = either(b, fits, in_bounds(b, &where, bytes, e->location));
  n->then = statement;
  kl_node *otherwise = kb_new_node(b, KL_STMT_EXPRESSION, statement->location, NULL);
  otherwise->lhs = fault_call(b, &where, site, e->location);
  n->otherwise = otherwise;
  n->contains_barrier = false;
  return n;
}

/* `if (__agpu_bad != 0u) __agpu_faults(c, site, 0, at, bad);` (kind: the
 * node's check_report) */
static kl_node *report_statement(bounds *b, kl_location at, int kind) {
  kl_node *call = kb_call(b, b->faults, at, kb_variable_node(b, b->check, at),
                          kb_variable_node(b, b->bad_site, at),
                          kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_UINT), 0, at),
                          kb_variable_node(b, b->bad_at, at));
  kl_node *last = call->args;
  while (last->next) last = last->next;
  last->next = kb_variable_node(b, b->bad, at);
  call->arg_count++;
  kl_node *statement = kb_new_node(b, KL_STMT_EXPRESSION, at, NULL);
  statement->lhs = call;
  kl_node *n = kb_new_node(b, KL_STMT_IF, at, NULL);
  n->condition = any_bad(b, at);
  n->then = statement;
  n->check_report = kind;
  return n;
}

static kl_node *rewrite_statement(bounds *b, kl_node *n) {
  switch (n->kind) {
    case KL_STMT_EXPRESSION:
      return n->lhs ? guarded_statement(b, n) : n;
    case KL_STMT_DECLARATION:
      if (n->variable && n->variable->initializer) {
        kl_node *init = n->variable->initializer;
        if (init->kind == KL_EXPR_INIT_LIST)
          rewrite(b, init);
        else
          n->variable->initializer = rewrite(b, init);
      }
      return n;
    case KL_STMT_COMPOUND:
      n->body = rewrite_statements(b, n->body);
      return n;
    case KL_STMT_IF: {
      n->condition = rewrite(b, n->condition);
      int mark = kb_guards_mark(b);
      kb_guard_condition(b, n->condition, false);
      n->then = rewrite_statement(b, n->then);
      kb_guards_restore(b, mark);
      kb_guard_condition(b, n->condition, true);
      if (n->otherwise) n->otherwise = rewrite_statement(b, n->otherwise);
      kb_guards_restore(b, mark);
      return n;
    }
    case KL_STMT_FOR: /* the init stays a declaration or an expression */
      if (n->init && n->init->kind == KL_STMT_EXPRESSION)
        n->init->lhs = rewrite(b, n->init->lhs);
      else if (n->init)
        n->init = rewrite_statement(b, n->init);
      n->condition = rewrite(b, n->condition);
      n->increment = rewrite(b, n->increment);
      n->body = rewrite_statement(b, n->body);
      return n;
    case KL_STMT_WHILE:
    case KL_STMT_DO:
    case KL_STMT_SWITCH:
      n->condition = rewrite(b, n->condition);
      n->body = rewrite_statement(b, n->body);
      return n;
    case KL_STMT_CASE:
      if (n->body) n->body = rewrite_statement(b, n->body);
      return n;
    case KL_STMT_RETURN: {
      n->lhs = rewrite(b, n->lhs);
      if (!b->bad) return n;
      kl_node *block = kb_new_node(b, KL_STMT_COMPOUND, n->location, NULL);
      block->body = report_statement(b, n->location, 1);
      block->body->next = n;
      return block;
    }
    default:
      return n;
  }
}

/* `if (c) return;` (or continue, or break; braced or not, no else): the
 * rest of its block runs only where c is false. */
static const kl_node *exit_condition(const kl_node *s) {
  if (s->kind != KL_STMT_IF || s->otherwise || !s->then) return NULL;
  const kl_node *then = s->then;
  if (then->kind == KL_STMT_COMPOUND && then->body && !then->body->next) then = then->body;
  bool exits =
      then->kind == KL_STMT_RETURN || then->kind == KL_STMT_CONTINUE || then->kind == KL_STMT_BREAK;
  return exits ? s->condition : NULL;
}

static kl_node *rewrite_statements(bounds *b, kl_node *list) {
  kl_node head = {0}, *tail = &head;
  int mark = kb_guards_mark(b);
  for (kl_node *s = list; s;) {
    kl_node *next = s->next;
    s->next = NULL;
    if (s->kind == KL_STMT_CASE) kb_guards_restore(b, mark); /* a way in past the guards */
    const kl_node *exit = exit_condition(s);
    tail = tail->next = rewrite_statement(b, s);
    if (exit) kb_guard_condition(b, exit, true);
    s = next;
  }
  kb_guards_restore(b, mark);
  return head.next;
}

/* ------------------------------------------------------------- entry */

static kl_function *find_function(kl_program *program, const char *name) {
  for (kl_function *f = program->functions; f; f = f->next)
    if (f->body && strcmp(f->name, name) == 0) return f;
  return NULL;
}

static kl_variable *add_parameter(bounds *b, kl_function *f, const char *name, kl_type *type) {
  kl_variable *v = kl_alloc(b->ctx, sizeof *v);
  v->name = name;
  v->type = type;
  v->space = KL_SPACE_PRIVATE;
  v->location = f->location;
  v->id = b->ctx->next_variable_id++;
  v->is_parameter = true;
  kl_variable **last = &f->params;
  while (*last) last = &(*last)->next;
  *last = v;
  f->param_count++;
  return v;
}

static kl_variable *add_check_parameter(bounds *b, kl_function *f) {
  kl_type *type = kl_type_pointer(b->ctx, kl_type_scalar(b->ctx, KL_TYPE_UINT), KL_SPACE_GLOBAL);
  f->check_buffer = add_parameter(b, f, "__agpu_check", type);
  return f->check_buffer;
}

/* A helper's hidden parameters (struct helper), added before any kb_call of
 * it is rewritten. */
static void add_helper_parameters(bounds *b, kl_function *f, helper *h) {
  h->function = f;
  int count = 0;
  for (kl_variable *v = f->params; v; v = v->next) count += kb_is_user_pointer(f, v);
  h->pointer_count = count;
  size_t bytes = (size_t)(count + 1) * sizeof(kl_variable *);
  h->pointers = kl_alloc(b->ctx, bytes);
  h->offsets = kl_alloc(b->ctx, bytes);
  h->extents = kl_alloc(b->ctx, bytes);
  h->roots = kl_alloc(b->ctx, bytes);
  int i = 0;
  for (kl_variable *v = f->params; v && i < count; v = v->next)
    if (kb_is_user_pointer(f, v)) h->pointers[i++] = v;
  h->check = add_check_parameter(b, f);
  for (i = 0; i < count; i++) {
    h->offsets[i] = add_parameter(b, f, kl_format(b->ctx, "__agpu_offset%d", i), kb_type_long(b));
    h->extents[i] = add_parameter(b, f, kl_format(b->ctx, "__agpu_extent%d", i),
                                  kl_type_scalar(b->ctx, KL_TYPE_ULONG));
    h->roots[i] = add_parameter(b, f, kl_format(b->ctx, "__agpu_root%d", i),
                                kl_type_scalar(b->ctx, KL_TYPE_UINT));
  }
}

/* A kb_call of a helper gets its hidden arguments: the check buffer and where
 * each pointer argument points (an untraceable one is not checked: an
 * extent of all memory). */
static void add_helper_arguments(bounds *b, kl_node *n, const helper *h) {
  kl_node *tail = n->args;
  while (tail && tail->next) tail = tail->next;
  kl_node head = {0}, *extra = &head;
  extra = extra->next = kb_variable_node(b, b->check, n->location);
  int i = 0;
  kl_variable *param = h->function->params;
  for (kl_node *arg = n->args; arg && param && i < h->pointer_count;
       arg = arg->next, param = param->next) {
    if (param != h->pointers[i]) continue;
    i++;
    place where;
    kl_node *offset, *extent, *root;
    if (kb_pointer_place(b, arg, &where)) {
      offset = where.byte ? where.byte : kb_int_node(b, kb_type_long(b), 0, n->location);
      extent = kb_extent_node(b, where.root, n->location);
      root = kb_root_id_node(b, where.root, n->location);
    } else {
      kb_unchecked(b, arg->location,
                   "a pointer passed to a helper from a buffer the pass cannot trace");
      offset = kb_int_node(b, kb_type_long(b), 0, n->location);
      extent = kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_ULONG), -1, n->location);
      root = kb_int_node(b, kl_type_scalar(b->ctx, KL_TYPE_UINT), 0xffffffffu, n->location);
    }
    extra = extra->next = kb_convert(b, offset, kb_type_long(b));
    extra = extra->next = extent;
    extra = extra->next = root;
  }
  if (tail)
    tail->next = head.next;
  else
    n->args = head.next;
  n->arg_count += 1 + 3 * h->pointer_count;
}

static void instrument_function(bounds *b, kl_function *f) {
  b->function = f;
  b->params = NULL;
  b->param_count = 0;
  b->pointers = NULL;
  b->pointer_count = b->pointer_capacity = 0;
  b->declarations = b->declarations_tail = NULL;
  b->count_count = 0;
  b->user_params = 0; /* before the check buffer joins them */
  for (kl_variable *v = f->params; v && v != f->printf_buffer; v = v->next) b->user_params++;
  helper *h = kb_helper_of(b, f);
  b->check = h ? h->check : add_check_parameter(b, f);
  b->bad = b->bad_site = b->bad_at = NULL;
  kb_find_roots(b);
  kb_ranges_prepare(b, f);
  b->proof = NULL;
  b->guard_count = 0;
  if (!h) kb_proof_begin(b);
  if (f->body->kind == KL_STMT_COMPOUND) {
    if (!h) { /* a kernel: its violations noted, reported at its end */
      kl_type *uint_type = kl_type_scalar(b->ctx, KL_TYPE_UINT);
      kl_location at = f->location;
      b->bad = kb_declare(b, "__agpu_bad", uint_type, kb_int_node(b, uint_type, 0, at));
      b->bad_site = kb_declare(b, "__agpu_bad_site", uint_type, kb_int_node(b, uint_type, 0, at));
      b->bad_at =
          kb_declare(b, "__agpu_bad_at", kb_type_long(b), kb_int_node(b, kb_type_long(b), 0, at));
    }
    f->body->body = rewrite_statements(b, f->body->body);
    if (b->bad) {
      kl_node **end = &f->body->body;
      while (*end) end = &(*end)->next;
      *end = report_statement(b, f->location, 2);
    }
    if (b->declarations) {
      b->declarations_tail->next = f->body->body;
      f->body->body = b->declarations;
    }
  }
}

void kl_bounds_instrument(kl_context *ctx, kl_program *program) {
  bounds b = {.ctx = ctx, .program = program};
  program->checks_bounds = true;
  b.in = find_function(program, "__agpu_in");
  b.fault = find_function(program, "__agpu_fault");
  b.extent_of = find_function(program, "__agpu_extent");
  b.word = find_function(program, "__agpu_word");
  b.faults = find_function(program, "__agpu_faults");
  if (!b.in || !b.fault || !b.extent_of || !b.word || !b.faults)
    return; /* the prelude's errors said */
  int functions = 0;
  for (kl_function *f = program->functions; f; f = f->next) functions++;
  b.helpers = kl_alloc(ctx, (size_t)(functions + 1) * sizeof *b.helpers);
  for (kl_function *f = program->functions; f; f = f->next)
    if (f->body && !f->is_kernel && !kb_is_prelude(&b, f))
      add_helper_parameters(&b, f, &b.helpers[b.helper_count++]);
  for (kl_function *f = program->functions; f; f = f->next)
    if (f->body && !kb_is_prelude(&b, f)) instrument_function(&b, f);
  if (b.unchecked_count)
    kl_warning(ctx, b.first_unchecked,
               "bounds checks do not cover %d access%s here and elsewhere (the first: %s)",
               b.unchecked_count, b.unchecked_count == 1 ? "" : "es", b.unchecked_why);
}
