// SPDX-License-Identifier: Apache-2.0
/* Telemetry of the CPU physical device (cpu:0, PoCL, lavapipe): /proc/stat
 * busy time, /proc/meminfo, the CPU's hwmon sensor (k10temp, coretemp),
 * package power from the powercap energy counter, cpufreq clocks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_telemetry.h"

static const char *const agpu_tm_cpu_sensors[] = {"k10temp", "coretemp", "zenpower", "cpu_thermal",
                                                  NULL};
static const char *const agpu_tm_cpu_labels[] = {"Tctl", "Tdie", "Package id 0", NULL};

#define AGPU_TM_STAT_BYTES (256 * 1024)

/* The first "cpu " line: busy and total jiffies; `cores` counts cpuN lines. */
static bool agpu_tm_cpu_parse_times(agpu_tm_entry *entry, const char *path, const char *text,
                                    uint32_t *cores) {
  unsigned long long v[8] = {0};
  if (sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
             &v[5], &v[6], &v[7]) < 4) {
    agpu_tm_missing(entry, "proc", "%s has no cpu line", path);
    return false;
  }
  uint64_t total = 0;
  for (int i = 0; i < 8; i++) total += v[i];
  entry->has_cpu_times = true;
  entry->cpu_total = total;
  entry->cpu_busy = total - v[3] - v[4]; /* less idle and iowait */
  *cores = 0;
  for (const char *line = strstr(text, "\ncpu"); line; line = strstr(line + 1, "\ncpu"))
    if (line[4] >= '0' && line[4] <= '9') (*cores)++;
  return true;
}

/* /proc/stat, read whole. */
static bool agpu_tm_cpu_times(agpu_telemetry *sample, agpu_tm_entry *entry, uint32_t *cores) {
  char path[AGPU_TM_PATH];
  char *text = malloc(AGPU_TM_STAT_BYTES); /* a cpuN line a core: large on large machines */
  if (!text) return false;
  if (!agpu_tm_path(sample, path, sizeof path, "/proc/stat") ||
      !agpu_tm_read_file(path, text, AGPU_TM_STAT_BYTES)) {
    agpu_tm_missing(entry, "proc", "%s: %s", path, strerror(errno));
    free(text);
    return false;
  }
  bool parsed = agpu_tm_cpu_parse_times(entry, path, text, cores);
  free(text);
  return parsed;
}

static void agpu_tm_cpu_utilization(const agpu_telemetry *sample, agpu_tm_entry *entry,
                                    const agpu_telemetry *previous) {
  const agpu_tm_entry *before = agpu_tm_previous_entry(previous, entry->key);
  if (!entry->has_cpu_times || !before || !before->has_cpu_times) return;
  if (entry->cpu_total <= before->cpu_total) {
    agpu_tm_missing(entry, "proc", "/proc/stat did not advance over %.3f s", sample->window_s);
    return;
  }
  uint64_t busy = entry->cpu_busy > before->cpu_busy ? entry->cpu_busy - before->cpu_busy : 0;
  agpu_tm_set(&entry->info.utilization_percent,
              100.0 * (double)busy / (double)(entry->cpu_total - before->cpu_total));
}

static void agpu_tm_cpu_memory(agpu_telemetry *sample, agpu_tm_entry *entry) {
  char path[AGPU_TM_PATH], text[8192], value[64];
  if (!agpu_tm_path(sample, path, sizeof path, "/proc/meminfo") ||
      !agpu_tm_read_file(path, text, sizeof text)) {
    agpu_tm_missing(entry, "meminfo", "%s: %s", path, strerror(errno));
    return;
  }
  unsigned long long total_kib, available_kib;
  if (!agpu_tm_field(text, "MemTotal", value, sizeof value) ||
      sscanf(value, "%llu", &total_kib) != 1) {
    agpu_tm_missing(entry, "meminfo", "%s has no MemTotal", path);
    return;
  }
  agpu_device_telemetry *info = &entry->info;
  agpu_tm_set_bytes(&info->memory_total, (uint64_t)total_kib * 1024);
  if (agpu_tm_field(text, "MemAvailable", value, sizeof value) &&
      sscanf(value, "%llu", &available_kib) == 1 && available_kib <= total_kib) {
    agpu_tm_set_bytes(&info->memory_free, (uint64_t)available_kib * 1024);
    agpu_tm_set_bytes(&info->memory_used, (uint64_t)(total_kib - available_kib) * 1024);
  }
  agpu_tm_answered(entry, "meminfo");
}

