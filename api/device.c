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

static agpu_status agpu_queue_new(agpu_device *device, bool is_default, agpu_queue **out) {
  agpu_queue *queue = calloc(1, sizeof *queue);
  if (!queue) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "queue: out of host memory");
  queue->object.type = AGPU_OBJECT_QUEUE;
  queue->device = device;
  queue->is_default = is_default;
  agpu_status status = device->backend->ops->queue_create(queue);
  if (status != AGPU_SUCCESS) {
    free(queue);
    return status;
  }
  *out = queue;
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_queue_create(agpu_device *device, agpu_queue **queue) {
  agpu_status status = agpu_check_device(device, "agpu_queue_create");
  if (status != AGPU_SUCCESS) return status;
  if (!queue)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_queue_create: queue is NULL");
  *queue = NULL;
  return agpu_queue_new(device, false, queue);
}

AGPU_API agpu_status agpu_device_default_queue(agpu_device *device, agpu_queue **queue) {
  agpu_status status = agpu_check_device(device, "agpu_device_default_queue");
  if (status != AGPU_SUCCESS) return status;
  if (!queue)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_default_queue: queue is NULL");
  pthread_mutex_lock(&agpu_default_queue_lock);
  if (!device->default_queue) status = agpu_queue_new(device, true, &device->default_queue);
  *queue = device->default_queue;
  pthread_mutex_unlock(&agpu_default_queue_lock);
  return status;
}

agpu_status agpu_resolve_queue(agpu_queue **queue, agpu_device *device, const char *function) {
  if (!*queue) {
    agpu_status status = agpu_device_default_queue(device, queue);
    if (status != AGPU_SUCCESS) return status;
  }
  agpu_status status = agpu_check_object(*queue, AGPU_OBJECT_QUEUE, function, "queue");
  if (status != AGPU_SUCCESS) return status;
  if ((*queue)->device != device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: the buffer belongs to %s but the queue to %s", function,
                          device->info.selector, (*queue)->device->info.selector);
  return AGPU_SUCCESS;
}
