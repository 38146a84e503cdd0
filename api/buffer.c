// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>
#include <stdlib.h>

#include "agpu_core.h"
#include "agpu_printf.h"
#include "agpu_telemetry.h"
#include "agpu_trace.h"

/* Live maps of every buffer, so that unmapping a pointer that was never
 * mapped (or twice) is refused by the core on every backend. */
typedef struct agpu_mapping {
  void *ptr;
  struct agpu_mapping *next;
} agpu_mapping;

static pthread_mutex_t agpu_mapping_lock = PTHREAD_MUTEX_INITIALIZER;

static agpu_status agpu_mapping_add(agpu_buffer *buffer, void *ptr) {
  agpu_mapping *mapping = malloc(sizeof *mapping);
  if (!mapping)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_buffer_map: out of host memory");
  mapping->ptr = ptr;
  pthread_mutex_lock(&agpu_mapping_lock);
  mapping->next = buffer->mappings;
  buffer->mappings = mapping;
  pthread_mutex_unlock(&agpu_mapping_lock);
  return AGPU_SUCCESS;
}

/* Removes one record of `ptr`; false when there is none. */
static bool agpu_mapping_remove(agpu_buffer *buffer, void *ptr) {
  pthread_mutex_lock(&agpu_mapping_lock);
  agpu_mapping **link = &buffer->mappings;
  while (*link && (*link)->ptr != ptr) link = &(*link)->next;
  agpu_mapping *found = *link;
  if (found) *link = found->next;
  pthread_mutex_unlock(&agpu_mapping_lock);
  free(found);
  return found != NULL;
}

static void agpu_mapping_clear(agpu_buffer *buffer) {
  while (buffer->mappings) {
    agpu_mapping *next = buffer->mappings->next;
    free(buffer->mappings);
    buffer->mappings = next;
  }
}

/* Checks that [offset, offset + size) lies inside the buffer, without overflow. */
static agpu_status agpu_check_range(const agpu_buffer *buffer, size_t offset, size_t size,
                                    const char *function, const char *what) {
  if (offset > buffer->size || size > buffer->size - offset)
    return agpu_error_set(AGPU_ERROR_OUT_OF_RANGE,
                          "%s: %s range at offset %zu of %zu bytes is past the end of a buffer "
                          "of %zu bytes",
                          function, what, offset, size, buffer->size);
  return AGPU_SUCCESS;
}

/* Zeroes a whole buffer through the backend's fill on the device's own
 * hygiene queue and waits for it: ZERO_INIT and SCRUB_ON_RELEASE. */
static agpu_status agpu_buffer_zero(agpu_buffer *buffer) {
  agpu_device *device = buffer->device;
  const agpu_backend_ops *ops = device->backend->ops;
  static const uint8_t zero = 0;
  pthread_mutex_lock(&device->hygiene_lock);
  agpu_status status = AGPU_SUCCESS;
  if (!device->hygiene_queue) status = agpu_queue_new_internal(device, &device->hygiene_queue);
  agpu_queue *queue = device->hygiene_queue;
  if (status == AGPU_SUCCESS) status = ops->buffer_fill(queue, buffer, 0, buffer->size, &zero, 1);
  if (status == AGPU_SUCCESS) status = ops->queue_finish(queue);
  pthread_mutex_unlock(&device->hygiene_lock);
  return status;
}

/* After an allocation failed for lack of memory: the physical device's
 * memory now and who holds it, from telemetry (docs/telemetry.md). */
static agpu_status agpu_buffer_explain_memory(agpu_device *device, agpu_status status) {
  uint32_t physical;
  if (status != AGPU_ERROR_OUT_OF_DEVICE_MEMORY ||
      agpu_device_physical_index(device, &physical) != AGPU_SUCCESS)
    return status;
  char message[2048], note[512];
  snprintf(message, sizeof message, "%s", agpu_last_error());
  agpu_tm_memory_note(physical, note, sizeof note); /* may overwrite the message */
  return agpu_error_set(status, "%s%s", message, note);
}

