// SPDX-License-Identifier: Apache-2.0
/* hipInit, the devices and what they are: attributes, PCI address, UUID,
 * gcnArchName, theoretical peaks; and why there are none. */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hip_internal.h"

/* ------------------------------------------------------------- peak table */

/* FP32 lanes per compute unit per clock, FMA counted once (the peak doubles
 * it). GCN and CDNA1 have four SIMD16 per CU (64 lanes); CDNA2 and CDNA3
 * execute packed FP32 (v_pk_fma_f32), two per lane, counted here as 128,
 * the figure AMD quotes as their FP32 vector peak (MI250X 95.7, MI300X 163.4
 * TFLOP/s); unpacked code reaches half of it. RDNA1 and RDNA2 have two
 * SIMD32 per CU (64); RDNA3 and RDNA4 dual-issue (VOPD) or run wave64 in one
 * cycle, counted as 128 as AMD's figures do (RX 7900 XTX 61.4 TFLOP/s). */
static const struct {
  const char *prefix;
  uint32_t lanes;
} agpu_hip_fp32_lanes[] = {
    {"gfx90a", 128}, /* CDNA2: MI200, packed FP32 */
    {"gfx94", 128},  /* CDNA3: MI300 (gfx940, gfx941, gfx942), packed FP32 */
    {"gfx95", 128},  /* CDNA4: MI350 (gfx950), packed FP32 */
    {"gfx908", 64},  /* CDNA1: MI100 */
    {"gfx90", 64},   /* GCN5 / Vega: gfx900, gfx902, gfx906, gfx909, gfx90c */
    {"gfx8", 64},    /* GCN3/4 */
    {"gfx101", 64},  /* RDNA1 */
    {"gfx103", 64},  /* RDNA2 */
    {"gfx11", 128},  /* RDNA3: dual issue */
    {"gfx12", 128},  /* RDNA4: dual issue */
};

uint32_t agpu_hip_fp32_lanes_per_cu(const char *arch) {
  for (size_t i = 0; i < sizeof agpu_hip_fp32_lanes / sizeof agpu_hip_fp32_lanes[0]; i++)
    if (strncmp(arch, agpu_hip_fp32_lanes[i].prefix, strlen(agpu_hip_fp32_lanes[i].prefix)) == 0)
      return agpu_hip_fp32_lanes[i].lanes;
  return 0;
}

void agpu_hip_base_arch(const char *gcn_arch_name, char *arch, size_t arch_size) {
  size_t length = strcspn(gcn_arch_name, ": ");
  if (length >= arch_size) length = arch_size - 1;
  memcpy(arch, gcn_arch_name, length);
  arch[length] = '\0';
}

/* -------------------------------------------------------------- queries */

static int agpu_hip_attribute(const agpu_hip_api *api, int attribute, int ordinal) {
  int value = 0;
  if (api->hipDeviceGetAttribute(&value, attribute, ordinal) != AGPU_hipSuccess) return 0;
  return value;
}

static uint32_t agpu_hip_positive(int value) {
  return value > 0 ? (uint32_t)value : 0;
}

/* gcnArchName from the version-specific properties call (see hip_api.h for
 * the offsets); "" when neither gives a "gfx..." name. */
static void agpu_hip_gcn_arch_name(const agpu_hip_api *api, int ordinal, char *out,
                                   size_t out_size) {
  out[0] = '\0';
  unsigned char *props = calloc(1, AGPU_HIP_PROPS_BUFFER_SIZE);
  if (!props) return;
  size_t offset = 0;
  agpu_hipError_t error = AGPU_hipErrorNotSupported;
  if (api->hipGetDevicePropertiesR0600) {
    error = api->hipGetDevicePropertiesR0600(props, ordinal);
    offset = AGPU_HIP_R0600_GCN_ARCH_NAME_OFFSET;
  } else if (api->hipGetDeviceProperties && api->runtime_version / 10000000 == 5) {
    error = api->hipGetDeviceProperties(props, ordinal);
    offset = AGPU_HIP_R0000_GCN_ARCH_NAME_OFFSET;
  }
  const char *name = (const char *)props + offset;
  if (error == AGPU_hipSuccess && strncmp(name, "gfx", 3) == 0 &&
      memchr(name, '\0', AGPU_HIP_GCN_ARCH_NAME_SIZE))
    snprintf(out, out_size, "%s", name);
  free(props);
}

/* The PCI device id (0x740c) from sysfs: HIP's PciDeviceId attribute is the
 * slot number on the bus, not the id. */
