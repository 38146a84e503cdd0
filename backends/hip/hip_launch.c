// SPDX-License-Identifier: Apache-2.0
/* Launches with hipModuleLaunchKernel, in the ABI of kernels/cuda_abi.h:
 * buffers as device pointers, values by value, each __local argument as a
 * byte offset into the dynamic shared memory, and the hidden launch info
 * last. A grid too large for one dispatch (HIP counts a dispatch's
 * work-items in 32 bits) is split into several launches whose launch info
 * carries the group offset. Kernels of native code objects get their
 * arguments exactly as given (hip_metadata.c). */
#include <stdlib.h>

#include "agpu_cuda_args.h"
#include "cuda_abi.h"
#include "hip_internal.h"

/* Work-items one dispatch may hold per dimension. */
#define AGPU_HIP_MAX_DISPATCH_ITEMS 0x7fffffffu

static uint64_t agpu_hip_groups_per_launch(uint32_t max_grid, size_t local) {
  uint64_t items =
      max_grid && max_grid < AGPU_HIP_MAX_DISPATCH_ITEMS ? max_grid : AGPU_HIP_MAX_DISPATCH_ITEMS;
  uint64_t groups = items / local;
  return groups ? groups : 1;
}

agpu_status agpu_hip_launch(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,
                            const size_t global[3], const size_t local[3], uint32_t nargs,
                            const agpu_arg args[]) {
  const agpu_hip_device *device = agpu_hip_device_of(queue->device);
  const agpu_hip_api *api = device->api;
  const agpu_hip_kernel *native = kernel->native;
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;

  agpu_cuda_args packed;
  status = agpu_cuda_args_pack(nargs, args, "hip", &packed);
  if (status != AGPU_SUCCESS) {
    agpu_cuda_args_free(&packed);
    return status;
  }
  void **params = packed.params;
  uint64_t shared_bytes = packed.shared_bytes;
  /* A native code object's kernel gets its arguments as given: no launch
   * info, so no split grid either. */
  bool native_abi = native->entry->native_abi;
  kl_cuda_launch_info launch_info = {.work_dim = dims};
  if (!native_abi) params[nargs] = &launch_info;

  uint64_t groups[3], step[3];
  /* A smaller last group in dimension 0 (AGPU_CAP_NONUNIFORM_GROUPS, for
   * translated kernels): a launch of its own with a block of its size, told
   * its group id (group_offset) and what it lacks (last_short), so that the
   * work-item functions give OpenCL 2.0's values (kernels/cuda_abi.h). */
  uint64_t rest = global[0] % local[0];
  if (rest) launch_info.last_short = (uint32_t)(local[0] - rest);
  for (int d = 0; d < 3; d++) {
    groups[d] = global[d] / local[d];
    step[d] = agpu_hip_groups_per_launch(device->max_grid[d], local[d]);
    launch_info.num_groups[d] = (uint32_t)(groups[d] + (d == 0 && rest));
    if (native_abi && groups[d] > step[d])
      status = agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                              "agpu_launch: kernel '%s' (from a native code object) needs %llu "
                              "work-groups of %zu in dimension %d, more than one dispatch holds "
                              "(%llu); translated kernels are split, native ones cannot be",
                              kernel->info.name, (unsigned long long)groups[d], local[d], d,
                              (unsigned long long)step[d]);
  }
  for (uint32_t i = 0; native_abi && i < nargs && status == AGPU_SUCCESS; i++)
    if (args[i].kind == AGPU_ARG_LOCAL)
      status = agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                              "agpu_launch: kernel '%s' (from a native code object) takes no "
                              "__local arguments (argument %u)",
                              kernel->info.name, i);
  agpu_hipStream_t stream = ((agpu_hip_queue *)queue->native)->stream;
  /* part 0: the whole groups [0, groups[0]); part 1: the smaller last one */
  for (int part = 0; part < 2 && status == AGPU_SUCCESS; part++) {
    uint64_t first = part == 0 ? 0 : groups[0], end = groups[0] + (part == 1 && rest);
    uint64_t bx = part == 0 ? local[0] : rest;
  for (uint64_t z = 0; z < groups[2] && status == AGPU_SUCCESS; z += step[2]) {
    for (uint64_t y = 0; y < groups[1] && status == AGPU_SUCCESS; y += step[1]) {
      for (uint64_t x = first; x < end && status == AGPU_SUCCESS; x += step[0]) {
        launch_info.group_offset[0] = (uint32_t)x;
        launch_info.group_offset[1] = (uint32_t)y;
        launch_info.group_offset[2] = (uint32_t)z;
        uint64_t count[3] = {end - x < step[0] ? end - x : step[0],
                             groups[1] - y < step[1] ? groups[1] - y : step[1],
                             groups[2] - z < step[2] ? groups[2] - z : step[2]};
        /* The runtime copies the arguments before it returns, so the next
         * launch may change launch_info. */
        agpu_hipError_t error = api->hipModuleLaunchKernel(
            native->function, (unsigned)count[0], (unsigned)count[1], (unsigned)count[2],
            (unsigned)bx, (unsigned)local[1], (unsigned)local[2], (unsigned)shared_bytes,
            stream, params, NULL);
        if (error != AGPU_hipSuccess) {
          status = agpu_hip_fail(api, "hipModuleLaunchKernel", error);
          agpu_error_append(
              " (kernel '%s', %llux%llux%llu groups of %zux%zux%zu, %llu bytes of "
              "dynamic shared memory, on %s)",
              kernel->info.name, (unsigned long long)count[0], (unsigned long long)count[1],
              (unsigned long long)count[2], (size_t)bx, local[1], local[2],
              (unsigned long long)shared_bytes, queue->device->info.selector);
        }
      }
    }
  }
  }
  agpu_cuda_args_free(&packed);
  return status;
}
