// SPDX-License-Identifier: Apache-2.0
/* test_glsl_fp64_math's Vulkan runner (test_glsl_fp64.h): the first device
 * with shaderFloat64 (lavapipe where there is no GPU), a compute shader run
 * once per record, and the shader that calls every function. */
#include "test_glsl_fp64.h"

#ifdef FP64_HAVE_VULKAN_H
/* Opens the first device with double support; false with the reason. */
bool fp64_vk_open(vk_run *r, char *why, size_t size) {
  memset(r, 0, sizeof *r);
  r->loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!r->loader) {
    snprintf(why, size, "no Vulkan loader (libvulkan.so.1)");
    return false;
  }
  r->vk.GetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)dlsym(r->loader, "vkGetInstanceProcAddr");
  if (!r->vk.GetInstanceProcAddr) {
    snprintf(why, size, "vkGetInstanceProcAddr missing");
    return false;
  }
  r->vk.CreateInstance = (PFN_vkCreateInstance)r->vk.GetInstanceProcAddr(NULL, "vkCreateInstance");
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "test_glsl_fp64_math",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                              .pApplicationInfo = &app};
  if (!r->vk.CreateInstance || r->vk.CreateInstance(&ici, NULL, &r->instance) != VK_SUCCESS) {
    snprintf(why, size, "vkCreateInstance failed");
    return false;
  }
#define VK_LOAD(name)                                                            \
  r->vk.name = (PFN_vk##name)r->vk.GetInstanceProcAddr(r->instance, "vk" #name); \
  if (!r->vk.name) {                                                             \
    snprintf(why, size, "vk" #name " missing");                                  \
    return false;                                                                \
  }
  VK_FUNCTIONS(VK_LOAD)
#undef VK_LOAD
  uint32_t count = 0;
  r->vk.EnumeratePhysicalDevices(r->instance, &count, NULL);
  VkPhysicalDevice devices[16];
  if (count > 16) count = 16;
  r->vk.EnumeratePhysicalDevices(r->instance, &count, devices);
  for (uint32_t i = 0; i < count && !r->physical; i++) {
    VkPhysicalDeviceFeatures features;
    r->vk.GetPhysicalDeviceFeatures(devices[i], &features);
    uint32_t families = 0;
    VkQueueFamilyProperties props[16];
    r->vk.GetPhysicalDeviceQueueFamilyProperties(devices[i], &families, NULL);
    if (families > 16) families = 16;
    r->vk.GetPhysicalDeviceQueueFamilyProperties(devices[i], &families, props);
    for (uint32_t f = 0; f < families && features.shaderFloat64; f++) {
      if (props[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        r->physical = devices[i];
        r->family = f;
        break;
      }
    }
  }
  if (!r->physical) {
    snprintf(why, size, "no Vulkan device with shaderFloat64 and a compute queue (%u devices)",
             count);
    return false;
  }
  VkPhysicalDeviceProperties properties;
  r->vk.GetPhysicalDeviceProperties(r->physical, &properties);
  snprintf(r->name, sizeof r->name, "%s", properties.deviceName);
  float priority = 1;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = r->family,
                                 .queueCount = 1,
                                 .pQueuePriorities = &priority};
  VkPhysicalDeviceFeatures enabled = {.shaderFloat64 = VK_TRUE};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                            .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci,
                            .pEnabledFeatures = &enabled};
  if (r->vk.CreateDevice(r->physical, &dci, NULL, &r->device) != VK_SUCCESS) {
    snprintf(why, size, "vkCreateDevice failed on %.100s", r->name);
    return false;
  }
  r->vk.GetDeviceQueue(r->device, r->family, 0, &r->queue);
  return true;
}

void fp64_vk_close(vk_run *r) {
  if (r->device) r->vk.DestroyDevice(r->device, NULL);
  if (r->instance) r->vk.DestroyInstance(r->instance, NULL);
  if (r->loader) dlclose(r->loader);
}

typedef struct vk_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void *map;
} vk_buffer;

