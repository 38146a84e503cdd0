// SPDX-License-Identifier: Apache-2.0
#include <stdlib.h>

#include "agpu_core.h"
#include "agpu_printf.h"
#include "agpu_trace.h"

void agpu_queue_unreference(agpu_queue *queue) {
  if (atomic_fetch_sub(&queue->references, 1) != 1) return;
  agpu_device_unlist_queue(queue);
  /* its launches' printf output: reported now, since nothing can wait for
   * it any more (a report waits for the launches) */
  agpu_printf_report(queue, UINT64_MAX);
  queue->device->backend->ops->queue_release(queue);
  free(queue);
}

AGPU_API agpu_status agpu_queue_release(agpu_queue *handle) {
  static const char function[] = "agpu_queue_release";
  agpu_queue *queue;
  agpu_status status = agpu_lookup_queue(handle, function, "queue", &queue);
  if (status != AGPU_SUCCESS) return status;
  if (queue->is_default) return AGPU_SUCCESS; /* owned by the device */
  status = agpu_take_queue(handle, function, "queue", &queue);
  if (status != AGPU_SUCCESS) return status;
  /* The handle is dead for the user now, even while events keep it alive. */
  agpu_queue_unreference(queue);
  return AGPU_SUCCESS;
}

/* NULL names no device: it means the default queue of every device, the
 * work queued with a NULL queue anywhere (api/device_finish.c). */
AGPU_API agpu_status agpu_queue_finish(agpu_queue *handle) {
  if (!handle) return agpu_finish_default_queues("agpu_queue_finish");
  agpu_queue *queue;
  agpu_status status = agpu_lookup_queue(handle, "agpu_queue_finish", "queue", &queue);
  if (status != AGPU_SUCCESS) return status;
  return agpu_finish_queue(queue, "agpu_queue_finish");
}

AGPU_API agpu_status agpu_event_record(agpu_queue *handle, agpu_event **event) {
  static const char function[] = "agpu_event_record";
  if (!handle) /* no device to take the default queue of */
    return agpu_error_set(AGPU_ERROR_INVALID_HANDLE,
                          "%s: queue is NULL, and an event names no device whose default queue "
                          "it could mean: pass agpu_device_default_queue(device, &queue)'s queue",
                          function);
  agpu_queue *queue;
  agpu_status status = agpu_lookup_queue(handle, function, "queue", &queue);
  if (status != AGPU_SUCCESS) return status;
  if (!event) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: event is NULL", function);
  *event = NULL;
  agpu_event *created = calloc(1, sizeof *created);
  if (!created)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", function);
  created->queue = queue;
  created->printf_mark = agpu_printf_mark(queue);
  status = queue->device->backend->ops->event_record(created);
  if (status != AGPU_SUCCESS) {
    free(created);
    return status;
  }
  status = agpu_object_publish(&created->object, AGPU_OBJECT_EVENT);
  if (status != AGPU_SUCCESS) {
    queue->device->backend->ops->event_release(created);
    free(created);
    return status;
  }
  atomic_fetch_add(&queue->references, 1);
  *event = created->object.handle;
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_event_wait(agpu_event *handle) {
  agpu_event *event;
  agpu_status status = agpu_lookup_event(handle, "agpu_event_wait", "event", &event);
  if (status != AGPU_SUCCESS) return status;
  agpu_trace_span span;
  AGPU_TRACE_BEGIN(&span, NULL);
  status =
      agpu_error_prefix(event->queue->device->backend->ops->event_wait(event), "agpu_event_wait");
  AGPU_TRACE_END(&span, status, .kind = AGPU_TRACE_EVENT_WAIT, .device = event->queue->device,
                 .queue = event->queue);
  if (status == AGPU_SUCCESS)
    status =
        agpu_error_prefix(agpu_printf_report(event->queue, event->printf_mark), "agpu_event_wait");
  return status;
}

AGPU_API agpu_status agpu_event_elapsed_ns(agpu_event *start_handle, agpu_event *end_handle,
                                           uint64_t *ns) {
  static const char function[] = "agpu_event_elapsed_ns";
  agpu_event *start, *end;
  agpu_status status = agpu_lookup_event(start_handle, function, "start", &start);
  if (status == AGPU_SUCCESS) status = agpu_lookup_event(end_handle, function, "end", &end);
  if (status != AGPU_SUCCESS) return status;
  if (!ns) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: ns is NULL", function);
  if (start->queue->device != end->queue->device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: events of different devices (%s, %s)",
                          function, start->queue->device->info.selector,
                          end->queue->device->info.selector);
  return agpu_error_prefix(start->queue->device->backend->ops->event_elapsed_ns(start, end, ns),
                           function);
}

AGPU_API agpu_status agpu_event_release(agpu_event *handle) {
  agpu_event *event;
  agpu_status status = agpu_take_event(handle, "agpu_event_release", "event", &event);
  if (status != AGPU_SUCCESS) return status;
  agpu_queue *queue = event->queue;
  queue->device->backend->ops->event_release(event);
  free(event);
  agpu_queue_unreference(queue);
  return AGPU_SUCCESS;
}
