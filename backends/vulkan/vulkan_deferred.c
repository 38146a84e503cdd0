// SPDX-License-Identifier: Apache-2.0
/* Releases that wait for the device's work: a buffer or program released
 * while a recorded or running batch may still use it is destroyed when the
 * device's last such batch retires (as OpenCL defers a release). */
#include <stdlib.h>

#include "vulkan_internal.h"

struct agpu_vk_deferred {
  void (*destroy)(agpu_vk_device *device, void *object);
  void *object;
  agpu_vk_deferred *next;
};

uint32_t agpu_vk_work_begin(agpu_vk_device *device) {
  pthread_mutex_lock(&device->deferred_lock);
  uint32_t before = device->batches_in_use++;
  pthread_mutex_unlock(&device->deferred_lock);
  return before;
}

void agpu_vk_work_end(agpu_vk_device *device) {
  pthread_mutex_lock(&device->deferred_lock);
  agpu_vk_deferred *list = NULL;
  if (--device->batches_in_use == 0) {
    list = device->deferred;
    device->deferred = NULL;
  }
  pthread_mutex_unlock(&device->deferred_lock);
  while (list) {
    agpu_vk_deferred *next = list->next;
    list->destroy(device, list->object);
    free(list);
    list = next;
  }
}

void agpu_vk_defer(agpu_vk_device *device, void (*destroy)(agpu_vk_device *, void *),
                   void *object) {
  agpu_vk_deferred *entry = malloc(sizeof *entry);
  pthread_mutex_lock(&device->deferred_lock);
  bool now = device->batches_in_use == 0 || !entry;
  if (!now) {
    *entry = (agpu_vk_deferred){.destroy = destroy, .object = object, .next = device->deferred};
    device->deferred = entry;
  }
  pthread_mutex_unlock(&device->deferred_lock);
  if (now) {
    free(entry); /* out of host memory: destroying now is the lesser evil */
    destroy(device, object);
  }
}
