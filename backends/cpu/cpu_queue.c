// SPDX-License-Identifier: Apache-2.0
/* Asynchronous in-order queues for the CPU backend (see cpu_queue.h). A
 * queue's thread starts with its first command and stays until the queue is
 * released; it polls a little before sleeping, as the pool's workers do, so
 * that back-to-back launches cost no wake-up. Waiting threads poll the
 * completed count briefly, then sleep on the queue's condition variable. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_internal.h"
#include "cpu_queue.h"

#define AGPU_CPU_QUEUE_SPIN_ROUNDS 20000 /* about 20-50 us */
#define AGPU_CPU_WAIT_SPIN_ROUNDS 4000

struct agpu_cpu_queue {
  pthread_mutex_t mutex;
  pthread_cond_t wake; /* the thread: work arrived, or stop */
  pthread_cond_t done; /* waiters: a command completed */
  agpu_cpu_command *head, *tail;
  uint64_t submitted;          /* under the mutex */
  _Atomic uint64_t completed;  /* written under the mutex, polled without */
  _Atomic uint64_t generation; /* bumped for every submission, polled by the thread */
  unsigned waiters;
  bool started, stop;
  bool running;  /* a command of this queue is running */
  bool sleeping; /* the thread waits on `wake` */
  pthread_t thread;
  /* the first error not yet reported */
  agpu_status error;
  uint64_t error_sequence;
  char *error_message;
};

struct agpu_cpu_mark {
  agpu_cpu_command command; /* first: the queue runs it */
  _Atomic int references;   /* the event and the queue */
  uint64_t ns;              /* when the queue reached it; read after a wait */
};

struct agpu_cpu_fence {
  _Atomic int references;
  _Atomic int done;
};

/* Registering a command's buffers and queueing it happen under one lock for
 * the backend, so that fences only ever point at commands already queued
 * (no cycles between queues). It also guards every buffer's `last`. */
static pthread_mutex_t agpu_cpu_submit_lock = PTHREAD_MUTEX_INITIALIZER;
/* Threads waiting for a fence sleep here. */
static pthread_mutex_t agpu_cpu_fence_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t agpu_cpu_fence_done = PTHREAD_COND_INITIALIZER;
static _Atomic unsigned agpu_cpu_fence_waiters;

static inline void agpu_cpu_queue_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static agpu_cpu_fence *agpu_cpu_fence_new(void) {
  agpu_cpu_fence *fence = malloc(sizeof *fence);
  if (!fence) return NULL;
  atomic_init(&fence->references, 1);
  atomic_init(&fence->done, 0);
  return fence;
}

static agpu_cpu_fence *agpu_cpu_fence_ref(agpu_cpu_fence *fence) {
  atomic_fetch_add_explicit(&fence->references, 1, memory_order_relaxed);
  return fence;
}

static void agpu_cpu_fence_unref(agpu_cpu_fence *fence) {
  if (fence && atomic_fetch_sub_explicit(&fence->references, 1, memory_order_acq_rel) == 1)
    free(fence);
}

static bool agpu_cpu_fence_is_done(agpu_cpu_fence *fence) {
  return atomic_load(&fence->done) != 0;
}

static void agpu_cpu_fence_signal(agpu_cpu_fence *fence) {
  atomic_store(&fence->done, 1);
  if (atomic_load(&agpu_cpu_fence_waiters) == 0) return;
  pthread_mutex_lock(&agpu_cpu_fence_lock);
  pthread_cond_broadcast(&agpu_cpu_fence_done);
  pthread_mutex_unlock(&agpu_cpu_fence_lock);
}

static void agpu_cpu_fence_wait(agpu_cpu_fence *fence) {
  for (int i = 0; i < AGPU_CPU_WAIT_SPIN_ROUNDS; i++) {
    if (agpu_cpu_fence_is_done(fence)) return;
    agpu_cpu_queue_relax();
  }
  atomic_fetch_add(&agpu_cpu_fence_waiters, 1);
  pthread_mutex_lock(&agpu_cpu_fence_lock);
  while (!agpu_cpu_fence_is_done(fence))
    pthread_cond_wait(&agpu_cpu_fence_done, &agpu_cpu_fence_lock);
  pthread_mutex_unlock(&agpu_cpu_fence_lock);
  atomic_fetch_sub(&agpu_cpu_fence_waiters, 1);
}

