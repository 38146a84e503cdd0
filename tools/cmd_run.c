// SPDX-License-Identifier: Apache-2.0
/* anygpu run FILE: a user's kernel with generated or file inputs, on one
 * device or all of them; --compare checks every device's buffers against
 * the first device's (OpenCL where present). */
#define _GNU_SOURCE /* clock_gettime, getpid */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run.h"

/* ------------------------------------------------------------ arguments */

/* X[,Y[,Z]]: one to three positive numbers, nothing after the third (a
 * fourth, "1,1,1,1", was once dropped silently). */
static bool run_sizes(const char *text, size_t sizes[3], uint32_t *dims) {
  uint32_t count = 0;
  const char *p = text;
  for (;;) {
    if (count == 3) return false; /* a fourth dimension */
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(p, &end, 10);
    if (end == p || errno || value == 0 || *p == '-' || *p == '+' || *p == ' ') return false;
    sizes[count++] = (size_t)value;
    if (*end == '\0') break;
    if (*end != ',') return false;
    p = end + 1;
  }
  for (uint32_t d = count; d < 3; d++) sizes[d] = 1;
  *dims = count;
  return true;
}

static const char *run_option_value(int argc, char **argv, int *i) {
  const char *equals = strchr(argv[*i], '=');
  if (strncmp(argv[*i], "--", 2) == 0 && equals) return equals + 1;
  return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool run_option_is(const char *argument, const char *name) {
  size_t length = strlen(name);
  return strncmp(argument, name, length) == 0 &&
         (argument[length] == '\0' || argument[length] == '=');
}

static int run_add_define(run_request *request, const char *flag, const char *value) {
  size_t used = strlen(request->options);
  int n = snprintf(request->options + used, sizeof request->options - used, "%s%s%s",
                   used ? " " : "", flag, value);
  if (n < 0 || (size_t)n >= sizeof request->options - used)
    return cli_usage_error("too many build options at", value);
  return CLI_EXIT_OK;
}

static int parse_run_arguments(int argc, char **argv, run_request *request) {
  bool seed_given = false;
  uint32_t local_dims = 0;
  for (int i = 0; i < argc; i++) {
    const char *argument = argv[i], *value = NULL;
    bool takes_value = run_option_is(argument, "--kernel") || run_option_is(argument, "--global") ||
                       run_option_is(argument, "--local") || run_option_is(argument, "--arg") ||
                       run_option_is(argument, "--device") || run_option_is(argument, "--tol") ||
                       run_option_is(argument, "--atol") || run_option_is(argument, "--rtol") ||
                       run_option_is(argument, "--ulp") || run_option_is(argument, "--seed") ||
                       run_option_is(argument, "--out") || run_option_is(argument, "--trace");
    if (takes_value && !(value = run_option_value(argc, argv, &i)))
      return cli_usage_error("missing value after", argument);
    if (strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0) {
      cli_print_command_help(stdout, "run");
      return -1;
    } else if ((strncmp(argument, "-D", 2) == 0 || strncmp(argument, "-U", 2) == 0)) {
      char flag[3] = {argument[0], argument[1], '\0'};
      value = argument[2] ? argument + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!value) return cli_usage_error("missing value after", argument);
      int status = run_add_define(request, flag, value);
      if (status != CLI_EXIT_OK) return status;
    } else if (strncmp(argument, "-I", 2) == 0) {
      value = argument[2] ? argument + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!value) return cli_usage_error("missing directory after", argument);
      if (request->include_dir_count == CLI_MAX_INCLUDE_DIRS)
        return cli_usage_error("too many -I directories at", value);
      request->include_dirs[request->include_dir_count++] = value;
    } else if (run_option_is(argument, "--kernel")) {
      request->kernel = value;
    } else if (run_option_is(argument, "--global")) {
      if (!run_sizes(value, request->global, &request->dims))
        return cli_usage_error("--global takes X[,Y[,Z]] (positive), not", value);
    } else if (run_option_is(argument, "--local")) {
      if (!run_sizes(value, request->local, &local_dims))
        return cli_usage_error("--local takes X[,Y[,Z]] (positive), not", value);
      request->has_local = true;
    } else if (run_option_is(argument, "--arg")) {
      if (request->arg_count == RUN_MAX_ARGS)
        return cli_usage_error("too many arguments at", value);
      char error[512];
      if (!run_arg_parse(value, &request->args[request->arg_count++], error, sizeof error))
        return cli_usage_error("bad --arg", error);
    } else if (run_option_is(argument, "--device")) {
      request->selector = value;
    } else if (strcmp(argument, "--all-devices") == 0) {
      request->all_devices = true;
    } else if (strcmp(argument, "--compare") == 0) {
      request->compare = true;
    } else if (strcmp(argument, "--check") == 0) {
      int status = run_add_define(request, AGPU_PROGRAM_CHECK_BOUNDS, "");
      if (status != CLI_EXIT_OK) return status;
    } else if (run_option_is(argument, "--atol") || run_option_is(argument, "--rtol") ||
               run_option_is(argument, "--tol")) {
      char *end = NULL;
      double number = strtod(value, &end);
      if (!*value || *end || !(number >= 0) || isinf(number))
        return cli_usage_error("a tolerance is a number >= 0, not", value);
      run_tolerance *t = &request->tolerance;
      if (run_option_is(argument, "--atol")) {
        t->atol = number;
        t->atol_given = true;
      } else { /* --tol, the old spelling: relative only */
        t->rtol = number;
        t->rtol_given = true;
        if (run_option_is(argument, "--tol") && !t->atol_given) t->atol_given = true;
      }
    } else if (run_option_is(argument, "--ulp")) {
      char *end = NULL;
      errno = 0;
      request->tolerance.ulps = strtoull(value, &end, 10);
      if (!*value || *end || errno || value[0] == '-')
        return cli_usage_error("--ulp takes a whole number of units in the last place, not", value);
      request->tolerance.by_ulp = true;
    } else if (run_option_is(argument, "--seed")) {
      char *end = NULL;
      errno = 0;
      request->seed = strtoull(value, &end, 0);
      if (!*value || *end || errno || value[0] == '-')
        return cli_usage_error("the seed is an unsigned 64-bit number, not", value);
      seed_given = true;
    } else if (run_option_is(argument, "--out")) {
      request->out_dir = value;
    } else if (run_option_is(argument, "--trace")) {
      if (!*value) return cli_usage_error("missing file after", argument);
      request->trace = value;
    } else if (argument[0] == '-' && argument[1]) {
      return cli_usage_error("unknown option", argument);
    } else if (!request->file) {
      request->file = argument;
    } else {
      return cli_usage_error("unexpected argument", argument);
    }
  }
  if (!request->file) return cli_usage_error("missing kernel file after", "run");
  if (!request->kernel) return cli_usage_error("missing --kernel NAME for", request->file);
  if (!request->dims) return cli_usage_error("missing --global X[,Y[,Z]] for", request->file);
  if (request->has_local && local_dims != request->dims)
    return cli_usage_error("--local needs as many dimensions as --global", "--local");
  if (request->tolerance.by_ulp && (request->tolerance.atol_given || request->tolerance.rtol_given))
    return cli_usage_error("--ulp is a rule of its own; drop --atol/--rtol for", "--ulp");
  if (request->selector && request->all_devices)
    return cli_usage_error("choose one of --device and", "--all-devices");
  if (!seed_given) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    request->seed = ((uint64_t)now.tv_nsec ^ (uint64_t)getpid()) % 1000000007u;
  }
  return CLI_EXIT_OK;
}

