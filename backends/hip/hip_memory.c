// SPDX-License-Identifier: Apache-2.0
/* Queues (one HIP stream each), events, and buffers (hipMalloc) with their
 * transfers. Every call first makes the buffer's device current
 * (hipSetDevice is per thread in HIP). */
#include <stdlib.h>
#include <string.h>

#include "hip_internal.h"

static agpu_hipStream_t agpu_hip_stream(const agpu_queue *queue) {
  return ((agpu_hip_queue *)queue->native)->stream;
}

static char *agpu_hip_at(const agpu_buffer *buffer, size_t offset) {
  return (char *)buffer->native + offset;
}

/* ---------------------------------------------------------------- queues */

agpu_status agpu_hip_queue_create(agpu_queue *queue) {
  const agpu_hip_device *device = agpu_hip_device_of(queue->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hip_queue *native = calloc(1, sizeof *native);
  if (!native) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
  /* Non-blocking: the queue does not wait for the legacy NULL stream. */
  agpu_hipError_t error = device->api->hipStreamCreateWithFlags(&native->stream, 1u);
  if (error != AGPU_hipSuccess) {
    free(native);
    return agpu_hip_fail(device->api, "hipStreamCreateWithFlags", error);
  }
  queue->native = native;
  return AGPU_SUCCESS;
}

void agpu_hip_queue_release(agpu_queue *queue) {
  agpu_hip_queue *native = queue->native;
  if (!native) return;
  const agpu_hip_device *device = agpu_hip_device_of(queue->device);
  if (agpu_hip_use(device) == AGPU_SUCCESS) {
    device->api->hipStreamSynchronize(native->stream);
    device->api->hipStreamDestroy(native->stream);
  }
  free(native);
  queue->native = NULL;
}

agpu_status agpu_hip_queue_finish(agpu_queue *queue) {
  const agpu_hip_device *device = agpu_hip_device_of(queue->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hipError_t error = device->api->hipStreamSynchronize(agpu_hip_stream(queue));
  return error == AGPU_hipSuccess ? AGPU_SUCCESS
                                  : agpu_hip_fail(device->api, "hipStreamSynchronize", error);
}

/* ---------------------------------------------------------------- events */

agpu_status agpu_hip_event_record(agpu_event *event) {
  const agpu_hip_device *device = agpu_hip_device_of(event->queue->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hip_event *native = calloc(1, sizeof *native);
  if (!native) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
  agpu_hipError_t error = device->api->hipEventCreateWithFlags(&native->event, 0u);
  if (error != AGPU_hipSuccess) {
    free(native);
    return agpu_hip_fail(device->api, "hipEventCreateWithFlags", error);
  }
  error = device->api->hipEventRecord(native->event, agpu_hip_stream(event->queue));
  if (error != AGPU_hipSuccess) {
    device->api->hipEventDestroy(native->event);
    free(native);
    return agpu_hip_fail(device->api, "hipEventRecord", error);
  }
  event->native = native;
  return AGPU_SUCCESS;
}

agpu_status agpu_hip_event_wait(agpu_event *event) {
  const agpu_hip_device *device = agpu_hip_device_of(event->queue->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hipError_t error =
      device->api->hipEventSynchronize(((agpu_hip_event *)event->native)->event);
  return error == AGPU_hipSuccess ? AGPU_SUCCESS
                                  : agpu_hip_fail(device->api, "hipEventSynchronize", error);
}

agpu_status agpu_hip_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns) {
  const agpu_hip_device *device = agpu_hip_device_of(start->queue->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hipEvent_t first = ((agpu_hip_event *)start->native)->event;
  agpu_hipEvent_t last = ((agpu_hip_event *)end->native)->event;
  agpu_hipError_t error = device->api->hipEventSynchronize(last);
  float milliseconds = 0.0f;
  if (error == AGPU_hipSuccess)
    error = device->api->hipEventElapsedTime(&milliseconds, first, last);
  if (error != AGPU_hipSuccess) return agpu_hip_fail(device->api, "hipEventElapsedTime", error);
  *ns = milliseconds > 0.0f ? (uint64_t)((double)milliseconds * 1e6) : 0;
  return AGPU_SUCCESS;
}

void agpu_hip_event_release(agpu_event *event) {
  agpu_hip_event *native = event->native;
  if (!native) return;
  const agpu_hip_device *device = agpu_hip_device_of(event->queue->device);
  if (agpu_hip_use(device) == AGPU_SUCCESS) device->api->hipEventDestroy(native->event);
  free(native);
  event->native = NULL;
}

/* --------------------------------------------------------------- buffers */

agpu_status agpu_hip_buffer_create(agpu_buffer *buffer) {
  const agpu_hip_device *device = agpu_hip_device_of(buffer->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  void *pointer = NULL;
  agpu_hipError_t error = device->api->hipMalloc(&pointer, buffer->size);
  if (error == AGPU_hipErrorOutOfMemory) {
    size_t free_bytes = 0, total_bytes = 0;
    bool known = device->api->hipMemGetInfo(&free_bytes, &total_bytes) == AGPU_hipSuccess;
    char wanted[32], total[32], available[32];
    agpu_format_bytes(buffer->size, wanted, sizeof wanted);
    agpu_format_bytes(known ? total_bytes : buffer->device->info.global_mem_bytes, total,
                      sizeof total);
    agpu_format_bytes(free_bytes, available, sizeof available);
    return agpu_error_set(
        AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
        "hip: hipMalloc of %s (%zu bytes) failed: %s (%d); %s has %s in all%s%s%s", wanted,
        buffer->size, agpu_hip_error_name(device->api, error), (int)error,
        buffer->device->info.selector, total, known ? ", " : "", known ? available : "",
        known ? " free" : "");
  }
  if (error != AGPU_hipSuccess) return agpu_hip_fail(device->api, "hipMalloc", error);
  buffer->native = pointer;
  return AGPU_SUCCESS;
}

void agpu_hip_buffer_release(agpu_buffer *buffer) {
  if (!buffer->native) return;
  const agpu_hip_device *device = agpu_hip_device_of(buffer->device);
  /* hipFree waits for the device to finish with the memory. */
  if (agpu_hip_use(device) == AGPU_SUCCESS) device->api->hipFree(buffer->native);
  buffer->native = NULL;
}

/* hipMalloc's pointer, in the device's (unified) address space. */
agpu_status agpu_hip_buffer_device_address(agpu_buffer *buffer, uint64_t *address) {
  *address = (uint64_t)(uintptr_t)buffer->native;
  return AGPU_SUCCESS;
}

/* Queues a copy and, for blocking transfers, waits for the stream. */
static agpu_status agpu_hip_finish_transfer(const agpu_hip_api *api, agpu_queue *queue,
                                            const char *call, agpu_hipError_t error,
                                            bool blocking) {
  if (error != AGPU_hipSuccess) return agpu_hip_fail(api, call, error);
  if (!blocking) return AGPU_SUCCESS;
  error = api->hipStreamSynchronize(agpu_hip_stream(queue));
  return error == AGPU_hipSuccess ? AGPU_SUCCESS
                                  : agpu_hip_fail(api, "hipStreamSynchronize", error);
}

agpu_status agpu_hip_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                  size_t size, const void *src) {
  const agpu_hip_device *device = agpu_hip_device_of(buffer->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hipError_t error = device->api->hipMemcpyHtoDAsync(agpu_hip_at(buffer, offset), (void *)src,
                                                          size, agpu_hip_stream(queue));
  return agpu_hip_finish_transfer(device->api, queue, "hipMemcpyHtoDAsync", error, true);
}

agpu_status agpu_hip_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                                 void *dst) {
  const agpu_hip_device *device = agpu_hip_device_of(buffer->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hipError_t error = device->api->hipMemcpyDtoHAsync(dst, agpu_hip_at(buffer, offset), size,
                                                          agpu_hip_stream(queue));
  return agpu_hip_finish_transfer(device->api, queue, "hipMemcpyDtoHAsync", error, true);
}

agpu_status agpu_hip_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                                 agpu_buffer *dst, size_t dst_offset, size_t size) {
  const agpu_hip_device *device = agpu_hip_device_of(dst->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hipError_t error = device->api->hipMemcpyDtoDAsync(
      agpu_hip_at(dst, dst_offset), agpu_hip_at(src, src_offset), size, agpu_hip_stream(queue));
  return agpu_hip_finish_transfer(device->api, queue, "hipMemcpyDtoDAsync", error, false);
}

/* 1, 2 and 4-byte patterns are hipMemsetD8/D16/D32; 8 and 16-byte ones are
 * written once and doubled with device copies (log2(count) copies). */
agpu_status agpu_hip_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                                 const void *pattern, size_t pattern_size) {
  const agpu_hip_device *device = agpu_hip_device_of(buffer->device);
  const agpu_hip_api *api = device->api;
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hipStream_t stream = agpu_hip_stream(queue);
  char *at = agpu_hip_at(buffer, offset);
  agpu_hipError_t error;
  switch (pattern_size) {
    case 1:
      error = api->hipMemsetD8Async(at, *(const unsigned char *)pattern, size, stream);
      return agpu_hip_finish_transfer(api, queue, "hipMemsetD8Async", error, false);
    case 2: {
      unsigned short value;
      memcpy(&value, pattern, sizeof value);
      error = api->hipMemsetD16Async(at, value, size / 2, stream);
      return agpu_hip_finish_transfer(api, queue, "hipMemsetD16Async", error, false);
    }
    case 4: {
      int value;
      memcpy(&value, pattern, sizeof value);
      error = api->hipMemsetD32Async(at, value, size / 4, stream);
      return agpu_hip_finish_transfer(api, queue, "hipMemsetD32Async", error, false);
    }
    default:
      break;
  }
  /* The pattern's first copy must be in place before the doubling copies
   * read it: a blocking write. */
  status = agpu_hip_buffer_write(queue, buffer, offset, pattern_size, pattern);
  for (size_t done = pattern_size; status == AGPU_SUCCESS && done < size; done *= 2) {
    size_t chunk = done < size - done ? done : size - done;
    error = api->hipMemcpyDtoDAsync(at + done, at, chunk, stream);
    status = agpu_hip_finish_transfer(api, queue, "hipMemcpyDtoDAsync", error, false);
  }
  return status;
}
