// SPDX-License-Identifier: Apache-2.0
/* The raw-Vulkan baseline: the triad and an empty kernel on the device anygpu
 * calls vulkan:INDEX (the loader's physical devices in order, counting those
 * that anygpu keeps: Vulkan 1.1 or later with a compute queue), on the queue
 * family anygpu picks (compute-only where there is one). Triad work-groups
 * of 256 invocations over device-local buffers, filled and read back through
 * a host-visible staging buffer; one command buffer, submitted and waited
 * for per iteration. The roundtrip records, submits and waits per launch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "native_common.h"
#include "triad_data.h"
#include "vk_empty_spv.h"
#include "vk_triad_spv.h"

typedef struct vk_state {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkPhysicalDeviceProperties properties;
  VkPhysicalDeviceMemoryProperties memory;
  VkDevice device;
  VkQueue queue;
  VkCommandPool pool;
  VkCommandBuffer commands;
  VkFence fence;
} vk_state;

typedef struct vk_pipeline {
  VkShaderModule module;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipeline;
} vk_pipeline;

typedef struct vk_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
} vk_buffer;

#define VK_TRY(call)                                               \
  do {                                                             \
    VkResult r_ = (call);                                          \
    if (r_ != VK_SUCCESS) return native_fail("%s: %d", #call, r_); \
  } while (0)

/* As anygpu: a compute-only family where there is one, else the first with
 * compute; UINT32_MAX when none. */
static uint32_t pick_queue_family(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, NULL);
  VkQueueFamilyProperties *families = calloc(count ? count : 1, sizeof *families);
  if (!families) return UINT32_MAX;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families);
  uint32_t picked = UINT32_MAX;
  for (uint32_t i = 0; i < count; i++) {
    VkQueueFlags flags = families[i].queueFlags;
    if (!(flags & VK_QUEUE_COMPUTE_BIT) || !families[i].queueCount) continue;
    if (picked == UINT32_MAX || !(flags & VK_QUEUE_GRAPHICS_BIT)) picked = i;
    if (!(flags & VK_QUEUE_GRAPHICS_BIT)) break;
  }
  free(families);
  return picked;
}

static int open_state(int index, vk_state *vk) {
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "native_vulkan",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                        .pApplicationInfo = &app};
  VkResult result = vkCreateInstance(&instance_info, NULL, &vk->instance);
  if (result != VK_SUCCESS)
    return native_unavailable("vkCreateInstance: %d (no Vulkan driver?)", (int)result);
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(vk->instance, &count, NULL);
  VkPhysicalDevice *physical = calloc(count ? count : 1, sizeof *physical);
  if (!physical) return native_fail("out of memory");
  vkEnumeratePhysicalDevices(vk->instance, &count, physical);
  uint32_t family = UINT32_MAX;
  int kept = 0;
  for (uint32_t i = 0; i < count && !vk->physical; i++) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(physical[i], &p);
    uint32_t f = pick_queue_family(physical[i]);
    if (p.apiVersion < VK_API_VERSION_1_1 || f == UINT32_MAX) continue;
    if (kept++ == index) {
      vk->physical = physical[i];
      vk->properties = p;
      family = f;
    }
  }
  free(physical);
  if (!vk->physical) return native_unavailable("no Vulkan device %d (%d usable)", index, kept);
  vkGetPhysicalDeviceMemoryProperties(vk->physical, &vk->memory);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                        .queueFamilyIndex = family,
                                        .queueCount = 1,
                                        .pQueuePriorities = &priority};
  VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                    .queueCreateInfoCount = 1,
                                    .pQueueCreateInfos = &queue_info};
  VK_TRY(vkCreateDevice(vk->physical, &device_info, NULL, &vk->device));
  vkGetDeviceQueue(vk->device, family, 0, &vk->queue);
  VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                       .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                       .queueFamilyIndex = family};
  VK_TRY(vkCreateCommandPool(vk->device, &pool_info, NULL, &vk->pool));
  VkCommandBufferAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = vk->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
  VK_TRY(vkAllocateCommandBuffers(vk->device, &allocate, &vk->commands));
  VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK_TRY(vkCreateFence(vk->device, &fence_info, NULL, &vk->fence));
  native_note("device %d: %s (queue family %u)", index, vk->properties.deviceName, family);
  return 0;
}

