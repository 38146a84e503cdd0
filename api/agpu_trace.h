// SPDX-License-Identifier: Apache-2.0
/* The timeline trace's hooks (api/trace.c, docs/debugging.md).
 *
 * Each traced call brackets its work with AGPU_TRACE_BEGIN and
 * AGPU_TRACE_END. With no trace running, each costs one relaxed atomic load
 * and a branch; the span then stays inactive and AGPU_TRACE_END does
 * nothing. While a trace runs, a span on a queue that has device timing
 * (launch, copy, fill) also records a backend event before the work and one
 * after it; the recorder turns the pair into device timestamps when the
 * queue is next finished, or when the trace stops. */
#ifndef AGPU_TRACE_H
#define AGPU_TRACE_H

#include <stdatomic.h>

#include "agpu_backend.h"

/* True while a trace is recording (trace.c). */
extern atomic_bool agpu_trace_on;

typedef enum agpu_trace_kind {
  AGPU_TRACE_LAUNCH,
  AGPU_TRACE_COPY,
  AGPU_TRACE_FILL,
  AGPU_TRACE_READ,
  AGPU_TRACE_WRITE,
  AGPU_TRACE_BUILD,
  AGPU_TRACE_FINISH,     /* agpu_queue_finish, and each queue of agpu_device_finish */
  AGPU_TRACE_EVENT_WAIT, /* agpu_event_wait */
} agpu_trace_kind;

/* One traced call in flight. */
typedef struct agpu_trace_span {
  bool active;
  uint64_t session;
  uint64_t host_start_ns;
  agpu_event *device_start; /* NULL: no device timing for this span */
} agpu_trace_span;

/* What the call was, for the trace entry. */
typedef struct agpu_trace_what {
  agpu_trace_kind kind;
  agpu_device *device;
  agpu_queue *queue; /* NULL: the device's own track (builds) */
  const char *name;  /* the kernel or the source; NULL: the kind's name */
  uint64_t bytes;
  uint32_t dims;
  const size_t *global, *local;
  /* a launch of a bounds-checked kernel: 1 checked, 2 proven in bounds and
   * run without checks (api/check_proof.c) */
  int bounds;
} agpu_trace_what;

void agpu_trace_begin_slow(agpu_trace_span *span, agpu_queue *timed_queue);
void agpu_trace_end_slow(agpu_trace_span *span, agpu_status status, const agpu_trace_what *what);

/* Starts a span; `timed_queue` (NULL: host time only) is the queue whose
 * device time the call's work takes. */
#define AGPU_TRACE_BEGIN(span, timed_queue)                                      \
  do {                                                                           \
    (span)->active = atomic_load_explicit(&agpu_trace_on, memory_order_relaxed); \
    if ((span)->active) agpu_trace_begin_slow((span), (timed_queue));            \
  } while (0)

/* Ends a span: the remaining arguments initialise an agpu_trace_what. */
#define AGPU_TRACE_END(span, status, ...)                                                       \
  do {                                                                                          \
    if ((span)->active) agpu_trace_end_slow((span), (status), &(agpu_trace_what){__VA_ARGS__}); \
  } while (0)

/* Reads ANYGPU_TRACE once, when the backends are loaded (registry.c). */
void agpu_trace_from_environment(void);

#endif /* AGPU_TRACE_H */
