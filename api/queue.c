#include <stdlib.h>

#include "agpu_core.h"

AGPU_API agpu_status agpu_queue_release(agpu_queue *queue) {
  agpu_status status = agpu_check_object(queue, AGPU_OBJECT_QUEUE, "agpu_queue_release", "queue");
  if (status != AGPU_SUCCESS) return status;
  if (queue->is_default) return AGPU_SUCCESS; /* owned by the device */
  queue->device->backend->ops->queue_release(queue);
  queue->object.type = AGPU_OBJECT_DEAD;
  free(queue);
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_queue_finish(agpu_queue *queue) {
  agpu_status status = agpu_check_object(queue, AGPU_OBJECT_QUEUE, "agpu_queue_finish", "queue");
  if (status != AGPU_SUCCESS) return status;
  return queue->device->backend->ops->queue_finish(queue);
}

AGPU_API agpu_status agpu_event_record(agpu_queue *queue, agpu_event **event) {
  agpu_status status = agpu_check_object(queue, AGPU_OBJECT_QUEUE, "agpu_event_record", "queue");
  if (status != AGPU_SUCCESS) return status;
  if (!event)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_event_record: event is NULL");
  *event = NULL;
  agpu_event *created = calloc(1, sizeof *created);
  if (!created) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "event: out of host memory");
  created->object.type = AGPU_OBJECT_EVENT;
  created->queue = queue;
  status = queue->device->backend->ops->event_record(created);
  if (status != AGPU_SUCCESS) {
    free(created);
    return status;
  }
  *event = created;
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_event_wait(agpu_event *event) {
  agpu_status status = agpu_check_object(event, AGPU_OBJECT_EVENT, "agpu_event_wait", "event");
  if (status != AGPU_SUCCESS) return status;
  return event->queue->device->backend->ops->event_wait(event);
}

AGPU_API agpu_status agpu_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns) {
  agpu_status status =
      agpu_check_object(start, AGPU_OBJECT_EVENT, "agpu_event_elapsed_ns", "start");
  if (status == AGPU_SUCCESS)
    status = agpu_check_object(end, AGPU_OBJECT_EVENT, "agpu_event_elapsed_ns", "end");
  if (status != AGPU_SUCCESS) return status;
  if (!ns) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_event_elapsed_ns: ns is NULL");
  if (start->queue->device != end->queue->device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_event_elapsed_ns: events of different devices (%s, %s)",
                          start->queue->device->info.selector, end->queue->device->info.selector);
  return start->queue->device->backend->ops->event_elapsed_ns(start, end, ns);
}

AGPU_API agpu_status agpu_event_release(agpu_event *event) {
  agpu_status status = agpu_check_object(event, AGPU_OBJECT_EVENT, "agpu_event_release", "event");
  if (status != AGPU_SUCCESS) return status;
  event->queue->device->backend->ops->event_release(event);
  event->object.type = AGPU_OBJECT_DEAD;
  free(event);
  return AGPU_SUCCESS;
}
