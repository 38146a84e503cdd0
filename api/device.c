// SPDX-License-Identifier: Apache-2.0
#include <stdlib.h>

#include "agpu_core.h"

static pthread_mutex_t agpu_default_queue_lock = PTHREAD_MUTEX_INITIALIZER;

AGPU_API const char *agpu_device_type_name(agpu_device_type type) {
  switch (type) {
    case AGPU_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case AGPU_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case AGPU_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case AGPU_DEVICE_TYPE_CPU:
      return "cpu";
    case AGPU_DEVICE_TYPE_OTHER:
      break;
  }
  return "other";
}

AGPU_API agpu_status agpu_device_count(uint32_t *count) {
  if (!count)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_count: count is NULL");
  *count = agpu_registry_device_count();
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_device_get(uint32_t index, agpu_device **device) {
  if (!device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_get: device is NULL");
  uint32_t total = agpu_registry_device_count();
  *device = agpu_registry_device(index);
  if (!*device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_device_get: index %u out of range (%u devices)", index, total);
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_device_get_info(const agpu_device *device, agpu_device_info *info) {
  agpu_status status = agpu_check_device(device, "agpu_device_get_info");
  if (status != AGPU_SUCCESS) return status;
  if (!info)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_get_info: info is NULL");
  *info = device->info;
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_device_memory(agpu_device *device, agpu_memory_info *info) {
  agpu_status status = agpu_check_device(device, "agpu_device_memory");
  if (status != AGPU_SUCCESS) return status;
  if (!info) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_memory: info is NULL");
  memset(info, 0, sizeof *info);
  info->total_bytes = device->info.global_mem_bytes;
  if (device->backend->ops->device_memory) {
    status = device->backend->ops->device_memory(device, info);
    if (status != AGPU_SUCCESS) return status;
  }
  info->allocated_bytes = atomic_load(&device->allocated_bytes);
  info->peak_allocated_bytes = atomic_load(&device->peak_allocated_bytes);
  return AGPU_SUCCESS;
}

void agpu_device_account_alloc(agpu_device *device, uint64_t bytes) {
  uint64_t now = atomic_fetch_add(&device->allocated_bytes, bytes) + bytes;
  uint64_t peak = atomic_load(&device->peak_allocated_bytes);
  while (now > peak && !atomic_compare_exchange_weak(&device->peak_allocated_bytes, &peak, now)) {
  }
}

void agpu_device_account_free(agpu_device *device, uint64_t bytes) {
  atomic_fetch_sub(&device->allocated_bytes, bytes);
}

static agpu_status agpu_queue_new(agpu_device *device, bool is_default, bool visible,
                                  agpu_queue **out) {
  agpu_queue *queue = calloc(1, sizeof *queue);
  if (!queue) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "queue: out of host memory");
  queue->device = device;
  queue->is_default = is_default;
  atomic_init(&queue->references, 1);
  agpu_status status = device->backend->ops->queue_create(queue);
  if (status != AGPU_SUCCESS) {
    free(queue);
    return status;
  }
  if (visible) status = agpu_object_publish(&queue->object, AGPU_OBJECT_QUEUE);
  if (status != AGPU_SUCCESS) {
    device->backend->ops->queue_release(queue);
    free(queue);
    return status;
  }
  if (visible && !is_default) agpu_device_list_queue(queue);
  *out = queue;
  return AGPU_SUCCESS;
}

agpu_status agpu_queue_new_internal(agpu_device *device, agpu_queue **queue) {
  return agpu_queue_new(device, true, false, queue);
}

AGPU_API agpu_status agpu_queue_create(agpu_device *device, agpu_queue **queue) {
  agpu_status status = agpu_check_device(device, "agpu_queue_create");
  if (status != AGPU_SUCCESS) return status;
  if (!queue)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_queue_create: queue is NULL");
  *queue = NULL;
  agpu_queue *created = NULL;
  status = agpu_queue_new(device, false, true, &created);
  if (status == AGPU_SUCCESS) *queue = created->object.handle;
  return status;
}

agpu_status agpu_device_default_queue_object(agpu_device *device, agpu_queue **queue) {
  agpu_status status = AGPU_SUCCESS;
  pthread_mutex_lock(&agpu_default_queue_lock);
  if (!device->default_queue) status = agpu_queue_new(device, true, true, &device->default_queue);
  *queue = device->default_queue;
  pthread_mutex_unlock(&agpu_default_queue_lock);
  return status;
}

agpu_queue *agpu_device_existing_default_queue(agpu_device *device) {
  pthread_mutex_lock(&agpu_default_queue_lock);
  agpu_queue *queue = device->default_queue;
  pthread_mutex_unlock(&agpu_default_queue_lock);
  return queue;
}

AGPU_API agpu_status agpu_device_default_queue(agpu_device *device, agpu_queue **queue) {
  agpu_status status = agpu_check_device(device, "agpu_device_default_queue");
  if (status != AGPU_SUCCESS) return status;
  if (!queue)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_default_queue: queue is NULL");
  *queue = NULL;
  agpu_queue *found;
  status = agpu_device_default_queue_object(device, &found);
  if (status == AGPU_SUCCESS) *queue = found->object.handle;
  return status;
}

agpu_status agpu_resolve_queue(const agpu_queue *handle, agpu_device *device, const char *function,
                               agpu_queue **queue) {
  if (!handle) return agpu_device_default_queue_object(device, queue);
  agpu_status status = agpu_lookup_queue(handle, function, "queue", queue);
  if (status != AGPU_SUCCESS) return status;
  if ((*queue)->device != device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: the buffer belongs to %s but the queue to %s", function,
                          device->info.selector, (*queue)->device->info.selector);
  return AGPU_SUCCESS;
}
