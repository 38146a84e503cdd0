// SPDX-License-Identifier: Apache-2.0
/* A launch's arguments in the ABI of kernels translated to CUDA or HIP C++
 * (kernels/cuda_abi.h), shared by the CUDA and HIP backends: buffers as
 * their 8-byte device address, values by value, each __local argument as a
 * byte offset into the dynamic shared memory, and a last slot for the
 * hidden launch info. */
#ifndef AGPU_CUDA_ARGS_H
#define AGPU_CUDA_ARGS_H

#include "agpu_backend.h"

typedef struct agpu_cuda_args {
  void **params;           /* nargs + 1 slots: what cuLaunchKernel takes */
  uint64_t *addresses;     /* the buffers' device addresses */
  uint32_t *local_offsets; /* the __local arguments' offsets */
  uint64_t shared_bytes;   /* the dynamic shared memory they take */
} agpu_cuda_args;

/* A buffer's device address is its `native` pointer (so on CUDA and HIP).
 * Fills *out (free it with agpu_cuda_args_free either way); AGPU_ERROR_OUT_OF_HOST_MEMORY with a
 * message prefixed by `backend` when out of memory. The last slot,
 * params[nargs], is NULL: the caller points it at its launch info. */
agpu_status agpu_cuda_args_pack(uint32_t nargs, const agpu_arg args[], const char *backend,
                                agpu_cuda_args *out);
void agpu_cuda_args_free(agpu_cuda_args *args);

#endif /* AGPU_CUDA_ARGS_H */
