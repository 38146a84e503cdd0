// SPDX-License-Identifier: Apache-2.0
/* AMD: libamdhip64 and hipInit, the amdgpu module, /dev/kfd access, the GPU
 * targets in the KFD topology, and the variables ROCm reads. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor.h"

#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"

typedef int (*hip_init_fn)(unsigned flags);
typedef int (*hip_get_device_count_fn)(int *count);
typedef const char *(*hip_get_error_name_fn)(int error);
typedef int (*hip_driver_get_version_fn)(int *version);

static void probe_hip(doctor_backend *hip) {
  static const char *const names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
                                      "/opt/rocm/lib/libamdhip64.so"};
  doctor_probe *probe = &hip->probe;
  void *library = NULL;
  char error[512];
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) {
    library = doctor_dlopen(names[i], error, sizeof error);
    if (library) doctor_format(probe->library, sizeof probe->library, "%s", names[i]);
  }
  if (!library) return;
  probe->loaded = true;
  doctor_library_path(library, probe->path, sizeof probe->path);
  doctor_version_from_path(probe->path, "libamdhip64.so", probe->version, sizeof probe->version);
  hip_init_fn init = (hip_init_fn)dlsym(library, "hipInit");
  hip_get_device_count_fn get_count = (hip_get_device_count_fn)dlsym(library, "hipGetDeviceCount");
  hip_get_error_name_fn error_name = (hip_get_error_name_fn)dlsym(library, "hipGetErrorName");
  if (!init) return;
  doctor_format(probe->init_call, sizeof probe->init_call, "hipInit(0)");
  probe->init_called = true;
  probe->init_result = init(0);
  int count = 0;
  /* As the backend does: with no GPU, ROCm 5.2's hipInit returns
   * hipErrorInvalidDevice and hipGetDeviceCount hipErrorNoDevice, which says
   * what is wrong. */
  int count_result = get_count ? get_count(&count) : -1;
  if (get_count && (probe->init_result == 0 || count_result == 100)) {
    doctor_format(probe->init_call, sizeof probe->init_call, "hipGetDeviceCount");
    probe->init_result = count_result;
    if (probe->init_result == 0) {
      probe->count_known = true;
      probe->device_count = (uint32_t)count;
    }
  }
  const char *name = error_name ? error_name(probe->init_result) : NULL;
  doctor_format(probe->init_result_name, sizeof probe->init_result_name, "%s",
                name ? name : (probe->init_result == 100 ? "hipErrorNoDevice" : "hipError?"));
  /* Kept open: unloading an initialised runtime is unsafe. */
}

static bool has_amd_gpu(const doctor_context *context) {
  for (uint32_t i = 0; i < context->pci_count; i++)
    if (context->pci[i].vendor_id == DOCTOR_VENDOR_AMD) return true;
  return false;
}

static void check_hip_library(doctor_context *context, const doctor_backend *hip, bool gpu) {
  const doctor_probe *probe = &hip->probe;
  doctor_finding *finding;
  if (!probe->loaded) {
    if (gpu) return; /* the PCI finding says it, with the GPU's address */
    finding = doctor_add(context, DOCTOR_INFO, "hip.no_driver",
                         "HIP is unavailable: libamdhip64 was not found because ROCm is not "
                         "installed, and no AMD GPU is on the bus");
    for (uint32_t i = 0; i < hip->attempt_count; i++)
      doctor_evidence(context, finding, "dlopen(\"%s\"): %s", hip->attempt_names[i],
                      hip->attempt_errors[i][0] ? hip->attempt_errors[i] : "loaded");
    doctor_fix(context, finding, "Nothing to do without an AMD GPU.");
    return;
  }
  if (!probe->init_called) {
    finding =
        doctor_add(context, DOCTOR_ERROR, "hip.init_failed",
                   "%s (%s) has no hipInit: it is not a HIP runtime", probe->library, probe->path);
    doctor_fix(context, finding, "Reinstall ROCm's HIP runtime (libamdhip64).");
    return;
  }
  bool failed = probe->init_result != 0;
  char kfd[DOCTOR_PATH_CAPACITY], text[128];
  struct stat status;
  doctor_path(context, "/dev/kfd", kfd, sizeof kfd);
  int kfd_error = stat(kfd, &status) == 0 ? 0 : errno;
  if (failed && !gpu && kfd_error) {
    /* The usual case on a machine without an AMD GPU: ROCm's runtime is
     * installed (e.g. for hiprtc) but there is nothing for it to drive. */
    finding = doctor_add(
        context, DOCTOR_INFO, "hip.no_gpu",
        "HIP is unavailable: the HIP runtime (%s, version %s) is installed, but there is no "
        "AMD GPU: none on the PCI bus and no amdgpu kernel driver (/dev/kfd is "
        "absent), so %s fails",
        probe->library, probe->version[0] ? probe->version : "?", probe->init_call);
    doctor_evidence(context, finding, "dlopen(\"%s\") -> %s", probe->library, probe->path);
    doctor_evidence(context, finding, "%s = %d %s", probe->init_call, probe->init_result,
                    probe->init_result_name);
    doctor_evidence(context, finding, "stat(%s): %s", kfd,
                    doctor_errno_text(kfd_error, text, sizeof text));
    if (hip->info.reason && hip->info.reason[0])
      doctor_evidence(context, finding, "anygpu's HIP backend: %s", hip->info.reason);
    doctor_fix(context, finding,
               "Nothing to do without an AMD GPU (HIP needs one, driven by the amdgpu kernel "
               "module, which creates /dev/kfd).");
    return;
  }
  finding = doctor_add(context, failed ? (gpu ? DOCTOR_ERROR : DOCTOR_INFO) : DOCTOR_OK,
                       failed ? "hip.init_failed" : "hip.driver", "%s %s: %s%s", probe->library,
                       failed ? "loads, but" : "loads and", probe->init_call,
                       failed ? " failed" : " succeeds");
  doctor_evidence(context, finding, "dlopen(\"%s\") -> %s", probe->library, probe->path);
  doctor_evidence(context, finding, "%s = %d %s", probe->init_call, probe->init_result,
                  probe->init_result_name);
  if (probe->count_known)
    doctor_evidence(context, finding, "hipGetDeviceCount: %u", probe->device_count);
  if (failed && gpu)
    doctor_fix(context, finding, "Check /dev/kfd access and the amdgpu module (findings below).");
  else if (failed)
    doctor_fix(context, finding, "Nothing to do without an AMD GPU.");
}

