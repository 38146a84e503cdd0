// SPDX-License-Identifier: Apache-2.0
/* The PCI bus: every display and 3D controller (class 0x03xxxx) under
 * /sys/bus/pci/devices, each matched to the physical device that exposes
 * it. A GPU on the bus that no API exposes is the key finding. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"

#define PCI_DEVICES "/sys/bus/pci/devices"

const char *doctor_vendor_name(uint32_t vendor_id, char *out, size_t capacity) {
  switch (vendor_id) {
    case DOCTOR_VENDOR_NVIDIA:
      return "NVIDIA";
    case DOCTOR_VENDOR_AMD:
      return "AMD";
    case DOCTOR_VENDOR_INTEL:
      return "Intel";
    case 0x1a03:
      return "ASPEED";
    case 0x102b:
      return "Matrox";
    case 0x1af4:
      return "virtio";
    case 0x1b36:
      return "QEMU";
    case 0x1234:
      return "QEMU (Bochs)";
    case 0x15ad:
      return "VMware";
    case 0x1013:
      return "Cirrus Logic";
    default:
      doctor_format(out, capacity, "vendor 0x%04x", vendor_id);
      return out;
  }
}

/* BMC and virtual display adapters have no compute API. */
static bool is_display_only_vendor(uint32_t vendor_id) {
  static const uint32_t vendors[] = {0x1a03, 0x102b, 0x1af4, 0x1b36, 0x1234, 0x15ad, 0x1013};
  for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
    if (vendors[i] == vendor_id) return true;
  return false;
}

int doctor_physical_at(const doctor_context *context, const char *pci) {
  for (uint32_t i = 0; i < context->physical_count; i++)
    if (context->physical[i].has_pci && strcmp(context->physical[i].pci, pci) == 0) return (int)i;
  return -1;
}

/* Without an address from any API, a GPU group of the same vendor and device
 * id is taken as this card when it is the only candidate. */
static int physical_by_ids(const doctor_context *context, const doctor_pci_device *gpu) {
  int found = -1;
  for (uint32_t i = 0; i < context->physical_count; i++) {
    const agpu_physical_device_info *group = &context->physical[i];
    if (group->has_pci || group->type == AGPU_DEVICE_TYPE_CPU) continue;
    if (group->vendor_id != gpu->vendor_id) continue;
    if (group->device_id && group->device_id != gpu->device_id) continue;
    if (found >= 0) return -1;
    found = (int)i;
  }
  return found;
}

static void read_driver(const char *device_path, char *out, size_t capacity) {
  char link[DOCTOR_PATH_CAPACITY], target[DOCTOR_PATH_CAPACITY];
  out[0] = '\0';
  doctor_format(link, sizeof link, "%s/driver", device_path);
  ssize_t length = readlink(link, target, sizeof target - 1);
  if (length <= 0) return;
  target[length] = '\0';
  const char *base = strrchr(target, '/');
  doctor_format(out, capacity, "%s", base ? base + 1 : target);
}

static doctor_gpu_kind guess_kind(const doctor_context *context, const doctor_pci_device *gpu) {
  if (gpu->physical >= 0) {
    agpu_device_type type = context->physical[gpu->physical].type;
    if (type == AGPU_DEVICE_TYPE_DISCRETE_GPU) return DOCTOR_GPU_DISCRETE;
    if (type == AGPU_DEVICE_TYPE_INTEGRATED_GPU) return DOCTOR_GPU_INTEGRATED;
  }
  /* Intel's integrated GPUs sit on the root bus (00:02.0); NVIDIA's PCI
   * GPUs are discrete. Others are unknown until an API says. */
  if (gpu->vendor_id == DOCTOR_VENDOR_INTEL)
    return strncmp(gpu->address + 5, "00:", 3) == 0 ? DOCTOR_GPU_INTEGRATED : DOCTOR_GPU_DISCRETE;
  if (gpu->vendor_id == DOCTOR_VENDOR_NVIDIA) return DOCTOR_GPU_DISCRETE;
  return DOCTOR_GPU_UNKNOWN;
}

