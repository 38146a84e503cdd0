// SPDX-License-Identifier: Apache-2.0
/* Queues, timing events and buffers. */
#include <stdlib.h>

#include "opencl_internal.h"

/* ------------------------------------------------------------------ queues */

cl_command_queue agpu_cl_new_command_queue(const agpu_cl_device *device, bool profiling,
                                           const char **call, cl_int *error) {
  const agpu_cl_api *api = device->api;
  cl_command_queue_properties flags = profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
  if (device->version >= 20 && api->clCreateCommandQueueWithProperties) {
    const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, flags, 0};
    *call = "clCreateCommandQueueWithProperties";
    return api->clCreateCommandQueueWithProperties(device->context, device->id, properties, error);
  }
  *call = "clCreateCommandQueue";
  if (!api->clCreateCommandQueue) {
    *error = CL_INVALID_OPERATION;
    return NULL;
  }
  return api->clCreateCommandQueue(device->context, device->id, flags, error);
}

static agpu_cl_queue *agpu_cl_queue_of(const agpu_queue *queue) {
  return (agpu_cl_queue *)queue->native;
}

agpu_status agpu_cl_queue_create(agpu_queue *queue) {
  const agpu_cl_device *device = agpu_cl_device_of(queue->device);
  agpu_cl_queue *native = calloc(1, sizeof *native);
  if (!native) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
  cl_int error = CL_SUCCESS;
  const char *call = "";
  native->queue = agpu_cl_new_command_queue(device, true, &call, &error);
  if (!native->queue) {
    free(native);
    return agpu_cl_fail(call, error);
  }
  pthread_mutex_init(&native->lock, NULL);
  queue->native = native;
  return AGPU_SUCCESS;
}

void agpu_cl_queue_release(agpu_queue *queue) {
  const agpu_cl_api *api = agpu_cl_device_of(queue->device)->api;
  agpu_cl_queue *native = agpu_cl_queue_of(queue);
  if (!native) return;
  api->clFinish(native->queue);
  if (native->last) api->clReleaseEvent(native->last);
  api->clReleaseCommandQueue(native->queue);
  pthread_mutex_destroy(&native->lock);
  free(native);
  queue->native = NULL;
}

agpu_status agpu_cl_queue_finish(agpu_queue *queue) {
  const agpu_cl_api *api = agpu_cl_device_of(queue->device)->api;
  cl_int error = api->clFinish(agpu_cl_queue_of(queue)->queue);
  return error == CL_SUCCESS ? AGPU_SUCCESS : agpu_cl_fail("clFinish", error);
}

void agpu_cl_queue_track(agpu_queue *queue, cl_event event) {
  const agpu_cl_api *api = agpu_cl_device_of(queue->device)->api;
  agpu_cl_queue *native = agpu_cl_queue_of(queue);
  pthread_mutex_lock(&native->lock);
  cl_event previous = native->last;
  native->last = event;
  pthread_mutex_unlock(&native->lock);
  if (previous) api->clReleaseEvent(previous);
}

/* The queue's last command, retained for the caller; NULL if none yet. */
static cl_event agpu_cl_queue_last(agpu_queue *queue) {
  const agpu_cl_api *api = agpu_cl_device_of(queue->device)->api;
  agpu_cl_queue *native = agpu_cl_queue_of(queue);
  pthread_mutex_lock(&native->lock);
  cl_event last = native->last;
  if (last) api->clRetainEvent(last);
  pthread_mutex_unlock(&native->lock);
  return last;
}

/* ------------------------------------------------------------------ events */

