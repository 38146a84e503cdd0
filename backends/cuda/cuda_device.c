// SPDX-License-Identifier: Apache-2.0
/* Enumerates the CUDA devices and describes each one; the primary context
 * behind every call; free and total memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

uint32_t agpu_cuda_fp32_lanes_per_sm(int cc) {
  int major = cc / 10, minor = cc % 10;
  switch (major) {
    case 5:
      return 128;
    case 6:
      return minor == 0 ? 64 : 128;
    case 7:
      return 64;
    case 8:
      return minor == 0 ? 64 : 128;
    case 9:
    case 10:
    case 11:
    case 12:
      return 128;
    default:
      return 0;
  }
}

static int agpu_cuda_attribute(const agpu_cuda_api *api, agpu_cu_device device,
                               agpu_cu_device_attribute attribute) {
  int value = 0;
  if (api->cuDeviceGetAttribute(&value, attribute, device) != AGPU_CUDA_SUCCESS) return 0;
  return value;
}

static uint32_t agpu_cuda_positive(int value) {
  return value > 0 ? (uint32_t)value : 0;
}

/* The kernel module's version ("550.54.14") from the driver's proc file,
 * "" when it is not there (containers may hide it). */
static void agpu_cuda_module_version(char *out, size_t capacity) {
  out[0] = '\0';
  FILE *file = fopen("/proc/driver/nvidia/version", "r");
  if (!file) return;
  char line[512];
  if (fgets(line, sizeof line, file)) {
    /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb ..." */
    const char *module = strstr(line, "Kernel Module");
    if (module) {
      module += strlen("Kernel Module");
      while (*module == ' ') module++;
      size_t length = strcspn(module, " \n");
      if (length > 0 && length < capacity) {
        memcpy(out, module, length);
        out[length] = '\0';
      }
    }
  }
  fclose(file);
}