static int compare_addresses(const void *a, const void *b) {
  return strcmp(((const doctor_pci_device *)a)->address, ((const doctor_pci_device *)b)->address);
}

void doctor_scan_pci(doctor_context *context) {
  char root[DOCTOR_PATH_CAPACITY];
  doctor_path(context, PCI_DEVICES, root, sizeof root);
  DIR *directory = opendir(root);
  if (!directory) {
    char text[128];
    doctor_format(context->pci_error, sizeof context->pci_error, "opendir(%s): %s", root,
                  doctor_errno_text(errno, text, sizeof text));
    return;
  }
  context->pci_readable = true;
  struct dirent *entry;
  while ((entry = readdir(directory)) && context->pci_count < DOCTOR_MAX_PCI_DEVICES) {
    if (entry->d_name[0] == '.') continue;
    char device_path[DOCTOR_PATH_CAPACITY], file[DOCTOR_PATH_CAPACITY + 16];
    doctor_format(device_path, sizeof device_path, "%s/%s", root, entry->d_name);
    uint32_t class_code = 0;
    doctor_format(file, sizeof file, "%s/class", device_path);
    if (!doctor_read_hex(file, &class_code) || (class_code >> 16) != 0x03) continue;
    doctor_pci_device *gpu = &context->pci[context->pci_count++];
    memset(gpu, 0, sizeof *gpu);
    doctor_format(gpu->address, sizeof gpu->address, "%.15s", entry->d_name);
    gpu->class_code = class_code;
    doctor_format(file, sizeof file, "%s/vendor", device_path);
    doctor_read_hex(file, &gpu->vendor_id);
    doctor_format(file, sizeof file, "%s/device", device_path);
    doctor_read_hex(file, &gpu->device_id);
    uint32_t boot_vga = 0;
    doctor_format(file, sizeof file, "%s/boot_vga", device_path);
    gpu->boot_vga = doctor_read_hex(file, &boot_vga) && boot_vga == 1;
    read_driver(device_path, gpu->driver, sizeof gpu->driver);
    gpu->display_only = is_display_only_vendor(gpu->vendor_id);
    gpu->physical = doctor_physical_at(context, gpu->address);
    if (gpu->physical < 0 && !gpu->display_only) {
      gpu->physical = physical_by_ids(context, gpu);
      gpu->physical_guessed = gpu->physical >= 0;
    }
    gpu->kind = guess_kind(context, gpu);
  }
  closedir(directory);
  qsort(context->pci, context->pci_count, sizeof context->pci[0], compare_addresses);
}

static void add_pci_evidence(doctor_context *context, doctor_finding *finding,
                             const doctor_pci_device *gpu) {
  doctor_evidence(context, finding,
                  "%s%s/%s: class 0x%06x, vendor 0x%04x, device 0x%04x, driver %s",
                  context->sysroot, PCI_DEVICES, gpu->address, gpu->class_code, gpu->vendor_id,
                  gpu->device_id, gpu->driver[0] ? gpu->driver : "none bound");
}

static void add_attempts_evidence(doctor_context *context, doctor_finding *finding,
                                  const doctor_backend *backend) {
  if (!backend) return;
  for (uint32_t i = 0; i < backend->attempt_count; i++)
    doctor_evidence(context, finding, "dlopen(\"%s\"): %s", backend->attempt_names[i],
                    backend->attempt_errors[i][0] ? backend->attempt_errors[i] : "loaded");
}