#define AGPU_BUFFER_KNOWN_FLAGS                                                \
  (AGPU_BUFFER_READ_ONLY | AGPU_BUFFER_WRITE_ONLY | AGPU_BUFFER_HOST_VISIBLE | \
   AGPU_BUFFER_ZERO_INIT | AGPU_BUFFER_SCRUB_ON_RELEASE)

AGPU_API agpu_status agpu_buffer_create(agpu_device *device, size_t size, uint32_t flags,
                                        agpu_buffer **buffer) {
  static const char function[] = "agpu_buffer_create";
  agpu_status status = agpu_check_device(device, function);
  if (status != AGPU_SUCCESS) return status;
  if (!buffer) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: buffer is NULL", function);
  *buffer = NULL;
  if (size == 0) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: size is 0", function);
  if (flags & ~(uint32_t)AGPU_BUFFER_KNOWN_FLAGS)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", function,
                          flags & ~(uint32_t)AGPU_BUFFER_KNOWN_FLAGS);
  if ((flags & AGPU_BUFFER_READ_ONLY) && (flags & AGPU_BUFFER_WRITE_ONLY))
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: READ_ONLY and WRITE_ONLY together",
                          function);
  if (size > device->info.max_alloc_bytes) {
    char want[32], max[32], total[32];
    status = agpu_error_set(AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
                            "%s: %s (%zu bytes) requested on %s, but its largest allocation is %s "
                            "(%llu bytes available in one buffer; device memory %s)",
                            function, agpu_format_bytes(size, want, sizeof want), size,
                            device->info.selector,
                            agpu_format_bytes(device->info.max_alloc_bytes, max, sizeof max),
                            (unsigned long long)device->info.max_alloc_bytes,
                            agpu_format_bytes(device->info.global_mem_bytes, total, sizeof total));
    return agpu_buffer_explain_memory(device, status);
  }
  agpu_buffer *created = calloc(1, sizeof *created);
  if (!created)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", function);
  created->device = device;
  created->size = size;
  created->flags = flags;
  atomic_init(&created->references, 1);
  status = device->backend->ops->buffer_create(created);
  if (status != AGPU_SUCCESS) {
    free(created);
    return agpu_buffer_explain_memory(device, agpu_error_prefix(status, function));
  }
  if (flags & AGPU_BUFFER_ZERO_INIT) status = agpu_buffer_zero(created);
  if (status == AGPU_SUCCESS) status = agpu_object_publish(&created->object, AGPU_OBJECT_BUFFER);
  if (status != AGPU_SUCCESS) {
    device->backend->ops->buffer_release(created);
    free(created);
    return agpu_error_prefix(status, function);
  }
  agpu_device_account_alloc(device, size);
  *buffer = created->object.handle;
  return AGPU_SUCCESS;
}

static void agpu_buffer_pin(void *buffer) {
  atomic_fetch_add(&((agpu_buffer *)buffer)->references, 1);
}

agpu_status agpu_lookup_buffer_pinned(const agpu_buffer *handle, const char *function,
                                      const char *argument, agpu_buffer **buffer) {
  void *found = NULL;
  agpu_status status = agpu_handle_lookup_pinned(handle, AGPU_OBJECT_BUFFER, function, argument,
                                                 agpu_buffer_pin, &found);
  *buffer = found;
  return status;
}

/* Frees the buffer when its last reference goes; a failed scrub is
 * reported, but the buffer is released all the same. */
static agpu_status agpu_buffer_unreference(agpu_buffer *buffer) {
  if (atomic_fetch_sub(&buffer->references, 1) != 1) return AGPU_SUCCESS;
  agpu_status status = AGPU_SUCCESS;
  if (buffer->flags & AGPU_BUFFER_SCRUB_ON_RELEASE) status = agpu_buffer_zero(buffer);
  buffer->device->backend->ops->buffer_release(buffer);
  agpu_device_account_free(buffer->device, buffer->size);
  agpu_mapping_clear(buffer);
  free(buffer);
  return status;
}

void agpu_buffer_unpin(agpu_buffer *buffer) {
  agpu_buffer_unreference(buffer);
}

