// SPDX-License-Identifier: Apache-2.0
/* Shader modules, layouts and compute pipelines. A kernel's pipelines are
 * made on first use for each work-group size (and enqueued size: a smaller
 * last group's is larger) and set of __local sizes (the specialisation
 * constants of kernels/glsl_layout.h) and kept; every
 * pipeline goes through one VkPipelineCache per device, kept in the kernel
 * cache (api/cache.c) between runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_cache.h"
#include "glsl_layout.h"
#include "vulkan_internal.h"

static uint32_t agpu_vk_round4(uint32_t value) {
  return (value + 3u) & ~3u;
}

uint32_t agpu_vk_storage_bindings(const agpu_vk_kernel_entry *entry) {
  uint32_t bindings = entry->block_in_buffer ? 1 : 0;
  for (uint32_t i = 0; i < entry->param_count; i++)
    if (entry->layout[i].kind == KL_GLSL_PARAM_BUFFER && !entry->layout[i].by_address) bindings++;
  return bindings;
}

agpu_status agpu_vk_kernel_objects(agpu_vk_device *device, agpu_vk_kernel_entry *entry,
                                   const uint32_t *words, size_t size) {
  const agpu_vk_api *api = device->api;
  VkShaderModuleCreateInfo module = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = words};
  VkResult result = api->vkCreateShaderModule(device->device, &module, NULL, &entry->module);
  if (result != VK_SUCCESS) return agpu_vk_fail("vkCreateShaderModule", result);
  uint32_t bindings = agpu_vk_storage_bindings(entry);
  if (bindings > device->max_storage_buffers)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "vulkan: kernel '%s' binds %u storage buffers (%u buffer parameters%s); "
                          "the device allows %u per shader (maxPerStageDescriptorStorageBuffers)",
                          entry->name, bindings, entry->buffer_count,
                          entry->block_in_buffer ? " and its parameter block" : "",
                          device->max_storage_buffers);
  VkDescriptorSetLayoutBinding *list = calloc(bindings ? bindings : 1, sizeof *list);
  if (!list) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  /* a buffer reached by address has no binding (its number is a name only) */
  uint32_t listed = 0;
  for (uint32_t i = 0; i < entry->param_count; i++)
    if (entry->layout[i].kind == KL_GLSL_PARAM_BUFFER && !entry->layout[i].by_address)
      list[listed++] =
          (VkDescriptorSetLayoutBinding){.binding = entry->layout[i].binding,
                                         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                         .descriptorCount = 1,
                                         .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  if (entry->block_in_buffer)
    list[listed++] =
        (VkDescriptorSetLayoutBinding){.binding = entry->block_binding,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .descriptorCount = 1,
                                       .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  bindings = listed;
  VkDescriptorSetLayoutCreateInfo set = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .flags =
          device->push_descriptors ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR : 0,
      .bindingCount = bindings,
      .pBindings = list,
  };
  result = VK_SUCCESS;
  if (bindings)
    result = api->vkCreateDescriptorSetLayout(device->device, &set, NULL, &entry->set_layout);
  free(list);
  if (result != VK_SUCCESS) return agpu_vk_fail("vkCreateDescriptorSetLayout", result);
  VkPushConstantRange push = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                              .offset = 0,
                              .size = agpu_vk_round4(entry->block_size)};
  VkPipelineLayoutCreateInfo layout = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = bindings ? 1 : 0,
      .pSetLayouts = &entry->set_layout,
      .pushConstantRangeCount = entry->block_in_buffer ? 0 : 1,
      .pPushConstantRanges = &push,
  };
  result = api->vkCreatePipelineLayout(device->device, &layout, NULL, &entry->pipeline_layout);
  if (result != VK_SUCCESS) return agpu_vk_fail("vkCreatePipelineLayout", result);
  return AGPU_SUCCESS;
}

