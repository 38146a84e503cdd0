// SPDX-License-Identifier: Apache-2.0
/* agpu_program_build on HIP: the portable source goes through the
 * translator to HIP C++ (kernels/emit_cuda.c, the launch ABI of
 * kernels/cuda_abi.h), hiprtc compiles it for the device's gfx target in a
 * child process (hip_compile.c), the kernel cache keeps the code object, and
 * hipModuleLoadData loads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_cache.h"
#include "agpu_parsed.h"
#include "hip_internal.h"

static void agpu_hip_program_free(agpu_hip_program *hp) {
  if (!hp) return;
  for (uint32_t i = 0; i < hp->kernel_count; i++) free(hp->kernels[i].params);
  free(hp->kernels);
  free(hp);
}

/* The public signature of one kernel, from the core's parse. */
static agpu_status agpu_hip_describe_kernel(const agpu_kernel_signature *signature,
                                            agpu_hip_kernel_entry *entry) {
  agpu_copy_text(entry->name, sizeof entry->name, signature->name);
  entry->has_required_work_group_size = signature->has_required_work_group_size;
  memcpy(entry->required_work_group_size, signature->required_work_group_size,
         sizeof entry->required_work_group_size);
  entry->static_local_bytes = signature->local_memory_bytes;
  uint32_t count = signature->param_count;
  entry->param_count = count;
  entry->params = calloc(count ? count : 1, sizeof *entry->params);
  if (!entry->params)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
  if (count) memcpy(entry->params, signature->params, count * sizeof *entry->params);
  return AGPU_SUCCESS;
}

/* The code object for `source`: from the cache, else from hiprtc (then
 * stored). */
static agpu_status agpu_hip_code_for(const agpu_hiprtc_api *rtc,
                                     const agpu_hip_build_target *target, const char *source,
                                     const char *options, const char *source_name,
                                     agpu_hip_built *out) {
  agpu_cache_key key;
  agpu_cache_key_fields fields = {
      .source = source,
      .options = options,
      .translator_version = AGPU_TRANSLATOR_VERSION,
      .backend = "hip",
      .target = target->arch,
      .device_name = target->device_name,
      .driver_version = target->driver_version,
  };
  char hex[AGPU_CACHE_KEY_HEX_SIZE];
  agpu_cache_key_begin(&key, &fields);
  agpu_cache_key_add_string(&key, "hiprtc", rtc->library_name);
  agpu_cache_key_add_string(&key, "hiprtc_version", rtc->version);
  agpu_cache_key_add_u64(&key, "hip_runtime_version", (uint64_t)(int64_t)target->runtime_version);
  bool have_key = agpu_cache_key_final(&key, hex) == AGPU_SUCCESS;
  if (have_key && agpu_cache_lookup(hex, &out->code, &out->code_size) == AGPU_SUCCESS) {
    if (agpu_hip_is_code_object(out->code, out->code_size)) {
      out->from_cache = true;
      return AGPU_SUCCESS;
    }
    free(out->code); /* not a code object: compile again */
    out->code = NULL;
    out->code_size = 0;
  }
  agpu_hip_code compiled;
  agpu_status status = agpu_hip_compile(rtc, source, source_name, target->arch, 0, &compiled);
  if (status == AGPU_SUCCESS && !agpu_hip_is_code_object(compiled.code, compiled.code_size))
    status = agpu_error_set(AGPU_ERROR_INTERNAL,
                            "hip: hiprtc gave %zu bytes for %s that are neither an ELF code "
                            "object nor an offload bundle",
                            compiled.code_size, target->arch);
  if (compiled.log) { /* hiprtc's warnings or errors */
    free(out->log);
    out->log = compiled.log;
    compiled.log = NULL;
  }
  if (status != AGPU_SUCCESS) {
    agpu_hip_code_free(&compiled);
    return status;
  }
  if (have_key) agpu_cache_store(hex, compiled.code, compiled.code_size); /* never fails a build */
  out->code = compiled.code;
  out->code_size = compiled.code_size;
  compiled.code = NULL;
  agpu_hip_code_free(&compiled);
  return AGPU_SUCCESS;
}

void agpu_hip_built_free(agpu_hip_built *built) {
  agpu_hip_program_free(built->program);
  agpu_kernel_refusals_free(built->refused);
  free(built->code);
  free(built->log);
  memset(built, 0, sizeof *built);
}

/* Each kernel's signature. One whose __local arrays need more shared
 * memory than the device has is refused alone by the emitter. */