AGPU_API agpu_status agpu_buffer_release(agpu_buffer *handle) {
  agpu_buffer *buffer;
  agpu_status status = agpu_take_buffer(handle, "agpu_buffer_release", "buffer", &buffer);
  if (status != AGPU_SUCCESS) return status;
  return agpu_buffer_unreference(buffer);
}

AGPU_API size_t agpu_buffer_size(const agpu_buffer *handle) {
  agpu_buffer *buffer;
  if (agpu_lookup_buffer(handle, "agpu_buffer_size", "buffer", &buffer) != AGPU_SUCCESS) return 0;
  return buffer->size;
}

AGPU_API agpu_device *agpu_buffer_device(const agpu_buffer *handle) {
  agpu_buffer *buffer;
  if (agpu_lookup_buffer(handle, "agpu_buffer_device", "buffer", &buffer) != AGPU_SUCCESS)
    return NULL;
  return buffer->device;
}

AGPU_API agpu_status agpu_buffer_device_address(const agpu_buffer *handle, uint64_t *address) {
  static const char function[] = "agpu_buffer_device_address";
  if (address) *address = 0;
  agpu_buffer *buffer;
  agpu_status status = agpu_lookup_buffer_pinned(handle, function, "buffer", &buffer);
  if (status != AGPU_SUCCESS) return status;
  const agpu_backend_ops *ops = buffer->device->backend->ops;
  if (!address)
    status = agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: address is NULL", function);
  else if (!ops->buffer_device_address)
    status = agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "%s: %s (%s) has no plain device address for a buffer: its memory is "
                            "reached through the backend's handles; use agpu_buffer_read, "
                            "agpu_buffer_write or agpu_buffer_map",
                            function, buffer->device->info.selector, buffer->device->info.name);
  else
    status = agpu_error_prefix(ops->buffer_device_address(buffer, address), function);
  agpu_buffer_unpin(buffer);
  return status;
}

/* The checks every transfer shares: a live buffer, a queue of its device, a
 * host pointer, and a range inside the buffer. On success the buffer is
 * pinned: the caller unpins it when the transfer is done with it. */
static agpu_status agpu_check_transfer(const agpu_queue *queue_handle, agpu_buffer *handle,
                                       size_t offset, size_t size, const void *host,
                                       const char *function, agpu_queue **queue,
                                       agpu_buffer **buffer) {
  agpu_status status = agpu_lookup_buffer_pinned(handle, function, "buffer", buffer);
  if (status != AGPU_SUCCESS) return status;
  status = agpu_resolve_queue(queue_handle, (*buffer)->device, function, queue);
  if (status == AGPU_SUCCESS && !host && size)
    status = agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: host pointer is NULL", function);
  if (status == AGPU_SUCCESS) status = agpu_check_range(*buffer, offset, size, function, "the");
  if (status != AGPU_SUCCESS) agpu_buffer_unpin(*buffer);
  return status;
}

AGPU_API agpu_status agpu_buffer_write(agpu_queue *queue_handle, agpu_buffer *handle, size_t offset,
                                       size_t size, const void *src) {
  agpu_queue *queue;
  agpu_buffer *buffer;
  agpu_status status = agpu_check_transfer(queue_handle, handle, offset, size, src,
                                           "agpu_buffer_write", &queue, &buffer);
  if (status != AGPU_SUCCESS) return status;
  agpu_trace_span span;
  AGPU_TRACE_BEGIN(&span, NULL);
  if (size)
    status = agpu_error_prefix(
        buffer->device->backend->ops->buffer_write(queue, buffer, offset, size, src),
        "agpu_buffer_write");
  AGPU_TRACE_END(&span, status, .kind = AGPU_TRACE_WRITE, .device = buffer->device, .queue = queue,
                 .bytes = size);
  agpu_buffer_unpin(buffer);
  return status;
}

