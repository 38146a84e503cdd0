// SPDX-License-Identifier: Apache-2.0
/* Waiting for a whole device (agpu_device_finish) or for every default queue
 * (agpu_queue_finish(NULL)), and the per-device list of user queues that the
 * first needs. */
#include <stdlib.h>

#include "agpu_core.h"
#include "agpu_printf.h"
#include "agpu_trace.h"

static pthread_mutex_t agpu_queue_list_lock = PTHREAD_MUTEX_INITIALIZER;

void agpu_device_list_queue(agpu_queue *queue) {
  agpu_device *device = queue->device;
  pthread_mutex_lock(&agpu_queue_list_lock);
  queue->previous_of_device = NULL;
  queue->next_of_device = device->user_queues;
  if (device->user_queues) device->user_queues->previous_of_device = queue;
  device->user_queues = queue;
  queue->listed = true;
  pthread_mutex_unlock(&agpu_queue_list_lock);
}

void agpu_device_unlist_queue(agpu_queue *queue) {
  if (!queue->listed) return;
  pthread_mutex_lock(&agpu_queue_list_lock);
  if (queue->previous_of_device)
    queue->previous_of_device->next_of_device = queue->next_of_device;
  else
    queue->device->user_queues = queue->next_of_device;
  if (queue->next_of_device) queue->next_of_device->previous_of_device = queue->previous_of_device;
  queue->listed = false;
  pthread_mutex_unlock(&agpu_queue_list_lock);
}

/* A reference to a queue that is not already on its way out (0 references). */
static bool agpu_queue_try_reference(agpu_queue *queue) {
  uint32_t references = atomic_load(&queue->references);
  while (references != 0)
    if (atomic_compare_exchange_weak(&queue->references, &references, references + 1)) return true;
  return false;
}

/* The device's live user queues, each with a reference the caller drops. */
static agpu_status agpu_device_user_queues(agpu_device *device, agpu_queue ***queues,
                                           size_t *count) {
  *queues = NULL;
  *count = 0;
  pthread_mutex_lock(&agpu_queue_list_lock);
  size_t listed = 0;
  for (agpu_queue *q = device->user_queues; q; q = q->next_of_device) listed++;
  agpu_queue **taken = listed ? malloc(listed * sizeof *taken) : NULL;
  if (listed && !taken) {
    pthread_mutex_unlock(&agpu_queue_list_lock);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_device_finish: out of host memory");
  }
  for (agpu_queue *q = device->user_queues; q; q = q->next_of_device)
    if (agpu_queue_try_reference(q)) taken[(*count)++] = q;
  pthread_mutex_unlock(&agpu_queue_list_lock);
  *queues = taken;
  return AGPU_SUCCESS;
}

agpu_status agpu_finish_queue(agpu_queue *queue, const char *function) {
  agpu_trace_span span;
  AGPU_TRACE_BEGIN(&span, NULL);
  agpu_status status =
      agpu_error_prefix(queue->device->backend->ops->queue_finish(queue), function);
  AGPU_TRACE_END(&span, status, .kind = AGPU_TRACE_FINISH, .device = queue->device, .queue = queue);
  /* the queue's work is done: its kernels' printf output is reported
   * (what a failed launch printed too) */
  agpu_status reported = agpu_printf_report(queue, UINT64_MAX);
  return status != AGPU_SUCCESS ? status : agpu_error_prefix(reported, function);
}

AGPU_API agpu_status agpu_device_finish(agpu_device *device) {
  static const char function[] = "agpu_device_finish";
  agpu_status status = agpu_check_device(device, function);
  if (status != AGPU_SUCCESS) return status;
  agpu_queue **queues;
  size_t count;
  status = agpu_device_user_queues(device, &queues, &count);
  if (status != AGPU_SUCCESS) return status;
  agpu_queue *default_queue = agpu_device_existing_default_queue(device);
  if (default_queue) status = agpu_finish_queue(default_queue, function);
  for (size_t i = 0; i < count; i++) {
    if (status == AGPU_SUCCESS) status = agpu_finish_queue(queues[i], function);
    agpu_queue_unreference(queues[i]);
  }
  free(queues);
  return status;
}

agpu_status agpu_finish_default_queues(const char *function) {
  uint32_t devices = agpu_registry_device_count();
  for (uint32_t i = 0; i < devices; i++) {
    agpu_queue *queue = agpu_device_existing_default_queue(agpu_registry_device(i));
    if (!queue) continue;
    agpu_status status = agpu_finish_queue(queue, function);
    if (status != AGPU_SUCCESS) return status;
  }
  return AGPU_SUCCESS;
}
