// SPDX-License-Identifier: Apache-2.0
/* Names the CUDA and HIP emitter escapes (emit_cuda_names.c). */
#ifndef AGPU_EMIT_CUDA_NAMES_H
#define AGPU_EMIT_CUDA_NAMES_H

#include <stdbool.h>

/* C++ words, CUDA's and HIP's builtin variables and header names, and the
 * macros of NVRTC's and hiprtc's headers; NULL-terminated. */
extern const char *const kl_cuda_reserved[];

/* A name with a prefix the CUDA and HIP headers use ("cuda", "hip", "__"...). */
bool kl_cuda_vendor_name(const char *name);

/* A function of NVRTC's headers with C linkage: no extern "C" kernel may
 * take its name. */
bool kl_cuda_kernel_name_taken(const char *name);

#endif /* AGPU_EMIT_CUDA_NAMES_H */
