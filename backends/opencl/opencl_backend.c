// SPDX-License-Identifier: Apache-2.0
/* The OpenCL backend's ops table, and the error names its messages use. */
#include "agpu_backend.h"

#ifndef AGPU_HAVE_OPENCL_HEADERS

#include <stdio.h>

static agpu_status agpu_cl_init_without_headers(agpu_backend *backend) {
  snprintf(backend->reason, sizeof backend->reason,
           "built without the OpenCL headers (install opencl-c-headers and reconfigure)");
  backend->available = false;
  return AGPU_SUCCESS;
}

const agpu_backend_ops agpu_opencl_backend_ops = {
    .init = agpu_cl_init_without_headers,
};

#else

#include <string.h>

#include "opencl_internal.h"

static agpu_status agpu_cl_init(agpu_backend *backend) {
  agpu_cl_api *api = agpu_cl_load(backend);
  if (!api) {
    backend->available = false;
    return AGPU_SUCCESS;
  }
  backend->native = api;
  backend->available = true;
  return agpu_cl_enumerate(backend, api);
}

const agpu_backend_ops agpu_opencl_backend_ops = {
    .init = agpu_cl_init,
    .device_caps = agpu_cl_device_caps,
    .device_memory = agpu_cl_device_memory,
    .queue_create = agpu_cl_queue_create,
    .queue_release = agpu_cl_queue_release,
    .queue_finish = agpu_cl_queue_finish,
    .event_record = agpu_cl_event_record,
    .event_wait = agpu_cl_event_wait,
    .event_elapsed_ns = agpu_cl_event_elapsed_ns,
    .event_release = agpu_cl_event_release,
    .buffer_create = agpu_cl_buffer_create,
    .buffer_release = agpu_cl_buffer_release,
    .buffer_write = agpu_cl_buffer_write,
    .buffer_read = agpu_cl_buffer_read,
    .buffer_copy = agpu_cl_buffer_copy,
    .buffer_fill = agpu_cl_buffer_fill,
    .buffer_map = agpu_cl_buffer_map,
    .buffer_unmap = agpu_cl_buffer_unmap,
    .program_build = agpu_cl_program_build,
    .program_create_native = agpu_cl_program_create_native,
    .program_release = agpu_cl_program_release,
    .kernel_create = agpu_cl_kernel_create,
    .kernel_release = agpu_cl_kernel_release,
    .program_kernel_names = agpu_cl_program_kernel_names,
    .launch = agpu_cl_launch,
};

#endif /* AGPU_HAVE_OPENCL_HEADERS */
