// SPDX-License-Identifier: Apache-2.0
/* Buffers: a VkBuffer each, on memory from the sub-allocator. Where a memory
 * type is both device-local and host-visible (integrated GPUs, lavapipe) a
 * buffer lives there and an idle queue's reads and writes are a memcpy;
 * otherwise transfers go through staging buffers recorded in order with the
 * queue's other work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_internal.h"

/* vkCmdUpdateBuffer takes at most this many bytes inline. */
#define AGPU_VK_INLINE_WRITE 65536u
#define AGPU_VK_FILL_CHUNK (1u << 20)

static agpu_vk_buffer *agpu_vk_buffer_of(const agpu_buffer *buffer) {
  return (agpu_vk_buffer *)buffer->native;
}

static pthread_mutex_t *agpu_vk_queue_lock(agpu_queue *queue) {
  return &((agpu_vk_queue *)queue->native)->lock;
}

agpu_status agpu_vk_buffer_create(agpu_buffer *buffer) {
  agpu_vk_device *device = agpu_vk_device_of(buffer->device);
  agpu_vk_buffer *vb = calloc(1, sizeof *vb);
  if (!vb) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  int32_t type = device->direct_type >= 0                     ? device->direct_type
                 : (buffer->flags & AGPU_BUFFER_HOST_VISIBLE) ? device->staging_type
                                                              : device->device_type;
  agpu_status status =
      agpu_vk_buffer_make(device, buffer->size, type, buffer->device->info.selector, vb);
  if (status != AGPU_SUCCESS) {
    free(vb);
    return status;
  }
  if (type == device->device_type && device->direct_type < 0)
    vb->mapped = NULL; /* device memory: the host goes through staging buffers */
  buffer->native = vb;
  return AGPU_SUCCESS;
}

static void agpu_vk_buffer_free(agpu_vk_device *device, void *object) {
  agpu_vk_buffer_destroy(device, object);
  free(object);
}

void agpu_vk_buffer_release(agpu_buffer *buffer) {
  agpu_vk_buffer *vb = agpu_vk_buffer_of(buffer);
  if (!vb) return;
  agpu_vk_defer(agpu_vk_device_of(buffer->device), agpu_vk_buffer_free, vb);
  buffer->native = NULL;
}

/* Submits what the queue holds and waits for it; queue lock held. */
static agpu_status agpu_vk_drain(agpu_queue *queue) {
  uint64_t sequence = 0;
  agpu_status status = agpu_vk_queue_flush(queue, &sequence);
  return status == AGPU_SUCCESS ? agpu_vk_queue_wait(queue, sequence) : status;
}

agpu_status agpu_vk_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                                 const void *src) {
  agpu_vk_device *device = agpu_vk_device_of(buffer->device);
  agpu_vk_buffer *vb = agpu_vk_buffer_of(buffer);
  pthread_mutex_lock(agpu_vk_queue_lock(queue));
  agpu_status status = AGPU_SUCCESS;
  if (vb->mapped && agpu_vk_queue_idle(queue)) {
    memcpy((char *)vb->mapped + offset, src, size);
  } else {
    agpu_vk_batch *batch = NULL;
    status = agpu_vk_queue_recording(queue, &batch);
    if (status == AGPU_SUCCESS && size <= AGPU_VK_INLINE_WRITE && offset % 4 == 0 &&
        size % 4 == 0) {
      device->api->vkCmdUpdateBuffer(batch->commands, vb->buffer, offset, size, src);
    } else if (status == AGPU_SUCCESS) {
      agpu_vk_buffer *staging = NULL;
      status =
          agpu_vk_batch_transient(device, batch, size, buffer->device->info.selector, &staging);
      if (status == AGPU_SUCCESS) {
        memcpy(staging->mapped, src, size);
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = offset, .size = size};
        device->api->vkCmdCopyBuffer(batch->commands, staging->buffer, vb->buffer, 1, &region);
      }
    }
  }
  pthread_mutex_unlock(agpu_vk_queue_lock(queue));
  return status;
}

agpu_status agpu_vk_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                                void *dst) {
  agpu_vk_device *device = agpu_vk_device_of(buffer->device);
  agpu_vk_buffer *vb = agpu_vk_buffer_of(buffer);
  pthread_mutex_lock(agpu_vk_queue_lock(queue));
  agpu_status status = AGPU_SUCCESS;
  if (vb->mapped) {
    status = agpu_vk_drain(queue);
    if (status == AGPU_SUCCESS) memcpy(dst, (const char *)vb->mapped + offset, size);
  } else {
    /* The staging buffer is the read's own: a batch's transients go when the
     * batch retires, before the copy out. */
    agpu_vk_buffer staging;
    status = agpu_vk_buffer_make(device, size, device->staging_type, buffer->device->info.selector,
                                 &staging);
    if (status == AGPU_SUCCESS) {
      agpu_vk_batch *batch = NULL;
      status = agpu_vk_queue_recording(queue, &batch);
      if (status == AGPU_SUCCESS) {
        VkBufferCopy region = {.srcOffset = offset, .dstOffset = 0, .size = size};
        device->api->vkCmdCopyBuffer(batch->commands, vb->buffer, staging.buffer, 1, &region);
        status = agpu_vk_drain(queue);
      }
      if (status == AGPU_SUCCESS) memcpy(dst, staging.mapped, size);
      agpu_vk_buffer_destroy(device, &staging);
    }
  }
  pthread_mutex_unlock(agpu_vk_queue_lock(queue));
  return status;
}

