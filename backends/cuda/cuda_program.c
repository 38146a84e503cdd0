// SPDX-License-Identifier: Apache-2.0
/* agpu_program_build on CUDA: the portable source goes through the
 * translator to CUDA C++ (kernels/emit_cuda.c) and NVRTC to a cubin for the
 * device's architecture, or PTX where NVRTC does not know it; the kernel
 * cache keeps the result. Native PTX and cubins load as they are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_cache.h"
#include "agpu_parsed.h"
#include "cuda_internal.h"

static void agpu_cuda_program_free(const agpu_device *device, agpu_cuda_program *cp) {
  if (!cp) return;
  if (cp->module && agpu_cuda_enter(device) == AGPU_SUCCESS) {
    agpu_cuda_device_of(device)->api->cuModuleUnload(cp->module);
    agpu_cuda_leave(device);
  }
  for (uint32_t i = 0; i < cp->kernel_count; i++) free(cp->kernels[i].params);
  free(cp->kernels);
  free(cp);
}

static bool agpu_cuda_looks_like(const void *data, size_t size, bool cubin) {
  const unsigned char *bytes = data;
  if (cubin) return size >= 64 && memcmp(bytes, "\177ELF", 4) == 0;
  return size > 1 && bytes[size - 1] == '\0' && strstr(data, ".version") != NULL;
}

/* The compiled program from the kernel cache or from NVRTC (then stored). */
static agpu_status agpu_cuda_binary_for(const agpu_device *device, const char *cuda_source,
                                        const char *source_name, bool force_ptx,
                                        agpu_cuda_binary *binary) {
  const agpu_cuda_device *native = agpu_cuda_device_of(device);
  memset(binary, 0, sizeof *binary);
  const char *why = NULL;
  const agpu_cuda_nvrtc *nvrtc = agpu_cuda_nvrtc_get(&why);
  char target[32] = "";
  bool cubin = false;
  bool have_key = false;
  char hex[AGPU_CACHE_KEY_HEX_SIZE];
  if (nvrtc && agpu_cuda_choose_target(nvrtc, native->compute_capability, force_ptx, target,
                                       sizeof target, &cubin)) {
    char nvrtc_version[32];
    snprintf(nvrtc_version, sizeof nvrtc_version, "%d.%d", nvrtc->major, nvrtc->minor);
    agpu_cache_key key;
    agpu_cache_key_begin_device(&key, device, target, cuda_source, agpu_cuda_nvrtc_options_text);
    agpu_cache_key_add_string(&key, "nvrtc", nvrtc_version);
    agpu_cache_key_add_u64(&key, "cuda_driver", (uint64_t)native->api->driver_version);
    agpu_cache_key_add_u64(&key, "cubin", cubin);
    have_key = agpu_cache_key_final(&key, hex) == AGPU_SUCCESS;
    void *data = NULL;
    size_t size = 0;
    if (have_key && agpu_cache_lookup(hex, &data, &size) == AGPU_SUCCESS) {
      if (agpu_cuda_looks_like(data, size, cubin)) {
        binary->data = data;
        binary->size = size;
        binary->cubin = cubin;
        snprintf(binary->target, sizeof binary->target, "%s", target);
        return AGPU_SUCCESS;
      }
      free(data); /* not what it should be: compile again */
    }
  }
  agpu_status status =
      agpu_cuda_compile(cuda_source, source_name, native->compute_capability, force_ptx, binary);
  if (status != AGPU_SUCCESS) return status;
  /* nvrtcGetPTXSize counts the NUL: a PTX entry keeps it, as
   * cuModuleLoadDataEx wants it. */
  if (have_key) agpu_cache_store(hex, binary->data, binary->size); /* never fails the build */
  return AGPU_SUCCESS;
}

/* Compiles and loads; a cubin the driver refuses (made by a toolkit newer
 * than the driver) is tried again as PTX, which the driver compiles. */
static agpu_status agpu_cuda_build_module(agpu_program *program, agpu_cuda_program *cp,
                                          const char *cuda_source, const char *source_name) {
  agpu_cuda_binary binary;
  agpu_status status =
      agpu_cuda_binary_for(program->device, cuda_source, source_name, false, &binary);
  if (status != AGPU_SUCCESS) {
    if (binary.log)
      program->build_log = binary.log;
    else
      free(binary.log);
    return status;
  }
  agpu_cu_result result = AGPU_CUDA_SUCCESS;
  char what[64];
  snprintf(what, sizeof what, "the %s NVRTC made for %s", binary.cubin ? "cubin" : "PTX",
           binary.target);
  status = agpu_cuda_module_load(program->device, binary.data, what, &cp->module, &result);
  if (status != AGPU_SUCCESS && binary.cubin && result != AGPU_CUDA_ERROR_OUT_OF_MEMORY) {
    char first[1024];
    snprintf(first, sizeof first, "%s", agpu_last_error());
    agpu_cuda_binary_free(&binary);
    status = agpu_cuda_binary_for(program->device, cuda_source, source_name, true, &binary);
    if (status == AGPU_SUCCESS) {
      snprintf(what, sizeof what, "the PTX NVRTC made for %s", binary.target);
      status = agpu_cuda_module_load(program->device, binary.data, what, &cp->module, &result);
    }
    if (status != AGPU_SUCCESS) agpu_error_append("\n(first, as a cubin: %s)", first);
  }
  if (status == AGPU_SUCCESS) {
    snprintf(cp->target, sizeof cp->target, "%s", binary.target);
    program->build_log = binary.log;
    binary.log = NULL;
  }
  agpu_cuda_binary_free(&binary);
  return status;
}

