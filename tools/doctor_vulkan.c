// SPDX-License-Identifier: Apache-2.0
/* Vulkan: the loader (libvulkan.so.1) and its version, every driver
 * manifest the loader would read ($VK_DRIVER_FILES / $VK_ICD_FILENAMES, else
 * its search paths) and whether its library_path loads, a machine whose
 * only Vulkan driver is a CPU one while a GPU is on the bus, and access to
 * /dev/dri/renderD*. */
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
#include "driver_guard.h"
#include "doctor_manifest.h"

#define MAX_MANIFESTS 64

typedef void (*vk_void_function)(void);
typedef vk_void_function (*vk_get_instance_proc_addr_fn)(void *instance, const char *name);
typedef int (*vk_enumerate_instance_version_fn)(uint32_t *version);

typedef struct vulkan_survey {
  unsigned manifests;
  unsigned gpu_drivers_loading; /* drivers that load and are not CPU ones */
  unsigned cpu_drivers_loading;
} vulkan_survey;

static void probe_loader(doctor_backend *vulkan) {
  doctor_probe *probe = &vulkan->probe;
  char error[512];
  void *library = doctor_dlopen("libvulkan.so.1", error, sizeof error);
  if (!library) return;
  probe->loaded = true;
  doctor_format(probe->library, sizeof probe->library, "libvulkan.so.1");
  doctor_library_path(library, probe->path, sizeof probe->path);
  vk_get_instance_proc_addr_fn get_proc =
      (vk_get_instance_proc_addr_fn)dlsym(library, "vkGetInstanceProcAddr");
  vk_enumerate_instance_version_fn enumerate_version =
      get_proc ? (vk_enumerate_instance_version_fn)get_proc(NULL, "vkEnumerateInstanceVersion")
               : NULL;
  uint32_t version = 0;
  if (enumerate_version && enumerate_version(&version) == 0)
    doctor_format(probe->version, sizeof probe->version, "%u.%u.%u", (version >> 22) & 0x7f,
                  (version >> 12) & 0x3ff, version & 0xfff);
  else
    doctor_version_from_path(probe->path, "libvulkan.so", probe->version, sizeof probe->version);
}

/* lavapipe (and the old swiftshader) run Vulkan on the CPU. */
static bool is_cpu_driver(const char *manifest, const char *library) {
  return strstr(manifest, "lvp_icd") || strstr(library, "libvulkan_lvp") ||
         strstr(library, "swiftshader");
}

