// SPDX-License-Identifier: Apache-2.0
/* agpu_run_on_stack (agpu_stack.h). */
#include "agpu_stack.h"

#include <pthread.h>
#include <stdbool.h>

typedef struct agpu_stack_call {
  void (*fn)(void *arg);
  void *arg;
} agpu_stack_call;

static void *agpu_stack_thread(void *data) {
  agpu_stack_call *call = data;
  call->fn(call->arg);
  return NULL;
}

void agpu_run_on_stack(size_t bytes, void (*fn)(void *arg), void *arg) {
  agpu_stack_call call = {fn, arg};
  pthread_attr_t attr;
  pthread_t thread;
  bool started = false;
  if (pthread_attr_init(&attr) == 0) {
    started = pthread_attr_setstacksize(&attr, bytes) == 0 &&
              pthread_create(&thread, &attr, agpu_stack_thread, &call) == 0;
    pthread_attr_destroy(&attr);
  }
  if (started)
    pthread_join(thread, NULL);
  else
    fn(arg);
}