static bool vk_buffer_create(vk_run *r, VkDeviceSize bytes, vk_buffer *b) {
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = bytes,
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  if (r->vk.CreateBuffer(r->device, &bci, NULL, &b->buffer) != VK_SUCCESS) return false;
  VkMemoryRequirements req;
  r->vk.GetBufferMemoryRequirements(r->device, b->buffer, &req);
  VkPhysicalDeviceMemoryProperties mem;
  r->vk.GetPhysicalDeviceMemoryProperties(r->physical, &mem);
  VkMemoryPropertyFlags want =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < mem.memoryTypeCount && type == UINT32_MAX; i++)
    if ((req.memoryTypeBits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & want) == want)
      type = i;
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                              .allocationSize = req.size,
                              .memoryTypeIndex = type};
  return type != UINT32_MAX &&
         r->vk.AllocateMemory(r->device, &mai, NULL, &b->memory) == VK_SUCCESS &&
         r->vk.BindBufferMemory(r->device, b->buffer, b->memory, 0) == VK_SUCCESS &&
         r->vk.MapMemory(r->device, b->memory, 0, bytes, 0, &b->map) == VK_SUCCESS;
}

static void vk_buffer_destroy(vk_run *r, vk_buffer *b) {
  if (b->map) r->vk.UnmapMemory(r->device, b->memory);
  if (b->buffer) r->vk.DestroyBuffer(r->device, b->buffer, NULL);
  if (b->memory) r->vk.FreeMemory(r->device, b->memory, NULL);
}

/* Runs the shader (SPIR-V words) once per record: binding 0 holds `count`
 * records of 4 doubles, binding 1 receives `count` doubles. */
bool fp64_vk_dispatch(vk_run *r, const uint32_t *spv, size_t spv_bytes, const double *in,
                      double *out, uint32_t count) {
  bool ok = false;
  vk_buffer bin = {0}, bout = {0};
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkCommandPool cpool = VK_NULL_HANDLE;
  if (!vk_buffer_create(r, (VkDeviceSize)count * 32, &bin) ||
      !vk_buffer_create(r, (VkDeviceSize)count * 8, &bout))
    goto done;
  memcpy(bin.map, in, (size_t)count * 32);
  memset(bout.map, 0xff, (size_t)count * 8); /* NaN-poisoned */
  VkShaderModuleCreateInfo smci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spv_bytes, .pCode = spv};
  if (r->vk.CreateShaderModule(r->device, &smci, NULL, &module) != VK_SUCCESS) goto done;
  VkDescriptorSetLayoutBinding bindings[2] = {{.binding = 0,
                                               .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .descriptorCount = 1,
                                               .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT},
                                              {.binding = 1,
                                               .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .descriptorCount = 1,
                                               .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT}};
  VkDescriptorSetLayoutCreateInfo dslci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = 2,
      .pBindings = bindings};
  if (r->vk.CreateDescriptorSetLayout(r->device, &dslci, NULL, &dsl) != VK_SUCCESS) goto done;
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &dsl};
  if (r->vk.CreatePipelineLayout(r->device, &plci, NULL, &layout) != VK_SUCCESS) goto done;
  VkComputePipelineCreateInfo cpci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = "main"},
      .layout = layout};
  if (r->vk.CreateComputePipelines(r->device, VK_NULL_HANDLE, 1, &cpci, NULL, &pipeline) !=
      VK_SUCCESS)
    goto done;
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 2};
  VkDescriptorPoolCreateInfo dpci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &ps};
  if (r->vk.CreateDescriptorPool(r->device, &dpci, NULL, &pool) != VK_SUCCESS) goto done;
  VkDescriptorSet set;
  VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &dsl};
  if (r->vk.AllocateDescriptorSets(r->device, &dsai, &set) != VK_SUCCESS) goto done;
  VkDescriptorBufferInfo infos[2] = {{bin.buffer, 0, VK_WHOLE_SIZE},
                                     {bout.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet writes[2];
  for (int i = 0; i < 2; i++)
    writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                       .dstSet = set,
                                       .dstBinding = (uint32_t)i,
                                       .descriptorCount = 1,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .pBufferInfo = &infos[i]};
  r->vk.UpdateDescriptorSets(r->device, 2, writes, 0, NULL);
  VkCommandPoolCreateInfo cpoolci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                     .queueFamilyIndex = r->family};
  if (r->vk.CreateCommandPool(r->device, &cpoolci, NULL, &cpool) != VK_SUCCESS) goto done;
  VkCommandBuffer cb;
  VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = cpool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
  if (r->vk.AllocateCommandBuffers(r->device, &cbai, &cb) != VK_SUCCESS) goto done;
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  if (r->vk.BeginCommandBuffer(cb, &begin) != VK_SUCCESS) goto done;
  r->vk.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  r->vk.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
  r->vk.CmdDispatch(cb, (count + 63) / 64, 1, 1);
  VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  r->vk.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                           1, &barrier, 0, NULL, 0, NULL);
  if (r->vk.EndCommandBuffer(cb) != VK_SUCCESS) goto done;
  VkSubmitInfo submit = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
  if (r->vk.QueueSubmit(r->queue, 1, &submit, VK_NULL_HANDLE) != VK_SUCCESS) goto done;
  if (r->vk.QueueWaitIdle(r->queue) != VK_SUCCESS) goto done;
  memcpy(out, bout.map, (size_t)count * 8);
  ok = true;