/* -------------------------------------------------------------- running */

/* A local: scratch with fewer elements than a work-group has work-items is
 * often a mistake (each work-item writing its own element), not always:
 * warn, do not refuse. */
static void run_warn_small_scratch(const run_request *request) {
  if (!request->has_local) return;
  size_t items = 1;
  for (uint32_t d = 0; d < request->dims; d++) items *= request->local[d];
  for (uint32_t i = 0; i < request->arg_count; i++) {
    const run_arg *arg = &request->args[i];
    if (arg->kind == RUN_ARG_LOCAL && arg->count < items)
      fprintf(stderr,
              "anygpu: warning: --arg %s (argument %u) holds %zu elements, fewer than the %zu "
              "work-items of a work-group: a kernel that gives each work-item one overruns it\n",
              arg->spec, i, arg->count, items);
  }
}

/* The library's message with one prefix: `what` unless the message starts
 * with it already, then the status name. */
static run_outcome run_say(run_device *device, run_outcome outcome, const char *what,
                           agpu_status status) {
  const char *message = agpu_last_error();
  size_t length = strlen(what);
  bool prefixed = strncmp(message, what, length) == 0 && message[length] == ':';
  snprintf(device->message, sizeof device->message, "%s%s%s%s%s%s", prefixed ? "" : what,
           prefixed ? "" : ": ", message, status == AGPU_SUCCESS ? "" : " (",
           status == AGPU_SUCCESS ? "" : agpu_status_name(status),
           status == AGPU_SUCCESS ? "" : ")");
  return outcome;
}

