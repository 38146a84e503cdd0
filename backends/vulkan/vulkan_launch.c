// SPDX-License-Identifier: Apache-2.0
/* agpu_launch on Vulkan: the parameter block (kernels/glsl_layout.h) in
 * push constants, or in a storage buffer when it is larger; buffers through
 * push descriptors where the device has them, else a set from the batch's
 * pool; group counts beyond maxComputeWorkGroupCount split over several
 * dispatches, each told its first group in the block's group_offset; a
 * buffer over the storage-buffer range by its address in the block
 * (vulkan_variant.c). A smaller last group in dimension 0 (OpenCL 2.0's
 * non-uniform work-groups, AGPU_CAP_NONUNIFORM_GROUPS) is a dispatch of its
 * own: the whole groups first, then that group with a pipeline specialised
 * for its size and the size asked for (KL_GLSL_ENQUEUED_SPEC_ID), its group
 * id in group_offset.x and the work-items it lacks in the block's
 * last_short (kernels/glsl_layout.h), so that every
 * work-item function has OpenCL 2.0's value and every group a dispatch is
 * whole (barriers need nothing more). The dispatches are recorded, not
 * submitted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glsl_layout.h"
#include "vulkan_internal.h"

#define AGPU_VK_MAX_BINDINGS 64u

typedef struct agpu_vk_binder {
  agpu_vk_device *device;
  agpu_vk_kernel_entry *entry;
  VkDescriptorBufferInfo infos[AGPU_VK_MAX_BINDINGS + 1];
  VkWriteDescriptorSet writes[AGPU_VK_MAX_BINDINGS + 1];
  uint32_t count;
  int32_t block_write; /* index of the block's write, -1 if none */
} agpu_vk_binder;

static void agpu_vk_bind_buffer(agpu_vk_binder *binder, uint32_t binding, VkBuffer buffer,
                                VkDeviceSize offset, VkDeviceSize range) {
  uint32_t i = binder->count++;
  binder->infos[i] = (VkDescriptorBufferInfo){.buffer = buffer, .offset = offset, .range = range};
  binder->writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                             .dstBinding = binding,
                                             .descriptorCount = 1,
                                             .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                             .pBufferInfo = &binder->infos[i]};
}

/* Binds the set for the next dispatch(es). */
static agpu_status agpu_vk_bind_set(agpu_vk_binder *binder, agpu_vk_batch *batch) {
  const agpu_vk_api *api = binder->device->api;
  if (!binder->count) return AGPU_SUCCESS;
  if (binder->device->push_descriptors) {
    api->vkCmdPushDescriptorSetKHR(batch->commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                                   binder->entry->pipeline_layout, 0, binder->count,
                                   binder->writes);
    return AGPU_SUCCESS;
  }
  VkDescriptorSetAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = batch->pool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &binder->entry->set_layout};
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkResult result = api->vkAllocateDescriptorSets(binder->device->device, &allocate, &set);
  if (result != VK_SUCCESS) return agpu_vk_fail("vkAllocateDescriptorSets", result);
  for (uint32_t i = 0; i < binder->count; i++) binder->writes[i].dstSet = set;
  api->vkUpdateDescriptorSets(binder->device->device, binder->count, binder->writes, 0, NULL);
  api->vkCmdBindDescriptorSets(batch->commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                               binder->entry->pipeline_layout, 0, 1, &set, 0, NULL);
  return AGPU_SUCCESS;
}

