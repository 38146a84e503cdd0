// SPDX-License-Identifier: Apache-2.0
/* Telemetry of NVIDIA GPUs through NVML (libnvidia-ml.so.1, opened at run
 * time and never linked), matched to the DRM entries by PCI address. The
 * declarations are the project's own, from NVML's documented ABI. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_telemetry.h"

typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;
typedef struct nvml_memory {
  unsigned long long total, free, used;
} nvml_memory;
typedef struct nvml_utilization {
  unsigned int gpu, memory;
} nvml_utilization;
typedef struct nvml_pci_info {
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
} nvml_pci_info;
typedef struct nvml_process_info_v2 {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id, compute_instance_id;
} nvml_process_info_v2;

#define NVML_SYMBOLS(X)                                                                          \
  X(nvmlInit_v2, nvml_return, (void))                                                            \
  X(nvmlErrorString, const char *, (nvml_return))                                                \
  X(nvmlDeviceGetCount_v2, nvml_return, (unsigned int *))                                        \
  X(nvmlDeviceGetHandleByIndex_v2, nvml_return, (unsigned int, nvml_device *))                   \
  X(nvmlDeviceGetPciInfo_v3, nvml_return, (nvml_device, nvml_pci_info *))                        \
  X(nvmlDeviceGetName, nvml_return, (nvml_device, char *, unsigned int))                         \
  X(nvmlDeviceGetMemoryInfo, nvml_return, (nvml_device, nvml_memory *))                          \
  X(nvmlDeviceGetUtilizationRates, nvml_return, (nvml_device, nvml_utilization *))               \
  X(nvmlDeviceGetTemperature, nvml_return, (nvml_device, int, unsigned int *))                   \
  X(nvmlDeviceGetPowerUsage, nvml_return, (nvml_device, unsigned int *))                         \
  X(nvmlDeviceGetEnforcedPowerLimit, nvml_return, (nvml_device, unsigned int *))                 \
  X(nvmlDeviceGetClockInfo, nvml_return, (nvml_device, int, unsigned int *))                     \
  X(nvmlDeviceGetMaxClockInfo, nvml_return, (nvml_device, int, unsigned int *))                  \
  X(nvmlDeviceGetFanSpeed, nvml_return, (nvml_device, unsigned int *))                           \
  X(nvmlDeviceGetCurrentClocksThrottleReasons, nvml_return, (nvml_device, unsigned long long *)) \
  X(nvmlDeviceGetComputeRunningProcesses_v2, nvml_return,                                        \
    (nvml_device, unsigned int *, nvml_process_info_v2 *))                                       \
  X(nvmlDeviceGetGraphicsRunningProcesses_v2, nvml_return,                                       \
    (nvml_device, unsigned int *, nvml_process_info_v2 *))

/* Newer than the driver may be: a missing one leaves its slot NULL. */
#define NVML_OPTIONAL_SYMBOLS(X)                                                                  \
  X(nvmlDeviceGetMigMode, nvml_return, (nvml_device, unsigned int *, unsigned int *))             \
  X(nvmlDeviceGetMaxMigDeviceCount, nvml_return, (nvml_device, unsigned int *))                   \
  X(nvmlDeviceGetMigDeviceHandleByIndex, nvml_return, (nvml_device, unsigned int, nvml_device *)) \
  X(nvmlDeviceGetGpuInstanceId, nvml_return, (nvml_device, unsigned int *))

/* Loaded once under pthread_once; read-only afterwards. */
static struct {
#define NVML_FIELD(name, result, parameters) result(*name) parameters;
  NVML_SYMBOLS(NVML_FIELD)
  NVML_OPTIONAL_SYMBOLS(NVML_FIELD)
#undef NVML_FIELD
} agpu_nvml;
static bool agpu_nvml_ready;
static char agpu_nvml_reason[256];
static pthread_once_t agpu_nvml_once = PTHREAD_ONCE_INIT;

static void agpu_nvml_load(void) {
  void *library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *error = dlerror();
    snprintf(agpu_nvml_reason, sizeof agpu_nvml_reason, "NVML not found: %s",
             error ? error : "libnvidia-ml.so.1");
    return;
  }
