// SPDX-License-Identifier: Apache-2.0
/* Enumerates the physical devices with a compute queue, describes each one
 * (properties, driver, IDs, PCI address, subgroups, memory, limits,
 * features) and creates its VkDevice with the features kernels may need. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "glsl_layout.h"
#include "vulkan_internal.h"

static bool agpu_vk_has_extension(const VkExtensionProperties *list, uint32_t count,
                                  const char *name) {
  for (uint32_t i = 0; i < count; i++)
    if (strcmp(list[i].extensionName, name) == 0) return true;
  return false;
}

static const char *agpu_vk_vendor_name(uint32_t vendor_id) {
  switch (vendor_id) {
    case 0x10de:
      return "NVIDIA";
    case 0x1002:
      return "AMD";
    case 0x8086:
      return "Intel";
    case 0x13b5:
      return "ARM";
    case 0x5143:
      return "Qualcomm";
    case 0x1010:
      return "Imagination";
    case 0x106b:
      return "Apple";
    case 0x10005:
      return "Mesa";
    default:
      return NULL;
  }
}

static agpu_device_type agpu_vk_device_type(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return AGPU_DEVICE_TYPE_DISCRETE_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return AGPU_DEVICE_TYPE_INTEGRATED_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return AGPU_DEVICE_TYPE_VIRTUAL_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return AGPU_DEVICE_TYPE_CPU;
    default:
      return AGPU_DEVICE_TYPE_OTHER;
  }
}

/* A compute queue family: a compute-only one where there is one (it runs
 * beside graphics), else the first with compute. UINT32_MAX when none. */
static uint32_t agpu_vk_pick_queue_family(const agpu_vk_api *api, VkPhysicalDevice physical,
                                          uint32_t *timestamp_bits) {
  uint32_t count = 0;
  api->vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, NULL);
  VkQueueFamilyProperties *families = calloc(count ? count : 1, sizeof *families);
  if (!families) return UINT32_MAX;
  api->vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families);
  uint32_t picked = UINT32_MAX;
  for (uint32_t i = 0; i < count; i++) {
    VkQueueFlags flags = families[i].queueFlags;
    if (!(flags & VK_QUEUE_COMPUTE_BIT) || !families[i].queueCount) continue;
    if (picked == UINT32_MAX || !(flags & VK_QUEUE_GRAPHICS_BIT)) picked = i;
    if (!(flags & VK_QUEUE_GRAPHICS_BIT)) break;
  }
  if (picked != UINT32_MAX) *timestamp_bits = families[picked].timestampValidBits;
  free(families);
  return picked;
}

/* The memory types buffers go to (see agpu_vk_device). */
static void agpu_vk_pick_memory(agpu_vk_device *device, uint32_t buffer_types) {
  const VkPhysicalDeviceMemoryProperties *memory = &device->memory;
  VkDeviceSize largest = 0;
  device->heap_index = 0;
  for (int pass = 0; pass < 2 && largest == 0; pass++)
    for (uint32_t h = 0; h < memory->memoryHeapCount; h++) {
      bool local = memory->memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
      if ((pass == 0 && !local) || memory->memoryHeaps[h].size <= largest) continue;
      largest = memory->memoryHeaps[h].size;
      device->heap_index = h;
    }
  const VkMemoryPropertyFlags visible =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  device->direct_type = device->device_type = device->staging_type = -1;
  for (uint32_t t = 0; t < memory->memoryTypeCount; t++) {
    if (!(buffer_types & (1u << t))) continue;
    VkMemoryPropertyFlags flags = memory->memoryTypes[t].propertyFlags;
    if (flags & (VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT | VK_MEMORY_PROPERTY_PROTECTED_BIT))
      continue;
    bool on_heap = memory->memoryTypes[t].heapIndex == device->heap_index;
    if (on_heap && device->device_type < 0) device->device_type = (int32_t)t;
    if (on_heap && (flags & visible) == visible && device->direct_type < 0)
      device->direct_type = (int32_t)t;
    if ((flags & visible) == visible &&
        (device->staging_type < 0 || (flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT)))
      device->staging_type = (int32_t)t;
  }
  /* ANYGPU_VULKAN_NO_DIRECT_MEMORY=1 takes the staging path of a discrete
   * GPU on a device with host-visible device memory (lavapipe), for tests. */
  const char *no_direct = getenv("ANYGPU_VULKAN_NO_DIRECT_MEMORY");
  if (no_direct && *no_direct && strcmp(no_direct, "0") != 0) device->direct_type = -1;
  VkDeviceSize heap = memory->memoryHeaps[device->heap_index].size;
  device->block_size = 64u << 20;
  while (device->block_size > (1u << 20) && device->block_size > heap / 16) device->block_size /= 2;
}

