// SPDX-License-Identifier: Apache-2.0
/* cuModuleLoadDataEx with the JIT's logs: a PTX the driver cannot compile,
 * or a cubin for another GPU, fails with the driver's own words. */
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

#define AGPU_CUDA_JIT_LOG_SIZE 8192

agpu_status agpu_cuda_module_load(const agpu_device *device, const void *image, const char *what,
                                  agpu_cu_module *module, agpu_cu_result *result_out) {
  const agpu_cuda_api *api = agpu_cuda_device_of(device)->api;
  *module = NULL;
  *result_out = AGPU_CUDA_SUCCESS;
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  char info_log[AGPU_CUDA_JIT_LOG_SIZE] = "", error_log[AGPU_CUDA_JIT_LOG_SIZE] = "";
  agpu_cu_jit_option options[] = {
      AGPU_CU_JIT_INFO_LOG_BUFFER, AGPU_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      AGPU_CU_JIT_ERROR_LOG_BUFFER, AGPU_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  /* The size options are passed by value in the pointer's bits. */
  void *values[] = {info_log, (void *)(uintptr_t)sizeof info_log, error_log,
                    (void *)(uintptr_t)sizeof error_log};
  agpu_cu_result result =
      api->cuModuleLoadDataEx(module, image, sizeof options / sizeof options[0], options, values);
  agpu_cuda_leave(device);
  *result_out = result;
  if (result == AGPU_CUDA_SUCCESS) return AGPU_SUCCESS;
  *module = NULL;
  info_log[sizeof info_log - 1] = error_log[sizeof error_log - 1] = '\0';
  status = agpu_cuda_fail(api, "cuModuleLoadDataEx", result);
  int version = api->driver_version;
  agpu_error_append(" loading %s on %s (%s, %s, driver CUDA %d.%d)", what, device->info.selector,
                    device->info.name, device->info.arch, version / 1000, (version % 1000) / 10);
  if (error_log[0]) agpu_error_append(":\n%s", error_log);
  if (info_log[0]) agpu_error_append("%s%s", error_log[0] ? "\n" : ":\n", info_log);
  return status;
}
