// SPDX-License-Identifier: Apache-2.0
/* Per-kernel isolation of helper functions (emit_isolate.h). */
#include <stdint.h>
#include <string.h>

#include "emit_isolate.h"

static size_t kl_isolation_hash(const kl_function *f, int slot_count) {
  uintptr_t key = (uintptr_t)f;
  return (size_t)((key >> 4) * 0x9e3779b97f4a7c15ull >> 17) & (size_t)(slot_count - 1);
}

static int kl_isolation_index(const kl_isolation *iso, const kl_function *f) {
  for (size_t s = kl_isolation_hash(f, iso->slot_count);; s = (s + 1) & (iso->slot_count - 1)) {
    int i = iso->slots[s] - 1;
    if (i < 0) return -1;
    if (iso->functions[i] == f) return i;
  }
}

void kl_isolation_init(kl_isolation *iso, kl_context *ctx, const kl_program *program,
                       const char *target) {
  *iso = (kl_isolation){.ctx = ctx, .target = target, .slot_count = 16};
  for (const kl_function *f = program->functions; f; f = f->next) iso->count++;
  while (iso->slot_count < 2 * iso->count) iso->slot_count *= 2;
  size_t n = (size_t)iso->count + 1;
  iso->functions = kl_alloc(ctx, n * sizeof *iso->functions);
  iso->failed = kl_alloc(ctx, n * sizeof *iso->failed);
  iso->blocked = kl_alloc(ctx, n * sizeof *iso->blocked);
  iso->state = kl_alloc(ctx, n);
  iso->slots = kl_alloc(ctx, (size_t)iso->slot_count * sizeof *iso->slots);
  /* a prototype and a definition each, and the text between */
  iso->segment_capacity = 2 * iso->count + 8;
  iso->segments = kl_alloc(ctx, (size_t)iso->segment_capacity * sizeof *iso->segments);
  int i = 0;
  for (const kl_function *f = program->functions; f; f = f->next, i++) {
    iso->functions[i] = f;
    size_t s = kl_isolation_hash(f, iso->slot_count);
    while (iso->slots[s]) s = (s + 1) & (size_t)(iso->slot_count - 1);
    iso->slots[s] = i + 1;
  }
}

void kl_isolation_segment_at(kl_isolation *iso, const kl_function *f, size_t start) {
  if (iso->segment_count == iso->segment_capacity) {
    int capacity = 2 * iso->segment_capacity;
    kl_isolation_segment *grown = kl_alloc(iso->ctx, (size_t)capacity * sizeof *grown);
    memcpy(grown, iso->segments, (size_t)iso->segment_count * sizeof *grown);
    iso->segments = grown;
    iso->segment_capacity = capacity;
  }
  iso->segments[iso->segment_count++] = (kl_isolation_segment){start, f};
}

void kl_isolation_fail(kl_isolation *iso, const kl_function *f, int mark) {
  int i = kl_isolation_index(iso, f);
  if (i >= 0 && !iso->failed[i]) iso->failed[i] = kl_diagnostics_text_from(iso->ctx, mark);
}

bool kl_isolation_failed(const kl_isolation *iso, const kl_function *f) {
  int i = kl_isolation_index(iso, f);
  return i >= 0 && iso->failed[i] != NULL;
}

/* The front end refused recursion and call chains deeper than 10000, so
 * this walk ends; state 1 guards it all the same. */
bool kl_isolation_blocked(kl_isolation *iso, const kl_function *f) {
  int i = kl_isolation_index(iso, f);
  if (i < 0) return false;
  if (iso->state[i]) return iso->blocked[i] != NULL;
  iso->state[i] = 1;
  if (iso->failed[i]) iso->blocked[i] = f;
  for (int c = 0; c < f->callee_count && !iso->blocked[i]; c++)
    if (kl_isolation_blocked(iso, f->callees[c])) iso->blocked[i] = f->callees[c];
  iso->state[i] = 2;
  return iso->blocked[i] != NULL;
}

static void kl_refused_append(kl_context *ctx, kl_refused_kernel **refused, const char *name,
                              const char *diagnostics) {
  kl_refused_kernel *refusal = kl_alloc(ctx, sizeof *refusal);
  refusal->name = name;
  refusal->diagnostics = diagnostics;
  while (*refused) refused = &(*refused)->next;
  *refused = refusal;
}

/* A kernel that calls a failed helper: an error at the kernel naming the
 * calls down to it ("'outer', which calls 'inner'"), then the helper's. */
static void kl_isolation_refuse_caller(kl_isolation *iso, const kl_function *kernel, int index,
                                       kl_refused_kernel **refused) {
  const kl_function *step = iso->blocked[index];
  const char *chain = kl_format(iso->ctx, "'%s'", step->name);
  int at = kl_isolation_index(iso, step);
  while (at >= 0 && iso->blocked[at] && iso->blocked[at] != step) {
    step = iso->blocked[at];
    chain = kl_format(iso->ctx, "%s, which calls '%s'", chain, step->name);
    at = kl_isolation_index(iso, step);
  }
  int mark = kl_diagnostic_count(iso->ctx);
  kl_error(iso->ctx, kernel->location,
           "kernel '%s' calls %s, which the %s target cannot translate: the kernel is left out",
           kernel->name, chain, iso->target);
  const char *own = kl_diagnostics_text_from(iso->ctx, mark);
  const char *why = at >= 0 && iso->failed[at] ? iso->failed[at] : "";
  kl_refused_append(iso->ctx, refused, kernel->name, kl_format(iso->ctx, "%s%s", own, why));
}

void kl_isolation_refuse_kernels(kl_isolation *iso, kl_refused_kernel **refused) {
  for (int i = 0; i < iso->count; i++) {
    const kl_function *f = iso->functions[i];
    if (!f->is_kernel || !f->body || !kl_isolation_blocked(iso, f)) continue;
    if (iso->blocked[i] == f)
      kl_refused_append(iso->ctx, refused, f->name, iso->failed[i]);
    else
      kl_isolation_refuse_caller(iso, f, i, refused);
  }
}

const char *kl_isolation_text(kl_isolation *iso, const char *text, size_t length,
                              size_t *kept_length) {
  char *kept = kl_alloc(iso->ctx, length + 1);
  size_t used = 0;
  if (!iso->segment_count || iso->segments[0].start > 0) {
    size_t first = iso->segment_count ? iso->segments[0].start : length;
    memcpy(kept, text, first);
    used = first;
  }
  for (int s = 0; s < iso->segment_count; s++) {
    const kl_isolation_segment *segment = &iso->segments[s];
    size_t end = s + 1 < iso->segment_count ? iso->segments[s + 1].start : length;
    if (segment->function && kl_isolation_blocked(iso, segment->function)) continue;
    memcpy(kept + used, text + segment->start, end - segment->start);
    used += end - segment->start;
  }
  kept[used] = '\0';
  *kept_length = used;
  return kept;
}