static const char *run_param_kind_text(agpu_param_kind kind) {
  switch (kind) {
    case AGPU_PARAM_GLOBAL_BUFFER:
      return "__global ";
    case AGPU_PARAM_CONSTANT_BUFFER:
      return "__constant ";
    case AGPU_PARAM_LOCAL:
      return "__local ";
    default:
      return "";
  }
}

/* A wrong number of --arg, said once for all devices: the first parameter
 * without one, or the first --arg without a parameter. */
static run_outcome run_wrong_arg_count(const run_request *request, run_device *device,
                                       const agpu_kernel_info *info) {
  int used = snprintf(device->message, sizeof device->message,
                      "kernel '%s' has %u parameter%s, %u --arg given: ", request->kernel,
                      info->param_count, info->param_count == 1 ? "" : "s", request->arg_count);
  size_t at = used > 0 ? (size_t)used : 0;
  if (info->param_count > request->arg_count) {
    const agpu_kernel_param *missing = &info->params[request->arg_count];
    snprintf(device->message + at, sizeof device->message - at,
             "parameter %u ('%s', %s%s) has no --arg", request->arg_count, missing->name,
             run_param_kind_text(missing->kind), missing->type_name);
  } else {
    snprintf(device->message + at, sizeof device->message - at, "--arg %u ('%s') has no parameter",
             info->param_count, request->args[info->param_count].spec);
  }
  device->wrong_arg_count = true;
  return RUN_FAILED;
}

/* The arguments against the kernel's parameters (kinds), with the
 * parameters' names for the report. */
static run_outcome run_check_signature(const run_request *request, run_device *device,
                                       agpu_kernel *kernel) {
  agpu_kernel_info info;
  agpu_status status = agpu_kernel_get_info(kernel, &info);
  if (status != AGPU_SUCCESS) return run_say(device, RUN_FAILED, "agpu_kernel_get_info", status);
  if (info.param_count != request->arg_count) return run_wrong_arg_count(request, device, &info);
  for (uint32_t i = 0; i < info.param_count; i++) {
    const agpu_kernel_param *param = &info.params[i];
    snprintf(device->names[i], sizeof device->names[i], "%s", param->name[0] ? param->name : "?");
    device->is_const[i] = param->is_const;
    run_arg_kind kind = request->args[i].kind;
    bool ok = param->kind == AGPU_PARAM_UNKNOWN ||
              (kind == RUN_ARG_BUFFER && (param->kind == AGPU_PARAM_GLOBAL_BUFFER ||
                                          param->kind == AGPU_PARAM_CONSTANT_BUFFER)) ||
              (kind == RUN_ARG_VALUE && param->kind == AGPU_PARAM_SCALAR) ||
              (kind == RUN_ARG_LOCAL && param->kind == AGPU_PARAM_LOCAL);
    if (!ok) {
      snprintf(device->message, sizeof device->message,
               "--arg %s does not fit parameter %u ('%s', %s) of kernel '%s'",
               request->args[i].spec, i, param->name, param->type_name, request->kernel);
      return RUN_FAILED;
    }
  }
  return RUN_RAN;
}