AGPU_API agpu_status agpu_buffer_read(agpu_queue *queue_handle, agpu_buffer *handle, size_t offset,
                                      size_t size, void *dst) {
  agpu_queue *queue;
  agpu_buffer *buffer;
  agpu_status status = agpu_check_transfer(queue_handle, handle, offset, size, dst,
                                           "agpu_buffer_read", &queue, &buffer);
  if (status != AGPU_SUCCESS) return status;
  uint64_t printed = agpu_printf_mark(queue); /* done once the read is */
  agpu_trace_span span;
  AGPU_TRACE_BEGIN(&span, NULL);
  if (size)
    status = agpu_error_prefix(
        buffer->device->backend->ops->buffer_read(queue, buffer, offset, size, dst),
        "agpu_buffer_read");
  AGPU_TRACE_END(&span, status, .kind = AGPU_TRACE_READ, .device = buffer->device, .queue = queue,
                 .bytes = size);
  agpu_buffer_unpin(buffer);
  if (status == AGPU_SUCCESS && printed)
    status = agpu_error_prefix(agpu_printf_report(queue, printed), "agpu_buffer_read");
  return status;
}

/* What a copy checks once both buffers are pinned. */
static agpu_status agpu_check_copy(agpu_buffer *src, size_t src_offset, agpu_buffer *dst,
                                   size_t dst_offset, size_t size, const char *function) {
  if (src->device != dst->device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: src is on %s and dst on %s; copy between devices through the host",
                          function, src->device->info.selector, dst->device->info.selector);
  agpu_status status = agpu_check_range(src, src_offset, size, function, "the src");
  if (status == AGPU_SUCCESS) status = agpu_check_range(dst, dst_offset, size, function, "the dst");
  if (status == AGPU_SUCCESS && size && src == dst && src_offset < dst_offset + size &&
      dst_offset < src_offset + size)
    status = agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                            "%s: source and destination ranges overlap in one buffer", function);
  return status;
}

AGPU_API agpu_status agpu_buffer_copy(agpu_queue *queue_handle, agpu_buffer *src_handle,
                                      size_t src_offset, agpu_buffer *dst_handle, size_t dst_offset,
                                      size_t size) {
  static const char function[] = "agpu_buffer_copy";
  agpu_buffer *src = NULL, *dst = NULL;
  agpu_queue *queue;
  agpu_status status = agpu_lookup_buffer_pinned(src_handle, function, "src", &src);
  if (status != AGPU_SUCCESS) return status;
  status = agpu_lookup_buffer_pinned(dst_handle, function, "dst", &dst);
  if (status != AGPU_SUCCESS) {
    agpu_buffer_unpin(src);
    return status;
  }
  status = agpu_check_copy(src, src_offset, dst, dst_offset, size, function);
  if (status == AGPU_SUCCESS)
    status = agpu_resolve_queue(queue_handle, src->device, function, &queue);
  if (status == AGPU_SUCCESS && size) {
    agpu_trace_span span;
    AGPU_TRACE_BEGIN(&span, queue);
    status = agpu_error_prefix(
        src->device->backend->ops->buffer_copy(queue, src, src_offset, dst, dst_offset, size),
        function);
    AGPU_TRACE_END(&span, status, .kind = AGPU_TRACE_COPY, .device = src->device, .queue = queue,
                   .bytes = size);
  }
  agpu_buffer_unpin(src);
  agpu_buffer_unpin(dst);
  return status;
}

/* The pattern rules of a fill. */
static agpu_status agpu_check_fill(size_t offset, size_t size, size_t pattern_size,
                                   const char *function) {
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 && pattern_size != 8 &&
      pattern_size != 16)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: pattern_size %zu (must be 1, 2, 4, 8 or 16)", function,
                          pattern_size);
  if (offset % pattern_size || size % pattern_size)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: offset %zu and size %zu must be multiples of the pattern size %zu",
                          function, offset, size, pattern_size);
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_buffer_fill(agpu_queue *queue_handle, agpu_buffer *handle, size_t offset,
                                      size_t size, const void *pattern, size_t pattern_size) {
  static const char function[] = "agpu_buffer_fill";
  agpu_queue *queue;
  agpu_buffer *buffer;
  agpu_status status =
      agpu_check_transfer(queue_handle, handle, offset, size, pattern, function, &queue, &buffer);
  if (status != AGPU_SUCCESS) return status;
  status = agpu_check_fill(offset, size, pattern_size, function);
  if (status == AGPU_SUCCESS && size) {
    agpu_trace_span span;
    AGPU_TRACE_BEGIN(&span, queue);
    status = agpu_error_prefix(buffer->device->backend->ops->buffer_fill(
                                   queue, buffer, offset, size, pattern, pattern_size),
                               function);
    AGPU_TRACE_END(&span, status, .kind = AGPU_TRACE_FILL, .device = buffer->device, .queue = queue,
                   .bytes = size);
  }
  agpu_buffer_unpin(buffer);
  return status;
}

