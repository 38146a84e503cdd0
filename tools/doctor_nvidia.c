// SPDX-License-Identifier: Apache-2.0
/* NVIDIA: libcuda (which file, which version, what cuInit says), the kernel
 * module's version against libcuda's (a mismatch is CUDA error 803), the
 * device nodes, and CUDA_VISIBLE_DEVICES. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_driver_get_version_fn)(int *version);
typedef int (*cu_device_get_count_fn)(int *count);
typedef int (*cu_get_error_name_fn)(int result, const char **name);

/* The CUresult values a doctor meets; cuGetErrorName covers the rest where
 * the library has it. */
static const struct {
  int code;
  const char *name;
} cuda_results[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

static const char *cuda_result_name(int code) {
  for (size_t i = 0; i < sizeof cuda_results / sizeof cuda_results[0]; i++)
    if (cuda_results[i].code == code) return cuda_results[i].name;
  return "CUDA_ERROR_?";
}

static const char *cuda_result_hint(int code) {
  switch (code) {
    case 34:
      return "the toolkit's build-time stub was loaded instead of the driver";
    case 35:
      return "the driver is older than this CUDA version needs";
    case 100:
      return "the driver sees no device (or CUDA_VISIBLE_DEVICES hides them all)";
    case 803:
      return "the kernel module and libcuda come from different driver releases";
    case 999:
      return "often /dev/nvidia-uvm is missing (nvidia_uvm not loaded) or the GPU fell off the bus";
    case 304:
      return "a device node cannot be opened";
    default:
      return "";
  }
}

static void probe_libcuda(doctor_context *context, doctor_probe *probe) {
  static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
  void *library = NULL;
  char error[512];
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) {
    library = doctor_dlopen(names[i], error, sizeof error);
    if (library) doctor_format(probe->library, sizeof probe->library, "%s", names[i]);
  }
  if (!library) return;
  probe->loaded = true;
  doctor_library_path(library, probe->path, sizeof probe->path);
  doctor_version_from_path(probe->path, "libcuda.so", probe->version, sizeof probe->version);
  cu_init_fn init = (cu_init_fn)dlsym(library, "cuInit");
  cu_get_error_name_fn error_name = (cu_get_error_name_fn)dlsym(library, "cuGetErrorName");
  if (!init) return;
  doctor_format(probe->init_call, sizeof probe->init_call, "cuInit(0)");
  probe->init_called = true;
  probe->init_result = init(0);
  const char *name = NULL;
  if (error_name && probe->init_result != 34 && error_name(probe->init_result, &name) != 0)
    name = NULL;
  doctor_format(probe->init_result_name, sizeof probe->init_result_name, "%s",
                name ? name : cuda_result_name(probe->init_result));
  if (probe->init_result != 0) return;
  cu_device_get_count_fn get_count = (cu_device_get_count_fn)dlsym(library, "cuDeviceGetCount");
  int count = 0;
  if (get_count && get_count(&count) == 0) {
    probe->count_known = true;
    probe->device_count = (uint32_t)count;
  }
  cu_driver_get_version_fn get_version =
      (cu_driver_get_version_fn)dlsym(library, "cuDriverGetVersion");
  int api = 0;
  if (!probe->version[0] && get_version && get_version(&api) == 0)
    doctor_format(probe->version, sizeof probe->version, "CUDA %d.%d", api / 1000, api % 1000 / 10);
  /* Kept open: unloading a driver library that has initialised is unsafe. */
}

