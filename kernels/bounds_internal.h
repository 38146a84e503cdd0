// SPDX-License-Identifier: Apache-2.0
/* Bounds checking's pass (kernels/bounds.c), shared by its files: the
 * state of one program's rewrite, the node builders (bounds_nodes.c) and
 * the roots and places of accesses (bounds_roots.c). */
#ifndef AGPU_KL_BOUNDS_INTERNAL_H
#define AGPU_KL_BOUNDS_INTERNAL_H

#include "kl_front.h"

enum { ROOT_UNSEEN, ROOT_ONE, ROOT_MANY };

/* A private pointer variable and the one root every value it is given
 * comes from, when there is one. */
typedef struct pointer_root {
  kl_variable *var;
  kl_variable *root;
  int state;
} pointer_root;

/* A pointer parameter as a root. In a kernel: its index, its extent (a
 * ulong read once from the check buffer) and its root id (a constant). In
 * a helper function: hidden parameters that its callers pass, the byte
 * offset of the pointer's value in its root, the root's extent and id. In
 * both: the value at entry where the function assigns the parameter
 * (offsets are measured from there). */
typedef struct param_root {
  kl_variable *param;
  int index;
  kl_variable *extent, *base;
  kl_variable *offset, *root_id; /* helpers only */
  int root;                      /* kernels: the kl_check_root id, -1 until made */
  bool assigned;
} param_root;

/* A helper function's hidden parameters: the check buffer, then (offset,
 * extent, root id) for each of its __global, __constant and __local
 * pointer parameters, in order. */
typedef struct helper {
  kl_function *function;
  kl_variable *check;
  kl_variable **pointers, **offsets, **extents, **roots;
  int pointer_count;
} helper;

/* A __local array's root id. */
typedef struct array_root {
  kl_variable *array;
  int root;
} array_root;

/* A root's extent in elements of one size, a variable made once. */
typedef struct element_count {
  kl_variable *root, *count, *narrow;
  int stride;
} element_count;

typedef struct bounds {
  kl_context *ctx;
  kl_program *program;
  kl_function *function; /* the kernel or helper being rewritten */
  kl_function *in, *fault, *faults, *extent_of, *word;
  /* a kernel's record of its violations: how many, the first's site and
   * byte offset (NULL in helpers, which report each at once) */
  kl_variable *bad, *bad_site, *bad_at;
  kl_variable *check;
  helper *helpers;
  int helper_count;
  array_root *arrays;
  int array_count, array_capacity;
  kl_check_root *roots_tail;
  param_root *params;
  int param_count;
  pointer_root *pointers;
  int pointer_count, pointer_capacity;
  kl_node *declarations, *declarations_tail; /* to go first in the body */
  kl_check_site *sites_tail;
  element_count *counts;
  int count_count, count_capacity;
  kl_check_count *counts_tail;
  int user_params; /* a kernel's parameters without the hidden ones */
  int unchecked_count;
  kl_location first_unchecked;
  const char *unchecked_why;
  void *facts; /* bounds_ranges.c's variable facts for the function */
  int fact_count, fact_capacity;
  bool facts_incomplete;   /* a tree too deep to walk: no variable's range */
  kl_check_proof *proof;   /* the kernel's (bounds_proof.c); NULL in helpers */
  int proof_depth;         /* its stack's depth while an access's program is made */
  struct kb_guard *guards; /* conditions known to hold where the rewrite is */
  int guard_count, guard_capacity;
} bounds;

/* A tracked place in memory: the root it is in and its byte offset from the
 * root's start (a long expression; NULL for 0). */
typedef struct place {
  kl_variable *root;
  kl_node *byte;
  /* root[index] of `stride`-byte elements, where the access is that (its
   * check is then `index < extent / stride`, the extent's quotient read
   * once); NULL otherwise */
  const kl_node *index;
  int stride;
} place;

/* bounds_nodes.c: new nodes (typed; arguments converted to the callee's
 * parameter types), deep copies, whether evaluating a node twice is
 * harmless, and the count of what is left unchecked. */
