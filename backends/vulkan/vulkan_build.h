// SPDX-License-Identifier: Apache-2.0
/* What building a kernel's shader takes, shared by vulkan_program.c (the
 * build) and vulkan_variant.c (by-address variants made at launch). */
#ifndef AGPU_VULKAN_BUILD_H
#define AGPU_VULKAN_BUILD_H

#include "agpu_parsed.h"
#include "glsl_layout.h"
#include "vulkan_internal.h"

/* The translator's traits for a device (fused fma, exact double rounding). */
void agpu_vk_translate_traits(agpu_device *device, agpu_translate_traits *traits);

/* The public signature and the GLSL layout of one kernel, into entry. */
agpu_status agpu_vk_describe_kernel(const agpu_kernel_signature *signature,
                                    const kl_glsl_layout *layout, agpu_vk_kernel_entry *entry);

/* SPIR-V for one kernel with the buffer parameters of by_address reached by
 * address (0: none), from the kernel cache or from glslang (then stored);
 * *words is malloc'd. */
agpu_status agpu_vk_kernel_spirv(agpu_program *program, agpu_parsed *parsed,
                                 const agpu_kernel_signature *kernel, uint64_t by_address,
                                 uint32_t **words, size_t *size);

#endif /* AGPU_VULKAN_BUILD_H */
