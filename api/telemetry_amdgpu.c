// SPDX-License-Identifier: Apache-2.0
/* Telemetry of amdgpu cards from the driver's sysfs files: gpu_busy_percent,
 * mem_info_vram_* and mem_info_gtt_*, and the current and highest levels of
 * pp_dpm_sclk and pp_dpm_mclk. hwmon (temperature, power, fan) is read for
 * every DRM driver in telemetry_drm.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agpu_telemetry.h"

static bool agpu_tm_amdgpu_u64(agpu_telemetry *sample, const agpu_tm_entry *entry, const char *file,
                               uint64_t *value) {
  char path[AGPU_TM_PATH];
  return agpu_tm_path(sample, path, sizeof path, "%s/%s", entry->device_dir, file) &&
         agpu_tm_read_u64(path, value);
}

/* "0: 500Mhz\n1: 1200Mhz *\n": the starred level and the highest. */
static void agpu_tm_amdgpu_levels(agpu_telemetry *sample, agpu_tm_entry *entry, const char *file,
                                  agpu_telemetry_value *current, agpu_telemetry_value *highest) {
  char path[AGPU_TM_PATH], text[1024];
  if (!agpu_tm_path(sample, path, sizeof path, "%s/%s", entry->device_dir, file) ||
      !agpu_tm_read_file(path, text, sizeof text))
    return;
  for (const char *line = text; line && *line;) {
    unsigned level;
    double mhz;
    if (sscanf(line, "%u: %lf", &level, &mhz) == 2) {
      const char *end = strchr(line, '\n');
      const char *star = strchr(line, '*');
      if (star && (!end || star < end)) agpu_tm_set(current, mhz);
      if (!highest->known || mhz > highest->value) agpu_tm_set(highest, mhz);
    }
    line = strchr(line, '\n');
    if (line) line++;
  }
}

void agpu_tm_amdgpu_read(agpu_telemetry *sample, agpu_tm_entry *entry) {
  agpu_device_telemetry *info = &entry->info;
  uint64_t value, used;
  if (agpu_tm_amdgpu_u64(sample, entry, "gpu_busy_percent", &value))
    agpu_tm_set(&info->utilization_percent, (double)value);
  else
    agpu_tm_missing(entry, "amdgpu", "gpu_busy_percent: %s", strerror(errno));
  if (agpu_tm_amdgpu_u64(sample, entry, "mem_info_vram_total", &value)) {
    agpu_tm_set_bytes(&info->memory_total, value);
    /* An APU's carve-out is small; a discrete card has its own gigabytes. */
    info->type =
        value >= (1ull << 30) ? AGPU_DEVICE_TYPE_DISCRETE_GPU : AGPU_DEVICE_TYPE_INTEGRATED_GPU;
    if (agpu_tm_amdgpu_u64(sample, entry, "mem_info_vram_used", &used) && used <= value) {
      agpu_tm_set_bytes(&info->memory_used, used);
      agpu_tm_set_bytes(&info->memory_free, value - used);
    }
  } else {
    agpu_tm_missing(entry, "amdgpu", "mem_info_vram_total: %s", strerror(errno));
  }
  if (agpu_tm_amdgpu_u64(sample, entry, "mem_info_gtt_total", &value))
    agpu_tm_set_bytes(&info->shared_total, value);
  if (agpu_tm_amdgpu_u64(sample, entry, "mem_info_gtt_used", &value))
    agpu_tm_set_bytes(&info->shared_used, value);
  agpu_tm_amdgpu_levels(sample, entry, "pp_dpm_sclk", &info->clock_mhz, &info->clock_max_mhz);
  agpu_tm_amdgpu_levels(sample, entry, "pp_dpm_mclk", &info->memory_clock_mhz,
                        &info->memory_clock_max_mhz);
  agpu_tm_answered(entry, "amdgpu");
}
