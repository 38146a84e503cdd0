// SPDX-License-Identifier: Apache-2.0
/* Queues: work is recorded into one command buffer (a batch) and submitted
 * only at finish, read, map or an event, never once per launch. Each
 * recorded command follows a full barrier, so that in-order semantics hold
 * within a batch and, since a barrier's first scope covers everything
 * submitted before it, across batches on the shared VkQueue too. Events are
 * timestamp queries written at the end of a batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_internal.h"

/* A batch is submitted early after this many commands, so that a long
 * stream of launches without a finish neither waits nor grows for ever. */
#define AGPU_VK_BATCH_COMMANDS 1024u
#define AGPU_VK_POOL_SETS 2048u

static agpu_vk_queue *agpu_vk_queue_of(agpu_queue *queue) {
  return (agpu_vk_queue *)queue->native;
}

agpu_status agpu_vk_queue_create(agpu_queue *queue) {
  agpu_vk_device *device = agpu_vk_device_of(queue->device);
  agpu_vk_queue *vq = calloc(1, sizeof *vq);
  if (!vq) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  VkCommandPoolCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = device->queue_family,
  };
  VkResult result = device->api->vkCreateCommandPool(device->device, &info, NULL, &vq->pool);
  if (result != VK_SUCCESS) {
    free(vq);
    return agpu_vk_fail("vkCreateCommandPool", result);
  }
  pthread_mutex_init(&vq->lock, NULL);
  queue->native = vq;
  return AGPU_SUCCESS;
}

static void agpu_vk_free_transients(agpu_vk_device *device, agpu_vk_batch *batch) {
  while (batch->transients) {
    agpu_vk_transient *next = batch->transients->next;
    agpu_vk_buffer_destroy(device, &batch->transients->buffer);
    free(batch->transients);
    batch->transients = next;
  }
}

void agpu_vk_queue_release(agpu_queue *queue) {
  agpu_vk_queue *vq = agpu_vk_queue_of(queue);
  if (!vq) return;
  agpu_vk_device *device = agpu_vk_device_of(queue->device);
  const agpu_vk_api *api = device->api;
  uint64_t sequence = 0;
  if (agpu_vk_queue_flush(queue, &sequence) == AGPU_SUCCESS) agpu_vk_queue_wait(queue, sequence);
  for (uint32_t i = 0; i < vq->batch_count; i++) {
    agpu_vk_batch *batch = &vq->batches[i];
    if (batch->submitted)
      api->vkWaitForFences(device->device, 1, &batch->fence, VK_TRUE, UINT64_MAX);
    agpu_vk_free_transients(device, batch);
    api->vkDestroyFence(device->device, batch->fence, NULL);
    if (batch->pool) api->vkDestroyDescriptorPool(device->device, batch->pool, NULL);
  }
  api->vkDestroyCommandPool(device->device, vq->pool, NULL);
  pthread_mutex_destroy(&vq->lock);
  free(vq->batches);
  free(vq);
  queue->native = NULL;
}

/* A free batch (neither recording nor in flight), made if need be. Batches
 * live in an array that may move: callers keep indices, not pointers,
 * across this call. */