static void agpu_cuda_fill_info(const agpu_cuda_api *api, agpu_cu_device device,
                                agpu_device_info *info) {
  if (api->cuDeviceGetName(info->name, (int)sizeof info->name, device) != AGPU_CUDA_SUCCESS)
    snprintf(info->name, sizeof info->name, "CUDA device %d", (int)device);
  info->name[sizeof info->name - 1] = '\0';
  snprintf(info->vendor, sizeof info->vendor, "NVIDIA Corporation");
  info->vendor_id = 0x10de;
  int version = api->driver_version;
  snprintf(info->api_version, sizeof info->api_version, "CUDA %d.%d", version / 1000,
           (version % 1000) / 10);
  char module[64];
  agpu_cuda_module_version(module, sizeof module);
  snprintf(info->driver_version, sizeof info->driver_version, "%s",
           module[0] ? module : info->api_version);

  int major = agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  int minor = agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  snprintf(info->arch, sizeof info->arch, "sm_%d%d", major, minor);

  bool integrated = agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0;
  info->type = integrated ? AGPU_DEVICE_TYPE_INTEGRATED_GPU : AGPU_DEVICE_TYPE_DISCRETE_GPU;
  info->unified_memory = integrated;

  size_t total = 0;
  if (api->cuDeviceTotalMem(&total, device) == AGPU_CUDA_SUCCESS) {
    info->global_mem_bytes = total;
    info->max_alloc_bytes = total;
  }
  int shared =
      agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  int optin =
      agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info->local_mem_bytes = agpu_cuda_positive(optin > shared ? optin : shared);

  info->compute_units = agpu_cuda_positive(
      agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  info->max_work_group_size = agpu_cuda_positive(
      agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  static const agpu_cu_device_attribute block[3] = {AGPU_CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                                    AGPU_CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                                    AGPU_CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  static const agpu_cu_device_attribute grid[3] = {AGPU_CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                                   AGPU_CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                                   AGPU_CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  for (int d = 0; d < 3; d++) {
    info->max_work_item_sizes[d] = agpu_cuda_positive(agpu_cuda_attribute(api, device, block[d]));
    /* cuLaunchKernel's own limits: the core refuses a launch past them, so
     * a grid is never split and kl_cuda_launch_info.group_offset stays 0
     * but in the launch of a smaller last group (cuda_launch.c). */
    info->max_work_groups[d] = agpu_cuda_positive(agpu_cuda_attribute(api, device, grid[d]));
  }
  info->subgroup_sizes[0] =
      agpu_cuda_positive(agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_WARP_SIZE));
  info->max_clock_mhz =
      agpu_cuda_positive(agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_CLOCK_RATE)) /
      1000;
  info->memory_clock_mhz = agpu_cuda_positive(agpu_cuda_attribute(
                               api, device, AGPU_CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)) /
                           1000;
  info->memory_bus_width_bits = agpu_cuda_positive(
      agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
  info->last_level_cache_bytes =
      agpu_cuda_positive(agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  /* Double data rate (GDDR and HBM alike), bytes per transfer = width / 8. */
  info->peak_bandwidth_gb_s =
      (double)info->memory_clock_mhz * 1e6 * 2.0 * (info->memory_bus_width_bits / 8.0) / 1e9;
  /* An FMA per lane per clock, counted as 2 operations. */
  info->peak_fp32_gflop_s = (double)info->compute_units *
                            agpu_cuda_fp32_lanes_per_sm(10 * major + minor) * 2.0 *
                            info->max_clock_mhz / 1000.0;
  info->fp64 = true;
  info->fp16 = true;
  info->int64 = true;

  int domain = agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  int bus = agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  int slot = agpu_cuda_attribute(api, device, AGPU_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  info->has_pci = true;
  snprintf(info->pci, sizeof info->pci, "%04x:%02x:%02x.0", (unsigned)domain & 0xffffu,
           (unsigned)bus & 0xffu, (unsigned)slot & 0x1fu);

  agpu_cu_uuid uuid;
  agpu_cu_pfn_cuDeviceGetUuid get_uuid =
      api->cuDeviceGetUuid_v2 ? api->cuDeviceGetUuid_v2 : api->cuDeviceGetUuid;
  if (get_uuid && get_uuid(&uuid, device) == AGPU_CUDA_SUCCESS) {
    memcpy(info->uuid, uuid.bytes, sizeof info->uuid);
    info->has_uuid = true;
  }
}

static agpu_status agpu_cuda_add_device(agpu_backend *backend, const agpu_cuda_api *api,
                                        int ordinal) {
  agpu_cu_device handle = 0;
  agpu_cu_result result = api->cuDeviceGet(&handle, ordinal);
  if (result != AGPU_CUDA_SUCCESS) {
    agpu_cuda_fail(api, "cuDeviceGet", result);
    agpu_error_append(" for device %d", ordinal);
    return agpu_cuda_status(result);
  }
  agpu_device_info info;
  memset(&info, 0, sizeof info);
  agpu_cuda_fill_info(api, handle, &info);
  agpu_cuda_device *device = calloc(1, sizeof *device);
  if (!device) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
  device->api = api;
  device->ordinal = handle;
  device->compute_capability =
      10 * agpu_cuda_attribute(api, handle, AGPU_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) +
      agpu_cuda_attribute(api, handle, AGPU_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  device->shared_per_block =
      agpu_cuda_attribute(api, handle, AGPU_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  device->shared_per_block_optin =
      agpu_cuda_attribute(api, handle, AGPU_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  if (device->shared_per_block_optin < device->shared_per_block)
    device->shared_per_block_optin = device->shared_per_block;
  pthread_mutex_init(&device->lock, NULL);
  if (!agpu_backend_add_device(backend, &info, device)) {
    pthread_mutex_destroy(&device->lock);
    free(device);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
  }
  return AGPU_SUCCESS;
}

agpu_status agpu_cuda_enumerate(agpu_backend *backend, const agpu_cuda_api *api) {
  int count = 0;
  agpu_cu_result result = api->cuDeviceGetCount(&count);
  if (result != AGPU_CUDA_SUCCESS) return agpu_cuda_fail(api, "cuDeviceGetCount", result);
  agpu_status status = AGPU_SUCCESS;
  for (int i = 0; i < count && status == AGPU_SUCCESS; i++)
    status = agpu_cuda_add_device(backend, api, i);
  return status;
}

uint32_t agpu_cuda_device_caps(agpu_device *device) {
  (void)device;
  /* Building needs NVRTC, found on the first build; without it the build
   * says where it looked. A smaller last group: a launch of its own. */
  return AGPU_CAP_BUILD_PORTABLE | AGPU_CAP_NONUNIFORM_GROUPS;
}

agpu_status agpu_cuda_enter(const agpu_device *device) {
  agpu_cuda_device *native = agpu_cuda_device_of(device);
  const agpu_cuda_api *api = native->api;
  pthread_mutex_lock(&native->lock);
  agpu_cu_result result = AGPU_CUDA_SUCCESS;
  if (!native->context) result = api->cuDevicePrimaryCtxRetain(&native->context, native->ordinal);
  agpu_cu_context context = native->context;
  pthread_mutex_unlock(&native->lock);
  if (result != AGPU_CUDA_SUCCESS) {
    agpu_cuda_fail(api, "cuDevicePrimaryCtxRetain", result);
    agpu_error_append(" on %s (%s)", device->info.selector, device->info.name);
    return agpu_cuda_status(result);
  }
  result = api->cuCtxPushCurrent(context);
  if (result != AGPU_CUDA_SUCCESS) {
    agpu_cuda_fail(api, "cuCtxPushCurrent", result);
    agpu_error_append(" on %s (%s)", device->info.selector, device->info.name);
    return agpu_cuda_status(result);
  }
  return AGPU_SUCCESS;
}

void agpu_cuda_leave(const agpu_device *device) {
  agpu_cu_context popped = NULL;
  agpu_cuda_device_of(device)->api->cuCtxPopCurrent(&popped);
}

agpu_status agpu_cuda_device_memory(agpu_device *device, agpu_memory_info *info) {
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  size_t free_bytes = 0, total_bytes = 0;
  const agpu_cuda_api *api = agpu_cuda_device_of(device)->api;
  agpu_cu_result result = api->cuMemGetInfo(&free_bytes, &total_bytes);
  agpu_cuda_leave(device);
  if (result != AGPU_CUDA_SUCCESS) return agpu_cuda_fail(api, "cuMemGetInfo", result);
  info->total_bytes = total_bytes;
  info->free_bytes = free_bytes;
  info->free_known = true;
  return AGPU_SUCCESS;
}
