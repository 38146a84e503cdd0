// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's streaming stores (emit_c.c plans them, and
 * emit_c_regions.c calls kc_stream_region): in a kernel without barriers,
 *
 *   ...; P[gid] = value; ...
 *
 * with P a __global parameter that the kernel only stores to, at its global
 * id in dimension 0, in statements of the kernel's top level, the launch
 * writes every element of P[gid_first .. gid_last] once, contiguously, and
 * never reads it back. A large launch (its bytes over the last-level cache,
 * which the backend sets in kl_c_stream_bytes) then runs each row of a
 * group's work-items in chunks of KL_STREAM_CHUNK: the work-item loop
 * stores the values into a stack array (in L1, the loop vectorises as
 * before), and the chunk is copied to P with non-temporal (streaming) vector
 * stores, after a scalar head up to the vector's alignment. Streaming stores
 * skip the read of each line that an ordinary store's write-allocate costs
 * (a triad moves 32 bytes per element instead of 24). The run ends with a
 * store fence, so the stores are visible when the work-groups complete.
 *
 * The values are the same bytes, stored later: a work-item reads no memory
 * after its first streamed store (nothing it reads can alias what it
 * stored), and its streamed stores reach P in their statement order. Small
 * launches, and hosts without SSE2, keep the ordinary loop (the copy is
 * emitted too, chosen at run time). */
#include <stdint.h>
#include <string.h>

#include "emit_c_internal.h"

/* The index of the set's parameter that `assign` (`P[i] = value`) stores
 * to, with P a __global pointer parameter to an integer or floating scalar
 * (half and volatile excluded) and i the set's index (or the global id in
 * dimension 0); -1 otherwise. With `add`, P joins the set. */
static int kc_stream_target(kc_emitter *e, kc_stream_set *set, const kl_node *assign, bool add) {
  if (!assign || assign->kind != KL_EXPR_ASSIGN || assign->op != KL_OP_NONE) return -1;
  const kl_node *index = assign->lhs;
  if (!index || index->kind != KL_EXPR_INDEX || !index->lhs || index->lhs->kind != KL_EXPR_VARIABLE)
    return -1;
  kl_variable *param = index->lhs->variable;
  const kl_type *type = param ? param->type : NULL;
  if (!param || !param->is_parameter || !type || type->kind != KL_TYPE_POINTER ||
      type->pointee_space != KL_SPACE_GLOBAL || !type->element)
    return -1;
  const kl_type *element = type->element;
  bool scalar = kl_type_is_integer(element) || element->kind == KL_TYPE_FLOAT ||
                element->kind == KL_TYPE_DOUBLE;
  if (!scalar || (element->qualifiers & KL_QUALIFIER_VOLATILE) || element->size < 1 ||
      element->size > 8)
    return -1;
  kc_var *info = kc_var_of(e, param);
  if (!info || info->assigned || info->address_taken || param->address_taken) return -1;
  uint64_t max = UINT64_MAX;
  if (set->index) {
    const kl_node *i = kc_strip(index->rhs);
    if (!i || i->kind != KL_EXPR_VARIABLE || i->variable != set->index) return -1;
  } else if (!kc_is_global_id0(e, index->rhs, &max, 0)) {
    return -1;
  }
  int k = 0;
  while (k < set->count && set->params[k] != param) k++;
  if (k == set->count) {
    if (!add || set->count == KC_MAX_STREAMS) return -1;
    set->params[set->count++] = param;
  }
  if (max < set->id_max) set->id_max = max;
  return k;
}

/* kc_stream_target of a statement `P[i] = value;`. */
static int kc_stream_store(kc_emitter *e, kc_stream_set *set, const kl_node *stmt, bool add) {
  if (!stmt || stmt->kind != KL_STMT_EXPRESSION) return -1;
  return kc_stream_target(e, set, stmt->lhs, add);
}

/* Counts under `node` (a list when `chain`) the references to `param`, the
 * bytes of __global and __constant elements indexed, and whether anything
 * touches memory (an index, a dereference, `->`, a call, a builtin other
 * than the pure ones). */
typedef struct kc_stream_walk {
  const kl_variable *param;
  int references;
  int bytes;
  bool memory;
  bool too_deep;
} kc_stream_walk;