kl_type *kb_type_long(bounds *b);
bool kb_is_prelude(const bounds *b, const kl_function *f);
void *kb_grow(bounds *b, void *items, int count, int *capacity, size_t item_size);
kl_node *kb_new_node(bounds *b, kl_node_kind kind, kl_location at, kl_type *type);
kl_node *kb_int_node(bounds *b, kl_type *type, long long value, kl_location at);
kl_node *kb_convert(bounds *b, kl_node *n, kl_type *to);
kl_node *kb_variable_node(bounds *b, kl_variable *v, kl_location at);
kl_node *kb_binary(bounds *b, kl_operator op, kl_node *lhs, kl_node *rhs, kl_type *type);
kl_node *kb_call(bounds *b, kl_function *f, kl_location at, kl_node *a0, kl_node *a1, kl_node *a2,
                 kl_node *a3);
kl_node *kb_copy_tree(bounds *b, const kl_node *n);
bool kb_pure(const bounds *b, const kl_node *n);
void kb_unchecked(bounds *b, kl_location at, const char *why);
/* bounds_roots.c: roots, their extents and ids, and places. */
param_root *kb_param_root_of(bounds *b, const kl_variable *v);
bool kb_is_local_array(const kl_variable *v);
bool kb_is_pointer(const kl_type *t);
helper *kb_helper_of(bounds *b, const kl_function *f);
bool kb_is_user_pointer(const kl_function *f, const kl_variable *v);
void kb_find_roots(bounds *b);
/* A private variable of the function and its declaration statement, to be
 * placed by the caller; kb_declare places it first in the body. */
kl_node *kb_local(bounds *b, const char *name, kl_type *type, kl_node *initializer, kl_location at);
kl_variable *kb_declare(bounds *b, const char *name, kl_type *type, kl_node *initializer);
kl_node *kb_extent_node(bounds *b, kl_variable *root, kl_location at);
kl_node *kb_count_node(bounds *b, kl_variable *root, int stride, kl_location at, kl_node **narrow);
int kb_static_root_id(bounds *b, kl_variable *root);
kl_node *kb_root_id_node(bounds *b, kl_variable *root, kl_location at);
kl_node *kb_add_bytes(bounds *b, kl_node *byte, kl_node *more);
kl_node *kb_scaled(bounds *b, const kl_node *index, int size);
bool kb_lvalue_place(bounds *b, const kl_node *n, place *out);
bool kb_pointer_place(bounds *b, const kl_node *n, place *out);

/* bounds_ranges.c: whether an access's byte offset provably fits its
 * root: always (no check needed), or where `*fits` (a condition the same
 * for the whole work-group) holds. */
typedef enum kb_fit { KB_FIT_UNKNOWN, KB_FIT_ALWAYS, KB_FIT_IF } kb_fit;
kb_fit kb_fits(bounds *b, const place *where, int bytes, kl_location at, kl_node **fits);
/* Gathers the function's variable facts, before its rewrite. */
void kb_ranges_prepare(bounds *b, const kl_function *f);
/* How often the function assigns `v` (or takes its address), and the for
 * statement that declares it as its counter (NULL: none); false when the
 * facts are incomplete. */
/* A non-negative integer constant (up to 2^40), converted or not. */
bool kb_constant_of(const kl_node *n, int64_t *value);
bool kb_variable_fact(bounds *b, const kl_variable *v, int *assigned, const kl_node **loop);

/* bounds_proof.c: the kernel's proof at launch (kl_check_proof). */
void kb_proof_begin(bounds *b);
/* The access of `bytes` at `where` joins the proof, or makes it `never`. */
void kb_prove(bounds *b, const place *where, int bytes, kl_location at);
void kb_proof_never(bounds *b, kl_location at, const char *why);
/* Conditions that hold inside an if's then branch (negated: after
 * `if (c) return;`, in the rest of its block): pushed, and dropped again
 * by restoring the count kb_guards_mark gave. */
int kb_guards_mark(const bounds *b);
void kb_guard_condition(bounds *b, const kl_node *condition, bool negated);
void kb_guards_restore(bounds *b, int mark);

#endif /* AGPU_KL_BOUNDS_INTERNAL_H */