/* The buffer's last fence if not done yet, with a reference. */
static agpu_cpu_fence *agpu_cpu_buffer_pending(agpu_cpu_buffer *buffer) {
  pthread_mutex_lock(&agpu_cpu_submit_lock);
  agpu_cpu_fence *fence = buffer->last;
  if (fence && !agpu_cpu_fence_is_done(fence))
    agpu_cpu_fence_ref(fence);
  else
    fence = NULL;
  pthread_mutex_unlock(&agpu_cpu_submit_lock);
  return fence;
}

void agpu_cpu_buffer_wait_idle(agpu_cpu_buffer *buffer) {
  agpu_cpu_fence *fence = agpu_cpu_buffer_pending(buffer);
  if (!fence) return;
  agpu_cpu_fence_wait(fence);
  agpu_cpu_fence_unref(fence);
}

void agpu_cpu_buffer_forget(agpu_cpu_buffer *buffer) {
  agpu_cpu_buffer_wait_idle(buffer);
  pthread_mutex_lock(&agpu_cpu_submit_lock);
  agpu_cpu_fence *fence = buffer->last;
  buffer->last = NULL;
  pthread_mutex_unlock(&agpu_cpu_submit_lock);
  agpu_cpu_fence_unref(fence);
}

/* After the command ran, or instead of running it. */
static void agpu_cpu_command_finish(agpu_cpu_command *command) {
  for (uint32_t i = 0; i < command->wait_count; i++) agpu_cpu_fence_unref(command->waits[i]);
  free(command->waits);
  agpu_cpu_fence *fence = command->fence;
  command->destroy(command);
  if (fence) {
    agpu_cpu_fence_signal(fence);
    agpu_cpu_fence_unref(fence);
  }
}

/* Runs the command at the head: under the mutex, which it drops while the
 * command runs; one command of a queue runs at a time (`running`), on the
 * queue's thread or on a thread waiting for the queue (which saves a switch
 * to the queue's thread and back for a short launch). */
static void agpu_cpu_queue_run_head(agpu_cpu_queue *q) {
  agpu_cpu_command *command = q->head;
  q->head = command->next;
  if (!q->head) q->tail = NULL;
  q->running = true;
  pthread_mutex_unlock(&q->mutex);

  for (uint32_t i = 0; i < command->wait_count; i++) agpu_cpu_fence_wait(command->waits[i]);
  agpu_error_clear();
  agpu_status status = command->run(command);
  uint64_t sequence = command->sequence;
  char *message = status != AGPU_SUCCESS ? strdup(agpu_last_error()) : NULL;
  agpu_cpu_command_finish(command);

  pthread_mutex_lock(&q->mutex);
  if (status != AGPU_SUCCESS && q->error == AGPU_SUCCESS) {
    q->error = status;
    q->error_sequence = sequence;
    q->error_message = message;
    message = NULL;
  }
  q->running = false;
  atomic_store_explicit(&q->completed, sequence, memory_order_release);
  if (q->waiters) pthread_cond_broadcast(&q->done);
  if (q->sleeping && (q->head || q->stop)) pthread_cond_signal(&q->wake);
  free(message);
}

static void *agpu_cpu_queue_thread(void *arg) {
  agpu_cpu_queue *q = arg;
  pthread_mutex_lock(&q->mutex);
  for (;;) {
    if (q->head && !q->running) {
      agpu_cpu_queue_run_head(q);
      continue;
    }
    if (q->stop && !q->head && !q->running) break;
    /* Poll a little before sleeping: launches often come back to back. */
    uint64_t seen = atomic_load_explicit(&q->generation, memory_order_acquire);
    pthread_mutex_unlock(&q->mutex);
    for (int i = 0; i < AGPU_CPU_QUEUE_SPIN_ROUNDS; i++) {
      if (atomic_load_explicit(&q->generation, memory_order_acquire) != seen) break;
      agpu_cpu_queue_relax();
    }
    pthread_mutex_lock(&q->mutex);
    if ((!q->head || q->running) && !q->stop &&
        atomic_load_explicit(&q->generation, memory_order_acquire) == seen) {
      q->sleeping = true;
      pthread_cond_wait(&q->wake, &q->mutex);
      q->sleeping = false;
    }
  }
  pthread_mutex_unlock(&q->mutex);
  return NULL;
}