static kc_visit_step kc_stream_visit(const kl_node *node, void *context) {
  kc_stream_walk *w = context;
  if (node->kind == KL_EXPR_VARIABLE && node->variable == w->param) w->references++;
  if (node->kind == KL_EXPR_INDEX || node->kind == KL_EXPR_CALL ||
      (node->kind == KL_EXPR_UNARY && node->op == KL_OP_DEREFERENCE) ||
      (node->kind == KL_EXPR_MEMBER && node->is_arrow) ||
      (node->kind == KL_EXPR_BUILTIN && !kc_builtin_computes(node->builtin)))
    w->memory = true;
  if (node->kind == KL_EXPR_INDEX && node->lhs && node->lhs->type &&
      node->lhs->type->kind == KL_TYPE_POINTER &&
      (node->lhs->type->pointee_space == KL_SPACE_GLOBAL ||
       node->lhs->type->pointee_space == KL_SPACE_CONSTANT) &&
      node->type && node->type->size > 0)
    w->bytes += node->type->size;
  return KC_VISIT_INTO;
}

/* Scans `node` (the list it starts when `chain`) into `w`, 400 levels deep
 * at most. */
static void kc_stream_scan(kc_stream_walk *w, const kl_node *node, bool chain) {
  bool whole = chain ? kc_visit_list(node, 400, kc_stream_visit, w)
                     : kc_visit(node, 400, kc_stream_visit, w);
  if (!whole) w->too_deep = true;
}

enum { KC_STREAM_ITEMS = 256 };

/* Whether the statements `items` keep the streamed stores exact: after the
 * first, nothing touches memory but streamed stores whose values do not,
 * and the stores of one parameter come together (so the copies, in
 * parameter order, keep the last store). */
static bool kc_stream_order_ok(kc_emitter *e, kc_stream_set *set, const kl_node *const *items,
                               int n) {
  int current = -1;
  for (int i = 0; i < n; i++) {
    const kl_node *stmt = items[i];
    int k = kc_stream_store(e, set, stmt, false);
    if (k >= 0) {
      if (current >= 0) {
        kc_stream_walk w = {.param = NULL};
        kc_stream_scan(&w, stmt->lhs->rhs, false);
        if (w.memory || w.too_deep || k < current) return false;
      }
      current = k;
      continue;
    }
    if (current < 0) continue;
    kc_stream_walk w = {.param = NULL};
    kc_stream_scan(&w, stmt, false);
    if (w.memory || w.too_deep) return false;
  }
  return current >= 0;
}

/* The set of the stores among `items` whose parameters the whole kernel
 * `body` uses in those stores only; false (an empty set) when there is none
 * or the order does not keep them exact. */
static bool kc_stream_collect(kc_emitter *e, kc_stream_set *set, const kl_node *const *items, int n,
                              const kl_node *body) {
  int stores[KC_MAX_STREAMS] = {0};
  for (int i = 0; i < n; i++) {
    int k = kc_stream_store(e, set, items[i], true);
    if (k >= 0) stores[k]++;
  }
  for (int k = 0; k < set->count; k++) {
    kc_stream_walk w = {.param = set->params[k]};
    kc_stream_scan(&w, body, true);
    if (w.too_deep || w.references != stores[k]) set->count = 0;
  }
  if (set->count && !kc_stream_order_ok(e, set, items, n)) set->count = 0;
  return set->count > 0;
}

static const kl_node *kc_stream_list(const kl_node *node) {
  return node && node->kind == KL_STMT_COMPOUND ? node->body : node;
}

/* The statements of `list` into `items`; with `guards`, the statements of
 * an `if (gid < bound) S` (no else; constant in the copy of the region
 * for the groups whose ids are all below the bound, emit_c_regions.c) in
 * place of the `if`, *guarded set. -1 when there are too many. */
static int kc_stream_items(kc_emitter *e, const kl_node *list, bool guards, const kl_node **items,
                           bool *guarded) {
  int n = 0;
  for (const kl_node *stmt = list; stmt; stmt = stmt->next) {
    if (guards && stmt->kind == KL_STMT_IF && !stmt->otherwise && stmt->then &&
        kc_gid_guard(e, stmt->condition)) {
      *guarded = true;
      for (const kl_node *s = kc_stream_list(stmt->then); s; s = s->next) {
        if (n == KC_STREAM_ITEMS) return -1;
        items[n++] = s;
        if (stmt->then->kind != KL_STMT_COMPOUND) break;
      }
      continue;
    }
    if (n == KC_STREAM_ITEMS) return -1;
    items[n++] = stmt;
  }
  return n;
}

static void kc_stream_helpers(kc_emitter *e);

