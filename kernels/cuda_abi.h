// SPDX-License-Identifier: Apache-2.0
/* The launch ABI of kernels translated to CUDA C++ or HIP C++ by
 * kl_emit_cuda (kernels/emit_cuda.c), for the CUDA and HIP backends.
 *
 * A translated kernel keeps the OpenCL parameters in order:
 *  - __global / __constant T*: a device pointer (8 bytes);
 *  - scalar, vector, struct: by value, with OpenCL C's size and alignment
 *    (a 3-component vector has the size and alignment of a 4-component one);
 *  - __local T*: a uint32_t byte offset into the launch's dynamic shared
 *    memory. The runtime places the __local arguments in parameter order,
 *    each at the next multiple of KL_CUDA_LOCAL_ALIGN bytes, starting at 0,
 *    and launches with sharedMemBytes = the end of the last one.
 * and then one hidden parameter, kl_cuda_launch_info by value, which the
 * runtime fills for every launch (also when it does not split the grid).
 */
#ifndef AGPU_CUDA_ABI_H
#define AGPU_CUDA_ABI_H

#include <stdint.h>

#define KL_CUDA_LOCAL_ALIGN 16

/* The line kl_emit_cuda writes for a program with FP_CONTRACT OFF: NVRTC
 * is then asked for --fmad=false. */
#define KL_CUDA_FP_CONTRACT_OFF_MARK "/* anygpu: FP_CONTRACT OFF, compile with --fmad=false */"

typedef struct kl_cuda_launch_info {
  uint32_t group_offset[3]; /* added to blockIdx: the first group of this (partial) launch */
  uint32_t work_dim;        /* 1, 2 or 3: what get_work_dim returns */
  uint32_t num_groups[3];   /* groups of the whole launch per dimension (get_num_groups) */
  /* Work-items the last group of dimension 0 lacks (0 when every group is
   * whole): a launch with a smaller last group (OpenCL 2.0's non-uniform
   * work-groups) runs it as a launch of its own with a smaller block, and
   * get_enqueued_local_size, get_global_id and get_global_size use this to
   * give the enqueued size and the whole launch's values there. */
  uint32_t last_short;
} kl_cuda_launch_info;

_Static_assert(sizeof(kl_cuda_launch_info) == 32, "kl_cuda_launch_info is 32 bytes");

#endif /* AGPU_CUDA_ABI_H */
