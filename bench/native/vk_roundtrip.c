// SPDX-License-Identifier: Apache-2.0
/* A minimal raw-Vulkan launch roundtrip, for comparison with anygpu's: the
 * same shader, one queue, one command buffer and one fence reused, and per
 * repetition: begin, bind, push constants, dispatch, end, submit, wait,
 * reset. libvulkan.so.1 is opened at run time, as anygpu opens it, so that
 * `anygpu bench` can run this beside its own launches (tools/bench/
 * bench_latency.c) with no link-time dependency; the calls go straight to
 * the driver through vkGetDeviceProcAddr, as a tuned program's would. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, dlopen */
#endif
#define VK_NO_PROTOTYPES
#include "vk_roundtrip.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

/* X(name, on_device): the entry points used; device-level ones (1) come from
 * vkGetDeviceProcAddr, straight to the driver. */
#define VK_ROUNDTRIP_SYMBOLS(X)                  \
  X(vkDestroyInstance, 0)                        \
  X(vkEnumeratePhysicalDevices, 0)               \
  X(vkGetPhysicalDeviceProperties, 0)            \
  X(vkGetPhysicalDeviceQueueFamilyProperties, 0) \
  X(vkCreateDevice, 0)                           \
  X(vkGetDeviceProcAddr, 0)                      \
  X(vkDestroyDevice, 1)                          \
  X(vkGetDeviceQueue, 1)                         \
  X(vkCreateShaderModule, 1)                     \
  X(vkDestroyShaderModule, 1)                    \
  X(vkCreatePipelineLayout, 1)                   \
  X(vkDestroyPipelineLayout, 1)                  \
  X(vkCreateComputePipelines, 1)                 \
  X(vkDestroyPipeline, 1)                        \
  X(vkCreateCommandPool, 1)                      \
  X(vkDestroyCommandPool, 1)                     \
  X(vkAllocateCommandBuffers, 1)                 \
  X(vkCreateFence, 1)                            \
  X(vkDestroyFence, 1)                           \
  X(vkBeginCommandBuffer, 1)                     \
  X(vkCmdBindPipeline, 1)                        \
  X(vkCmdPushConstants, 1)                       \
  X(vkCmdDispatch, 1)                            \
  X(vkEndCommandBuffer, 1)                       \
  X(vkQueueSubmit, 1)                            \
  X(vkWaitForFences, 1)                          \
  X(vkResetFences, 1)                            \
  X(vkResetCommandBuffer, 1)                     \
  X(vkDeviceWaitIdle, 1)

struct vk_roundtrip {
  void *library;
#define VK_ROUNDTRIP_FIELD(name, on_device) PFN_##name name;
  VK_ROUNDTRIP_SYMBOLS(VK_ROUNDTRIP_FIELD)
#undef VK_ROUNDTRIP_FIELD
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

/* Opens the loader and makes the instance; loads the instance-level entry
 * points. 0, or -1 with a message. */
static int open_instance(vk_roundtrip *rt, char *error, size_t error_size) {
  rt->library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!rt->library) {
    snprintf(error, error_size, "cannot open libvulkan.so.1: %s", dlerror());
    return -1;
  }
  PFN_vkGetInstanceProcAddr get = NULL;
  *(void **)&get = dlsym(rt->library, "vkGetInstanceProcAddr");
  PFN_vkCreateInstance create =
      get ? (PFN_vkCreateInstance)get(VK_NULL_HANDLE, "vkCreateInstance") : NULL;
  if (!create) {
    snprintf(error, error_size, "libvulkan.so.1 has no vkCreateInstance");
    return -1;
  }
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                        .pApplicationInfo = &app};
  VK_TRY(create(&instance_info, NULL, &rt->instance));