/* Translator warnings, then NVRTC's log, in one build log. */
static void agpu_cuda_join_logs(agpu_program *program, const char *warnings) {
  if (!warnings || !warnings[0]) return;
  char *nvrtc = program->build_log;
  size_t size = strlen(warnings) + (nvrtc ? strlen(nvrtc) + 1 : 0) + 1;
  char *joined = malloc(size);
  if (!joined) return;
  snprintf(joined, size, "%s%s%s", warnings, nvrtc ? "\n" : "", nvrtc ? nvrtc : "");
  free(nvrtc);
  program->build_log = joined;
}

/* The kernels' signatures, copied from the core's parse. */
static agpu_status agpu_cuda_describe_kernels(const agpu_program_signatures *signatures,
                                              agpu_cuda_program *cp) {
  void *entries = NULL;
  agpu_status status =
      agpu_signatures_copy_into(signatures, sizeof *cp->kernels, &entries, &cp->kernel_count);
  cp->kernels = entries;
  if (status != AGPU_SUCCESS)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
  return AGPU_SUCCESS;
}

agpu_status agpu_cuda_program_build(agpu_program *program, const agpu_program_desc *desc) {
  agpu_cuda_program *cp = calloc(1, sizeof *cp);
  if (!cp) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
  cp->translated = true;
  char *cuda_source = NULL, *log = NULL;
  agpu_kernel_refusal *refused = NULL;
  /* a kernel the CUDA target cannot express is refused alone (issue 18) */
  agpu_status status = agpu_parsed_emit_kernels(
      program->parsed, AGPU_TARGET_CUDA, AGPU_ERROR_UNSUPPORTED,
      "the CUDA emitter cannot translate this kernel", &cuda_source, &refused, &log);
  if (status != AGPU_SUCCESS && log) {
    free(program->build_log);
    program->build_log = log;
  }
  if (status == AGPU_SUCCESS) status = agpu_program_take_refusals(program, refused);
  if (status == AGPU_SUCCESS)
    status = agpu_cuda_describe_kernels(agpu_parsed_signatures(program->parsed), cp);
  if (status == AGPU_SUCCESS) {
    /* translator warnings, then NVRTC's log, in one build log */
    char *warnings = program->build_log;
    program->build_log = NULL;
    status = agpu_cuda_build_module(program, cp, cuda_source,
                                    desc->source_name ? desc->source_name : "<source>");
    agpu_cuda_join_logs(program, warnings);
    free(warnings);
  }
  free(cuda_source);
  if (status == AGPU_SUCCESS)
    program->native = cp;
  else
    agpu_cuda_program_free(program->device, cp);
  return status;
}

agpu_status agpu_cuda_program_create_native(agpu_program *program, agpu_native_format format,
                                            const void *data, size_t size, const char *options) {
  (void)options;
  const char *what = NULL;
  char *copy = NULL;
  switch (format) {
    case AGPU_NATIVE_CUBIN:
      if (!agpu_cuda_looks_like(data, size, true))
        return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                              "cuda: the %zu bytes given are no cubin (no ELF header)", size);
      what = "the cubin given";
      break;
    case AGPU_NATIVE_PTX:
      /* cuModuleLoadDataEx wants the text NUL-terminated. */
      copy = malloc(size + 1);
      if (!copy) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
      memcpy(copy, data, size);
      copy[size] = '\0';
      data = copy;
      what = "the PTX given";
      break;
    case AGPU_NATIVE_OPENCL_C:
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "cuda cannot load OpenCL C (it takes PTX or a cubin; portable kernels "
                            "go through agpu_program_build)");
    case AGPU_NATIVE_SPIRV:
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "cuda cannot load SPIR-V (it takes PTX or a cubin)");
    case AGPU_NATIVE_HIP_CODE_OBJECT:
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "cuda cannot load a HIP code object (it takes PTX or a cubin)");
    default:
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED, "cuda: unknown native format %d", (int)format);
  }
  agpu_cuda_program *cp = calloc(1, sizeof *cp);
  if (!cp) {
    free(copy);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
  }
  snprintf(cp->target, sizeof cp->target, "%s", format == AGPU_NATIVE_PTX ? "ptx" : "cubin");
  agpu_cu_result result = AGPU_CUDA_SUCCESS;
  agpu_status status = agpu_cuda_module_load(program->device, data, what, &cp->module, &result);
  free(copy);
  if (status != AGPU_SUCCESS) {
    free(cp);
    return status;
  }
  program->native = cp;
  return AGPU_SUCCESS;
}

void agpu_cuda_program_release(agpu_program *program) {
  agpu_cuda_program_free(program->device, program->native);
  program->native = NULL;
}