#define NVML_RESOLVE(name, result, parameters)                                                  \
  *(void **)&agpu_nvml.name = dlsym(library, #name);                                            \
  if (!agpu_nvml.name) {                                                                        \
    snprintf(agpu_nvml_reason, sizeof agpu_nvml_reason, "NVML lacks %s: the driver is too old", \
             #name);                                                                            \
    return;                                                                                     \
  }
  NVML_SYMBOLS(NVML_RESOLVE)
#undef NVML_RESOLVE
#define NVML_RESOLVE_OPTIONAL(name, result, parameters) \
  *(void **)&agpu_nvml.name = dlsym(library, #name);
  NVML_OPTIONAL_SYMBOLS(NVML_RESOLVE_OPTIONAL)
#undef NVML_RESOLVE_OPTIONAL
  nvml_return status = agpu_nvml.nvmlInit_v2();
  if (status != 0) {
    snprintf(agpu_nvml_reason, sizeof agpu_nvml_reason, "nvmlInit_v2 failed: %s (%d)",
             agpu_nvml.nvmlErrorString(status), status);
    return;
  }
  agpu_nvml_ready = true;
}

/* The entries of NVIDIA cards that NVML did not answer for say why. */
static void agpu_tm_nvml_explain(agpu_telemetry *sample, const char *reason) {
  agpu_tm_source(sample, "nvml", "%s", reason);
  for (uint32_t i = 0; i < sample->entry_count; i++)
    if (strcmp(sample->entries[i].info.driver, "nvidia") == 0)
      agpu_tm_missing(&sample->entries[i], "nvml", "%s", reason);
}

static const char *const agpu_nvml_throttle_names[] = {
    "gpu idle",          "applications clocks",  "software power cap",
    "hardware slowdown", "sync boost",           "software thermal",
    "hardware thermal",  "hardware power brake", "display clock"};

static void agpu_tm_nvml_clocks(agpu_tm_entry *entry, nvml_device device) {
  agpu_device_telemetry *info = &entry->info;
  unsigned int value;
  unsigned long long reasons;
  if (agpu_nvml.nvmlDeviceGetClockInfo(device, 1 /* SM */, &value) == 0)
    agpu_tm_set(&info->clock_mhz, value);
  if (agpu_nvml.nvmlDeviceGetMaxClockInfo(device, 1, &value) == 0)
    agpu_tm_set(&info->clock_max_mhz, value);
  if (agpu_nvml.nvmlDeviceGetClockInfo(device, 2 /* MEM */, &value) == 0)
    agpu_tm_set(&info->memory_clock_mhz, value);
  if (agpu_nvml.nvmlDeviceGetMaxClockInfo(device, 2, &value) == 0)
    agpu_tm_set(&info->memory_clock_max_mhz, value);
  if (agpu_nvml.nvmlDeviceGetFanSpeed(device, &value) == 0) agpu_tm_set(&info->fan_percent, value);
  if (agpu_nvml.nvmlDeviceGetCurrentClocksThrottleReasons(device, &reasons) == 0) {
    info->throttle_known = true;
    for (size_t bit = 0; bit < sizeof agpu_nvml_throttle_names / sizeof *agpu_nvml_throttle_names;
         bit++) {
      if (!(reasons & (1ull << bit))) continue;
      size_t length = strlen(info->throttle_reasons);
      snprintf(info->throttle_reasons + length, sizeof info->throttle_reasons - length, "%s%s",
               length ? ", " : "", agpu_nvml_throttle_names[bit]);
    }
  }
}

typedef nvml_return (*nvml_process_list)(nvml_device, unsigned int *, nvml_process_info_v2 *);

/* One of NVML's process lists, grown once when NVML says it is longer;
 * appended to `processes` (one entry a pid, the most memory kept). */
static bool agpu_tm_nvml_list(nvml_process_list list, const char *name, agpu_tm_entry *entry,
                              nvml_device device, agpu_process_telemetry **processes,
                              uint32_t *count) {
  unsigned int found = 64;
  nvml_process_info_v2 *infos = NULL;
  nvml_return status = 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  for (int attempt = 0; attempt < 2 && status == 7; attempt++) {
    free(infos);
    infos = calloc(found + 16u, sizeof *infos);
    if (!infos) return false;
    found += 16u;
    status = list(device, &found, infos);
  }
  agpu_process_telemetry *grown =
      status == 0 ? realloc(*processes, (*count + found + 1) * sizeof **processes) : NULL;
  if (!grown) {
    if (status != 0)
      agpu_tm_missing(entry, "nvml", "%s failed: %s", name, agpu_nvml.nvmlErrorString(status));
    free(infos);
    return false;
  }
  *processes = grown;
  for (unsigned int i = 0; i < found; i++) {
    uint32_t at = 0;
    while (at < *count && (*processes)[at].pid != infos[i].pid) at++;
    if (at == *count) memset(&(*processes)[(*count)++], 0, sizeof **processes);
    agpu_process_telemetry *process = &(*processes)[at];
    process->pid = infos[i].pid;
    /* NVML_VALUE_NOT_AVAILABLE (all ones) under some virtualisation. */
    if (infos[i].used_gpu_memory != ~0ull &&
        (!process->memory.known || infos[i].used_gpu_memory > process->memory.bytes))
      agpu_tm_set_bytes(&process->memory, infos[i].used_gpu_memory);
  }
  free(infos);
  return true;
}

/* Compute and graphics processes, each pid once. */
static void agpu_tm_nvml_processes(agpu_telemetry *sample, agpu_tm_entry *entry,
                                   nvml_device device) {
  agpu_process_telemetry *processes = NULL;
  uint32_t count = 0;
  bool compute = agpu_tm_nvml_list(agpu_nvml.nvmlDeviceGetComputeRunningProcesses_v2,
                                   "nvmlDeviceGetComputeRunningProcesses_v2", entry, device,
                                   &processes, &count);
  bool graphics = agpu_tm_nvml_list(agpu_nvml.nvmlDeviceGetGraphicsRunningProcesses_v2,
                                    "nvmlDeviceGetGraphicsRunningProcesses_v2", entry, device,
                                    &processes, &count);
  if (compute || graphics) {
    agpu_tm_sort_processes(&entry->info, processes ? processes : (agpu_process_telemetry[1]){0},
                           count);
    for (uint32_t i = 0; i < entry->info.process_count; i++)
      agpu_tm_process_name(sample, entry->info.processes[i].pid, entry->info.processes[i].name,
                           sizeof entry->info.processes[i].name);
  }
  free(processes);
}

/* The MIG instances of a GPU in MIG mode, each with its own memory. */
static void agpu_tm_nvml_partitions(agpu_tm_entry *entry, nvml_device device) {
  unsigned int current = 0, pending = 0, slots = 0;
  if (!agpu_nvml.nvmlDeviceGetMigMode || !agpu_nvml.nvmlDeviceGetMaxMigDeviceCount ||
      !agpu_nvml.nvmlDeviceGetMigDeviceHandleByIndex ||
      agpu_nvml.nvmlDeviceGetMigMode(device, &current, &pending) != 0 || current != 1 ||
      agpu_nvml.nvmlDeviceGetMaxMigDeviceCount(device, &slots) != 0)
    return; /* not partitioned, or a driver without MIG */
  agpu_device_telemetry *info = &entry->info;
  for (unsigned int slot = 0; slot < slots && info->partition_count < AGPU_TELEMETRY_MAX_PARTITIONS;
       slot++) {
    nvml_device mig;
    if (agpu_nvml.nvmlDeviceGetMigDeviceHandleByIndex(device, slot, &mig) != 0) continue;
    agpu_telemetry_partition *partition = &info->partitions[info->partition_count++];
    memset(partition, 0, sizeof *partition);
    if (agpu_nvml.nvmlDeviceGetName(mig, partition->name, sizeof partition->name) != 0)
      snprintf(partition->name, sizeof partition->name, "MIG %u", slot);
    if (agpu_nvml.nvmlDeviceGetGpuInstanceId)
      agpu_nvml.nvmlDeviceGetGpuInstanceId(mig, &partition->instance_id);
    nvml_memory memory;
    if (agpu_nvml.nvmlDeviceGetMemoryInfo(mig, &memory) == 0) {
      agpu_tm_set_bytes(&partition->memory_total, memory.total);
      agpu_tm_set_bytes(&partition->memory_used, memory.used);
      agpu_tm_set_bytes(&partition->memory_free, memory.free);
    }
  }
}

static agpu_tm_entry *agpu_tm_nvml_entry(agpu_telemetry *sample, nvml_device device) {
  nvml_pci_info pci;
  if (agpu_nvml.nvmlDeviceGetPciInfo_v3(device, &pci) != 0) return NULL;
  char key[32];
  snprintf(key, sizeof key, "%04x:%02x:%02x.0", pci.domain & 0xffffu, pci.bus & 0xffu,
           pci.device & 0x1fu);
  key[15] = '\0'; /* 12 characters, as above */
  for (uint32_t i = 0; i < sample->entry_count; i++)
    if (strcmp(sample->entries[i].key, key) == 0) return &sample->entries[i];
  agpu_tm_entry *entry = agpu_tm_add_entry(sample, key);
  if (!entry) return NULL;
  entry->info.has_pci = true;
  memcpy(entry->info.pci, key, sizeof entry->info.pci);
  snprintf(entry->info.driver, sizeof entry->info.driver, "nvidia");
  entry->info.type = AGPU_DEVICE_TYPE_DISCRETE_GPU;
  return entry;
}

static void agpu_tm_nvml_device(agpu_telemetry *sample, nvml_device device) {
  agpu_tm_entry *entry = agpu_tm_nvml_entry(sample, device);
  if (!entry) return;
  agpu_device_telemetry *info = &entry->info;
  agpu_nvml.nvmlDeviceGetName(device, info->name, sizeof info->name);
  nvml_memory memory;
  if (agpu_nvml.nvmlDeviceGetMemoryInfo(device, &memory) == 0) {
    agpu_tm_set_bytes(&info->memory_total, memory.total);
    agpu_tm_set_bytes(&info->memory_used, memory.used);
    agpu_tm_set_bytes(&info->memory_free, memory.free);
  }
  nvml_utilization utilization;
  if (agpu_nvml.nvmlDeviceGetUtilizationRates(device, &utilization) == 0)
    agpu_tm_set(&info->utilization_percent, utilization.gpu);
  unsigned int value;
  if (agpu_nvml.nvmlDeviceGetTemperature(device, 0 /* GPU */, &value) == 0) {
    agpu_tm_set(&info->temperature_c, value);
    snprintf(info->temperature_sensor, sizeof info->temperature_sensor, "nvml gpu");
  }
  if (agpu_nvml.nvmlDeviceGetPowerUsage(device, &value) == 0)
    agpu_tm_set(&info->power_w, value / 1000.0);
  if (agpu_nvml.nvmlDeviceGetEnforcedPowerLimit(device, &value) == 0)
    agpu_tm_set(&info->power_limit_w, value / 1000.0);
  agpu_tm_nvml_clocks(entry, device);
  agpu_tm_nvml_processes(sample, entry, device);
  agpu_tm_nvml_partitions(entry, device);
  agpu_tm_answered(entry, "nvml");
}

void agpu_tm_nvml_read(agpu_telemetry *sample) {
  if (sample->sysroot[0]) {
    agpu_tm_nvml_explain(sample, "NVML not read: it asks the running driver, not the sysroot");
    return;
  }
  pthread_once(&agpu_nvml_once, agpu_nvml_load);
  if (!agpu_nvml_ready) {
    agpu_tm_nvml_explain(sample, agpu_nvml_reason);
    return;
  }
  unsigned int count = 0;
  nvml_return status = agpu_nvml.nvmlDeviceGetCount_v2(&count);
  if (status != 0) {
    char reason[128];
    snprintf(reason, sizeof reason, "nvmlDeviceGetCount_v2 failed: %s",
             agpu_nvml.nvmlErrorString(status));
    agpu_tm_nvml_explain(sample, reason);
    return;
  }
  for (unsigned int i = 0; i < count; i++) {
    nvml_device device;
    if (agpu_nvml.nvmlDeviceGetHandleByIndex_v2(i, &device) == 0)
      agpu_tm_nvml_device(sample, device);
  }
  agpu_tm_source(sample, "nvml", "%s", "");
}
