// SPDX-License-Identifier: Apache-2.0
/* CUresult codes: their names for messages, and the anygpu status each maps
 * to. The names come from the backend's own table first, because the
 * toolkit's stub library answers cuGetErrorName with an error. */
#include <stdio.h>

#include "cuda_internal.h"

const char *agpu_cuda_result_name(const agpu_cuda_api *api, agpu_cu_result result) {
  switch (result) {
#define AGPU_CUDA_NAME_CASE(name, value) \
  case value:                            \
    return #name;
    AGPU_CUDA_RESULTS(AGPU_CUDA_NAME_CASE)
#undef AGPU_CUDA_NAME_CASE
    default:
      break;
  }
  const char *name = NULL;
  if (api && api->cuGetErrorName && api->cuGetErrorName(result, &name) == AGPU_CUDA_SUCCESS && name)
    return name;
  return "CUDA_ERROR_UNRECOGNIZED";
}

const char *agpu_cuda_result_text(const agpu_cuda_api *api, agpu_cu_result result) {
  const char *text = NULL;
  if (api && api->cuGetErrorString && api->cuGetErrorString(result, &text) == AGPU_CUDA_SUCCESS &&
      text)
    return text;
  return "";
}

static const agpu_status_map agpu_cuda_statuses[] = {
    {AGPU_CUDA_SUCCESS, AGPU_SUCCESS},
    {AGPU_CUDA_ERROR_INVALID_VALUE, AGPU_ERROR_INVALID_ARGUMENT},
    {AGPU_CUDA_ERROR_OUT_OF_MEMORY, AGPU_ERROR_OUT_OF_DEVICE_MEMORY},
    {AGPU_CUDA_ERROR_NOT_FOUND, AGPU_ERROR_NOT_FOUND},
    {AGPU_CUDA_ERROR_NOT_SUPPORTED, AGPU_ERROR_UNSUPPORTED},
    {AGPU_CUDA_ERROR_NO_BINARY_FOR_GPU, AGPU_ERROR_UNSUPPORTED},
    {AGPU_CUDA_ERROR_UNSUPPORTED_PTX_VERSION, AGPU_ERROR_UNSUPPORTED},
    {AGPU_CUDA_ERROR_JIT_COMPILER_NOT_FOUND, AGPU_ERROR_UNSUPPORTED},
    {AGPU_CUDA_ERROR_JIT_COMPILATION_DISABLED, AGPU_ERROR_UNSUPPORTED},
    {AGPU_CUDA_ERROR_INVALID_IMAGE, AGPU_ERROR_BUILD_FAILED},
    {AGPU_CUDA_ERROR_INVALID_PTX, AGPU_ERROR_BUILD_FAILED},
    {AGPU_CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, AGPU_ERROR_INVALID_LAUNCH},
    /* A kernel fault leaves the context unusable: every later call fails. */
    {AGPU_CUDA_ERROR_ILLEGAL_ADDRESS, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_LAUNCH_FAILED, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_LAUNCH_TIMEOUT, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_ASSERT, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_HARDWARE_STACK_ERROR, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_ILLEGAL_INSTRUCTION, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_MISALIGNED_ADDRESS, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_INVALID_ADDRESS_SPACE, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_INVALID_PC, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_ECC_UNCORRECTABLE, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_DEVICE_UNAVAILABLE, AGPU_ERROR_DEVICE_LOST},
    {AGPU_CUDA_ERROR_NO_DEVICE, AGPU_ERROR_BACKEND_UNAVAILABLE},
    {AGPU_CUDA_ERROR_STUB_LIBRARY, AGPU_ERROR_BACKEND_UNAVAILABLE},
    {AGPU_CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, AGPU_ERROR_BACKEND_UNAVAILABLE},
    {AGPU_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, AGPU_ERROR_BACKEND_UNAVAILABLE},
    {AGPU_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, AGPU_ERROR_BACKEND_UNAVAILABLE},
};

agpu_status agpu_cuda_status(agpu_cu_result result) {
  return agpu_status_lookup(agpu_cuda_statuses,
                            sizeof agpu_cuda_statuses / sizeof agpu_cuda_statuses[0], result,
                            AGPU_ERROR_BACKEND);
}

agpu_status agpu_cuda_fail(const agpu_cuda_api *api, const char *call, agpu_cu_result result) {
  const char *text = agpu_cuda_result_text(api, result);
  return agpu_error_set(agpu_cuda_status(result), "cuda: %s failed: %s (%d)%s%s", call,
                        agpu_cuda_result_name(api, result), (int)result, text[0] ? ": " : "", text);
}
