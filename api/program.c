// SPDX-License-Identifier: Apache-2.0
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_core.h"
#include "agpu_parsed.h"
#include "agpu_check.h"
#include "agpu_printf.h"
#include "agpu_trace.h"

static agpu_status agpu_program_new(agpu_device *device, agpu_program **out) {
  agpu_program *program = calloc(1, sizeof *program);
  if (!program) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "program: out of host memory");
  program->device = device;
  atomic_init(&program->references, 1);
  *out = program;
  return AGPU_SUCCESS;
}

/* The caller's options plus -D__ANYGPU_<BACKEND>__=1 (from the backend's
 * name), so that a kernel can tell which backend builds it; appended, so
 * that positions in the caller's options stay as written. */
char *agpu_program_options_with_backend(const char *options, const char *backend) {
  return agpu_program_options_for(options, backend, true);
}

char *agpu_program_options_for(const char *options, const char *backend, bool environment) {
  char macro[96];
  size_t n = (size_t)snprintf(macro, sizeof macro, "-D__ANYGPU_%s__=1", backend);
  for (size_t i = 11; i < n; i++) macro[i] = (char)toupper((unsigned char)macro[i]);
  /* ANYGPU_CHECK=bounds: every build checks its accesses (agpu_check.h) */
  const char *check = environment ? getenv("ANYGPU_CHECK") : NULL;
  if (check && strstr(check, "bounds") && !(options && strstr(options, AGPU_PROGRAM_CHECK_BOUNDS)))
    n += (size_t)snprintf(macro + n, sizeof macro - n, " %s", AGPU_PROGRAM_CHECK_BOUNDS);
  size_t size = (options ? strlen(options) : 0) + n + 2;
  char *all = malloc(size);
  if (all)
    snprintf(all, size, "%s%s%s", options ? options : "", options && *options ? " " : "", macro);
  return all;
}

static void agpu_program_free(agpu_program *program) {
  agpu_check_twin_release(program->twin);
  agpu_program_free_refusals(program);
  agpu_printf_table_release(program->printf);
  agpu_check_table_release(program->checks);
  free(program->build_log);
  free(program);
}

/* A built program gets its handle; without one it is released again. */
static agpu_status agpu_program_finish(agpu_program *program, agpu_program **out) {
  agpu_status status = agpu_object_publish(&program->object, AGPU_OBJECT_PROGRAM);
  if (status != AGPU_SUCCESS) {
    if (program->device->backend->ops->program_release)
      program->device->backend->ops->program_release(program);
    agpu_program_free(program);
    return status;
  }
  *out = program->object.handle;
  return AGPU_SUCCESS;
}

/* What the translator may assume of the device: the backend's word, or the
 * device info's. */
static agpu_translate_traits agpu_program_traits(agpu_device *device) {
  agpu_translate_traits traits = {.fp64 = device->info.fp64,
                                  .fp16 = device->info.fp16,
                                  .int64 = device->info.int64,
                                  .local_mem_bytes = device->info.local_mem_bytes};
  if (device->backend->ops->translate_traits)
    device->backend->ops->translate_traits(device, &traits);
  return traits;
}

bool agpu_options_take(char *options, const char *flag) {
  const size_t length = strlen(flag);
  bool found = false;
  for (char *at = options; (at = strstr(at, flag)) != NULL;) {
    char after = at[length];
    if ((at == options || at[-1] == ' ') && (after == '\0' || after == ' ')) {
      memmove(at, at + length, strlen(at + length) + 1);
      found = true;
    } else {
      at += length;
    }
  }
  return found;
}

/* The translator refused the source and the backend compiles OpenCL C
 * itself: the driver gets the source as written, and the refusal becomes a
 * warning in the build log (the user's existing OpenCL keeps working on
 * OpenCL devices). When the driver refuses it too, the translator's error
 * stands. */
static agpu_status agpu_program_pass_through(agpu_program *program, const agpu_program_desc *desc) {
  char *refusal = agpu_strdup(agpu_last_error());
  if (!refusal)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
  program->parsed = NULL;
  agpu_status status = program->device->backend->ops->program_build(program, desc);
  if (status != AGPU_SUCCESS) {
    agpu_error_set(AGPU_ERROR_BUILD_FAILED, "%s", refusal);
    agpu_error_append("\n(the OpenCL driver, given the source as written, refused it too)");
    free(refusal);
    return AGPU_ERROR_BUILD_FAILED;
  }
  char *log = NULL;
  if (asprintf(&log,
               "warning: outside anygpu's portable subset, so built for OpenCL devices only: "
               "the driver compiled the source as written (-Werror=portable makes this an "
               "error):\n%s\n%s",
               refusal, program->build_log ? program->build_log : "") < 0)
    log = NULL;
  free(refusal);
  if (!log)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
  free(program->build_log);
  program->build_log = log;
  return AGPU_SUCCESS;
}

