// SPDX-License-Identifier: Apache-2.0
/* The Vulkan backend's ops table. Built without the Vulkan headers it only
 * says why it is unavailable. */
#include "agpu_backend.h"

#ifndef AGPU_HAVE_VULKAN_HEADERS

static agpu_status agpu_vk_init_without_headers(agpu_backend *backend) {
  return agpu_backend_not_built(
      backend, "built without the Vulkan headers (install libvulkan-dev and reconfigure)");
}

const agpu_backend_ops agpu_vulkan_backend_ops = {
    .init = agpu_vk_init_without_headers,
};

#else

#include "vulkan_internal.h"

AGPU_DEFINE_LOADED_INIT(agpu_vk, agpu_vk_api)

const agpu_backend_ops agpu_vulkan_backend_ops = {
    AGPU_CORE_OPS(agpu_vk),
    .translate_traits = agpu_vk_translate_traits,
    .buffer_map = agpu_vk_buffer_map,
    .buffer_unmap = agpu_vk_buffer_unmap,
    .program_create_native = agpu_vk_program_create_native,
};

#endif /* AGPU_HAVE_VULKAN_HEADERS */
