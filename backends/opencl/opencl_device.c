// SPDX-License-Identifier: Apache-2.0
/* Enumerates every OpenCL platform and device and describes each one. */
#include <stdio.h>
#include <stdlib.h>

#include "opencl_internal.h"

/* A device string query as a malloc'd string; NULL when the query fails. */
static char *agpu_cl_device_string(const agpu_cl_api *api, cl_device_id id, cl_device_info param) {
  size_t size = 0;
  if (api->clGetDeviceInfo(id, param, 0, NULL, &size) != CL_SUCCESS || size == 0) return NULL;
  char *text = calloc(1, size + 1);
  if (!text) return NULL;
  if (api->clGetDeviceInfo(id, param, size, text, NULL) != CL_SUCCESS) {
    free(text);
    return NULL;
  }
  return text;
}

/* Copies a driver string without the trailing blanks some drivers leave. */
static void agpu_cl_copy_trimmed(char *dst, size_t capacity, const char *src) {
  size_t length = src ? strlen(src) : 0;
  while (length > 0 && (src[length - 1] == ' ' || src[length - 1] == '\n')) length--;
  if (length >= capacity) length = capacity - 1;
  if (length) memcpy(dst, src, length);
  dst[length] = '\0';
}

static void agpu_cl_copy_device_string(const agpu_cl_api *api, cl_device_id id,
                                       cl_device_info param, char *dst, size_t capacity) {
  char *text = agpu_cl_device_string(api, id, param);
  agpu_cl_copy_trimmed(dst, capacity, text);
  free(text);
}

/* Zero-fills `out` and reports whether the query succeeded. */
static bool agpu_cl_query(const agpu_cl_api *api, cl_device_id id, cl_device_info param, void *out,
                          size_t size) {
  memset(out, 0, size);
  return api->clGetDeviceInfo(id, param, size, out, NULL) == CL_SUCCESS;
}

static uint32_t agpu_cl_clamp_u32(uint64_t value) {
  return value > UINT32_MAX ? UINT32_MAX : (uint32_t)value;
}

/* "OpenCL 3.0 PoCL ..." -> 30 for prefix "OpenCL %u.%u". */
static unsigned agpu_cl_parse_version(const char *text, const char *format) {
  unsigned major = 0, minor = 0;
  if (!text || sscanf(text, format, &major, &minor) != 2) return 0;
  return 10 * major + minor;
}

static void agpu_cl_format_pci(agpu_device_info *info, unsigned domain, unsigned bus,
                               unsigned device, unsigned function) {
  info->has_pci = true;
  snprintf(info->pci, sizeof info->pci, "%04x:%02x:%02x.%x", domain & 0xffffu, bus & 0xffu,
           device & 0x1fu, function & 0x7u);
}

/* cl_khr_pci_bus_info first, then the NVIDIA and AMD vendor queries. */
static void agpu_cl_fill_pci(const agpu_cl_api *api, cl_device_id id, const char *extensions,
                             agpu_device_info *info) {
  if (agpu_cl_has_extension(extensions, "cl_khr_pci_bus_info")) {
    cl_device_pci_bus_info_khr pci;
    if (agpu_cl_query(api, id, CL_DEVICE_PCI_BUS_INFO_KHR, &pci, sizeof pci)) {
      agpu_cl_format_pci(info, pci.pci_domain, pci.pci_bus, pci.pci_device, pci.pci_function);
      return;
    }
  }
  if (agpu_cl_has_extension(extensions, "cl_nv_device_attribute_query")) {
    enum { BUS_ID_NV = 0x4008, SLOT_ID_NV = 0x4009, DOMAIN_ID_NV = 0x400A };
    cl_uint bus, slot, domain;
    if (agpu_cl_query(api, id, BUS_ID_NV, &bus, sizeof bus) &&
        agpu_cl_query(api, id, SLOT_ID_NV, &slot, sizeof slot)) {
      agpu_cl_query(api, id, DOMAIN_ID_NV, &domain, sizeof domain); /* newer drivers only */
      /* The slot id packs device and function as PCI devfn does. */
      agpu_cl_format_pci(info, domain, bus, slot >> 3, slot & 7u);
      return;
    }
  }
  if (agpu_cl_has_extension(extensions, "cl_amd_device_attribute_query")) {
    cl_device_topology_amd topology;
    if (agpu_cl_query(api, id, CL_DEVICE_TOPOLOGY_AMD, &topology, sizeof topology) &&
        topology.raw.type == CL_DEVICE_TOPOLOGY_TYPE_PCIE_AMD)
      agpu_cl_format_pci(info, 0, (cl_uchar)topology.pcie.bus, (cl_uchar)topology.pcie.device,
                         (cl_uchar)topology.pcie.function);
  }
}