/* Parses and checks once, then the backend compiles what it needs. */
static agpu_status agpu_program_build_parsed(agpu_program *program, const agpu_program_desc *desc,
                                             bool strict) {
  agpu_device *device = program->device;
  agpu_translate_traits traits = agpu_program_traits(device);
  /* A translator limit (nesting, expansion, size: kernel-language.md,
   * "Limits") guards the driver's compiler too (a 100,000-term chain
   * overflows its stack): never passed through. */
  bool hit_limit = false;
  agpu_status status =
      agpu_parsed_create(desc, &traits, device->info.selector, &program->parsed, NULL, &hit_limit);
  if (status == AGPU_ERROR_BUILD_FAILED && !strict && !hit_limit &&
      (device->backend->descriptor->native_formats & (1u << AGPU_NATIVE_OPENCL_C)))
    return agpu_program_pass_through(program, desc);
  if (status != AGPU_SUCCESS) return status;
  const char *warnings = agpu_parsed_warnings(program->parsed);
  if (*warnings && !(program->build_log = agpu_strdup(warnings)))
    status =
        agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
  if (status == AGPU_SUCCESS) status = agpu_printf_table_create(program->parsed, &program->printf);
  if (status == AGPU_SUCCESS) status = agpu_check_table_create(program->parsed, &program->checks);
  if (status == AGPU_SUCCESS) status = device->backend->ops->program_build(program, desc);
  agpu_parsed_release(program->parsed); /* a backend that needs it later retained it */
  program->parsed = NULL;
  return status;
}

agpu_status agpu_check_include_dirs(const char *function, const char *const *dirs, uint32_t count) {
  if (count > 0 && !dirs)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "%s: include_dirs is NULL but include_dir_count is %u", function, count);
  for (uint32_t i = 0; i < count; i++)
    if (!dirs[i])
      return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: include_dirs[%u] is NULL", function,
                            i);
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_program_build(agpu_device *device, const agpu_program_desc *desc,
                                        agpu_program **program) {
  static const char function[] = "agpu_program_build";
  agpu_status status = agpu_check_device(device, function);
  if (status != AGPU_SUCCESS) return status;
  if (!program) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: program is NULL", function);
  *program = NULL;
  if (!desc || !desc->source)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: no source given", function);
  status = agpu_check_include_dirs(function, desc->include_dirs, desc->include_dir_count);
  if (status != AGPU_SUCCESS) return status;
  const agpu_backend_ops *ops = device->backend->ops;
  uint32_t caps = ops->device_caps ? ops->device_caps(device) : 0;
  if (!(caps & AGPU_CAP_BUILD_PORTABLE) || !ops->program_build)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "%s: the %s backend cannot build portable kernels yet (%s)", function,
                          device->backend->descriptor->name, device->info.selector);
  agpu_program *created = NULL;
  status = agpu_program_build_object(device, desc, true, &created);
  if (status == AGPU_SUCCESS) status = agpu_check_twin_prepare(created, desc);
  if (status != AGPU_SUCCESS) {
    if (created) agpu_program_free(created);
    return status;
  }
  return agpu_program_finish(created, program);
}

agpu_status agpu_program_build_object(agpu_device *device, const agpu_program_desc *desc,
                                      bool environment, agpu_program **out) {
  *out = NULL;
  agpu_program_desc copy = *desc;
  if (!copy.source_name) copy.source_name = "<source>";
  if (!copy.source_size) copy.source_size = strlen(copy.source);
  char *options =
      agpu_program_options_for(desc->options, device->backend->descriptor->name, environment);
  if (!options)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
  /* "-Werror=portable": a source outside the portable subset is an error on
   * OpenCL too; taken out of the options (no driver knows it) */
  bool strict = agpu_options_take(options, "-Werror=portable");
  copy.options = options;
  agpu_program *created = NULL;
  agpu_trace_span span;
  AGPU_TRACE_BEGIN(&span, NULL);
  agpu_status status = agpu_program_new(device, &created);
  if (status == AGPU_SUCCESS) status = agpu_program_build_parsed(created, &copy, strict);
  AGPU_TRACE_END(&span, status, .kind = AGPU_TRACE_BUILD, .device = device,
                 .name = copy.source_name);
  free(options);
  if (status != AGPU_SUCCESS) {
    if (created) agpu_program_free(created);
    return status;
  }
  *out = created;
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_program_create_native(agpu_device *device, agpu_native_format format,
                                                const void *data, size_t size, const char *options,
                                                agpu_program **program) {
  static const char function[] = "agpu_program_create_native";
  agpu_status status = agpu_check_device(device, function);
  if (status != AGPU_SUCCESS) return status;
  if (!program) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: program is NULL", function);
  *program = NULL;
  if (!data || !size)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: no data given", function);
  if ((unsigned)format > AGPU_NATIVE_HIP_CODE_OBJECT)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: unknown format %d", function,
                          (int)format);
  const agpu_backend_ops *ops = device->backend->ops;
  if (!ops->program_create_native)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED, "%s: the %s backend loads no native programs",
                          function, device->backend->descriptor->name);
  agpu_program *created = NULL;
  status = agpu_program_new(device, &created);
  if (status != AGPU_SUCCESS) return status;
  created->from_native = true;
  status = ops->program_create_native(created, format, data, size, options ? options : "");
  if (status != AGPU_SUCCESS) {
    agpu_program_free(created);
    return agpu_error_prefix(status, function);
  }
  return agpu_program_finish(created, program);
}

