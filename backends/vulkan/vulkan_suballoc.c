// SPDX-License-Identifier: Apache-2.0
/* The sub-allocator: buffers share blocks of VkDeviceMemory (drivers allow
 * as few as 4096 allocations), first fit within a block's sorted free list;
 * a buffer larger than half a block gets memory of its own. Host-visible
 * blocks stay mapped. The backend keeps its own count of what it took from
 * the heap, so that running out is reported with the numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_internal.h"

static VkDeviceSize agpu_vk_align(VkDeviceSize value, VkDeviceSize alignment) {
  return alignment > 1 ? (value + alignment - 1) / alignment * alignment : value;
}

static bool agpu_vk_free_reserve(agpu_vk_block *block, uint32_t extra) {
  if (block->free_count + extra <= block->free_capacity) return true;
  uint32_t capacity = block->free_capacity ? block->free_capacity * 2 : 8;
  while (capacity < block->free_count + extra) capacity *= 2;
  agpu_vk_range *grown = realloc(block->free, capacity * sizeof *grown);
  if (!grown) return false;
  block->free = grown;
  block->free_capacity = capacity;
  return true;
}

/* Takes [offset, offset + size) out of free range `index`, which holds it. */
static bool agpu_vk_carve(agpu_vk_block *block, uint32_t index, VkDeviceSize offset,
                          VkDeviceSize size) {
  if (!agpu_vk_free_reserve(block, 1)) return false;
  agpu_vk_range range = block->free[index];
  agpu_vk_range left = {range.offset, offset - range.offset};
  agpu_vk_range right = {offset + size, range.offset + range.size - (offset + size)};
  agpu_vk_range *at = &block->free[index];
  memmove(at, at + 1, (block->free_count - index - 1) * sizeof *at);
  block->free_count--;
  agpu_vk_range keep[2];
  uint32_t n = 0;
  if (left.size) keep[n++] = left;
  if (right.size) keep[n++] = right;
  at = &block->free[index];
  memmove(at + n, at, (block->free_count - index) * sizeof *at);
  memcpy(at, keep, n * sizeof *at);
  block->free_count += n;
  block->used += size;
  return true;
}

/* First fit; false when the block has no room. */
static bool agpu_vk_block_take(agpu_vk_block *block, VkDeviceSize size, VkDeviceSize alignment,
                               VkDeviceSize *offset) {
  for (uint32_t i = 0; i < block->free_count; i++) {
    agpu_vk_range range = block->free[i];
    VkDeviceSize at = agpu_vk_align(range.offset, alignment);
    if (at < range.offset + range.size && size <= range.offset + range.size - at)
      return agpu_vk_carve(block, i, at, size) ? (*offset = at, true) : false;
  }
  return false;
}

/* Gives [offset, offset + size) back, merging with its neighbours. */
static void agpu_vk_block_give(agpu_vk_block *block, VkDeviceSize offset, VkDeviceSize size) {
  uint32_t lo = 0, hi = block->free_count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (block->free[mid].offset < offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  block->used -= size;
  bool merge_left = lo > 0 && block->free[lo - 1].offset + block->free[lo - 1].size == offset;
  bool merge_right = lo < block->free_count && offset + size == block->free[lo].offset;
  if (merge_left && merge_right) {
    block->free[lo - 1].size += size + block->free[lo].size;
    memmove(&block->free[lo], &block->free[lo + 1],
            (block->free_count - lo - 1) * sizeof *block->free);
    block->free_count--;
  } else if (merge_left) {
    block->free[lo - 1].size += size;
  } else if (merge_right) {
    block->free[lo].offset = offset;
    block->free[lo].size += size;
  } else if (agpu_vk_free_reserve(block, 1)) {
    memmove(&block->free[lo + 1], &block->free[lo], (block->free_count - lo) * sizeof *block->free);
    block->free[lo] = (agpu_vk_range){offset, size};
    block->free_count++;
  } /* else the range leaks until the block goes: host memory is gone anyway */
}

static agpu_status agpu_vk_out_of_memory(agpu_vk_device *device, VkDeviceSize asked, uint32_t heap,
                                         const char *selector, const char *why) {
  char want[32], total[32], used[32], budget[32];
  agpu_status status = agpu_error_set(
      AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
      "vulkan: out of device memory on %s: %s (%llu bytes) asked; heap %u has %s (%llu bytes), "
      "%s of it held by anygpu",
      selector, agpu_format_bytes(asked, want, sizeof want), (unsigned long long)asked, heap,
      agpu_format_bytes(device->memory.memoryHeaps[heap].size, total, sizeof total),
      (unsigned long long)device->memory.memoryHeaps[heap].size,
      agpu_format_bytes(device->heap_used, used, sizeof used));
  if (device->memory_budget) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT b = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 memory = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &b};
    device->api->vkGetPhysicalDeviceMemoryProperties2(device->physical, &memory);
    agpu_error_append(", budget %s", agpu_format_bytes(b.heapBudget[heap], budget, sizeof budget));
  } else {
    agpu_error_append(", budget unknown (no VK_EXT_memory_budget)");
  }
  if (why) agpu_error_append(" (%s)", why);
  return status;
}

