// SPDX-License-Identifier: Apache-2.0
/* Telemetry of DRM devices: each /sys/class/drm/cardN with a PCI address
 * is one GPU (its render node and connectors are the same device). The
 * driver decides what more there is: amdgpu's own files, hwmon for every
 * driver, the clients' fdinfo for processes and engine time. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_physical.h"
#include "agpu_telemetry.h"

static const char *const agpu_tm_gpu_labels[] = {"edge", "pkg", "gpu", NULL};

static bool agpu_tm_is_card(const char *name) {
  if (strncmp(name, "card", 4) != 0 || !name[4]) return false;
  for (const char *c = name + 4; *c; c++)
    if (*c < '0' || *c > '9') return false;
  return true;
}

static int agpu_tm_compare_names(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

static agpu_device_type agpu_tm_drm_type(const char *driver) {
  if (strcmp(driver, "nvidia") == 0) return AGPU_DEVICE_TYPE_DISCRETE_GPU;
  if (strcmp(driver, "i915") == 0) return AGPU_DEVICE_TYPE_INTEGRATED_GPU;
  return AGPU_DEVICE_TYPE_OTHER; /* amdgpu decides from its VRAM */
}

static void agpu_tm_drm_found_hwmon(const char *dir, const char *name, void *context) {
  (void)name;
  agpu_tm_hwmon_read(context, dir, agpu_tm_gpu_labels);
}

/* A card's hwmon directories, then power from its energy counter. */
static void agpu_tm_drm_hwmon(agpu_telemetry *sample, agpu_tm_entry *entry,
                              const agpu_telemetry *previous) {
  char path[AGPU_TM_PATH];
  if (!agpu_tm_path(sample, path, sizeof path, "%s/hwmon", entry->device_dir) ||
      agpu_tm_hwmon_each(path, NULL, agpu_tm_drm_found_hwmon, entry) == 0) {
    agpu_tm_missing(entry, "hwmon", "%s: no hwmon directory", path);
    return;
  }
  agpu_tm_energy_rate(sample, entry, previous, "hwmon");
}

/* cardN: one entry per PCI address; false when it is not a PCI GPU. */
static bool agpu_tm_drm_card(agpu_telemetry *sample, const char *card,
                             const agpu_telemetry *previous) {
  char path[AGPU_TM_PATH], uevent[1024], driver[32] = "", slot[64] = "", pci[16], id[32] = "";
  if (!agpu_tm_path(sample, path, sizeof path, "/sys/class/drm/%s/device/uevent", card) ||
      !agpu_tm_read_file(path, uevent, sizeof uevent) ||
      !agpu_tm_field(uevent, "PCI_SLOT_NAME", slot, sizeof slot) ||
      !agpu_pci_address_normalize(slot, strlen(slot), pci))
    return false;
  if (agpu_tm_previous_entry(sample, pci)) return true; /* another node of the same GPU */
  agpu_tm_field(uevent, "DRIVER", driver, sizeof driver);
  agpu_tm_field(uevent, "PCI_ID", id, sizeof id);
  agpu_tm_entry *entry = agpu_tm_add_entry(sample, pci);
  if (!entry) return false;
  agpu_device_telemetry *info = &entry->info;
  info->has_pci = true;
  snprintf(info->pci, sizeof info->pci, "%s", pci);
  snprintf(info->driver, sizeof info->driver, "%s", driver[0] ? driver : "unknown");
  info->type = agpu_tm_drm_type(info->driver);
  snprintf(info->name, sizeof info->name, "%s %s", info->driver, id);
  snprintf(entry->device_dir, sizeof entry->device_dir, "/sys/class/drm/%.32s/device", card);
  char product[128];
  if (agpu_tm_path(sample, path, sizeof path, "%s/product_name", entry->device_dir) &&
      agpu_tm_read_file(path, product, sizeof product) && product[0])
    snprintf(info->name, sizeof info->name, "%s", product);
  agpu_tm_answered(entry, "drm");
  if (strcmp(info->driver, "amdgpu") == 0) agpu_tm_amdgpu_read(sample, entry);
  agpu_tm_drm_hwmon(sample, entry, previous);
  return true;
}

void agpu_tm_drm_read(agpu_telemetry *sample, const agpu_telemetry *previous) {
  char path[AGPU_TM_PATH];
  DIR *drm = agpu_tm_path(sample, path, sizeof path, "/sys/class/drm") ? opendir(path) : NULL;
  if (!drm) {
    agpu_tm_source(sample, "drm", "%s: %s", path, strerror(errno));
    return;
  }
  uint32_t cards = 0;
  struct dirent *item;
  /* Cards in name order, so that entries do not depend on readdir's. */
  char names[AGPU_TM_MAX_ENTRIES][32];
  while ((item = readdir(drm)) != NULL && cards < AGPU_TM_MAX_ENTRIES)
    if (agpu_tm_is_card(item->d_name) && strlen(item->d_name) < sizeof names[0])
      snprintf(names[cards++], sizeof names[0], "%.31s", item->d_name);
  closedir(drm);
  qsort(names, cards, sizeof names[0], agpu_tm_compare_names);
  uint32_t gpus = 0;
  for (uint32_t i = 0; i < cards; i++) gpus += agpu_tm_drm_card(sample, names[i], previous);
  if (gpus == 0) {
    agpu_tm_source(sample, "drm", "no PCI GPU under %s", path);
    return;
  }
  agpu_tm_source(sample, "drm", "%s", "");
  agpu_tm_fdinfo_read(sample, previous);
}