/* The parts of a launch that need no queue: pipeline and block contents. */
static agpu_status agpu_vk_prepare(agpu_kernel *kernel, agpu_vk_kernel_entry *entry,
                                   const size_t local[3], size_t enqueued, uint32_t nargs,
                                   const agpu_arg args[], uint8_t *block, VkPipeline *pipeline) {
  agpu_vk_device *device = agpu_vk_device_of(kernel->program->device);
  uint32_t counts[AGPU_VK_MAX_BINDINGS];
  uint32_t n = 0;
  for (uint32_t i = 0; i < nargs; i++) {
    const agpu_vk_param *param = &entry->layout[i];
    if (param->kind == KL_GLSL_PARAM_BUFFER && param->by_address) {
      const agpu_vk_buffer *vb = args[i].buffer->native;
      memcpy(block + param->address_offset, &vb->address, sizeof vb->address);
    } else if (param->kind == KL_GLSL_PARAM_VALUE) {
      uint32_t bytes = args[i].size < param->size ? args[i].size : param->size;
      memcpy(block + param->offset, args[i].value.bytes, bytes);
    } else if (param->kind == KL_GLSL_PARAM_LOCAL) {
      if (n == AGPU_VK_MAX_BINDINGS)
        return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                              "agpu_launch: kernel '%s' has more than "
                              "%u __local parameters",
                              kernel->info.name, AGPU_VK_MAX_BINDINGS);
      uint32_t element = param->element_size ? param->element_size : 1;
      counts[n++] = (args[i].size + element - 1) / element;
    }
  }
  uint64_t shared = entry->static_local_bytes;
  for (uint32_t i = 0; i < nargs; i++)
    if (entry->layout[i].kind == KL_GLSL_PARAM_LOCAL) shared += args[i].size;
  const agpu_device_info *info = &kernel->program->device->info;
  if (shared > info->local_mem_bytes)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                          "agpu_launch: kernel '%s' needs %llu bytes of shared memory (%u for its "
                          "__local arrays, the rest for __local arguments); %s (%s) has %llu",
                          kernel->info.name, (unsigned long long)shared, entry->static_local_bytes,
                          info->selector, info->name, (unsigned long long)info->local_mem_bytes);
  uint32_t local32[3] = {(uint32_t)local[0], (uint32_t)local[1], (uint32_t)local[2]};
  (void)device;
  return agpu_vk_pipeline_get(device, entry, local32, (uint32_t)enqueued, counts, pipeline);
}