static uint32_t agpu_cl_pci_device_id(const agpu_cl_api *api, cl_device_id id,
                                      const char *extensions) {
  cl_uint device_id = 0;
  if (agpu_cl_has_extension(extensions, "cl_amd_device_attribute_query"))
    agpu_cl_query(api, id, CL_DEVICE_PCIE_ID_AMD, &device_id, sizeof device_id);
  else if (agpu_cl_has_extension(extensions, "cl_intel_device_attribute_query"))
    agpu_cl_query(api, id, CL_DEVICE_ID_INTEL, &device_id, sizeof device_id);
  return device_id;
}

static void agpu_cl_fill_work_sizes(const agpu_cl_api *api, cl_device_id id,
                                    agpu_device_info *info) {
  size_t max_group = 0;
  agpu_cl_query(api, id, CL_DEVICE_MAX_WORK_GROUP_SIZE, &max_group, sizeof max_group);
  info->max_work_group_size = agpu_cl_clamp_u32(max_group);

  cl_uint dims = 0;
  agpu_cl_query(api, id, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, &dims, sizeof dims);
  size_t *sizes = dims ? calloc(dims, sizeof *sizes) : NULL;
  if (sizes && agpu_cl_query(api, id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes, dims * sizeof *sizes))
    for (cl_uint d = 0; d < dims && d < 3; d++)
      info->max_work_item_sizes[d] = agpu_cl_clamp_u32(sizes[d]);
  free(sizes);
  /* OpenCL sets no limit on the number of work-groups. */
  for (int d = 0; d < 3; d++) info->max_work_groups[d] = UINT32_MAX;
}

static void agpu_cl_fill_subgroup_sizes(const agpu_cl_api *api, cl_device_id id,
                                        const char *extensions, agpu_device_info *info) {
  if (!agpu_cl_has_extension(extensions, "cl_intel_required_subgroup_size")) return;
  size_t bytes = 0;
  if (api->clGetDeviceInfo(id, CL_DEVICE_SUB_GROUP_SIZES_INTEL, 0, NULL, &bytes) != CL_SUCCESS ||
      bytes == 0)
    return;
  size_t *sizes = calloc(1, bytes);
  if (sizes && agpu_cl_query(api, id, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizes, bytes))
    for (size_t i = 0; i < bytes / sizeof *sizes && i < 4; i++)
      info->subgroup_sizes[i] = agpu_cl_clamp_u32(sizes[i]);
  free(sizes);
}

static agpu_device_type agpu_cl_device_type(cl_device_type type, bool unified) {
  if (type & CL_DEVICE_TYPE_GPU)
    return unified ? AGPU_DEVICE_TYPE_INTEGRATED_GPU : AGPU_DEVICE_TYPE_DISCRETE_GPU;
  if (type & CL_DEVICE_TYPE_CPU) return AGPU_DEVICE_TYPE_CPU;
  return AGPU_DEVICE_TYPE_OTHER;
}

