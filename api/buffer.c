#include <stdlib.h>

#include "agpu_core.h"

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

AGPU_API agpu_status agpu_buffer_create(agpu_device *device, size_t size, uint32_t flags,
                                        agpu_buffer **buffer) {
  agpu_status status = agpu_check_device(device, "agpu_buffer_create");
  if (status != AGPU_SUCCESS) return status;
  if (!buffer)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_buffer_create: buffer is NULL");
  *buffer = NULL;
  if (size == 0)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_buffer_create: size is 0");
  const uint32_t known = AGPU_BUFFER_READ_ONLY | AGPU_BUFFER_WRITE_ONLY | AGPU_BUFFER_HOST_VISIBLE;
  if (flags & ~known)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_buffer_create: unknown flags 0x%x",
                          flags & ~known);
  if ((flags & AGPU_BUFFER_READ_ONLY) && (flags & AGPU_BUFFER_WRITE_ONLY))
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_buffer_create: READ_ONLY and WRITE_ONLY together");
  if (size > device->info.max_alloc_bytes) {
    char want[32], max[32], total[32];
    return agpu_error_set(AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
                          "agpu_buffer_create: %s (%zu bytes) asked on %s, but its largest "
                          "allocation is %s (device memory %s)",
                          agpu_format_bytes(size, want, sizeof want), size, device->info.selector,
                          agpu_format_bytes(device->info.max_alloc_bytes, max, sizeof max),
                          agpu_format_bytes(device->info.global_mem_bytes, total, sizeof total));
  }
  agpu_buffer *created = calloc(1, sizeof *created);
  if (!created) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "buffer: out of host memory");
  created->object.type = AGPU_OBJECT_BUFFER;
  created->device = device;
  created->size = size;
  created->flags = flags;
  status = device->backend->ops->buffer_create(created);
  if (status != AGPU_SUCCESS) {
    free(created);
    return status;
  }
  agpu_device_account_alloc(device, size);
  *buffer = created;
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_buffer_release(agpu_buffer *buffer) {
  agpu_status status =
      agpu_check_object(buffer, AGPU_OBJECT_BUFFER, "agpu_buffer_release", "buffer");
  if (status != AGPU_SUCCESS) return status;
  buffer->device->backend->ops->buffer_release(buffer);
  agpu_device_account_free(buffer->device, buffer->size);
  buffer->object.type = AGPU_OBJECT_DEAD;
  free(buffer);
  return AGPU_SUCCESS;
}

AGPU_API size_t agpu_buffer_size(const agpu_buffer *buffer) {
  if (agpu_check_object(buffer, AGPU_OBJECT_BUFFER, "agpu_buffer_size", "buffer") != AGPU_SUCCESS)
    return 0;
  return buffer->size;
}

AGPU_API agpu_device *agpu_buffer_device(const agpu_buffer *buffer) {
  if (agpu_check_object(buffer, AGPU_OBJECT_BUFFER, "agpu_buffer_device", "buffer") != AGPU_SUCCESS)
    return NULL;
  return buffer->device;
}

/* The checks every transfer shares: a live buffer, a queue of its device, a
 * host pointer, and a range inside the buffer. */
static agpu_status agpu_check_transfer(agpu_queue **queue, agpu_buffer *buffer, size_t offset,
                                       size_t size, const void *host, const char *function) {
  agpu_status status = agpu_check_object(buffer, AGPU_OBJECT_BUFFER, function, "buffer");
  if (status != AGPU_SUCCESS) return status;
  status = agpu_resolve_queue(queue, buffer->device, function);
  if (status != AGPU_SUCCESS) return status;
  if (!host && size)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: host pointer is NULL", function);
  return agpu_check_range(buffer, offset, size, function, "the");
}

AGPU_API agpu_status agpu_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                       size_t size, const void *src) {
  agpu_status status = agpu_check_transfer(&queue, buffer, offset, size, src, "agpu_buffer_write");
  if (status != AGPU_SUCCESS || size == 0) return status;
  return buffer->device->backend->ops->buffer_write(queue, buffer, offset, size, src);
}