void agpu_vk_kernel_entry_destroy(agpu_vk_device *device, agpu_vk_kernel_entry *entry) {
  const agpu_vk_api *api = device->api;
  for (uint32_t i = 0; i < entry->pipeline_count; i++) {
    api->vkDestroyPipeline(device->device, entry->pipelines[i].pipeline, NULL);
    free(entry->pipelines[i].local_counts);
  }
  free(entry->pipelines);
  if (entry->pipeline_layout)
    api->vkDestroyPipelineLayout(device->device, entry->pipeline_layout, NULL);
  if (entry->set_layout) api->vkDestroyDescriptorSetLayout(device->device, entry->set_layout, NULL);
  if (entry->module) api->vkDestroyShaderModule(device->device, entry->module, NULL);
  free(entry->params);
  free(entry->layout);
  pthread_mutex_destroy(&entry->lock);
}

static agpu_status agpu_vk_pipeline_create(agpu_vk_device *device, agpu_vk_kernel_entry *entry,
                                           const uint32_t local[3], uint32_t enqueued,
                                           const uint32_t *local_counts, VkPipeline *out) {
  /* ids 0-2, the __local counts, then the enqueued size (an id the shader
   * may not use: such an entry is ignored) */
  uint32_t count = 3 + entry->local_param_count + 1;
  uint32_t *values = calloc(count, sizeof *values);
  VkSpecializationMapEntry *map = calloc(count, sizeof *map);
  if (!values || !map) {
    free(values);
    free(map);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  }
  for (uint32_t i = 0; i + 1 < count; i++) {
    map[i] =
        (VkSpecializationMapEntry){.constantID = i < 3 ? i : KL_GLSL_FIRST_LOCAL_SPEC_ID + (i - 3),
                                   .offset = i * 4,
                                   .size = 4};
    values[i] = i < 3 ? local[i] : local_counts[i - 3];
  }
  map[count - 1] = (VkSpecializationMapEntry){
      .constantID = KL_GLSL_ENQUEUED_SPEC_ID, .offset = (count - 1) * 4, .size = 4};
  values[count - 1] = enqueued;
  VkSpecializationInfo special = {.mapEntryCount = count,
                                  .pMapEntries = map,
                                  .dataSize = count * sizeof *values,
                                  .pData = values};
  VkComputePipelineCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = entry->module,
                .pName = "main",
                .pSpecializationInfo = &special},
      .layout = entry->pipeline_layout,
  };
  VkResult result = device->api->vkCreateComputePipelines(device->device, device->pipeline_cache, 1,
                                                          &info, NULL, out);
  free(values);
  free(map);
  if (result != VK_SUCCESS) {
    agpu_vk_fail("vkCreateComputePipelines", result);
    agpu_error_append(" (kernel '%s', work-group %ux%ux%u)", entry->name, local[0], local[1],
                      local[2]);
    return agpu_vk_status(result);
  }
  return AGPU_SUCCESS;
}