agpu_status agpu_cl_event_record(agpu_event *event) {
  const agpu_cl_device *device = agpu_cl_device_of(event->queue->device);
  const agpu_cl_api *api = device->api;
  cl_command_queue queue = agpu_cl_queue_of(event->queue)->queue;
  agpu_cl_event *native = calloc(1, sizeof *native);
  if (!native) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
  native->before = agpu_cl_queue_last(event->queue);
  cl_int error;
  const char *call;
  if (device->version >= 12 && api->clEnqueueMarkerWithWaitList) {
    call = "clEnqueueMarkerWithWaitList";
    error = api->clEnqueueMarkerWithWaitList(queue, 0, NULL, &native->marker);
  } else if (api->clEnqueueMarker) {
    call = "clEnqueueMarker";
    error = api->clEnqueueMarker(queue, &native->marker);
  } else {
    call = "clEnqueueMarker (absent from the library)";
    error = CL_INVALID_OPERATION;
  }
  if (error != CL_SUCCESS) {
    if (native->before) api->clReleaseEvent(native->before);
    free(native);
    return agpu_cl_fail(call, error);
  }
  event->native = native;
  return AGPU_SUCCESS;
}

agpu_status agpu_cl_event_wait(agpu_event *event) {
  const agpu_cl_api *api = agpu_cl_device_of(event->queue->device)->api;
  agpu_cl_event *native = event->native;
  cl_int error = api->clWaitForEvents(1, &native->marker);
  return error == CL_SUCCESS ? AGPU_SUCCESS : agpu_cl_fail("clWaitForEvents", error);
}

/* When the work before a recorded point ended, in device nanoseconds. Some
 * drivers give markers no profiling info; then the end of the command queued
 * just before the marker is the same point. */
static agpu_status agpu_cl_event_time(const agpu_cl_api *api, const agpu_cl_event *event,
                                      cl_ulong *time) {
  *time = 0;
  cl_int error = api->clGetEventProfilingInfo(event->marker, CL_PROFILING_COMMAND_END, sizeof *time,
                                              time, NULL);
  if (error == CL_SUCCESS && *time != 0) return AGPU_SUCCESS;
  if (event->before &&
      api->clGetEventProfilingInfo(event->before, CL_PROFILING_COMMAND_END, sizeof *time, time,
                                   NULL) == CL_SUCCESS &&
      *time != 0)
    return AGPU_SUCCESS;
  if (error == CL_SUCCESS) error = CL_PROFILING_INFO_NOT_AVAILABLE;
  return agpu_error_set(agpu_cl_status(error),
                        "opencl: clGetEventProfilingInfo(CL_PROFILING_COMMAND_END) failed: %s "
                        "(%d), and no earlier command on the queue to time from",
                        agpu_cl_error_name(error), (int)error);
}

agpu_status agpu_cl_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns) {
  const agpu_cl_api *api = agpu_cl_device_of(start->queue->device)->api;
  const agpu_cl_event *first = start->native, *second = end->native;
  cl_event markers[2] = {first->marker, second->marker};
  cl_int error = api->clWaitForEvents(2, markers);
  if (error != CL_SUCCESS) return agpu_cl_fail("clWaitForEvents", error);
  cl_ulong begin, finish;
  agpu_status status = agpu_cl_event_time(api, first, &begin);
  if (status == AGPU_SUCCESS) status = agpu_cl_event_time(api, second, &finish);
  if (status != AGPU_SUCCESS) return status;
  if (finish < begin)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_event_elapsed_ns: the end event completed %llu ns before the "
                          "start event; were they swapped?",
                          (unsigned long long)(begin - finish));
  *ns = finish - begin;
  return AGPU_SUCCESS;
}

void agpu_cl_event_release(agpu_event *event) {
  const agpu_cl_api *api = agpu_cl_device_of(event->queue->device)->api;
  agpu_cl_event *native = event->native;
  if (!native) return;
  api->clReleaseEvent(native->marker);
  if (native->before) api->clReleaseEvent(native->before);
  free(native);
  event->native = NULL;
}

/* ----------------------------------------------------------------- buffers */

static cl_mem agpu_cl_mem(const agpu_buffer *buffer) {
  return (cl_mem)buffer->native;
}

static bool agpu_cl_is_allocation_failure(cl_int error) {
  return error == CL_MEM_OBJECT_ALLOCATION_FAILURE || error == CL_OUT_OF_RESOURCES ||
         error == CL_INVALID_BUFFER_SIZE;
}