static double run_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static run_outcome run_launch(const run_request *request, run_device *device, agpu_kernel *kernel,
                              void *const initial[]) {
  agpu_buffer *buffers[RUN_MAX_ARGS] = {0};
  agpu_arg args[RUN_MAX_ARGS];
  run_outcome outcome = RUN_RAN;
  agpu_status status = AGPU_SUCCESS;
  for (uint32_t i = 0; i < request->arg_count && outcome == RUN_RAN; i++) {
    const run_arg *arg = &request->args[i];
    if (arg->kind == RUN_ARG_VALUE) {
      args[i] = arg->value;
    } else if (arg->kind == RUN_ARG_LOCAL) {
      args[i] = agpu_arg_local(run_arg_bytes(arg));
    } else {
      size_t bytes = run_arg_bytes(arg);
      status = agpu_buffer_create(device->device, bytes, 0, &buffers[i]);
      if (status == AGPU_SUCCESS)
        status = agpu_buffer_write(NULL, buffers[i], 0, bytes, initial[i]);
      if (status != AGPU_SUCCESS) outcome = run_say(device, RUN_FAILED, arg->spec, status);
      args[i] = agpu_arg_buffer(buffers[i]);
    }
  }
  if (outcome == RUN_RAN) {
    agpu_queue *queue = NULL;
    status = agpu_device_default_queue(device->device, &queue);
    double start = run_now_ms();
    if (status == AGPU_SUCCESS)
      status = agpu_launch(queue, kernel, request->dims, request->global,
                           request->has_local ? request->local : NULL, request->arg_count, args);
    if (status == AGPU_SUCCESS) status = agpu_queue_finish(queue);
    device->milliseconds = run_now_ms() - start;
    if (status != AGPU_SUCCESS) outcome = run_say(device, RUN_FAILED, "agpu_launch", status);
  }
  for (uint32_t i = 0; i < request->arg_count && outcome == RUN_RAN; i++) {
    if (!buffers[i]) continue;
    size_t bytes = run_arg_bytes(&request->args[i]);
    if (!(device->buffers[i] = malloc(bytes))) {
      snprintf(device->message, sizeof device->message, "out of host memory");
      outcome = RUN_FAILED;
    } else if ((status = agpu_buffer_read(NULL, buffers[i], 0, bytes, device->buffers[i]))) {
      outcome = run_say(device, RUN_FAILED, "agpu_buffer_read", status);
    }
  }
  for (uint32_t i = 0; i < request->arg_count; i++)
    if (buffers[i]) agpu_buffer_release(buffers[i]);
  return outcome;
}

static run_outcome run_on_device(const run_request *request, const char *source, run_device *device,
                                 void *const initial[]) {
  agpu_program_desc desc = {.source = source,
                            .source_name = request->file,
                            .options = request->options,
                            .include_dirs = request->include_dirs,
                            .include_dir_count = request->include_dir_count};
  agpu_program *program = NULL;
  agpu_status status = agpu_program_build(device->device, &desc, &program);
  if (status == AGPU_ERROR_UNSUPPORTED)
    return run_say(device, RUN_SKIPPED, "skipped", AGPU_SUCCESS);
  if (status != AGPU_SUCCESS) return run_say(device, RUN_FAILED, "agpu_program_build", status);
  agpu_kernel *kernel = NULL;
  status = agpu_kernel_create(program, request->kernel, &kernel);
  /* a kernel this device cannot run, refused alone while its program built */
  run_outcome outcome = status == AGPU_SUCCESS ? run_check_signature(request, device, kernel)
                        : status == AGPU_ERROR_UNSUPPORTED
                            ? run_say(device, RUN_SKIPPED, "skipped", AGPU_SUCCESS)
                            : run_say(device, RUN_FAILED, "agpu_kernel_create", status);
  if (outcome == RUN_RAN) outcome = run_launch(request, device, kernel, initial);
  if (kernel) agpu_kernel_release(kernel);
  agpu_program_release(program);
  return outcome;
}

