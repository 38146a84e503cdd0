// SPDX-License-Identifier: Apache-2.0
/* The HIP backend's ops table: AMD GPUs through the HIP runtime's module API
 * (libamdhip64, opened at run time), kernels compiled by hiprtc. See
 * docs/hip.md. */
#include "hip_internal.h"

static agpu_status agpu_hip_init(agpu_backend *backend) {
  agpu_hip_api *api = agpu_hip_load(backend);
  backend->available = false;
  if (!api) return AGPU_SUCCESS;
  backend->native = api;
  agpu_status status = agpu_hip_enumerate(backend, api);
  backend->available = backend->device_count > 0;
  return status;
}

const agpu_backend_ops agpu_hip_backend_ops = {
    .init = agpu_hip_init,
    .device_caps = agpu_hip_device_caps,
    .device_memory = agpu_hip_device_memory,
    .queue_create = agpu_hip_queue_create,
    .queue_release = agpu_hip_queue_release,
    .queue_finish = agpu_hip_queue_finish,
    .event_record = agpu_hip_event_record,
    .event_wait = agpu_hip_event_wait,
    .event_elapsed_ns = agpu_hip_event_elapsed_ns,
    .event_release = agpu_hip_event_release,
    .buffer_create = agpu_hip_buffer_create,
    .buffer_release = agpu_hip_buffer_release,
    .buffer_write = agpu_hip_buffer_write,
    .buffer_read = agpu_hip_buffer_read,
    .buffer_copy = agpu_hip_buffer_copy,
    .buffer_fill = agpu_hip_buffer_fill,
    .program_build = agpu_hip_program_build,
    .program_create_native = agpu_hip_program_create_native,
    .program_release = agpu_hip_program_release,
    .kernel_create = agpu_hip_kernel_create,
    .kernel_release = agpu_hip_kernel_release,
    .program_kernel_names = agpu_hip_program_kernel_names,
    .launch = agpu_hip_launch,
};