/* Drops one reference; the last one frees the native program. */
void agpu_program_unreference(agpu_program *program) {
  if (atomic_fetch_sub(&program->references, 1) != 1) return;
  if (program->device->backend->ops->program_release)
    program->device->backend->ops->program_release(program);
  agpu_program_free(program);
}

AGPU_API agpu_status agpu_program_release(agpu_program *handle) {
  agpu_program *program;
  agpu_status status = agpu_take_program(handle, "agpu_program_release", "program", &program);
  if (status != AGPU_SUCCESS) return status;
  /* The handle is dead for the user now, even while kernels keep it alive. */
  agpu_program_unreference(program);
  return AGPU_SUCCESS;
}

AGPU_API const char *agpu_program_build_log(const agpu_program *handle) {
  agpu_program *program;
  if (agpu_lookup_program(handle, "agpu_program_build_log", "program", &program) != AGPU_SUCCESS)
    return "";
  return program->build_log ? program->build_log : "";
}

AGPU_API agpu_status agpu_kernel_create(agpu_program *handle, const char *name,
                                        agpu_kernel **kernel) {
  static const char function[] = "agpu_kernel_create";
  agpu_program *program;
  agpu_status status = agpu_lookup_program(handle, function, "program", &program);
  if (status != AGPU_SUCCESS) return status;
  if (!kernel) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: kernel is NULL", function);
  *kernel = NULL;
  if (!name || !*name)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "%s: no kernel name given", function);
  agpu_kernel *created;
  status = agpu_kernel_make(program, name, &created);
  if (status != AGPU_SUCCESS) return status;
  status = agpu_object_publish(&created->object, AGPU_OBJECT_KERNEL);
  if (status != AGPU_SUCCESS) {
    agpu_kernel_destroy(created);
    return status;
  }
  *kernel = created->object.handle;
  return AGPU_SUCCESS;
}

agpu_status agpu_kernel_make(agpu_program *program, const char *name, agpu_kernel **out) {
  static const char function[] = "agpu_kernel_create";
  *out = NULL;
  const agpu_kernel_refusal *refusal = agpu_program_refusal(program, name);
  if (refusal)
    return agpu_error_set(refusal->status,
                          "%s: kernel '%s' was not built for %s (the program's other kernels "
                          "were): %s",
                          function, name, program->device->info.selector, refusal->message);
  agpu_status status = agpu_kernel_check_name(program, name);
  if (status != AGPU_SUCCESS) return status;
  agpu_kernel *created = calloc(1, sizeof *created);
  if (!created)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", function);
  created->program = program;
  snprintf(created->info.name, sizeof created->info.name, "%s", name);
  status = program->device->backend->ops->kernel_create(created, name);
  if (status != AGPU_SUCCESS) {
    free(created->params);
    free(created);
    return agpu_error_prefix(status, function);
  }
  created->info.params = created->params;
  if (agpu_printf_table_prints(program->printf, name) && created->info.param_count > 0) {
    /* the hidden printf buffer is the core's to pass (agpu_printf.h) */
    created->info.param_count--;
    created->printf = program->printf;
    agpu_printf_table_retain(created->printf);
  }
  if (program->checks && created->info.param_count > 0) {
    /* and the hidden check buffer (agpu_check.h) */
    created->info.param_count--;
    created->checks = program->checks;
    agpu_check_table_retain(created->checks);
    created->proof = program->twin ? agpu_check_proof_of(program->checks, name) : NULL;
  }
  agpu_kernel_normalize_params(created);
  atomic_fetch_add(&program->references, 1);
  *out = created;
  return AGPU_SUCCESS;
}

void agpu_kernel_destroy(agpu_kernel *kernel) {
  agpu_kernel *unchecked = atomic_load(&kernel->unchecked);
  if (unchecked) agpu_kernel_destroy(unchecked);
  kernel->program->device->backend->ops->kernel_release(kernel);
  agpu_printf_table_release(kernel->printf);
  agpu_check_table_release(kernel->checks);
  agpu_program_unreference(kernel->program);
  free(kernel->params);
  free(kernel);
}

AGPU_API agpu_status agpu_kernel_release(agpu_kernel *handle) {
  agpu_kernel *kernel;
  agpu_status status = agpu_take_kernel(handle, "agpu_kernel_release", "kernel", &kernel);
  if (status != AGPU_SUCCESS) return status;
  agpu_kernel_destroy(kernel);
  return AGPU_SUCCESS;
}

AGPU_API agpu_status agpu_kernel_get_info(const agpu_kernel *handle, agpu_kernel_info *info) {
  agpu_kernel *kernel;
  agpu_status status = agpu_lookup_kernel(handle, "agpu_kernel_get_info", "kernel", &kernel);
  if (status != AGPU_SUCCESS) return status;
  if (!info)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_kernel_get_info: info is NULL");
  *info = kernel->info;
  return AGPU_SUCCESS;
}