agpu_status agpu_vk_pipeline_get(agpu_vk_device *device, agpu_vk_kernel_entry *entry,
                                 const uint32_t local[3], uint32_t enqueued,
                                 const uint32_t *local_counts, VkPipeline *pipeline) {
  size_t counts_size = entry->local_param_count * sizeof *local_counts;
  pthread_mutex_lock(&entry->lock);
  for (uint32_t i = 0; i < entry->pipeline_count; i++) {
    agpu_vk_pipeline *p = &entry->pipelines[i];
    if (memcmp(p->local, local, sizeof p->local) == 0 && p->enqueued == enqueued &&
        (!counts_size || memcmp(p->local_counts, local_counts, counts_size) == 0)) {
      *pipeline = p->pipeline;
      pthread_mutex_unlock(&entry->lock);
      return AGPU_SUCCESS;
    }
  }
  agpu_status status = AGPU_SUCCESS;
  if (entry->pipeline_count == entry->pipeline_capacity) {
    uint32_t capacity = entry->pipeline_capacity ? entry->pipeline_capacity * 2 : 4;
    agpu_vk_pipeline *grown = realloc(entry->pipelines, capacity * sizeof *grown);
    if (!grown)
      status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    else {
      entry->pipelines = grown;
      entry->pipeline_capacity = capacity;
    }
  }
  agpu_vk_pipeline made = {.local = {local[0], local[1], local[2]}, .enqueued = enqueued};
  if (status == AGPU_SUCCESS && counts_size) {
    made.local_counts = malloc(counts_size);
    if (!made.local_counts)
      status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    else
      memcpy(made.local_counts, local_counts, counts_size);
  }
  if (status == AGPU_SUCCESS)
    status =
        agpu_vk_pipeline_create(device, entry, local, enqueued, local_counts, &made.pipeline);
  if (status == AGPU_SUCCESS) {
    entry->pipelines[entry->pipeline_count++] = made;
    *pipeline = made.pipeline;
  } else {
    free(made.local_counts);
  }
  pthread_mutex_unlock(&entry->lock);
  if (status == AGPU_SUCCESS) {
    agpu_vk_pipeline_cache_save(device);
    status = agpu_vk_check_validation(device, "pipeline creation");
  }
  return status;
}

/* ------------------------------------------------------- pipeline cache */

void agpu_vk_pipeline_cache_open(agpu_vk_device *device) {
  const VkPhysicalDeviceProperties *p = &device->properties;
  agpu_cache_key key;
  agpu_cache_key_init(&key);
  agpu_cache_key_add_string(&key, "what", "vulkan-pipeline-cache");
  agpu_cache_key_add(&key, "pipelineCacheUUID", p->pipelineCacheUUID, VK_UUID_SIZE);
  agpu_cache_key_add_string(&key, "device", p->deviceName);
  agpu_cache_key_add_u64(&key, "vendor", p->vendorID);
  agpu_cache_key_add_u64(&key, "device_id", p->deviceID);
  agpu_cache_key_add_u64(&key, "driver", p->driverVersion);
  void *data = NULL;
  size_t size = 0;
  if (agpu_cache_key_final(&key, device->pipeline_cache_key) != AGPU_SUCCESS)
    device->pipeline_cache_key[0] = '\0';
  else if (agpu_cache_lookup(device->pipeline_cache_key, &data, &size) != AGPU_SUCCESS)
    data = NULL, size = 0;
  /* A driver checks the header and ignores data that is not its own. */
  VkPipelineCacheCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                    .initialDataSize = size,
                                    .pInitialData = data};
  if (device->api->vkCreatePipelineCache(device->device, &info, NULL, &device->pipeline_cache) !=
      VK_SUCCESS) {
    info.initialDataSize = 0;
    info.pInitialData = NULL;
    if (device->api->vkCreatePipelineCache(device->device, &info, NULL, &device->pipeline_cache) !=
        VK_SUCCESS)
      device->pipeline_cache = VK_NULL_HANDLE;
  }
  device->pipeline_cache_saved = size;
  free(data);
}

void agpu_vk_pipeline_cache_save(agpu_vk_device *device) {
  if (!device->pipeline_cache || !device->pipeline_cache_key[0]) return;
  size_t size = 0;
  if (device->api->vkGetPipelineCacheData(device->device, device->pipeline_cache, &size, NULL) !=
          VK_SUCCESS ||
      size == 0)
    return;
  pthread_mutex_lock(&device->memory_lock);
  bool changed = size != device->pipeline_cache_saved;
  device->pipeline_cache_saved = size;
  pthread_mutex_unlock(&device->memory_lock);
  if (!changed) return;
  void *data = malloc(size);
  if (data && device->api->vkGetPipelineCacheData(device->device, device->pipeline_cache, &size,
                                                  data) == VK_SUCCESS)
    agpu_cache_store(device->pipeline_cache_key, data, size); /* best effort */
  free(data);
}