/* A new block (or dedicated memory) of `size` bytes; memory_lock held. */
static agpu_status agpu_vk_new_block(agpu_vk_device *device, VkDeviceSize size, uint32_t type,
                                     bool dedicated, VkDeviceSize asked, const char *selector,
                                     agpu_vk_block **out) {
  const agpu_vk_api *api = device->api;
  uint32_t heap = device->memory.memoryTypes[type].heapIndex;
  bool counted = heap == device->heap_index;
  if (counted && size > device->memory.memoryHeaps[heap].size - device->heap_used)
    return agpu_vk_out_of_memory(device, asked, heap, selector, NULL);
  if (device->block_count == device->block_capacity) {
    uint32_t capacity = device->block_capacity ? device->block_capacity * 2 : 8;
    agpu_vk_block **grown = realloc(device->blocks, capacity * sizeof *grown);
    if (!grown) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    device->blocks = grown;
    device->block_capacity = capacity;
  }
  agpu_vk_block *block = calloc(1, sizeof *block);
  if (!block || !agpu_vk_free_reserve(block, 1)) {
    free(block);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  }
  /* every block can hold a buffer that a kernel reaches by address */
  VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                     .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
  VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .pNext = device->buffer_address ? &flags : NULL,
                               .allocationSize = size,
                               .memoryTypeIndex = type};
  VkResult result = api->vkAllocateMemory(device->device, &info, NULL, &block->memory);
  if (result == VK_SUCCESS &&
      (device->memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
    result = api->vkMapMemory(device->device, block->memory, 0, VK_WHOLE_SIZE, 0, &block->mapped);
    if (result != VK_SUCCESS) api->vkFreeMemory(device->device, block->memory, NULL);
  }
  if (result != VK_SUCCESS) {
    free(block->free);
    free(block);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
      return agpu_vk_out_of_memory(device, asked, heap, selector,
                                   result == VK_ERROR_OUT_OF_DEVICE_MEMORY
                                       ? "vkAllocateMemory: VK_ERROR_OUT_OF_DEVICE_MEMORY"
                                       : "vkAllocateMemory: VK_ERROR_OUT_OF_HOST_MEMORY");
    return agpu_vk_fail("vkAllocateMemory", result);
  }
  block->size = size;
  block->type_index = type;
  block->dedicated = dedicated;
  block->free[0] = (agpu_vk_range){0, size};
  block->free_count = 1;
  if (counted) device->heap_used += size;
  device->blocks[device->block_count++] = block;
  *out = block;
  return AGPU_SUCCESS;
}

static void agpu_vk_drop_block(agpu_vk_device *device, agpu_vk_block *block) {
  for (uint32_t i = 0; i < device->block_count; i++) {
    if (device->blocks[i] != block) continue;
    device->blocks[i] = device->blocks[--device->block_count];
    break;
  }
  if (device->memory.memoryTypes[block->type_index].heapIndex == device->heap_index)
    device->heap_used -= block->size;
  if (block->mapped) device->api->vkUnmapMemory(device->device, block->memory);
  device->api->vkFreeMemory(device->device, block->memory, NULL);
  free(block->free);
  free(block);
}