static bool has_vendor_gpu(const doctor_context *context, uint32_t vendor) {
  for (uint32_t i = 0; i < context->pci_count; i++)
    if (context->pci[i].vendor_id == vendor) return true;
  return false;
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb ..."
 * -> "550.54.14": the first word made of digits and dots with a dot. */
static bool kernel_module_version(const char *text, char *out, size_t capacity) {
  const char *line_end = strchr(text, '\n');
  size_t length = line_end ? (size_t)(line_end - text) : strlen(text);
  for (size_t i = 0; i < length; i++) {
    if (!isdigit((unsigned char)text[i]) || (i > 0 && !isspace((unsigned char)text[i - 1])))
      continue;
    size_t j = i;
    bool dot = false;
    while (j < length && (isdigit((unsigned char)text[j]) || text[j] == '.'))
      dot |= text[j++] == '.';
    if (dot && (j == length || isspace((unsigned char)text[j]))) {
      doctor_format(out, capacity, "%.*s", (int)(j - i), text + i);
      return true;
    }
    i = j;
  }
  return false;
}

/* The LD_LIBRARY_PATH entry that holds the library at `path`, if any. */
static bool path_entry_holding(const char *path, const char *file, char *out, size_t capacity) {
  const char *list = doctor_getenv("LD_LIBRARY_PATH");
  if (!list) return false;
  for (const char *entry = list; *entry;) {
    size_t length = strcspn(entry, ":");
    char candidate[DOCTOR_PATH_CAPACITY];
    doctor_format(candidate, sizeof candidate, "%.*s/%s", (int)length, entry, file);
    char *resolved = realpath(candidate, NULL);
    bool same = resolved && strcmp(resolved, path) == 0;
    free(resolved);
    if (same) {
      doctor_format(out, capacity, "%.*s", (int)length, entry);
      return true;
    }
    entry += length;
    if (*entry == ':') entry++;
  }
  return false;
}

static void check_stub(doctor_context *context, const doctor_probe *probe) {
  doctor_finding *finding = doctor_add(
      context, DOCTOR_ERROR, "cuda.stub_library",
      "%s resolved to %s, the CUDA toolkit's build-time stub: a build-time stub was found at "
      "run time, and every CUDA call fails with CUDA_ERROR_STUB_LIBRARY",
      probe->library, probe->path[0] ? probe->path : probe->library);
  doctor_evidence(context, finding, "dlopen(\"%s\") -> %s", probe->library, probe->path);
  if (probe->init_called)
    doctor_evidence(context, finding, "%s = %d %s", probe->init_call, probe->init_result,
                    probe->init_result_name);
  const char *path = doctor_getenv("LD_LIBRARY_PATH");
  if (path) doctor_evidence(context, finding, "environment: LD_LIBRARY_PATH=%s", path);
  char entry[DOCTOR_PATH_CAPACITY];
  const char *base = strrchr(probe->path, '/');
  if (base && path_entry_holding(probe->path, base + 1, entry, sizeof entry))
    doctor_fix(context, finding, "Remove %s from LD_LIBRARY_PATH: the stub is for linking only.",
               entry);
  else
    doctor_fix(context, finding,
               "Take the stub's directory out of the library search path (LD_LIBRARY_PATH, "
               "/etc/ld.so.conf.d): the stub is for linking only.");
  doctor_fix(context, finding,
             "At run time libcuda.so.1 comes from the NVIDIA driver; install it on machines with "
             "an NVIDIA GPU.");
}

static void check_library(doctor_context *context, const doctor_backend *cuda) {
  const doctor_probe *probe = &cuda->probe;
  bool gpu = has_vendor_gpu(context, DOCTOR_VENDOR_NVIDIA);
  if (!probe->loaded) {
    if (gpu) return; /* the PCI finding says it, with the GPU's address */
    doctor_finding *finding =
        doctor_add(context, DOCTOR_INFO, "cuda.no_driver",
                   "CUDA is unavailable: libcuda.so.1 was not found because no NVIDIA driver is "
                   "installed, and no NVIDIA GPU is on the bus");
    for (uint32_t i = 0; i < cuda->attempt_count; i++)
      doctor_evidence(context, finding, "dlopen(\"%s\"): %s", cuda->attempt_names[i],
                      cuda->attempt_errors[i][0] ? cuda->attempt_errors[i] : "loaded");
    doctor_fix(context, finding, "Nothing to do without an NVIDIA GPU.");
    return;
  }
  if (probe->init_result == 34 || strstr(probe->path, "/stubs/")) {
    check_stub(context, probe);
    return;
  }
  doctor_finding *finding;
  if (!probe->init_called) {
    finding = doctor_add(context, DOCTOR_ERROR, "cuda.init_failed",
                         "%s (%s) has no cuInit: it is not the CUDA driver library", probe->library,
                         probe->path);
    doctor_evidence(context, finding, "dlsym(\"cuInit\"): not found");
    doctor_fix(context, finding,
               "Reinstall the NVIDIA driver, or remove the file that shadows "
               "its libcuda.so.1.");
    return;
  }
  if (probe->init_result != 0) {
    finding = doctor_add(context, DOCTOR_ERROR, "cuda.init_failed", "%s failed: %d %s%s%s",
                         probe->init_call, probe->init_result, probe->init_result_name,
                         cuda_result_hint(probe->init_result)[0] ? ": " : "",
                         cuda_result_hint(probe->init_result));
    doctor_evidence(context, finding, "dlopen(\"%s\") -> %s", probe->library, probe->path);
    doctor_fix(context, finding,
               "See the other nvidia findings; dmesg shows the driver's NVRM "
               "messages.");
    return;
  }
  finding = doctor_add(context, DOCTOR_OK, "cuda.driver", "libcuda %s loads; %s succeeds%s",
                       probe->version[0] ? probe->version : "", probe->init_call,
                       probe->count_known && probe->device_count == 0 ? " but sees no device" : "");
  doctor_evidence(context, finding, "dlopen(\"%s\") -> %s", probe->library, probe->path);
  if (probe->count_known)
    doctor_evidence(context, finding, "cuDeviceGetCount: %u", probe->device_count);
  if (!cuda->info.available)
    doctor_evidence(context, finding, "anygpu's cuda backend: %s", cuda->info.reason);
}

static void check_kernel_module(doctor_context *context, const doctor_probe *probe) {
  char text[1024], errno_text[128], module[64];
  bool gpu = has_vendor_gpu(context, DOCTOR_VENDOR_NVIDIA);
  bool real_library = probe->loaded && !strstr(probe->path, "/stubs/") && probe->init_result != 34;
  if (!doctor_read_system_file(context, "/proc/driver/nvidia/version", text, sizeof text)) {
    int error = errno;
    if (!gpu && !real_library) return;
    if (!probe->loaded) return; /* no driver at all: the PCI finding says so */
    doctor_finding *finding = doctor_add(context, DOCTOR_ERROR, "nvidia.kernel_module",
                                         "The NVIDIA kernel module is not loaded");
    doctor_evidence(context, finding, "open(%s/proc/driver/nvidia/version): %s", context->sysroot,
                    doctor_errno_text(error, errno_text, sizeof errno_text));
    doctor_fix(context, finding,
               "Load it (sudo modprobe nvidia) or reboot after installing the driver; with "
               "Secure Boot the module must be signed; dmesg shows why it did not load.");
    return;
  }
  if (!kernel_module_version(text, module, sizeof module)) return;
  if (probe->loaded && probe->version[0] && isdigit((unsigned char)probe->version[0]) &&
      strcmp(probe->version, module) != 0) {
    doctor_finding *finding = doctor_add(
        context, DOCTOR_ERROR, "nvidia.version_mismatch",
        "The NVIDIA kernel module is version %s but libcuda is %s: CUDA fails with error 803 "
        "(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)",
        module, probe->version);
    doctor_evidence(context, finding, "%s/proc/driver/nvidia/version: %s", context->sysroot, text);
    doctor_evidence(context, finding, "dlopen(\"%s\") -> %s", probe->library, probe->path);
    if (probe->init_called)
      doctor_evidence(context, finding, "%s = %d %s", probe->init_call, probe->init_result,
                      probe->init_result_name);
    doctor_fix(context, finding,
               "Reboot if the driver was just updated (the old module is still loaded); "
               "otherwise reinstall one driver release so that the module and the libraries "
               "match.");
    return;
  }
  doctor_finding *finding =
      doctor_add(context, DOCTOR_OK, "nvidia.kernel_module", "NVIDIA kernel module %s is loaded%s",
                 module, probe->version[0] ? " and matches libcuda" : "");
  doctor_evidence(context, finding, "%s/proc/driver/nvidia/version: %s", context->sysroot, text);
}

static void check_device_nodes(doctor_context *context) {
  char text[64];
  bool gpu = has_vendor_gpu(context, DOCTOR_VENDOR_NVIDIA);
  bool module = doctor_read_system_file(context, "/proc/driver/nvidia/version", text, sizeof text);
  if (!gpu && !module) return;
  doctor_check_device_node(context, "/dev/nvidiactl", "nvidia.device_nodes",
                           "the NVIDIA driver's control node; CUDA needs it");
  doctor_check_device_node(context, "/dev/nvidia-uvm", "nvidia.device_nodes",
                           "unified memory; without it cuInit returns 999 CUDA_ERROR_UNKNOWN "
                           "(sudo modprobe nvidia-uvm, or nvidia-modprobe -u -c=0)");
  char path[DOCTOR_PATH_CAPACITY];
  doctor_path(context, "/dev", path, sizeof path);
  DIR *directory = opendir(path);
  if (!directory) return;
  struct dirent *entry;
  bool any = false;
  while ((entry = readdir(directory))) {
    if (strncmp(entry->d_name, "nvidia", 6) != 0 || !isdigit((unsigned char)entry->d_name[6]))
      continue;
    char node[300];
    doctor_format(node, sizeof node, "/dev/%s", entry->d_name);
    doctor_check_device_node(context, node, "nvidia.device_nodes", "one GPU's device node");
    any = true;
  }
  closedir(directory);
  if (!any)
    doctor_check_device_node(context, "/dev/nvidia0", "nvidia.device_nodes",
                             "the first GPU's device node");
}

void doctor_check_nvidia(doctor_context *context) {
  doctor_backend *cuda = NULL;
  for (uint32_t i = 0; i < context->backend_count; i++)
    if (strcmp(context->backends[i].info.name, "cuda") == 0) cuda = &context->backends[i];
  if (!cuda) return;
  probe_libcuda(context, &cuda->probe);
  check_library(context, cuda);
  check_kernel_module(context, &cuda->probe);
  check_device_nodes(context);
  doctor_check_visible_devices(context, "CUDA_VISIBLE_DEVICES", "CUDA", "cuda.visible_devices");
}
