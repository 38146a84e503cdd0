// SPDX-License-Identifier: Apache-2.0
/* A stand-in for libnvidia-ml.so.1 (NVML) with one GPU at 0000:01:00.0 and
 * fixed readings, so that the telemetry's NVML source runs on a machine
 * without an NVIDIA driver (tests/test_telemetry_nvml.c). With
 * FAKE_NVML_INIT_ERROR set, nvmlInit_v2 fails with that NVML status. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fake_memory {
  unsigned long long total, free, used;
} fake_memory;
typedef struct fake_utilization {
  unsigned int gpu, memory;
} fake_utilization;
typedef struct fake_pci {
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
} fake_pci;
typedef struct fake_process {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id, compute_instance_id;
} fake_process;

/* NVML's entry points as the library resolves them (-Wmissing-prototypes). */
int nvmlInit_v2(void);
const char *nvmlErrorString(int status);
int nvmlDeviceGetCount_v2(unsigned int *count);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device);
int nvmlDeviceGetPciInfo_v3(void *device, fake_pci *pci);
int nvmlDeviceGetName(void *device, char *name, unsigned int length);
int nvmlDeviceGetMemoryInfo(void *device, fake_memory *memory);
int nvmlDeviceGetUtilizationRates(void *device, fake_utilization *rates);
int nvmlDeviceGetTemperature(void *device, int sensor, unsigned int *celsius);
int nvmlDeviceGetPowerUsage(void *device, unsigned int *milliwatts);
int nvmlDeviceGetEnforcedPowerLimit(void *device, unsigned int *milliwatts);
int nvmlDeviceGetClockInfo(void *device, int clock, unsigned int *mhz);
int nvmlDeviceGetMaxClockInfo(void *device, int clock, unsigned int *mhz);
int nvmlDeviceGetFanSpeed(void *device, unsigned int *percent);
int nvmlDeviceGetCurrentClocksThrottleReasons(void *device, unsigned long long *reasons);
int nvmlDeviceGetComputeRunningProcesses_v2(void *device, unsigned int *count, fake_process *out);
int nvmlDeviceGetGraphicsRunningProcesses_v2(void *device, unsigned int *count, fake_process *out);
int nvmlDeviceGetMigMode(void *device, unsigned int *current, unsigned int *pending);
int nvmlDeviceGetMaxMigDeviceCount(void *device, unsigned int *count);
int nvmlDeviceGetMigDeviceHandleByIndex(void *device, unsigned int index, void **mig);
int nvmlDeviceGetGpuInstanceId(void *device, unsigned int *id);

#define FAKE_COMPUTE_PROCESSES 100 /* more than the first buffer: NVML asks for more room */
#define FAKE_DEVICE ((void *)0x1)
/* Two MIG instances, in slots 0 and 2 of 7 (slot 1 is empty). */
static char fake_migs[3];
#define FAKE_IS_MIG(device) ((char *)(device) >= fake_migs && (char *)(device) < fake_migs + 3)