/* Which memory types a storage buffer may live in, from a probe buffer. */
static uint32_t agpu_vk_buffer_types(const agpu_vk_api *api, VkDevice device, bool address) {
  VkBufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = 256,
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT |
               (address ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0),
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkBuffer buffer = VK_NULL_HANDLE;
  if (api->vkCreateBuffer(device, &info, NULL, &buffer) != VK_SUCCESS) return 0;
  VkMemoryRequirements needs;
  api->vkGetBufferMemoryRequirements(device, buffer, &needs);
  api->vkDestroyBuffer(device, buffer, NULL);
  return needs.memoryTypeBits;
}

typedef struct agpu_vk_features {
  VkPhysicalDeviceFeatures2 core;
  VkPhysicalDeviceVulkan11Features v11;
  VkPhysicalDeviceVulkan12Features v12;
} agpu_vk_features;

static void agpu_vk_features_chain(agpu_vk_features *f, bool vulkan12) {
  memset(f, 0, sizeof *f);
  f->core.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  f->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  f->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  if (vulkan12) {
    f->core.pNext = &f->v11;
    f->v11.pNext = &f->v12;
  }
}

/* Only what kernels use: the rest may cost speed (robustBufferAccess). */
static void agpu_vk_features_wanted(const agpu_vk_features *have, agpu_vk_features *want) {
  want->core.features.shaderFloat64 = have->core.features.shaderFloat64;
  want->core.features.shaderInt64 = have->core.features.shaderInt64;
  want->core.features.shaderInt16 = have->core.features.shaderInt16;
  want->v11.storageBuffer16BitAccess = have->v11.storageBuffer16BitAccess;
  want->v11.uniformAndStorageBuffer16BitAccess = have->v11.uniformAndStorageBuffer16BitAccess;
  want->v11.storagePushConstant16 = have->v11.storagePushConstant16;
  want->v12.storageBuffer8BitAccess = have->v12.storageBuffer8BitAccess;
  want->v12.uniformAndStorageBuffer8BitAccess = have->v12.uniformAndStorageBuffer8BitAccess;
  want->v12.storagePushConstant8 = have->v12.storagePushConstant8;
  want->v12.shaderInt8 = have->v12.shaderInt8;
  want->v12.shaderFloat16 = have->v12.shaderFloat16;
  want->v12.shaderBufferInt64Atomics = have->v12.shaderBufferInt64Atomics;
  want->v12.shaderSharedInt64Atomics = have->v12.shaderSharedInt64Atomics;
  want->v12.bufferDeviceAddress = have->v12.bufferDeviceAddress;
}

static unsigned agpu_vk_capabilities(const agpu_vk_features *f) {
  unsigned caps = 0;
  if (f->v12.shaderInt8 && f->v12.storageBuffer8BitAccess && f->v12.storagePushConstant8)
    caps |= KL_GLSL_NEEDS_INT8;
  if (f->core.features.shaderInt16 && f->v11.storageBuffer16BitAccess &&
      f->v11.storagePushConstant16)
    caps |= KL_GLSL_NEEDS_INT16;
  if (f->core.features.shaderInt64) caps |= KL_GLSL_NEEDS_INT64 | KL_GLSL_NEEDS_SIZE64;
  if (f->core.features.shaderFloat64) caps |= KL_GLSL_NEEDS_FP64;
  if (f->v12.shaderBufferInt64Atomics && f->v12.shaderSharedInt64Atomics)
    caps |= KL_GLSL_NEEDS_INT64_ATOMICS;
  if (f->v12.shaderFloat16 && f->v11.storageBuffer16BitAccess) caps |= KL_GLSL_NEEDS_FP16;
  return caps;
}