static void close_state(vk_state *vk) {
  if (vk->device) {
    vkDeviceWaitIdle(vk->device);
    if (vk->fence) vkDestroyFence(vk->device, vk->fence, NULL);
    if (vk->pool) vkDestroyCommandPool(vk->device, vk->pool, NULL);
    vkDestroyDevice(vk->device, NULL);
  }
  if (vk->instance) vkDestroyInstance(vk->instance, NULL);
}

/* Submits the recorded command buffer and waits for it. */
static int submit_wait(vk_state *vk) {
  VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                         .commandBufferCount = 1,
                         .pCommandBuffers = &vk->commands};
  VK_TRY(vkQueueSubmit(vk->queue, 1, &submit, vk->fence));
  VK_TRY(vkWaitForFences(vk->device, 1, &vk->fence, VK_TRUE, UINT64_MAX));
  VK_TRY(vkResetFences(vk->device, 1, &vk->fence));
  return 0;
}

static int begin(vk_state *vk) {
  VK_TRY(vkResetCommandBuffer(vk->commands, 0));
  VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VK_TRY(vkBeginCommandBuffer(vk->commands, &info));
  return 0;
}

static int create_buffer(vk_state *vk, VkDeviceSize bytes, VkMemoryPropertyFlags wanted,
                         vk_buffer *out) {
  VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = bytes,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VK_TRY(vkCreateBuffer(vk->device, &info, NULL, &out->buffer));
  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(vk->device, out->buffer, &needs);
  uint32_t type = UINT32_MAX;
  for (uint32_t t = 0; t < vk->memory.memoryTypeCount && type == UINT32_MAX; t++)
    if ((needs.memoryTypeBits & (1u << t)) &&
        (vk->memory.memoryTypes[t].propertyFlags & wanted) == wanted)
      type = t;
  if (type == UINT32_MAX) return native_fail("no memory type with flags 0x%x", (unsigned)wanted);
  VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                   .allocationSize = needs.size,
                                   .memoryTypeIndex = type};
  VK_TRY(vkAllocateMemory(vk->device, &allocate, NULL, &out->memory));
  VK_TRY(vkBindBufferMemory(vk->device, out->buffer, out->memory, 0));
  return 0;
}

static void destroy_buffer(vk_state *vk, vk_buffer *b) {
  if (b->buffer) vkDestroyBuffer(vk->device, b->buffer, NULL);
  if (b->memory) vkFreeMemory(vk->device, b->memory, NULL);
}

static int create_pipeline(vk_state *vk, const uint32_t *spirv, size_t spirv_bytes,
                           uint32_t buffers, uint32_t push_bytes, vk_pipeline *out) {
  VkShaderModuleCreateInfo module_info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                          .codeSize = spirv_bytes,
                                          .pCode = spirv};
  VK_TRY(vkCreateShaderModule(vk->device, &module_info, NULL, &out->module));
  VkDescriptorSetLayoutBinding bindings[3];
  for (uint32_t i = 0; i < buffers; i++)
    bindings[i] =
        (VkDescriptorSetLayoutBinding){.binding = i,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .descriptorCount = 1,
                                       .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo set_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = buffers,
      .pBindings = bindings};
  VK_TRY(vkCreateDescriptorSetLayout(vk->device, &set_info, NULL, &out->set_layout));
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo layout_info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                            .setLayoutCount = buffers ? 1 : 0,
                                            .pSetLayouts = &out->set_layout,
                                            .pushConstantRangeCount = push_bytes ? 1 : 0,
                                            .pPushConstantRanges = &range};
  VK_TRY(vkCreatePipelineLayout(vk->device, &layout_info, NULL, &out->layout));
  VkComputePipelineCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = out->module,
                .pName = "main"},
      .layout = out->layout};
  VK_TRY(vkCreateComputePipelines(vk->device, VK_NULL_HANDLE, 1, &info, NULL, &out->pipeline));
  return 0;
}

static void destroy_pipeline(vk_state *vk, vk_pipeline *p) {
  if (p->pipeline) vkDestroyPipeline(vk->device, p->pipeline, NULL);
  if (p->layout) vkDestroyPipelineLayout(vk->device, p->layout, NULL);
  if (p->set_layout) vkDestroyDescriptorSetLayout(vk->device, p->set_layout, NULL);
  if (p->module) vkDestroyShaderModule(vk->device, p->module, NULL);
}