done:
  if (cpool) r->vk.DestroyCommandPool(r->device, cpool, NULL);
  if (pool) r->vk.DestroyDescriptorPool(r->device, pool, NULL);
  if (pipeline) r->vk.DestroyPipeline(r->device, pipeline, NULL);
  if (layout) r->vk.DestroyPipelineLayout(r->device, layout, NULL);
  if (dsl) r->vk.DestroyDescriptorSetLayout(r->device, dsl, NULL);
  if (module) r->vk.DestroyShaderModule(r->device, module, NULL);
  vk_buffer_destroy(r, &bin);
  vk_buffer_destroy(r, &bout);
  return ok;
}
#endif /* FP64_HAVE_VULKAN_H */

/* The shader for the device run: record i is (x, y, n, function index). */
char *fp64_device_shader(void) {
  size_t cap = strlen(kl_glsl_fp64_library()) + 16384;
  char *s = malloc(cap);
  if (!s) return NULL;
  size_t n =
      (size_t)snprintf(s, cap,
                       "#version 450\n%s"
                       "layout(local_size_x = 64) in;\n"
                       "layout(std430, binding = 0) readonly buffer In { double a[]; } inp;\n"
                       "layout(std430, binding = 1) writeonly buffer Out { double r[]; } outp;\n"
                       "void main() {\n"
                       "  uint i = gl_GlobalInvocationID.x;\n"
                       "  if (i >= uint(outp.r.length())) return;\n"
                       "  double x = inp.a[4u * i], y = inp.a[4u * i + 1u];\n"
                       "  int n = int(inp.a[4u * i + 2u]);\n"
                       "  double r = 0.0lf;\n"
                       "  switch (int(inp.a[4u * i + 3u])) {\n",
                       kl_glsl_fp64_library());
  for (size_t f = 0; f < FUNCTION_COUNT; f++) {
    const fn_info *info = &fp64_functions[f];
    const char *args = info->kind == D_DD || info->kind == I_DD ? "x, y"
                       : info->kind == D_DI                     ? "x, n"
                                                                : "x";
    n += (size_t)snprintf(s + n, cap - n, "    case %zu: r = double(%s(%s)); break;\n", f,
                          kl_glsl_fp64_function(info->builtin), args);
  }
  snprintf(s + n, cap - n, "  }\n  outp.r[i] = r;\n}\n");
  return s;
}

bool fp64_involves_subnormal(double x, double y, long double want) {
  return (x != 0 && fabs(x) < DBL_MIN) || (y != 0 && fabs(y) < DBL_MIN) ||
         (want != 0 && fabsl(want) < DBL_MIN);
}