static void check_module(doctor_context *context) {
  char state[64], text[128];
  if (doctor_read_system_file(context, "/sys/module/amdgpu/initstate", state, sizeof state)) {
    doctor_finding *finding = doctor_add(
        context, strcmp(state, "live") == 0 ? DOCTOR_OK : DOCTOR_ERROR, "amd.kernel_module",
        "The amdgpu kernel module is %s", strcmp(state, "live") == 0 ? "loaded" : state);
    doctor_evidence(context, finding, "%s/sys/module/amdgpu/initstate: %s", context->sysroot,
                    state);
    return;
  }
  int error = errno;
  doctor_finding *finding = doctor_add(context, DOCTOR_ERROR, "amd.kernel_module",
                                       "The amdgpu kernel module is not loaded");
  doctor_evidence(context, finding, "open(%s/sys/module/amdgpu/initstate): %s", context->sysroot,
                  doctor_errno_text(error, text, sizeof text));
  doctor_fix(context, finding,
             "Load it (sudo modprobe amdgpu); dmesg shows why it failed (missing firmware: "
             "install firmware-amd-graphics).");
}

/* gfx_target_version 90010 -> "gfx90a", 110000 -> "gfx1100". */
static void gfx_target_name(unsigned long version, char *out, size_t capacity) {
  doctor_format(out, capacity, "gfx%lu%lu%lx", version / 10000, version / 100 % 100, version % 100);
}

static void check_topology(doctor_context *context) {
  char root[DOCTOR_PATH_CAPACITY];
  doctor_path(context, KFD_NODES, root, sizeof root);
  DIR *directory = opendir(root);
  if (!directory) return;
  const char *override = doctor_getenv("HSA_OVERRIDE_GFX_VERSION");
  struct dirent *entry;
  while ((entry = readdir(directory))) {
    if (!isdigit((unsigned char)entry->d_name[0])) continue;
    char path[DOCTOR_PATH_CAPACITY + 300], properties[8192];
    doctor_format(path, sizeof path, "%s/%s/properties", root, entry->d_name);
    if (!doctor_read_file(path, properties, sizeof properties)) continue;
    const char *key = strstr(properties, "gfx_target_version ");
    unsigned long version = key ? strtoul(key + strlen("gfx_target_version "), NULL, 10) : 0;
    if (version == 0) continue; /* a CPU node */
    char target[32];
    gfx_target_name(version, target, sizeof target);
    doctor_finding *finding =
        doctor_add(context, DOCTOR_INFO, "amd.gfx_target", "KFD node %s is a %s GPU%s%s%s",
                   entry->d_name, target, override ? "; HSA_OVERRIDE_GFX_VERSION=" : "",
                   override ? override : "", override ? " makes ROCm treat it as that target" : "");
    doctor_evidence(context, finding, "%s: gfx_target_version %lu", path, version);
  }
  closedir(directory);
}

static void check_override(doctor_context *context) {
  const char *override = doctor_getenv("HSA_OVERRIDE_GFX_VERSION");
  if (!override) return;
  unsigned major, minor, step;
  char extra;
  bool valid = sscanf(override, "%u.%u.%u%c", &major, &minor, &step, &extra) == 3;
  doctor_finding *finding = doctor_add(
      context, DOCTOR_WARNING, "amd.gfx_override",
      valid ? "HSA_OVERRIDE_GFX_VERSION=%s makes ROCm run every GPU as another target: kernels "
              "built for it may fault or compute wrong results on a GPU that differs"
            : "HSA_OVERRIDE_GFX_VERSION=%s is not MAJOR.MINOR.STEPPING (e.g. 10.3.0)",
      override);
  doctor_evidence(context, finding, "environment: HSA_OVERRIDE_GFX_VERSION=%s", override);
  doctor_fix(context, finding,
             "Unset it unless the GPU is known to work as that target (e.g. 10.3.0 for RDNA2 "
             "cards ROCm does not list).");
}

void doctor_check_amd(doctor_context *context) {
  doctor_backend *hip = NULL;
  for (uint32_t i = 0; i < context->backend_count; i++)
    if (strcmp(context->backends[i].info.name, "hip") == 0) hip = &context->backends[i];
  if (!hip) return;
  probe_hip(hip);
  bool gpu = has_amd_gpu(context);
  check_hip_library(context, hip, gpu);
  if (gpu) check_module(context);
  char kfd[DOCTOR_PATH_CAPACITY];
  struct stat status;
  doctor_path(context, "/dev/kfd", kfd, sizeof kfd);
  if (gpu || stat(kfd, &status) == 0)
    doctor_check_device_node(context, "/dev/kfd", "amd.kfd",
                             "ROCm's compute interface; HIP and ROCm OpenCL need it");
  check_topology(context);
  check_override(context);
  doctor_check_visible_devices(context, "ROCR_VISIBLE_DEVICES", "ROCm", "amd.visible_devices");
  doctor_check_visible_devices(context, "HIP_VISIBLE_DEVICES", "HIP", "amd.visible_devices");
}
