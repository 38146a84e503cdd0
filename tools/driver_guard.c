// SPDX-License-Identifier: Apache-2.0
/* A driver that crashes the process as it loads (a segfault in an OpenCL
 * ICD's clIcdGetPlatformIDsKHR, in a Vulkan driver's constructor) must not
 * take down the tools that exist to diagnose broken drivers. The command
 * runs in a child process first; when that child dies of a signal before it
 * finished, each ICD file and Vulkan manifest is probed in a child of its
 * own, the ones that crash are named on stderr and left out of the loaders'
 * search (OCL_ICD_VENDORS, VK_DRIVER_FILES) while the library loads its
 * backends here, and the command runs again in this process. In the usual
 * case the only cost is one fork: the child does the work.
 *
 * The CLI is single-threaded; the crash records below are written before
 * the command runs and only read after. */
#define _GNU_SOURCE
#include "driver_guard.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "anygpu.h"
#include "doctor.h"
#include "doctor_manifest.h"

#define GUARD_MAX_FILES 64
#define GUARD_PATH 1024

typedef enum guard_kind { GUARD_OPENCL, GUARD_VULKAN } guard_kind;

typedef struct guard_file {
  guard_kind kind;
  char path[GUARD_PATH];
  char crash[3 * GUARD_PATH]; /* "" when it did not crash */
} guard_file;

static guard_file guard_files[2 * GUARD_MAX_FILES];
static int guard_file_count;

const char *driver_guard_crash(const char *path) {
  for (int i = 0; i < guard_file_count; i++)
    if (guard_files[i].crash[0] && strcmp(guard_files[i].path, path) == 0)
      return guard_files[i].crash;
  return NULL;
}

static bool has_suffix(const char *name, const char *suffix) {
  size_t n = strlen(name), s = strlen(suffix);
  return n > s && strcmp(name + n - s, suffix) == 0;
}

static void add_file(guard_kind kind, const char *path) {
  if (guard_file_count >= (int)(sizeof guard_files / sizeof *guard_files)) return;
  guard_file *file = &guard_files[guard_file_count++];
  file->kind = kind;
  snprintf(file->path, sizeof file->path, "%s", path);
  file->crash[0] = '\0';
}

/* A file, or each file ending in `suffix` in a directory. */
static void add_path(guard_kind kind, const char *path, const char *suffix) {
  struct stat info;
  if (stat(path, &info) != 0) return;
  if (!S_ISDIR(info.st_mode)) {
    add_file(kind, path);
    return;
  }
  DIR *directory = opendir(path);
  if (!directory) return;
  for (struct dirent *entry; (entry = readdir(directory)) != NULL;) {
    if (!has_suffix(entry->d_name, suffix)) continue;
    char full[GUARD_PATH];
    snprintf(full, sizeof full, "%s/%s", path, entry->d_name);
    add_file(kind, full);
  }
  closedir(directory);
}

/* Each entry of a ':'-separated list. */
static void add_list(guard_kind kind, const char *list, const char *suffix) {
  char copy[4 * GUARD_PATH];
  snprintf(copy, sizeof copy, "%s", list);
  for (char *saved = NULL, *part = strtok_r(copy, ":", &saved); part;
       part = strtok_r(NULL, ":", &saved))
    add_path(kind, part, suffix);
}

/* The files the loaders read, in the places they look. */
static void find_driver_files(void) {
  guard_file_count = 0;
  const char *vendors = getenv("OCL_ICD_VENDORS");
  add_path(GUARD_OPENCL, vendors && vendors[0] ? vendors : "/etc/OpenCL/vendors", ".icd");
  const char *drivers = getenv("VK_DRIVER_FILES");
  if (!drivers || !drivers[0]) drivers = getenv("VK_ICD_FILENAMES");
  if (drivers && drivers[0]) {
    add_list(GUARD_VULKAN, drivers, ".json");
    return;
  }
  static const char *const search[] = {"/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d",
                                       "/usr/share/vulkan/icd.d"};
  for (size_t i = 0; i < sizeof search / sizeof *search; i++)
    add_path(GUARD_VULKAN, search[i], ".json");
}

/* The library an ICD file or a manifest names, as the loader resolves it;
 * false when the file names none (the doctor says why). */
static bool driver_library(const guard_file *file, char *out, size_t capacity) {
  char text[16384];
  if (!doctor_read_file(file->path, text, sizeof text)) return false;
  if (file->kind == GUARD_OPENCL) {
    text[strcspn(text, "\r\n")] = '\0';
    const char *name = text + strspn(text, " \t");
    snprintf(out, capacity, "%s", name);
    return name[0] != '\0';
  }
  char library[GUARD_PATH];
  if (!manifest_icd_string(text, "library_path", library, sizeof library) || !library[0])
    return false;
  const char *slash = strrchr(file->path, '/');
  if (library[0] != '/' && strchr(library, '/') && slash)
    snprintf(out, capacity, "%.*s/%s", (int)(slash - file->path), file->path, library);
  else
    snprintf(out, capacity, "%s", library);
  return true;
}

