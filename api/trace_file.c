// SPDX-License-Identifier: Apache-2.0
/* Starting and stopping the timeline trace, ANYGPU_TRACE, and the file: the
 * Chrome trace event format's JSON object form ({"traceEvents": [...]}),
 * which chrome://tracing and Perfetto open (docs/debugging.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agpu_core.h"
#include "agpu_trace_record.h"

/* A JSON string of `text`, quoted and escaped. */
static void agpu_trace_json_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(out, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(out, "\\u%04x", *c);
    else
      fputc(*c, out);
  }
  fputc('"', out);
}

/* A metadata event ("M") naming or ordering a track. */
static void agpu_trace_metadata(FILE *out, const char *what, uint32_t pid, uint32_t tid,
                                const char *name, long sort_index) {
  fprintf(out, ",\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"ts\":0,\"args\":{", what,
          pid, tid);
  if (name) {
    fputs("\"name\":", out);
    agpu_trace_json_string(out, name);
  } else {
    fprintf(out, "\"sort_index\":%ld", sort_index);
  }
  fputs("}}", out);
}

/* One track group per device, and per queue a track of host calls and one
 * of device time. */
static void agpu_trace_write_tracks(FILE *out, const agpu_tracer *t) {
  char name[400];
  for (uint32_t d = 0; d < t->device_count; d++) {
    const agpu_device_info *info = &t->devices[d].device->info;
    snprintf(name, sizeof name, "%s (%s)", info->selector, info->name);
    agpu_trace_metadata(out, "process_name", t->devices[d].pid, 0, name, 0);
    agpu_trace_metadata(out, "process_sort_index", t->devices[d].pid, 0, NULL, d);
    agpu_trace_metadata(out, "thread_name", t->devices[d].pid, 0, "builds", 0);
  }
  for (size_t q = 0; q < t->queue_count; q++) {
    const agpu_trace_queue *record = t->queues[q];
    const char *which = record->role;
    snprintf(name, sizeof name, "queue %u%s: host calls", record->number, which);
    agpu_trace_metadata(out, "thread_name", record->pid, 2 * record->number - 1, name, 0);
    snprintf(name, sizeof name, "queue %u%s: %s", record->number, which,
             record->timing == 1 ? "device time"
             : t->device_time    ? "no device time (the backend gave no timestamps)"
                                 : "no device time (ANYGPU_TRACE_DEVICE_TIME=0)");
    agpu_trace_metadata(out, "thread_name", record->pid, 2 * record->number, name, 0);
    for (uint32_t tid = 2 * record->number - 1; tid <= 2 * record->number; tid++)
      agpu_trace_metadata(out, "thread_sort_index", record->pid, tid, NULL, tid);
  }
}

/* Microseconds from the trace's origin, as the format counts. */
static double agpu_trace_us(const agpu_tracer *t, uint64_t ns) {
  return ns > t->origin_ns ? (double)(ns - t->origin_ns) / 1e3 : 0.0;
}

static void agpu_trace_sizes(FILE *out, const char *key, const uint64_t sizes[3], uint32_t dims) {
  fprintf(out, ",\"%s\":[", key);
  for (uint32_t d = 0; d < dims; d++)
    fprintf(out, "%s%llu", d ? "," : "", (unsigned long long)sizes[d]);
  fputc(']', out);
}

/* How far each queue's device spans move later: the least that makes none
 * start before its host call (the reference's device time may be later
 * than the host time it was given: the queue was busy then). malloc'd,
 * one a queue; NULL when out of memory (no move). */
static uint64_t *agpu_trace_shifts(const agpu_tracer *t) {
  uint64_t *shift = calloc(t->queue_count ? t->queue_count : 1, sizeof *shift);
  for (size_t i = 0; shift && i < t->entry_count; i++) {
    const agpu_trace_entry *e = &t->entries[i];
    if ((e->flags & AGPU_TRACE_ENTRY_DEVICE) && e->queue_slot < t->queue_count &&
        e->host_ns > e->ts_ns && e->host_ns - e->ts_ns > shift[e->queue_slot])
      shift[e->queue_slot] = e->host_ns - e->ts_ns;
  }
  return shift;
}

static void agpu_trace_write_entry(FILE *out, const agpu_tracer *t, const uint64_t *shifts,
                                   const agpu_trace_entry *e) {
  bool device = e->flags & AGPU_TRACE_ENTRY_DEVICE;
  uint64_t ts = e->ts_ns + (device && shifts ? shifts[e->queue_slot] : 0);
  fputs(",\n{\"name\":", out);
  agpu_trace_json_string(out, e->name);
  fprintf(out, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f",
          device ? "device" : agpu_trace_kind_name(e->kind), e->pid, e->tid, agpu_trace_us(t, ts),
          (double)e->dur_ns / 1e3);
  fprintf(out, ",\"args\":{\"%s\":\"%s\"", device ? "call" : "clock",
          device ? agpu_trace_kind_name(e->kind) : "host");
  if (device) fprintf(out, ",\"device_ns\":%llu", (unsigned long long)e->dur_ns);
  if (e->bytes) fprintf(out, ",\"bytes\":%llu", (unsigned long long)e->bytes);
  if (e->dims) {
    agpu_trace_sizes(out, "global", e->global, e->dims);
    agpu_trace_sizes(out, "local", e->local, e->dims);
  }
  if (e->flags & (AGPU_TRACE_ENTRY_CHECKED | AGPU_TRACE_ENTRY_PROVEN))
    fprintf(out, ",\"bounds\":\"%s\"",
            e->flags & AGPU_TRACE_ENTRY_PROVEN ? "proven, run unchecked" : "checked");
  if (e->status != AGPU_SUCCESS)
    fprintf(out, ",\"status\":\"%s\"", agpu_status_name((agpu_status)e->status));
  fputs("}}", out);
}

