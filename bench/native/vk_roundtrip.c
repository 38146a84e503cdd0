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

#define VK_TRY(call)                                                \
  do {                                                              \
    VkResult r_ = (call);                                           \
    if (r_ != VK_SUCCESS) {                                         \
      snprintf(error, error_size, "%s failed: %d", #call, (int)r_); \
      goto done;                                                    \
    }                                                               \
  } while (0)

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int vk_roundtrip(const uint32_t *spirv, size_t spirv_bytes, uint32_t push_bytes,
                 const char *device_name, int reps, double *times_ns, char *error,
                 size_t error_size) {
  int status = -1;
  VkInstance instance = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                        .pApplicationInfo = &app};
  VK_TRY(vkCreateInstance(&instance_info, NULL, &instance));
  uint32_t count = 8;
  VkPhysicalDevice physicals[8];
  vkEnumeratePhysicalDevices(instance, &count, physicals);
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < count && !physical; i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(physicals[i], &p);
    if (strstr(p.deviceName, device_name)) physical = physicals[i];
  }
  if (!physical) {
    snprintf(error, error_size, "no Vulkan device named like '%s'", device_name);
    goto done;
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
  VK_TRY(vkCreateDevice(physical, &device_info, NULL, &device));
  VkQueue queue;
  vkGetDeviceQueue(device, queue_family, 0, &queue);
  VkShaderModuleCreateInfo module_info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                          .codeSize = spirv_bytes,
                                          .pCode = spirv};
  VK_TRY(vkCreateShaderModule(device, &module_info, NULL, &module));
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo layout_info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                            .pushConstantRangeCount = push_bytes ? 1 : 0,
                                            .pPushConstantRanges = &range};
  VK_TRY(vkCreatePipelineLayout(device, &layout_info, NULL, &layout));
  VkComputePipelineCreateInfo pipeline_info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = "main"},
      .layout = layout};
  VK_TRY(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &pipeline));
  VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                       .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                       .queueFamilyIndex = queue_family};
  VK_TRY(vkCreateCommandPool(device, &pool_info, NULL, &pool));
  VkCommandBuffer commands;
  VkCommandBufferAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
  VK_TRY(vkAllocateCommandBuffers(device, &allocate, &commands));
  VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK_TRY(vkCreateFence(device, &fence_info, NULL, &fence));
  uint8_t push[128] = {0};
  uint32_t one[3] = {1, 1, 1};
  memcpy(push + 16, one, sizeof one); /* num_groups, as anygpu's header has it */
  for (int rep = 0; rep < reps; rep++) {
    double start = now_ns();
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_TRY(vkBeginCommandBuffer(commands, &begin));
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    if (push_bytes)
      vkCmdPushConstants(commands, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
    vkCmdDispatch(commands, 1, 1, 1);
    VK_TRY(vkEndCommandBuffer(commands));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &commands};
    VK_TRY(vkQueueSubmit(queue, 1, &submit, fence));
    VK_TRY(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
    vkResetFences(device, 1, &fence);
    vkResetCommandBuffer(commands, 0);
    times_ns[rep] = now_ns() - start;
  }
  status = 0;
done:
  if (device) {
    vkDeviceWaitIdle(device);
    if (fence) vkDestroyFence(device, fence, NULL);
    if (pool) vkDestroyCommandPool(device, pool, NULL);
    if (pipeline) vkDestroyPipeline(device, pipeline, NULL);
    if (layout) vkDestroyPipelineLayout(device, layout, NULL);
    if (module) vkDestroyShaderModule(device, module, NULL);
    vkDestroyDevice(device, NULL);
  }
  if (instance) vkDestroyInstance(instance, NULL);
  return status;
}
