// SPDX-License-Identifier: Apache-2.0
/* A launch's arguments in the CUDA/HIP kernel ABI (agpu_cuda_args.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_cuda_args.h"
#include "agpu_error.h"
#include "cuda_abi.h"

agpu_status agpu_cuda_args_pack(uint32_t nargs, const agpu_arg args[], const char *backend,
                                agpu_cuda_args *out) {
  memset(out, 0, sizeof *out);
  out->params = calloc((size_t)nargs + 1, sizeof *out->params);
  out->addresses = calloc(nargs ? nargs : 1, sizeof *out->addresses);
  out->local_offsets = calloc(nargs ? nargs : 1, sizeof *out->local_offsets);
  if (!out->params || !out->addresses || !out->local_offsets)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", backend);
  for (uint32_t i = 0; i < nargs; i++) {
    switch (args[i].kind) {
      case AGPU_ARG_BUFFER:
        out->addresses[i] = (uint64_t)(uintptr_t)args[i].buffer->native;
        out->params[i] = &out->addresses[i];
        break;
      case AGPU_ARG_VALUE:
        out->params[i] = (void *)args[i].value.bytes;
        break;
      case AGPU_ARG_LOCAL:
        out->shared_bytes = (out->shared_bytes + KL_CUDA_LOCAL_ALIGN - 1) / KL_CUDA_LOCAL_ALIGN *
                            KL_CUDA_LOCAL_ALIGN;
        out->local_offsets[i] = (uint32_t)out->shared_bytes;
        out->params[i] = &out->local_offsets[i];
        out->shared_bytes += args[i].size;
        break;
    }
  }
  return AGPU_SUCCESS;
}

void agpu_cuda_args_free(agpu_cuda_args *args) {
  free(args->params);
  free(args->addresses);
  free(args->local_offsets);
  memset(args, 0, sizeof *args);
}
