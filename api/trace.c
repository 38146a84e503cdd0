// SPDX-License-Identifier: Apache-2.0
/* The timeline trace (docs/debugging.md): a recorder of every build, copy,
 * fill, read, write, launch and wait, written in the Chrome trace event
 * format at agpu_trace_stop or at exit.
 *
 * One lock guards the recorder. Backend calls (the events that give device
 * timestamps) are made outside it: a span records its own events, and a
 * resolver detaches a queue's pending pairs under the lock, asks the
 * backend for their times without it, and appends the results under it
 * again. `resolving` counts resolvers, so that a stop can wait for them
 * before it releases the reference events they read. Every entry carries
 * the session it was begun in: a span that began before a stop (or before
 * a restart) is dropped, not written into the wrong trace. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agpu_core.h"
#include "agpu_trace_record.h"

atomic_bool agpu_trace_on;

agpu_tracer agpu_the_tracer = {.lock = PTHREAD_MUTEX_INITIALIZER,
                               .resolved = PTHREAD_COND_INITIALIZER};

uint64_t agpu_trace_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* ------------------------------------------------------------ events */

/* An event of the core's own (no handle) recorded on `queue`; NULL when the
 * backend could not record one. */
static agpu_event *agpu_trace_event_new(agpu_queue *queue) {
  agpu_event *event = calloc(1, sizeof *event);
  if (!event) return NULL;
  event->queue = queue;
  if (queue->device->backend->ops->event_record(event) != AGPU_SUCCESS) {
    free(event);
    return NULL;
  }
  return event;
}

static void agpu_trace_event_free(agpu_event *event) {
  if (!event) return;
  event->queue->device->backend->ops->event_release(event);
  free(event);
}

/* ------------------------------------------------------------ tables */

/* The device's track group (a Chrome "process"), added on first use;
 * its index + 1 is the pid. Under the lock. */
static agpu_trace_device *agpu_trace_device_of(agpu_device *device) {
  agpu_tracer *t = &agpu_the_tracer;
  for (uint32_t i = 0; i < t->device_count; i++)
    if (t->devices[i].device == device) return &t->devices[i];
  agpu_trace_device *grown = realloc(t->devices, (t->device_count + 1) * sizeof *grown);
  if (!grown) return NULL;
  t->devices = grown;
  agpu_trace_device *added = &grown[t->device_count++];
  *added = (agpu_trace_device){.device = device, .pid = t->device_count};
  return added;
}

/* The queue's record, added on first use with a reference to the queue
 * (so that no other queue takes its address while the trace runs). Under
 * the lock; NULL when out of memory. */
static agpu_trace_queue *agpu_trace_queue_of(agpu_queue *queue) {
  agpu_tracer *t = &agpu_the_tracer;
  for (size_t i = 0; i < t->queue_count; i++)
    if (t->queues[i]->queue == queue) return t->queues[i];
  agpu_trace_device *device = agpu_trace_device_of(queue->device);
  agpu_trace_queue **grown = realloc(t->queues, (t->queue_count + 1) * sizeof *grown);
  if (!grown || !device) return NULL;
  t->queues = grown;
  agpu_trace_queue *added = calloc(1, sizeof *added);
  if (!added) return NULL;
  added->queue = queue;
  added->role = queue->is_default ? " (default)" : queue->listed ? "" : " (internal)";
  added->pid = device->pid;
  added->slot = (uint32_t)t->queue_count;
  added->number = ++device->queue_count;
  atomic_fetch_add(&queue->references, 1);
  t->queues[t->queue_count++] = added;
  return added;
}

/* Appends an entry; counts it as dropped past AGPU_TRACE_MAX_ENTRIES or
 * when out of memory. Under the lock (or on the stop's own copy). */