agpu_status agpu_vk_launch(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,
                           const size_t global[3], const size_t local[3], uint32_t nargs,
                           const agpu_arg args[]) {
  agpu_vk_device *device = agpu_vk_device_of(queue->device);
  const agpu_vk_api *api = device->api;
  agpu_vk_kernel_entry *entry = NULL;
  agpu_status status = agpu_vk_launch_entry(kernel, nargs, args, &entry);
  if (status != AGPU_SUCCESS) return status;
  if (entry->buffer_count > AGPU_VK_MAX_BINDINGS)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                          "agpu_launch: kernel '%s' has %u buffer parameters; the Vulkan backend "
                          "binds at most %u",
                          kernel->info.name, entry->buffer_count, AGPU_VK_MAX_BINDINGS);
  uint32_t block_bytes = (entry->block_size + 3u) & ~3u;
  uint8_t small[256];
  uint8_t *block = block_bytes <= sizeof small ? small : calloc(1, block_bytes);
  if (!block) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  memset(block, 0, block_bytes);
  /* groups[0] counts a smaller last group; full[0] does not */
  uint32_t groups[3], full[3];
  for (int d = 0; d < 3; d++) full[d] = groups[d] = (uint32_t)(global[d] / local[d]);
  uint32_t rest = (uint32_t)(global[0] % local[0]);
  uint32_t last_short = rest ? (uint32_t)local[0] - rest : 0;
  if (rest) groups[0]++;
  memcpy(block + KL_GLSL_WORK_DIM_OFFSET, &dims, 4);
  memcpy(block + KL_GLSL_NUM_GROUPS_OFFSET, groups, sizeof groups);
  memcpy(block + KL_GLSL_LAST_SHORT_OFFSET, &last_short, 4);
  VkPipeline pipeline = VK_NULL_HANDLE, rest_pipeline = VK_NULL_HANDLE;
  status = agpu_vk_prepare(kernel, entry, local, local[0], nargs, args, block, &pipeline);
  if (status == AGPU_SUCCESS && rest) {
    const size_t rest_local[3] = {rest, local[1], local[2]};
    status = agpu_vk_prepare(kernel, entry, rest_local, local[0], nargs, args, block,
                             &rest_pipeline);
  }
  if (status != AGPU_SUCCESS) {
    if (block != small) free(block);
    return status;
  }

  /* Not zeroed as a whole (5.7 KB a launch): agpu_vk_bind_buffer writes
   * every entry below count in full. */
  agpu_vk_binder binder;
  binder.device = device;
  binder.entry = entry;
  binder.count = 0;
  binder.block_write = -1;
  for (uint32_t i = 0; i < nargs; i++) {
    /* a buffer by address has no binding (agpu_vk_storage_bindings) */
    if (entry->layout[i].kind != KL_GLSL_PARAM_BUFFER || entry->layout[i].by_address) continue;
    agpu_vk_buffer *vb = args[i].buffer->native;
    VkDeviceSize whole = (args[i].buffer->size + 3u) & ~(VkDeviceSize)3u;
    VkDeviceSize range =
        whole <= device->max_storage_range ? VK_WHOLE_SIZE : device->max_storage_range;
    agpu_vk_bind_buffer(&binder, entry->layout[i].binding, vb->buffer, 0, range);
  }

  const uint32_t *limit = device->properties.limits.maxComputeWorkGroupCount;
  /* 64-bit counts: group counts near 2^32 over a limit near 2^31 must not
   * wrap (a wrapped loop never ends) */
  uint64_t splits = ((uint64_t)full[0] + limit[0] - 1) / limit[0] + (rest ? 1 : 0);
  for (int d = 1; d < 3; d++) splits *= ((uint64_t)groups[d] + limit[d] - 1) / limit[d];
  agpu_vk_queue *vq = queue->native;
  pthread_mutex_lock(&vq->lock);
  agpu_vk_batch *batch = NULL;
  status = agpu_vk_queue_recording(queue, &batch);
  agpu_vk_buffer *blocks = NULL;
  VkDeviceSize stride = 0;
  if (status == AGPU_SUCCESS && entry->block_in_buffer) {
    /* One copy of the block per dispatch: each has its own group_offset. */
    VkDeviceSize align = device->properties.limits.minStorageBufferOffsetAlignment;
    stride = (block_bytes + align - 1) / align * align;
    status = agpu_vk_batch_transient(device, batch, stride * splits, queue->device->info.selector,
                                     &blocks);
    if (status == AGPU_SUCCESS) {
      binder.block_write = (int32_t)binder.count;
      agpu_vk_bind_buffer(&binder, entry->block_binding, blocks->buffer, 0, block_bytes);
    }
  }
  if (status == AGPU_SUCCESS && !entry->block_in_buffer) status = agpu_vk_bind_set(&binder, batch);
  uint64_t split = 0;
  /* part 0: the whole groups [0, full[0]); part 1: the smaller last one */
  for (int part = 0; part < 2 && status == AGPU_SUCCESS; part++) {
    uint64_t first = part == 0 ? 0 : full[0], end = part == 0 ? full[0] : groups[0];
    if (first == end) continue;
    api->vkCmdBindPipeline(batch->commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                             part == 0 ? pipeline : rest_pipeline);
  for (uint64_t z = 0; z < groups[2] && status == AGPU_SUCCESS; z += limit[2])
    for (uint64_t y = 0; y < groups[1] && status == AGPU_SUCCESS; y += limit[1])
      for (uint64_t x = first; x < end && status == AGPU_SUCCESS; x += limit[0], split++) {
        uint32_t offset[3] = {(uint32_t)x, (uint32_t)y, (uint32_t)z};
        memcpy(block + KL_GLSL_GROUP_OFFSET_OFFSET, offset, sizeof offset);
        if (entry->block_in_buffer) {
          memcpy((char *)blocks->mapped + split * stride, block, block_bytes);
          binder.infos[binder.block_write].offset = split * stride;
          status = agpu_vk_bind_set(&binder, batch);
        } else {
          api->vkCmdPushConstants(batch->commands, entry->pipeline_layout,
                                  VK_SHADER_STAGE_COMPUTE_BIT, 0, block_bytes, block);
        }
        uint32_t count[3];
        for (int d = 0; d < 3; d++) {
          uint32_t left = (d == 0 ? (uint32_t)end : groups[d]) - offset[d];
          count[d] = left < limit[d] ? left : limit[d];
        }
        if (status == AGPU_SUCCESS)
          api->vkCmdDispatch(batch->commands, count[0], count[1], count[2]);
      }
  }
  pthread_mutex_unlock(&vq->lock);
  if (block != small) free(block);
  return status;
}