agpu_status agpu_cpu_queue_new(agpu_queue *queue) {
  agpu_cpu_queue *q = calloc(1, sizeof *q);
  if (!q) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  pthread_mutex_init(&q->mutex, NULL);
  pthread_cond_init(&q->wake, NULL);
  pthread_cond_init(&q->done, NULL);
  atomic_init(&q->completed, 0);
  atomic_init(&q->generation, 0);
  queue->native = q;
  return AGPU_SUCCESS;
}

void agpu_cpu_queue_delete(agpu_queue *queue) {
  agpu_cpu_queue *q = queue->native;
  if (!q) return;
  pthread_mutex_lock(&q->mutex);
  bool started = q->started;
  q->stop = true;
  pthread_cond_signal(&q->wake);
  pthread_mutex_unlock(&q->mutex);
  if (started) pthread_join(q->thread, NULL); /* it runs what is left first */
  free(q->error_message);
  pthread_cond_destroy(&q->done);
  pthread_cond_destroy(&q->wake);
  pthread_mutex_destroy(&q->mutex);
  free(q);
  queue->native = NULL;
}

/* Starts the queue's thread; under the mutex. */
static agpu_status agpu_cpu_queue_start(agpu_cpu_queue *q) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  /* kernels run on this thread too (see cpu_pool.c) */
  pthread_attr_setstacksize(&attr, 16u << 20);
  int failed = pthread_create(&q->thread, &attr, agpu_cpu_queue_thread, q);
  pthread_attr_destroy(&attr);
  if (failed)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "cpu: cannot start the queue's thread: pthread_create failed: %s",
                          strerror(failed));
  q->started = true;
  return AGPU_SUCCESS;
}

/* Makes the command wait for the last user of each of its buffers and
 * become their last user; under the submit lock. */
static agpu_status agpu_cpu_command_register(agpu_cpu_command *command) {
  if (command->use_count == 0) return AGPU_SUCCESS;
  command->fence = agpu_cpu_fence_new();
  command->waits = malloc(command->use_count * sizeof *command->waits);
  if (!command->fence || !command->waits)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  for (uint32_t i = 0; i < command->use_count; i++) {
    agpu_cpu_buffer *buffer = command->uses[i];
    agpu_cpu_fence *last = buffer->last;
    if (last == command->fence) continue; /* the same buffer twice */
    if (last && !agpu_cpu_fence_is_done(last))
      command->waits[command->wait_count++] = agpu_cpu_fence_ref(last);
    agpu_cpu_fence_unref(last);
    buffer->last = agpu_cpu_fence_ref(command->fence);
  }
  return AGPU_SUCCESS;
}

agpu_status agpu_cpu_queue_submit(agpu_queue *queue, agpu_cpu_command *command) {
  agpu_cpu_queue *q = queue->native;
  pthread_mutex_lock(&agpu_cpu_submit_lock);
  pthread_mutex_lock(&q->mutex);
  agpu_status status = q->started ? AGPU_SUCCESS : agpu_cpu_queue_start(q);
  if (status == AGPU_SUCCESS) status = agpu_cpu_command_register(command);
  if (status != AGPU_SUCCESS) {
    pthread_mutex_unlock(&q->mutex);
    pthread_mutex_unlock(&agpu_cpu_submit_lock);
    agpu_cpu_command_finish(command); /* signals a fence that buffers may hold */
    return status;
  }
  command->sequence = ++q->submitted;
  command->next = NULL;
  if (q->tail)
    q->tail->next = command;
  else
    q->head = command;
  q->tail = command;
  atomic_fetch_add_explicit(&q->generation, 1, memory_order_release);
  if (q->sleeping) pthread_cond_signal(&q->wake); /* a polling thread sees the generation */
  pthread_mutex_unlock(&q->mutex);
  pthread_mutex_unlock(&agpu_cpu_submit_lock);
  return AGPU_SUCCESS;
}