void kc_stream_plan(kc_emitter *e, const kl_function *fn) {
  e->stream = (kc_stream_set){.id_max = UINT64_MAX};
  e->stream_first = NULL;
  e->stream_fence = false;
  e->stream_guarded = false;
  e->stream_redirect = NULL;
  if (e->barrier_mode || e->has_return || !fn->body) return;
  const kl_node *body = kc_stream_list(fn->body);
  const kl_node *items[KC_STREAM_ITEMS];
  bool guarded = false;
  int n = kc_stream_items(e, body, true, items, &guarded);
  if (n < 0 || !kc_stream_collect(e, &e->stream, items, n, body)) return;
  kc_stream_walk w = {.param = NULL};
  kc_stream_scan(&w, body, true);
  e->stream_item_bytes = w.bytes > 0 ? w.bytes : 1;
  e->stream_first = body;
  e->stream_guarded = guarded;
  kc_stream_helpers(e);
}

static void kc_stream_helpers(kc_emitter *e) {
  if (!kc_helper_new(e, "kl_stream_")) return;
  klg_puts(&e->helpers,
           "#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && "
           "(defined(__GNUC__) || defined(__clang__))\n"
           "#define KL_STREAM 1\n"
           "#if defined(__AVX512F__)\n#define KL_STREAM_BYTES 64\n"
           "#elif defined(__AVX__)\n#define KL_STREAM_BYTES 32\n"
           "#else\n#define KL_STREAM_BYTES 16\n#endif\n"
           "typedef long long kl_sv_ __attribute__((vector_size(KL_STREAM_BYTES)));\n"
           "#if defined(__clang__)\n"
           "#define KL_NT_STORE_(p, v) __builtin_nontemporal_store((v), (kl_sv_ *)(p))\n"
           "#elif KL_STREAM_BYTES == 64\n"
           "#define KL_NT_STORE_(p, v) __builtin_ia32_movntdq512((kl_sv_ *)(p), (v))\n"
           "#elif KL_STREAM_BYTES == 32\n"
           "#define KL_NT_STORE_(p, v) __builtin_ia32_movntdq256((kl_sv_ *)(p), (v))\n"
           "#else\n"
           "#define KL_NT_STORE_(p, v) __builtin_ia32_movntdq((kl_sv_ *)(p), (v))\n"
           "#endif\n"
           "#define KL_STREAM_FENCE_() __builtin_ia32_sfence()\n"
           "#else\n"
           "#define KL_STREAM 0\n#define KL_STREAM_BYTES 16\n#define KL_STREAM_FENCE_() ((void)0)\n"
           "#endif\n"
           "#define KL_STREAM_CHUNK 256\n"
           "/* set by the backend when it loads the object: the launch bytes from\n"
           " * which stores stream (the last-level cache) */\n"
           "KL_EXPORT size_t kl_c_stream_bytes = (size_t)32 << 20;\n"
           "/* dst[0 .. bytes) = src[...]: whole aligned vectors with streaming stores */\n"
           "static void kl_stream_(void *dst, const void *src, size_t bytes) {\n"
           "  unsigned char *d = (unsigned char *)dst;\n"
           "  const unsigned char *s = (const unsigned char *)src;\n"
           "#if KL_STREAM\n"
           "  for (; bytes && ((uintptr_t)d & (KL_STREAM_BYTES - 1)); bytes--) *d++ = *s++;\n"
           "  for (; bytes >= KL_STREAM_BYTES; bytes -= KL_STREAM_BYTES, d += KL_STREAM_BYTES, "
           "s += KL_STREAM_BYTES) {\n"
           "    kl_sv_ v;\n"
           "    __builtin_memcpy(&v, s, sizeof v);\n"
           "    KL_NT_STORE_(d, v);\n"
           "  }\n"
           "#endif\n"
           "  if (bytes) __builtin_memcpy(d, s, bytes);\n"
           "}\n\n");
}

/* At the start of kl_run_<kernel>: whether this launch streams. */
void kc_stream_launch(kc_emitter *e) {
  if (!e->stream.count) return;
  klg_printf(e->out,
             "  const int __kl_stream = KL_STREAM && __gs0 * __gs1 * __gs2 >= kl_c_stream_bytes / "
             "%d && __go0 + __gs0 - 1 >= __go0 && __go0 + __gs0 - 1 <= (size_t)%lluull;\n",
             e->stream_item_bytes, (unsigned long long)e->stream.id_max);
}

/* At the end of kl_run_<kernel>: the streamed stores complete. */
void kc_stream_fence(kc_emitter *e) {
  if (e->stream.count)
    klg_puts(e->out, "  if (__kl_stream) KL_STREAM_FENCE_();\n");
  else if (e->stream_fence)
    klg_puts(e->out, "  KL_STREAM_FENCE_();\n");
}