/* Map and unmap once the buffer is pinned. */
static agpu_status agpu_map_pinned(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                   size_t size, void **ptr);
static agpu_status agpu_unmap_pinned(agpu_queue *queue, agpu_buffer *buffer, void *ptr);

AGPU_API agpu_status agpu_buffer_map(agpu_queue *queue_handle, agpu_buffer *handle, size_t offset,
                                     size_t size, void **ptr) {
  static const char function[] = "agpu_buffer_map";
  if (ptr) *ptr = NULL;
  agpu_queue *queue;
  agpu_buffer *buffer;
  agpu_status status =
      agpu_check_transfer(queue_handle, handle, offset, size, ptr, function, &queue, &buffer);
  if (status != AGPU_SUCCESS) return status;
  status = agpu_map_pinned(queue, buffer, offset, size, ptr);
  agpu_buffer_unpin(buffer);
  return status;
}

static agpu_status agpu_map_pinned(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                   size_t size, void **ptr) {
  static const char function[] = "agpu_buffer_map";
  agpu_status status;
  if (!ptr) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: ptr is NULL", function);
  if (size == 0) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: size is 0", function);
  const agpu_backend_ops *ops = buffer->device->backend->ops;
  uint32_t caps = ops->device_caps ? ops->device_caps(buffer->device) : 0;
  if (!(caps & AGPU_CAP_MAP) || !ops->buffer_map)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "%s: %s cannot map buffers cheaply; use agpu_buffer_read/write", function,
                          buffer->device->info.selector);
  status = agpu_error_prefix(ops->buffer_map(queue, buffer, offset, size, ptr), function);
  if (status == AGPU_SUCCESS) status = agpu_mapping_add(buffer, *ptr);
  if (status != AGPU_SUCCESS && *ptr) {
    ops->buffer_unmap(queue, buffer, *ptr);
    *ptr = NULL;
  }
  return status;
}

AGPU_API agpu_status agpu_buffer_unmap(agpu_queue *queue_handle, agpu_buffer *handle, void *ptr) {
  static const char function[] = "agpu_buffer_unmap";
  agpu_queue *queue;
  agpu_buffer *buffer;
  agpu_status status =
      agpu_check_transfer(queue_handle, handle, 0, 0, ptr, function, &queue, &buffer);
  if (status != AGPU_SUCCESS) return status;
  status = agpu_unmap_pinned(queue, buffer, ptr);
  agpu_buffer_unpin(buffer);
  return status;
}

static agpu_status agpu_unmap_pinned(agpu_queue *queue, agpu_buffer *buffer, void *ptr) {
  static const char function[] = "agpu_buffer_unmap";
  agpu_status status;
  if (!ptr) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: ptr is NULL", function);
  const agpu_backend_ops *ops = buffer->device->backend->ops;
  uint32_t caps = ops->device_caps ? ops->device_caps(buffer->device) : 0;
  if (!(caps & AGPU_CAP_MAP) || !ops->buffer_unmap)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED, "%s: %s cannot map buffers", function,
                          buffer->device->info.selector);
  if (!agpu_mapping_remove(buffer, ptr))
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: %p was not mapped from this buffer (or is unmapped already)",
                          function, ptr);
  status = agpu_error_prefix(ops->buffer_unmap(queue, buffer, ptr), function);
  if (status != AGPU_SUCCESS) agpu_mapping_add(buffer, ptr); /* still mapped */
  return status;
}