static void agpu_trace_append(agpu_tracer *t, const agpu_trace_entry *entry) {
  if (t->entry_count == t->entry_capacity) {
    size_t capacity = t->entry_capacity ? t->entry_capacity * 2 : 1024;
    if (capacity > AGPU_TRACE_MAX_ENTRIES) capacity = AGPU_TRACE_MAX_ENTRIES;
    agpu_trace_entry *grown =
        capacity > t->entry_capacity ? realloc(t->entries, capacity * sizeof *grown) : NULL;
    if (!grown) {
      t->dropped++;
      return;
    }
    t->entries = grown;
    t->entry_capacity = capacity;
  }
  t->entries[t->entry_count++] = *entry;
}

/* ------------------------------------------------- device timestamps */

/* A queue's first timed span records a reference event, and the host time
 * just before stands for its device time: every later device time is placed
 * by its distance from it (the file then moves the queue's spans as little
 * as makes none start before its host call, trace_file.c). Nothing here
 * waits: a wait would take an error that earlier work raised, which the
 * user's own next wait must get (the CPU backend reports it once). */
static void agpu_trace_establish(agpu_queue *queue, uint64_t session) {
  uint64_t host = agpu_trace_now_ns();
  agpu_event *reference = agpu_trace_event_new(queue);
  bool timed = reference != NULL;
  agpu_tracer *t = &agpu_the_tracer;
  pthread_mutex_lock(&t->lock);
  agpu_trace_queue *record = t->session == session ? agpu_trace_queue_of(queue) : NULL;
  if (record) {
    record->establishing = false;
    record->timing = timed ? 1 : -1;
    if (timed) {
      record->reference = reference;
      record->reference_ns = host;
      reference = NULL;
    }
  }
  pthread_mutex_unlock(&t->lock);
  agpu_trace_event_free(reference);
}

/* Turns pending pairs into device entries (flagged TIMED) and releases
 * their events. Called without the lock, by a resolver counted in
 * t->resolving or by the stop, which owns them. Returns the first failure
 * (*timed counts the pairs timed): where the pairs' work was not waited
 * for, it may be an error that work raised. */
static agpu_status agpu_trace_time_pending(agpu_event *reference, uint64_t reference_ns,
                                           agpu_trace_pending *pending, size_t count,
                                           size_t *timed) {
  agpu_status first = AGPU_SUCCESS;
  *timed = 0;
  for (size_t i = 0; i < count; i++) {
    agpu_trace_pending *p = &pending[i];
    const agpu_backend_ops *ops = reference->queue->device->backend->ops;
    uint64_t offset = 0, duration = 0;
    agpu_status status = ops->event_elapsed_ns(reference, p->start, &offset);
    if (status == AGPU_SUCCESS) status = ops->event_elapsed_ns(p->start, p->end, &duration);
    if (status == AGPU_SUCCESS) {
      p->entry.ts_ns = reference_ns + offset;
      p->entry.dur_ns = duration;
      p->entry.flags |= AGPU_TRACE_ENTRY_TIMED;
      (*timed)++;
    } else if (first == AGPU_SUCCESS) {
      first = status;
    }
    agpu_trace_event_free(p->start);
    agpu_trace_event_free(p->end);
    p->start = p->end = NULL;
  }
  return first;
}

/* Resolves the pending pairs of `queue` whose end event was recorded
 * before `before_ns`: called after a wait that began then, so that their
 * work is done and its errors were the wait's to report. */