AGPU_API agpu_status agpu_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                      size_t size, void *dst) {
  agpu_status status = agpu_check_transfer(&queue, buffer, offset, size, dst, "agpu_buffer_read");
  if (status != AGPU_SUCCESS || size == 0) return status;
  return buffer->device->backend->ops->buffer_read(queue, buffer, offset, size, dst);
}

AGPU_API agpu_status agpu_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                                      agpu_buffer *dst, size_t dst_offset, size_t size) {
  static const char function[] = "agpu_buffer_copy";
  agpu_status status = agpu_check_object(src, AGPU_OBJECT_BUFFER, function, "src");
  if (status == AGPU_SUCCESS) status = agpu_check_object(dst, AGPU_OBJECT_BUFFER, function, "dst");
  if (status != AGPU_SUCCESS) return status;
  if (src->device != dst->device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: src is on %s and dst on %s; copy between devices through the host",
                          function, src->device->info.selector, dst->device->info.selector);
  status = agpu_resolve_queue(&queue, src->device, function);
  if (status == AGPU_SUCCESS) status = agpu_check_range(src, src_offset, size, function, "the src");
  if (status == AGPU_SUCCESS) status = agpu_check_range(dst, dst_offset, size, function, "the dst");
  if (status != AGPU_SUCCESS || size == 0) return status;
  if (src == dst && src_offset < dst_offset + size && dst_offset < src_offset + size)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: source and destination ranges overlap in one buffer", function);
  return src->device->backend->ops->buffer_copy(queue, src, src_offset, dst, dst_offset, size);
}

AGPU_API agpu_status agpu_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                      size_t size, const void *pattern, size_t pattern_size) {
  static const char function[] = "agpu_buffer_fill";
  agpu_status status = agpu_check_transfer(&queue, buffer, offset, size, pattern, function);
  if (status != AGPU_SUCCESS) return status;
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 && pattern_size != 8 &&
      pattern_size != 16)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: pattern_size %zu (must be 1, 2, 4, 8 or 16)", function,
                          pattern_size);
  if (offset % pattern_size || size % pattern_size)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: offset %zu and size %zu must be multiples of the pattern size %zu",
                          function, offset, size, pattern_size);
  if (size == 0) return AGPU_SUCCESS;
  return buffer->device->backend->ops->buffer_fill(queue, buffer, offset, size, pattern,
                                                   pattern_size);
}

AGPU_API agpu_status agpu_buffer_map(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                     size_t size, void **ptr) {
  static const char function[] = "agpu_buffer_map";
  agpu_status status = agpu_check_transfer(&queue, buffer, offset, size, ptr, function);
  if (status != AGPU_SUCCESS) return status;
  if (!ptr) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: ptr is NULL", function);
  *ptr = NULL;
  if (size == 0) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: size is 0", function);
  const agpu_backend_ops *ops = buffer->device->backend->ops;
  uint32_t caps = ops->device_caps ? ops->device_caps(buffer->device) : 0;
  if (!(caps & AGPU_CAP_MAP) || !ops->buffer_map)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "%s: %s cannot map buffers cheaply; use agpu_buffer_read/write", function,
                          buffer->device->info.selector);
  return ops->buffer_map(queue, buffer, offset, size, ptr);
}

AGPU_API agpu_status agpu_buffer_unmap(agpu_queue *queue, agpu_buffer *buffer, void *ptr) {
  static const char function[] = "agpu_buffer_unmap";
  agpu_status status = agpu_check_transfer(&queue, buffer, 0, 0, ptr, function);
  if (status != AGPU_SUCCESS) return status;
  if (!ptr) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: ptr is NULL", function);
  const agpu_backend_ops *ops = buffer->device->backend->ops;
  if (!ops->buffer_unmap)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED, "%s: %s cannot map buffers", function,
                          buffer->device->info.selector);
  return ops->buffer_unmap(queue, buffer, ptr);
}
