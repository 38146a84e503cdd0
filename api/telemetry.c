// SPDX-License-Identifier: Apache-2.0
/* Telemetry: the public API. A sample reads every source once under the
 * sysroot; rates come from the previous sample, or from a first read
 * `interval_ms` earlier. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agpu_core.h"
#include "agpu_physical.h"
#include "agpu_telemetry.h"

static uint64_t agpu_tm_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/* GPUs in PCI address order after the CPU. */
static int agpu_tm_compare_entries(const void *a, const void *b) {
  const agpu_tm_entry *left = a, *right = b;
  bool left_cpu = left->info.type == AGPU_DEVICE_TYPE_CPU;
  bool right_cpu = right->info.type == AGPU_DEVICE_TYPE_CPU;
  if (left_cpu != right_cpu) return left_cpu ? -1 : 1;
  return strcmp(left->key, right->key);
}

static void agpu_tm_match_physical(agpu_telemetry *sample) {
  uint32_t count = agpu_physical_registry_group_count();
  for (uint32_t e = 0; e < sample->entry_count; e++) {
    agpu_device_telemetry *info = &sample->entries[e].info;
    for (uint32_t g = 0; g < count; g++) {
      const agpu_physical_device_info *group = agpu_physical_registry_group(g);
      bool cpu = info->type == AGPU_DEVICE_TYPE_CPU && group->match == AGPU_PHYSICAL_MATCH_CPU;
      bool pci = info->has_pci && group->has_pci && strcmp(info->pci, group->pci) == 0;
      if (cpu || pci) info->physical_index = group->index;
    }
  }
}

static agpu_status agpu_tm_read(const agpu_telemetry_desc *desc, const agpu_telemetry *previous,
                                agpu_telemetry **out) {
  agpu_telemetry *sample = calloc(1, sizeof *sample);
  if (sample) sample->entries = calloc(AGPU_TM_MAX_ENTRIES, sizeof *sample->entries);
  if (!sample || !sample->entries) {
    free(sample);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_telemetry_sample: out of memory");
  }
  const char *root = desc->sysroot ? desc->sysroot : "";
  size_t length = strlen(root);
  while (length > 0 && root[length - 1] == '/') length--;
  snprintf(sample->sysroot, sizeof sample->sysroot, "%.*s", (int)length, root);
  sample->time_ns = agpu_tm_now_ns();
  if (previous) sample->window_s = (double)(sample->time_ns - previous->time_ns) / 1e9;
  agpu_tm_cpu_read(sample, previous);
  agpu_tm_drm_read(sample, previous);
  agpu_tm_nvml_read(sample);
  qsort(sample->entries, sample->entry_count, sizeof *sample->entries, agpu_tm_compare_entries);
  if (desc->match_physical && !sample->sysroot[0]) agpu_tm_match_physical(sample);
  *out = sample;
  return AGPU_SUCCESS;
}

static bool agpu_tm_sleep_ms(uint32_t ms) {
  struct timespec wait = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&wait, &wait) != 0)
    if (errno != EINTR) return false;
  return true;
}

AGPU_API agpu_status agpu_telemetry_sample(const agpu_telemetry_desc *desc,
                                           agpu_telemetry **sample) {
  if (!sample)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_telemetry_sample: sample is NULL");
  *sample = NULL;
  if (!desc)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_telemetry_sample: desc is NULL");
  const agpu_telemetry *previous = desc->previous;
  if (desc->match_physical && !(desc->sysroot && desc->sysroot[0])) agpu_registry_init();
  agpu_telemetry *first = NULL;
  if (!previous && desc->interval_ms > 0) {
    agpu_status status = agpu_tm_read(desc, NULL, &first);
    if (status != AGPU_SUCCESS) return status;
    agpu_tm_sleep_ms(desc->interval_ms);
    previous = first;
  }
  agpu_status status = agpu_tm_read(desc, previous, sample);
  agpu_telemetry_release(first);
  if (status == AGPU_SUCCESS && desc->previous &&
      strcmp(desc->previous->sysroot, (*sample)->sysroot) != 0) {
    agpu_telemetry_release(*sample);
    *sample = NULL;
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_telemetry_sample: the previous sample read another sysroot");
  }
  return status;
}

AGPU_API uint32_t agpu_telemetry_device_count(const agpu_telemetry *sample) {
  return sample ? sample->entry_count : 0;
}

AGPU_API agpu_status agpu_telemetry_get_device(const agpu_telemetry *sample, uint32_t index,
                                               agpu_device_telemetry *device) {
  if (!sample || !device)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_telemetry_get_device: %s is NULL",
                          sample ? "device" : "sample");
  if (index >= sample->entry_count)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_telemetry_get_device: index %u out of range (%u devices)", index,
                          sample->entry_count);
  *device = sample->entries[index].info;
  return AGPU_SUCCESS;
}

AGPU_API double agpu_telemetry_window_s(const agpu_telemetry *sample) {
  return sample ? sample->window_s : 0.0;
}

AGPU_API uint32_t agpu_telemetry_source_count(const agpu_telemetry *sample) {
  return sample ? sample->source_count : 0;
}

AGPU_API agpu_status agpu_telemetry_get_source(const agpu_telemetry *sample, uint32_t index,
                                               const char **name, const char **reason) {
  if (!sample || !name || !reason)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_telemetry_get_source: an argument is NULL");
  if (index >= sample->source_count)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_telemetry_get_source: index %u out of range (%u sources)", index,
                          sample->source_count);
  *name = sample->source_names[index];
  *reason = sample->source_reasons[index];
  return AGPU_SUCCESS;
}

AGPU_API void agpu_telemetry_release(agpu_telemetry *sample) {
  if (!sample) return;
  free(sample->entries);
  free(sample);
}

AGPU_API agpu_status agpu_physical_device_telemetry(uint32_t index, uint32_t interval_ms,
                                                    agpu_device_telemetry *telemetry) {
  if (!telemetry)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_physical_device_telemetry: telemetry is NULL");
  const agpu_physical_device_info *group = agpu_physical_registry_group(index);
  if (!group)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_physical_device_telemetry: index %u out of range (%u physical "
                          "devices)",
                          index, agpu_physical_registry_group_count());
  agpu_telemetry *sample = NULL;
  agpu_telemetry_desc desc = {.interval_ms = interval_ms, .match_physical = true};
  agpu_status status = agpu_telemetry_sample(&desc, &sample);
  if (status != AGPU_SUCCESS) return status;
  memset(telemetry, 0, sizeof *telemetry);
  snprintf(telemetry->name, sizeof telemetry->name, "%.127s", group->name);
  telemetry->type = group->type;
  telemetry->physical_index = index;
  telemetry->has_pci = group->has_pci;
  snprintf(telemetry->pci, sizeof telemetry->pci, "%s", group->pci);
  snprintf(telemetry->missing[0].source, sizeof telemetry->missing[0].source, "telemetry");
  snprintf(telemetry->missing[0].reason, sizeof telemetry->missing[0].reason,
           "no telemetry source knows %s (%s)", group->id, group->has_pci ? group->pci : "no PCI");
  telemetry->missing_count = 1;
  for (uint32_t i = 0; i < sample->entry_count; i++)
    if (sample->entries[i].info.physical_index == index) *telemetry = sample->entries[i].info;
  agpu_telemetry_release(sample);
  return AGPU_SUCCESS;
}
