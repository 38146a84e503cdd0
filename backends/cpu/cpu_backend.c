// SPDX-License-Identifier: Apache-2.0
/* The built-in CPU backend: a device that needs no driver. Buffers live in
 * host memory; launches, copies and fills are queued and run in order on
 * the queue's thread (cpu_queue.c), host reads, writes and maps wait for
 * the queue's earlier work.
 * Kernels are translated to C, compiled by the system C compiler and run on
 * a thread pool (cpu_program.c, cpu_compile.c, cpu_launch.c, cpu_pool.c). */
#include <stdio.h>
#include <stdlib.h>

#include "cpu_internal.h"
#include "cpu_queue.h"

static agpu_status agpu_cpu_init(agpu_backend *backend) {
  agpu_device_info info;
  agpu_cpu_describe_host(&info);
  if (!agpu_backend_add_device(backend, &info, NULL))
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  backend->available = true;
  snprintf(backend->library, sizeof backend->library, "built in");
  return AGPU_SUCCESS;
}

static uint32_t agpu_cpu_device_caps(agpu_device *device) {
  return AGPU_CAP_MAP | AGPU_CAP_BUILD_PORTABLE | AGPU_CAP_NONUNIFORM_GROUPS;
}

static agpu_status agpu_cpu_device_memory(agpu_device *device, agpu_memory_info *info) {
  uint64_t total = 0, available = 0;
  if (agpu_cpu_host_memory(&total, &available)) {
    info->total_bytes = total;
    info->free_bytes = available;
    info->free_known = true;
  }
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_queue_create(agpu_queue *queue) {
  return agpu_cpu_queue_new(queue);
}
static void agpu_cpu_queue_release(agpu_queue *queue) {
  agpu_cpu_queue_delete(queue);
}
static agpu_status agpu_cpu_queue_finish(agpu_queue *queue) {
  return agpu_cpu_queue_wait(queue);
}

/* An event is a mark in its queue: the time the queue reached it. */
static agpu_status agpu_cpu_event_record(agpu_event *event) {
  agpu_cpu_mark *mark = NULL;
  agpu_status status = agpu_cpu_mark_record(event->queue, &mark);
  event->native = mark;
  return status;
}

static agpu_status agpu_cpu_event_wait(agpu_event *event) {
  return agpu_cpu_mark_wait(event->queue, event->native);
}

static agpu_status agpu_cpu_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns) {
  agpu_status status = agpu_cpu_event_wait(start);
  if (status == AGPU_SUCCESS) status = agpu_cpu_event_wait(end);
  if (status != AGPU_SUCCESS) return status;
  uint64_t a = agpu_cpu_mark_ns(start->native), b = agpu_cpu_mark_ns(end->native);
  *ns = b > a ? b - a : 0;
  return AGPU_SUCCESS;
}

static void agpu_cpu_event_release(agpu_event *event) {
  agpu_cpu_mark_release(event->native);
  event->native = NULL;
}

static char *agpu_cpu_data(const agpu_buffer *buffer) {
  return ((agpu_cpu_buffer *)buffer->native)->data;
}

static agpu_status agpu_cpu_buffer_create(agpu_buffer *buffer) {
  agpu_cpu_buffer *native = calloc(1, sizeof *native);
  if (!native || !agpu_cpu_memory_alloc(native, buffer->size)) {
    free(native);
    char want[32], total[32];
    return agpu_error_set(
        AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
        "cpu: allocation of %s (%zu bytes) failed; the system has %s",
        agpu_format_bytes(buffer->size, want, sizeof want), buffer->size,
        agpu_format_bytes(buffer->device->info.global_mem_bytes, total, sizeof total));
  }
  buffer->native = native;
  return AGPU_SUCCESS;
}

/* Waits for the queued commands that use the buffer (on any queue). */
static void agpu_cpu_buffer_release(agpu_buffer *buffer) {
  agpu_cpu_buffer *native = buffer->native;
  agpu_cpu_buffer_forget(native);
  agpu_cpu_memory_free(native);
  free(native);
  buffer->native = NULL;
}

/* Host transfers wait for the queue's earlier work, then copy at once. */
static agpu_status agpu_cpu_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                         size_t size, const void *src) {
  agpu_status status = agpu_cpu_queue_wait(queue);
  agpu_cpu_buffer_wait_idle(buffer->native); /* work on other queues */
  if (status == AGPU_SUCCESS) memcpy(agpu_cpu_data(buffer) + offset, src, size);
  return status;
}