/* --------------------------------------------------------------- kernels */

static const agpu_cuda_kernel_entry *agpu_cuda_find_entry(const agpu_cuda_program *cp,
                                                          const char *name) {
  for (uint32_t i = 0; i < cp->kernel_count; i++)
    if (strcmp(cp->kernels[i].name, name) == 0) return &cp->kernels[i];
  return NULL;
}

/* A native kernel's parameters as the driver knows them (CUDA 12.4+):
 * count and sizes, not kinds. */
static agpu_status agpu_cuda_native_params(const agpu_cuda_api *api, agpu_kernel *kernel,
                                           agpu_cu_function function) {
  if (!api->cuFuncGetParamInfo)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "cuda: kernel '%s' of a native program: this driver (CUDA %d.%d) has no "
                          "cuFuncGetParamInfo (CUDA 12.4), so its parameters are unknown",
                          kernel->info.name, api->driver_version / 1000,
                          (api->driver_version % 1000) / 10);
  uint32_t count = 0;
  size_t offset = 0, size = 0;
  while (count < 4096 &&
         api->cuFuncGetParamInfo(function, count, &offset, &size) == AGPU_CUDA_SUCCESS)
    count++;
  kernel->params = calloc(count ? count : 1, sizeof *kernel->params);
  if (!kernel->params)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
  kernel->info.param_count = count;
  for (uint32_t i = 0; i < count; i++) kernel->params[i].kind = AGPU_PARAM_UNKNOWN;
  return AGPU_SUCCESS;
}

char *agpu_cuda_program_kernel_names(const agpu_program *program) {
  const agpu_cuda_program *cp = program->native;
  if (!cp || !cp->translated) return NULL; /* a native module: the driver knows */
  return agpu_join_kernel_names(cp->kernel_count ? cp->kernels[0].name : NULL, cp->kernel_count,
                                sizeof *cp->kernels);
}

agpu_status agpu_cuda_kernel_create(agpu_kernel *kernel, const char *name) {
  const agpu_device *device = kernel->program->device;
  const agpu_cuda_api *api = agpu_cuda_device_of(device)->api;
  const agpu_cuda_program *cp = kernel->program->native;
  const agpu_cuda_kernel_entry *entry = NULL;
  if (cp->translated && !(entry = agpu_cuda_find_entry(cp, name))) {
    agpu_error_set(AGPU_ERROR_NOT_FOUND, "agpu_kernel_create: the program on %s has no kernel '%s'",
                   device->info.selector, name);
    if (cp->kernel_count) agpu_error_append("; it has:");
    for (uint32_t i = 0; i < cp->kernel_count; i++) agpu_error_append(" %s", cp->kernels[i].name);
    return AGPU_ERROR_NOT_FOUND;
  }
  agpu_status status = agpu_cuda_enter(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_cu_function function = NULL;
  agpu_cu_result result = api->cuModuleGetFunction(&function, cp->module, name);
  int max_threads = 0, static_shared = 0, max_dynamic = 0;
  if (result == AGPU_CUDA_SUCCESS) {
    api->cuFuncGetAttribute(&max_threads, AGPU_CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
    api->cuFuncGetAttribute(&static_shared, AGPU_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
    api->cuFuncGetAttribute(&max_dynamic, AGPU_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                            function);
  }
  agpu_cuda_leave(device);
  if (result != AGPU_CUDA_SUCCESS) {
    status = agpu_cuda_fail(api, "cuModuleGetFunction", result);
    agpu_error_append(" for kernel '%s' on %s", name, device->info.selector);
    return status;
  }
  if (entry) {
    kernel->params = malloc((entry->param_count ? entry->param_count : 1) * sizeof *kernel->params);
    if (!kernel->params)
      return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
    memcpy(kernel->params, entry->params, entry->param_count * sizeof *kernel->params);
    kernel->info.param_count = entry->param_count;
    kernel->info.has_required_work_group_size = entry->has_required_work_group_size;
    memcpy(kernel->info.required_work_group_size, entry->required_work_group_size,
           sizeof entry->required_work_group_size);
  } else {
    /* The function's queries run in its context. */
    status = agpu_cuda_enter(device);
    if (status != AGPU_SUCCESS) return status;
    status = agpu_cuda_native_params(api, kernel, function);
    agpu_cuda_leave(device);
    if (status != AGPU_SUCCESS) return status; /* the core frees kernel->params */
  }
  kernel->info.max_work_group_size = max_threads > 0 ? (uint32_t)max_threads : 0;
  agpu_cuda_kernel *native = calloc(1, sizeof *native);
  if (!native) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
  native->function = function;
  native->launch_info = cp->translated;
  native->static_shared_bytes = static_shared;
  native->max_dynamic_shared = max_dynamic;
  pthread_mutex_init(&native->lock, NULL);
  kernel->native = native;
  return AGPU_SUCCESS;
}

void agpu_cuda_kernel_release(agpu_kernel *kernel) {
  agpu_cuda_kernel *native = kernel->native;
  if (!native) return;
  pthread_mutex_destroy(&native->lock);
  free(native);
  kernel->native = NULL;
}
