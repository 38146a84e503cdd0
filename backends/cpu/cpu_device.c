// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cpu_internal.h"

/* Reads "key : value" from /proc/cpuinfo, first occurrence. */
static bool agpu_cpuinfo_field(const char *key, char *out, size_t cap) {
  FILE *file = fopen("/proc/cpuinfo", "r");
  if (!file) return false;
  char line[1024];
  bool found = false;
  size_t key_length = strlen(key);
  while (!found && fgets(line, sizeof line, file)) {
    if (strncmp(line, key, key_length) != 0) continue;
    const char *colon = strchr(line, ':');
    if (!colon) continue;
    const char *value = colon + 1;
    while (*value == ' ' || *value == '\t') value++;
    snprintf(out, cap, "%s", value);
    out[strcspn(out, "\n")] = '\0';
    found = true;
  }
  fclose(file);
  return found;
}

bool agpu_cpu_host_memory(uint64_t *total, uint64_t *available) {
  FILE *file = fopen("/proc/meminfo", "r");
  if (!file) return false;
  char line[256];
  unsigned long long kib;
  bool have_total = false, have_available = false;
  while (fgets(line, sizeof line, file)) {
    if (sscanf(line, "MemTotal: %llu kB", &kib) == 1) {
      *total = kib * 1024ull;
      have_total = true;
    } else if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
      *available = kib * 1024ull;
      have_available = true;
    }
  }
  fclose(file);
  return have_total && have_available;
}

static uint32_t agpu_cpu_max_mhz(void) {
  FILE *file = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
  unsigned long khz = 0;
  if (file) {
    if (fscanf(file, "%lu", &khz) != 1) khz = 0;
    fclose(file);
  }
  if (khz) return (uint32_t)(khz / 1000);
  char mhz[64];
  if (agpu_cpuinfo_field("cpu MHz", mhz, sizeof mhz)) return (uint32_t)atof(mhz);
  return 0;
}

/* The last-level cache of CPU 0 as the kernel describes it (the highest
 * cache index under /sys: what this CPU shares, 32 MiB on one CCD rather
 * than the whole package that sysconf may report), else sysconf's L3. */
uint64_t agpu_cpu_last_level_cache(void) {
  uint64_t best = 0;
  for (int index = 0; index < 8; index++) {
    char path[96], text[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
    FILE *file = fopen(path, "r");
    if (!file) break;
    if (fgets(text, sizeof text, file)) {
      char *end = NULL;
      unsigned long long size = strtoull(text, &end, 10);
      if (end && (*end == 'K' || *end == 'k')) size *= 1024ull;
      if (end && *end == 'M') size *= 1024ull * 1024ull;
      if (size > best) best = size;
    }
    fclose(file);
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (best == 0) {
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) best = (uint64_t)l3;
  }
#endif
  return best;
}

static uint32_t agpu_cpu_vendor_id(const char *vendor) {
  if (strcmp(vendor, "GenuineIntel") == 0) return 0x8086;
  if (strcmp(vendor, "AuthenticAMD") == 0) return 0x1022; /* AMD's CPU PCI vendor id */
  return 0;
}

void agpu_cpu_describe_host(agpu_device_info *info) {
  memset(info, 0, sizeof *info);
  if (!agpu_cpuinfo_field("model name", info->name, sizeof info->name))
    snprintf(info->name, sizeof info->name, "host CPU");
  if (!agpu_cpuinfo_field("vendor_id", info->vendor, sizeof info->vendor))
    snprintf(info->vendor, sizeof info->vendor, "unknown");
  info->vendor_id = agpu_cpu_vendor_id(info->vendor);
  info->type = AGPU_DEVICE_TYPE_CPU;
  snprintf(info->driver_version, sizeof info->driver_version, "anygpu %s", AGPU_VERSION_STRING);
  snprintf(info->api_version, sizeof info->api_version, "anygpu cpu backend %s",
           AGPU_VERSION_STRING);
  uint64_t total = 0, available = 0;
  agpu_cpu_host_memory(&total, &available);
  info->global_mem_bytes = total;
  info->max_alloc_bytes = total / 2;
  info->local_mem_bytes = 64 * 1024;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  info->compute_units = cores > 0 ? (uint32_t)cores : 1;
  info->max_work_group_size = 1024;
  for (int d = 0; d < 3; d++) {
    info->max_work_item_sizes[d] = 1024;
    info->max_work_groups[d] = UINT32_MAX;
  }
  info->max_clock_mhz = agpu_cpu_max_mhz();
  info->last_level_cache_bytes = agpu_cpu_last_level_cache();
  info->fp64 = true;
  info->int64 = true;
  info->unified_memory = true;
}
