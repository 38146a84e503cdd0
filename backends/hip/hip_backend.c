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
    AGPU_CORE_OPS(agpu_hip),
    .program_create_native = agpu_hip_program_create_native,
    .buffer_device_address = agpu_hip_buffer_device_address,
};