static void agpu_cl_fill_info(const agpu_cl_api *api, cl_device_id id, const char *extensions,
                              agpu_device_info *info) {
  agpu_cl_copy_device_string(api, id, CL_DEVICE_NAME, info->name, sizeof info->name);
  agpu_cl_copy_device_string(api, id, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
  agpu_cl_copy_device_string(api, id, CL_DRIVER_VERSION, info->driver_version,
                             sizeof info->driver_version);
  agpu_cl_copy_device_string(api, id, CL_DEVICE_VERSION, info->api_version,
                             sizeof info->api_version);

  cl_uint vendor_id, compute_units, clock;
  agpu_cl_query(api, id, CL_DEVICE_VENDOR_ID, &vendor_id, sizeof vendor_id);
  agpu_cl_query(api, id, CL_DEVICE_MAX_COMPUTE_UNITS, &compute_units, sizeof compute_units);
  agpu_cl_query(api, id, CL_DEVICE_MAX_CLOCK_FREQUENCY, &clock, sizeof clock);
  info->vendor_id = vendor_id;
  info->device_id = agpu_cl_pci_device_id(api, id, extensions);
  info->compute_units = compute_units;
  info->max_clock_mhz = clock;

  cl_ulong global_mem, max_alloc, local_mem;
  agpu_cl_query(api, id, CL_DEVICE_GLOBAL_MEM_SIZE, &global_mem, sizeof global_mem);
  agpu_cl_query(api, id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, &max_alloc, sizeof max_alloc);
  agpu_cl_query(api, id, CL_DEVICE_LOCAL_MEM_SIZE, &local_mem, sizeof local_mem);
  info->global_mem_bytes = global_mem;
  info->max_alloc_bytes = max_alloc;
  info->local_mem_bytes = local_mem;
  size_t param_bytes = 0;
  if (agpu_cl_query(api, id, CL_DEVICE_MAX_PARAMETER_SIZE, &param_bytes, sizeof param_bytes))
    info->max_param_bytes = param_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)param_bytes;

  cl_device_type type;
  cl_bool unified;
  agpu_cl_query(api, id, CL_DEVICE_TYPE, &type, sizeof type);
  agpu_cl_query(api, id, CL_DEVICE_HOST_UNIFIED_MEMORY, &unified, sizeof unified);
  info->type = agpu_cl_device_type(type, unified);
  info->unified_memory = unified;

  agpu_cl_fill_work_sizes(api, id, info);
  agpu_cl_fill_subgroup_sizes(api, id, extensions, info);

  cl_device_fp_config double_config;
  agpu_cl_query(api, id, CL_DEVICE_DOUBLE_FP_CONFIG, &double_config, sizeof double_config);
  char profile[64];
  agpu_cl_copy_device_string(api, id, CL_DEVICE_PROFILE, profile, sizeof profile);
  info->fp64 = double_config != 0;
  info->fp16 = agpu_cl_has_extension(extensions, "cl_khr_fp16");
  info->int64 = strcmp(profile, "FULL_PROFILE") == 0 ||
                agpu_cl_has_extension(extensions, "cl_khr_int64") ||
                agpu_cl_has_extension(extensions, "cles_khr_int64");

  agpu_cl_fill_pci(api, id, extensions, info);
  if (agpu_cl_has_extension(extensions, "cl_khr_device_uuid"))
    info->has_uuid = agpu_cl_query(api, id, CL_DEVICE_UUID_KHR, info->uuid, sizeof info->uuid);
}

/* Appends a note to backend->reason, "; "-separated. */
static void agpu_cl_note(agpu_backend *backend, const char *note) {
  size_t used = strlen(backend->reason);
  snprintf(backend->reason + used, sizeof backend->reason - used, "%s%s", used ? "; " : "", note);
}

static void agpu_cl_release_device_native(agpu_cl_device *device) {
  if (device->setup_queue) device->api->clReleaseCommandQueue(device->setup_queue);
  if (device->context) device->api->clReleaseContext(device->context);
  free(device);
}