/* A store of the set being redirected: to its stack array. */
bool kc_stream_assign(kc_emitter *e, const kl_node *node) {
  if (!e->stream_redirect || e->analyzing) return false;
  int k = kc_stream_target(e, (kc_stream_set *)e->stream_redirect, node, false);
  if (k < 0) return false;
  klg_printf(e->out, "(__st%d[%s] = ", k, e->stream_slot);
  kc_expr(e, node->rhs);
  klg_puts(e->out, ")");
  return true;
}

static void kc_stream_arrays(kc_emitter *e, const kc_stream_set *set) {
  for (int k = 0; k < set->count; k++) {
    kc_indent(e);
    klg_printf(e->out, "%s __st%d[KL_STREAM_CHUNK] __attribute__((aligned(64)));\n",
               kc_type(e, kc_unqualified(e, set->params[k]->type->element)), k);
  }
}

static void kc_stream_copies(kc_emitter *e, const kc_stream_set *set, const char *base,
                             const char *count) {
  for (int k = 0; k < set->count; k++) {
    kc_indent(e);
    klg_printf(e->out, "kl_stream_(&%s[%s], __st%d, %s * sizeof *__st%d);\n",
               kc_var_name(e, set->params[k]), base, k, count, k);
  }
}

/* The region's work-items in chunks whose streamed stores go to stack
 * arrays, each copied out with streaming stores. */
static void kc_stream_chunks(kc_emitter *e, const kl_node *first, const kl_node *last) {
  klg_buf *o = e->out;
  kc_region_begin(e, ", streaming stores", false);
  kc_indent(e);
  klg_puts(o, "for (size_t __sx = 0; __sx < __ls0; __sx += KL_STREAM_CHUNK) {\n");
  e->indent++;
  kc_indent(e);
  klg_puts(o,
           "const size_t __sn = __ls0 - __sx < KL_STREAM_CHUNK ? __ls0 - __sx : "
           "KL_STREAM_CHUNK;\n");
  kc_stream_arrays(e, &e->stream);
  kc_indent(e);
  klg_puts(o, "for (size_t __lx = __sx; __lx < __sx + __sn; __lx++) {\n");
  e->indent++;
  kc_region_item(e);
  e->stream_redirect = &e->stream;
  e->stream_slot = "__lx - __sx";
  for (const kl_node *s = first;; s = s->next) {
    kc_stmt(e, s);
    if (s == last) break;
  }
  e->stream_redirect = NULL;
  kc_close(e, "}\n");
  kc_stream_copies(e, &e->stream, "__gb0 + __sx", "__sn");
  kc_close(e, "}}\n");
  e->region = -1;
}

bool kc_stream_region(kc_emitter *e, const kl_node *first, const kl_node *last) {
  if (!e->stream.count || e->analyzing || e->failed || first != e->stream_first || last->next ||
      (e->stream_guarded && !e->gid_fast))
    return false;
  int region_count = e->region_count;
  kc_indent(e);
  klg_puts(e->out, "if (__kl_stream) {\n");
  e->indent++;
  kc_stream_chunks(e, first, last);
  kc_close(e, "} else {\n");
  e->indent++;
  e->region_count = region_count;
  kc_region_open(e);
  for (const kl_node *s = first;; s = s->next) {
    kc_stmt(e, s);
    if (s == last) break;
  }
  kc_region_close(e);
  kc_close(e, "}\n");
  return true;
}

bool kc_stream_gang_plan(kc_emitter *e, const kl_node *loop) {
  e->gang_stream = (kc_stream_set){.id_max = UINT64_MAX, .index = loop->init->variable};
  if (!e->function || !e->function->body) return false;
  const kl_node *items[KC_STREAM_ITEMS];
  bool guarded = false;
  const kl_node *list = kc_stream_list(loop->body);
  int n = kc_stream_items(e, list, false, items, &guarded);
  if (n < 0 || !kc_stream_collect(e, &e->gang_stream, items, n, kc_stream_list(e->function->body)))
    return false;
  kc_stream_walk w = {.param = NULL};
  kc_stream_scan(&w, list, true);
  kc_stream_helpers(e);
  e->stream_fence = true;
  kc_indent(e);
  klg_printf(e->out, "if (KL_STREAM && __gn >= (__int128)(kl_c_stream_bytes / %d)) {\n",
             w.bytes > 0 ? w.bytes : 1);
  e->indent++;
  return true;
}

void kc_stream_gang_open(kc_emitter *e) {
  kc_stream_arrays(e, &e->gang_stream);
  e->stream_redirect = &e->gang_stream;
  e->stream_slot = "__gl";
}

void kc_stream_gang_close(kc_emitter *e) {
  e->stream_redirect = NULL;
  kc_stream_copies(e, &e->gang_stream, "__gib", "__gw");
}