static uint32_t agpu_hip_sysfs_device_id(const char *pci) {
  char path[128], text[32] = "";
  snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/device", pci);
  FILE *file = fopen(path, "r");
  if (!file) return 0;
  bool read = fgets(text, sizeof text, file) != NULL;
  fclose(file);
  return read ? (uint32_t)strtoul(text, NULL, 16) : 0;
}

static void agpu_hip_fill_pci(const agpu_hip_api *api, int ordinal, agpu_device_info *info) {
  char bus_id[64] = "";
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (api->hipDeviceGetPCIBusId &&
      api->hipDeviceGetPCIBusId(bus_id, (int)sizeof bus_id, ordinal) == AGPU_hipSuccess &&
      sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &device, &function) == 4) {
  } else {
    domain = (unsigned)agpu_hip_attribute(api, AGPU_hipDeviceAttributePciDomainID, ordinal);
    bus = (unsigned)agpu_hip_attribute(api, AGPU_hipDeviceAttributePciBusId, ordinal);
    device = (unsigned)agpu_hip_attribute(api, AGPU_hipDeviceAttributePciDeviceId, ordinal);
    if (bus == 0 && device == 0) return;
  }
  info->has_pci = true;
  snprintf(info->pci, sizeof info->pci, "%04x:%02x:%02x.%x", domain & 0xffffu, bus & 0xffu,
           device & 0x1fu, function & 0x7u);
  info->device_id = agpu_hip_sysfs_device_id(info->pci);
}

static void agpu_hip_version_text(int version, char *out, size_t size) {
  if (version > 0)
    snprintf(out, size, "%d.%d.%d", version / 10000000, version / 100000 % 100, version % 100000);
  else
    snprintf(out, size, "unknown");
}

static void agpu_hip_fill_info(const agpu_hip_api *api, int ordinal, agpu_hipDevice_t handle,
                               agpu_hip_device *native, agpu_device_info *info) {
  memset(info, 0, sizeof *info);
  if (api->hipDeviceGetName(info->name, (int)sizeof info->name, handle) != AGPU_hipSuccess ||
      !info->name[0])
    snprintf(info->name, sizeof info->name, "AMD GPU %d", ordinal);
  snprintf(info->vendor, sizeof info->vendor, "AMD");
  info->vendor_id = 0x1002;
  int driver = 0;
  if (api->hipDriverGetVersion) api->hipDriverGetVersion(&driver);
  agpu_hip_version_text(driver, info->driver_version, sizeof info->driver_version);
  char runtime[64];
  agpu_hip_version_text(api->runtime_version, runtime, sizeof runtime);
  snprintf(info->api_version, sizeof info->api_version, "HIP %s", runtime);

  size_t total = 0;
  api->hipDeviceTotalMem(&total, handle);
  info->global_mem_bytes = total;
  info->max_alloc_bytes = total; /* HIP sets no per-allocation limit below the total */
  info->local_mem_bytes = agpu_hip_positive(
      agpu_hip_attribute(api, AGPU_hipDeviceAttributeMaxSharedMemoryPerBlock, ordinal));
  info->compute_units = agpu_hip_positive(
      agpu_hip_attribute(api, AGPU_hipDeviceAttributeMultiprocessorCount, ordinal));
  info->max_work_group_size = agpu_hip_positive(
      agpu_hip_attribute(api, AGPU_hipDeviceAttributeMaxThreadsPerBlock, ordinal));
  static const int block_dims[3] = {AGPU_hipDeviceAttributeMaxBlockDimX,
                                    AGPU_hipDeviceAttributeMaxBlockDimY,
                                    AGPU_hipDeviceAttributeMaxBlockDimZ};
  static const int grid_dims[3] = {AGPU_hipDeviceAttributeMaxGridDimX,
                                   AGPU_hipDeviceAttributeMaxGridDimY,
                                   AGPU_hipDeviceAttributeMaxGridDimZ};
  for (int d = 0; d < 3; d++) {
    info->max_work_item_sizes[d] =
        agpu_hip_positive(agpu_hip_attribute(api, block_dims[d], ordinal));
    native->max_grid[d] = agpu_hip_positive(agpu_hip_attribute(api, grid_dims[d], ordinal));
    /* Larger grids are split over several launches (hip_launch.c). */
    info->max_work_groups[d] = UINT32_MAX;
  }
  info->subgroup_sizes[0] =
      agpu_hip_positive(agpu_hip_attribute(api, AGPU_hipDeviceAttributeWarpSize, ordinal));
  info->max_clock_mhz =
      agpu_hip_positive(agpu_hip_attribute(api, AGPU_hipDeviceAttributeClockRate, ordinal)) / 1000;
  bool integrated = agpu_hip_attribute(api, AGPU_hipDeviceAttributeIntegrated, ordinal) != 0;
  info->type = integrated ? AGPU_DEVICE_TYPE_INTEGRATED_GPU : AGPU_DEVICE_TYPE_DISCRETE_GPU;
  info->unified_memory = integrated;
  info->fp64 = true;
  info->fp16 = true; /* the translation carries its own half, computed in float */
  info->int64 = true;

  agpu_hip_fill_pci(api, ordinal, info);
  agpu_hipUUID uuid;
  memset(&uuid, 0, sizeof uuid);
  if (api->hipDeviceGetUuid && api->hipDeviceGetUuid(&uuid, handle) == AGPU_hipSuccess) {
    static const char zero[16] = {0};
    info->has_uuid = memcmp(uuid.bytes, zero, sizeof zero) != 0;
    memcpy(info->uuid, uuid.bytes, sizeof info->uuid);
  }

  agpu_hip_gcn_arch_name(api, ordinal, native->gcn_arch_name, sizeof native->gcn_arch_name);
  agpu_hip_base_arch(native->gcn_arch_name, info->arch, sizeof info->arch);
  info->memory_clock_mhz =
      agpu_hip_positive(agpu_hip_attribute(api, AGPU_hipDeviceAttributeMemoryClockRate, ordinal)) /
      1000;
  info->memory_bus_width_bits =
      agpu_hip_positive(agpu_hip_attribute(api, AGPU_hipDeviceAttributeMemoryBusWidth, ordinal));
  info->last_level_cache_bytes =
      agpu_hip_positive(agpu_hip_attribute(api, AGPU_hipDeviceAttributeL2CacheSize, ordinal));
  /* Double data rate: two transfers a memory clock over the bus width. */
  info->peak_bandwidth_gb_s =
      (double)info->memory_clock_mhz * 1e6 * 2.0 * info->memory_bus_width_bits / 8.0 / 1e9;
  uint32_t lanes = agpu_hip_fp32_lanes_per_cu(info->arch);
  info->peak_fp32_gflop_s =
      (double)info->compute_units * lanes * 2.0 * info->max_clock_mhz * 1e6 / 1e9;
}