#define VK_ROUNDTRIP_INSTANCE(name, on_device) \
  if (!on_device && !(rt->name = (PFN_##name)get(rt->instance, #name))) goto missing;
  VK_ROUNDTRIP_SYMBOLS(VK_ROUNDTRIP_INSTANCE)
  return 0;
missing:
  snprintf(error, error_size, "the Vulkan loader lacks an instance entry point");
  return -1;
fail:
  return -1;
}

/* The device's own entry points, after vkCreateDevice. */
static int load_device(vk_roundtrip *rt, char *error, size_t error_size) {
#define VK_ROUNDTRIP_DEVICE(name, on_device)                                             \
  if (on_device && !(rt->name = (PFN_##name)rt->vkGetDeviceProcAddr(rt->device, #name))) \
    goto missing;
  VK_ROUNDTRIP_SYMBOLS(VK_ROUNDTRIP_DEVICE)
  return 0;
missing:
  snprintf(error, error_size, "the Vulkan driver lacks a device entry point");
  return -1;
}

/* The first physical device named like `device_name` and its first compute
 * queue family; 0, or -1 with a message. */
static int pick_device(vk_roundtrip *rt, const char *device_name, VkPhysicalDevice *physical,
                       uint32_t *queue_family, char *error, size_t error_size) {
  uint32_t count = 8;
  VkPhysicalDevice physicals[8];
  rt->vkEnumeratePhysicalDevices(rt->instance, &count, physicals);
  *physical = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < count && !*physical; i++) {
    VkPhysicalDeviceProperties p;
    rt->vkGetPhysicalDeviceProperties(physicals[i], &p);
    if (strstr(p.deviceName, device_name)) *physical = physicals[i];
  }
  if (!*physical) {
    snprintf(error, error_size, "no Vulkan device named like '%s'", device_name);
    return -1;
  }
  uint32_t families = 16;
  VkQueueFamilyProperties family[16];
  rt->vkGetPhysicalDeviceQueueFamilyProperties(*physical, &families, family);
  *queue_family = 0;
  while (*queue_family < families && !(family[*queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT))
    (*queue_family)++;
  return 0;
}

vk_roundtrip *vk_roundtrip_open(const uint32_t *spirv, size_t spirv_bytes, uint32_t push_bytes,
                                const char *device_name, char *error, size_t error_size) {
  vk_roundtrip *rt = calloc(1, sizeof *rt);
  if (!rt) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  rt->push_bytes = push_bytes;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  if (open_instance(rt, error, error_size) != 0 ||
      pick_device(rt, device_name, &physical, &queue_family, error, error_size) != 0)
    goto fail;
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                        .queueFamilyIndex = queue_family,
                                        .queueCount = 1,
                                        .pQueuePriorities = &priority};
  VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                    .queueCreateInfoCount = 1,
                                    .pQueueCreateInfos = &queue_info};
  VK_TRY(rt->vkCreateDevice(physical, &device_info, NULL, &rt->device));
  if (load_device(rt, error, error_size) != 0) goto fail;
  rt->vkGetDeviceQueue(rt->device, queue_family, 0, &rt->queue);
  VkShaderModuleCreateInfo module_info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                          .codeSize = spirv_bytes,
                                          .pCode = spirv};
  VK_TRY(rt->vkCreateShaderModule(rt->device, &module_info, NULL, &rt->module));
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo layout_info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                            .pushConstantRangeCount = push_bytes ? 1 : 0,
                                            .pPushConstantRanges = &range};
  VK_TRY(rt->vkCreatePipelineLayout(rt->device, &layout_info, NULL, &rt->layout));
  VkComputePipelineCreateInfo pipeline_info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = rt->module,
                .pName = "main"},
      .layout = rt->layout};
  VK_TRY(rt->vkCreateComputePipelines(rt->device, VK_NULL_HANDLE, 1, &pipeline_info, NULL,
                                      &rt->pipeline));
  VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                       .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                       .queueFamilyIndex = queue_family};
  VK_TRY(rt->vkCreateCommandPool(rt->device, &pool_info, NULL, &rt->pool));
  VkCommandBufferAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = rt->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
  VK_TRY(rt->vkAllocateCommandBuffers(rt->device, &allocate, &rt->commands));
  VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK_TRY(rt->vkCreateFence(rt->device, &fence_info, NULL, &rt->fence));
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
    VK_TRY(rt->vkBeginCommandBuffer(rt->commands, &begin));
    rt->vkCmdBindPipeline(rt->commands, VK_PIPELINE_BIND_POINT_COMPUTE, rt->pipeline);
    if (rt->push_bytes)
      rt->vkCmdPushConstants(rt->commands, rt->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                             rt->push_bytes, push);
    rt->vkCmdDispatch(rt->commands, 1, 1, 1);
    VK_TRY(rt->vkEndCommandBuffer(rt->commands));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &rt->commands};
    VK_TRY(rt->vkQueueSubmit(rt->queue, 1, &submit, rt->fence));
    VK_TRY(rt->vkWaitForFences(rt->device, 1, &rt->fence, VK_TRUE, UINT64_MAX));
    rt->vkResetFences(rt->device, 1, &rt->fence);
    rt->vkResetCommandBuffer(rt->commands, 0);
    times_ns[rep] = now_ns() - start;
  }
  return 0;
fail:
  return -1;
}

void vk_roundtrip_close(vk_roundtrip *rt) {
  if (!rt) return;
  if (rt->device && rt->vkDeviceWaitIdle) {
    rt->vkDeviceWaitIdle(rt->device);
    if (rt->fence) rt->vkDestroyFence(rt->device, rt->fence, NULL);
    if (rt->pool) rt->vkDestroyCommandPool(rt->device, rt->pool, NULL);
    if (rt->pipeline) rt->vkDestroyPipeline(rt->device, rt->pipeline, NULL);
    if (rt->layout) rt->vkDestroyPipelineLayout(rt->device, rt->layout, NULL);
    if (rt->module) rt->vkDestroyShaderModule(rt->device, rt->module, NULL);
  }
  if (rt->device && rt->vkDestroyDevice) rt->vkDestroyDevice(rt->device, NULL);
  if (rt->instance && rt->vkDestroyInstance) rt->vkDestroyInstance(rt->instance, NULL);
  if (rt->library) dlclose(rt->library);
  free(rt);
}
