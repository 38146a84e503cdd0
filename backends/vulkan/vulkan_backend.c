// SPDX-License-Identifier: Apache-2.0
/* The Vulkan backend's ops table. Built without the Vulkan headers it only
 * says why it is unavailable. */
#include "agpu_backend.h"

#ifndef AGPU_HAVE_VULKAN_HEADERS

#include <stdio.h>

static agpu_status agpu_vk_init_without_headers(agpu_backend *backend) {
  snprintf(backend->reason, sizeof backend->reason,
           "built without the Vulkan headers (install libvulkan-dev and reconfigure)");
  backend->available = false;
  return AGPU_SUCCESS;
}

const agpu_backend_ops agpu_vulkan_backend_ops = {
    .init = agpu_vk_init_without_headers,
};

#else

#include "vulkan_internal.h"

static agpu_status agpu_vk_init(agpu_backend *backend) {
  agpu_vk_api *api = agpu_vk_load(backend);
  if (!api) {
    backend->available = false;
    return AGPU_SUCCESS;
  }
  backend->native = api;
  backend->available = true;
  return agpu_vk_enumerate(backend, api);
}

const agpu_backend_ops agpu_vulkan_backend_ops = {
    .init = agpu_vk_init,
    .device_caps = agpu_vk_device_caps,
    .device_memory = agpu_vk_device_memory,
    .translate_traits = agpu_vk_translate_traits,
    .queue_create = agpu_vk_queue_create,
    .queue_release = agpu_vk_queue_release,
    .queue_finish = agpu_vk_queue_finish,
    .event_record = agpu_vk_event_record,
    .event_wait = agpu_vk_event_wait,
    .event_elapsed_ns = agpu_vk_event_elapsed_ns,
    .event_release = agpu_vk_event_release,
    .buffer_create = agpu_vk_buffer_create,
    .buffer_release = agpu_vk_buffer_release,
    .buffer_write = agpu_vk_buffer_write,
    .buffer_read = agpu_vk_buffer_read,
    .buffer_copy = agpu_vk_buffer_copy,
    .buffer_fill = agpu_vk_buffer_fill,
    .buffer_map = agpu_vk_buffer_map,
    .buffer_unmap = agpu_vk_buffer_unmap,
    .program_build = agpu_vk_program_build,
    .program_create_native = agpu_vk_program_create_native,
    .program_release = agpu_vk_program_release,
    .kernel_create = agpu_vk_kernel_create,
    .kernel_release = agpu_vk_kernel_release,
    .program_kernel_names = agpu_vk_program_kernel_names,
    .launch = agpu_vk_launch,
};

#endif /* AGPU_HAVE_VULKAN_HEADERS */
