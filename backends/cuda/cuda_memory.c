// SPDX-License-Identifier: Apache-2.0
/* Queues (one non-blocking stream each), events, and device memory. Every
 * call runs with the device's primary context pushed on this thread. */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

static const agpu_cuda_api *agpu_cuda_api_of(const agpu_device *device) {
  return agpu_cuda_device_of(device)->api;
}

static agpu_cu_stream agpu_cuda_stream(const agpu_queue *queue) {
  return (agpu_cu_stream)queue->native;
}

/* Names the device after a failure message. */
static agpu_status agpu_cuda_fail_on(const agpu_device *device, const char *call,
                                     agpu_cu_result result) {
  agpu_status status = agpu_cuda_fail(agpu_cuda_api_of(device), call, result);
  agpu_error_append(" on %s", device->info.selector);
  return status;
}

/* ---------------------------------------------------------------- queues */

agpu_status agpu_cuda_queue_create(agpu_queue *queue) {
  agpu_status status = agpu_cuda_enter(queue->device);
  if (status != AGPU_SUCCESS) return status;
  agpu_cu_stream stream = NULL;
  agpu_cu_result result =
      agpu_cuda_api_of(queue->device)->cuStreamCreate(&stream, AGPU_CU_STREAM_NON_BLOCKING);
  agpu_cuda_leave(queue->device);
  if (result != AGPU_CUDA_SUCCESS)
    return agpu_cuda_fail_on(queue->device, "cuStreamCreate", result);
  queue->native = stream;
  return AGPU_SUCCESS;
}

void agpu_cuda_queue_release(agpu_queue *queue) {
  if (!queue->native || agpu_cuda_enter(queue->device) != AGPU_SUCCESS) return;
  /* Work still queued completes; the stream's resources go afterwards. */
  agpu_cuda_api_of(queue->device)->cuStreamDestroy(agpu_cuda_stream(queue));
  agpu_cuda_leave(queue->device);
  queue->native = NULL;
}

agpu_status agpu_cuda_queue_finish(agpu_queue *queue) {
  agpu_status status = agpu_cuda_enter(queue->device);
  if (status != AGPU_SUCCESS) return status;
  agpu_cu_result result =
      agpu_cuda_api_of(queue->device)->cuStreamSynchronize(agpu_cuda_stream(queue));
  agpu_cuda_leave(queue->device);
  if (result != AGPU_CUDA_SUCCESS)
    return agpu_cuda_fail_on(queue->device, "cuStreamSynchronize", result);
  return AGPU_SUCCESS;
}

/* ---------------------------------------------------------------- events */

agpu_status agpu_cuda_event_record(agpu_event *event) {
  agpu_device *device = event->queue->device;
  const agpu_cuda_api *api = agpu_cuda_api_of(device);
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_cu_event created = NULL;
  const char *call = "cuEventCreate";
  agpu_cu_result result = api->cuEventCreate(&created, AGPU_CU_EVENT_DEFAULT);
  if (result == AGPU_CUDA_SUCCESS) {
    call = "cuEventRecord";
    result = api->cuEventRecord(created, agpu_cuda_stream(event->queue));
    if (result != AGPU_CUDA_SUCCESS) api->cuEventDestroy(created);
  }
  agpu_cuda_leave(device);
  if (result != AGPU_CUDA_SUCCESS) return agpu_cuda_fail_on(device, call, result);
  event->native = created;
  return AGPU_SUCCESS;
}

agpu_status agpu_cuda_event_wait(agpu_event *event) {
  agpu_device *device = event->queue->device;
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_cu_result result = agpu_cuda_api_of(device)->cuEventSynchronize(event->native);
  agpu_cuda_leave(device);
  if (result != AGPU_CUDA_SUCCESS) return agpu_cuda_fail_on(device, "cuEventSynchronize", result);
  return AGPU_SUCCESS;
}

