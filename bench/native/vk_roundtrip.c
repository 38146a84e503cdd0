// SPDX-License-Identifier: Apache-2.0
/* A minimal raw-Vulkan launch roundtrip, for comparison with anygpu's: the
 * same shader, one queue, one command buffer and one fence reused, and per
 * repetition: begin, bind, push constants, dispatch, end, submit, wait,
 * reset. Linked against libvulkan directly, as a plain program would be. */
#include "vk_roundtrip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

struct vk_roundtrip {
  VkInstance instance;
  VkDevice device;
  VkQueue queue;
  VkShaderModule module;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkCommandPool pool;
  VkCommandBuffer commands;
  VkFence fence;
  uint32_t push_bytes;
};

#define VK_TRY(call)                                                \
  do {                                                              \
    VkResult r_ = (call);                                           \
    if (r_ != VK_SUCCESS) {                                         \
      snprintf(error, error_size, "%s failed: %d", #call, (int)r_); \
      goto fail;                                                    \
    }                                                               \
  } while (0)

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

vk_roundtrip *vk_roundtrip_open(const uint32_t *spirv, size_t spirv_bytes, uint32_t push_bytes,
                                const char *device_name, char *error, size_t error_size) {
  vk_roundtrip *rt = calloc(1, sizeof *rt);
  if (!rt) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  rt->push_bytes = push_bytes;
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                        .pApplicationInfo = &app};
  VK_TRY(vkCreateInstance(&instance_info, NULL, &rt->instance));
  uint32_t count = 8;
  VkPhysicalDevice physicals[8];
  vkEnumeratePhysicalDevices(rt->instance, &count, physicals);
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < count && !physical; i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(physicals[i], &p);
    if (strstr(p.deviceName, device_name)) physical = physicals[i];
  }
  if (!physical) {
    snprintf(error, error_size, "no Vulkan device named like '%s'", device_name);
    goto fail;
  }
  uint32_t families = 16;
  VkQueueFamilyProperties family[16];
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, family);
  uint32_t queue_family = 0;
  while (queue_family < families && !(family[queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT))
    queue_family++;
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                        .queueFamilyIndex = queue_family,
                                        .queueCount = 1,
                                        .pQueuePriorities = &priority};
  VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                    .queueCreateInfoCount = 1,
                                    .pQueueCreateInfos = &queue_info};
  VK_TRY(vkCreateDevice(physical, &device_info, NULL, &rt->device));
  vkGetDeviceQueue(rt->device, queue_family, 0, &rt->queue);
  VkShaderModuleCreateInfo module_info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                          .codeSize = spirv_bytes,
                                          .pCode = spirv};
  VK_TRY(vkCreateShaderModule(rt->device, &module_info, NULL, &rt->module));
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo layout_info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                            .pushConstantRangeCount = push_bytes ? 1 : 0,
                                            .pPushConstantRanges = &range};
  VK_TRY(vkCreatePipelineLayout(rt->device, &layout_info, NULL, &rt->layout));
  VkComputePipelineCreateInfo pipeline_info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = rt->module,
                .pName = "main"},
      .layout = rt->layout};
  VK_TRY(
      vkCreateComputePipelines(rt->device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &rt->pipeline));
  VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                       .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                       .queueFamilyIndex = queue_family};
  VK_TRY(vkCreateCommandPool(rt->device, &pool_info, NULL, &rt->pool));
  VkCommandBufferAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = rt->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
  VK_TRY(vkAllocateCommandBuffers(rt->device, &allocate, &rt->commands));
  VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK_TRY(vkCreateFence(rt->device, &fence_info, NULL, &rt->fence));
  return rt;
fail:
  vk_roundtrip_close(rt);
  return NULL;
}

int vk_roundtrip_run(vk_roundtrip *rt, int reps, double *times_ns, char *error, size_t error_size) {
  uint8_t push[128] = {0};
  uint32_t one[3] = {1, 1, 1};
  memcpy(push + 16, one, sizeof one); /* num_groups, as anygpu's header has it */
  for (int rep = 0; rep < reps; rep++) {
    double start = now_ns();
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_TRY(vkBeginCommandBuffer(rt->commands, &begin));
    vkCmdBindPipeline(rt->commands, VK_PIPELINE_BIND_POINT_COMPUTE, rt->pipeline);
    if (rt->push_bytes)
      vkCmdPushConstants(rt->commands, rt->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, rt->push_bytes,
                         push);
    vkCmdDispatch(rt->commands, 1, 1, 1);
    VK_TRY(vkEndCommandBuffer(rt->commands));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &rt->commands};
    VK_TRY(vkQueueSubmit(rt->queue, 1, &submit, rt->fence));
    VK_TRY(vkWaitForFences(rt->device, 1, &rt->fence, VK_TRUE, UINT64_MAX));
    vkResetFences(rt->device, 1, &rt->fence);
    vkResetCommandBuffer(rt->commands, 0);
    times_ns[rep] = now_ns() - start;
  }
  return 0;
fail:
  return -1;
}

void vk_roundtrip_close(vk_roundtrip *rt) {
  if (!rt) return;
  if (rt->device) {
    vkDeviceWaitIdle(rt->device);
    if (rt->fence) vkDestroyFence(rt->device, rt->fence, NULL);
    if (rt->pool) vkDestroyCommandPool(rt->device, rt->pool, NULL);
    if (rt->pipeline) vkDestroyPipeline(rt->device, rt->pipeline, NULL);
    if (rt->layout) vkDestroyPipelineLayout(rt->device, rt->layout, NULL);
    if (rt->module) vkDestroyShaderModule(rt->device, rt->module, NULL);
    vkDestroyDevice(rt->device, NULL);
  }
  if (rt->instance) vkDestroyInstance(rt->instance, NULL);
  free(rt);
}