static void agpu_trace_resolve(agpu_queue *queue, uint64_t session, uint64_t before_ns) {
  agpu_tracer *t = &agpu_the_tracer;
  pthread_mutex_lock(&t->lock);
  agpu_trace_queue *record = t->session == session ? agpu_trace_queue_of(queue) : NULL;
  size_t count = 0;
  agpu_trace_pending *taken =
      record && record->pending_count ? malloc(record->pending_count * sizeof *taken) : NULL;
  if (!taken) {
    pthread_mutex_unlock(&t->lock);
    return;
  }
  size_t kept = 0;
  for (size_t i = 0; i < record->pending_count; i++) {
    if (record->pending[i].end_ns < before_ns)
      taken[count++] = record->pending[i];
    else
      record->pending[kept++] = record->pending[i];
  }
  record->pending_count = kept;
  agpu_event *reference = record->reference;
  uint64_t reference_ns = record->reference_ns;
  t->resolving++;
  pthread_mutex_unlock(&t->lock);

  size_t timed = 0;
  agpu_status status = agpu_trace_time_pending(reference, reference_ns, taken, count, &timed);

  pthread_mutex_lock(&t->lock);
  for (size_t i = 0; i < count && t->session == session; i++)
    if (taken[i].entry.flags & AGPU_TRACE_ENTRY_TIMED) agpu_trace_append(t, &taken[i].entry);
  /* A backend that gives no times (a Vulkan queue without timestamps)
   * gets no more events. */
  if (count && !timed && status == AGPU_ERROR_UNSUPPORTED && t->session == session)
    record->timing = -1;
  if (--t->resolving == 0) pthread_cond_broadcast(&t->resolved);
  pthread_mutex_unlock(&t->lock);
  free(taken);
}

/* Keeps a pair for later; false (the caller frees it) when out of memory,
 * counted. Under the lock. */
static bool agpu_trace_keep(agpu_tracer *t, agpu_trace_queue *record,
                            const agpu_trace_pending *pending) {
  if (record->pending_count == record->pending_capacity) {
    size_t capacity = record->pending_capacity ? record->pending_capacity * 2 : 64;
    agpu_trace_pending *grown = realloc(record->pending, capacity * sizeof *grown);
    if (!grown) {
      t->device_dropped++;
      return false;
    }
    record->pending = grown;
    record->pending_capacity = capacity;
  }
  record->pending[record->pending_count++] = *pending;
  return true;
}

/* ------------------------------------------------------------- spans */

void agpu_trace_begin_slow(agpu_trace_span *span, agpu_queue *timed_queue) {
  agpu_tracer *t = &agpu_the_tracer;
  span->device_start = NULL;
  pthread_mutex_lock(&t->lock);
  span->active = t->file != NULL;
  span->session = t->session;
  agpu_trace_queue *record = span->active && timed_queue ? agpu_trace_queue_of(timed_queue) : NULL;
  if (record && record->timing == 0 && !t->device_time) record->timing = -1;
  bool establish = record && record->timing == 0 && !record->establishing;
  if (establish) record->establishing = true;
  bool timed = record && (record->timing == 1 || establish);
  /* At the cap no events at all: freeing a pair unkept would wait for it
   * on Vulkan, a launch then waiting for its own work. */
  if (timed && record->pending_count >= AGPU_TRACE_MAX_PENDING) {
    t->device_dropped++;
    timed = false;
  }
  pthread_mutex_unlock(&t->lock);
  if (establish) agpu_trace_establish(timed_queue, span->session);
  /* The host time starts after the reference event, the trace's cost. */
  span->host_start_ns = agpu_trace_now_ns();
  if (timed && span->active) span->device_start = agpu_trace_event_new(timed_queue);
}

static const char *const agpu_trace_kind_names[] = {
    [AGPU_TRACE_LAUNCH] = "launch", [AGPU_TRACE_COPY] = "copy",
    [AGPU_TRACE_FILL] = "fill",     [AGPU_TRACE_READ] = "read",
    [AGPU_TRACE_WRITE] = "write",   [AGPU_TRACE_BUILD] = "build",
    [AGPU_TRACE_FINISH] = "finish", [AGPU_TRACE_EVENT_WAIT] = "event wait",
};

const char *agpu_trace_kind_name(uint32_t kind) {
  return kind < sizeof agpu_trace_kind_names / sizeof *agpu_trace_kind_names
             ? agpu_trace_kind_names[kind]
             : "call";
}