static int run_select_devices(const run_request *request, run_device *devices, uint32_t *count) {
  agpu_device *found[RUN_MAX_DEVICES];
  uint32_t n = 0;
  agpu_status status;
  if (request->all_devices || (request->compare && !request->selector)) {
    status = agpu_device_count(&n);
    for (uint32_t i = 0; status == AGPU_SUCCESS && i < n && i < RUN_MAX_DEVICES; i++)
      status = agpu_device_get(i, &found[i]);
  } else if (request->compare) {
    status = agpu_device_select_all(request->selector, found, RUN_MAX_DEVICES, &n);
  } else {
    status = agpu_device_select(request->selector, &found[0]);
    n = 1;
  }
  if (status != AGPU_SUCCESS) return cli_library_error(status);
  if (n > RUN_MAX_DEVICES) n = RUN_MAX_DEVICES;
  if (n == 0) {
    fprintf(stderr, "anygpu: no device matches '%s'\n", request->selector ? request->selector : "");
    return CLI_EXIT_FAILURE;
  }
  for (uint32_t i = 0; i < n; i++) {
    devices[i].device = found[i];
    if ((status = agpu_device_get_info(found[i], &devices[i].info)))
      return cli_library_error(status);
  }
  *count = n;
  return CLI_EXIT_OK;
}

int cmd_run(int argc, char **argv) {
  run_request *request = calloc(1, sizeof *request);
  run_device *devices = calloc(RUN_MAX_DEVICES, sizeof *devices);
  void *initial[RUN_MAX_ARGS] = {0};
  char *source = NULL;
  uint32_t count = 0;
  int status = !request || !devices ? cli_out_of_memory() : CLI_EXIT_OK;
  if (status == CLI_EXIT_OK) status = parse_run_arguments(argc, argv, request);
  if (status < 0)
    status = cli_finish_output();
  else if (status == CLI_EXIT_OK) {
    char error[1024];
    size_t length = 0;
    if (!(source = cli_read_source(request->file, &length, error, sizeof error))) {
      fprintf(stderr, "anygpu: %s\n", error);
      status = CLI_EXIT_FAILURE;
    }
  }
  for (uint32_t i = 0; status == CLI_EXIT_OK && i < request->arg_count; i++) {
    if (request->args[i].kind != RUN_ARG_BUFFER) continue;
    char error[1024];
    if (!(initial[i] = run_arg_data(&request->args[i], i, request->seed, error, sizeof error))) {
      fprintf(stderr, "anygpu: %s\n", error);
      status = CLI_EXIT_FAILURE;
    }
  }
  bool tracing = status == CLI_EXIT_OK && request->trace;
  if (tracing && (status = cli_trace_start(request->trace)) != CLI_EXIT_OK) tracing = false;
  if (status == CLI_EXIT_OK) status = run_select_devices(request, devices, &count);
  if (status == CLI_EXIT_OK) {
    printf("anygpu run %s: kernel %s, global %zu", request->file, request->kernel,
           request->global[0]);
    for (uint32_t d = 1; d < request->dims; d++) printf(",%zu", request->global[d]);
    if (request->has_local) {
      printf(", local %zu", request->local[0]);
      for (uint32_t d = 1; d < request->dims; d++) printf(",%zu", request->local[d]);
    }
    printf(", seed %llu\n", (unsigned long long)request->seed);
    run_warn_small_scratch(request);
    bool wrong_args = false;
    for (uint32_t d = 0; d < count && !wrong_args; d++) {
      devices[d].outcome = run_on_device(request, source, &devices[d], initial);
      wrong_args = devices[d].wrong_arg_count; /* the same on every device: said once */
      if (wrong_args) {
        fflush(stdout);
        fprintf(stderr, "anygpu: %s\n", devices[d].message);
      }
    }
    status = wrong_args ? CLI_EXIT_FAILURE : run_report(request, devices, count);
    int flushed = cli_finish_output();
    if (status == CLI_EXIT_OK) status = flushed;
  }
  if (tracing) status = cli_trace_stop(request->trace, status);
  for (uint32_t d = 0; devices && d < count; d++)
    for (uint32_t i = 0; i < RUN_MAX_ARGS; i++) free(devices[d].buffers[i]);
  for (uint32_t i = 0; i < RUN_MAX_ARGS; i++) free(initial[i]);
  free(source);
  free(devices);
  free(request);
  return status;
}