static agpu_status agpu_vk_free_batch(agpu_vk_device *device, agpu_vk_queue *vq, uint32_t *index) {
  for (uint32_t i = 0; i < vq->batch_count; i++)
    if (!vq->batches[i].recording && !vq->batches[i].submitted) {
      *index = i;
      return AGPU_SUCCESS;
    }
  const agpu_vk_api *api = device->api;
  if (vq->batch_count == vq->batch_capacity) {
    uint32_t capacity = vq->batch_capacity ? vq->batch_capacity * 2 : 4;
    agpu_vk_batch *grown = realloc(vq->batches, capacity * sizeof *grown);
    if (!grown) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    vq->batches = grown;
    vq->batch_capacity = capacity;
  }
  agpu_vk_batch batch;
  memset(&batch, 0, sizeof batch);
  VkCommandBufferAllocateInfo allocate = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = vq->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
  };
  VkResult result = api->vkAllocateCommandBuffers(device->device, &allocate, &batch.commands);
  if (result != VK_SUCCESS) return agpu_vk_fail("vkAllocateCommandBuffers", result);
  VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  result = api->vkCreateFence(device->device, &fence, NULL, &batch.fence);
  if (result == VK_SUCCESS && !device->push_descriptors) {
    VkDescriptorPoolSize sizes = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, AGPU_VK_POOL_SETS * 8};
    VkDescriptorPoolCreateInfo pool = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = AGPU_VK_POOL_SETS,
        .poolSizeCount = 1,
        .pPoolSizes = &sizes,
    };
    result = api->vkCreateDescriptorPool(device->device, &pool, NULL, &batch.pool);
    if (result != VK_SUCCESS) api->vkDestroyFence(device->device, batch.fence, NULL);
  }
  if (result != VK_SUCCESS) {
    api->vkFreeCommandBuffers(device->device, vq->pool, 1, &batch.commands);
    return agpu_vk_fail(batch.fence ? "vkCreateDescriptorPool" : "vkCreateFence", result);
  }
  vq->batches[vq->batch_count] = batch;
  *index = vq->batch_count++;
  return AGPU_SUCCESS;
}

void agpu_vk_barrier(agpu_vk_device *device, VkCommandBuffer commands) {
  VkMemoryBarrier barrier = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask =
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                       VK_ACCESS_HOST_READ_BIT,
  };
  VkPipelineStageFlags stages =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  device->api->vkCmdPipelineBarrier(commands, stages | VK_PIPELINE_STAGE_HOST_BIT,
                                    stages | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, NULL, 0,
                                    NULL);
}

static agpu_status agpu_vk_submit(agpu_vk_device *device, agpu_vk_queue *vq) {
  agpu_vk_batch *batch = vq->open;
  const agpu_vk_api *api = device->api;
  vq->open = NULL;
  batch->recording = false;
  agpu_vk_barrier(device, batch->commands); /* makes the batch's writes visible to the host */
  VkResult result = api->vkEndCommandBuffer(batch->commands);
  if (result != VK_SUCCESS) {
    api->vkResetCommandBuffer(batch->commands, 0);
    agpu_vk_free_transients(device, batch);
    agpu_vk_work_end(device);
    return agpu_vk_fail("vkEndCommandBuffer", result);
  }
  VkSubmitInfo submit = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &batch->commands,
  };
  pthread_mutex_lock(&device->submit_lock);
  result = api->vkQueueSubmit(device->queue, 1, &submit, batch->fence);
  pthread_mutex_unlock(&device->submit_lock);
  if (result != VK_SUCCESS) {
    api->vkResetCommandBuffer(batch->commands, 0);
    agpu_vk_free_transients(device, batch);
    agpu_vk_work_end(device);
    return agpu_vk_fail("vkQueueSubmit", result);
  }
  batch->submitted = true;
  batch->sequence = ++vq->submitted;
  return AGPU_SUCCESS;
}

/* Waits for one in-flight batch and makes it free again. */
static agpu_status agpu_vk_retire(agpu_vk_device *device, agpu_vk_queue *vq, agpu_vk_batch *batch) {
  const agpu_vk_api *api = device->api;
  VkResult result = api->vkWaitForFences(device->device, 1, &batch->fence, VK_TRUE, UINT64_MAX);
  if (result != VK_SUCCESS) return agpu_vk_fail("vkWaitForFences", result);
  api->vkResetFences(device->device, 1, &batch->fence);
  api->vkResetCommandBuffer(batch->commands, 0);
  if (batch->pool) api->vkResetDescriptorPool(device->device, batch->pool, 0);
  agpu_vk_free_transients(device, batch);
  if (batch->sequence > vq->completed) vq->completed = batch->sequence;
  batch->submitted = false;
  batch->commands_recorded = 0;
  agpu_vk_work_end(device);
  return AGPU_SUCCESS;
}