/* IEEE infinities, NaNs and signed zeros kept on request (float controls,
 * core in Vulkan 1.2): every translated kernel that uses floating point
 * asks for it, as OpenCL C's semantics need. For doubles the Float64
 * variant is needed too; a device whose doubles lack it gets no fp64. */
static unsigned agpu_vk_float_controls(const agpu_vk_api *api, const agpu_vk_device *device,
                                       unsigned caps) {
  if (device->properties.apiVersion < VK_API_VERSION_1_2) return caps & ~KL_GLSL_NEEDS_FP64;
  VkPhysicalDeviceVulkan12Properties v12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
  VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                            .pNext = &v12};
  api->vkGetPhysicalDeviceProperties2(device->physical, &properties);
  if (!v12.shaderSignedZeroInfNanPreserveFloat32) return caps & ~KL_GLSL_NEEDS_FP64;
  caps |= KL_GLSL_NEEDS_FLOAT_CONTROLS;
  if (!v12.shaderSignedZeroInfNanPreserveFloat64) caps &= ~KL_GLSL_NEEDS_FP64;
  if (!v12.shaderSignedZeroInfNanPreserveFloat16) caps &= ~KL_GLSL_NEEDS_FP16;
  return caps;
}

/* What the core shows: agpu_device_info from the properties chain. */
static void agpu_vk_describe(const agpu_vk_api *api, agpu_vk_device *device, bool has_pci_ext,
                             const agpu_vk_features *features, agpu_device_info *info) {
  VkPhysicalDeviceDriverProperties driver = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceIDProperties ids = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
                                      .pNext = &driver};
  VkPhysicalDeviceSubgroupProperties subgroup = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, .pNext = &ids};
  VkPhysicalDeviceMaintenance3Properties maintenance3 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, .pNext = &subgroup};
  VkPhysicalDeviceSubgroupSizeControlProperties size_control = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceMaintenance4Properties maintenance4 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
  VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                            .pNext = &maintenance3};
  uint32_t version = device->properties.apiVersion;
  bool vulkan12 = version >= VK_API_VERSION_1_2, vulkan13 = version >= VK_API_VERSION_1_3;
  if (!vulkan12) ids.pNext = NULL; /* driver properties are 1.2 */
  void **tail = vulkan12 ? &driver.pNext : &ids.pNext;
  if (vulkan13) {
    *tail = &size_control;
    size_control.pNext = &maintenance4;
    tail = &maintenance4.pNext;
  }
  if (has_pci_ext) *tail = &pci;
  api->vkGetPhysicalDeviceProperties2(device->physical, &properties);
  const VkPhysicalDeviceLimits *limits = &device->properties.limits;

  memset(info, 0, sizeof *info);
  snprintf(info->name, sizeof info->name, "%s", device->properties.deviceName);
  const char *vendor = agpu_vk_vendor_name(device->properties.vendorID);
  if (vendor)
    snprintf(info->vendor, sizeof info->vendor, "%s", vendor);
  else
    snprintf(info->vendor, sizeof info->vendor, "0x%04x", device->properties.vendorID);
  info->vendor_id = device->properties.vendorID;
  info->device_id = device->properties.deviceID;
  info->type = agpu_vk_device_type(device->properties.deviceType);
  if (vulkan12 && driver.driverInfo[0])
    snprintf(info->driver_version, sizeof info->driver_version, "%.40s %.80s", driver.driverName,
             driver.driverInfo);
  else
    snprintf(info->driver_version, sizeof info->driver_version, "%u",
             device->properties.driverVersion);
  snprintf(info->api_version, sizeof info->api_version, "Vulkan %u.%u.%u",
           VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version),
           VK_API_VERSION_PATCH(version));
  VkDeviceSize heap = device->memory.memoryHeaps[device->heap_index].size;
  info->global_mem_bytes = heap;
  uint64_t max_alloc = maintenance3.maxMemoryAllocationSize;
  if (vulkan13 && maintenance4.maxBufferSize && maintenance4.maxBufferSize < max_alloc)
    max_alloc = maintenance4.maxBufferSize;
  info->max_alloc_bytes = max_alloc && max_alloc < heap ? max_alloc : heap;
  info->local_mem_bytes = limits->maxComputeSharedMemorySize;
  /* Vulkan does not count compute units; a CPU device runs on the host's
   * threads (lavapipe starts one per online CPU). */
  if (info->type == AGPU_DEVICE_TYPE_CPU) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    info->compute_units = cpus > 0 ? (uint32_t)cpus : 0;
  }
  info->max_work_group_size = limits->maxComputeWorkGroupInvocations;
  for (int d = 0; d < 3; d++) {
    info->max_work_item_sizes[d] = limits->maxComputeWorkGroupSize[d];
    info->max_work_groups[d] = UINT32_MAX; /* launches are split at the device's limit */
  }
  if (vulkan13 && size_control.minSubgroupSize && size_control.maxSubgroupSize) {
    uint32_t n = 0;
    for (uint32_t s = size_control.minSubgroupSize; s <= size_control.maxSubgroupSize && n < 4;
         s *= 2)
      info->subgroup_sizes[n++] = s;
  } else {
    info->subgroup_sizes[0] = subgroup.subgroupSize;
  }
  info->fp64 = features->core.features.shaderFloat64;
  info->int64 = features->core.features.shaderInt64;
  info->fp16 = device->fp16;
  info->unified_memory = device->direct_type >= 0;
  if (has_pci_ext) {
    info->has_pci = true;
    snprintf(info->pci, sizeof info->pci, "%04x:%02x:%02x.%x", pci.pciDomain & 0xffffu,
             pci.pciBus & 0xffu, pci.pciDevice & 0x1fu, pci.pciFunction & 0x7u);
  }
  info->has_uuid = true;
  memcpy(info->uuid, ids.deviceUUID, sizeof info->uuid);
  device->max_storage_range = limits->maxStorageBufferRange;
  device->max_storage_buffers = limits->maxPerStageDescriptorStorageBuffers;
  /* ANYGPU_VULKAN_MAX_STORAGE_RANGE=<bytes> lowers the range (never raises
   * it), so that the by-address path and its refusal run on small buffers. */
  const char *lowered = getenv("ANYGPU_VULKAN_MAX_STORAGE_RANGE");
  if (lowered && *lowered) {
    char *end = NULL;
    unsigned long long bytes = strtoull(lowered, &end, 0);
    if (end && *end == '\0' && bytes >= 4 && bytes < device->max_storage_range)
      device->max_storage_range = bytes & ~3ull;
  }
}

