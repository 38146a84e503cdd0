// SPDX-License-Identifier: Apache-2.0
/* Running one corpus kernel on one device, through the public API only. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

bool corpus_show_build_logs = false;

typedef struct corpus_session {
  const corpus_kernel *kernel;
  agpu_device *device;
  agpu_program *program;
  agpu_kernel *handle;
  agpu_buffer *buffers[CORPUS_MAX_ARGS];
  void *host[CORPUS_MAX_ARGS]; /* staging for each buffer's initial contents */
  char *message;
  size_t capacity;
} corpus_session;

static corpus_outcome corpus_say(corpus_session *session, corpus_outcome outcome,
                                 const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(session->message, session->capacity, format, args);
  va_end(args);
  return outcome;
}

void corpus_launch_size(const corpus_kernel *kernel, size_t global[3]) {
  for (int d = 0; d < 3; d++)
    global[d] = (kernel->global[d] + kernel->local[d] - 1) / kernel->local[d] * kernel->local[d];
}

const char *corpus_device_selector(agpu_device *device) {
  static _Thread_local agpu_device_info info;
  if (agpu_device_get_info(device, &info) != AGPU_SUCCESS) return "?";
  return info.selector;
}

static corpus_outcome corpus_check_requirements(corpus_session *session) {
  agpu_device_info info;
  if (agpu_device_get_info(session->device, &info) != AGPU_SUCCESS)
    return corpus_say(session, CORPUS_FAILED, "agpu_device_get_info: %s", agpu_last_error());
  unsigned requires = session->kernel->requires;
  if ((requires & CORPUS_REQUIRES_FP64) && !info.fp64)
    return corpus_say(session, CORPUS_SKIPPED, "%s has no fp64", info.selector);
  if ((requires & CORPUS_REQUIRES_FP16) && !info.fp16)
    return corpus_say(session, CORPUS_SKIPPED, "%s has no fp16", info.selector);
  if ((requires & CORPUS_REQUIRES_INT64) && !info.int64)
    return corpus_say(session, CORPUS_SKIPPED, "%s has no 64-bit integers", info.selector);
  return CORPUS_RAN;
}

static corpus_outcome corpus_build(corpus_session *session) {
  const corpus_kernel *kernel = session->kernel;
  /* Headers are found next to the kernel, as a host passing -I would. */
  const char *include_dirs[1] = {kernel->dir};
  agpu_program_desc desc = {.source = kernel->source,
                            .source_size = kernel->source_size,
                            .source_name = kernel->file_name,
                            .options = kernel->options[0] ? kernel->options : NULL,
                            .include_dirs = include_dirs,
                            .include_dir_count = 1};
  agpu_status status = agpu_program_build(session->device, &desc, &session->program);
  if (status == AGPU_ERROR_UNSUPPORTED)
    return corpus_say(session, CORPUS_SKIPPED, "%s", agpu_last_error());
  if (status != AGPU_SUCCESS)
    return corpus_say(session, CORPUS_FAILED, "build: %s: %s", agpu_status_name(status),
                      agpu_last_error());
  const char *log = agpu_program_build_log(session->program);
  if (log[0] && corpus_show_build_logs)
    printf("  note: %s on %s: build log:\n%s\n", kernel->file_name,
           corpus_device_selector(session->device), log);
  status = agpu_kernel_create(session->program, kernel->entry, &session->handle);
  if (status != AGPU_SUCCESS)
    return corpus_say(session, CORPUS_FAILED, "agpu_kernel_create('%s'): %s: %s", kernel->entry,
                      agpu_status_name(status), agpu_last_error());
  return CORPUS_RAN;
}

/* The type a parameter's reported type name ("float*", "unsigned int",
 * "float4") names; false when it is not a built-in type (a typedef). */
static bool corpus_param_type(const char *type_name, corpus_type *type) {
  char name[80];
  snprintf(name, sizeof name, "%s%s", strncmp(type_name, "unsigned ", 9) == 0 ? "u" : "",
           type_name + (strncmp(type_name, "unsigned ", 9) == 0 ? 9 : 0));
  size_t length = strcspn(name, " *");
  name[length] = '\0';
  return corpus_type_parse(name, type);
}

/* The header's arguments against the kernel's signature, where the backend
 * reports one: kinds, and types where they are built-in types. */
static corpus_outcome corpus_check_signature(corpus_session *session) {
  const corpus_kernel *kernel = session->kernel;
  agpu_kernel_info info;
  if (agpu_kernel_get_info(session->handle, &info) != AGPU_SUCCESS)
    return corpus_say(session, CORPUS_FAILED, "agpu_kernel_get_info: %s", agpu_last_error());
  if (info.param_count != kernel->arg_count)
    return corpus_say(session, CORPUS_FAILED, "kernel '%s' has %u parameters; the header gives %u",
                      kernel->entry, info.param_count, kernel->arg_count);
  for (uint32_t i = 0; i < kernel->arg_count; i++) {
    const corpus_arg *arg = &kernel->args[i];
    const agpu_kernel_param *param = &info.params[i];
    if (param->kind == AGPU_PARAM_UNKNOWN) continue;
    bool kind_ok = arg->kind == CORPUS_ARG_VALUE   ? param->kind == AGPU_PARAM_SCALAR
                   : arg->kind == CORPUS_ARG_LOCAL ? param->kind == AGPU_PARAM_LOCAL
                                                   : param->kind == AGPU_PARAM_GLOBAL_BUFFER ||
                                                         param->kind == AGPU_PARAM_CONSTANT_BUFFER;
    corpus_type reported;
    bool type_ok = !corpus_param_type(param->type_name, &reported) ||
                   (reported.scalar == arg->type.scalar && reported.lanes == arg->type.lanes);
    if (!kind_ok || !type_ok)
      return corpus_say(session, CORPUS_FAILED,
                        "header line %d does not match parameter %u ('%s', %s) of kernel '%s'",
                        arg->line, i, param->name, param->type_name, kernel->entry);
  }
  return CORPUS_RAN;
}