static void agpu_trace_fill_entry(agpu_trace_entry *entry, const agpu_trace_span *span,
                                  agpu_status status, const agpu_trace_what *what) {
  memset(entry, 0, sizeof *entry);
  entry->kind = (uint8_t)what->kind;
  entry->status = status;
  entry->ts_ns = span->host_start_ns;
  entry->dur_ns = agpu_trace_now_ns() - span->host_start_ns;
  entry->bytes = what->bytes;
  entry->dims = what->dims > 3 ? 3 : what->dims;
  if (what->bounds)
    entry->flags |= what->bounds == 2 ? AGPU_TRACE_ENTRY_PROVEN : AGPU_TRACE_ENTRY_CHECKED;
  for (uint32_t d = 0; d < entry->dims; d++) {
    entry->global[d] = what->global ? what->global[d] : 0;
    entry->local[d] = what->local ? what->local[d] : 0;
  }
  snprintf(entry->name, sizeof entry->name, "%s",
           what->name ? what->name : agpu_trace_kind_name(what->kind));
}

void agpu_trace_end_slow(agpu_trace_span *span, agpu_status status, const agpu_trace_what *what) {
  agpu_trace_entry entry;
  agpu_trace_fill_entry(&entry, span, status, what);
  agpu_trace_pending pending = {.start = span->device_start};
  if (pending.start && status == AGPU_SUCCESS) {
    pending.end = agpu_trace_event_new(what->queue);
    pending.end_ns = agpu_trace_now_ns(); /* after: a wait begun later covers it */
  }
  agpu_tracer *t = &agpu_the_tracer;
  pthread_mutex_lock(&t->lock);
  if (t->file && t->session == span->session) {
    agpu_trace_queue *record = what->queue ? agpu_trace_queue_of(what->queue) : NULL;
    agpu_trace_device *device = agpu_trace_device_of(what->device);
    entry.pid = device ? device->pid : 0;
    entry.host_ns = entry.ts_ns;
    entry.tid = record ? 2 * record->number - 1 : 0;
    agpu_trace_append(t, &entry);
    if (record && pending.end && record->timing == 1) {
      pending.entry = entry;
      pending.entry.flags |= AGPU_TRACE_ENTRY_DEVICE;
      pending.entry.tid = 2 * record->number;
      pending.entry.queue_slot = record->slot;
      if (agpu_trace_keep(t, record, &pending)) pending.start = pending.end = NULL;
    }
  }
  pthread_mutex_unlock(&t->lock);
  agpu_trace_event_free(pending.start);
  agpu_trace_event_free(pending.end);
  /* After a finish, and after a read (blocking, on an in-order queue), the
   * queue's earlier work is done: its pairs resolve without waiting. */
  if ((what->kind == AGPU_TRACE_FINISH || what->kind == AGPU_TRACE_READ) &&
      status == AGPU_SUCCESS && what->queue)
    agpu_trace_resolve(what->queue, span->session, span->host_start_ns);
}

agpu_status agpu_trace_settle(agpu_tracer *tracer) {
  agpu_status first = AGPU_SUCCESS;
  for (size_t q = 0; q < tracer->queue_count; q++) {
    agpu_trace_queue *record = tracer->queues[q];
    if (record->reference) {
      size_t timed = 0;
      agpu_status status = agpu_trace_time_pending(record->reference, record->reference_ns,
                                                   record->pending, record->pending_count, &timed);
      if (first == AGPU_SUCCESS && status != AGPU_ERROR_UNSUPPORTED) first = status;
      for (size_t i = 0; i < record->pending_count; i++)
        if (record->pending[i].entry.flags & AGPU_TRACE_ENTRY_TIMED)
          agpu_trace_append(tracer, &record->pending[i].entry);
      agpu_trace_event_free(record->reference);
    }
    free(record->pending);
    record->pending = NULL;
    record->pending_count = 0;
    agpu_queue_unreference(record->queue);
    record->queue = NULL; /* the record stays, for the track names */
  }
  return first;
}