static agpu_status agpu_cpu_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                        size_t size, void *dst) {
  agpu_status status = agpu_cpu_queue_wait(queue);
  agpu_cpu_buffer_wait_idle(buffer->native); /* work on other queues */
  if (status == AGPU_SUCCESS) memcpy(dst, agpu_cpu_data(buffer) + offset, size);
  return status;
}

typedef struct agpu_cpu_transfer {
  agpu_cpu_command command;
  agpu_cpu_buffer *uses[2];
  char *dst;
  const char *src; /* a copy's source, or the fill's pattern */
  size_t size, pattern_size;
  unsigned char pattern[16];
} agpu_cpu_transfer;

static agpu_status agpu_cpu_copy_run(agpu_cpu_command *command) {
  agpu_cpu_transfer *t = (agpu_cpu_transfer *)command;
  memcpy(t->dst, t->src, t->size);
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_fill_run(agpu_cpu_command *command) {
  agpu_cpu_transfer *t = (agpu_cpu_transfer *)command;
  if (t->pattern_size == 1) {
    memset(t->dst, t->pattern[0], t->size);
    return AGPU_SUCCESS;
  }
  /* Write the pattern once, then double the filled prefix. */
  memcpy(t->dst, t->pattern, t->pattern_size);
  size_t filled = t->pattern_size;
  while (filled < t->size) {
    size_t chunk = filled < t->size - filled ? filled : t->size - filled;
    memcpy(t->dst + filled, t->dst, chunk);
    filled += chunk;
  }
  return AGPU_SUCCESS;
}

static void agpu_cpu_transfer_destroy(agpu_cpu_command *command) {
  free(command);
}

static agpu_cpu_transfer *agpu_cpu_transfer_new(agpu_status (*run)(agpu_cpu_command *)) {
  agpu_cpu_transfer *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->command.run = run;
  t->command.destroy = agpu_cpu_transfer_destroy;
  t->command.uses = t->uses;
  return t;
}

static void agpu_cpu_transfer_use(agpu_cpu_transfer *t, agpu_buffer *buffer) {
  t->uses[t->command.use_count++] = buffer->native;
}

static agpu_status agpu_cpu_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                                        agpu_buffer *dst, size_t dst_offset, size_t size) {
  agpu_cpu_transfer *t = agpu_cpu_transfer_new(agpu_cpu_copy_run);
  if (!t) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  t->dst = agpu_cpu_data(dst) + dst_offset;
  t->src = agpu_cpu_data(src) + src_offset;
  t->size = size;
  agpu_cpu_transfer_use(t, src);
  agpu_cpu_transfer_use(t, dst);
  return agpu_cpu_queue_submit(queue, &t->command);
}

static agpu_status agpu_cpu_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                        size_t size, const void *pattern, size_t pattern_size) {
  agpu_cpu_transfer *t = agpu_cpu_transfer_new(agpu_cpu_fill_run);
  if (!t) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  t->dst = agpu_cpu_data(buffer) + offset;
  t->size = size;
  t->pattern_size = pattern_size;
  memcpy(t->pattern, pattern, pattern_size);
  agpu_cpu_transfer_use(t, buffer);
  return agpu_cpu_queue_submit(queue, &t->command);
}

/* The memory is the buffer's: a map waits for the queue's earlier work. */
static agpu_status agpu_cpu_buffer_map(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                       size_t size, void **ptr) {
  agpu_status status = agpu_cpu_queue_wait(queue);
  agpu_cpu_buffer_wait_idle(buffer->native); /* work on other queues */
  if (status == AGPU_SUCCESS) *ptr = agpu_cpu_data(buffer) + offset;
  return status;
}

static agpu_status agpu_cpu_buffer_unmap(agpu_queue *queue, agpu_buffer *buffer, void *ptr) {
  char *data = agpu_cpu_data(buffer);
  if ((char *)ptr < data || (char *)ptr >= data + buffer->size)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_buffer_unmap: %p was not mapped from this buffer", ptr);
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_buffer_device_address(agpu_buffer *buffer, uint64_t *address) {
  *address = (uint64_t)(uintptr_t)agpu_cpu_data(buffer);
  return AGPU_SUCCESS;
}

const agpu_backend_ops agpu_cpu_backend_ops = {
    AGPU_CORE_OPS(agpu_cpu),
    .translate_traits = agpu_cpu_translate_traits,
    .buffer_map = agpu_cpu_buffer_map,
    .buffer_unmap = agpu_cpu_buffer_unmap,
    .buffer_device_address = agpu_cpu_buffer_device_address,
};