agpu_status agpu_vk_memory_alloc(agpu_vk_device *device, const VkMemoryRequirements *needs,
                                 int32_t type_index, const char *selector,
                                 agpu_vk_allocation *out) {
  uint32_t type = (uint32_t)type_index;
  if (!(needs->memoryTypeBits & (1u << type)))
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "vulkan: %s: the buffer cannot live in memory type %u", selector, type);
  VkDeviceSize size = needs->size;
  agpu_status status = AGPU_SUCCESS;
  agpu_vk_block *block = NULL;
  VkDeviceSize offset = 0;
  pthread_mutex_lock(&device->memory_lock);
  if (size > device->block_size / 2) {
    status = agpu_vk_new_block(device, size, type, true, size, selector, &block);
    if (status == AGPU_SUCCESS) agpu_vk_carve(block, 0, 0, size);
  } else {
    for (uint32_t i = 0; i < device->block_count && !block; i++) {
      agpu_vk_block *candidate = device->blocks[i];
      if (candidate->dedicated || candidate->type_index != type) continue;
      if (agpu_vk_block_take(candidate, size, needs->alignment, &offset)) block = candidate;
    }
    if (!block) {
      status = agpu_vk_new_block(device, device->block_size, type, false, size, selector, &block);
      if (status == AGPU_SUCCESS) agpu_vk_block_take(block, size, needs->alignment, &offset);
    }
  }
  pthread_mutex_unlock(&device->memory_lock);
  if (status != AGPU_SUCCESS) return status;
  *out = (agpu_vk_allocation){.block = block, .offset = offset, .size = size};
  return AGPU_SUCCESS;
}

void agpu_vk_memory_free(agpu_vk_device *device, agpu_vk_allocation *allocation) {
  agpu_vk_block *block = allocation->block;
  if (!block) return;
  pthread_mutex_lock(&device->memory_lock);
  agpu_vk_block_give(block, allocation->offset, allocation->size);
  bool drop = block->used == 0;
  if (drop && !block->dedicated) {
    /* Keep one empty block of a type, so that a buffer made and released in
     * a loop does not allocate each time. */
    uint32_t same = 0;
    for (uint32_t i = 0; i < device->block_count; i++)
      same += !device->blocks[i]->dedicated && device->blocks[i]->type_index == block->type_index;
    drop = same > 1;
  }
  if (drop) agpu_vk_drop_block(device, block);
  pthread_mutex_unlock(&device->memory_lock);
  allocation->block = NULL;
}

agpu_status agpu_vk_buffer_make(agpu_vk_device *device, VkDeviceSize size, int32_t type_index,
                                const char *selector, agpu_vk_buffer *out) {
  const agpu_vk_api *api = device->api;
  memset(out, 0, sizeof *out);
  VkBufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = agpu_vk_align(size, 4), /* whole words, for vkCmdFillBuffer */
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT |
               (device->buffer_address ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0),
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkResult result = api->vkCreateBuffer(device->device, &info, NULL, &out->buffer);
  if (result != VK_SUCCESS) return agpu_vk_fail("vkCreateBuffer", result);
  VkMemoryRequirements needs;
  api->vkGetBufferMemoryRequirements(device->device, out->buffer, &needs);
  agpu_status status = agpu_vk_memory_alloc(device, &needs, type_index, selector, &out->allocation);
  if (status == AGPU_SUCCESS) {
    agpu_vk_block *block = out->allocation.block;
    result =
        api->vkBindBufferMemory(device->device, out->buffer, block->memory, out->allocation.offset);
    if (result != VK_SUCCESS) {
      agpu_vk_memory_free(device, &out->allocation);
      status = agpu_vk_fail("vkBindBufferMemory", result);
    } else {
      if (block->mapped) out->mapped = (char *)block->mapped + out->allocation.offset;
      if (device->buffer_address) {
        VkBufferDeviceAddressInfo where = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                           .buffer = out->buffer};
        out->address = api->vkGetBufferDeviceAddress(device->device, &where);
      }
    }
  }
  if (status != AGPU_SUCCESS) {
    api->vkDestroyBuffer(device->device, out->buffer, NULL);
    out->buffer = VK_NULL_HANDLE;
  }
  return status;
}

void agpu_vk_buffer_destroy(agpu_vk_device *device, agpu_vk_buffer *buffer) {
  if (buffer->buffer) device->api->vkDestroyBuffer(device->device, buffer->buffer, NULL);
  agpu_vk_memory_free(device, &buffer->allocation);
  buffer->buffer = VK_NULL_HANDLE;
}