static void explain_nvidia(doctor_context *context, const doctor_pci_device *gpu) {
  const doctor_backend *cuda = doctor_backend_named(context, "cuda");
  const doctor_probe *probe = cuda ? &cuda->probe : NULL;
  doctor_finding *finding;
  if (!probe || !probe->loaded) {
    finding = doctor_add(context, DOCTOR_ERROR, "pci.gpu_not_exposed",
                         "NVIDIA GPU at %s, but libcuda.so.1 was not found: the NVIDIA driver is "
                         "not installed",
                         gpu->address);
    add_pci_evidence(context, finding, gpu);
    add_attempts_evidence(context, finding, cuda);
    doctor_fix(context, finding,
               "Install the NVIDIA driver (Debian: apt install nvidia-driver; Ubuntu: "
               "ubuntu-drivers install; or the cuda-drivers package from NVIDIA's repository), "
               "then reboot so that the kernel module loads.");
    if (strcmp(gpu->driver, "nouveau") == 0)
      doctor_fix(context, finding,
                 "The card is bound to nouveau, the open-source driver, which has no CUDA: the "
                 "NVIDIA driver replaces it.");
    if (strcmp(gpu->driver, "vfio-pci") == 0)
      doctor_fix(context, finding,
                 "The card is bound to vfio-pci: it is reserved for a virtual machine.");
    return;
  }
  if (strstr(probe->path, "/stubs/") || probe->init_result == 34) {
    finding = doctor_add(context, DOCTOR_ERROR, "pci.gpu_not_exposed",
                         "NVIDIA GPU at %s, but the libcuda found (%s) is the CUDA toolkit's "
                         "build-time stub, not the driver",
                         gpu->address, probe->path[0] ? probe->path : probe->library);
    add_pci_evidence(context, finding, gpu);
    doctor_fix(context, finding,
               "Take the toolkit's stubs directory out of LD_LIBRARY_PATH and install the NVIDIA "
               "driver, which provides the real libcuda.so.1.");
    return;
  }
  if (probe->init_called && probe->init_result != 0) {
    finding = doctor_add(context, DOCTOR_ERROR, "pci.gpu_not_exposed",
                         "NVIDIA GPU at %s, but %s failed: %d %s", gpu->address, probe->init_call,
                         probe->init_result, probe->init_result_name);
    add_pci_evidence(context, finding, gpu);
    doctor_fix(context, finding, "See the nvidia findings below for the cause.");
    return;
  }
  finding = doctor_add(context, DOCTOR_WARNING, "pci.gpu_not_exposed",
                       "NVIDIA GPU at %s: the driver works (%s), but this build of anygpu has no "
                       "CUDA backend yet and no other API exposes the card",
                       gpu->address, probe->init_called ? probe->init_call : "libcuda loads");
  add_pci_evidence(context, finding, gpu);
  doctor_fix(context, finding,
             "Use a build of anygpu with the CUDA backend, or NVIDIA's OpenCL ICD "
             "(nvidia-opencl-icd).");
}

static void explain_amd(doctor_context *context, const doctor_pci_device *gpu) {
  const doctor_backend *hip = doctor_backend_named(context, "hip");
  bool hip_loaded = hip && hip->probe.loaded;
  doctor_finding *finding;
  if (gpu->driver[0] && strcmp(gpu->driver, "amdgpu") != 0) {
    finding = doctor_add(context, DOCTOR_ERROR, "pci.gpu_not_exposed",
                         "AMD GPU at %s is bound to %s, not amdgpu: ROCm and the compute drivers "
                         "need amdgpu",
                         gpu->address, gpu->driver);
    add_pci_evidence(context, finding, gpu);
    doctor_fix(context, finding,
               "Load amdgpu for this card (older cards need radeon.si_support=0 "
               "amdgpu.si_support=1, or radeon.cik_support=0 amdgpu.cik_support=1, on the kernel "
               "command line).");
    return;
  }
  if (!hip_loaded) {
    finding = doctor_add(context, DOCTOR_ERROR, "pci.gpu_not_exposed",
                         "AMD GPU at %s, but libamdhip64 was not found: ROCm (HIP) is not "
                         "installed, and no OpenCL ICD exposes the card",
                         gpu->address);
    add_pci_evidence(context, finding, gpu);
    add_attempts_evidence(context, finding, hip);
    doctor_fix(context, finding,
               "Install ROCm (Debian: apt install libamdhip64-5 rocm-opencl-icd; or AMD's "
               "repository), and check the amd findings for /dev/kfd access.");
    return;
  }
  finding = doctor_add(context, DOCTOR_WARNING, "pci.gpu_not_exposed",
                       "AMD GPU at %s: libamdhip64 loads (%s), but no API of this build of anygpu "
                       "exposes the card",
                       gpu->address, hip->probe.library);
  add_pci_evidence(context, finding, gpu);
  if (hip->info.reason && hip->info.reason[0])
    doctor_evidence(context, finding, "anygpu's HIP backend: %s", hip->info.reason);
  doctor_fix(context, finding,
             "See the amd findings (/dev/kfd access, the amdgpu module, ROCR_VISIBLE_DEVICES); an "
             "OpenCL ICD (rocm-opencl-icd) is another way to the card.");
}

