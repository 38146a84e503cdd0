// SPDX-License-Identifier: Apache-2.0
/* printf's launches (agpu_printf.h): a buffer per launch of a printing
 * kernel, a list per queue of launches still to be reported, and the report
 * itself, to stdout or the user's callback. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_check.h"
#include "agpu_core.h"
#include "agpu_printf.h"
#include "translate.h"

struct agpu_printf_launch {
  agpu_buffer *buffer; /* pinned; NULL when the kernel does not print */
  size_t words;        /* the buffer's, header included */
  agpu_printf_table *table;
  /* bounds checking: the check buffer (pinned) and the program's sites */
  agpu_buffer *check;
  agpu_check_table *checks;
  uint32_t check_args; /* the user's arguments, whose extents it holds */
  char kernel[128];
  uint64_t sequence; /* its place among the queue's printing launches */
  agpu_printf_launch *next;
};

/* The queues' lists; and one report at a time, so that output is never
 * interleaved and the sink does not change under a report. */
static pthread_mutex_t agpu_printf_list_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t agpu_printf_report_lock = PTHREAD_MUTEX_INITIALIZER;
static agpu_printf_callback agpu_printf_sink;
static void *agpu_printf_sink_data;

enum { AGPU_PRINTF_DEFAULT_BYTES = 1 << 20, AGPU_PRINTF_MIN_BYTES = 4096 };

/* ANYGPU_PRINTF_BUFFER=BYTES, else 1 MiB (OpenCL's minimum printf buffer). */
static size_t agpu_printf_buffer_bytes(void) {
  const char *text = getenv("ANYGPU_PRINTF_BUFFER");
  if (!text || !*text) return AGPU_PRINTF_DEFAULT_BYTES;
  char *end;
  unsigned long long bytes = strtoull(text, &end, 10);
  if (*end || bytes < AGPU_PRINTF_MIN_BYTES) return AGPU_PRINTF_DEFAULT_BYTES;
  if (bytes > (1ull << 30)) bytes = 1ull << 30; /* word offsets stay far from 2^32 */
  return (size_t)bytes & ~(size_t)3;
}

static void agpu_printf_launch_free(agpu_printf_launch *launch) {
  if (!launch) return;
  if (launch->buffer) agpu_buffer_unpin(launch->buffer);
  if (launch->check) agpu_buffer_unpin(launch->check);
  agpu_printf_table_release(launch->table);
  agpu_check_table_release(launch->checks);
  free(launch);
}

/* A fresh pinned buffer of `bytes` holding `header` at its start. */
static agpu_status agpu_report_buffer(agpu_queue *queue, size_t bytes, const uint32_t *header,
                                      size_t header_bytes, const char *what, agpu_buffer **out) {
  agpu_buffer *handle;
  agpu_status status = agpu_buffer_create(queue->device->object.handle, bytes, 0, &handle);
  if (status != AGPU_SUCCESS) return status;
  status = agpu_lookup_buffer_pinned(handle, "agpu_launch", what, out);
  agpu_buffer_release(handle); /* the pin keeps it */
  if (status != AGPU_SUCCESS) return status;
  status = queue->device->backend->ops->buffer_write(queue, *out, 0, header_bytes, header);
  if (status != AGPU_SUCCESS) {
    agpu_buffer_unpin(*out);
    *out = NULL;
  }
  return status;
}

/* The printf buffer with its header: nothing used, the capacity, nothing
 * dropped, and the first record that did not fit at the end. */
static agpu_status agpu_printf_buffer(agpu_queue *queue, agpu_kernel *kernel,
                                      agpu_printf_launch *launch) {
  size_t bytes = agpu_printf_buffer_bytes();
  uint32_t capacity = (uint32_t)(bytes / 4 - KL_PRINTF_HEADER_WORDS);
  uint32_t header[KL_PRINTF_HEADER_WORDS] = {0, capacity, 0, capacity};
  agpu_status status =
      agpu_report_buffer(queue, bytes, header, sizeof header, "printf buffer", &launch->buffer);
  if (status != AGPU_SUCCESS) {
    char cause[1024];
    snprintf(cause, sizeof cause, "%s", agpu_last_error());
    return agpu_error_set(status,
                          "agpu_launch: kernel '%s' prints, and its printf buffer (%zu bytes; "
                          "ANYGPU_PRINTF_BUFFER sets it) could not be made: %s",
                          kernel->info.name, bytes, cause);
  }
  launch->words = bytes / 4;
  launch->table = kernel->printf;
  agpu_printf_table_retain(launch->table);
  return AGPU_SUCCESS;
}

/* The check buffer: an empty record and the arguments' extents. */
static agpu_status agpu_check_buffer(agpu_queue *queue, agpu_kernel *kernel, const agpu_arg *args,
                                     uint32_t nargs, agpu_printf_launch *launch) {
  size_t words = agpu_check_words(kernel->checks, nargs);
  uint32_t *header = malloc(words * sizeof *header);
  if (!header)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_launch: out of host memory");
  agpu_check_prepare_words(kernel->checks, header, args, nargs);
  agpu_status status = agpu_report_buffer(queue, words * 4, header, words * 4,
                                          "bounds-check buffer", &launch->check);
  free(header);
  if (status != AGPU_SUCCESS) return agpu_error_prefix(status, "agpu_launch: the bounds check");
  launch->checks = kernel->checks;
  agpu_check_table_retain(launch->checks);
  launch->check_args = nargs;
  return AGPU_SUCCESS;
}

