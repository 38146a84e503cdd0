// SPDX-License-Identifier: Apache-2.0
/* The OpenCL backend's ops table, and the error names its messages use. */
#include "agpu_backend.h"

#ifndef AGPU_HAVE_OPENCL_HEADERS

static agpu_status agpu_cl_init_without_headers(agpu_backend *backend) {
  return agpu_backend_not_built(
      backend, "built without the OpenCL headers (install opencl-c-headers and reconfigure)");
}

const agpu_backend_ops agpu_opencl_backend_ops = {
    .init = agpu_cl_init_without_headers,
};

#else

#include <string.h>

#include "opencl_internal.h"

AGPU_DEFINE_LOADED_INIT(agpu_cl, agpu_cl_api)

const agpu_backend_ops agpu_opencl_backend_ops = {
    AGPU_CORE_OPS(agpu_cl),
    .buffer_map = agpu_cl_buffer_map,
    .buffer_unmap = agpu_cl_buffer_unmap,
    .program_create_native = agpu_cl_program_create_native,
};

#endif /* AGPU_HAVE_OPENCL_HEADERS */