/* ------------------------------------------------------- no device: why */

static const char *agpu_hip_group_name(gid_t gid, char *buffer, size_t size) {
  struct group entry, *found = NULL;
  char storage[1024];
  if (getgrgid_r(gid, &entry, storage, sizeof storage, &found) == 0 && found)
    snprintf(buffer, size, "'%s'", found->gr_name);
  else
    snprintf(buffer, size, "gid %u", (unsigned)gid);
  return buffer;
}

/* What keeps the runtime from the GPU, read from /dev: appended to `out`. */
static void agpu_hip_explain_device_nodes(char *out, size_t size) {
  size_t used = strlen(out);
  struct stat kfd;
  char group[160];
  if (stat("/dev/kfd", &kfd) != 0) {
    snprintf(out + used, size - used,
             ": /dev/kfd is absent (%s), so no amdgpu kernel driver drives an AMD GPU here",
             strerror(errno));
    return;
  }
  if (access("/dev/kfd", R_OK | W_OK) != 0) {
    snprintf(out + used, size - used,
             ": /dev/kfd exists but this user cannot open it (%s; it belongs to group %s: add the "
             "user to that group)",
             strerror(errno), agpu_hip_group_name(kfd.st_gid, group, sizeof group));
    return;
  }
  DIR *dri = opendir("/dev/dri");
  unsigned render_nodes = 0, usable = 0;
  struct dirent *entry;
  while (dri && (entry = readdir(dri))) {
    if (strncmp(entry->d_name, "renderD", 7) != 0) continue;
    render_nodes++;
    char path[300];
    snprintf(path, sizeof path, "/dev/dri/%s", entry->d_name);
    if (access(path, R_OK | W_OK) == 0) usable++;
  }
  if (dri) closedir(dri);
  if (render_nodes == 0)
    snprintf(out + used, size - used, ": /dev/kfd is usable but there is no /dev/dri/renderD*");
  else if (usable == 0)
    snprintf(out + used, size - used,
             ": /dev/kfd is usable but none of the %u /dev/dri/renderD* nodes is (add the user to "
             "the 'render' group)",
             render_nodes);
  else
    snprintf(out + used, size - used,
             ": /dev/kfd and %u render node%s are usable; ROCR_VISIBLE_DEVICES or "
             "HIP_VISIBLE_DEVICES may hide the GPUs (`anygpu doctor` says)",
             usable, usable == 1 ? "" : "s");
}