static void check_manifest(doctor_context *context, const char *path, const char *variable,
                           vulkan_survey *survey) {
  char json[16384], text[128];
  survey->manifests++;
  if (!doctor_read_file(path, json, sizeof json)) {
    int error = errno;
    doctor_finding *finding;
    if (error == ENOENT && variable)
      finding = doctor_add(context, DOCTOR_ERROR, "vulkan.manifest_missing",
                           "%s names %s, which does not exist: the Vulkan loader finds no driver "
                           "there",
                           variable, path);
    else if (error == ENOENT)
      finding = doctor_add(context, DOCTOR_ERROR, "vulkan.manifest_missing",
                           "The Vulkan driver manifest %s does not exist (a dangling link?)", path);
    else
      finding = doctor_add(context, DOCTOR_ERROR, "vulkan.manifest_unreadable",
                           "Cannot read the Vulkan driver manifest %s: the loader skips it", path);
    doctor_evidence(context, finding, "open(%s): %s", path,
                    doctor_errno_text(error, text, sizeof text));
    if (variable)
      doctor_fix(context, finding,
                 "Correct the path in %s or unset it (it replaces the loader's search of "
                 "/usr/share/vulkan/icd.d and /etc/vulkan/icd.d).",
                 variable);
    else
      doctor_fix(context, finding, "Make it readable (chmod 644 %s) or remove it.", path);
    return;
  }
  const char *crash = driver_guard_crash(path);
  if (crash) { /* loading it again here would end the doctor too */
    doctor_finding *finding = doctor_add(context, DOCTOR_ERROR, "vulkan.driver_crash",
                                         "%s: its driver crashes any process that loads it: "
                                         "every Vulkan program on this machine dies in "
                                         "vkCreateInstance",
                                         path);
    doctor_evidence(context, finding, "loaded in a child process: %s", crash);
    doctor_fix(context, finding,
               "Remove %s or reinstall its driver; anygpu leaves it out of list, info and "
               "doctor, other programs do not.",
               path);
    return;
  }
  char library[1024], api_version[64] = "";
  manifest_icd_string(json, "api_version", api_version, sizeof api_version);
  if (!manifest_icd_string(json, "library_path", library, sizeof library) || !library[0]) {
    doctor_finding *finding =
        doctor_add(context, DOCTOR_ERROR, "vulkan.manifest_invalid",
                   "%s is not a Vulkan driver manifest: it has no ICD.library_path", path);
    doctor_evidence(context, finding, "%s: no \"ICD\": {\"library_path\": ...} member", path);
    doctor_fix(context, finding, "Reinstall the driver that owns it, or remove it.");
    return;
  }
  /* A relative path with a '/' is relative to the manifest; a bare name is
   * found by the dynamic loader's search. */
  char resolved[DOCTOR_PATH_CAPACITY + 1024];
  if (library[0] != '/' && strchr(library, '/')) {
    const char *slash = strrchr(path, '/');
    doctor_format(resolved, sizeof resolved, "%.*s/%s", slash ? (int)(slash - path) : 1,
                  slash ? path : ".", library);
  } else {
    doctor_format(resolved, sizeof resolved, "%s", library);
  }
  char error[1024];
  void *handle = doctor_dlopen(resolved, error, sizeof error);
  if (!handle) {
    doctor_finding *finding = doctor_add(
        context, DOCTOR_ERROR, "vulkan.driver_library",
        "%s: library_path %s does not load: the Vulkan loader skips this driver", path, library);
    doctor_evidence(context, finding, "dlopen(\"%s\"): %s", resolved, error);
    doctor_fix(context, finding,
               "Install the driver package that provides it (Mesa: mesa-vulkan-drivers), correct "
               "library_path, or remove %s.",
               path);
    return;
  }
  bool entry = dlsym(handle, "vk_icdGetInstanceProcAddr") || dlsym(handle, "vkGetInstanceProcAddr");
  bool cpu = is_cpu_driver(path, library);
  if (entry) {
    if (cpu)
      survey->cpu_drivers_loading++;
    else
      survey->gpu_drivers_loading++;
  }
  doctor_finding *finding = doctor_add(
      context, entry ? DOCTOR_OK : DOCTOR_ERROR, "vulkan.driver_library",
      entry ? "%s: %s loads (Vulkan %s%s)" : "%s: %s loads but has no vk_icdGetInstanceProcAddr",
      path, library, api_version[0] ? api_version : "?", cpu ? ", a CPU driver" : "");
  doctor_evidence(context, finding, "dlopen(\"%s\"): loaded", resolved);
  /* Kept open: drivers register exit handlers and do not expect unloading. */
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_manifest_directory(doctor_context *context, const char *directory_path,
                                     const char *variable, vulkan_survey *survey) {
  DIR *directory = opendir(directory_path);
  if (!directory) return; /* search directories that do not exist are normal */
  char *names[MAX_MANIFESTS];
  size_t count = 0;
  struct dirent *entry;
  while ((entry = readdir(directory)) && count < MAX_MANIFESTS) {
    size_t length = strlen(entry->d_name);
    if (length < 6 || strcmp(entry->d_name + length - 5, ".json") != 0) continue;
    names[count] = strdup(entry->d_name);
    if (names[count]) count++;
  }
  closedir(directory);
  qsort(names, count, sizeof names[0], compare_names);
  for (size_t i = 0; i < count; i++) {
    char path[DOCTOR_PATH_CAPACITY + 256];
    doctor_format(path, sizeof path, "%s/%s", directory_path, names[i]);
    check_manifest(context, path, variable, survey);
    free(names[i]);
  }
}

/* A ':'-separated list of manifests or directories. */
static void check_manifest_list(doctor_context *context, const char *variable, const char *value,
                                vulkan_survey *survey) {
  char *copy = strdup(value);
  if (!copy) return;
  for (char *save = NULL, *item = strtok_r(copy, ":", &save); item;
       item = strtok_r(NULL, ":", &save)) {
    struct stat status;
    if (stat(item, &status) == 0 && S_ISDIR(status.st_mode))
      check_manifest_directory(context, item, variable, survey);
    else
      check_manifest(context, item, variable, survey);
  }
  free(copy);
}

static void check_search_paths(doctor_context *context, vulkan_survey *survey) {
  static const char *const directories[] = {"/etc/xdg/vulkan/icd.d", "/etc/vulkan/icd.d",
                                            "/usr/local/share/vulkan/icd.d",
                                            "/usr/share/vulkan/icd.d"};
  for (size_t i = 0; i < sizeof directories / sizeof directories[0]; i++) {
    char path[DOCTOR_PATH_CAPACITY];
    doctor_path(context, directories[i], path, sizeof path);
    check_manifest_directory(context, path, NULL, survey);
  }
  if (context->sysroot[0]) return; /* the user's own directory belongs to the running system */
  const char *data_home = doctor_getenv("XDG_DATA_HOME");
  const char *home = doctor_getenv("HOME");
  char path[DOCTOR_PATH_CAPACITY];
  if (data_home && *data_home)
    doctor_format(path, sizeof path, "%s/vulkan/icd.d", data_home);
  else if (home && *home)
    doctor_format(path, sizeof path, "%s/.local/share/vulkan/icd.d", home);
  else
    return;
  check_manifest_directory(context, path, NULL, survey);
}

static bool compute_gpu_on_bus(const doctor_context *context, const char **address) {
  for (uint32_t i = 0; i < context->pci_count; i++) {
    if (context->pci[i].display_only) continue;
    *address = context->pci[i].address;
    return true;
  }
  return false;
}

static void check_cpu_only(doctor_context *context, const doctor_backend *vulkan,
                           const vulkan_survey *survey) {
  const char *gpu = NULL;
  if (!compute_gpu_on_bus(context, &gpu)) return;
  uint32_t cpu_devices = 0, gpu_devices = 0;
  const char *cpu_name = "lavapipe";
  for (uint32_t i = 0; i < context->device_count; i++) {
    if (context->devices[i].backend != AGPU_BACKEND_VULKAN) continue;
    if (context->devices[i].type == AGPU_DEVICE_TYPE_CPU) {
      cpu_devices++;
      cpu_name = context->devices[i].name;
    } else {
      gpu_devices++;
    }
  }
  bool by_devices = vulkan->info.available && cpu_devices > 0 && gpu_devices == 0;
  bool by_manifests = !vulkan->info.available && survey->cpu_drivers_loading > 0 &&
                      survey->gpu_drivers_loading == 0;
  if (!by_devices && !by_manifests) return;
  doctor_finding *finding = doctor_add(
      context, DOCTOR_WARNING, "vulkan.cpu_only",
      "The only Vulkan %s a CPU one (%s) while a GPU is on the bus at %s: Vulkan programs will "
      "run on the CPU",
      by_devices ? "device is" : "driver that loads is", cpu_name, gpu);
  doctor_evidence(context, finding, "%u manifests, %u GPU drivers load, %u CPU drivers load",
                  survey->manifests, survey->gpu_drivers_loading, survey->cpu_drivers_loading);
  doctor_fix(context, finding,
             "Install the GPU's Vulkan driver (AMD and Intel: mesa-vulkan-drivers; NVIDIA: the "
             "driver's Vulkan ICD, libnvidia-gl), and check /dev/dri/renderD* access.");
}

static void check_render_nodes(doctor_context *context) {
  char path[DOCTOR_PATH_CAPACITY];
  doctor_path(context, "/dev/dri", path, sizeof path);
  DIR *directory = opendir(path);
  const char *gpu = NULL;
  bool any = false;
  if (directory) {
    struct dirent *entry;
    while ((entry = readdir(directory))) {
      if (strncmp(entry->d_name, "renderD", 7) != 0) continue;
      char node[300];
      doctor_format(node, sizeof node, "/dev/dri/%s", entry->d_name);
      doctor_check_device_node(context, node, "dri.render_node",
                               "a GPU's render node; Vulkan, Mesa's OpenCL and ROCm use it");
      any = true;
    }
    closedir(directory);
  }
  if (!any && compute_gpu_on_bus(context, &gpu)) {
    doctor_finding *finding = doctor_add(context, DOCTOR_WARNING, "dri.render_node",
                                         "A GPU is on the bus at %s but there is no "
                                         "/dev/dri/renderD* node",
                                         gpu);
    doctor_evidence(context, finding, "opendir(%s): %s", path,
                    directory ? "no renderD* entry" : "cannot open");
    doctor_fix(context, finding,
               "Load the GPU's kernel driver (amdgpu, i915, xe, nvidia-drm); in a container pass "
               "--device /dev/dri.");
  }
}

/* anygpu's own Vulkan backend: unavailable (why), no device, or its devices. */
static void check_backend(doctor_context *context, const doctor_backend *vulkan,
                          const vulkan_survey *survey) {
  const agpu_backend_info *info = &vulkan->info;
  doctor_finding *finding;
  if (!info->available) {
    /* Without a loader Vulkan is simply not installed; with one, the
     * manifest findings above say which driver failed. */
    finding =
        doctor_add(context, vulkan->probe.loaded ? DOCTOR_WARNING : DOCTOR_INFO, "vulkan.backend",
                   "anygpu's Vulkan backend is unavailable: %s", info->reason);
    if (vulkan->probe.loaded)
      doctor_evidence(context, finding, "dlopen(\"libvulkan.so.1\") -> %s, loader version %s",
                      vulkan->probe.path, vulkan->probe.version[0] ? vulkan->probe.version : "?");
    for (uint32_t i = 0; i < vulkan->attempt_count; i++)
      doctor_evidence(context, finding, "dlopen(\"%s\"): %s", vulkan->attempt_names[i],
                      vulkan->attempt_errors[i][0] ? vulkan->attempt_errors[i] : "loaded");
    if (!vulkan->probe.loaded)
      doctor_fix(context, finding, "Install the Vulkan loader (Debian: apt install libvulkan1).");
    else if (survey->gpu_drivers_loading + survey->cpu_drivers_loading == 0)
      doctor_fix(context, finding,
                 "No driver manifest names a library that loads (findings above): install a "
                 "Vulkan driver (mesa-vulkan-drivers; NVIDIA: the driver's Vulkan ICD) or correct "
                 "VK_DRIVER_FILES / VK_ICD_FILENAMES.");
    else
      doctor_fix(context, finding,
                 "A driver loads but the loader still fails: VK_LOADER_DEBUG=all vulkaninfo "
                 "--summary shows why.");
    return;
  }
  if (info->device_count == 0) {
    finding = doctor_add(context, DOCTOR_WARNING, "vulkan.backend",
                         "anygpu's Vulkan backend loads but has no device%s%s",
                         info->reason[0] ? ": " : "", info->reason);
  } else {
    finding =
        doctor_add(context, DOCTOR_OK, "vulkan.backend", "anygpu's Vulkan backend has %u device%s",
                   info->device_count, info->device_count == 1 ? "" : "s");
    for (uint32_t i = 0; i < context->device_count; i++)
      if (context->devices[i].backend == AGPU_BACKEND_VULKAN)
        doctor_evidence(context, finding, "%s: %s (%s)", context->devices[i].selector,
                        context->devices[i].name, agpu_device_type_name(context->devices[i].type));
  }
  if (vulkan->probe.loaded)
    doctor_evidence(context, finding, "dlopen(\"libvulkan.so.1\") -> %s, loader version %s",
                    vulkan->probe.path, vulkan->probe.version[0] ? vulkan->probe.version : "?");
}

void doctor_check_vulkan(doctor_context *context) {
  doctor_backend *vulkan = NULL;
  for (uint32_t i = 0; i < context->backend_count; i++)
    if (strcmp(context->backends[i].info.name, "vulkan") == 0) vulkan = &context->backends[i];
  if (!vulkan) return;
  probe_loader(vulkan);
  vulkan_survey survey = {0};
  const char *driver_files = doctor_getenv("VK_DRIVER_FILES");
  const char *icd_filenames = doctor_getenv("VK_ICD_FILENAMES");
  if (driver_files && *driver_files) {
    check_manifest_list(context, "VK_DRIVER_FILES", driver_files, &survey);
  } else if (icd_filenames && *icd_filenames) {
    check_manifest_list(context, "VK_ICD_FILENAMES", icd_filenames, &survey);
  } else {
    check_search_paths(context, &survey);
  }
  const char *add_files = doctor_getenv("VK_ADD_DRIVER_FILES");
  if (add_files && *add_files)
    check_manifest_list(context, "VK_ADD_DRIVER_FILES", add_files, &survey);
  if (survey.manifests == 0) {
    doctor_finding *finding = doctor_add(context, DOCTOR_WARNING, "vulkan.no_manifest",
                                         "No Vulkan driver manifest found: the Vulkan loader has "
                                         "no driver");
    doctor_evidence(context, finding,
                    "searched %s/etc/vulkan/icd.d, %s/usr/share/vulkan/icd.d and the XDG "
                    "directories",
                    context->sysroot, context->sysroot);
    doctor_fix(context, finding,
               "Install a Vulkan driver: mesa-vulkan-drivers (AMD, Intel, and lavapipe on the "
               "CPU) or the NVIDIA driver.");
  }
  check_backend(context, vulkan, &survey);
  check_cpu_only(context, vulkan, &survey);
  check_render_nodes(context);
}
