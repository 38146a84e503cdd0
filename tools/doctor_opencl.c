// SPDX-License-Identifier: Apache-2.0
/* OpenCL: the ICD loader (libOpenCL.so.1) and what clGetPlatformIDs says,
 * then each .icd file under $OCL_ICD_VENDORS or /etc/OpenCL/vendors:
 * readable, naming a library that loads, which reports platforms. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor.h"
#include "driver_guard.h"

#define MAX_ICD_FILES 64

typedef int (*cl_get_platform_ids_fn)(unsigned entries, void **platforms, unsigned *count);
typedef void *(*cl_get_extension_function_address_fn)(const char *name);

static const char *cl_error_name(int code) {
  switch (code) {
    case 0:
      return "CL_SUCCESS";
    case -1:
      return "CL_DEVICE_NOT_FOUND";
    case -2:
      return "CL_DEVICE_NOT_AVAILABLE";
    case -5:
      return "CL_OUT_OF_RESOURCES";
    case -6:
      return "CL_OUT_OF_HOST_MEMORY";
    case -30:
      return "CL_INVALID_VALUE";
    case -32:
      return "CL_INVALID_PLATFORM";
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "CL_?";
  }
}

static void probe_loader(doctor_backend *opencl) {
  doctor_probe *probe = &opencl->probe;
  char error[512];
  void *library = doctor_dlopen("libOpenCL.so.1", error, sizeof error);
  if (!library) return;
  probe->loaded = true;
  doctor_format(probe->library, sizeof probe->library, "libOpenCL.so.1");
  doctor_library_path(library, probe->path, sizeof probe->path);
  doctor_version_from_path(probe->path, "libOpenCL.so", probe->version, sizeof probe->version);
  cl_get_platform_ids_fn get_platforms = (cl_get_platform_ids_fn)dlsym(library, "clGetPlatformIDs");
  if (!get_platforms) return;
  unsigned count = 0;
  doctor_format(probe->init_call, sizeof probe->init_call, "clGetPlatformIDs");
  probe->init_called = true;
  probe->init_result = get_platforms(0, NULL, &count);
  doctor_format(probe->init_result_name, sizeof probe->init_result_name, "%s",
                cl_error_name(probe->init_result));
  probe->count_known = probe->init_result == 0;
  probe->device_count = probe->count_known ? count : 0; /* platforms, for this probe */
}

/* Checks one ICD library: it loads and reports its platforms. */
static void check_icd_library(doctor_context *context, const char *source, const char *library) {
  char error[1024];
  void *handle = doctor_dlopen(library, error, sizeof error);
  if (!handle) {
    doctor_finding *finding = doctor_add(context, DOCTOR_ERROR, "opencl.icd_library",
                                         "%s names %s, which does not load: the OpenCL loader "
                                         "skips this platform",
                                         source, library);
    doctor_evidence(context, finding, "dlopen(\"%s\"): %s", library, error);
    doctor_fix(context, finding,
               "Install the driver package that provides %s, correct the path, or remove %s.",
               library, source);
    return;
  }
  /* The loader asks the ICD's clGetExtensionFunctionAddress for the entry
   * point; some ICDs also export it. */
  cl_get_platform_ids_fn get_platforms =
      (cl_get_platform_ids_fn)dlsym(handle, "clIcdGetPlatformIDsKHR");
  cl_get_extension_function_address_fn get_extension =
      (cl_get_extension_function_address_fn)dlsym(handle, "clGetExtensionFunctionAddress");
  if (!get_platforms && get_extension)
    get_platforms = (cl_get_platform_ids_fn)get_extension("clIcdGetPlatformIDsKHR");
  if (!get_platforms) {
    doctor_finding *finding = doctor_add(context, DOCTOR_ERROR, "opencl.icd_library",
                                         "%s names %s, which loads but is not an OpenCL ICD (no "
                                         "clIcdGetPlatformIDsKHR)",
                                         source, library);
    doctor_evidence(context, finding,
                    "dlsym(\"clIcdGetPlatformIDsKHR\") and clGetExtensionFunctionAddress: not "
                    "found");
    doctor_fix(context, finding, "Point %s at the vendor's ICD library.", source);
    return;
  }
  unsigned count = 0;
  int result = get_platforms(0, NULL, &count);
  doctor_finding *finding;
  if (result != 0 || count == 0) {
    finding = doctor_add(context, DOCTOR_WARNING, "opencl.icd_platforms",
                         "%s: %s loads but reports no platform", source, library);
    doctor_fix(context, finding,
               "The driver found no device it supports; see the PCI and device node findings.");
  } else {
    finding = doctor_add(context, DOCTOR_OK, "opencl.icd_platforms",
                         "%s: %s loads and reports %u platform%s", source, library, count,
                         count == 1 ? "" : "s");
  }
  doctor_evidence(context, finding, "clIcdGetPlatformIDsKHR: %d %s, %u platforms", result,
                  cl_error_name(result), count);
  /* Kept open: the loader has it open too, and ICDs do not expect unloading. */
}