/* The native half: one context per device, and the version facts the other
 * files test before they call a 1.2+ entry point. */
static agpu_cl_device *agpu_cl_open_device(agpu_backend *backend, const agpu_cl_api *api,
                                           cl_platform_id platform, cl_device_id id,
                                           const char *name, const char *extensions) {
  agpu_cl_device *device = calloc(1, sizeof *device);
  if (!device) {
    agpu_cl_note(backend, "a device skipped: out of host memory");
    return NULL;
  }
  device->api = api;
  device->platform = platform;
  device->id = id;

  char text[256];
  agpu_cl_copy_device_string(api, id, CL_DEVICE_VERSION, text, sizeof text);
  device->version = agpu_cl_parse_version(text, "OpenCL %u.%u");
  agpu_cl_copy_device_string(api, id, CL_DEVICE_OPENCL_C_VERSION, text, sizeof text);
  device->c_version = agpu_cl_parse_version(text, "OpenCL C %u.%u");
  agpu_cl_query(api, id, CL_DEVICE_ADDRESS_BITS, &device->address_bits,
                sizeof device->address_bits);
  cl_bool compiler;
  agpu_cl_query(api, id, CL_DEVICE_COMPILER_AVAILABLE, &compiler, sizeof compiler);
  device->compiler_available = compiler;
  device->has_amd_free_memory = agpu_cl_has_extension(extensions, "cl_amd_device_attribute_query");
  cl_device_type type;
  agpu_cl_query(api, id, CL_DEVICE_TYPE, &type, sizeof type);
  device->migrate_new_buffers =
      !(type & CL_DEVICE_TYPE_CPU) && device->version >= 12 && api->clEnqueueMigrateMemObjects;
  if (device->version >= 21 && api->clCreateProgramWithIL) {
    agpu_cl_copy_device_string(api, id, CL_DEVICE_IL_VERSION, text, sizeof text);
    device->accepts_spirv = strstr(text, "SPIR-V") != NULL;
  }

  cl_int error = CL_SUCCESS;
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform,
                                              0};
  device->context = api->clCreateContext(properties, 1, &id, NULL, NULL, &error);
  const char *call = "clCreateContext";
  if (device->context && device->migrate_new_buffers)
    device->setup_queue = agpu_cl_new_command_queue(device, false, &call, &error);
  if (!device->context || (device->migrate_new_buffers && !device->setup_queue)) {
    char note[512];
    snprintf(note, sizeof note, "device '%s' skipped: %s failed: %s (%d)", name, call,
             agpu_cl_error_name(error), (int)error);
    agpu_cl_note(backend, note);
    agpu_cl_release_device_native(device);
    return NULL;
  }
  return device;
}

static agpu_status agpu_cl_add_device(agpu_backend *backend, const agpu_cl_api *api,
                                      cl_platform_id platform, cl_device_id id) {
  char *extensions = agpu_cl_device_string(api, id, CL_DEVICE_EXTENSIONS);
  agpu_device_info info;
  memset(&info, 0, sizeof info);
  agpu_cl_fill_info(api, id, extensions, &info);
  agpu_cl_device *device = agpu_cl_open_device(backend, api, platform, id, info.name, extensions);
  free(extensions);
  if (!device) return AGPU_SUCCESS; /* skipped, with a note in the reason */
  if (!agpu_backend_add_device(backend, &info, device)) {
    agpu_cl_release_device_native(device);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
  }
  return AGPU_SUCCESS;
}

