// SPDX-License-Identifier: Apache-2.0
/* The CUDA backend over the Driver API (libcuda.so.1, loaded at run time),
 * with kernels translated to CUDA C++ and compiled by NVRTC. See docs/cuda.md. */
#include "cuda_internal.h"

AGPU_DEFINE_LOADED_INIT(agpu_cuda, agpu_cuda_api)

const agpu_backend_ops agpu_cuda_backend_ops = {
    AGPU_CORE_OPS(agpu_cuda),
    .program_create_native = agpu_cuda_program_create_native,
    .buffer_device_address = agpu_cuda_buffer_device_address,
};