agpu_status agpu_vk_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                                agpu_buffer *dst, size_t dst_offset, size_t size) {
  agpu_vk_device *device = agpu_vk_device_of(src->device);
  pthread_mutex_lock(agpu_vk_queue_lock(queue));
  agpu_vk_batch *batch = NULL;
  agpu_status status = agpu_vk_queue_recording(queue, &batch);
  if (status == AGPU_SUCCESS) {
    VkBufferCopy region = {.srcOffset = src_offset, .dstOffset = dst_offset, .size = size};
    device->api->vkCmdCopyBuffer(batch->commands, agpu_vk_buffer_of(src)->buffer,
                                 agpu_vk_buffer_of(dst)->buffer, 1, &region);
  }
  pthread_mutex_unlock(agpu_vk_queue_lock(queue));
  return status;
}

static void agpu_vk_repeat(void *out, size_t size, const void *pattern, size_t pattern_size) {
  for (size_t at = 0; at < size; at += pattern_size)
    memcpy((char *)out + at, pattern, pattern_size);
}

agpu_status agpu_vk_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                                const void *pattern, size_t pattern_size) {
  agpu_vk_device *device = agpu_vk_device_of(buffer->device);
  agpu_vk_buffer *vb = agpu_vk_buffer_of(buffer);
  pthread_mutex_lock(agpu_vk_queue_lock(queue));
  agpu_status status = AGPU_SUCCESS;
  if (vb->mapped && agpu_vk_queue_idle(queue)) {
    agpu_vk_repeat((char *)vb->mapped + offset, size, pattern, pattern_size);
    pthread_mutex_unlock(agpu_vk_queue_lock(queue));
    return AGPU_SUCCESS;
  }
  agpu_vk_batch *batch = NULL;
  status = agpu_vk_queue_recording(queue, &batch);
  if (status == AGPU_SUCCESS && pattern_size <= 4 && offset % 4 == 0 && size % 4 == 0) {
    uint32_t word;
    agpu_vk_repeat(&word, sizeof word, pattern, pattern_size);
    device->api->vkCmdFillBuffer(batch->commands, vb->buffer, offset, size, word);
  } else if (status == AGPU_SUCCESS) {
    /* A chunk of the pattern, copied as often as it takes; the chunk is a
     * multiple of every pattern size, so the phase never shifts. */
    size_t chunk = size < AGPU_VK_FILL_CHUNK ? size : AGPU_VK_FILL_CHUNK;
    agpu_vk_buffer *staging = NULL;
    status = agpu_vk_batch_transient(device, batch, chunk, buffer->device->info.selector, &staging);
    size_t regions = (size + chunk - 1) / chunk;
    VkBufferCopy *copies = status == AGPU_SUCCESS ? calloc(regions, sizeof *copies) : NULL;
    if (status == AGPU_SUCCESS && !copies)
      status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    if (status == AGPU_SUCCESS) {
      agpu_vk_repeat(staging->mapped, chunk, pattern, pattern_size);
      for (size_t i = 0; i < regions; i++) {
        copies[i].dstOffset = offset + i * chunk;
        copies[i].size = size - i * chunk < chunk ? size - i * chunk : chunk;
      }
      device->api->vkCmdCopyBuffer(batch->commands, staging->buffer, vb->buffer, (uint32_t)regions,
                                   copies);
    }
    free(copies);
  }
  pthread_mutex_unlock(agpu_vk_queue_lock(queue));
  return status;
}

agpu_status agpu_vk_buffer_map(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                               void **ptr) {
  (void)size;
  agpu_vk_buffer *vb = agpu_vk_buffer_of(buffer);
  if (!vb->mapped)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "agpu_buffer_map: this buffer on %s is in device-local memory the host "
                          "cannot see (create it with AGPU_BUFFER_HOST_VISIBLE, or read and write)",
                          buffer->device->info.selector);
  pthread_mutex_lock(agpu_vk_queue_lock(queue));
  agpu_status status = agpu_vk_drain(queue);
  pthread_mutex_unlock(agpu_vk_queue_lock(queue));
  if (status == AGPU_SUCCESS) *ptr = (char *)vb->mapped + offset;
  return status;
}

agpu_status agpu_vk_buffer_unmap(agpu_queue *queue, agpu_buffer *buffer, void *ptr) {
  (void)queue, (void)buffer, (void)ptr; /* coherent memory: host writes need no flush */
  return AGPU_SUCCESS;
}