static agpu_status agpu_vk_create_device(const agpu_vk_api *api, agpu_vk_device *device,
                                         agpu_vk_features *features,
                                         const VkExtensionProperties *ext, uint32_t ext_count) {
  const char *enabled[2];
  uint32_t enabled_count = 0;
  /* ANYGPU_VULKAN_NO_PUSH_DESCRIPTORS=1 takes the pooled-set path where push
   * descriptors exist, so that the tests cover it on lavapipe. */
  const char *no_push = getenv("ANYGPU_VULKAN_NO_PUSH_DESCRIPTORS");
  device->push_descriptors =
      agpu_vk_has_extension(ext, ext_count, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) &&
      !(no_push && *no_push && strcmp(no_push, "0") != 0);
  if (device->push_descriptors) enabled[enabled_count++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  device->memory_budget =
      agpu_vk_has_extension(ext, ext_count, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  if (device->memory_budget) enabled[enabled_count++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = device->queue_family,
      .queueCount = 1,
      .pQueuePriorities = &priority,
  };
  agpu_vk_features want;
  agpu_vk_features_chain(&want, device->properties.apiVersion >= VK_API_VERSION_1_2);
  /* ANYGPU_VULKAN_NO_BUFFER_ADDRESS=1: as on a device without
   * bufferDeviceAddress (launches with buffers over the range are refused) */
  const char *no_address = getenv("ANYGPU_VULKAN_NO_BUFFER_ADDRESS");
  if (no_address && *no_address && strcmp(no_address, "0") != 0)
    features->v12.bufferDeviceAddress = VK_FALSE;
  device->buffer_address = features->v12.bufferDeviceAddress && api->vkGetBufferDeviceAddress;
  if (!device->buffer_address) features->v12.bufferDeviceAddress = VK_FALSE;
  agpu_vk_features_wanted(features, &want);
  VkDeviceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = &want.core,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &queue,
      .enabledExtensionCount = enabled_count,
      .ppEnabledExtensionNames = enabled,
  };
  VkResult result = api->vkCreateDevice(device->physical, &info, NULL, &device->device);
  if (result != VK_SUCCESS) return agpu_vk_fail("vkCreateDevice", result);
  api->vkGetDeviceQueue(device->device, device->queue_family, 0, &device->queue);
  return AGPU_SUCCESS;
}

/* One physical device: its VkDevice and its description. A device that
 * cannot be used is skipped with a note in the backend's reason. */
static agpu_status agpu_vk_add(agpu_backend *backend, agpu_vk_api *api, VkPhysicalDevice physical) {
  agpu_vk_device *device = calloc(1, sizeof *device);
  if (!device) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  device->api = api;
  device->backend = backend;
  device->physical = physical;
  api->vkGetPhysicalDeviceProperties(physical, &device->properties);
  api->vkGetPhysicalDeviceMemoryProperties(physical, &device->memory);
  agpu_status status = AGPU_SUCCESS;
  VkExtensionProperties *ext = NULL;
  if (device->properties.apiVersion < VK_API_VERSION_1_1) {
    status = agpu_error_set(AGPU_ERROR_UNSUPPORTED, "%s supports Vulkan %u.%u; anygpu needs 1.1",
                            device->properties.deviceName,
                            VK_API_VERSION_MAJOR(device->properties.apiVersion),
                            VK_API_VERSION_MINOR(device->properties.apiVersion));
    goto fail;
  }
  device->queue_family = agpu_vk_pick_queue_family(api, physical, &device->timestamp_bits);
  if (device->queue_family == UINT32_MAX) {
    status = agpu_error_set(AGPU_ERROR_UNSUPPORTED, "%s has no compute queue",
                            device->properties.deviceName);
    goto fail;
  }
  device->timestamp_period = device->properties.limits.timestampPeriod;
  uint32_t ext_count = 0;
  api->vkEnumerateDeviceExtensionProperties(physical, NULL, &ext_count, NULL);
  ext = calloc(ext_count ? ext_count : 1, sizeof *ext);
  if (!ext) {
    status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    goto fail;
  }
  api->vkEnumerateDeviceExtensionProperties(physical, NULL, &ext_count, ext);
  agpu_vk_features features;
  agpu_vk_features_chain(&features, device->properties.apiVersion >= VK_API_VERSION_1_2);
  api->vkGetPhysicalDeviceFeatures2(physical, &features.core);
  /* ANYGPU_VULKAN_NO_INT64=1: as on a device without shaderInt64 (and so
   * without 64-bit atomics), so that the refusal of kernels that need
   * 64-bit integers or sizes runs on lavapipe */
  const char *no_int64 = getenv("ANYGPU_VULKAN_NO_INT64");
  if (no_int64 && *no_int64 && strcmp(no_int64, "0") != 0) {
    features.core.features.shaderInt64 = VK_FALSE;
    features.v12.shaderBufferInt64Atomics = VK_FALSE;
    features.v12.shaderSharedInt64Atomics = VK_FALSE;
  }
  device->capabilities = agpu_vk_float_controls(api, device, agpu_vk_capabilities(&features));
  device->fp16 = features.v12.shaderFloat16 && features.v11.storageBuffer16BitAccess;
  status = agpu_vk_create_device(api, device, &features, ext, ext_count);
  if (status != AGPU_SUCCESS) goto fail;
  /* pointers stored in structs are buffer device addresses */
  if (device->buffer_address) device->capabilities |= KL_GLSL_NEEDS_BUFFER_ADDRESS;
  agpu_vk_pick_memory(device, agpu_vk_buffer_types(api, device->device, device->buffer_address));
  if (device->device_type < 0 || device->staging_type < 0) {
    status = agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "%s offers no memory type for storage buffers and staging",
                            device->properties.deviceName);
    goto fail;
  }
  pthread_mutex_init(&device->submit_lock, NULL);
  pthread_mutex_init(&device->memory_lock, NULL);
  pthread_mutex_init(&device->deferred_lock, NULL);
  pthread_mutex_init(&device->probe_lock, NULL);
  agpu_device_info info;
  agpu_vk_describe(api, device,
                   agpu_vk_has_extension(ext, ext_count, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME),
                   &features, &info);
  info.max_buffer_range_bytes = device->max_storage_range;
  info.buffers_by_address = device->buffer_address;
  info.max_buffer_params = device->max_storage_buffers;
  free(ext);
  ext = NULL;
  agpu_vk_pipeline_cache_open(device);
  if (!agpu_backend_add_device(backend, &info, device)) {
    status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    goto fail;
  }
  return AGPU_SUCCESS;

fail:
  free(ext);
  if (device->pipeline_cache)
    api->vkDestroyPipelineCache(device->device, device->pipeline_cache, NULL);
  if (device->device) api->vkDestroyDevice(device->device, NULL);
  free(device);
  return status;
}

