// SPDX-License-Identifier: Apache-2.0
/* Programs, kernels and their signatures, and launches. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agpu_stack.h"
#include "opencl_internal.h"
#include "agpu_parsed.h"

static cl_program agpu_cl_program(const agpu_program *program) {
  return (cl_program)program->native;
}

/* ------------------------------------------------------------- build log */

static char *agpu_cl_build_log(const agpu_cl_device *device, cl_program program) {
  size_t size = 0;
  if (device->api->clGetProgramBuildInfo(program, device->id, CL_PROGRAM_BUILD_LOG, 0, NULL,
                                         &size) != CL_SUCCESS)
    return NULL;
  char *log = calloc(1, size + 1);
  if (log && device->api->clGetProgramBuildInfo(program, device->id, CL_PROGRAM_BUILD_LOG, size,
                                                log, NULL) != CL_SUCCESS)
    log[0] = '\0';
  return log;
}

static bool agpu_cl_is_blank(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* PoCL compiles a copy of the source in its cache ("/root/.cache/pocl/
 * kcache/tempfile_Ab12Cd.cl:1:45: error ..."); such a path reads better as the
 * name the caller gave. */
static bool agpu_cl_is_temp_source_path(const char *start, size_t length) {
  static const char marker[] = "tempfile_";
  if (length < 3 || memcmp(start + length - 3, ".cl", 3) != 0) return false;
  for (size_t i = 0; i + sizeof marker - 1 <= length; i++)
    if (memcmp(start + i, marker, sizeof marker - 1) == 0) return true;
  return false;
}

/* The log without surrounding blanks, with temporary source paths renamed;
 * malloc'd, NULL when empty. */
static char *agpu_cl_tidy_log(const char *log, const char *source_name) {
  if (!log) return NULL;
  while (agpu_cl_is_blank(*log)) log++;
  size_t length = strlen(log);
  while (length > 0 && agpu_cl_is_blank(log[length - 1])) length--;
  if (length == 0) return NULL;

  size_t name_length = strlen(source_name), capacity = length + 1;
  for (size_t i = 0; i < length; i++)
    if (log[i] == ':') capacity += name_length; /* every rename happens before a ':' */
  char *tidy = malloc(capacity);
  if (!tidy) return NULL;
  size_t out = 0, token = 0; /* token: where the current run of non-blanks starts */
  for (size_t i = 0; i < length; i++) {
    if (agpu_cl_is_blank(log[i])) token = i + 1;
    if (log[i] == ':' && i > token && agpu_cl_is_temp_source_path(log + token, i - token)) {
      out -= i - token;
      memcpy(tidy + out, source_name, name_length);
      out += name_length;
    }
    tidy[out++] = log[i];
    if (log[i] == ':') token = i + 1;
  }
  tidy[out] = '\0';
  return tidy;
}

/* ----------------------------------------------------------------- build */

static bool agpu_cl_options_have(const char *options, const char *flag) {
  return options && strstr(options, flag) != NULL;
}

/* The caller's options plus what anygpu needs: argument info for kernel
 * signatures, and OpenCL C 1.2, the portable language's base. */
static char *agpu_cl_build_options(const agpu_cl_device *device, const char *options) {
  /* without anygpu's own option: the translation carries the checks */
  char *user = agpu_strdup(options ? options : "");
  if (!user) return NULL;
  static const char check[] = AGPU_PROGRAM_CHECK_BOUNDS;
  for (char *at; (at = strstr(user, check)) != NULL;)
    memmove(at, at + sizeof check - 1, strlen(at + sizeof check - 1) + 1);
  const char *arg_info = device->version >= 12 ? " -cl-kernel-arg-info" : "";
  const char *std =
      device->c_version >= 12 && !agpu_cl_options_have(user, "-cl-std=") ? " -cl-std=CL1.2" : "";
  size_t size = strlen(user) + strlen(arg_info) + strlen(std) + 1;
  char *all = malloc(size);
  if (all) snprintf(all, size, "%s%s%s", user, arg_info, std);
  free(user);
  return all;
}

typedef struct agpu_cl_build_call {
  const agpu_cl_api *api;
  cl_program program;
  cl_device_id device;
  const char *options;
  cl_int error;
} agpu_cl_build_call;

static void agpu_cl_build_on_stack(void *data) {
  agpu_cl_build_call *call = data;
  call->error =
      call->api->clBuildProgram(call->program, 1, &call->device, call->options, NULL, NULL);
}

/* glibc's top of the main thread's stack (ld.so exports it; weak: NULL
 * elsewhere). */
extern void *__libc_stack_end __attribute__((weak));

/* The lowest address this thread's stack may grow to, 0 when unknown. The
 * main thread's is its top less RLIMIT_STACK (pthread_getattr_np reads
 * /proc/self/maps for it: 0.4-0.5 ms in a process with PoCL loaded); any
 * other thread's comes from pthread_getattr_np, which reads no file. */
static uintptr_t agpu_cl_stack_low(void) {
  struct rlimit limit;
  if (&__libc_stack_end && __libc_stack_end && getpid() == (pid_t)syscall(SYS_gettid) &&
      getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      limit.rlim_cur < (uintptr_t)__libc_stack_end)
    return (uintptr_t)__libc_stack_end - (uintptr_t)limit.rlim_cur;
  uintptr_t low = 0;
  pthread_attr_t attr;
  void *addr = NULL;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) low = (uintptr_t)addr;
    pthread_attr_destroy(&attr);
  }
  return low;
}