/* Writes the whole trace; `unresolved` device spans had no times. */
static bool agpu_trace_write(FILE *out, const agpu_tracer *t, uint64_t unresolved) {
  fprintf(out,
          "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"anygpu\":\"%s\",\"clock\":"
          "\"CLOCK_MONOTONIC, microseconds from agpu_trace_start\",\"dropped_events\":%llu,"
          "\"unresolved_device_spans\":%llu,\"device_spans_dropped\":%llu},\n"
          "\"traceEvents\":[\n"
          "{\"name\":\"trace\",\"cat\":\"anygpu\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,"
          "\"ts\":0}",
          agpu_version(), (unsigned long long)t->dropped, (unsigned long long)unresolved,
          (unsigned long long)t->device_dropped);
  agpu_trace_write_tracks(out, t);
  uint64_t *shifts = agpu_trace_shifts(t);
  for (size_t i = 0; i < t->entry_count; i++)
    agpu_trace_write_entry(out, t, shifts, &t->entries[i]);
  free(shifts);
  fputs("\n]}\n", out);
  bool ok = !ferror(out);
  return fclose(out) == 0 && ok;
}

static void agpu_trace_free(agpu_tracer *t) {
  free(t->entries);
  free(t->devices);
  free(t->path);
  for (size_t q = 0; q < t->queue_count; q++) free(t->queues[q]);
  free(t->queues);
}

/* At exit: the trace as it stands, device spans not yet resolved left out
 * (no backend is called here: drivers may be tearing down, see process.c).
 * Nothing is freed: it stays reachable. */
static void agpu_trace_at_exit(void) {
  agpu_tracer *t = &agpu_the_tracer;
  pthread_mutex_lock(&t->lock);
  if (t->file && t->owner == getpid()) {
    atomic_store(&agpu_trace_on, false);
    uint64_t unresolved = 0;
    for (size_t q = 0; q < t->queue_count; q++) unresolved += t->queues[q]->pending_count;
    agpu_trace_write(t->file, t, unresolved);
    t->file = NULL;
    t->session++;
  }
  pthread_mutex_unlock(&t->lock);
}

static pthread_once_t agpu_trace_exit_once = PTHREAD_ONCE_INIT;
static void agpu_trace_register_exit(void) {
  atexit(agpu_trace_at_exit);
}

AGPU_API agpu_status agpu_trace_start(const char *path) {
  static const char function[] = "agpu_trace_start";
  if (!path || !*path)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: path is %s", function,
                          path ? "empty" : "NULL");
  pthread_once(&agpu_trace_exit_once, agpu_trace_register_exit);
  agpu_tracer *t = &agpu_the_tracer;
  pthread_mutex_lock(&t->lock);
  agpu_status status = AGPU_SUCCESS;
  char *copy = NULL;
  FILE *file = NULL;
  if (t->file)
    status = agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                            "%s: a trace is already recording (to %s); agpu_trace_stop it first",
                            function, t->path);
  else if (!(copy = agpu_strdup(path)))
    status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", function);
  else if (!(file = fopen(path, "w")))
    status = agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: cannot open %s for writing: %s",
                            function, path, strerror(errno));
  if (status == AGPU_SUCCESS) {
    t->file = file;
    t->path = copy;
    t->owner = getpid();
    t->session++;
    t->origin_ns = agpu_trace_now_ns();
    const char *device_time = getenv("ANYGPU_TRACE_DEVICE_TIME");
    t->device_time = !(device_time && strcmp(device_time, "0") == 0);
    atomic_store(&agpu_trace_on, true);
  } else {
    free(copy);
  }
  pthread_mutex_unlock(&t->lock);
  return status;
}

AGPU_API agpu_status agpu_trace_stop(void) {
  static const char function[] = "agpu_trace_stop";
  agpu_tracer *t = &agpu_the_tracer;
  pthread_mutex_lock(&t->lock);
  if (!t->file) {
    pthread_mutex_unlock(&t->lock);
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: no trace is recording", function);
  }
  atomic_store(&agpu_trace_on, false);
  FILE *file = t->file;
  t->file = NULL; /* spans still in flight see it and drop themselves */
  t->session++;
  while (t->resolving) pthread_cond_wait(&t->resolved, &t->lock);
  agpu_tracer taken = *t;
  t->path = NULL;
  t->entries = NULL;
  t->entry_count = t->entry_capacity = 0;
  t->dropped = t->device_dropped = 0;
  t->devices = NULL;
  t->device_count = 0;
  t->queues = NULL;
  t->queue_count = 0;
  pthread_mutex_unlock(&t->lock);

  /* The device times of work the user did not wait for: a failure may be
   * an error that work raised, and this is the wait that reports it. */
  agpu_status status = agpu_trace_settle(&taken);
  char raised[1024] = "";
  if (status != AGPU_SUCCESS) snprintf(raised, sizeof raised, "%s", agpu_last_error());
  if (!agpu_trace_write(file, &taken, 0))
    status = agpu_error_set(AGPU_ERROR_BACKEND, "%s: writing %s failed: %s", function, taken.path,
                            strerror(errno));
  else if (status != AGPU_SUCCESS)
    status = agpu_error_set(status, "%s: %s (the trace is written)", function, raised);
  agpu_trace_free(&taken);
  return status;
}

void agpu_trace_from_environment(void) {
  const char *path = getenv("ANYGPU_TRACE");
  if (!path || !*path || atomic_load(&agpu_trace_on)) return;
  agpu_trace_start(path); /* a path that cannot be opened: no trace (the library never prints) */
}