agpu_status agpu_cuda_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns) {
  agpu_device *device = start->queue->device;
  const agpu_cuda_api *api = agpu_cuda_api_of(device);
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_cu_result result = api->cuEventSynchronize(end->native);
  float milliseconds = 0.0f;
  if (result == AGPU_CUDA_SUCCESS)
    result = api->cuEventElapsedTime(&milliseconds, start->native, end->native);
  agpu_cuda_leave(device);
  if (result != AGPU_CUDA_SUCCESS) return agpu_cuda_fail_on(device, "cuEventElapsedTime", result);
  *ns = milliseconds > 0.0f ? (uint64_t)((double)milliseconds * 1e6 + 0.5) : 0;
  return AGPU_SUCCESS;
}

void agpu_cuda_event_release(agpu_event *event) {
  agpu_device *device = event->queue->device;
  if (!event->native || agpu_cuda_enter(device) != AGPU_SUCCESS) return;
  agpu_cuda_api_of(device)->cuEventDestroy(event->native);
  agpu_cuda_leave(device);
  event->native = NULL;
}

/* --------------------------------------------------------------- buffers */

agpu_status agpu_cuda_buffer_create(agpu_buffer *buffer) {
  agpu_device *device = buffer->device;
  const agpu_cuda_api *api = agpu_cuda_api_of(device);
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_cu_deviceptr pointer = 0;
  agpu_cu_result result = api->cuMemAlloc(&pointer, buffer->size);
  size_t free_bytes = 0, total_bytes = 0;
  bool known = result == AGPU_CUDA_ERROR_OUT_OF_MEMORY &&
               api->cuMemGetInfo(&free_bytes, &total_bytes) == AGPU_CUDA_SUCCESS;
  agpu_cuda_leave(device);
  if (result == AGPU_CUDA_SUCCESS) {
    buffer->native = (void *)(uintptr_t)pointer;
    return AGPU_SUCCESS;
  }
  status = agpu_cuda_fail(api, "cuMemAlloc", result);
  agpu_error_append(" for %zu bytes on %s (%s)", buffer->size, device->info.selector,
                    device->info.name);
  if (known)
    agpu_error_append(": the device has %zu bytes, %zu of them free", total_bytes, free_bytes);
  return status;
}

void agpu_cuda_buffer_release(agpu_buffer *buffer) {
  if (!buffer->native || agpu_cuda_enter(buffer->device) != AGPU_SUCCESS) return;
  agpu_cuda_api_of(buffer->device)->cuMemFree(agpu_cuda_pointer(buffer));
  agpu_cuda_leave(buffer->device);
  buffer->native = NULL;
}

/* The CUdeviceptr, valid in the device's primary context (agpu_cuda_enter). */
agpu_status agpu_cuda_buffer_device_address(agpu_buffer *buffer, uint64_t *address) {
  *address = (uint64_t)agpu_cuda_pointer(buffer);
  return AGPU_SUCCESS;
}

/* A host transfer: queued on the stream, then waited for, so that the host
 * memory may be reused (write) or read (read) on return. */
static agpu_status agpu_cuda_host_transfer(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                           size_t size, const void *src, void *dst) {
  agpu_device *device = buffer->device;
  const agpu_cuda_api *api = agpu_cuda_api_of(device);
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_cu_stream stream = agpu_cuda_stream(queue);
  agpu_cu_deviceptr at = agpu_cuda_pointer(buffer) + offset;
  const char *call = src ? "cuMemcpyHtoDAsync" : "cuMemcpyDtoHAsync";
  agpu_cu_result result = src ? api->cuMemcpyHtoDAsync(at, src, size, stream)
                              : api->cuMemcpyDtoHAsync(dst, at, size, stream);
  if (result == AGPU_CUDA_SUCCESS) {
    call = "cuStreamSynchronize";
    result = api->cuStreamSynchronize(stream);
  }
  agpu_cuda_leave(device);
  if (result == AGPU_CUDA_SUCCESS) return AGPU_SUCCESS;
  status = agpu_cuda_fail(api, call, result);
  agpu_error_append(" (%s %zu bytes at offset %zu of a %zu-byte buffer on %s)",
                    src ? "writing" : "reading", size, offset, buffer->size, device->info.selector);
  return status;
}

agpu_status agpu_cuda_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                   size_t size, const void *src) {
  return agpu_cuda_host_transfer(queue, buffer, offset, size, src, NULL);
}