static void explain_other(doctor_context *context, const doctor_pci_device *gpu) {
  char vendor_text[32];
  const char *vendor = doctor_vendor_name(gpu->vendor_id, vendor_text, sizeof vendor_text);
  doctor_finding *finding =
      doctor_add(context, DOCTOR_ERROR, "pci.gpu_not_exposed",
                 "%s GPU at %s is not exposed by any API", vendor, gpu->address);
  add_pci_evidence(context, finding, gpu);
  if (gpu->vendor_id == DOCTOR_VENDOR_INTEL)
    doctor_fix(context, finding,
               "Install Intel's OpenCL driver (Debian: apt install intel-opencl-icd) and Mesa's "
               "Vulkan driver (mesa-vulkan-drivers); check that i915 or xe is bound and that "
               "/dev/dri/renderD* is accessible.");
  else
    doctor_fix(context, finding, "Install the vendor's OpenCL or Vulkan driver for this card.");
}

void doctor_check_pci(doctor_context *context) {
  if (!context->pci_readable) {
    doctor_finding *finding =
        doctor_add(context, DOCTOR_WARNING, "pci.unreadable",
                   "Cannot read the PCI bus, so GPUs that no API exposes cannot be found");
    doctor_evidence(context, finding, "%s", context->pci_error);
    doctor_fix(context, finding, "Run where /sys is mounted (in a container, mount /sys).");
    return;
  }
  uint32_t compute_gpus = 0;
  for (uint32_t i = 0; i < context->pci_count; i++) compute_gpus += !context->pci[i].display_only;
  if (compute_gpus == 0) {
    doctor_finding *finding =
        doctor_add(context, DOCTOR_INFO, "pci.no_gpu",
                   "No GPU on the PCI bus: this machine can only use CPU devices");
    doctor_evidence(context, finding, "%s%s: no display or 3D controller (class 0x03xxxx)%s",
                    context->sysroot, PCI_DEVICES,
                    context->pci_count ? " other than display-only adapters" : "");
  }
  for (uint32_t i = 0; i < context->pci_count; i++) {
    const doctor_pci_device *gpu = &context->pci[i];
    char vendor_text[32];
    const char *vendor = doctor_vendor_name(gpu->vendor_id, vendor_text, sizeof vendor_text);
    if (gpu->display_only) {
      doctor_finding *finding = doctor_add(
          context, DOCTOR_INFO, "pci.display_only",
          "%s display adapter at %s: display only, no compute API expected", vendor, gpu->address);
      add_pci_evidence(context, finding, gpu);
      continue;
    }
    if (gpu->physical >= 0) {
      const agpu_physical_device_info *group = &context->physical[gpu->physical];
      doctor_finding *finding = doctor_add(
          context, gpu->physical_guessed ? DOCTOR_INFO : DOCTOR_OK, "pci.gpu_exposed",
          "%s GPU at %s is %s (%s)%s", vendor, gpu->address, group->id, group->name,
          gpu->physical_guessed ? ", matched on vendor and device id: no API reported its address"
                                : "");
      add_pci_evidence(context, finding, gpu);
      for (uint32_t m = 0; m < group->member_count && m < AGPU_PHYSICAL_MAX_MEMBERS; m++)
        doctor_evidence(context, finding, "seen as %s", group->members[m]);
      continue;
    }
    if (gpu->vendor_id == DOCTOR_VENDOR_NVIDIA)
      explain_nvidia(context, gpu);
    else if (gpu->vendor_id == DOCTOR_VENDOR_AMD)
      explain_amd(context, gpu);
    else
      explain_other(context, gpu);
  }
}