/* Whether this thread's stack has at least `bytes` left below this frame
 * (its bounds found once per thread); false when unknown. */
static bool agpu_cl_stack_has(size_t bytes) {
  static _Thread_local uintptr_t low;
  static _Thread_local bool known;
  if (!known) {
    low = agpu_cl_stack_low();
    known = true;
  }
  char here;
  return low && (uintptr_t)&here > low && (uintptr_t)&here - low >= bytes;
}

agpu_status agpu_cl_finish_build(agpu_program *program, cl_program created, const char *options,
                                 bool compiles, const char *source_name, const char *function) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  const agpu_cl_api *api = device->api;
  char *all_options = agpu_cl_build_options(device, options);
  if (!all_options) {
    api->clReleaseProgram(created);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
  }
  /* The driver's compiler (PoCL's Clang) recurses once per level of an
   * expression: on a stack of its own size, not the caller's. A driver
   * binary is not compiled (PoCL reads its LLVM bitcode, which holds
   * instructions, not expression trees): on the caller's thread when that
   * has half as much stack left, as the main thread and glibc's default
   * threads (8 MiB) have, which saves a thread's start (0.25 ms on PoCL,
   * 2-3 ms on a busy machine, where the new thread waits for a core). */
  agpu_cl_build_call call = {api, created, device->id, all_options, CL_SUCCESS};
  if (!compiles && agpu_cl_stack_has(AGPU_COMPILER_STACK_BYTES / 2))
    agpu_cl_build_on_stack(&call);
  else
    agpu_run_on_stack(AGPU_COMPILER_STACK_BYTES, agpu_cl_build_on_stack, &call);
  cl_int error = call.error;
  free(all_options);
  char *raw_log = agpu_cl_build_log(device, created);
  char *log = agpu_cl_tidy_log(raw_log, source_name);
  free(raw_log);
  if (error == CL_SUCCESS) {
    program->native = created;
    program->build_log = log;
    return AGPU_SUCCESS;
  }
  api->clReleaseProgram(created);
  agpu_status status = agpu_cl_status(error);
  if (status == AGPU_ERROR_BACKEND) status = AGPU_ERROR_BUILD_FAILED;
  /* Worded as every backend words a failed build. */
  if (error == CL_BUILD_PROGRAM_FAILURE)
    agpu_error_set(status,
                   "%s: the kernel source did not compile for %s (%s, by the driver's OpenCL C "
                   "compiler on %s):\n%s",
                   function, program->device->info.selector, source_name,
                   program->device->info.name, log ? "" : "(the compiler wrote no log)");
  else
    agpu_error_set(status,
                   "%s: the kernel source did not compile for %s (%s on %s): clBuildProgram "
                   "failed: %s (%d)%s",
                   function, program->device->info.selector, source_name,
                   program->device->info.name, agpu_cl_error_name(error), (int)error,
                   log ? ":\n" : "");
  if (log) agpu_error_append("%s", log);
  free(log);
  return status;
}

static agpu_status agpu_cl_build_source(agpu_program *program, const char *source, size_t size,
                                        const char *options, const char *source_name,
                                        const char *function) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  cl_int error = CL_SUCCESS;
  cl_program created =
      device->api->clCreateProgramWithSource(device->context, 1, &source, &size, &error);
  if (!created) return agpu_cl_fail("clCreateProgramWithSource", error);
  return agpu_cl_finish_build(program, created, options, true, source_name, function);
}

