// SPDX-License-Identifier: Apache-2.0
/* Private to the host-C emitter (emit_c.c, emit_c_builtins.c). */
#ifndef AGPU_EMIT_C_INTERNAL_H
#define AGPU_EMIT_C_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>

#include "builtins.h"
#include "kl.h"
#include "gpu_emit.h"
#include "text.h"

typedef enum kc_var_class {
  KC_VAR_PLAIN,        /* an ordinary C local */
  KC_VAR_ARRAY,        /* one copy per work-item: name[__li] */
  KC_VAR_REMAT,        /* recomputed at the start of each region that uses it */
  KC_VAR_GROUP,        /* one scalar per work-group (uniform) */
  KC_VAR_LOCAL_STATIC, /* a __local variable: a pointer into scratch */
  KC_VAR_PARAM,        /* a kernel parameter read once per launch */
} kc_var_class;

typedef struct kc_var {
  kl_variable *var;
  kc_var_class cls;
  bool known;
  int decl_region; /* -1: at group level, -2: parameter, -3: not seen */
  int *regions;    /* regions it is used in */
  int region_count, region_capacity;
  bool used_at_group;
  bool assigned; /* assigned other than by its initializer */
  bool assigned_in_region;
  int *assign_regions; /* regions it is assigned in (other than by its initializer) */
  int assign_region_count, assign_region_capacity;
  bool address_taken;
  int param_index;
} kc_var;

enum { KC_MAX_STREAMS = 4 };

/* The __global parameters whose stores stream (emit_c_stream.c): stored to
 * only at `index` (NULL: the global id in dimension 0), exact while the ids
 * stay at most id_max. */
typedef struct kc_stream_set {
  kl_variable *params[KC_MAX_STREAMS];
  int count;
  uint64_t id_max;
  const kl_variable *index;
} kc_stream_set;

typedef struct kc_emitter {
  kl_context *ctx;
  const kl_program *program;
  klg_buf *out; /* where text goes now */
  /* the expressions C-syntax targets share (gpu_emit.h); its `out` is set
   * to `out` before each use */
  klg_c_printer printer;
  klg_buf helpers; /* generated builtin helpers, before the kernels */
  char **helper_names;
  int helper_count, helper_capacity;
  bool failed;
  bool analyzing;   /* the first pass: records variable uses, output discarded */
  bool static_init; /* a program-scope initializer: constant expressions only */
  /* the function being emitted */
  const kl_function *function;
  bool in_kernel;
  bool barrier_mode;
  kc_var **vars; /* by variable id */
  int var_capacity;
  int region; /* the current region, -1 at group level */
  int region_count;
  int region_label;
  int loop_depth;      /* loops opened inside the current region */
  int breakable_depth; /* loops and switches opened inside the current region */
  int group_loop_depth;
  /* __ret[li] per work-item: 0 active, KC_RETURNED after a return, 1..254
   * masked by the divergent `if` with barriers of that depth (mask_depth) */
  bool has_return;
  int mask_depth;
  bool uses_calls;
  int indent;
  int temp_counter;
  int next_variable_id; /* for the variables of inlined helpers (emit_c_inline.c) */
  /* a region that is one `if (get_local_id(0) < U)` or `== U` with U uniform:
   * its work-item loop runs over the items that pass only */
  int bound_kind; /* 0 none, 1 less than, 2 equal */
  const kl_node *bound;
  /* a region whose comparisons `get_global_id(0) < U` (U uniform) hold for
   * every work-item of a full group is emitted twice: a copy for such groups
   * with those comparisons constant (no masked loads, so gcc vectorises it
   * plainly), and the general copy for the others */
  const kl_node *gid_cmp[4];
  bool gid_cmp_value[4], gid_cmp_left[4];
  uint64_t gid_cmp_max[4]; /* ids up to this are exact after the conversions */
  int gid_cmp_count;
  bool gid_fast; /* emitting the copy with the comparisons constant */
  /* the kernel's bounds-check report at its end, deferred to the end of
   * each group (emit_c_report.c); NULL when none */
  const kl_node *deferred_report;
  /* emitting a region's copy for groups where every bounds check's `fits`
   * condition holds (emit_c_regions.c): they print as 1 */
  bool fits_fast;
  /* streaming stores (emit_c_stream.c): those of the kernel's top level
   * (a kernel without barriers) and those of a gang's loop body; the bytes
   * a work-item moves (its stores and loads of __global and __constant
   * elements); the kernel's first statement; whether the run ends with a
   * fence; while a lane loop is emitted, the set whose stores go to the
   * stack arrays at index `stream_slot` */
  kc_stream_set stream, gang_stream;
  int stream_item_bytes;
  const kl_node *stream_first;
  bool stream_fence;
  bool stream_guarded; /* some of the kernel's stores are under `if (gid < bound)` */
  const kc_stream_set *stream_redirect;
  const char *stream_slot;
} kc_emitter;

