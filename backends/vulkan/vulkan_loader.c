// SPDX-License-Identifier: Apache-2.0
/* Opens the Vulkan loader at run time, creates the instance (with the
 * Khronos validation layer and a debug-utils messenger when
 * ANYGPU_VULKAN_VALIDATION=1) and resolves the symbol table through it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_dl.h"
#include "vulkan_internal.h"

static const char agpu_vk_validation_layer[] = "VK_LAYER_KHRONOS_validation";

static bool agpu_vk_validation_wanted(void) {
  const char *value = getenv("ANYGPU_VULKAN_VALIDATION");
  return value && *value && strcmp(value, "0") != 0;
}

static bool agpu_vk_has_layer(const agpu_vk_api *api, const char *name) {
  uint32_t count = 0;
  if (api->vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS || !count) return false;
  VkLayerProperties *layers = calloc(count, sizeof *layers);
  bool found = false;
  if (layers && api->vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS)
    for (uint32_t i = 0; i < count && !found; i++) found = strcmp(layers[i].layerName, name) == 0;
  free(layers);
  return found;
}

static bool agpu_vk_resolve(agpu_backend *backend, agpu_vk_api *api, VkInstance instance,
                            const agpu_dl_symbol symbols[], size_t count) {
  for (size_t i = 0; i < count; i++) {
    *symbols[i].slot = (void *)api->vkGetInstanceProcAddr(instance, symbols[i].name);
    if (!*symbols[i].slot && !symbols[i].optional) {
      snprintf(backend->reason, sizeof backend->reason,
               "%s has no entry point %s (a Vulkan 1.1 loader and driver are needed)",
               backend->library, symbols[i].name);
      return false;
    }
  }
  return true;
}

static agpu_status agpu_vk_create_instance(agpu_backend *backend, agpu_vk_api *api) {
  uint32_t version = VK_API_VERSION_1_0;
  if (api->vkEnumerateInstanceVersion) api->vkEnumerateInstanceVersion(&version);
  if (version < VK_API_VERSION_1_1) {
    snprintf(backend->reason, sizeof backend->reason,
             "the Vulkan loader is version %u.%u; anygpu needs 1.1 or later",
             VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
    return AGPU_ERROR_UNSUPPORTED;
  }
  api->instance_version = version < VK_API_VERSION_1_3 ? version : VK_API_VERSION_1_3;
  const char *layers[1] = {agpu_vk_validation_layer};
  const char *extensions[1] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  api->validation = agpu_vk_validation_wanted();
  if (api->validation && !agpu_vk_has_layer(api, agpu_vk_validation_layer)) {
    snprintf(backend->reason, sizeof backend->reason,
             "ANYGPU_VULKAN_VALIDATION is set but the %s layer is not installed "
             "(vulkan-validationlayers)",
             agpu_vk_validation_layer);
    return AGPU_ERROR_UNSUPPORTED;
  }
  VkDebugUtilsMessengerCreateInfoEXT messenger = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = agpu_vk_debug_callback,
      .pUserData = api,
  };
  VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "anygpu",
      .pEngineName = "anygpu",
      .engineVersion =
          VK_MAKE_API_VERSION(0, AGPU_VERSION_MAJOR, AGPU_VERSION_MINOR, AGPU_VERSION_PATCH),
      .apiVersion = api->instance_version,
  };
  VkInstanceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pNext = api->validation ? &messenger : NULL,
      .pApplicationInfo = &app,
      .enabledLayerCount = api->validation ? 1 : 0,
      .ppEnabledLayerNames = layers,
      .enabledExtensionCount = api->validation ? 1 : 0,
      .ppEnabledExtensionNames = extensions,
  };
  VkResult result = api->vkCreateInstance(&info, NULL, &api->instance);
  if (result != VK_SUCCESS) {
    /* INCOMPATIBLE_DRIVER: the loader found no driver it could load; that
     * is a variable naming the wrong manifests when one is set. */
    const char *driver_files = getenv("VK_DRIVER_FILES");
    if (!driver_files || !*driver_files) driver_files = getenv("VK_ICD_FILENAMES");
    char why[200] = "";
    if (result == VK_ERROR_INCOMPATIBLE_DRIVER && driver_files && *driver_files)
      snprintf(why, sizeof why, ": no driver named by %s=%.120s could be loaded",
               getenv("VK_DRIVER_FILES") && *getenv("VK_DRIVER_FILES") ? "VK_DRIVER_FILES"
                                                                       : "VK_ICD_FILENAMES",
               driver_files);
    else if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
      snprintf(why, sizeof why, ": no Vulkan driver is installed");
    else if (driver_files && *driver_files)
      /* a damaged manifest makes some loaders fail with any code (Debian's
       * says VK_ERROR_OUT_OF_HOST_MEMORY): name what they were told to read */
      snprintf(why, sizeof why,
               " while reading the driver manifests %s=%.80s names (a damaged one? anygpu "
               "doctor checks them)",
               getenv("VK_DRIVER_FILES") && *getenv("VK_DRIVER_FILES") ? "VK_DRIVER_FILES"
                                                                       : "VK_ICD_FILENAMES",
               driver_files);
    snprintf(backend->reason, sizeof backend->reason, "vkCreateInstance failed: %s (%d)%s",
             agpu_vk_result_name(result), (int)result, why);
    return agpu_vk_status(result);
  }
  const agpu_dl_symbol symbols[] = {
#define AGPU_VK_SYMBOL(name, optional_) {#name, (void **)&api->name, optional_},
      AGPU_VULKAN_INSTANCE_SYMBOLS(AGPU_VK_SYMBOL)
#undef AGPU_VK_SYMBOL
  };
  if (!agpu_vk_resolve(backend, api, api->instance, symbols, sizeof symbols / sizeof symbols[0]))
    return AGPU_ERROR_UNSUPPORTED;
  if (api->validation) {
    if (!api->vkCreateDebugUtilsMessengerEXT) {
      snprintf(backend->reason, sizeof backend->reason,
               "ANYGPU_VULKAN_VALIDATION is set but VK_EXT_debug_utils is missing");
      return AGPU_ERROR_UNSUPPORTED;
    }
    result = api->vkCreateDebugUtilsMessengerEXT(api->instance, &messenger, NULL, &api->messenger);
    if (result != VK_SUCCESS) {
      snprintf(backend->reason, sizeof backend->reason,
               "vkCreateDebugUtilsMessengerEXT failed: %s (%d)", agpu_vk_result_name(result),
               (int)result);
      return agpu_vk_status(result);
    }
  }
  return AGPU_SUCCESS;
}