/* The -I options of a build, and the directories opened for them. */
typedef struct agpu_cl_includes {
  char *options; /* " -I DIR ..." or "" */
  int fds[AGPU_CL_MAX_INCLUDE_FDS];
  int fd_count;
} agpu_cl_includes;

/* " -I DIR" into `o`. Drivers split their options at spaces and take no
 * quotes (PoCL: CL_INVALID_BUILD_OPTIONS), so a directory whose path has
 * one is opened and named by its descriptor, /proc/self/fd/N, which the
 * driver's compiler (running in this process) resolves to it. */
static char *agpu_cl_add_include(agpu_cl_includes *includes, char *o, const char *dir,
                                 size_t length) {
  if (!memchr(dir, ' ', length) && !memchr(dir, '\t', length))
    return o + sprintf(o, " -I %.*s", (int)length, dir);
  char path[4096];
  int fd = -1;
  if (length < sizeof path && includes->fd_count < AGPU_CL_MAX_INCLUDE_FDS) {
    memcpy(path, dir, length);
    path[length] = '\0';
    fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  if (fd < 0) return o; /* not a directory, or too many: its headers are not found */
  includes->fds[includes->fd_count++] = fd;
  return o + sprintf(o, " -I /proc/self/fd/%d", fd);
}

/* " -I DIR" for the source's directory (when source_name is a path) and
 * for each include directory. False when out of memory. */
static bool agpu_cl_include_options(const agpu_program_desc *desc, agpu_cl_includes *includes) {
  const char *name = desc->source_name ? desc->source_name : "<source>";
  size_t name_length = strlen(name);
  bool is_file = name_length > 0 && !(name[0] == '<' && name[name_length - 1] == '>');
  const char *slash = strrchr(name, '/');
  size_t size = 1 + (is_file ? name_length + 32 : 0);
  for (uint32_t i = 0; i < desc->include_dir_count; i++) size += strlen(desc->include_dirs[i]) + 32;
  char *text = malloc(size), *o = text;
  includes->options = text;
  includes->fd_count = 0;
  if (!text) return false;
  *o = 0;
  if (is_file && slash)
    o = agpu_cl_add_include(includes, o, name, (size_t)(slash - name + (slash == name)));
  else if (is_file)
    o += sprintf(o, " -I .");
  for (uint32_t i = 0; i < desc->include_dir_count; i++)
    if (desc->include_dirs[i][0])
      o = agpu_cl_add_include(includes, o, desc->include_dirs[i], strlen(desc->include_dirs[i]));
  return true;
}

static void agpu_cl_includes_free(agpu_cl_includes *includes) {
  for (int i = 0; i < includes->fd_count; i++) close(includes->fds[i]);
  free(includes->options);
}

/* The core has checked the portable source with the translator's front end
 * (so that a kernel outside the subset fails here exactly as on every other
 * backend, with the same file:line:col messages); the source itself goes to
 * the driver's OpenCL C compiler. */
agpu_status agpu_cl_program_build(agpu_program *program, const agpu_program_desc *desc) {
  const char *preprocessed = agpu_parsed_preprocessed(program->parsed); /* NULL: no cache key */
  /* The log is the driver's, which compiles the source itself (and warns
   * about what the translator would); it is also what the binary cache keeps. */
  free(program->build_log);
  program->build_log = NULL;
  agpu_status status = AGPU_SUCCESS;
  /* What the translator predefines for every target, and where it looked
   * for #include "file" (the driver compiles a string, which has no
   * directory of its own): the source's directory, then include_dirs, before
   * the caller's options and their -I. */
  agpu_cl_includes includes;
  char *options = NULL;
  if (!agpu_cl_include_options(desc, &includes) ||
      /* get_enqueued_local_size (OpenCL C 2.0) for OpenCL C 1.x: a smaller
       * last group is an enqueue of its own (agpu_cl_launch), whose
       * enqueued size is that group's size, on every version */
      asprintf(&options, "-D__ANYGPU__=1 -Dget_enqueued_local_size=get_local_size%s %s",
               includes.options,
               desc->options ? desc->options : "") < 0) {
    agpu_cl_includes_free(&includes);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
  }
  const char *name = desc->source_name ? desc->source_name : "<source>";
  /* printf and bounds checks: the translation runs instead of the source,
   * so that the kernels write the records the core reports (the same lines, in the same order,
   * as on every other device); it is not cached as a binary. */
  char *translated = NULL;
  if (program->parsed &&
      (agpu_parsed_prints(program->parsed) || agpu_parsed_checks(program->parsed)))
    status =
        agpu_parsed_emit(program->parsed, AGPU_TARGET_OPENCL, AGPU_ERROR_BUILD_FAILED,
                         "the OpenCL emitter cannot translate this program", &translated, NULL);
  char key[65];
  /* The key holds the preprocessed text, so an included header's bytes are
   * part of it (and the -I options, with the options; a directory named by
   * its descriptor makes no key: the number differs from build to build). */
  bool keyed =
      preprocessed && !includes.fd_count && !translated && status == AGPU_SUCCESS &&
      agpu_cl_binary_key(program, desc->source, desc->source_size, preprocessed, options, key);
  /* A live program of this key in this process, else the binary from disk. */
  bool reused = keyed && agpu_cl_reuse_built(program, key) == AGPU_SUCCESS;
  if (reused || (keyed && agpu_cl_build_from_binary(program, key, options, name) == AGPU_SUCCESS)) {
    if (!reused) agpu_cl_share_built(program, key);
    agpu_cl_includes_free(&includes);
    free(options);
    return AGPU_SUCCESS;
  }
  if (status == AGPU_SUCCESS)
    status = agpu_cl_build_source(program, translated ? translated : desc->source,
                                  translated ? 0 : desc->source_size, options, name,
                                  "agpu_program_build");
  if (status == AGPU_SUCCESS && keyed) {
    agpu_cl_store_binary(program, key);
    agpu_cl_share_built(program, key);
  }
  free(translated);
  agpu_cl_includes_free(&includes);
  free(options);
  return status;
}

static agpu_status agpu_cl_build_spirv(agpu_program *program, const void *data, size_t size,
                                       const char *options) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  if (!device->accepts_spirv && device->version >= 21)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "opencl: %s takes no SPIR-V (its CL_DEVICE_IL_VERSION names none)",
                          program->device->info.name);
  if (!device->accepts_spirv)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "opencl: %s is OpenCL %u.%u; SPIR-V needs clCreateProgramWithIL (2.1)",
                          program->device->info.name, device->version / 10, device->version % 10);
  cl_int error = CL_SUCCESS;
  cl_program created = device->api->clCreateProgramWithIL(device->context, data, size, &error);
  if (!created) return agpu_cl_fail("clCreateProgramWithIL", error);
  return agpu_cl_finish_build(program, created, options, true, "<SPIR-V module>",
                              "agpu_program_create_native");
}