/* Model name and current clock from /proc/cpuinfo, the maximum from cpufreq. */
static void agpu_tm_cpu_identity(agpu_telemetry *sample, agpu_tm_entry *entry) {
  char path[AGPU_TM_PATH], text[8192], value[128];
  agpu_device_telemetry *info = &entry->info;
  snprintf(info->name, sizeof info->name, "CPU");
  if (agpu_tm_path(sample, path, sizeof path, "/proc/cpuinfo") &&
      agpu_tm_read_file(path, text, sizeof text)) {
    if (agpu_tm_field(text, "model name", value, sizeof value))
      snprintf(info->name, sizeof info->name, "%s", value);
    double mhz;
    if (agpu_tm_field(text, "cpu MHz", value, sizeof value) && sscanf(value, "%lf", &mhz) == 1)
      agpu_tm_set(&info->clock_mhz, mhz);
  }
  uint64_t khz;
  if (agpu_tm_path(sample, path, sizeof path,
                   "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq") &&
      agpu_tm_read_u64(path, &khz))
    agpu_tm_set(&info->clock_max_mhz, (double)khz / 1000.0);
}

static void agpu_tm_cpu_found_hwmon(const char *dir, const char *name, void *context) {
  agpu_tm_entry *entry = context;
  (void)name;
  if (!entry->info.temperature_c.known) agpu_tm_hwmon_read(entry, dir, agpu_tm_cpu_labels);
}

static void agpu_tm_cpu_sensors_read(agpu_telemetry *sample, agpu_tm_entry *entry,
                                     const agpu_telemetry *previous) {
  char path[AGPU_TM_PATH];
  if (!agpu_tm_path(sample, path, sizeof path, "/sys/class/hwmon") ||
      agpu_tm_hwmon_each(path, agpu_tm_cpu_sensors, agpu_tm_cpu_found_hwmon, entry) == 0)
    agpu_tm_missing(entry, "hwmon", "no k10temp, coretemp or zenpower sensor under %s", path);
  /* hwmon rarely has CPU power: the package's RAPL energy counter does. */
  if (!entry->info.power_w.known && !entry->has_energy) {
    uint64_t energy;
    if (!agpu_tm_path(sample, path, sizeof path, "/sys/class/powercap/intel-rapl:0/energy_uj") ||
        !agpu_tm_read_u64(path, &energy)) {
      agpu_tm_missing(entry, "powercap", "%s: %s", path, strerror(errno));
    } else {
      entry->has_energy = true;
      entry->energy_uj = energy;
      agpu_tm_answered(entry, "powercap");
    }
    agpu_tm_energy_rate(sample, entry, previous, "powercap");
  }
}

void agpu_tm_cpu_read(agpu_telemetry *sample, const agpu_telemetry *previous) {
  agpu_tm_entry *entry = agpu_tm_add_entry(sample, "cpu");
  if (!entry) return;
  entry->info.type = AGPU_DEVICE_TYPE_CPU;
  snprintf(entry->info.driver, sizeof entry->info.driver, "cpu");
  agpu_tm_cpu_identity(sample, entry);
  uint32_t cores = 0;
  if (agpu_tm_cpu_times(sample, entry, &cores)) {
    agpu_tm_answered(entry, "proc");
    agpu_tm_cpu_utilization(sample, entry, previous);
  }
  agpu_tm_cpu_memory(sample, entry);
  agpu_tm_cpu_sensors_read(sample, entry, previous);
  agpu_tm_cpu_processes(sample, entry, previous, cores ? cores : 1);
}
