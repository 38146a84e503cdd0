// SPDX-License-Identifier: Apache-2.0
/* Per-kernel isolation (issue 18) shared by the C, CUDA and HIP emitters:
 * a helper function the target cannot translate is left out of the output,
 * with every helper that calls it, directly or not, and only the kernels
 * that reach it are refused, each one naming the helper and the calls that
 * lead to it; a kernel the target cannot express is refused alone.
 *
 * The emitter prints the program in one pass into one buffer, marking where
 * each function's text (prototype or definition) starts; when it is done,
 * the text is put together without the functions that failed or reach one
 * that did. Private to the translator. */
#ifndef AGPU_EMIT_ISOLATE_H
#define AGPU_EMIT_ISOLATE_H

#include <stddef.h>

#include "translate.h"

typedef struct kl_isolation_segment {
  size_t start;
  const kl_function *function; /* NULL: text kept whatever fails */
} kl_isolation_segment;

typedef struct kl_isolation {
  kl_context *ctx;
  const char *target; /* "CUDA", "HIP", "C": for the messages */
  int count;          /* the program's functions */
  const kl_function **functions;
  int *slots;                  /* a hash of the functions' addresses to their index + 1 */
  int slot_count;              /* a power of two */
  const char **failed;         /* per function: what the emitter said of it; NULL: translated */
  const kl_function **blocked; /* per function: the callee that reaches a failed function
                                  (itself when it failed); NULL: none */
  signed char *state;          /* per function: 0 not looked at, 1 being looked at, 2 known */
  kl_isolation_segment *segments;
  int segment_count, segment_capacity;
} kl_isolation;

void kl_isolation_init(kl_isolation *iso, kl_context *ctx, const kl_program *program,
                       const char *target);

/* Function f's text (NULL: text kept whatever fails) starts at `start`. */
void kl_isolation_segment_at(kl_isolation *iso, const kl_function *f, size_t start);

/* The emitter failed on f (a helper or a kernel): what it said since
 * diagnostic `mark`. */
void kl_isolation_fail(kl_isolation *iso, const kl_function *f, int mark);

/* Whether f itself failed. */
bool kl_isolation_failed(const kl_isolation *iso, const kl_function *f);

/* Whether f failed or calls, directly or not, a function that did; asked
 * once every function has been emitted (the answer is kept). */
bool kl_isolation_blocked(kl_isolation *iso, const kl_function *f);

/* Lists every kernel that kl_isolation_blocked in *refused, in program
 * order: one that failed with what the emitter said of it, one that calls a
 * failed helper with an error at the kernel that names the helper and the
 * calls that reach it, then the helper's own errors. */
void kl_isolation_refuse_kernels(kl_isolation *iso, kl_refused_kernel **refused);

/* The `length` bytes of `text` without the segments of blocked functions
 * (in the context's arena); *kept_length its length. */
const char *kl_isolation_text(kl_isolation *iso, const char *text, size_t length,
                              size_t *kept_length);

#endif /* AGPU_EMIT_ISOLATE_H */