agpu_status agpu_cl_program_create_native(agpu_program *program, agpu_native_format format,
                                          const void *data, size_t size, const char *options) {
  switch (format) {
    case AGPU_NATIVE_OPENCL_C:
      return agpu_cl_build_source(program, data, size, options, "<OpenCL C source>",
                                  "agpu_program_create_native");
    case AGPU_NATIVE_SPIRV:
      return agpu_cl_build_spirv(program, data, size, options);
    case AGPU_NATIVE_PTX:
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "opencl cannot load PTX (it takes OpenCL C source or SPIR-V)");
    case AGPU_NATIVE_CUBIN:
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "opencl cannot load a CUDA cubin (it takes OpenCL C source or SPIR-V)");
    case AGPU_NATIVE_HIP_CODE_OBJECT:
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "opencl cannot load a HIP code object (it takes OpenCL C source or "
                            "SPIR-V)");
  }
  return agpu_error_set(AGPU_ERROR_UNSUPPORTED, "opencl: unknown native format %d", (int)format);
}

void agpu_cl_program_release(agpu_program *program) {
  if (!program->native) return;
  agpu_cl_release_built(program); /* clReleaseProgram, or one use fewer of a shared one */
  program->native = NULL;
}

/* --------------------------------------------------------------- kernels */

/* Bytes of a by-value OpenCL C type ("float4" 16, "double3" 32), 0 when the
 * name is not a built-in scalar or vector (a struct, say). */
