// SPDX-License-Identifier: Apache-2.0
/* The host-C emitter's walk over a tree (emit_c_internal.h, kc_visit): a
 * node, then its children, its lists (init, body, args) item by item and a
 * declaration's initializer, in that order, each a level deeper than the
 * node. The searches and scans of the emitter's files (kc_find, the bounds
 * checks' `fits`, the comparisons of the global id, the streamed stores)
 * all walk so. */
#include "emit_c_internal.h"

typedef struct kc_walker {
  kc_visitor visit;
  void *context;
  int max_depth;
  bool stopped;
  bool too_deep;
} kc_walker;

static void kc_walk(kc_walker *w, const kl_node *node, int depth) {
  if (!node || w->stopped) return;
  if (depth > w->max_depth) { /* inlined helpers deepen the parser's trees */
    w->too_deep = true;
    return;
  }
  kc_visit_step step = w->visit(node, w->context);
  if (step == KC_VISIT_STOP) w->stopped = true;
  if (step != KC_VISIT_INTO) return;
  const kl_node *children[] = {node->lhs,  node->rhs,       node->condition,
                               node->then, node->otherwise, node->increment};
  for (size_t i = 0; i < sizeof children / sizeof *children; i++)
    kc_walk(w, children[i], depth + 1);
  const kl_node *const lists[] = {node->init, node->body, node->args};
  for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
    for (const kl_node *item = lists[i]; item; item = item->next) kc_walk(w, item, depth + 1);
  if (node->kind == KL_STMT_DECLARATION && node->variable)
    kc_walk(w, node->variable->initializer, depth + 1);
}

bool kc_visit(const kl_node *node, int max_depth, kc_visitor visit, void *context) {
  kc_walker w = {.visit = visit, .context = context, .max_depth = max_depth};
  kc_walk(&w, node, 0);
  return !w.too_deep;
}

bool kc_visit_list(const kl_node *first, int max_depth, kc_visitor visit, void *context) {
  kc_walker w = {.visit = visit, .context = context, .max_depth = max_depth};
  for (const kl_node *item = first; item; item = item->next) kc_walk(&w, item, 0);
  return !w.too_deep;
}
