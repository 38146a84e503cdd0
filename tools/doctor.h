// SPDX-License-Identifier: Apache-2.0
/* anygpu doctor: what the parts of the doctor share. The doctor gathers the
 * library's view (backends, load attempts, devices, physical devices), then
 * each check file reads the system through the sysroot and the process
 * environment and adds findings; doctor_output.c prints them. */
#ifndef ANYGPU_TOOLS_DOCTOR_H
#define ANYGPU_TOOLS_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anygpu.h"

#define DOCTOR_PATH_CAPACITY 4096
#define DOCTOR_MAX_PCI_DEVICES 64
#define DOCTOR_MAX_ATTEMPTS 16

#define DOCTOR_VENDOR_NVIDIA 0x10de
#define DOCTOR_VENDOR_AMD 0x1002
#define DOCTOR_VENDOR_INTEL 0x8086

typedef enum doctor_severity {
  DOCTOR_OK,
  DOCTOR_INFO,
  DOCTOR_WARNING,
  DOCTOR_ERROR,
} doctor_severity;

const char *doctor_severity_name(doctor_severity severity);

typedef struct doctor_finding {
  doctor_severity severity;
  char check[48]; /* a stable id: "pci.gpu_not_exposed", "opencl.icd_library" */
  char *what;     /* what was found, one sentence */
  char *evidence; /* the call, errno, file that shows it */
  char *fix;      /* what to do; "" when nothing needs doing */
} doctor_finding;

typedef enum doctor_gpu_kind {
  DOCTOR_GPU_UNKNOWN,
  DOCTOR_GPU_INTEGRATED,
  DOCTOR_GPU_DISCRETE,
} doctor_gpu_kind;

/* A display or 3D controller on the PCI bus. */
typedef struct doctor_pci_device {
  char address[16]; /* "0000:01:00.0" */
  uint32_t class_code;
  uint32_t vendor_id;
  uint32_t device_id;
  char driver[64]; /* the bound kernel driver, "" when none */
  bool boot_vga;
  doctor_gpu_kind kind;
  int physical;          /* index of the physical device that is this GPU, -1 if none */
  bool physical_guessed; /* matched on vendor and device id: no API gave its address */
  bool display_only;     /* a BMC or virtual display adapter: no compute API expected */
} doctor_pci_device;

/* What the doctor learnt by calling a vendor library itself. */
typedef struct doctor_probe {
  bool loaded;
  char library[256]; /* the name that loaded */
  char path[1024];   /* the file it resolved to */
  char version[64];  /* the library's version, "" when unknown */
  bool init_called;
  char init_call[64]; /* "cuInit(0)" */
  int init_result;
  char init_result_name[64];
  bool count_known;
  uint32_t device_count;
} doctor_probe;

typedef struct doctor_backend {
  agpu_backend_info info;
  uint32_t attempt_count;
  const char *attempt_names[DOCTOR_MAX_ATTEMPTS];
  const char *attempt_errors[DOCTOR_MAX_ATTEMPTS];
  doctor_probe probe;
} doctor_backend;

typedef struct doctor_context {
  const char *sysroot; /* "" for the running system */
  doctor_backend backends[AGPU_BACKEND_COUNT_];
  uint32_t backend_count;
  agpu_device_info *devices;
  uint32_t device_count;
  agpu_physical_device_info *physical;
  uint32_t physical_count;
  doctor_pci_device pci[DOCTOR_MAX_PCI_DEVICES];
  uint32_t pci_count;
  bool pci_readable;
  char pci_error[256];
  bool has_default_device;
  agpu_device_info default_device;
  char default_error[512];
  doctor_finding *findings;
  size_t finding_count;
  size_t finding_capacity;
  bool out_of_memory;
} doctor_context;

/* snprintf, for text that is cut when it does not fit (paths in messages). */
int doctor_format(char *out, size_t capacity, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* ----------------------------------------------------------- findings */

/* Adds a finding; evidence and fix start empty. Returns NULL (and marks the
 * context out of memory) when it cannot. */
doctor_finding *doctor_add(doctor_context *context, doctor_severity severity, const char *check,
                           const char *what_format, ...) __attribute__((format(printf, 4, 5)));
/* Appends to the evidence, separated by "; ". */
void doctor_evidence(doctor_context *context, doctor_finding *finding, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void doctor_fix(doctor_context *context, doctor_finding *finding, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void doctor_free(doctor_context *context);

/* ------------------------------------------------------------ sysroot */

/* `absolute` ("/sys/...") under the sysroot. False if it does not fit. */
bool doctor_path(const doctor_context *context, const char *absolute, char *out, size_t capacity);
/* Reads a small file whole, NUL-terminated, trailing whitespace removed.
 * On failure returns false with errno set. */
bool doctor_read_file(const char *path, char *out, size_t capacity);
bool doctor_read_system_file(const doctor_context *context, const char *absolute, char *out,
                             size_t capacity);
/* A file holding "0x10de" or "10de". */
bool doctor_read_hex(const char *path, uint32_t *value);
/* An environment variable, NULL when unset (set-but-empty is ""). */
const char *doctor_getenv(const char *name);
/* "errno 13 EACCES: Permission denied" */
const char *doctor_errno_text(int error, char *out, size_t capacity);

/* The group named `gid` in the sysroot's /etc/group, or its number. */
const char *doctor_group_name(const doctor_context *context, unsigned gid, char *out,
                              size_t capacity);
/* Is this process in group `gid` (primary or supplementary)? */
bool doctor_process_in_group(unsigned gid);
/* Does the sysroot's /etc/group list the current user as a member of `gid`
 * (a membership that takes effect at the next login)? */
bool doctor_user_listed_in_group(const doctor_context *context, unsigned gid);

/* ------------------------------------------------------------ libraries */

/* dlopen(RTLD_NOW | RTLD_LOCAL); on failure `error` holds dlerror(). */
void *doctor_dlopen(const char *name, char *error, size_t capacity);
/* The file a loaded library resolved to ("" if unknown). */
void doctor_library_path(void *handle, char *out, size_t capacity);
/* The version in a library file name, "libcuda.so.550.54.14" -> "550.54.14". */
void doctor_version_from_path(const char *path, const char *stem, char *out, size_t capacity);

/* --------------------------------------------------------------- checks */

void doctor_scan_pci(doctor_context *context);
void doctor_check_pci(doctor_context *context);
void doctor_check_nvidia(doctor_context *context);
void doctor_check_amd(doctor_context *context);
void doctor_check_opencl(doctor_context *context);
void doctor_check_vulkan(doctor_context *context);
void doctor_check_selection(doctor_context *context);

/* A device node such as /dev/kfd or /dev/dri/renderD128: can this process
 * open it read-write, and is it in the node's group? Adds the findings. */
void doctor_check_device_node(doctor_context *context, const char *node, const char *check,
                              const char *purpose);

/* CUDA_VISIBLE_DEVICES and its kin: empty hides every device; an entry that
 * is not an index or a UUID hides it and all that follow. */
void doctor_check_visible_devices(doctor_context *context, const char *variable, const char *api,
                                  const char *check);

/* The name of a GPU vendor, "vendor 0x1234" for others. */
const char *doctor_vendor_name(uint32_t vendor_id, char *out, size_t capacity);
/* The physical device with this PCI address, or -1. */
int doctor_physical_at(const doctor_context *context, const char *pci);
const doctor_backend *doctor_backend_named(const doctor_context *context, const char *name);

/* --------------------------------------------------------------- output */

int doctor_print_text(const doctor_context *context);
int doctor_print_json(const doctor_context *context);

#endif /* ANYGPU_TOOLS_DOCTOR_H */
