// SPDX-License-Identifier: Apache-2.0
/* The null backend's devices: ANYGPU_NULL_DEVICES=N asks for N of them (none
 * without it, so that a real program never meets one), and
 * ANYGPU_NULL_LIMITS=key=value,... sets their limits: memory, alloc, local,
 * group (work-group size), units, fp64, fp16, int64 (1 or 0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "null_internal.h"

#define AGPU_NULL_MAX_DEVICES 16

static void agpu_null_default_info(agpu_device_info *info) {
  memset(info, 0, sizeof *info);
  snprintf(info->vendor, sizeof info->vendor, "anygpu");
  snprintf(info->driver_version, sizeof info->driver_version, "null");
  snprintf(info->api_version, sizeof info->api_version, "anygpu null backend");
  info->type = AGPU_DEVICE_TYPE_OTHER;
  info->global_mem_bytes = 1ull << 30;
  info->max_alloc_bytes = 256ull << 20;
  info->local_mem_bytes = 32768;
  info->compute_units = 1;
  info->max_work_group_size = 256;
  for (int d = 0; d < 3; d++) {
    info->max_work_item_sizes[d] = d == 2 ? 64 : 256;
    info->max_work_groups[d] = 0xffffffffu;
  }
  info->fp64 = info->int64 = true;
  info->unified_memory = true;
}

/* One "key=value" of ANYGPU_NULL_LIMITS; false for an unknown key. */
static bool agpu_null_set_limit(agpu_device_info *info, const char *key, unsigned long long value) {
  if (strcmp(key, "memory") == 0)
    info->global_mem_bytes = value;
  else if (strcmp(key, "alloc") == 0)
    info->max_alloc_bytes = value;
  else if (strcmp(key, "local") == 0)
    info->local_mem_bytes = value;
  else if (strcmp(key, "group") == 0)
    info->max_work_group_size = info->max_work_item_sizes[0] = (uint32_t)value;
  else if (strcmp(key, "units") == 0)
    info->compute_units = (uint32_t)value;
  else if (strcmp(key, "fp64") == 0)
    info->fp64 = value != 0;
  else if (strcmp(key, "fp16") == 0)
    info->fp16 = value != 0;
  else if (strcmp(key, "int64") == 0)
    info->int64 = value != 0;
  else
    return false;
  return true;
}

static agpu_status agpu_null_read_limits(agpu_backend *backend, agpu_device_info *info) {
  const char *limits = getenv("ANYGPU_NULL_LIMITS");
  if (!limits) return AGPU_SUCCESS;
  char copy[512];
  snprintf(copy, sizeof copy, "%s", limits);
  for (char *saved = NULL, *part = strtok_r(copy, ",", &saved); part;
       part = strtok_r(NULL, ",", &saved)) {
    char *equals = strchr(part, '=');
    char *end = NULL;
    unsigned long long value = equals ? strtoull(equals + 1, &end, 0) : 0;
    if (equals) *equals = '\0';
    if (!equals || !end || *end || !agpu_null_set_limit(info, part, value)) {
      snprintf(backend->reason, sizeof backend->reason,
               "ANYGPU_NULL_LIMITS='%s': '%s' is not one of memory, alloc, local, group, units, "
               "fp64, fp16, int64 = a number",
               limits, part);
      return AGPU_ERROR_INVALID_ARGUMENT;
    }
  }
  return AGPU_SUCCESS;
}

agpu_status agpu_null_enumerate(agpu_backend *backend) {
  const char *wanted = getenv("ANYGPU_NULL_DEVICES");
  if (!wanted || !*wanted) {
    snprintf(backend->reason, sizeof backend->reason,
             "no devices unless ANYGPU_NULL_DEVICES=N asks for them (a backend for tests)");
    return AGPU_SUCCESS;
  }
  char *end = NULL;
  unsigned long count = strtoul(wanted, &end, 10);
  if (*end || count > AGPU_NULL_MAX_DEVICES) {
    snprintf(backend->reason, sizeof backend->reason,
             "ANYGPU_NULL_DEVICES='%s' is not a count from 0 to %d", wanted, AGPU_NULL_MAX_DEVICES);
    backend->available = false;
    return AGPU_SUCCESS;
  }
  agpu_device_info info;
  agpu_null_default_info(&info);
  if (agpu_null_read_limits(backend, &info) != AGPU_SUCCESS) {
    backend->available = false; /* asked for, and misconfigured: say so */
    return AGPU_SUCCESS;
  }
  for (unsigned long i = 0; i < count; i++) {
    snprintf(info.name, sizeof info.name, "null device %lu", i);
    agpu_null_device *native = calloc(1, sizeof *native);
    if (!native || !agpu_backend_add_device(backend, &info, native)) {
      free(native);
      return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "null: out of host memory");
    }
  }
  return AGPU_SUCCESS;
}