agpu_status agpu_vk_enumerate(agpu_backend *backend, agpu_vk_api *api) {
  uint32_t count = 0;
  VkResult result = api->vkEnumeratePhysicalDevices(api->instance, &count, NULL);
  if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
    snprintf(backend->reason, sizeof backend->reason, "vkEnumeratePhysicalDevices failed: %s (%d)",
             agpu_vk_result_name(result), (int)result);
    return AGPU_SUCCESS;
  }
  VkPhysicalDevice *physical = calloc(count ? count : 1, sizeof *physical);
  if (!physical) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  api->vkEnumeratePhysicalDevices(api->instance, &count, physical);
  for (uint32_t i = 0; i < count; i++) {
    agpu_status status = agpu_vk_add(backend, api, physical[i]);
    if (status == AGPU_ERROR_OUT_OF_HOST_MEMORY) {
      free(physical);
      return status;
    }
    if (status != AGPU_SUCCESS) {
      size_t used = strlen(backend->reason);
      snprintf(backend->reason + used, sizeof backend->reason - used, "%sdevice %u skipped: %s",
               used ? "; " : "", i, agpu_last_error());
    }
  }
  free(physical);
  if (count == 0) snprintf(backend->reason, sizeof backend->reason, "no Vulkan devices");
  return AGPU_SUCCESS;
}

uint32_t agpu_vk_device_caps(agpu_device *device) {
  /* a smaller last group: a dispatch of its own (vulkan_launch.c) */
  uint32_t caps = AGPU_CAP_NONUNIFORM_GROUPS;
#ifdef AGPU_HAVE_GLSLANG
  caps |= AGPU_CAP_BUILD_PORTABLE;
#endif
  if (agpu_vk_device_of(device)->direct_type >= 0) caps |= AGPU_CAP_MAP;
  return caps;
}

agpu_status agpu_vk_device_memory(agpu_device *device, agpu_memory_info *info) {
  agpu_vk_device *vk = agpu_vk_device_of(device);
  const agpu_vk_api *api = vk->api;
  info->total_bytes = vk->memory.memoryHeaps[vk->heap_index].size;
  if (vk->memory_budget) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 memory = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &budget};
    api->vkGetPhysicalDeviceMemoryProperties2(vk->physical, &memory);
    VkDeviceSize b = budget.heapBudget[vk->heap_index], u = budget.heapUsage[vk->heap_index];
    info->free_bytes = b > u ? b - u : 0;
    info->free_known = true;
  }
  return AGPU_SUCCESS;
}
