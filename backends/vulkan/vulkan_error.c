// SPDX-License-Identifier: Apache-2.0
/* VkResult names and statuses, and the validation layer's messages turned
 * into errors (ANYGPU_VULKAN_VALIDATION=1). */
#include <stdio.h>
#include <string.h>

#include "vulkan_internal.h"

const char *agpu_vk_result_name(VkResult result) {
  switch (result) {
#define AGPU_VK_NAME(name) \
  case name:               \
    return #name;
    AGPU_VK_NAME(VK_SUCCESS)
    AGPU_VK_NAME(VK_NOT_READY)
    AGPU_VK_NAME(VK_TIMEOUT)
    AGPU_VK_NAME(VK_EVENT_SET)
    AGPU_VK_NAME(VK_EVENT_RESET)
    AGPU_VK_NAME(VK_INCOMPLETE)
    AGPU_VK_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    AGPU_VK_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    AGPU_VK_NAME(VK_ERROR_INITIALIZATION_FAILED)
    AGPU_VK_NAME(VK_ERROR_DEVICE_LOST)
    AGPU_VK_NAME(VK_ERROR_MEMORY_MAP_FAILED)
    AGPU_VK_NAME(VK_ERROR_LAYER_NOT_PRESENT)
    AGPU_VK_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    AGPU_VK_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    AGPU_VK_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    AGPU_VK_NAME(VK_ERROR_TOO_MANY_OBJECTS)
    AGPU_VK_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
    AGPU_VK_NAME(VK_ERROR_FRAGMENTED_POOL)
    AGPU_VK_NAME(VK_ERROR_UNKNOWN)
    AGPU_VK_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
    AGPU_VK_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    AGPU_VK_NAME(VK_ERROR_FRAGMENTATION)
    AGPU_VK_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    AGPU_VK_NAME(VK_PIPELINE_COMPILE_REQUIRED)
    AGPU_VK_NAME(VK_ERROR_SURFACE_LOST_KHR)
    AGPU_VK_NAME(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
    AGPU_VK_NAME(VK_SUBOPTIMAL_KHR)
    AGPU_VK_NAME(VK_ERROR_OUT_OF_DATE_KHR)
    AGPU_VK_NAME(VK_ERROR_INCOMPATIBLE_DISPLAY_KHR)
    AGPU_VK_NAME(VK_ERROR_VALIDATION_FAILED_EXT)
    AGPU_VK_NAME(VK_ERROR_INVALID_SHADER_NV)
    AGPU_VK_NAME(VK_ERROR_NOT_PERMITTED_KHR)
#undef AGPU_VK_NAME
    default:
      break;
  }
  return "VK_UNKNOWN_RESULT";
}

static const agpu_status_map agpu_vk_statuses[] = {
    {VK_SUCCESS, AGPU_SUCCESS},
    {VK_ERROR_OUT_OF_HOST_MEMORY, AGPU_ERROR_OUT_OF_HOST_MEMORY},
    {VK_ERROR_OUT_OF_DEVICE_MEMORY, AGPU_ERROR_OUT_OF_DEVICE_MEMORY},
    {VK_ERROR_TOO_MANY_OBJECTS, AGPU_ERROR_OUT_OF_DEVICE_MEMORY},
    {VK_ERROR_FRAGMENTATION, AGPU_ERROR_OUT_OF_DEVICE_MEMORY},
    {VK_ERROR_OUT_OF_POOL_MEMORY, AGPU_ERROR_OUT_OF_DEVICE_MEMORY},
    {VK_ERROR_DEVICE_LOST, AGPU_ERROR_DEVICE_LOST},
    {VK_ERROR_FEATURE_NOT_PRESENT, AGPU_ERROR_UNSUPPORTED},
    {VK_ERROR_EXTENSION_NOT_PRESENT, AGPU_ERROR_UNSUPPORTED},
    {VK_ERROR_LAYER_NOT_PRESENT, AGPU_ERROR_UNSUPPORTED},
    {VK_ERROR_INCOMPATIBLE_DRIVER, AGPU_ERROR_UNSUPPORTED},
    {VK_ERROR_INVALID_SHADER_NV, AGPU_ERROR_BUILD_FAILED},
};

agpu_status agpu_vk_status(VkResult result) {
  return agpu_status_lookup(agpu_vk_statuses, sizeof agpu_vk_statuses / sizeof agpu_vk_statuses[0],
                            result, AGPU_ERROR_BACKEND);
}

agpu_status agpu_vk_fail(const char *call, VkResult result) {
  return agpu_error_set(agpu_vk_status(result), "vulkan: %s failed: %s (%d)", call,
                        agpu_vk_result_name(result), (int)result);
}

/* Counts warnings and errors and keeps the last one; the layer calls this on
 * whatever thread made the offending call. */
VKAPI_ATTR VkBool32 VKAPI_CALL agpu_vk_debug_callback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  (void)types;
  agpu_vk_api *api = user;
  if (!(severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)))
    return VK_FALSE;
  pthread_mutex_lock(&api->log_lock);
  snprintf(api->last_message, sizeof api->last_message, "%s: %s",
           severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning",
           data && data->pMessage ? data->pMessage : "(no message)");
  atomic_fetch_add(&api->messages, 1);
  pthread_mutex_unlock(&api->log_lock);
  return VK_FALSE;
}

agpu_status agpu_vk_check_validation(agpu_vk_device *device, const char *during) {
  agpu_vk_api *api = (agpu_vk_api *)device->api;
  if (!api->validation) return AGPU_SUCCESS;
  uint64_t seen = atomic_load(&api->messages);
  pthread_mutex_lock(&api->log_lock);
  uint64_t reported = device->reported_messages;
  device->reported_messages = seen;
  char message[sizeof api->last_message];
  memcpy(message, api->last_message, sizeof message);
  pthread_mutex_unlock(&api->log_lock);
  if (seen == reported) return AGPU_SUCCESS;
  return agpu_error_set(AGPU_ERROR_BACKEND,
                        "vulkan: the validation layer reported %llu message(s) during %s; the "
                        "last: %s",
                        (unsigned long long)(seen - reported), during, message);
}