static uint32_t agpu_cl_value_size(const char *type_name, cl_uint address_bits) {
  static const struct {
    const char *name;
    uint32_t size;
  } scalars[] = {
      /* size 0: as wide as a device address */
      {"char", 1},   {"uchar", 1},  {"short", 2},     {"ushort", 2},   {"half", 2},
      {"int", 4},    {"uint", 4},   {"float", 4},     {"long", 8},     {"ulong", 8},
      {"double", 8}, {"size_t", 0}, {"ptrdiff_t", 0}, {"intptr_t", 0}, {"uintptr_t", 0},
  };
  char name[64];
  snprintf(name, sizeof name, "%s", type_name);
  if (strncmp(name, "unsigned ", 9) == 0) { /* "unsigned int" is "uint" */
    name[0] = 'u';
    memmove(name + 1, name + 9, strlen(name + 9) + 1);
  }
  size_t length = strlen(name), digits = 0;
  while (digits < length && name[length - 1 - digits] >= '0' && name[length - 1 - digits] <= '9')
    digits++;
  unsigned lanes = digits ? (unsigned)atoi(name + length - digits) : 1;
  name[length - digits] = '\0';
  if (lanes != 1 && lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16) return 0;
  if (digits && lanes == 1) return 0; /* "float1" is no type */
  if (lanes == 3) lanes = 4;          /* 3-vectors are stored as 4 */
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
    if (strcmp(name, scalars[i].name) != 0) continue;
    uint32_t size = scalars[i].size ? scalars[i].size : address_bits / 8;
    return digits && !scalars[i].size ? 0 : size * lanes; /* no size_t vectors */
  }
  return 0;
}

static agpu_param_kind agpu_cl_param_kind(cl_kernel_arg_address_qualifier qualifier) {
  switch (qualifier) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
      return AGPU_PARAM_GLOBAL_BUFFER;
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
      return AGPU_PARAM_CONSTANT_BUFFER;
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
      return AGPU_PARAM_LOCAL;
    default:
      return AGPU_PARAM_SCALAR;
  }
}

static void agpu_cl_copy_cut(char *dst, size_t capacity, const char *src) {
  size_t length = strnlen(src, capacity - 1);
  memcpy(dst, src, length);
  dst[length] = '\0';
}

/* Fills one parameter from clGetKernelArgInfo; false when the driver keeps
 * no argument info (programs from binaries or IL). */
static bool agpu_cl_describe_param(const agpu_cl_device *device, cl_kernel kernel, cl_uint index,
                                   agpu_kernel_param *param) {
  const agpu_cl_api *api = device->api;
  if (device->version < 12 || !api->clGetKernelArgInfo) return false;
  cl_kernel_arg_address_qualifier address = 0;
  cl_kernel_arg_type_qualifier type_qualifier = 0;
  if (api->clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address,
                              &address, NULL) != CL_SUCCESS)
    return false;
  api->clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof type_qualifier,
                          &type_qualifier, NULL);
  char text[256];
  if (api->clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_NAME, sizeof text, text, NULL) ==
      CL_SUCCESS)
    agpu_cl_copy_cut(param->type_name, sizeof param->type_name, text);
  if (api->clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_NAME, sizeof text, text, NULL) ==
      CL_SUCCESS)
    agpu_cl_copy_cut(param->name, sizeof param->name, text);
  param->kind = agpu_cl_param_kind(address);
  param->is_const =
      (type_qualifier & CL_KERNEL_ARG_TYPE_CONST) != 0 || param->kind == AGPU_PARAM_CONSTANT_BUFFER;
  if (param->kind == AGPU_PARAM_SCALAR)
    param->size = agpu_cl_value_size(param->type_name, device->address_bits);
  return true;
}

static agpu_status agpu_cl_describe_params(const agpu_cl_device *device, agpu_kernel *kernel,
                                           cl_kernel native) {
  cl_uint count = 0;
  cl_int error =
      device->api->clGetKernelInfo(native, CL_KERNEL_NUM_ARGS, sizeof count, &count, NULL);
  if (error != CL_SUCCESS) return agpu_cl_fail("clGetKernelInfo(CL_KERNEL_NUM_ARGS)", error);
  kernel->params = calloc(count ? count : 1, sizeof *kernel->params);
  if (!kernel->params)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
  kernel->info.param_count = count;
  for (cl_uint i = 0; i < count; i++) {
    if (agpu_cl_describe_param(device, native, i, &kernel->params[i])) continue;
    for (cl_uint j = 0; j < count; j++) { /* all or nothing */
      memset(&kernel->params[j], 0, sizeof kernel->params[j]);
      kernel->params[j].kind = AGPU_PARAM_UNKNOWN;
    }
    break;
  }
  return AGPU_SUCCESS;
}

