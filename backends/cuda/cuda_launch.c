// SPDX-License-Identifier: Apache-2.0
/* Launches: the arguments as cuLaunchKernel's parameter array, __local
 * arguments as offsets into the dynamic shared memory, and for translated
 * kernels the hidden launch-info parameter (kernels/cuda_abi.h). */
#include <stdlib.h>
#include <string.h>

#include "agpu_cuda_args.h"
#include "cuda_abi.h"
#include "cuda_internal.h"

/* Raises the kernel's dynamic shared memory limit when a launch needs more
 * than the default (48 KiB less the static part). */
static agpu_status agpu_cuda_allow_dynamic_shared(const agpu_cuda_api *api, agpu_kernel *kernel,
                                                  agpu_cuda_kernel *native, int bytes) {
  agpu_cu_result result = AGPU_CUDA_SUCCESS;
  pthread_mutex_lock(&native->lock);
  if (bytes > native->max_dynamic_shared) {
    result = api->cuFuncSetAttribute(native->function,
                                     AGPU_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
    if (result == AGPU_CUDA_SUCCESS) native->max_dynamic_shared = bytes;
  }
  pthread_mutex_unlock(&native->lock);
  if (result == AGPU_CUDA_SUCCESS) return AGPU_SUCCESS;
  agpu_status status = agpu_cuda_fail(api, "cuFuncSetAttribute", result);
  agpu_error_append(" (MAX_DYNAMIC_SHARED_SIZE_BYTES = %d for kernel '%s')", bytes,
                    kernel->info.name);
  return status;
}

agpu_status agpu_cuda_launch(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,
                             const size_t global[3], const size_t local[3], uint32_t nargs,
                             const agpu_arg args[]) {
  const agpu_device *device = kernel->program->device;
  const agpu_cuda_device *cuda = agpu_cuda_device_of(device);
  const agpu_cuda_api *api = cuda->api;
  agpu_cuda_kernel *native = kernel->native;

  agpu_cuda_args packed;
  agpu_status status = agpu_cuda_args_pack(nargs, args, "cuda", &packed);
  if (status != AGPU_SUCCESS) {
    agpu_cuda_args_free(&packed);
    return status;
  }
  void **params = packed.params;
  uint64_t dynamic = packed.shared_bytes;
  kl_cuda_launch_info launch_info;
  memset(&launch_info, 0, sizeof launch_info);
  launch_info.work_dim = dims;
  unsigned grid[3];
  for (int d = 0; d < 3; d++) {
    grid[d] = (unsigned)(global[d] / local[d]); /* within the device's limits (checked) */
    launch_info.num_groups[d] = grid[d];
  }
  /* A smaller last group in dimension 0 (AGPU_CAP_NONUNIFORM_GROUPS, for
   * translated kernels): a second launch of one group per row with a block
   * of its size, told its group id (group_offset) and what it lacks
   * (last_short), so that the work-item functions give OpenCL 2.0's values
   * (kernels/cuda_abi.h). */
  unsigned rest = (unsigned)(global[0] % local[0]);
  if (rest) {
    launch_info.num_groups[0] = grid[0] + 1;
    launch_info.last_short = (uint32_t)local[0] - rest;
  }
  if (native->launch_info) params[nargs] = &launch_info;

  uint64_t total_shared = dynamic + (uint64_t)native->static_shared_bytes;
  if (total_shared > (uint64_t)cuda->shared_per_block_optin)
    status = agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                            "agpu_launch: kernel '%s' needs %llu bytes of shared memory (%llu for "
                            "its __local arguments, %d of its own); %s allows %d per work-group",
                            kernel->info.name, (unsigned long long)total_shared,
                            (unsigned long long)dynamic, native->static_shared_bytes,
                            device->info.selector, cuda->shared_per_block_optin);
  if (status == AGPU_SUCCESS) status = agpu_cuda_enter(device);
  if (status == AGPU_SUCCESS) {
    if (dynamic > (uint64_t)native->max_dynamic_shared)
      status = agpu_cuda_allow_dynamic_shared(api, kernel, native, (int)dynamic);
    /* part 0: the whole groups; part 1: the smaller last one */
    for (int part = 0; part < 2 && status == AGPU_SUCCESS; part++) {
      unsigned gx = part == 0 ? grid[0] : rest ? 1 : 0;
      size_t bx = part == 0 ? local[0] : rest;
      if (gx == 0) continue;
      launch_info.group_offset[0] = part == 0 ? 0 : grid[0];
      agpu_cu_result result = api->cuLaunchKernel(
          native->function, gx, grid[1], grid[2], (unsigned)bx, (unsigned)local[1],
          (unsigned)local[2], (unsigned)dynamic, (agpu_cu_stream)queue->native, params, NULL);
      if (result != AGPU_CUDA_SUCCESS) {
        status = agpu_cuda_fail(api, "cuLaunchKernel", result);
        agpu_error_append(
            " (kernel '%s', grid %ux%ux%u, block %zux%zux%zu, %llu bytes of "
            "dynamic shared memory, on %s)",
            kernel->info.name, gx, grid[1], grid[2], bx, local[1], local[2],
            (unsigned long long)dynamic, device->info.selector);
      }
    }
    agpu_cuda_leave(device);
  }
  agpu_cuda_args_free(&packed);
  return status;
}
