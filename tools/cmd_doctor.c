// SPDX-License-Identifier: Apache-2.0
/* anygpu doctor [--json] [--sysroot DIR]: why a backend or a GPU is
 * missing. Gathers the library's view, runs every check, prints the
 * findings. It exits 0 whenever it ran, whatever it found. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "device_report.h"
#include "doctor.h"
#include "doctor_watch.h"
#include "physical_report.h"

#define DOCTOR_MAX_ARGUMENTS 64

const doctor_backend *doctor_backend_named(const doctor_context *context, const char *name) {
  for (uint32_t i = 0; i < context->backend_count; i++)
    if (strcmp(context->backends[i].info.name, name) == 0) return &context->backends[i];
  return NULL;
}

/* Takes `--sysroot DIR` or `--sysroot=DIR` out of the arguments; the rest
 * go to the common parser. Returns CLI_EXIT_OK or a usage error. */
static int take_sysroot(int argc, char **argv, char **rest, int *rest_count, const char **sysroot) {
  *rest_count = 0;
  bool options_ended = false;
  for (int i = 0; i < argc; i++) {
    if (!options_ended && strcmp(argv[i], "--") == 0) options_ended = true;
    if (!options_ended && strcmp(argv[i], "--sysroot") == 0) {
      if (i + 1 >= argc) return cli_usage_error("missing directory after", argv[i]);
      *sysroot = argv[++i];
      continue;
    }
    if (!options_ended && strncmp(argv[i], "--sysroot=", 10) == 0) {
      *sysroot = argv[i] + 10;
      continue;
    }
    if (*rest_count == DOCTOR_MAX_ARGUMENTS) return cli_usage_error("unexpected argument", argv[i]);
    rest[(*rest_count)++] = argv[i];
  }
  return CLI_EXIT_OK;
}

/* "/" and "" mean the running system; "dir/" is "dir". */
static char *normalize_sysroot(const char *sysroot) {
  char *copy = strdup(sysroot ? sysroot : "");
  if (!copy) return NULL;
  size_t length = strlen(copy);
  while (length > 0 && copy[length - 1] == '/') copy[--length] = '\0';
  return copy;
}

static int collect_library_state(doctor_context *context) {
  uint32_t backend_count = agpu_backend_count();
  if (backend_count > AGPU_BACKEND_COUNT_) backend_count = AGPU_BACKEND_COUNT_;
  context->backend_count = backend_count;
  for (uint32_t i = 0; i < backend_count; i++) {
    doctor_backend *backend = &context->backends[i];
    agpu_status status = agpu_backend_get_info(i, &backend->info);
    if (status != AGPU_SUCCESS) return cli_library_error(status);
    uint32_t attempts = 0;
    if (agpu_backend_load_attempt_count(i, &attempts) != AGPU_SUCCESS) attempts = 0;
    for (uint32_t a = 0; a < attempts && a < DOCTOR_MAX_ATTEMPTS; a++)
      if (agpu_backend_get_load_attempt(i, a, &backend->attempt_names[a],
                                        &backend->attempt_errors[a]) == AGPU_SUCCESS)
        backend->attempt_count++;
  }
  agpu_status status = agpu_device_count(&context->device_count);
  if (status != AGPU_SUCCESS) return cli_library_error(status);
  context->devices =
      calloc(context->device_count ? context->device_count : 1, sizeof *context->devices);
  if (!context->devices) return cli_out_of_memory();
  for (uint32_t i = 0; i < context->device_count; i++) {
    agpu_device *device = NULL;
    status = agpu_device_get(i, &device);
    if (status == AGPU_SUCCESS) status = device_report_get_info(device, &context->devices[i]);
    if (status != AGPU_SUCCESS) return cli_library_error(status);
  }
  status = physical_report_collect(&context->physical, &context->physical_count);
  if (status != AGPU_SUCCESS) return cli_library_error(status);
  agpu_device *chosen = NULL;
  if (agpu_device_select(NULL, &chosen) == AGPU_SUCCESS &&
      device_report_get_info(chosen, &context->default_device) == AGPU_SUCCESS)
    context->has_default_device = true;
  else
    doctor_format(context->default_error, sizeof context->default_error, "%s", agpu_last_error());
  return CLI_EXIT_OK;
}

static void run_checks(doctor_context *context) {
  doctor_scan_pci(context);
  doctor_check_nvidia(context);
  doctor_check_amd(context);
  doctor_check_opencl(context);
  doctor_check_vulkan(context);
  doctor_check_pci(context);
  doctor_check_selection(context);
}

int cmd_doctor(int argc, char **argv) {
  char *rest[DOCTOR_MAX_ARGUMENTS];
  int rest_count = 0;
  const char *sysroot_argument = NULL;
  double watch_seconds = 0;
  int exit_status = doctor_take_watch(&argc, argv, &watch_seconds);
  if (exit_status != CLI_EXIT_OK) return exit_status;
  exit_status = take_sysroot(argc, argv, rest, &rest_count, &sysroot_argument);
  if (exit_status != CLI_EXIT_OK) return exit_status;
  cli_arguments arguments;
  exit_status = cli_parse_arguments(rest_count, rest, 0, &arguments);
  if (exit_status != CLI_EXIT_OK) return exit_status;
  if (arguments.help) {
    cli_print_command_help(stdout, "doctor");
    return cli_finish_output();
  }
  char *sysroot = normalize_sysroot(sysroot_argument);
  if (!sysroot) return cli_out_of_memory();
  struct stat status;
  if (sysroot[0] && (stat(sysroot, &status) != 0 || !S_ISDIR(status.st_mode))) {
    bool missing = stat(sysroot, &status) != 0;
    fprintf(stderr, "anygpu: cannot run the doctor: --sysroot %s: %s\n", sysroot_argument,
            missing ? strerror(errno) : "not a directory");
    free(sysroot);
    return CLI_EXIT_FAILURE;
  }
  if (watch_seconds > 0) {
    exit_status = doctor_watch(sysroot, watch_seconds, arguments.json);
    free(sysroot);
    return exit_status;
  }
  doctor_context context;
  memset(&context, 0, sizeof context);
  context.sysroot = sysroot;
  exit_status = collect_library_state(&context);
  if (exit_status == CLI_EXIT_OK) {
    run_checks(&context);
    if (context.out_of_memory)
      exit_status = cli_out_of_memory();
    else
      exit_status = arguments.json ? doctor_print_json(&context) : doctor_print_text(&context);
  }
  doctor_free(&context);
  free(sysroot);
  return exit_status;
}