static agpu_status agpu_vk_wait_locked(agpu_vk_device *device, agpu_vk_queue *vq,
                                       uint64_t sequence) {
  for (uint32_t i = 0; i < vq->batch_count; i++) {
    agpu_vk_batch *batch = &vq->batches[i];
    if (!batch->submitted || batch->sequence > sequence) continue;
    agpu_status status = agpu_vk_retire(device, vq, batch);
    if (status != AGPU_SUCCESS) return status;
  }
  if (sequence > vq->completed) vq->completed = sequence;
  return agpu_vk_check_validation(device, "the queue's work");
}

agpu_status agpu_vk_queue_recording(agpu_queue *queue, agpu_vk_batch **out) {
  agpu_vk_device *device = agpu_vk_device_of(queue->device);
  agpu_vk_queue *vq = agpu_vk_queue_of(queue);
  if (vq->open && vq->open->commands_recorded >= AGPU_VK_BATCH_COMMANDS) {
    agpu_status status = agpu_vk_submit(device, vq);
    if (status != AGPU_SUCCESS) return status;
  }
  if (!vq->open) {
    uint32_t index = 0;
    agpu_status status = agpu_vk_free_batch(device, vq, &index);
    if (status != AGPU_SUCCESS) return status;
    agpu_vk_batch *batch = &vq->batches[index];
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkResult result = device->api->vkBeginCommandBuffer(batch->commands, &begin);
    if (result != VK_SUCCESS) return agpu_vk_fail("vkBeginCommandBuffer", result);
    batch->recording = true;
    vq->open = batch;
    /* With nothing else recorded or running on the device, the first
     * command has nothing to wait for: submission orders the host's writes. */
    if (agpu_vk_work_begin(device) == 0) {
      vq->open->commands_recorded++;
      *out = vq->open;
      return AGPU_SUCCESS;
    }
  }
  agpu_vk_barrier(device, vq->open->commands);
  vq->open->commands_recorded++;
  *out = vq->open;
  return AGPU_SUCCESS;
}

agpu_status agpu_vk_queue_flush(agpu_queue *queue, uint64_t *sequence) {
  agpu_vk_queue *vq = agpu_vk_queue_of(queue);
  agpu_status status = AGPU_SUCCESS;
  if (vq->open) status = agpu_vk_submit(agpu_vk_device_of(queue->device), vq);
  *sequence = vq->submitted;
  return status;
}

agpu_status agpu_vk_queue_wait(agpu_queue *queue, uint64_t sequence) {
  return agpu_vk_wait_locked(agpu_vk_device_of(queue->device), agpu_vk_queue_of(queue), sequence);
}

bool agpu_vk_queue_idle(agpu_queue *queue) {
  agpu_vk_queue *vq = agpu_vk_queue_of(queue);
  return !vq->open && vq->completed == vq->submitted;
}

agpu_status agpu_vk_queue_finish(agpu_queue *queue) {
  agpu_vk_queue *vq = agpu_vk_queue_of(queue);
  pthread_mutex_lock(&vq->lock);
  uint64_t sequence = 0;
  agpu_status status = agpu_vk_queue_flush(queue, &sequence);
  if (status == AGPU_SUCCESS) status = agpu_vk_queue_wait(queue, sequence);
  pthread_mutex_unlock(&vq->lock);
  return status;
}

agpu_status agpu_vk_batch_transient(agpu_vk_device *device, agpu_vk_batch *batch, VkDeviceSize size,
                                    const char *selector, agpu_vk_buffer **out) {
  agpu_vk_transient *transient = calloc(1, sizeof *transient);
  if (!transient)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  agpu_status status =
      agpu_vk_buffer_make(device, size, device->staging_type, selector, &transient->buffer);
  if (status != AGPU_SUCCESS) {
    free(transient);
    return status;
  }
  transient->next = batch->transients;
  batch->transients = transient;
  *out = &transient->buffer;
  return AGPU_SUCCESS;
}

