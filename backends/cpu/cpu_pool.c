// SPDX-License-Identifier: Apache-2.0
/* The CPU backend's thread pool: one worker per core but one (the thread
 * that launches works too), created once on first use and kept idle between
 * launches. A launch is a task of `total` items (work-groups) handed out in
 * chunks by an atomic counter; any number of threads may launch at once and
 * the workers serve every pending task. The only system calls are one wake
 * per launch (when a worker sleeps) and one wait when the launching thread
 * finishes its share before the workers finish theirs. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "cpu_internal.h"

#define AGPU_CPU_MAX_WORKERS 256
#define AGPU_CPU_SPIN_ROUNDS 20000 /* about 20-50 us of polling before a worker sleeps */

struct agpu_cpu_task {
  agpu_cpu_task_fn run;
  void *context;
  size_t total, chunk;
  _Atomic size_t next;
  int users; /* threads working on it, under the pool's mutex */
  pthread_cond_t done;
  agpu_cpu_task *next_task;
};

typedef struct agpu_cpu_pool {
  pthread_mutex_t mutex;
  pthread_cond_t work;
  agpu_cpu_task *tasks;             /* pending, oldest first */
  _Atomic unsigned long generation; /* bumped for every new task */
  bool stop;
  unsigned worker_count;
  pthread_t workers[AGPU_CPU_MAX_WORKERS];
} agpu_cpu_pool;

static agpu_cpu_pool agpu_cpu_the_pool = {
    .mutex = PTHREAD_MUTEX_INITIALIZER,
    .work = PTHREAD_COND_INITIALIZER,
};
static pthread_once_t agpu_cpu_pool_once = PTHREAD_ONCE_INIT;

static inline void agpu_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Claims chunks of the task until none is left. */
static void agpu_cpu_task_work(agpu_cpu_task *task) {
  for (;;) {
    size_t begin = atomic_fetch_add_explicit(&task->next, task->chunk, memory_order_relaxed);
    if (begin >= task->total) return;
    size_t end = task->total - begin < task->chunk ? task->total : begin + task->chunk;
    task->run(task->context, begin, end);
  }
}

/* A task with items left, or NULL. Called under the mutex. */
static agpu_cpu_task *agpu_cpu_pending(agpu_cpu_pool *pool) {
  for (agpu_cpu_task *task = pool->tasks; task; task = task->next_task)
    if (atomic_load_explicit(&task->next, memory_order_relaxed) < task->total) return task;
  return NULL;
}

static void *agpu_cpu_worker(void *arg) {
  agpu_cpu_pool *pool = arg;
  pthread_mutex_lock(&pool->mutex);
  while (!pool->stop) {
    agpu_cpu_task *task = agpu_cpu_pending(pool);
    if (!task) {
      /* Poll a little before sleeping: launches often come back to back. */
      unsigned long seen = atomic_load_explicit(&pool->generation, memory_order_acquire);
      pthread_mutex_unlock(&pool->mutex);
      for (int i = 0; i < AGPU_CPU_SPIN_ROUNDS; i++) {
        if (atomic_load_explicit(&pool->generation, memory_order_acquire) != seen) break;
        agpu_cpu_relax();
      }
      pthread_mutex_lock(&pool->mutex);
      if (!pool->stop && !agpu_cpu_pending(pool) &&
          atomic_load_explicit(&pool->generation, memory_order_acquire) == seen)
        pthread_cond_wait(&pool->work, &pool->mutex);
      continue;
    }
    task->users++;
    pthread_mutex_unlock(&pool->mutex);
    agpu_cpu_task_work(task);
    pthread_mutex_lock(&pool->mutex);
    if (--task->users == 0) pthread_cond_broadcast(&task->done);
  }
  pthread_mutex_unlock(&pool->mutex);
  return NULL;
}

static void agpu_cpu_pool_start(void) {
  agpu_cpu_pool *pool = &agpu_cpu_the_pool;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const char *forced = getenv("ANYGPU_CPU_THREADS");
  if (forced && atoi(forced) > 0) cores = atoi(forced);
  if (cores < 1) cores = 1;
  unsigned want = (unsigned)(cores - 1);
  if (want > AGPU_CPU_MAX_WORKERS) want = AGPU_CPU_MAX_WORKERS;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  /* Work-items' private arrays live in the heap, but kernels may use deep
   * helper calls and big private arrays: give workers room. */
  pthread_attr_setstacksize(&attr, 16u << 20);
  for (unsigned i = 0; i < want; i++) {
    if (pthread_create(&pool->workers[pool->worker_count], &attr, agpu_cpu_worker, pool) != 0)
      break; /* fewer workers: the launching threads still do the work */
    pool->worker_count++;
  }
  pthread_attr_destroy(&attr);
}

/* Stops and joins the workers when the library is unloaded or the process
 * exits, so that no thread runs code that is going away. */
__attribute__((destructor)) static void agpu_cpu_pool_stop(void) {
  agpu_cpu_pool *pool = &agpu_cpu_the_pool;
  pthread_mutex_lock(&pool->mutex);
  unsigned count = pool->worker_count;
  pool->stop = true;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->mutex);
  for (unsigned i = 0; i < count; i++) pthread_join(pool->workers[i], NULL);
  pool->worker_count = 0;
}

unsigned agpu_cpu_pool_threads(void) {
  pthread_once(&agpu_cpu_pool_once, agpu_cpu_pool_start);
  return agpu_cpu_the_pool.worker_count + 1;
}

void agpu_cpu_pool_run(size_t total, size_t chunk, agpu_cpu_task_fn run, void *context) {
  if (total == 0) return;
  if (chunk == 0) chunk = 1;
  pthread_once(&agpu_cpu_pool_once, agpu_cpu_pool_start);
  agpu_cpu_pool *pool = &agpu_cpu_the_pool;
  if (total <= chunk || pool->worker_count == 0) {
    run(context, 0, total); /* nothing to share */
    return;
  }
  agpu_cpu_task task = {.run = run, .context = context, .total = total, .chunk = chunk};
  atomic_init(&task.next, 0);
  pthread_cond_init(&task.done, NULL);
  task.users = 1;
  pthread_mutex_lock(&pool->mutex);
  agpu_cpu_task **tail = &pool->tasks;
  while (*tail) tail = &(*tail)->next_task;
  *tail = &task;
  atomic_fetch_add_explicit(&pool->generation, 1, memory_order_release);
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->mutex);

  agpu_cpu_task_work(&task);

  pthread_mutex_lock(&pool->mutex);
  task.users--;
  while (task.users > 0) pthread_cond_wait(&task.done, &pool->mutex);
  for (agpu_cpu_task **link = &pool->tasks; *link; link = &(*link)->next_task)
    if (*link == &task) {
      *link = task.next_task;
      break;
    }
  pthread_mutex_unlock(&pool->mutex);
  pthread_cond_destroy(&task.done);
}