static agpu_status agpu_hip_describe_kernels(const agpu_program_signatures *signatures,
                                             agpu_hip_program *hp) {
  hp->kernels =
      calloc(signatures->kernel_count ? signatures->kernel_count : 1, sizeof *hp->kernels);
  if (!hp->kernels) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
  for (uint32_t i = 0; i < signatures->kernel_count; i++) {
    const agpu_kernel_signature *kernel = &signatures->kernels[i];
    agpu_status status = agpu_hip_describe_kernel(kernel, &hp->kernels[hp->kernel_count++]);
    if (status != AGPU_SUCCESS) return status;
  }
  return AGPU_SUCCESS;
}

/* agpu_hip_build_code on a source the core has parsed. */
static agpu_status agpu_hip_build_parsed(const agpu_hiprtc_api *rtc,
                                         const agpu_hip_build_target *target, agpu_parsed *parsed,
                                         agpu_hip_built *out) {
  memset(out, 0, sizeof *out);
  out->program = calloc(1, sizeof *out->program);
  if (!out->program)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
  const char *warnings = agpu_parsed_warnings(parsed);
  if (*warnings && !(out->log = agpu_strdup(warnings)))
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
  agpu_status status = agpu_hip_describe_kernels(agpu_parsed_signatures(parsed), out->program);
  if (status != AGPU_SUCCESS) return status;
  char *source = NULL, *log = NULL;
  /* a kernel the HIP target cannot express is refused alone (issue 18) */
  status = agpu_parsed_emit_kernels(parsed, AGPU_TARGET_HIP, AGPU_ERROR_UNSUPPORTED,
                                    "the HIP emitter cannot translate this kernel", &source,
                                    &out->refused, &log);
  if (status != AGPU_SUCCESS) {
    free(out->log);
    out->log = log;
    return status;
  }
  status = agpu_hip_code_for(rtc, target, source, agpu_parsed_options(parsed),
                             agpu_parsed_source_name(parsed), out);
  free(source);
  return status;
}

agpu_status agpu_hip_build_code(const agpu_hiprtc_api *rtc, const agpu_hip_build_target *target,
                                const agpu_program_desc *desc, agpu_hip_built *out) {
  memset(out, 0, sizeof *out);
  agpu_translate_traits traits = {.fp64 = target->fp64,
                                  .fp16 = target->fp16,
                                  .int64 = target->int64,
                                  .local_mem_bytes = target->local_mem_bytes};
  agpu_parsed *parsed = NULL;
  agpu_status status =
      agpu_parsed_create(desc, &traits, target->selector, &parsed, &out->log, NULL);
  if (status == AGPU_SUCCESS) status = agpu_hip_build_parsed(rtc, target, parsed, out);
  agpu_parsed_release(parsed);
  return status;
}

static agpu_status agpu_hip_load_module(agpu_program *program, const void *code,
                                        agpu_hipModule_t *module) {
  const agpu_hip_device *device = agpu_hip_device_of(program->device);
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hipError_t error = device->api->hipModuleLoadData(module, code);
  if (error == AGPU_hipSuccess) return AGPU_SUCCESS;
  agpu_hip_fail(device->api, "hipModuleLoadData", error);
  agpu_error_append(" (loading a code object on %s, %s)", program->device->info.selector,
                    device->gcn_arch_name[0] ? device->gcn_arch_name : "gfx target unknown");
  return agpu_hip_status(error) == AGPU_ERROR_BACKEND ? AGPU_ERROR_BUILD_FAILED
                                                      : agpu_hip_status(error);
}

agpu_status agpu_hip_program_build(agpu_program *program, const agpu_program_desc *desc) {
  const agpu_hip_device *device = agpu_hip_device_of(program->device);
  const agpu_device_info *info = &program->device->info;
  char why[512];
  const agpu_hiprtc_api *rtc = agpu_hiprtc_get(device->api, why, sizeof why);
  if (!rtc)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "agpu_program_build: %s cannot compile kernels: %s (native HIP code "
                          "objects still load with agpu_program_create_native)",
                          info->selector, why);
  if (!info->arch[0])
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "agpu_program_build: %s's gfx target is unknown (the HIP runtime gave "
                          "no gcnArchName), so hiprtc has nothing to compile for",
                          info->selector);
  agpu_hip_build_target target = {
      .arch = info->arch,
      .selector = info->selector,
      .device_name = info->name,
      .driver_version = info->driver_version,
      .runtime_version = device->api->runtime_version,
      .fp64 = info->fp64,
      .fp16 = info->fp16,
      .int64 = info->int64,
      .local_mem_bytes = info->local_mem_bytes,
  };
  (void)desc; /* the core parsed it: program->parsed */
  agpu_hip_built built;
  agpu_status status = agpu_hip_build_parsed(rtc, &target, program->parsed, &built);
  if (status == AGPU_SUCCESS)
    status = agpu_hip_load_module(program, built.code, &built.program->module);
  free(program->build_log);
  program->build_log = built.log;
  built.log = NULL;
  if (status == AGPU_SUCCESS) { /* the build log warns of each */
    status = agpu_program_take_refusals(program, built.refused);
    built.refused = NULL;
  }
  if (status == AGPU_SUCCESS) {
    program->native = built.program;
    built.program = NULL;
  }
  agpu_hip_built_free(&built);
  return status;
}

