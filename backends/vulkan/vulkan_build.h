// SPDX-License-Identifier: Apache-2.0
/* What building a kernel's shader takes, shared by vulkan_program.c (the
 * build) and vulkan_variant.c (by-address variants made at launch). */
#ifndef AGPU_VULKAN_BUILD_H
#define AGPU_VULKAN_BUILD_H

#include "glsl_layout.h"
#include "translate.h"
#include "vulkan_internal.h"

/* The translator's options for a device (its traits: fp64, fp16, int64,
 * fused fma, exact double rounding). */
kl_translate_options agpu_vk_translate_options(agpu_device *device, const char *source_name,
                                               const char *options);

/* The public signature and the GLSL layout of one kernel, into entry. */
agpu_status agpu_vk_describe_kernel(kl_context *ctx, const kl_function *fn,
                                    const kl_glsl_layout *layout, agpu_vk_kernel_entry *entry);

/* SPIR-V for one kernel with the buffer parameters of by_address reached by
 * address (0: none), from the kernel cache or from glslang (then stored).
 * The words live in ctx or in *owned (free it). */
agpu_status agpu_vk_kernel_spirv(agpu_program *program, kl_context *ctx, const kl_program *parsed,
                                 const kl_function *fn, const char *options, uint64_t by_address,
                                 const uint32_t **words, size_t *size, void **owned);

#endif /* AGPU_VULKAN_BUILD_H */