/* ----------------------------------------------------------------- events */

agpu_status agpu_vk_event_record(agpu_event *event) {
  agpu_queue *queue = event->queue;
  agpu_vk_device *device = agpu_vk_device_of(queue->device);
  agpu_vk_queue *vq = agpu_vk_queue_of(queue);
  const agpu_vk_api *api = device->api;
  agpu_vk_event *ve = calloc(1, sizeof *ve);
  if (!ve) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  agpu_status status = AGPU_SUCCESS;
  if (device->timestamp_bits) {
    VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                  .queryCount = 1};
    VkResult result = api->vkCreateQueryPool(device->device, &info, NULL, &ve->queries);
    if (result != VK_SUCCESS) {
      free(ve);
      return agpu_vk_fail("vkCreateQueryPool", result);
    }
  }
  pthread_mutex_lock(&vq->lock);
  agpu_vk_batch *batch = NULL;
  if (ve->queries) {
    status = agpu_vk_queue_recording(queue, &batch);
    if (status == AGPU_SUCCESS) {
      api->vkCmdResetQueryPool(batch->commands, ve->queries, 0, 1);
      api->vkCmdWriteTimestamp(batch->commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ve->queries,
                               0);
    }
  }
  if (status == AGPU_SUCCESS) status = agpu_vk_queue_flush(queue, &ve->sequence);
  pthread_mutex_unlock(&vq->lock);
  if (status != AGPU_SUCCESS) {
    if (ve->queries) api->vkDestroyQueryPool(device->device, ve->queries, NULL);
    free(ve);
    return status;
  }
  event->native = ve;
  return AGPU_SUCCESS;
}

agpu_status agpu_vk_event_wait(agpu_event *event) {
  agpu_vk_queue *vq = agpu_vk_queue_of(event->queue);
  agpu_vk_event *ve = event->native;
  pthread_mutex_lock(&vq->lock);
  agpu_status status = agpu_vk_queue_wait(event->queue, ve->sequence);
  pthread_mutex_unlock(&vq->lock);
  return status;
}

agpu_status agpu_vk_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns) {
  agpu_vk_device *device = agpu_vk_device_of(start->queue->device);
  agpu_vk_event *a = start->native, *b = end->native;
  if (!a->queries || !b->queries)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "agpu_event_elapsed_ns: %s's compute queue has no timestamps "
                          "(timestampValidBits is 0)",
                          start->queue->device->info.selector);
  agpu_status status = agpu_vk_event_wait(start);
  if (status == AGPU_SUCCESS) status = agpu_vk_event_wait(end);
  if (status != AGPU_SUCCESS) return status;
  uint64_t t[2];
  const agpu_vk_api *api = device->api;
  VkQueryPool pools[2] = {a->queries, b->queries};
  for (int i = 0; i < 2; i++) {
    VkResult result =
        api->vkGetQueryPoolResults(device->device, pools[i], 0, 1, sizeof t[i], &t[i], sizeof t[i],
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (result != VK_SUCCESS) return agpu_vk_fail("vkGetQueryPoolResults", result);
  }
  uint64_t mask = device->timestamp_bits >= 64 ? UINT64_MAX : (1ull << device->timestamp_bits) - 1;
  uint64_t ticks = ((t[1] & mask) - (t[0] & mask)) & mask;
  if ((t[1] & mask) < (t[0] & mask) && device->timestamp_bits >= 64) ticks = 0;
  *ns = (uint64_t)((double)ticks * device->timestamp_period + 0.5);
  return AGPU_SUCCESS;
}

void agpu_vk_event_release(agpu_event *event) {
  agpu_vk_event *ve = event->native;
  if (!ve) return;
  agpu_vk_device *device = agpu_vk_device_of(event->queue->device);
  if (ve->queries) {
    agpu_vk_event_wait(event); /* the query must not be in flight */
    device->api->vkDestroyQueryPool(device->device, ve->queries, NULL);
  }
  free(ve);
  event->native = NULL;
}
