/* The built-in CPU backend: a device that needs no driver. Buffers live in
 * host memory and every queue operation completes before it returns.
 * Kernels are translated to C, compiled by the system C compiler and run on
 * a thread pool (cpu_program.c, cpu_compile.c, cpu_launch.c, cpu_pool.c). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_internal.h"

/* Buffers are aligned for the widest vector loads. */
#define AGPU_CPU_BUFFER_ALIGNMENT 64

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
  return AGPU_CAP_MAP | AGPU_CAP_BUILD_PORTABLE;
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
  return AGPU_SUCCESS;
}
static void agpu_cpu_queue_release(agpu_queue *queue) {}
static agpu_status agpu_cpu_queue_finish(agpu_queue *queue) {
  return AGPU_SUCCESS;
}

/* Work on a CPU queue is done when it returns, so an event is a timestamp. */
static agpu_status agpu_cpu_event_record(agpu_event *event) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  uint64_t *ns = malloc(sizeof *ns);
  if (!ns) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  *ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
  event->native = ns;
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_event_wait(agpu_event *event) {
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns) {
  uint64_t a = *(uint64_t *)start->native, b = *(uint64_t *)end->native;
  *ns = b > a ? b - a : 0;
  return AGPU_SUCCESS;
}

static void agpu_cpu_event_release(agpu_event *event) {
  free(event->native);
}

static agpu_status agpu_cpu_buffer_create(agpu_buffer *buffer) {
  size_t rounded =
      (buffer->size + AGPU_CPU_BUFFER_ALIGNMENT - 1) & ~(size_t)(AGPU_CPU_BUFFER_ALIGNMENT - 1);
  if (rounded < buffer->size) rounded = buffer->size; /* wrapped: let the allocation fail */
  buffer->native = aligned_alloc(AGPU_CPU_BUFFER_ALIGNMENT, rounded);
  if (!buffer->native) {
    char want[32], total[32];
    return agpu_error_set(
        AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
        "cpu: allocation of %s (%zu bytes) failed; the system has %s",
        agpu_format_bytes(buffer->size, want, sizeof want), buffer->size,
        agpu_format_bytes(buffer->device->info.global_mem_bytes, total, sizeof total));
  }
  return AGPU_SUCCESS;
}

static void agpu_cpu_buffer_release(agpu_buffer *buffer) {
  free(buffer->native);
}

static agpu_status agpu_cpu_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                         size_t size, const void *src) {
  memcpy((char *)buffer->native + offset, src, size);
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                        size_t size, void *dst) {
  memcpy(dst, (const char *)buffer->native + offset, size);
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                                        agpu_buffer *dst, size_t dst_offset, size_t size) {
  memcpy((char *)dst->native + dst_offset, (const char *)src->native + src_offset, size);
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                        size_t size, const void *pattern, size_t pattern_size) {
  char *p = (char *)buffer->native + offset;
  if (pattern_size == 1) {
    memset(p, *(const unsigned char *)pattern, size);
    return AGPU_SUCCESS;
  }
  /* Write the pattern once, then double the filled prefix. */
  memcpy(p, pattern, pattern_size);
  size_t filled = pattern_size;
  while (filled < size) {
    size_t chunk = filled < size - filled ? filled : size - filled;
    memcpy(p + filled, p, chunk);
    filled += chunk;
  }
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_buffer_map(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                       size_t size, void **ptr) {
  *ptr = (char *)buffer->native + offset;
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_buffer_unmap(agpu_queue *queue, agpu_buffer *buffer, void *ptr) {
  if ((char *)ptr < (char *)buffer->native || (char *)ptr >= (char *)buffer->native + buffer->size)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_buffer_unmap: %p was not mapped from this buffer", ptr);
  return AGPU_SUCCESS;
}

const agpu_backend_ops agpu_cpu_backend_ops = {
    .kind = AGPU_BACKEND_CPU,
    .name = "cpu",
    .init = agpu_cpu_init,
    .device_caps = agpu_cpu_device_caps,
    .device_memory = agpu_cpu_device_memory,
    .queue_create = agpu_cpu_queue_create,
    .queue_release = agpu_cpu_queue_release,
    .queue_finish = agpu_cpu_queue_finish,
    .event_record = agpu_cpu_event_record,
    .event_wait = agpu_cpu_event_wait,
    .event_elapsed_ns = agpu_cpu_event_elapsed_ns,
    .event_release = agpu_cpu_event_release,
    .buffer_create = agpu_cpu_buffer_create,
    .buffer_release = agpu_cpu_buffer_release,
    .buffer_write = agpu_cpu_buffer_write,
    .buffer_read = agpu_cpu_buffer_read,
    .buffer_copy = agpu_cpu_buffer_copy,
    .buffer_fill = agpu_cpu_buffer_fill,
    .buffer_map = agpu_cpu_buffer_map,
    .buffer_unmap = agpu_cpu_buffer_unmap,
    .program_build = agpu_cpu_program_build,
    .program_release = agpu_cpu_program_release,
    .kernel_create = agpu_cpu_kernel_create,
    .kernel_release = agpu_cpu_kernel_release,
    .program_kernel_names = agpu_cpu_program_kernel_names,
    .launch = agpu_cpu_launch,
};
