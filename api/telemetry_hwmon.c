// SPDX-License-Identifier: Apache-2.0
/* Telemetry: hwmon directories (/sys/class/hwmon/hwmonN, or a GPU's
 * device/hwmon/hwmonN): temperature with its label, power and its cap,
 * the energy counter, the fan's duty cycle. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_telemetry.h"

#define AGPU_TM_MAX_TEMPS 16
#define AGPU_TM_MAX_HWMON 256

static bool agpu_tm_hwmon_u64(const char *dir, const char *file, uint64_t *value) {
  char path[AGPU_TM_PATH];
  int length = snprintf(path, sizeof path, "%s/%s", dir, file);
  return length > 0 && (size_t)length < sizeof path && agpu_tm_read_u64(path, value);
}

static bool agpu_tm_label_preferred(const char *label, const char *const *preferred) {
  for (; preferred && *preferred; preferred++)
    if (strcmp(label, *preferred) == 0) return true;
  return false;
}

/* The preferred temperature sensor, else the first one. */
static void agpu_tm_hwmon_temperature(agpu_tm_entry *entry, const char *dir, const char *name,
                                      const char *const *preferred) {
  bool chosen_preferred = false;
  for (int i = 1; i <= AGPU_TM_MAX_TEMPS; i++) {
    char file[32], label[48] = "", path[AGPU_TM_PATH];
    uint64_t millidegrees;
    snprintf(file, sizeof file, "temp%d_input", i);
    if (!agpu_tm_hwmon_u64(dir, file, &millidegrees)) continue;
    int length = snprintf(path, sizeof path, "%s/temp%d_label", dir, i);
    if (length < 0 || (size_t)length >= sizeof path ||
        !agpu_tm_read_file(path, label, sizeof label))
      snprintf(label, sizeof label, "temp%d", i);
    bool is_preferred = agpu_tm_label_preferred(label, preferred);
    if (entry->info.temperature_c.known && (chosen_preferred || !is_preferred)) continue;
    chosen_preferred = is_preferred;
    agpu_tm_set(&entry->info.temperature_c, (double)millidegrees / 1000.0);
    snprintf(entry->info.temperature_sensor, sizeof entry->info.temperature_sensor, "%.20s %.40s",
             name, label);
  }
}

void agpu_tm_hwmon_read(agpu_tm_entry *entry, const char *dir, const char *const *preferred) {
  char name[32] = "hwmon", path[AGPU_TM_PATH];
  int length = snprintf(path, sizeof path, "%s/name", dir);
  if (length > 0 && (size_t)length < sizeof path) agpu_tm_read_file(path, name, sizeof name);
  agpu_tm_hwmon_temperature(entry, dir, name, preferred);
  agpu_device_telemetry *info = &entry->info;
  uint64_t value;
  if (!info->power_w.known && (agpu_tm_hwmon_u64(dir, "power1_average", &value) ||
                               agpu_tm_hwmon_u64(dir, "power1_input", &value)))
    agpu_tm_set(&info->power_w, (double)value / 1e6);
  if (!info->power_limit_w.known && (agpu_tm_hwmon_u64(dir, "power1_cap", &value) ||
                                     agpu_tm_hwmon_u64(dir, "power1_max", &value)))
    agpu_tm_set(&info->power_limit_w, (double)value / 1e6);
  if (!entry->has_energy && agpu_tm_hwmon_u64(dir, "energy1_input", &value)) {
    entry->has_energy = true;
    entry->energy_uj = value;
  }
  uint64_t pwm, pwm_max = 255;
  if (!info->fan_percent.known && agpu_tm_hwmon_u64(dir, "pwm1", &pwm)) {
    agpu_tm_hwmon_u64(dir, "pwm1_max", &pwm_max);
    if (pwm_max) agpu_tm_set(&info->fan_percent, 100.0 * (double)pwm / (double)pwm_max);
  }
  agpu_tm_answered(entry, "hwmon");
}

static bool agpu_tm_name_listed(const char *name, const char *const *names) {
  if (!names) return true;
  for (; *names; names++)
    if (strcmp(name, *names) == 0) return true;
  return false;
}

static int agpu_tm_compare_numbers(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

uint32_t agpu_tm_hwmon_each(const char *parent, const char *const *names,
                            void (*found)(const char *dir, const char *name, void *context),
                            void *context) {
  DIR *directory = opendir(parent);
  if (!directory) return 0;
  /* hwmon0, hwmon1...: in number order, so that the first is the same
   * whatever order readdir gives. */
  unsigned numbers[AGPU_TM_MAX_HWMON];
  size_t count = 0;
  struct dirent *item;
  while ((item = readdir(directory)) != NULL && count < AGPU_TM_MAX_HWMON) {
    char *end;
    if (strncmp(item->d_name, "hwmon", 5) != 0 || !item->d_name[5]) continue;
    unsigned long number = strtoul(item->d_name + 5, &end, 10);
    if (*end == '\0' && number < 1000000) numbers[count++] = (unsigned)number;
  }
  closedir(directory);
  qsort(numbers, count, sizeof numbers[0], agpu_tm_compare_numbers);
  uint32_t matched = 0;
  for (size_t i = 0; i < count; i++) {
    char dir[AGPU_TM_PATH], path[AGPU_TM_PATH], name[32];
    int length = snprintf(dir, sizeof dir, "%s/hwmon%u", parent, numbers[i]);
    if (length < 0 || (size_t)length >= sizeof dir - 8) continue;
    snprintf(path, sizeof path, "%.500s/name", dir);
    if (!agpu_tm_read_file(path, name, sizeof name) || !agpu_tm_name_listed(name, names)) continue;
    found(dir, name, context);
    matched++;
  }
  return matched;
}