agpu_status agpu_hip_program_create_native(agpu_program *program, agpu_native_format format,
                                           const void *data, size_t size, const char *options) {
  (void)options;
  if (format != AGPU_NATIVE_HIP_CODE_OBJECT)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "hip loads HIP code objects only (an AMDGPU ELF or a clang offload "
                          "bundle), not format %d",
                          (int)format);
  if (!agpu_hip_is_code_object(data, size))
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "hip: the %zu bytes given are neither an ELF code object nor a clang "
                          "offload bundle",
                          size);
  agpu_hip_program *hp = calloc(1, sizeof *hp);
  if (!hp) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
  /* The kernels' signatures come from the code object's own metadata. */
  agpu_status status = agpu_hip_read_metadata(data, size, program->device->info.arch, hp);
  if (status == AGPU_SUCCESS) status = agpu_hip_load_module(program, data, &hp->module);
  if (status != AGPU_SUCCESS) {
    agpu_hip_program_free(hp);
    return status;
  }
  program->native = hp;
  return AGPU_SUCCESS;
}

void agpu_hip_program_release(agpu_program *program) {
  agpu_hip_program *hp = program->native;
  if (!hp) return;
  const agpu_hip_device *device = agpu_hip_device_of(program->device);
  if (hp->module && agpu_hip_use(device) == AGPU_SUCCESS) device->api->hipModuleUnload(hp->module);
  agpu_hip_program_free(hp);
  program->native = NULL;
}

char *agpu_hip_program_kernel_names(const agpu_program *program) {
  const agpu_hip_program *hp = program->native;
  if (!hp) return NULL;
  return agpu_join_kernel_names(hp->kernel_count ? hp->kernels[0].name : NULL, hp->kernel_count,
                                sizeof *hp->kernels);
}

agpu_status agpu_hip_kernel_create(agpu_kernel *kernel, const char *name) {
  agpu_hip_program *hp = kernel->program->native;
  const agpu_device_info *info = &kernel->program->device->info;
  const agpu_hip_device *device = agpu_hip_device_of(kernel->program->device);
  const agpu_hip_kernel_entry *entry = NULL;
  for (uint32_t i = 0; i < hp->kernel_count && !entry; i++)
    if (strcmp(hp->kernels[i].name, name) == 0) entry = &hp->kernels[i];
  if (!entry) {
    agpu_error_set(AGPU_ERROR_NOT_FOUND, "agpu_kernel_create: the program on %s has no kernel '%s'",
                   info->selector, name);
    agpu_error_append("; it has:");
    for (uint32_t i = 0; i < hp->kernel_count; i++) agpu_error_append(" %s", hp->kernels[i].name);
    return AGPU_ERROR_NOT_FOUND;
  }
  agpu_status status = agpu_hip_use(device);
  if (status != AGPU_SUCCESS) return status;
  agpu_hip_kernel *native = calloc(1, sizeof *native);
  kernel->params = malloc((entry->param_count ? entry->param_count : 1) * sizeof *kernel->params);
  if (!native || !kernel->params) {
    free(native);
    free(kernel->params);
    kernel->params = NULL;
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "hip: out of host memory");
  }
  agpu_hipError_t error = device->api->hipModuleGetFunction(&native->function, hp->module, name);
  if (error != AGPU_hipSuccess) {
    free(native);
    free(kernel->params);
    kernel->params = NULL;
    return agpu_hip_fail(device->api, "hipModuleGetFunction", error);
  }
  native->entry = entry;
  memcpy(kernel->params, entry->params, entry->param_count * sizeof *kernel->params);
  kernel->info.param_count = entry->param_count;
  kernel->info.has_required_work_group_size = entry->has_required_work_group_size;
  memcpy(kernel->info.required_work_group_size, entry->required_work_group_size,
         sizeof entry->required_work_group_size);
  int max_threads = 0;
  if (device->api->hipFuncGetAttribute &&
      device->api->hipFuncGetAttribute(&max_threads, AGPU_HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                       native->function) == AGPU_hipSuccess &&
      max_threads > 0)
    kernel->info.max_work_group_size = (uint32_t)max_threads;
  else if (entry->max_work_group_size)
    kernel->info.max_work_group_size = entry->max_work_group_size;
  else
    kernel->info.max_work_group_size = info->max_work_group_size;
  kernel->native = native;
  return AGPU_SUCCESS;
}

void agpu_hip_kernel_release(agpu_kernel *kernel) {
  free(kernel->native);
  kernel->native = NULL;
}
