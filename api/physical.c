// SPDX-License-Identifier: Apache-2.0
/* The physical devices of this machine: the registry's devices grouped once,
 * on first use, and the public API over that grouping. */
#include <stdlib.h>

#include "agpu_core.h"
#include "agpu_physical.h"

/* Written once under pthread_once, read-only afterwards. */
static agpu_physical_device_info *agpu_physical_groups;
static uint32_t agpu_physical_count;
static uint32_t *agpu_physical_group_of_device;
static pthread_once_t agpu_physical_once = PTHREAD_ONCE_INIT;

static void agpu_physical_load(void) {
  uint32_t count = agpu_registry_device_count();
  agpu_device_info *infos = calloc(count ? count : 1, sizeof *infos);
  agpu_physical_groups = calloc(count ? count : 1, sizeof *agpu_physical_groups);
  agpu_physical_group_of_device = calloc(count ? count : 1, sizeof(uint32_t));
  if (!infos || !agpu_physical_groups || !agpu_physical_group_of_device) {
    free(infos);
    free(agpu_physical_groups);
    free(agpu_physical_group_of_device);
    agpu_physical_groups = NULL;
    agpu_physical_group_of_device = NULL;
    return; /* no groups: the API reports out of memory */
  }
  for (uint32_t i = 0; i < count; i++) infos[i] = agpu_registry_device(i)->info;
  agpu_physical_count =
      agpu_physical_group(infos, count, agpu_physical_groups, agpu_physical_group_of_device);
  free(infos);
}

static bool agpu_physical_ready(void) {
  agpu_registry_init();
  pthread_once(&agpu_physical_once, agpu_physical_load);
  return agpu_physical_groups != NULL;
}

uint32_t agpu_physical_registry_group_count(void) {
  return agpu_physical_ready() ? agpu_physical_count : 0;
}

const agpu_physical_device_info *agpu_physical_registry_group(uint32_t index) {
  if (!agpu_physical_ready() || index >= agpu_physical_count) return NULL;
  return &agpu_physical_groups[index];
}

uint32_t agpu_physical_registry_group_of(uint32_t device_index) {
  if (!agpu_physical_ready() || device_index >= agpu_registry_device_count()) return UINT32_MAX;
  return agpu_physical_group_of_device[device_index];
}

static agpu_status agpu_physical_check(const char *function) {
  if (!agpu_physical_ready())
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", function);
  return AGPU_SUCCESS;
}

AGPU_API const char *agpu_physical_match_name(agpu_physical_match match) {
  switch (match) {
    case AGPU_PHYSICAL_MATCH_SINGLE:
      return "single";
    case AGPU_PHYSICAL_MATCH_PCI:
      return "pci";
    case AGPU_PHYSICAL_MATCH_UUID:
      return "uuid";
    case AGPU_PHYSICAL_MATCH_GUESS:
      return "guess";
    case AGPU_PHYSICAL_MATCH_CPU:
      return "cpu";
  }
  return "unknown";
}

AGPU_API agpu_status agpu_physical_device_count(uint32_t *count) {
  if (!count)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_physical_device_count: count is NULL");
  agpu_status status = agpu_physical_check("agpu_physical_device_count");
  if (status != AGPU_SUCCESS) return status;
  *count = agpu_physical_count;
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_physical_device_get_info(uint32_t index,
                                                   agpu_physical_device_info *info) {
  if (!info)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_physical_device_get_info: info is NULL");
  agpu_status status = agpu_physical_check("agpu_physical_device_get_info");
  if (status != AGPU_SUCCESS) return status;
  if (index >= agpu_physical_count)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_physical_device_get_info: index %u out of range (%u physical "
                          "devices)",
                          index, agpu_physical_count);
  *info = agpu_physical_groups[index];
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_physical_device_member(uint32_t index, uint32_t member,
                                                 agpu_device **device) {
  if (!device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_physical_device_member: device is NULL");
  *device = NULL;
  agpu_status status = agpu_physical_check("agpu_physical_device_member");
  if (status != AGPU_SUCCESS) return status;
  if (index >= agpu_physical_count)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_physical_device_member: index %u out of range (%u physical "
                          "devices)",
                          index, agpu_physical_count);
  uint32_t seen = 0, total = agpu_registry_device_count();
  for (uint32_t i = 0; i < total; i++) {
    if (agpu_physical_group_of_device[i] != index) continue;
    if (seen++ == member) {
      *device = agpu_registry_device(i);
      return AGPU_SUCCESS;
    }
  }
  return agpu_error_set(AGPU_ERROR_NOT_FOUND,
                        "agpu_physical_device_member: phys:%u has %u members, no member %u", index,
                        seen, member);
}

AGPU_API agpu_status agpu_device_physical_index(const agpu_device *device, uint32_t *index) {
  if (!index)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_physical_index: index is NULL");
  agpu_status status = agpu_check_device(device, "agpu_device_physical_index");
  if (status == AGPU_SUCCESS) status = agpu_physical_check("agpu_device_physical_index");
  if (status != AGPU_SUCCESS) return status;
  uint32_t total = agpu_registry_device_count();
  for (uint32_t i = 0; i < total; i++) {
    if (agpu_registry_device(i) == device) {
      *index = agpu_physical_group_of_device[i];
      return AGPU_SUCCESS;
    }
  }
  return agpu_error_set(AGPU_ERROR_INVALID_HANDLE, "agpu_device_physical_index: unknown device");
}