static void agpu_cl_describe_work_group(const agpu_cl_device *device, agpu_kernel *kernel,
                                        cl_kernel native) {
  size_t required[3] = {0, 0, 0}, max_size = 0;
  if (device->api->clGetKernelWorkGroupInfo(native, device->id, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                            sizeof required, required, NULL) == CL_SUCCESS &&
      required[0] != 0) {
    kernel->info.has_required_work_group_size = true;
    for (int d = 0; d < 3; d++)
      kernel->info.required_work_group_size[d] = (uint32_t)(required[d] ? required[d] : 1);
  }
  if (device->api->clGetKernelWorkGroupInfo(native, device->id, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof max_size, &max_size, NULL) == CL_SUCCESS)
    kernel->info.max_work_group_size = max_size > UINT32_MAX ? UINT32_MAX : (uint32_t)max_size;
}

/* Names the kernels a program does have, for a "no such kernel" message. */
static void agpu_cl_append_kernel_names(const agpu_cl_device *device, cl_program program) {
  size_t size = 0;
  char *names = NULL;
  if (device->version >= 12 &&
      device->api->clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size) ==
          CL_SUCCESS &&
      (names = calloc(1, size + 1)) != NULL &&
      device->api->clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names, NULL) ==
          CL_SUCCESS) {
    agpu_error_append("; the program's kernels: %s", names[0] ? "" : "none");
    for (const char *name = names; *name;) { /* "a;b;c" */
      size_t length = strcspn(name, ";");
      agpu_error_append("%.*s%s", (int)length, name, name[length] ? ", " : "");
      name += length + (name[length] ? 1 : 0);
    }
  }
  free(names);
}

/* CL_PROGRAM_KERNEL_NAMES ("a;b;c", OpenCL 1.2) with spaces for ';'. */
char *agpu_cl_program_kernel_names(const agpu_program *program) {
  const agpu_cl_device *device = agpu_cl_device_of(program->device);
  cl_program native = agpu_cl_program(program);
  size_t size = 0;
  if (device->version < 12 || !native ||
      device->api->clGetProgramInfo(native, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size) != CL_SUCCESS)
    return NULL;
  char *names = calloc(1, size + 1);
  if (!names) return NULL;
  if (device->api->clGetProgramInfo(native, CL_PROGRAM_KERNEL_NAMES, size, names, NULL) !=
      CL_SUCCESS) {
    free(names);
    return NULL;
  }
  for (char *p = names; *p; p++)
    if (*p == ';') *p = ' ';
  return names;
}

agpu_status agpu_cl_kernel_create(agpu_kernel *kernel, const char *name) {
  const agpu_cl_device *device = agpu_cl_device_of(kernel->program->device);
  const agpu_cl_api *api = device->api;
  cl_program program = agpu_cl_program(kernel->program);
  cl_int error = CL_SUCCESS;
  cl_kernel created = api->clCreateKernel(program, name, &error);
  if (!created) {
    agpu_status status = agpu_cl_fail("clCreateKernel", error);
    if (error == CL_INVALID_KERNEL_NAME) {
      agpu_error_append(": no kernel named '%s'", name);
      agpu_cl_append_kernel_names(device, program);
    }
    return status;
  }
  agpu_cl_kernel *native = calloc(1, sizeof *native);
  agpu_status status =
      native ? agpu_cl_describe_params(device, kernel, created)
             : agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
  if (status != AGPU_SUCCESS) {
    api->clReleaseKernel(created);
    free(native);
    return status; /* the core frees kernel->params */
  }
  agpu_cl_describe_work_group(device, kernel, created);
  native->kernel = created;
  pthread_mutex_init(&native->lock, NULL);
  kernel->native = native;
  return AGPU_SUCCESS;
}

void agpu_cl_kernel_release(agpu_kernel *kernel) {
  agpu_cl_kernel *native = kernel->native;
  if (!native) return;
  agpu_cl_device_of(kernel->program->device)->api->clReleaseKernel(native->kernel);
  pthread_mutex_destroy(&native->lock);
  free(native);
  kernel->native = NULL;
}

/* ---------------------------------------------------------------- launch */