/* An allocation failure names the sizes involved; other errors only the call. */
static agpu_status agpu_cl_buffer_fail(const char *call, cl_int error, const agpu_buffer *buffer) {
  if (!agpu_cl_is_allocation_failure(error)) return agpu_cl_fail(call, error);
  const agpu_device_info *info = &buffer->device->info;
  char size[32], total[32], largest[32];
  return agpu_error_set(AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
                        "opencl: %s of %s failed: %s (%d); device has %s, max single allocation "
                        "%s",
                        call, agpu_format_bytes(buffer->size, size, sizeof size),
                        agpu_cl_error_name(error), (int)error,
                        agpu_format_bytes(info->global_mem_bytes, total, sizeof total),
                        agpu_format_bytes(info->max_alloc_bytes, largest, sizeof largest));
}

static cl_int agpu_cl_wait_status(const agpu_cl_api *api, cl_event event) {
  cl_int error = api->clWaitForEvents(1, &event);
  cl_int status = CL_COMPLETE;
  if (api->clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) ==
          CL_SUCCESS &&
      status < 0)
    error = status; /* the command's own error, e.g. CL_MEM_OBJECT_ALLOCATION_FAILURE */
  return error;
}

/* GPU drivers allocate lazily, on a buffer's first use; migrating it once
 * makes an out-of-memory show up here rather than in a later, unrelated call.
 * CPU devices (PoCL) take host memory that the kernel overcommits, so there
 * it would cost about 50 us a buffer and catch nothing. */
static cl_int agpu_cl_make_resident(const agpu_cl_device *device, cl_mem mem) {
  const agpu_cl_api *api = device->api;
  if (!device->migrate_new_buffers) return CL_SUCCESS;
  cl_event done;
  cl_int error = api->clEnqueueMigrateMemObjects(
      device->setup_queue, 1, &mem, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, &done);
  if (error != CL_SUCCESS) return error;
  error = agpu_cl_wait_status(api, done);
  api->clReleaseEvent(done);
  return error;
}

agpu_status agpu_cl_buffer_create(agpu_buffer *buffer) {
  const agpu_cl_device *device = agpu_cl_device_of(buffer->device);
  const agpu_cl_api *api = device->api;
  cl_mem_flags flags = CL_MEM_READ_WRITE;
  if (buffer->flags & AGPU_BUFFER_READ_ONLY) flags = CL_MEM_READ_ONLY;
  if (buffer->flags & AGPU_BUFFER_WRITE_ONLY) flags = CL_MEM_WRITE_ONLY;
  if (buffer->flags & AGPU_BUFFER_HOST_VISIBLE) flags |= CL_MEM_ALLOC_HOST_PTR;
  cl_int error = CL_SUCCESS;
  cl_mem mem = api->clCreateBuffer(device->context, flags, buffer->size, NULL, &error);
  if (!mem) return agpu_cl_buffer_fail("clCreateBuffer", error, buffer);
  error = agpu_cl_make_resident(device, mem);
  if (error != CL_SUCCESS) {
    api->clReleaseMemObject(mem);
    return agpu_cl_buffer_fail("clEnqueueMigrateMemObjects", error, buffer);
  }
  buffer->native = mem;
  return AGPU_SUCCESS;
}

void agpu_cl_buffer_release(agpu_buffer *buffer) {
  if (!buffer->native) return;
  agpu_cl_device_of(buffer->device)->api->clReleaseMemObject(agpu_cl_mem(buffer));
  buffer->native = NULL;
}

/* Every enqueue hands its event to the queue as the latest command. */
static agpu_status agpu_cl_enqueued(agpu_queue *queue, const char *call, cl_int error,
                                    cl_event event, const agpu_buffer *buffer) {
  if (error != CL_SUCCESS) return agpu_cl_buffer_fail(call, error, buffer);
  agpu_cl_queue_track(queue, event);
  return AGPU_SUCCESS;
}