static void check_icd_file(doctor_context *context, const char *path) {
  char content[4096], text[128];
  const char *crash = driver_guard_crash(path);
  if (crash) { /* loading it again here would end the doctor too */
    doctor_finding *finding = doctor_add(context, DOCTOR_ERROR, "opencl.icd_crash",
                                         "%s crashes any process that loads it: every OpenCL "
                                         "program on this machine dies at its first OpenCL call",
                                         path);
    doctor_evidence(context, finding, "loaded in a child process: %s", crash);
    doctor_fix(context, finding,
               "Remove %s or reinstall its driver; anygpu leaves it out of list, info and "
               "doctor, other programs do not.",
               path);
    return;
  }
  if (!doctor_read_file(path, content, sizeof content)) {
    int error = errno;
    doctor_finding *finding = doctor_add(context, DOCTOR_ERROR, "opencl.icd_unreadable",
                                         "Cannot read %s: the OpenCL loader skips it", path);
    doctor_evidence(context, finding, "read(%s): %s", path,
                    doctor_errno_text(error, text, sizeof text));
    doctor_fix(context, finding,
               "Make it a readable file naming the ICD library (chmod 644 %s), "
               "or remove it.",
               path);
    return;
  }
  content[strcspn(content, "\r\n")] = '\0';
  char *library = content;
  while (*library == ' ' || *library == '\t') library++;
  if (!*library) {
    doctor_finding *finding = doctor_add(context, DOCTOR_ERROR, "opencl.icd_library",
                                         "%s is empty: it names no ICD library", path);
    doctor_evidence(context, finding, "read(%s): 0 bytes of text", path);
    doctor_fix(context, finding, "Write the ICD library's name or path into it, or remove it.");
    return;
  }
  check_icd_library(context, path, library);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_icd_directory(doctor_context *context, const char *directory_path,
                                const char *variable) {
  char text[128];
  DIR *directory = opendir(directory_path);
  if (!directory) {
    int error = errno;
    doctor_finding *finding = doctor_add(
        context, variable ? DOCTOR_ERROR : DOCTOR_WARNING, "opencl.no_icd",
        "%s%s%s cannot be read: the OpenCL loader finds no platform (clGetPlatformIDs returns "
        "-1001 CL_PLATFORM_NOT_FOUND_KHR)",
        variable ? variable : "", variable ? "=" : "", directory_path);
    doctor_evidence(context, finding, "opendir(%s): %s", directory_path,
                    doctor_errno_text(error, text, sizeof text));
    if (variable)
      doctor_fix(context, finding,
                 "Point %s at a directory of .icd files (the system's is /etc/OpenCL/vendors), "
                 "or unset it.",
                 variable);
    else
      doctor_fix(context, finding,
                 "Install an OpenCL driver: pocl-opencl-icd (CPU), intel-opencl-icd, "
                 "mesa-opencl-icd, nvidia-opencl-icd or rocm-opencl-icd.");
    return;
  }
  char *names[MAX_ICD_FILES];
  size_t count = 0;
  struct dirent *entry;
  while ((entry = readdir(directory)) && count < MAX_ICD_FILES) {
    size_t length = strlen(entry->d_name);
    if (length < 5 || strcmp(entry->d_name + length - 4, ".icd") != 0) continue;
    names[count] = strdup(entry->d_name);
    if (names[count]) count++;
  }
  closedir(directory);
  if (count == 0) {
    doctor_finding *finding = doctor_add(
        context, DOCTOR_ERROR, "opencl.no_icd",
        "%s%s%s holds no .icd file: the OpenCL loader finds no platform (clGetPlatformIDs returns "
        "-1001 CL_PLATFORM_NOT_FOUND_KHR)",
        variable ? variable : "", variable ? "=" : "", directory_path);
    doctor_evidence(context, finding, "readdir(%s): no *.icd entry", directory_path);
    if (variable)
      doctor_fix(context, finding,
                 "Point %s at a directory of .icd files (the system's is /etc/OpenCL/vendors), "
                 "or unset it.",
                 variable);
    else
      doctor_fix(context, finding,
                 "Install an OpenCL driver: pocl-opencl-icd (CPU), intel-opencl-icd, "
                 "mesa-opencl-icd, nvidia-opencl-icd or rocm-opencl-icd.");
    return;
  }
  qsort(names, count, sizeof names[0], compare_names);
  for (size_t i = 0; i < count; i++) {
    char path[DOCTOR_PATH_CAPACITY + 256];
    doctor_format(path, sizeof path, "%s/%s", directory_path, names[i]);
    check_icd_file(context, path);
    free(names[i]);
  }
}

/* ocl-icd reads OCL_ICD_VENDORS as a directory of .icd files, one .icd
 * file, or else the name of an ICD library. */
static void check_vendors_variable(doctor_context *context, const char *value) {
  char text[128];
  struct stat status;
  if (stat(value, &status) == 0 && S_ISDIR(status.st_mode)) {
    check_icd_directory(context, value, "OCL_ICD_VENDORS");
    return;
  }
  size_t length = strlen(value);
  bool icd_file = length > 4 && strcmp(value + length - 4, ".icd") == 0;
  if (icd_file) {
    if (stat(value, &status) != 0) {
      int error = errno;
      doctor_finding *finding = doctor_add(
          context, DOCTOR_ERROR, "opencl.no_icd",
          "OCL_ICD_VENDORS=%s does not exist: the OpenCL loader finds no platform", value);
      doctor_evidence(context, finding, "stat(%s): %s", value,
                      doctor_errno_text(error, text, sizeof text));
      doctor_fix(context, finding,
                 "Point OCL_ICD_VENDORS at an existing .icd file or directory, "
                 "or unset it.");
      return;
    }
    check_icd_file(context, value);
    return;
  }
  check_icd_library(context, "OCL_ICD_VENDORS", value);
}

static void check_backend(doctor_context *context, const doctor_backend *opencl) {
  const agpu_backend_info *info = &opencl->info;
  doctor_finding *finding;
  if (!info->available) {
    finding = doctor_add(context, DOCTOR_ERROR, "opencl.backend",
                         "anygpu's OpenCL backend is unavailable: %s", info->reason);
    for (uint32_t i = 0; i < opencl->attempt_count; i++)
      doctor_evidence(context, finding, "dlopen(\"%s\"): %s", opencl->attempt_names[i],
                      opencl->attempt_errors[i][0] ? opencl->attempt_errors[i] : "loaded");
    doctor_fix(context, finding,
               "Install the OpenCL ICD loader (Debian: apt install "
               "ocl-icd-libopencl1) and a driver (pocl-opencl-icd for the CPU).");
    return;
  }
  if (info->device_count == 0) {
    finding = doctor_add(context, DOCTOR_WARNING, "opencl.backend",
                         "anygpu's OpenCL backend loads but has no device%s%s",
                         info->reason[0] ? ": " : "", info->reason);
  } else {
    finding =
        doctor_add(context, DOCTOR_OK, "opencl.backend", "anygpu's OpenCL backend has %u device%s",
                   info->device_count, info->device_count == 1 ? "" : "s");
    for (uint32_t i = 0; i < context->device_count; i++)
      if (context->devices[i].backend == AGPU_BACKEND_OPENCL)
        doctor_evidence(context, finding, "%s: %s (%s)", context->devices[i].selector,
                        context->devices[i].name, agpu_device_type_name(context->devices[i].type));
  }
  const doctor_probe *probe = &opencl->probe;
  if (probe->init_called)
    doctor_evidence(context, finding, "%s -> %s: %s = %d %s, %u platforms", probe->library,
                    probe->path, probe->init_call, probe->init_result, probe->init_result_name,
                    probe->device_count);
}

void doctor_check_opencl(doctor_context *context) {
  doctor_backend *opencl = NULL;
  for (uint32_t i = 0; i < context->backend_count; i++)
    if (strcmp(context->backends[i].info.name, "opencl") == 0) opencl = &context->backends[i];
  if (!opencl) return;
  probe_loader(opencl);
  check_backend(context, opencl);
  const char *vendors = doctor_getenv("OCL_ICD_VENDORS");
  if (vendors && *vendors) {
    check_vendors_variable(context, vendors);
  } else {
    char path[DOCTOR_PATH_CAPACITY];
    doctor_path(context, "/etc/OpenCL/vendors", path, sizeof path);
    check_icd_directory(context, path, NULL);
  }
  const char *filenames = doctor_getenv("OCL_ICD_FILENAMES");
  if (filenames && *filenames) {
    char *copy = strdup(filenames);
    for (char *save = NULL, *name = copy ? strtok_r(copy, ":", &save) : NULL; name;
         name = strtok_r(NULL, ":", &save))
      check_icd_library(context, "OCL_ICD_FILENAMES", name);
    free(copy);
  }
}