static cl_int agpu_cl_set_arg(const agpu_cl_api *api, cl_kernel kernel, cl_uint index,
                              const agpu_arg *arg) {
  switch (arg->kind) {
    case AGPU_ARG_BUFFER: {
      cl_mem mem = (cl_mem)arg->buffer->native;
      return api->clSetKernelArg(kernel, index, sizeof mem, &mem);
    }
    case AGPU_ARG_VALUE:
      return api->clSetKernelArg(kernel, index, arg->size, arg->value.bytes);
    case AGPU_ARG_LOCAL:
      return api->clSetKernelArg(kernel, index, arg->size, NULL);
  }
  return CL_INVALID_ARG_VALUE;
}

/* Whether a launch of this shape is the kernel's first; remembers it.
 * Under the kernel's lock. A kernel past AGPU_CL_SHAPES_KEPT shapes treats
 * every other one as new. */
static bool agpu_cl_new_shape(agpu_cl_kernel *native, uint32_t dims, const size_t local[3],
                              bool offset) {
  agpu_cl_shape shape = {.dims = dims, .offset = offset};
  memcpy(shape.local, local, sizeof shape.local);
  for (uint32_t i = 0; i < native->shape_count; i++) {
    const agpu_cl_shape *seen = &native->shapes[i];
    if (seen->dims == dims && seen->offset == offset &&
        memcmp(seen->local, local, sizeof seen->local) == 0)
      return false;
  }
  if (native->shape_count < AGPU_CL_SHAPES_KEPT) native->shapes[native->shape_count++] = shape;
  return true;
}

agpu_status agpu_cl_launch(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,
                           const size_t global[3], const size_t local[3], uint32_t nargs,
                           const agpu_arg args[]) {
  const agpu_cl_api *api = agpu_cl_device_of(kernel->program->device)->api;
  agpu_cl_kernel *native = kernel->native;
  cl_command_queue cl_queue = ((agpu_cl_queue *)queue->native)->queue;
  cl_event event = NULL;
  agpu_status status = AGPU_SUCCESS;
  bool first_of_shape = false;
  pthread_mutex_lock(&native->lock);
  for (uint32_t i = 0; i < nargs && status == AGPU_SUCCESS; i++) {
    cl_int error = agpu_cl_set_arg(api, native->kernel, i, &args[i]);
    if (error != CL_SUCCESS) {
      status = agpu_cl_fail("clSetKernelArg", error);
      agpu_error_append(" for argument %u ('%s') of kernel '%s'", i, kernel->params[i].name,
                        kernel->info.name);
    }
  }
  /* A smaller last group in dimension 0 (AGPU_CAP_NONUNIFORM_GROUPS; OpenCL
   * 1.2 has none): the whole groups, then the rest as one group at a global
   * offset. In the second launch get_global_id is right, get_local_size is
   * the rest's size, and get_group_id, get_num_groups and get_global_size
   * describe that launch alone. */
  size_t rest = global[0] % local[0];
  size_t main_global[3] = {global[0] - rest, global[1], global[2]};
  size_t rest_global[3] = {rest, global[1], global[2]};
  size_t rest_local[3] = {rest, local[1], local[2]};
  size_t rest_offset[3] = {global[0] - rest, 0, 0};
  for (int part = 0; part < 2 && status == AGPU_SUCCESS; part++) {
    const size_t *g = part == 0 ? main_global : rest_global;
    const size_t *l = part == 0 ? local : rest_local;
    if (g[0] == 0) continue;
    cl_int error = api->clEnqueueNDRangeKernel(
        cl_queue, native->kernel, dims, part == 0 ? NULL : rest_offset, g, l, 0, NULL, &event);
    if (error != CL_SUCCESS) {
      status = agpu_cl_fail("clEnqueueNDRangeKernel", error);
      agpu_error_append(" (kernel '%s', global %zux%zux%zu, local %zux%zux%zu)", kernel->info.name,
                        g[0], g[1], g[2], l[0], l[1], l[2]);
      break;
    }
    agpu_cl_queue_track(queue, event);
    if (agpu_cl_new_shape(native, dims, l, part == 1)) first_of_shape = true;
  }
  pthread_mutex_unlock(&native->lock);
  /* The first launch of a group shape waits until it has run: PoCL compiles
   * it on a thread of its own meanwhile, and a process that exits during
   * that compile has LLVM's static destructors run under it (a crash at
   * exit in 8 of 8 runs, issue 33; docs/reliability.md, "exit"). */
  if (status == AGPU_SUCCESS && first_of_shape) {
    cl_int error = api->clFinish(cl_queue);
    if (error != CL_SUCCESS) status = agpu_cl_fail("clFinish", error);
  }
  return status;
}