agpu_status agpu_cl_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                                 const void *src) {
  const agpu_cl_api *api = agpu_cl_device_of(buffer->device)->api;
  cl_event event = NULL;
  cl_int error = api->clEnqueueWriteBuffer(agpu_cl_queue_of(queue)->queue, agpu_cl_mem(buffer),
                                           CL_TRUE, offset, size, src, 0, NULL, &event);
  return agpu_cl_enqueued(queue, "clEnqueueWriteBuffer", error, event, buffer);
}

agpu_status agpu_cl_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                                void *dst) {
  const agpu_cl_api *api = agpu_cl_device_of(buffer->device)->api;
  cl_event event = NULL;
  cl_int error = api->clEnqueueReadBuffer(agpu_cl_queue_of(queue)->queue, agpu_cl_mem(buffer),
                                          CL_TRUE, offset, size, dst, 0, NULL, &event);
  return agpu_cl_enqueued(queue, "clEnqueueReadBuffer", error, event, buffer);
}

agpu_status agpu_cl_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                                agpu_buffer *dst, size_t dst_offset, size_t size) {
  const agpu_cl_api *api = agpu_cl_device_of(src->device)->api;
  cl_event event = NULL;
  cl_int error =
      api->clEnqueueCopyBuffer(agpu_cl_queue_of(queue)->queue, agpu_cl_mem(src), agpu_cl_mem(dst),
                               src_offset, dst_offset, size, 0, NULL, &event);
  return agpu_cl_enqueued(queue, "clEnqueueCopyBuffer", error, event, dst);
}

agpu_status agpu_cl_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                                const void *pattern, size_t pattern_size) {
  const agpu_cl_device *device = agpu_cl_device_of(buffer->device);
  if (device->version < 12 || !device->api->clEnqueueFillBuffer)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "opencl: %s is OpenCL %u.%u; clEnqueueFillBuffer needs 1.2",
                          buffer->device->info.name, device->version / 10, device->version % 10);
  cl_event event = NULL;
  cl_int error =
      device->api->clEnqueueFillBuffer(agpu_cl_queue_of(queue)->queue, agpu_cl_mem(buffer), pattern,
                                       pattern_size, offset, size, 0, NULL, &event);
  return agpu_cl_enqueued(queue, "clEnqueueFillBuffer", error, event, buffer);
}

agpu_status agpu_cl_buffer_map(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                               void **ptr) {
  const agpu_cl_api *api = agpu_cl_device_of(buffer->device)->api;
  cl_event event = NULL;
  cl_int error = CL_SUCCESS;
  void *mapped =
      api->clEnqueueMapBuffer(agpu_cl_queue_of(queue)->queue, agpu_cl_mem(buffer), CL_TRUE,
                              CL_MAP_READ | CL_MAP_WRITE, offset, size, 0, NULL, &event, &error);
  if (!mapped && error == CL_SUCCESS) error = CL_MAP_FAILURE;
  agpu_status status = agpu_cl_enqueued(queue, "clEnqueueMapBuffer", error, event, buffer);
  if (status == AGPU_SUCCESS) *ptr = mapped;
  return status;
}

agpu_status agpu_cl_buffer_unmap(agpu_queue *queue, agpu_buffer *buffer, void *ptr) {
  const agpu_cl_api *api = agpu_cl_device_of(buffer->device)->api;
  cl_event event = NULL;
  cl_int error = api->clEnqueueUnmapMemObject(agpu_cl_queue_of(queue)->queue, agpu_cl_mem(buffer),
                                              ptr, 0, NULL, &event);
  if (error != CL_SUCCESS) return agpu_cl_fail("clEnqueueUnmapMemObject", error);
  /* Waiting makes the host's writes visible to work on any queue, not only this one. */
  error = agpu_cl_wait_status(api, event);
  agpu_cl_queue_track(queue, event);
  return error == CL_SUCCESS ? AGPU_SUCCESS : agpu_cl_fail("clEnqueueUnmapMemObject", error);
}