agpu_status agpu_cuda_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                  size_t size, void *dst) {
  return agpu_cuda_host_transfer(queue, buffer, offset, size, NULL, dst);
}

agpu_status agpu_cuda_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                                  agpu_buffer *dst, size_t dst_offset, size_t size) {
  agpu_device *device = src->device;
  const agpu_cuda_api *api = agpu_cuda_api_of(device);
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_cu_result result =
      api->cuMemcpyDtoDAsync(agpu_cuda_pointer(dst) + dst_offset,
                             agpu_cuda_pointer(src) + src_offset, size, agpu_cuda_stream(queue));
  agpu_cuda_leave(device);
  if (result == AGPU_CUDA_SUCCESS) return AGPU_SUCCESS;
  status = agpu_cuda_fail(api, "cuMemcpyDtoDAsync", result);
  agpu_error_append(" (%zu bytes on %s)", size, device->info.selector);
  return status;
}

/* True when `pattern` is one `unit`-byte value repeated. */
static bool agpu_cuda_repeats(const unsigned char *pattern, size_t size, size_t unit) {
  for (size_t i = unit; i < size; i++)
    if (pattern[i] != pattern[i - unit]) return false;
  return true;
}

/* Fills with the narrowest memset the pattern allows; an 8- or 16-byte
 * pattern that is no repeated 32-bit word is written once, then doubled by
 * device-to-device copies of what is already filled (log2 of the size
 * copies, every one on the queue). */
static agpu_cu_result agpu_cuda_fill_queued(const agpu_cuda_api *api, agpu_cu_stream stream,
                                            agpu_cu_deviceptr at, size_t size,
                                            const unsigned char *pattern, size_t pattern_size,
                                            const char **call) {
  if (agpu_cuda_repeats(pattern, pattern_size, 1)) {
    *call = "cuMemsetD8Async";
    return api->cuMemsetD8Async(at, pattern[0], size, stream);
  }
  if (agpu_cuda_repeats(pattern, pattern_size, 2)) {
    uint16_t value;
    memcpy(&value, pattern, sizeof value);
    *call = "cuMemsetD16Async";
    return api->cuMemsetD16Async(at, value, size / 2, stream);
  }
  if (agpu_cuda_repeats(pattern, pattern_size, 4)) {
    uint32_t value;
    memcpy(&value, pattern, sizeof value);
    *call = "cuMemsetD32Async";
    return api->cuMemsetD32Async(at, value, size / 4, stream);
  }
  /* The pattern's bytes live on this stack frame: the upload is waited for. */
  *call = "cuMemcpyHtoDAsync";
  agpu_cu_result result = api->cuMemcpyHtoDAsync(at, pattern, pattern_size, stream);
  if (result == AGPU_CUDA_SUCCESS) {
    *call = "cuStreamSynchronize";
    result = api->cuStreamSynchronize(stream);
  }
  *call = "cuMemcpyDtoDAsync";
  for (size_t done = pattern_size; done < size && result == AGPU_CUDA_SUCCESS;) {
    size_t count = done < size - done ? done : size - done; /* a multiple of the pattern */
    result = api->cuMemcpyDtoDAsync(at + done, at, count, stream);
    done += count;
  }
  return result;
}

agpu_status agpu_cuda_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                  size_t size, const void *pattern, size_t pattern_size) {
  agpu_device *device = buffer->device;
  const agpu_cuda_api *api = agpu_cuda_api_of(device);
  agpu_cu_deviceptr at = agpu_cuda_pointer(buffer) + offset;
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  const char *call = "cuMemsetD8Async";
  agpu_cu_result result =
      agpu_cuda_fill_queued(api, agpu_cuda_stream(queue), at, size, pattern, pattern_size, &call);
  agpu_cuda_leave(device);
  if (result == AGPU_CUDA_SUCCESS) return AGPU_SUCCESS;
  status = agpu_cuda_fail(api, call, result);
  agpu_error_append(" (filling %zu bytes at offset %zu with a %zu-byte pattern on %s)", size,
                    offset, pattern_size, device->info.selector);
  return status;
}
