// SPDX-License-Identifier: Apache-2.0
/* The ABI between the host-C translation (kernels/emit_c.c) and the CPU
 * backend (backends/cpu/). The generated C carries the same declarations as
 * text (KL_C_ABI_TEXT), so the two cannot drift apart.
 *
 * For every kernel K the shared object exports
 *   const kl_c_kernel kl_c_kernel_K;
 * and the backend calls run() for a range of work-groups, linearised as
 * x + num_groups[0] * (y + num_groups[1] * z), with `scratch` pointing at
 * the work-group's memory:
 *   [0, static_local_bytes)        the kernel's __local arrays
 *   [static_local_bytes, ...)      the __local parameters, at the offsets the
 *                                  backend passes in args[i] (as uintptr_t)
 *   [private_offset, + private_bytes(items))  per-work-item copies of the
 *                                  values that live across a barrier
 * local_size is the enqueued size and num_groups[d] = ceil(global_size[d] /
 * local_size[d]): the last group of a dimension that local_size does not
 * divide is smaller (OpenCL 2.0's non-uniform work-groups; version 2).
 * args[i] is: a __global/__constant parameter -> the buffer's data pointer;
 * a value parameter -> a pointer to its bytes; a __local parameter -> its
 * byte offset in scratch. */
#ifndef AGPU_EMIT_C_ABI_H
#define AGPU_EMIT_C_ABI_H

#include <stddef.h>

#define KL_C_ABI_VERSION 2u

#define KL_C_ABI_DECLARATIONS(X)                                                                \
  X(typedef struct kl_c_launch {                                                                \
    unsigned work_dim;                                                                          \
    size_t global_size[3];                                                                      \
    size_t local_size[3];                                                                       \
    size_t num_groups[3];                                                                       \
    size_t global_offset[3];                                                                    \
    size_t private_offset;                                                                      \
    void *const *args;                                                                          \
  } kl_c_launch;                                                                                \
    typedef struct kl_c_kernel {                                                                \
      unsigned abi_version;                                                                     \
      unsigned param_count;                                                                     \
      size_t static_local_bytes;                                                                \
      size_t (*private_bytes)(size_t items);                                                    \
      void (*run)(const kl_c_launch *launch, size_t first_group, size_t group_count,           \
                  char *scratch);                                                               \
    } kl_c_kernel;)

#define KL_C_ABI_ID_(...) __VA_ARGS__
#define KL_C_ABI_STR_(...) #__VA_ARGS__
KL_C_ABI_DECLARATIONS(KL_C_ABI_ID_)
#define KL_C_ABI_TEXT KL_C_ABI_DECLARATIONS(KL_C_ABI_STR_)

#define KL_C_KERNEL_SYMBOL_PREFIX "kl_c_kernel_"

#endif /* AGPU_EMIT_C_ABI_H */
