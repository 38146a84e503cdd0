// SPDX-License-Identifier: Apache-2.0
/* The CUDA backend over the Driver API (libcuda.so.1, loaded at run time),
 * with kernels translated to CUDA C++ and compiled by NVRTC. See docs/cuda.md. */
#include "cuda_internal.h"

static agpu_status agpu_cuda_init(agpu_backend *backend) {
  agpu_cuda_api *api = agpu_cuda_load(backend);
  if (!api) {
    backend->available = false;
    return AGPU_SUCCESS;
  }
  backend->native = api;
  backend->available = true;
  return agpu_cuda_enumerate(backend, api);
}

const agpu_backend_ops agpu_cuda_backend_ops = {
    .init = agpu_cuda_init,
    .device_caps = agpu_cuda_device_caps,
    .device_memory = agpu_cuda_device_memory,
    .queue_create = agpu_cuda_queue_create,
    .queue_release = agpu_cuda_queue_release,
    .queue_finish = agpu_cuda_queue_finish,
    .event_record = agpu_cuda_event_record,
    .event_wait = agpu_cuda_event_wait,
    .event_elapsed_ns = agpu_cuda_event_elapsed_ns,
    .event_release = agpu_cuda_event_release,
    .buffer_create = agpu_cuda_buffer_create,
    .buffer_release = agpu_cuda_buffer_release,
    .buffer_write = agpu_cuda_buffer_write,
    .buffer_read = agpu_cuda_buffer_read,
    .buffer_copy = agpu_cuda_buffer_copy,
    .buffer_fill = agpu_cuda_buffer_fill,
    .program_build = agpu_cuda_program_build,
    .program_create_native = agpu_cuda_program_create_native,
    .program_release = agpu_cuda_program_release,
    .kernel_create = agpu_cuda_kernel_create,
    .kernel_release = agpu_cuda_kernel_release,
    .program_kernel_names = agpu_cuda_program_kernel_names,
    .launch = agpu_cuda_launch,
};
