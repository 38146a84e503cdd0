// SPDX-License-Identifier: Apache-2.0
/* The CPU backend's asynchronous in-order queues (cpu_queue.c).
 *
 * Each queue that has been given work owns one thread that runs its commands
 * in order (a launch on that thread spreads its work-groups over the shared
 * pool, cpu_pool.c, the queue's thread working too). Enqueueing returns at
 * once. A command that fails keeps its error on the queue; the next call that
 * waits for the queue (finish, an event wait, a host read, write or map)
 * returns it with its message, once.
 *
 * Across queues, buffers order the work: every command, host transfer and
 * release that touches a buffer comes after the command submitted before it
 * that used the same buffer, on whichever queue (each buffer remembers the
 * fence of its last command; a command waits for those fences before it
 * runs). So a fill on the default queue followed by a launch on another
 * queue behaves as on a synchronous device, and a buffer released while
 * queued work uses it stays valid until that work has run. */
#ifndef AGPU_CPU_QUEUE_H
#define AGPU_CPU_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agpu_backend.h"

/* Completion of one command; shared by the command, the buffers it used
 * and the commands that wait for it. */
typedef struct agpu_cpu_fence agpu_cpu_fence;

/* buffer->native on the CPU backend. */
typedef struct agpu_cpu_buffer {
  char *data;
  size_t size;
  agpu_cpu_fence *last; /* the last command that used it; under the submit lock */
  void *mapping;        /* guard pages and canaries around data (cpu_memory.c) */
  size_t mapping_size;
} agpu_cpu_buffer;

/* cpu_memory.c: `size` bytes between canaries and guard pages in b->data
 * (false: out of memory); the mapping's release; whether the canaries are
 * intact (else they are restored, and the first and last changed bytes are
 * given as offsets from b->data: negative before the start, >= size past
 * the end). */
bool agpu_cpu_memory_alloc(agpu_cpu_buffer *b, size_t size);
void agpu_cpu_memory_free(agpu_cpu_buffer *b);
bool agpu_cpu_memory_check(agpu_cpu_buffer *b, ptrdiff_t *first, ptrdiff_t *last);

typedef struct agpu_cpu_command agpu_cpu_command;
struct agpu_cpu_command {
  /* Runs on the queue's thread; a failure is a status with the message set
   * (agpu_error_set), as anywhere in the library. */
  agpu_status (*run)(agpu_cpu_command *command);
  /* Frees the command (after it ran). */
  void (*destroy)(agpu_cpu_command *command);
  agpu_cpu_buffer **uses; /* the buffers it reads or writes */
  uint32_t use_count;
  /* set by the queue */
  uint64_t sequence;
  agpu_cpu_fence *fence;
  agpu_cpu_fence **waits; /* other commands' fences to wait for first */
  uint32_t wait_count;
  agpu_cpu_command *next;
};

/* queue->native. */
typedef struct agpu_cpu_queue agpu_cpu_queue;

agpu_status agpu_cpu_queue_new(agpu_queue *queue);
/* Runs what is left, stops the thread and frees the queue. */
void agpu_cpu_queue_delete(agpu_queue *queue);

/* Takes the command: on failure it is destroyed here. */
agpu_status agpu_cpu_queue_submit(agpu_queue *queue, agpu_cpu_command *command);
/* Waits until every command submitted so far has run; returns the first
 * error they raised (and forgets it). */
agpu_status agpu_cpu_queue_wait(agpu_queue *queue);

/* Marks for events: the time the queue reached them. */
typedef struct agpu_cpu_mark agpu_cpu_mark;
agpu_status agpu_cpu_mark_record(agpu_queue *queue, agpu_cpu_mark **mark);
/* Waits for the mark; returns an error raised before it (once). */
agpu_status agpu_cpu_mark_wait(agpu_queue *queue, agpu_cpu_mark *mark);
uint64_t agpu_cpu_mark_ns(const agpu_cpu_mark *mark); /* after a wait */
void agpu_cpu_mark_release(agpu_cpu_mark *mark);

/* Waits until every command submitted so far that uses the buffer has run. */
void agpu_cpu_buffer_wait_idle(agpu_cpu_buffer *buffer);
/* Waits as above and drops the buffer's fence (before it is freed). */
void agpu_cpu_buffer_forget(agpu_cpu_buffer *buffer);

#endif /* AGPU_CPU_QUEUE_H */