static void agpu_vk_unload(agpu_vk_api *api) {
  if (api->instance && api->vkDestroyInstance) api->vkDestroyInstance(api->instance, NULL);
  dlclose(api->library);
  pthread_mutex_destroy(&api->log_lock);
  free(api);
}

agpu_vk_api *agpu_vk_load(agpu_backend *backend) {
  static const char *const names[] = {"libvulkan.so.1", "libvulkan.so"};
  void *library = agpu_dl_open_first(backend, names, sizeof names / sizeof names[0]);
  if (!library) return NULL;
  agpu_vk_api *api = agpu_dl_api_new(backend, library, sizeof *api);
  if (!api) return NULL;
  api->library = library;
  pthread_mutex_init(&api->log_lock, NULL);
  atomic_init(&api->messages, 0);
  const agpu_dl_symbol entry[] = {
      {"vkGetInstanceProcAddr", (void **)&api->vkGetInstanceProcAddr, false}};
  if (!agpu_dl_load_symbols(backend, library, entry, 1)) {
    agpu_vk_unload(api);
    return NULL;
  }
  const agpu_dl_symbol globals[] = {
#define AGPU_VK_SYMBOL(name, optional_) {#name, (void **)&api->name, optional_},
      AGPU_VULKAN_GLOBAL_SYMBOLS(AGPU_VK_SYMBOL)
#undef AGPU_VK_SYMBOL
  };
  if (!agpu_vk_resolve(backend, api, VK_NULL_HANDLE, globals, sizeof globals / sizeof globals[0]) ||
      agpu_vk_create_instance(backend, api) != AGPU_SUCCESS) {
    agpu_vk_unload(api);
    return NULL;
  }
  return api;
}