static void agpu_hip_explain_no_device(agpu_backend *backend, const agpu_hip_api *api,
                                       const char *call, agpu_hipError_t error) {
  char version[64];
  agpu_hip_version_text(api->runtime_version, version, sizeof version);
  unsigned major = api->runtime_version > 0 ? (unsigned)(api->runtime_version / 10000000) : 0;
  unsigned minor = api->runtime_version > 0 ? (unsigned)(api->runtime_version / 100000 % 100) : 0;
  char rocm[32] = "";
  if (major) snprintf(rocm, sizeof rocm, ", ROCm %u.%u", major, minor);
  if (error == AGPU_hipSuccess)
    snprintf(backend->reason, sizeof backend->reason,
             "the HIP runtime (%s%s) is installed but sees no AMD GPU: %s reports 0 devices",
             api->library_name, rocm, call);
  else
    snprintf(backend->reason, sizeof backend->reason,
             "the HIP runtime (%s%s) is installed but sees no AMD GPU: %s returned %s (%d)",
             api->library_name, rocm, call, agpu_hip_error_name(api, error), (int)error);
  agpu_hip_explain_device_nodes(backend->reason, sizeof backend->reason);
}

/* ------------------------------------------------------------ enumerate */

agpu_status agpu_hip_enumerate(agpu_backend *backend, agpu_hip_api *api) {
  agpu_hipError_t init_error = api->hipInit(0);
  /* With no GPU, ROCm 5.2's hipInit returns hipErrorInvalidDevice and
   * hipGetDeviceCount hipErrorNoDevice: the count says what is wrong. */
  int count = 0;
  agpu_hipError_t error = api->hipGetDeviceCount(&count);
  if (error == AGPU_hipErrorNoDevice || (error == AGPU_hipSuccess && count <= 0)) {
    agpu_hip_explain_no_device(backend, api, "hipGetDeviceCount", error);
    return AGPU_SUCCESS;
  }
  if (init_error != AGPU_hipSuccess || error != AGPU_hipSuccess) {
    bool init_failed = init_error != AGPU_hipSuccess;
    agpu_hipError_t failed = init_failed ? init_error : error;
    const char *name = agpu_hip_error_name(api, failed);
    const char *text = agpu_hip_error_string(api, failed);
    bool same = strcmp(name, text) == 0 || !text[0];
    snprintf(backend->reason, sizeof backend->reason, "%s loads, but %s failed: %s (%d)%s%s",
             api->library_name, init_failed ? "hipInit(0)" : "hipGetDeviceCount", name, (int)failed,
             same ? "" : ": ", same ? "" : text);
    return AGPU_SUCCESS;
  }
  for (int i = 0; i < count; i++) {
    agpu_hipDevice_t handle = 0;
    error = api->hipDeviceGet(&handle, i);
    if (error != AGPU_hipSuccess) {
      size_t used = strlen(backend->reason);
      snprintf(backend->reason + used, sizeof backend->reason - used,
               "%sdevice %d skipped: hipDeviceGet failed: %s (%d)", used ? "; " : "", i,
               agpu_hip_error_name(api, error), (int)error);
      continue;
    }
    agpu_hip_device *native = calloc(1, sizeof *native);
    if (!native) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
    native->api = api;
    native->ordinal = i;
    agpu_device_info info;
    agpu_hip_fill_info(api, i, handle, native, &info);
    if (!agpu_backend_add_device(backend, &info, native)) {
      free(native);
      return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
    }
  }
  return AGPU_SUCCESS;
}

uint32_t agpu_hip_device_caps(agpu_device *device) {
  (void)device;
  /* Always: without hiprtc, agpu_program_build says so itself. A smaller
   * last group: a launch of its own (hip_launch.c). */
  return AGPU_CAP_BUILD_PORTABLE | AGPU_CAP_NONUNIFORM_GROUPS;
}

agpu_status agpu_hip_device_memory(agpu_device *device, agpu_memory_info *info) {
  const agpu_hip_device *native = agpu_hip_device_of(device);
  info->total_bytes = device->info.global_mem_bytes;
  info->free_known = false;
  if (agpu_hip_use(native) != AGPU_SUCCESS) return AGPU_SUCCESS;
  size_t free_bytes = 0, total_bytes = 0;
  if (native->api->hipMemGetInfo(&free_bytes, &total_bytes) == AGPU_hipSuccess) {
    info->free_bytes = free_bytes;
    info->free_known = true;
  }
  return AGPU_SUCCESS;
}