/* Waits until command `sequence` has run and returns an error raised at or
 * before it, forgetting it. */
static agpu_status agpu_cpu_queue_wait_for(agpu_cpu_queue *q, uint64_t sequence) {
  pthread_mutex_lock(&q->mutex);
  /* run the queue's commands here while its thread is not running one */
  while (atomic_load_explicit(&q->completed, memory_order_acquire) < sequence && q->head &&
         !q->running && q->head->sequence <= sequence)
    agpu_cpu_queue_run_head(q);
  if (atomic_load_explicit(&q->completed, memory_order_acquire) < sequence) {
    pthread_mutex_unlock(&q->mutex);
    for (int i = 0; i < AGPU_CPU_WAIT_SPIN_ROUNDS; i++) {
      if (atomic_load_explicit(&q->completed, memory_order_acquire) >= sequence) break;
      agpu_cpu_queue_relax();
    }
    pthread_mutex_lock(&q->mutex);
  }
  q->waiters++;
  while (atomic_load_explicit(&q->completed, memory_order_acquire) < sequence) {
    if (q->head && !q->running && q->head->sequence <= sequence) {
      agpu_cpu_queue_run_head(q);
      continue;
    }
    pthread_cond_wait(&q->done, &q->mutex);
  }
  q->waiters--;
  agpu_status status = AGPU_SUCCESS;
  if (q->error != AGPU_SUCCESS && q->error_sequence <= sequence) {
    status = agpu_error_set(q->error, "%s (raised by work queued earlier on this queue)",
                            q->error_message ? q->error_message : "a queued command failed");
    q->error = AGPU_SUCCESS;
    free(q->error_message);
    q->error_message = NULL;
  }
  pthread_mutex_unlock(&q->mutex);
  return status;
}

agpu_status agpu_cpu_queue_wait(agpu_queue *queue) {
  agpu_cpu_queue *q = queue->native;
  pthread_mutex_lock(&q->mutex);
  uint64_t sequence = q->submitted;
  pthread_mutex_unlock(&q->mutex);
  return agpu_cpu_queue_wait_for(q, sequence);
}

/* ------------------------------------------------------------- marks */

static uint64_t agpu_cpu_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

static agpu_status agpu_cpu_mark_run(agpu_cpu_command *command) {
  agpu_cpu_mark *mark = (agpu_cpu_mark *)command;
  mark->ns = agpu_cpu_now_ns();
  return AGPU_SUCCESS;
}

void agpu_cpu_mark_release(agpu_cpu_mark *mark) {
  if (mark && atomic_fetch_sub_explicit(&mark->references, 1, memory_order_acq_rel) == 1)
    free(mark);
}

static void agpu_cpu_mark_destroy(agpu_cpu_command *command) {
  agpu_cpu_mark_release((agpu_cpu_mark *)command);
}

agpu_status agpu_cpu_mark_record(agpu_queue *queue, agpu_cpu_mark **out) {
  agpu_cpu_mark *mark = calloc(1, sizeof *mark);
  if (!mark) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  mark->command.run = agpu_cpu_mark_run;
  mark->command.destroy = agpu_cpu_mark_destroy;
  atomic_init(&mark->references, 2);
  agpu_status status = agpu_cpu_queue_submit(queue, &mark->command);
  if (status != AGPU_SUCCESS) {
    agpu_cpu_mark_release(mark); /* the queue dropped its reference */
    return status;
  }
  *out = mark;
  return AGPU_SUCCESS;
}

agpu_status agpu_cpu_mark_wait(agpu_queue *queue, agpu_cpu_mark *mark) {
  return agpu_cpu_queue_wait_for(queue->native, mark->command.sequence);
}

uint64_t agpu_cpu_mark_ns(const agpu_cpu_mark *mark) {
  return mark->ns;
}