/* Copies `bytes` from one buffer to another and waits. */
static int copy(vk_state *vk, VkBuffer from, VkBuffer to, VkDeviceSize bytes) {
  int status = begin(vk);
  if (status) return status;
  VkBufferCopy region = {0, 0, bytes};
  vkCmdCopyBuffer(vk->commands, from, to, 1, &region);
  VK_TRY(vkEndCommandBuffer(vk->commands));
  return submit_wait(vk);
}

/* b and c from the host through staging; a poisoned with NaN. */
static int fill_inputs(vk_state *vk, vk_buffer *buffers, vk_buffer *staging, size_t n) {
  float *mapped = NULL;
  VK_TRY(vkMapMemory(vk->device, staging->memory, 0, VK_WHOLE_SIZE, 0, (void **)&mapped));
  int status = 0;
  for (int which = 1; which <= 2 && status == 0; which++) {
    for (size_t i = 0; i < n; i++) mapped[i] = which == 1 ? triad_b(i) : triad_c(i);
    status = copy(vk, staging->buffer, buffers[which].buffer, n * sizeof(float));
  }
  vkUnmapMemory(vk->device, staging->memory);
  if (status == 0 && (status = begin(vk)) == 0) {
    vkCmdFillBuffer(vk->commands, buffers[0].buffer, 0, n * sizeof(float), 0x7fc00000u);
    VK_TRY(vkEndCommandBuffer(vk->commands));
    status = submit_wait(vk);
  }
  return status;
}

static int check_result(vk_state *vk, vk_buffer *a, vk_buffer *staging, size_t n) {
  int status = copy(vk, a->buffer, staging->buffer, n * sizeof(float));
  if (status) return status;
  float *mapped = NULL;
  VK_TRY(vkMapMemory(vk->device, staging->memory, 0, VK_WHOLE_SIZE, 0, (void **)&mapped));
  size_t wrong = triad_first_wrong(mapped, n);
  if (wrong < n)
    status = native_fail("triad: a[%zu] is %g, expected %g", wrong, (double)mapped[wrong],
                         (double)triad_expected(wrong));
  vkUnmapMemory(vk->device, staging->memory);
  return status;
}

static int record_triad(vk_state *vk, vk_pipeline *p, VkDescriptorSet set, size_t n) {
  const uint32_t *max = vk->properties.limits.maxComputeWorkGroupCount;
  size_t groups = (n + 255) / 256;
  size_t x = groups < max[0] ? groups : max[0], y = (groups + x - 1) / x;
  if (y > max[1]) return native_fail("--size %zu needs more work-groups than the device has", n);
  native_note("triad: %zu x %zu work-groups of 256", x, y);
  int status = begin(vk);
  if (status) return status;
  struct {
    float s;
    uint32_t n;
  } push = {TRIAD_SCALAR, (uint32_t)n};
  vkCmdBindPipeline(vk->commands, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
  vkCmdBindDescriptorSets(vk->commands, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &set, 0,
                          NULL);
  vkCmdPushConstants(vk->commands, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
  vkCmdDispatch(vk->commands, (uint32_t)x, (uint32_t)y, 1);
  VK_TRY(vkEndCommandBuffer(vk->commands));
  return 0;
}

static int time_triad(vk_state *vk, vk_pipeline *p, vk_buffer *buffers,
                      const native_options *options, double *times) {
  VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
  VkDescriptorPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                          .maxSets = 1,
                                          .poolSizeCount = 1,
                                          .pPoolSizes = &size};
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VK_TRY(vkCreateDescriptorPool(vk->device, &pool_info, NULL, &pool));
  VkDescriptorSetAllocateInfo set_info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = pool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &p->set_layout};
  VkDescriptorSet set = VK_NULL_HANDLE;
  int status = 0;
  if (vkAllocateDescriptorSets(vk->device, &set_info, &set) != VK_SUCCESS)
    status = native_fail("vkAllocateDescriptorSets failed");
  if (status == 0) {
    VkDescriptorBufferInfo infos[3];
    VkWriteDescriptorSet writes[3];
    for (uint32_t i = 0; i < 3; i++) {
      infos[i] = (VkDescriptorBufferInfo){buffers[i].buffer, 0, VK_WHOLE_SIZE};
      writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                         .dstSet = set,
                                         .dstBinding = i,
                                         .descriptorCount = 1,
                                         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                         .pBufferInfo = &infos[i]};
    }
    vkUpdateDescriptorSets(vk->device, 3, writes, 0, NULL);
    status = record_triad(vk, p, set, options->size);
  }
  for (int k = 0; k < options->iterations && status == 0; k++) {
    double start = native_now_ns();
    status = submit_wait(vk);
    times[k] = native_now_ns() - start;
  }
  vkDestroyDescriptorPool(vk->device, pool, NULL);
  return status;
}