int nvmlInit_v2(void) {
  const char *error = getenv("FAKE_NVML_INIT_ERROR");
  return error ? atoi(error) : 0;
}
const char *nvmlErrorString(int status) {
  return status == 9 ? "Driver Not Loaded" : status == 0 ? "Success" : "Unknown Error";
}
int nvmlDeviceGetCount_v2(unsigned int *count) {
  *count = 1;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device) {
  *device = FAKE_DEVICE;
  return index == 0 ? 0 : 2;
}
int nvmlDeviceGetPciInfo_v3(void *device, fake_pci *pci) {
  (void)device;
  memset(pci, 0, sizeof *pci);
  pci->bus = 1;
  return 0;
}
int nvmlDeviceGetName(void *device, char *name, unsigned int length) {
  strncpy(name, FAKE_IS_MIG(device) ? "NVIDIA H200 MIG 1g.18gb" : "NVIDIA H200", length);
  return 0;
}
int nvmlDeviceGetMemoryInfo(void *device, fake_memory *memory) {
  if (FAKE_IS_MIG(device)) {
    memory->total = 18ull << 30;
    memory->used = (device == &fake_migs[0] ? 4ull : 1ull) << 30;
    memory->free = memory->total - memory->used;
    return 0;
  }
  memory->total = 80ull << 30;
  memory->used = 10ull << 30;
  memory->free = 70ull << 30;
  return 0;
}
int nvmlDeviceGetUtilizationRates(void *device, fake_utilization *rates) {
  (void)device;
  rates->gpu = 55;
  rates->memory = 20;
  return 0;
}
int nvmlDeviceGetTemperature(void *device, int sensor, unsigned int *celsius) {
  (void)device;
  *celsius = 61;
  return sensor == 0 ? 0 : 2;
}
int nvmlDeviceGetPowerUsage(void *device, unsigned int *milliwatts) {
  (void)device;
  *milliwatts = 250500;
  return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(void *device, unsigned int *milliwatts) {
  (void)device;
  *milliwatts = 700000;
  return 0;
}
int nvmlDeviceGetClockInfo(void *device, int clock, unsigned int *mhz) {
  (void)device;
  *mhz = clock == 1 ? 1755 : 2619;
  return 0;
}
int nvmlDeviceGetMaxClockInfo(void *device, int clock, unsigned int *mhz) {
  (void)device;
  *mhz = clock == 1 ? 1980 : 3201;
  return 0;
}
int nvmlDeviceGetFanSpeed(void *device, unsigned int *percent) {
  (void)device;
  (void)percent;
  return 3; /* NVML_ERROR_NOT_SUPPORTED: passively cooled */
}
int nvmlDeviceGetCurrentClocksThrottleReasons(void *device, unsigned long long *reasons) {
  (void)device;
  *reasons = 0x4 | 0x40; /* software power cap, hardware thermal */
  return 0;
}

static int fake_list(unsigned int *count, fake_process *out, const fake_process *all,
                     unsigned int total) {
  if (*count < total) {
    *count = total;
    return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  }
  memcpy(out, all, total * sizeof *all);
  *count = total;
  return 0;
}

int nvmlDeviceGetComputeRunningProcesses_v2(void *device, unsigned int *count, fake_process *out) {
  (void)device;
  fake_process all[FAKE_COMPUTE_PROCESSES];
  memset(all, 0, sizeof all);
  all[0].pid = (unsigned int)getpid();
  all[0].used_gpu_memory = 2ull << 30;
  for (unsigned int i = 1; i < FAKE_COMPUTE_PROCESSES; i++) {
    all[i].pid = 100000 + i;
    all[i].used_gpu_memory = (unsigned long long)i << 20;
  }
  return fake_list(count, out, all, FAKE_COMPUTE_PROCESSES);
}

int nvmlDeviceGetGraphicsRunningProcesses_v2(void *device, unsigned int *count, fake_process *out) {
  (void)device;
  fake_process all[2] = {{(unsigned int)getpid(), 1ull << 30, 0, 0}, {1, ~0ull, 0, 0}};
  return fake_list(count, out, all, 2);
}

int nvmlDeviceGetMigMode(void *device, unsigned int *current, unsigned int *pending) {
  (void)device;
  *current = *pending = 1;
  return 0;
}
int nvmlDeviceGetMaxMigDeviceCount(void *device, unsigned int *count) {
  (void)device;
  *count = 7;
  return 0;
}
int nvmlDeviceGetMigDeviceHandleByIndex(void *device, unsigned int index, void **mig) {
  (void)device;
  if (index != 0 && index != 2) return 6; /* NVML_ERROR_NOT_FOUND */
  *mig = &fake_migs[index];
  return 0;
}
int nvmlDeviceGetGpuInstanceId(void *device, unsigned int *id) {
  *id = device == &fake_migs[0] ? 7 : 9;
  return 0;
}