static corpus_outcome corpus_create_buffers(corpus_session *session) {
  const corpus_kernel *kernel = session->kernel;
  for (uint32_t i = 0; i < kernel->arg_count; i++) {
    const corpus_arg *arg = &kernel->args[i];
    if (arg->kind != CORPUS_ARG_BUFFER) continue;
    size_t bytes = corpus_buffer_bytes(arg);
    session->host[i] = malloc(bytes);
    if (!session->host[i]) return corpus_say(session, CORPUS_FAILED, "out of host memory");
    agpu_status status = agpu_buffer_create(session->device, bytes, 0, &session->buffers[i]);
    if (status != AGPU_SUCCESS)
      return corpus_say(session, CORPUS_FAILED, "agpu_buffer_create(%zu bytes) for line %d: %s",
                        bytes, arg->line, agpu_last_error());
  }
  return CORPUS_RAN;
}

/* One run: inputs and poison written, the launch, the compared buffers read
 * back into `result`. */
static corpus_outcome corpus_run_once(corpus_session *session, uint64_t seed, int poison,
                                      corpus_result *result) {
  const corpus_kernel *kernel = session->kernel;
  agpu_arg args[CORPUS_MAX_ARGS];
  for (uint32_t i = 0; i < kernel->arg_count; i++) {
    const corpus_arg *arg = &kernel->args[i];
    switch (arg->kind) {
      case CORPUS_ARG_BUFFER: {
        corpus_fill_buffer(kernel, i, seed, poison, session->host[i]);
        agpu_status status = agpu_buffer_write(NULL, session->buffers[i], 0,
                                               corpus_buffer_bytes(arg), session->host[i]);
        if (status != AGPU_SUCCESS)
          return corpus_say(session, CORPUS_FAILED, "agpu_buffer_write: %s", agpu_last_error());
        args[i] = agpu_arg_buffer(session->buffers[i]);
        break;
      }
      case CORPUS_ARG_VALUE:
        args[i] = corpus_value_arg(arg);
        break;
      case CORPUS_ARG_LOCAL:
        args[i] = agpu_arg_local(arg->count * corpus_type_size(arg->type));
        break;
    }
  }
  size_t global[3];
  corpus_launch_size(kernel, global);
  agpu_status status = agpu_launch(NULL, session->handle, kernel->dims, global, kernel->local,
                                   kernel->arg_count, args);
  if (status != AGPU_SUCCESS)
    return corpus_say(session, CORPUS_FAILED, "agpu_launch: %s: %s", agpu_status_name(status),
                      agpu_last_error());
  for (uint32_t i = 0; i < kernel->arg_count; i++) {
    const corpus_arg *arg = &kernel->args[i];
    if (arg->kind != CORPUS_ARG_BUFFER || !arg->compared) continue;
    size_t bytes = corpus_buffer_bytes(arg);
    result->buffers[i] = malloc(bytes);
    result->sizes[i] = bytes;
    if (!result->buffers[i]) return corpus_say(session, CORPUS_FAILED, "out of host memory");
    status = agpu_buffer_read(NULL, session->buffers[i], 0, bytes, result->buffers[i]);
    if (status != AGPU_SUCCESS)
      return corpus_say(session, CORPUS_FAILED, "agpu_buffer_read: %s: %s",
                        agpu_status_name(status), agpu_last_error());
  }
  return CORPUS_RAN;
}

static void corpus_session_end(corpus_session *session) {
  for (int i = 0; i < CORPUS_MAX_ARGS; i++) {
    if (session->buffers[i]) agpu_buffer_release(session->buffers[i]);
    free(session->host[i]);
  }
  if (session->handle) agpu_kernel_release(session->handle);
  if (session->program) agpu_program_release(session->program);
}

corpus_outcome corpus_run(agpu_device *device, const corpus_kernel *kernel, uint64_t seed,
                          corpus_result results[CORPUS_RUNS], char *message, size_t capacity) {
  corpus_session session = {
      .kernel = kernel, .device = device, .message = message, .capacity = capacity};
  memset(results, 0, CORPUS_RUNS * sizeof *results);
  message[0] = '\0';
  corpus_outcome outcome = corpus_check_requirements(&session);
  if (outcome == CORPUS_RAN) outcome = corpus_build(&session);
  if (outcome == CORPUS_RAN) outcome = corpus_check_signature(&session);
  if (outcome == CORPUS_RAN) outcome = corpus_create_buffers(&session);
  for (int run = 0; run < CORPUS_RUNS && outcome == CORPUS_RAN; run++)
    outcome = corpus_run_once(&session, seed, run, &results[run]);
  corpus_session_end(&session);
  if (outcome != CORPUS_RAN)
    for (int run = 0; run < CORPUS_RUNS; run++) corpus_result_free(&results[run]);
  return outcome;
}