void kc_error(kc_emitter *e, kl_location at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void kc_expr(kc_emitter *e, const kl_node *node);
/* The C spelling of a type, with `inner` as the declarator ("" for a cast). */
const char *kc_decl(kc_emitter *e, const kl_type *type, const char *inner);
const char *kc_type(kc_emitter *e, const kl_type *type);
const char *kc_scalar_name(kl_type_kind kind);
/* Emits a builtin call. */
void kc_builtin(kc_emitter *e, const kl_node *node);
/* A builtin that only computes from its arguments or reads the ids. */
bool kc_builtin_computes(const kl_builtin *b);
/* Defines a helper once; true when `name` was new (then the caller writes
 * its text into e->helpers). */
bool kc_helper_new(kc_emitter *e, const char *name);
/* A work-item id in the current context (region loop or helper). */
void kc_work_item(kc_emitter *e, kl_builtin_id id, const kl_node *dim);
bool kc_node_int(const kl_node *node, int64_t *value);

/* emit_c_inline.c: a helper function with a barrier, itself or in a callee
 * (inlined into kernels, not emitted as a C function). */
bool kc_barrier_helper(const kl_function *fn);
/* The kernel with the calls of such helpers inlined where they are
 * statements, initializers or right-hand sides (a copy; the original is
 * unchanged), or the kernel itself when it has none. */
const kl_function *kc_inline_barrier_helpers(kc_emitter *e, const kl_function *kernel);

/* Shared by the emitter's files: emit_c.c (types, variables, the facts of a
 * subtree, functions and kernels), emit_c_expr.c, emit_c_stmt.c and
 * emit_c_regions.c. */
const kl_type *kc_unqualified(kc_emitter *e, const kl_type *type);
bool kc_is_vector(const kl_type *type);
bool kc_is_barrier(const kl_node *node);
bool kc_is_barrier_statement(const kl_node *stmt);
bool kc_has_barrier(const kl_node *node);
const kl_node *kc_barrier_call(const kl_node *node, int depth);
/* emit_c_visit.c: what a visitor tells the walk after seeing a node: go
 * into its children, pass over them, or end the walk. */
typedef enum kc_visit_step { KC_VISIT_INTO, KC_VISIT_OVER, KC_VISIT_STOP } kc_visit_step;
typedef kc_visit_step (*kc_visitor)(const kl_node *node, void *context);
/* Walks `node` and the tree under it, every node before its children (its
 * operands and branches, its init, body and args lists, a declaration's
 * initializer), down to max_depth levels below it; false when a deeper
 * node was passed over (the walk goes on beside it). kc_visit_list walks
 * each item of the list `first` so. */
bool kc_visit(const kl_node *node, int max_depth, kc_visitor visit, void *context);
bool kc_visit_list(const kl_node *first, int max_depth, kc_visitor visit, void *context);
/* The first node of a tree that `match` accepts, or NULL (emit_c.c). */
const kl_node *kc_find(const kl_node *node, int depth, bool (*match)(const kl_node *node));
bool kc_has_escape(const kl_node *node, bool in_loop, bool in_switch, int depth);
/* An `if` with a barrier inside whose work-items may take different paths
 * (check.c's fact): run with masks (emit_c_regions.c). */
/* `node` without its widening integer conversions and casts. */
const kl_node *kc_strip(const kl_node *node);
bool kc_is_divergent_barrier_if(const kl_node *node);
/* A loop with barriers and a condition that may differ between the
 * work-items, none of whose break or continue leaves it: masked too. */
bool kc_is_divergent_barrier_loop(const kl_node *node);
bool kc_is_masked(const kl_node *node); /* either */
enum { KC_RETURNED = 255, KC_MAX_MASK_DEPTH = 254 };
bool kc_has_return(const kl_node *node, int depth);
kc_var *kc_var_of(kc_emitter *e, kl_variable *var);
bool kc_region_set_has(const int *set, int count, int region);
void kc_var_use(kc_emitter *e, kl_variable *var);
bool kc_var_in_region(const kc_var *info, int region);
kl_variable *kc_root(const kl_node *node);
void kc_note_assign(kc_emitter *e, const kl_node *lhs);
const char *kc_var_name(kc_emitter *e, const kl_variable *var);
bool kc_pure(kc_emitter *e, const kl_node *node, int depth);
bool kc_uniform(kc_emitter *e, const kl_node *node, int depth);
void kc_indent(kc_emitter *e);
/* One level out, then `text` there ("}\n", "} else {\n"). */
void kc_close(kc_emitter *e, const char *text);
void kc_initializer(kc_emitter *e, const kl_node *init);
void kc_stmt(kc_emitter *e, const kl_node *node);
void kc_group_list(kc_emitter *e, const kl_node *first, bool single);
/* emit_c_regions.c: one work-item's start of the current region (__li, the
 * values recomputed per region, ...) inside a loop that defines __lx. */
void kc_region_item(kc_emitter *e);
/* emit_c_gang.c: emits the region `first` .. `last` with its work-items in
 * gangs of SIMD lanes when it holds a grid-stride loop it can run so; false
 * (nothing emitted) otherwise. */
bool kc_gang_region(kc_emitter *e, const kl_node *first, const kl_node *last);
/* emit_c_regions.c: a region opened up to its loop over x (`note` after
 * its number in the comment that starts it; the y loop opens a block when
 * `y_block`). */
void kc_region_begin(kc_emitter *e, const char *note, bool y_block);
/* emit_c_regions.c: a region's work-item loop opened and closed, and the
 * global id in dimension 0 through integer conversions (exact while the
 * ids stay at most *max). */
void kc_region_open(kc_emitter *e);
void kc_region_close(kc_emitter *e);
bool kc_is_global_id0(kc_emitter *e, const kl_node *node, uint64_t *max, int depth);
/* `if (condition)` with condition a comparison of the global id in dimension
 * 0 with a group-visible bound that holds for every work-item of a group whose
 * ids are all below the bound (`gid < n`, `n > gid`): constant there. */
bool kc_gid_guard(kc_emitter *e, const kl_node *condition);
/* emit_c_stream.c: streaming stores. kc_stream_plan after the kernel's
 * analysis; kc_stream_launch and kc_stream_fence at the start and the end
 * of its run function; kc_stream_region emits the region `first` .. `last`
 * with its streamed stores (and the ordinary copy for small launches), or
 * returns false (nothing emitted). */
void kc_stream_plan(kc_emitter *e, const kl_function *fn);
void kc_stream_launch(kc_emitter *e);
void kc_stream_fence(kc_emitter *e);
bool kc_stream_region(kc_emitter *e, const kl_node *first, const kl_node *last);
/* A gang's loop (emit_c_gang.c): kc_stream_gang_plan says whether its body
 * streams (with the launch-size test opened as `if (...) {`);
 * kc_stream_gang_open and _close go around the lane loop of a full step
 * whose base is __gib; kc_stream_assign emits a redirected store. */
bool kc_stream_gang_plan(kc_emitter *e, const kl_node *loop);
void kc_stream_gang_open(kc_emitter *e);
void kc_stream_gang_close(kc_emitter *e);
bool kc_stream_assign(kc_emitter *e, const kl_node *node);

/* emit_c_report.c: the bounds-check report a kernel ends with, made per
 * group: found before the analysis, its notes stored per work-item (true:
 * `node` was it), the arrays' bytes and set-up, and the group's report. */
void kc_report_find(kc_emitter *e, const kl_function *fn);
bool kc_report_stmt(kc_emitter *e, const kl_node *node);
void kc_report_private_size(kc_emitter *e, klg_buf *o);
void kc_report_arrays(kc_emitter *e, klg_buf *o);
void kc_report_group_end(kc_emitter *e, klg_buf *o);

/* emit_c_builtins.c and emit_c_formulas.c: element kinds and the scalar
 * formula of a builtin. */
const char *kc_unsigned_name(kl_type_kind kind);
bool kc_signed_kind(kl_type_kind kind);
bool kc_float_kind(kl_type_kind kind);
const char *kc_min_of(kl_type_kind kind);
const char *kc_max_of(kl_type_kind kind);
const char *kc_formula(kc_emitter *e, const kl_node *call, kl_type_kind k, kl_type_kind result);

#endif
