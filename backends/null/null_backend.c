// SPDX-License-Identifier: Apache-2.0
/* The null backend's ops table, devices' memory, queues, events and
 * buffers. Queues run nothing, so they are always finished; events carry
 * the host's monotonic time at their record. Built without
 * AGPU_WITH_NULL_BACKEND it only says so. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "null_internal.h"

#ifndef AGPU_WITH_NULL_BACKEND

static agpu_status agpu_null_init_not_built(agpu_backend *backend) {
  return agpu_backend_not_built(backend,
                                "built without the null backend (-DAGPU_WITH_NULL_BACKEND=OFF)");
}

const agpu_backend_ops agpu_null_backend_ops = {.init = agpu_null_init_not_built};

#else

static agpu_status agpu_null_init(agpu_backend *backend) {
  backend->available = true;
  return agpu_null_enumerate(backend);
}

static uint32_t agpu_null_device_caps(agpu_device *device) {
  (void)device;
  return AGPU_CAP_BUILD_PORTABLE | AGPU_CAP_MAP | AGPU_CAP_NONUNIFORM_GROUPS;
}

static agpu_status agpu_null_device_memory(agpu_device *device, agpu_memory_info *info) {
  info->total_bytes = device->info.global_mem_bytes;
  return AGPU_SUCCESS;
}

/* ------------------------------------------------------ queues, events */

static agpu_status agpu_null_queue_create(agpu_queue *queue) {
  queue->native = NULL; /* nothing runs, so nothing waits */
  return AGPU_SUCCESS;
}

static void agpu_null_queue_release(agpu_queue *queue) {
  (void)queue;
}

static agpu_status agpu_null_queue_finish(agpu_queue *queue) {
  (void)queue;
  return AGPU_SUCCESS;
}

static agpu_status agpu_null_event_record(agpu_event *event) {
  uint64_t *ns = malloc(sizeof *ns);
  if (!ns) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "null: out of host memory");
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  *ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
  event->native = ns;
  return AGPU_SUCCESS;
}

static agpu_status agpu_null_event_wait(agpu_event *event) {
  (void)event;
  return AGPU_SUCCESS;
}

static agpu_status agpu_null_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns) {
  uint64_t a = *(uint64_t *)start->native, b = *(uint64_t *)end->native;
  *ns = b > a ? b - a : 0;
  return AGPU_SUCCESS;
}

static void agpu_null_event_release(agpu_event *event) {
  free(event->native);
  event->native = NULL;
}

/* ------------------------------------------------------------ buffers */

static agpu_status agpu_null_buffer_create(agpu_buffer *buffer) {
  buffer->native = malloc(buffer->size ? buffer->size : 1);
  if (!buffer->native)
    return agpu_error_set(AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
                          "null: out of host memory for a buffer of %zu bytes", buffer->size);
  return AGPU_SUCCESS;
}

static void agpu_null_buffer_release(agpu_buffer *buffer) {
  free(buffer->native);
  buffer->native = NULL;
}

static agpu_status agpu_null_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                          size_t size, const void *src) {
  (void)queue;
  memcpy((char *)buffer->native + offset, src, size);
  return AGPU_SUCCESS;
}

static agpu_status agpu_null_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                         size_t size, void *dst) {
  (void)queue;
  memcpy(dst, (const char *)buffer->native + offset, size);
  return AGPU_SUCCESS;
}

static agpu_status agpu_null_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                                         agpu_buffer *dst, size_t dst_offset, size_t size) {
  (void)queue;
  memmove((char *)dst->native + dst_offset, (const char *)src->native + src_offset, size);
  return AGPU_SUCCESS;
}

static agpu_status agpu_null_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                         size_t size, const void *pattern, size_t pattern_size) {
  (void)queue;
  for (size_t done = 0; done < size; done += pattern_size)
    memcpy((char *)buffer->native + offset + done, pattern, pattern_size);
  return AGPU_SUCCESS;
}

static agpu_status agpu_null_buffer_map(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                        size_t size, void **ptr) {
  (void)queue, (void)size;
  *ptr = (char *)buffer->native + offset;
  return AGPU_SUCCESS;
}

static agpu_status agpu_null_buffer_unmap(agpu_queue *queue, agpu_buffer *buffer, void *ptr) {
  (void)queue, (void)buffer, (void)ptr;
  return AGPU_SUCCESS;
}

const agpu_backend_ops agpu_null_backend_ops = {
    AGPU_CORE_OPS(agpu_null),
    .buffer_map = agpu_null_buffer_map,
    .buffer_unmap = agpu_null_buffer_unmap,
};

#endif /* AGPU_WITH_NULL_BACKEND */