typedef int (*icd_platforms_fn)(unsigned entries, void **platforms, unsigned *count);
typedef void *(*icd_extension_fn)(const char *name);
typedef void (*vk_function)(void);
typedef vk_function (*vk_proc_fn)(void *instance, const char *name);
typedef int (*vk_negotiate_fn)(unsigned *version);
typedef int (*vk_extensions_fn)(const char *layer, unsigned *count, void *properties);

static const char *const probe_step_names[] = {"dlopen", "clIcdGetPlatformIDsKHR",
                                               "vk_icdNegotiateLoaderICDInterfaceVersion",
                                               "vkEnumerateInstanceExtensionProperties"};

#define PROBE_DONE 0xff

/* "SIGSEGV (signal 11)", or "exit status 1" for a process that a
 * sanitizer's handler of the signal ended. */
static void describe_end(int status, char *out, size_t capacity) {
  if (WIFSIGNALED(status)) {
    const char *name = sigabbrev_np(WTERMSIG(status));
    snprintf(out, capacity, "SIG%s (signal %d)", name ? name : "?", WTERMSIG(status));
  } else {
    snprintf(out, capacity, "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
}

/* Tells the parent which step runs next: the last one it reads crashed. */
static void probe_step(int fd, unsigned char step) {
  if (write(fd, &step, 1) != 1) _exit(0);
}

/* In the probe's child: what the loaders do first with a driver. */
static void probe_steps(const guard_file *file, const char *library, int fd) {
  probe_step(fd, 0);
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return;
  if (file->kind == GUARD_OPENCL) {
    probe_step(fd, 1);
    icd_platforms_fn platforms = (icd_platforms_fn)dlsym(handle, "clIcdGetPlatformIDsKHR");
    icd_extension_fn extension = (icd_extension_fn)dlsym(handle, "clGetExtensionFunctionAddress");
    if (!platforms && extension) platforms = (icd_platforms_fn)extension("clIcdGetPlatformIDsKHR");
    unsigned count = 0;
    if (platforms) platforms(0, NULL, &count);
    return;
  }
  probe_step(fd, 2);
  vk_negotiate_fn negotiate =
      (vk_negotiate_fn)dlsym(handle, "vk_icdNegotiateLoaderICDInterfaceVersion");
  unsigned version = 5;
  if (negotiate) negotiate(&version);
  probe_step(fd, 3);
  vk_proc_fn proc = (vk_proc_fn)dlsym(handle, "vk_icdGetInstanceProcAddr");
  vk_extensions_fn extensions =
      proc ? (vk_extensions_fn)proc(NULL, "vkEnumerateInstanceExtensionProperties") : NULL;
  unsigned count = 0;
  if (extensions) extensions(NULL, &count, NULL);
}

/* Loads one driver in a child; records the signal that ended it, if any. */
static void probe_file(guard_file *file) {
  char library[2 * GUARD_PATH + 2];
  if (!driver_library(file, library, sizeof library)) return;
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return;
  fflush(NULL);
  pid_t child = fork();
  if (child == 0) {
    close(pipe_ends[0]);
    alarm(30);
    probe_steps(file, library, pipe_ends[1]);
    probe_step(pipe_ends[1], PROBE_DONE);
    _exit(0);
  }
  close(pipe_ends[1]);
  unsigned char steps[8], last = 0;
  for (ssize_t n; (n = read(pipe_ends[0], steps, sizeof steps)) > 0;) last = steps[n - 1];
  close(pipe_ends[0]);
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || last == PROBE_DONE) return;
  char how[64];
  describe_end(status, how, sizeof how);
  snprintf(file->crash, sizeof file->crash, "%s in %s of %s", how,
           last < sizeof probe_step_names / sizeof *probe_step_names ? probe_step_names[last] : "?",
           library);
}

/* A directory of links to the ICD files that did not crash. */
static bool exclude_opencl(char *directory, size_t capacity) {
  snprintf(directory, capacity, "%s/anygpu-icd-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(directory)) return false;
  for (int i = 0; i < guard_file_count; i++) {
    const guard_file *file = &guard_files[i];
    if (file->kind != GUARD_OPENCL || file->crash[0]) continue;
    char link_path[GUARD_PATH + 32];
    snprintf(link_path, sizeof link_path, "%s/%d.icd", directory, i);
    if (symlink(file->path, link_path) != 0) return false;
  }
  return setenv("OCL_ICD_VENDORS", directory, 1) == 0;
}

static void remove_directory(const char *directory) {
  DIR *d = opendir(directory);
  if (!d) return;
  for (struct dirent *entry; (entry = readdir(d)) != NULL;) {
    if (entry->d_name[0] == '.') continue;
    char path[GUARD_PATH + 300];
    snprintf(path, sizeof path, "%s/%s", directory, entry->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(directory);
}

/* VK_DRIVER_FILES naming the manifests that did not crash (an empty
 * directory of ours when none is left). */
static bool exclude_vulkan(const char *empty_directory) {
  char list[8 * GUARD_PATH] = "";
  size_t used = 0;
  for (int i = 0; i < guard_file_count; i++) {
    const guard_file *file = &guard_files[i];
    if (file->kind != GUARD_VULKAN || file->crash[0]) continue;
    int n = snprintf(list + used, sizeof list - used, "%s%s", used ? ":" : "", file->path);
    if (n < 0 || (size_t)n >= sizeof list - used) return false;
    used += (size_t)n;
  }
  return setenv("VK_DRIVER_FILES", used ? list : empty_directory, 1) == 0;
}

/* The variables as the user set them, put back once the backends loaded. */
typedef struct saved_variable {
  const char *name;
  char *value; /* NULL: unset */
} saved_variable;

static void restore(saved_variable *variables, int count) {
  for (int i = 0; i < count; i++) {
    if (variables[i].value)
      setenv(variables[i].name, variables[i].value, 1);
    else
      unsetenv(variables[i].name);
    free(variables[i].value);
  }
}

/* After the child crashed: find the driver, leave it out, run here. */
static int run_without_crashing_drivers(int (*run)(int, char **), int argc, char **argv,
                                        const char *command, int wait_status) {
  find_driver_files();
  int crashed = 0;
  for (int i = 0; i < guard_file_count; i++) {
    probe_file(&guard_files[i]);
    if (!guard_files[i].crash[0]) continue;
    crashed++;
    fprintf(stderr,
            "anygpu %s: the %s driver %s crashed the process: %s; it is left out of this run "
            "(anygpu doctor explains)\n",
            command, guard_files[i].kind == GUARD_OPENCL ? "OpenCL" : "Vulkan", guard_files[i].path,
            guard_files[i].crash);
  }
  if (!crashed) {
    char how[64];
    describe_end(wait_status, how, sizeof how);
    fprintf(stderr,
            "anygpu %s: the command ended with %s before it finished, and no single OpenCL ICD "
            "or Vulkan driver crashed when loaded on its own; run it with ANYGPU_DRIVER_GUARD=0 "
            "under a debugger to see where\n",
            command, how);
    return 1;
  }
  saved_variable saved[] = {{"OCL_ICD_VENDORS", NULL}, {"VK_DRIVER_FILES", NULL}};
  for (size_t i = 0; i < 2; i++) {
    const char *value = getenv(saved[i].name);
    saved[i].value = value ? strdup(value) : NULL;
  }
  char opencl_directory[GUARD_PATH], empty_directory[GUARD_PATH];
  snprintf(empty_directory, sizeof empty_directory, "%s/anygpu-vk-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  bool excluded = exclude_opencl(opencl_directory, sizeof opencl_directory) &&
                  mkdtemp(empty_directory) && exclude_vulkan(empty_directory);
  uint32_t devices = 0;
  if (excluded) agpu_device_count(&devices); /* the backends load now, without them */
  restore(saved, 2);
  int status = 1;
  if (excluded)
    status = run(argc, argv);
  else
    fprintf(stderr, "anygpu %s: cannot leave the crashing drivers out: %s\n", command,
            strerror(errno));
  remove_directory(opencl_directory);
  rmdir(empty_directory);
  return status;
}

int driver_guard_run(int (*run)(int argc, char **argv), int argc, char **argv,
                     const char *command) {
  const char *guard = getenv("ANYGPU_DRIVER_GUARD");
  if (guard && strcmp(guard, "0") == 0) return run(argc, argv);
  int done[2];
  if (pipe(done) != 0) return run(argc, argv);
  fflush(NULL);
  pid_t child = fork();
  if (child < 0) {
    close(done[0]);
    close(done[1]);
    return run(argc, argv);
  }
  if (child == 0) {
    close(done[0]);
    unsigned char status = (unsigned char)run(argc, argv);
    fflush(NULL);
    /* finished: the parent takes this status, whatever happens at exit */
    if (write(done[1], &status, 1) != 1) _exit(1);
    _exit(status);
  }
  close(done[1]);
  int wait_status = 0;
  while (waitpid(child, &wait_status, 0) < 0 && errno == EINTR) {
  }
  unsigned char status = 0;
  ssize_t got = read(done[0], &status, 1);
  close(done[0]);
  if (got == 1) return status;
  /* ended before it finished: a signal, or a sanitizer's exit on one */
  return run_without_crashing_drivers(run, argc, argv, command, wait_status);
}
