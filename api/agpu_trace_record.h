// SPDX-License-Identifier: Apache-2.0
/* The trace recorder's state, shared by api/trace.c (the spans and device
 * timestamps) and api/trace_file.c (start, stop and the JSON file). */
#ifndef AGPU_TRACE_RECORD_H
#define AGPU_TRACE_RECORD_H

#include <stdio.h>
#include <sys/types.h>

#include "agpu_trace.h"

/* Past this many entries a trace counts what it drops (about 230 bytes
 * each: at most about 120 MB). */
#define AGPU_TRACE_MAX_ENTRIES (1u << 19)
/* A queue with this many device spans not yet resolved (no finish or read
 * since) records no more until one comes; those are counted. */
#define AGPU_TRACE_MAX_PENDING 4096

enum {
  AGPU_TRACE_ENTRY_DEVICE = 1u << 0,  /* on the queue's device track */
  AGPU_TRACE_ENTRY_CHECKED = 1u << 1, /* a bounds-checked launch */
  AGPU_TRACE_ENTRY_PROVEN = 1u << 2,  /* one proven in bounds: run without checks */
  AGPU_TRACE_ENTRY_TIMED = 1u << 1,   /* device times resolved */
};

typedef struct agpu_trace_entry {
  uint8_t kind; /* agpu_trace_kind */
  uint8_t flags;
  uint8_t dims;
  int32_t status;
  uint32_t pid, tid;
  uint64_t ts_ns, dur_ns; /* CLOCK_MONOTONIC */
  uint64_t host_ns;       /* when the call began, for a device span too */
  uint32_t queue_slot;    /* a device span's queue: its index in agpu_tracer.queues */
  uint64_t bytes;
  uint64_t global[3], local[3];
  char name[128];
} agpu_trace_entry;

/* A device span waiting for its times: the events around the work. */
typedef struct agpu_trace_pending {
  agpu_event *start, *end;
  uint64_t end_ns; /* host time just after `end` was recorded */
  agpu_trace_entry entry;
} agpu_trace_pending;

typedef struct agpu_trace_device {
  agpu_device *device;
  uint32_t pid;         /* its index + 1 */
  uint32_t queue_count; /* numbers its queues */
} agpu_trace_device;

typedef struct agpu_trace_queue {
  agpu_queue *queue;    /* referenced until the trace stops */
  const char *role;     /* " (default)", " (internal)" or "" */
  uint32_t pid, number; /* tracks: 2 * number - 1 host calls, 2 * number device time */
  uint32_t slot;        /* its index in agpu_tracer.queues */
  int timing;           /* 0 not asked yet, 1 device timestamps, -1 none */
  bool establishing;
  agpu_event *reference;
  uint64_t reference_ns;
  agpu_trace_pending *pending;
  size_t pending_count, pending_capacity;
} agpu_trace_queue;

typedef struct agpu_tracer {
  pthread_mutex_t lock;
  pthread_cond_t resolved; /* resolving dropped to 0 */
  FILE *file;              /* NULL: no trace running */
  char *path;
  pid_t owner; /* the process that started it: a forked child does not write it */
  uint64_t session;
  bool device_time; /* false: ANYGPU_TRACE_DEVICE_TIME=0, host timestamps only */
  uint64_t origin_ns;
  agpu_trace_entry *entries;
  size_t entry_count, entry_capacity;
  uint64_t dropped;
  uint64_t device_dropped; /* spans past AGPU_TRACE_MAX_PENDING: no device time */
  agpu_trace_device *devices;
  uint32_t device_count;
  agpu_trace_queue **queues;
  size_t queue_count;
  uint32_t resolving;
} agpu_tracer;

extern agpu_tracer agpu_the_tracer;

uint64_t agpu_trace_now_ns(void);
const char *agpu_trace_kind_name(uint32_t kind);
/* The stop's part in trace.c: resolves every pending pair of `tracer` (a
 * copy the stop owns), releases the events and the queue references; the
 * queue records stay (queue NULL) for the file's track names. Returns the
 * first failure to time a pair: it may be an error that the pairs' work
 * raised, which no wait of the user's reported yet. */
agpu_status agpu_trace_settle(agpu_tracer *tracer);

#endif /* AGPU_TRACE_RECORD_H */