static agpu_status agpu_cl_enumerate_platform(agpu_backend *backend, const agpu_cl_api *api,
                                              cl_platform_id platform) {
  cl_uint count = 0;
  cl_int error = api->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &count);
  if (error == CL_DEVICE_NOT_FOUND || (error == CL_SUCCESS && count == 0)) return AGPU_SUCCESS;
  if (error != CL_SUCCESS) {
    char note[256];
    snprintf(note, sizeof note, "a platform's clGetDeviceIDs failed: %s (%d)",
             agpu_cl_error_name(error), (int)error);
    agpu_cl_note(backend, note);
    return AGPU_SUCCESS;
  }
  cl_device_id *ids = calloc(count, sizeof *ids);
  if (!ids) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
  error = api->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids, NULL);
  agpu_status status = error == CL_SUCCESS ? AGPU_SUCCESS : agpu_cl_fail("clGetDeviceIDs", error);
  for (cl_uint i = 0; i < count && status == AGPU_SUCCESS; i++)
    status = agpu_cl_add_device(backend, api, platform, ids[i]);
  free(ids);
  return status;
}

static void agpu_cl_explain_no_platform(agpu_backend *backend) {
  const char *vendors = getenv("OCL_ICD_VENDORS");
  const char *filenames = getenv("OCL_ICD_FILENAMES"); /* the Khronos loader's variable */
  if (filenames && !filenames[0]) filenames = NULL;
  snprintf(backend->reason, sizeof backend->reason,
           "no OpenCL platform: the ICD loader found no vendor ICD in %s (OCL_ICD_VENDORS=%s%s%s)",
           vendors && vendors[0] ? vendors : "/etc/OpenCL/vendors", vendors ? vendors : "unset",
           filenames ? ", OCL_ICD_FILENAMES=" : "", filenames ? filenames : "");
}

agpu_status agpu_cl_enumerate(agpu_backend *backend, const agpu_cl_api *api) {
  cl_uint count = 0;
  cl_int error = api->clGetPlatformIDs(0, NULL, &count);
  if (error == CL_PLATFORM_NOT_FOUND_KHR || (error == CL_SUCCESS && count == 0)) {
    agpu_cl_explain_no_platform(backend);
    return AGPU_SUCCESS;
  }
  if (error != CL_SUCCESS) return agpu_cl_fail("clGetPlatformIDs", error);
  cl_platform_id *platforms = calloc(count, sizeof *platforms);
  if (!platforms)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
  error = api->clGetPlatformIDs(count, platforms, NULL);
  agpu_status status = error == CL_SUCCESS ? AGPU_SUCCESS : agpu_cl_fail("clGetPlatformIDs", error);
  for (cl_uint i = 0; i < count && status == AGPU_SUCCESS; i++)
    status = agpu_cl_enumerate_platform(backend, api, platforms[i]);
  free(platforms);
  if (status == AGPU_SUCCESS && backend->device_count == 0 && !backend->reason[0])
    snprintf(backend->reason, sizeof backend->reason,
             "%u OpenCL platform%s, but no device on any of them", count, count == 1 ? "" : "s");
  return status;
}

uint32_t agpu_cl_device_caps(agpu_device *device) {
  /* split in agpu_cl_launch, which native kernels see as two enqueues */
  uint32_t caps = AGPU_CAP_MAP | AGPU_CAP_NONUNIFORM_GROUPS | AGPU_CAP_NONUNIFORM_NATIVE;
  if (agpu_cl_device_of(device)->compiler_available) caps |= AGPU_CAP_BUILD_PORTABLE;
  return caps;
}

agpu_status agpu_cl_device_memory(agpu_device *device, agpu_memory_info *info) {
  const agpu_cl_device *native = agpu_cl_device_of(device);
  info->total_bytes = device->info.global_mem_bytes;
  info->free_known = false;
  if (native->has_amd_free_memory) {
    size_t free_kib[2] = {0, 0}; /* total free, largest free block; in KiB */
    if (native->api->clGetDeviceInfo(native->id, CL_DEVICE_GLOBAL_FREE_MEMORY_AMD, sizeof free_kib,
                                     free_kib, NULL) == CL_SUCCESS) {
      info->free_bytes = (uint64_t)free_kib[0] * 1024u;
      info->free_known = true;
    }
  }
  return AGPU_SUCCESS;
}