agpu_status agpu_printf_prepare(agpu_queue *queue, agpu_kernel *kernel, const agpu_arg *args,
                                uint32_t nargs, agpu_arg *hidden, uint32_t *hidden_count,
                                agpu_printf_launch **out) {
  *out = NULL;
  *hidden_count = 0;
  agpu_printf_launch *launch = calloc(1, sizeof *launch);
  if (!launch)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_launch: out of host memory");
  snprintf(launch->kernel, sizeof launch->kernel, "%s", kernel->info.name);
  agpu_status status = AGPU_SUCCESS;
  if (kernel->printf) {
    status = agpu_printf_buffer(queue, kernel, launch);
    if (status == AGPU_SUCCESS) hidden[(*hidden_count)++] = agpu_arg_buffer(launch->buffer);
  }
  if (status == AGPU_SUCCESS && kernel->checks) {
    status = agpu_check_buffer(queue, kernel, args, nargs, launch);
    if (status == AGPU_SUCCESS) hidden[(*hidden_count)++] = agpu_arg_buffer(launch->check);
  }
  if (status != AGPU_SUCCESS) {
    agpu_printf_launch_free(launch);
    *hidden_count = 0;
    return status;
  }
  *out = launch;
  return AGPU_SUCCESS;
}

void agpu_printf_launched(agpu_queue *queue, agpu_printf_launch *launch, agpu_status status) {
  if (status != AGPU_SUCCESS) {
    agpu_printf_launch_free(launch);
    return;
  }
  pthread_mutex_lock(&agpu_printf_list_lock);
  launch->sequence = atomic_fetch_add(&queue->printf_launches, 1) + 1;
  agpu_printf_launch **last = &queue->printf_pending;
  while (*last) last = &(*last)->next;
  *last = launch;
  pthread_mutex_unlock(&agpu_printf_list_lock);
}

uint64_t agpu_printf_mark(agpu_queue *queue) {
  return atomic_load(&queue->printf_launches);
}

static void agpu_printf_emit(const char *text, size_t length) {
  if (!length) return;
  if (agpu_printf_sink) {
    agpu_printf_sink(text, length, agpu_printf_sink_data);
  } else {
    fwrite(text, 1, length, stdout);
    fflush(stdout);
  }
}

/* A checked launch's record: its fault, if any. */
static agpu_status agpu_check_report_one(agpu_queue *queue, agpu_printf_launch *launch) {
  size_t words = agpu_check_words(launch->checks, launch->check_args);
  uint32_t *record = malloc(words * sizeof *record);
  if (!record) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
  agpu_status status =
      queue->device->backend->ops->buffer_read(queue, launch->check, 0, words * 4, record);
  if (status == AGPU_SUCCESS)
    status = agpu_check_report(launch->checks, launch->kernel, record, launch->check_args);
  free(record);
  return status;
}

/* Reads one launch's buffers (done: the caller knows) and reports them. */
static agpu_status agpu_printf_report_one(agpu_queue *queue, agpu_printf_launch *launch) {
  if (!launch->buffer) return launch->check ? agpu_check_report_one(queue, launch) : AGPU_SUCCESS;
  const agpu_backend_ops *ops = queue->device->backend->ops;
  uint32_t header[KL_PRINTF_HEADER_WORDS];
  agpu_status status = ops->buffer_read(queue, launch->buffer, 0, sizeof header, header);
  if (status != AGPU_SUCCESS) return status;
  size_t used = header[0] < header[3] ? header[0] : header[3];
  size_t words = KL_PRINTF_HEADER_WORDS + (used < launch->words - KL_PRINTF_HEADER_WORDS
                                               ? used
                                               : launch->words - KL_PRINTF_HEADER_WORDS);
  uint32_t *all = malloc(words * sizeof *all);
  if (!all) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "printf: out of host memory");
  memcpy(all, header, sizeof header);
  if (words > KL_PRINTF_HEADER_WORDS)
    status = ops->buffer_read(queue, launch->buffer, sizeof header,
                              (words - KL_PRINTF_HEADER_WORDS) * 4, all + KL_PRINTF_HEADER_WORDS);
  char *text = NULL;
  size_t length = 0;
  if (status == AGPU_SUCCESS)
    status = agpu_printf_format_records(launch->table, launch->kernel, all, words, &text, &length);
  if (status == AGPU_SUCCESS) agpu_printf_emit(text, length);
  free(text);
  free(all);
  if (status == AGPU_SUCCESS && launch->check) status = agpu_check_report_one(queue, launch);
  return status;
}

agpu_status agpu_printf_report(agpu_queue *queue, uint64_t mark) {
  if (!atomic_load(&queue->printf_launches)) return AGPU_SUCCESS; /* it never printed */
  pthread_mutex_lock(&agpu_printf_report_lock);
  pthread_mutex_lock(&agpu_printf_list_lock);
  agpu_printf_launch *done = NULL, **tail = &done;
  while (queue->printf_pending && queue->printf_pending->sequence <= mark) {
    *tail = queue->printf_pending;
    queue->printf_pending = queue->printf_pending->next;
    tail = &(*tail)->next;
  }
  *tail = NULL;
  pthread_mutex_unlock(&agpu_printf_list_lock);
  agpu_status status = AGPU_SUCCESS;
  while (done) {
    agpu_printf_launch *next = done->next;
    agpu_status one = agpu_printf_report_one(queue, done);
    if (status == AGPU_SUCCESS) status = one;
    agpu_printf_launch_free(done);
    done = next;
  }
  pthread_mutex_unlock(&agpu_printf_report_lock);
  return status;
}

AGPU_API agpu_status agpu_set_printf_callback(agpu_printf_callback callback, void *user_data) {
  pthread_mutex_lock(&agpu_printf_report_lock);
  agpu_printf_sink = callback;
  agpu_printf_sink_data = user_data;
  pthread_mutex_unlock(&agpu_printf_report_lock);
  return AGPU_SUCCESS;
}