static int run_triad(vk_state *vk, const native_options *options) {
  size_t n = options->size;
  VkDeviceSize bytes = n * sizeof(float);
  if (n > UINT32_MAX || bytes > vk->properties.limits.maxStorageBufferRange)
    return native_fail("--size %zu: %zu bytes is more than a storage buffer may have (%u)", n,
                       (size_t)bytes, vk->properties.limits.maxStorageBufferRange);
  vk_buffer buffers[3], staging;
  vk_pipeline pipeline;
  memset(buffers, 0, sizeof buffers);
  memset(&staging, 0, sizeof staging);
  memset(&pipeline, 0, sizeof pipeline);
  double *times = malloc((size_t)options->iterations * sizeof *times);
  int status = times ? 0 : native_fail("out of memory");
  for (int i = 0; i < 3 && status == 0; i++)
    status = create_buffer(vk, bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &buffers[i]);
  if (status == 0)
    status = create_buffer(
        vk, bytes, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
        &staging);
  if (status == 0) status = fill_inputs(vk, buffers, &staging, n);
  if (status == 0)
    status = create_pipeline(vk, native_vk_triad_spv, sizeof native_vk_triad_spv, 3,
                             sizeof(float) + sizeof(uint32_t), &pipeline);
  if (status == 0) status = time_triad(vk, &pipeline, buffers, options, times);
  if (status == 0) status = check_result(vk, &buffers[0], &staging, n);
  if (status == 0)
    native_report("triad", triad_gbps(n, native_best_after_first(times, options->iterations)),
                  "GB/s");
  vkDeviceWaitIdle(vk->device);
  destroy_pipeline(vk, &pipeline);
  for (int i = 0; i < 3; i++) destroy_buffer(vk, &buffers[i]);
  destroy_buffer(vk, &staging);
  free(times);
  return status;
}

/* Per launch, what one launch and one finish need at the least: record,
 * submit, wait, reset. */
static int time_roundtrips(vk_state *vk, vk_pipeline *p, int reps, double *times) {
  for (int rep = -100; rep < reps; rep++) { /* negative repetitions warm up */
    double start = native_now_ns();
    int status = begin(vk);
    if (status) return status;
    vkCmdBindPipeline(vk->commands, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    vkCmdDispatch(vk->commands, 1, 1, 1);
    VK_TRY(vkEndCommandBuffer(vk->commands));
    if ((status = submit_wait(vk)) != 0) return status;
    if (rep >= 0) times[rep] = native_now_ns() - start;
  }
  return 0;
}

static int run_roundtrip(vk_state *vk, const native_options *options) {
  int reps = native_roundtrip_reps(options);
  double *times = malloc((size_t)reps * sizeof *times);
  vk_pipeline pipeline;
  memset(&pipeline, 0, sizeof pipeline);
  int status = times ? 0 : native_fail("out of memory");
  if (status == 0)
    status = create_pipeline(vk, native_vk_empty_spv, sizeof native_vk_empty_spv, 0, 0, &pipeline);
  if (status == 0) status = time_roundtrips(vk, &pipeline, reps, times);
  if (status == 0) native_report("launch_roundtrip", native_median(times, reps) / 1e3, "us");
  vkDeviceWaitIdle(vk->device);
  destroy_pipeline(vk, &pipeline);
  free(times);
  return status;
}

int main(int argc, char **argv) {
  native_options options;
  int status = native_parse(argc, argv, NATIVE_TRIAD | NATIVE_ROUNDTRIP, 1u << 25, &options);
  if (status >= 0) return status;
  vk_state vk;
  memset(&vk, 0, sizeof vk);
  status = open_state(options.device, &vk);
  if (status == 0 && options.benches & NATIVE_TRIAD) status = run_triad(&vk, &options);
  if (status == 0 && options.benches & NATIVE_ROUNDTRIP) status = run_roundtrip(&vk, &options);
  close_state(&vk);
  return status;
}
