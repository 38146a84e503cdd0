// SPDX-License-Identifier: Apache-2.0
/* The doctor's report: text for people, one JSON object for programs, with
 * the same backends, findings, PCI devices and physical devices. Findings
 * come most severe first, in the order the checks found them. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device_report.h"
#include "doctor.h"
#include "format.h"
#include "json_writer.h"
#include "physical_report.h"

/* The variables that change what each backend sees. */
#define DOCTOR_MAX_VARIABLES 16

/* The variables the backend honours (its descriptor's list), NULL-ended. */
typedef struct backend_variables {
  char storage[512];
  const char *names[DOCTOR_MAX_VARIABLES + 1];
} backend_variables;

static const char *const *split_variables(const agpu_backend_info *info,
                                          backend_variables *variables) {
  snprintf(variables->storage, sizeof variables->storage, "%s",
           info->environment ? info->environment : "");
  int count = 0;
  for (char *next = variables->storage; *next && count < DOCTOR_MAX_VARIABLES;) {
    variables->names[count++] = next;
    next += strcspn(next, " ");
    if (*next) *next++ = '\0';
  }
  variables->names[count] = NULL;
  return variables->names;
}

static const char *gpu_kind_name(doctor_gpu_kind kind) {
  switch (kind) {
    case DOCTOR_GPU_INTEGRATED:
      return "integrated";
    case DOCTOR_GPU_DISCRETE:
      return "discrete";
    default:
      return "unknown";
  }
}

/* Indices of the findings, most severe first, stable. */
static size_t *finding_order(const doctor_context *context) {
  size_t *order = malloc((context->finding_count ? context->finding_count : 1) * sizeof *order);
  if (!order) return NULL;
  size_t next = 0;
  for (int severity = DOCTOR_ERROR; severity >= DOCTOR_OK; severity--)
    for (size_t i = 0; i < context->finding_count; i++)
      if ((int)context->findings[i].severity == severity) order[next++] = i;
  return order;
}

static void count_severities(const doctor_context *context, size_t counts[4]) {
  memset(counts, 0, 4 * sizeof counts[0]);
  for (size_t i = 0; i < context->finding_count; i++) counts[context->findings[i].severity]++;
}

/* ------------------------------------------------------------------ text */

static void print_wrapped_field(const char *label, const char *text) {
  if (!text || !text[0]) return;
  printf("           %s: ", label);
  fput_single_line(text, stdout);
  putchar('\n');
}

static void print_backend_text(const doctor_backend *backend) {
  const agpu_backend_info *info = &backend->info;
  if (info->testing && info->available && info->device_count == 0) return; /* null: if asked */
  printf("  %-8s ", info->name);
  if (!info->available)
    fputs("unavailable: ", stdout);
  else
    printf("%u device%s%s", info->device_count, info->device_count == 1 ? "" : "s",
           info->reason[0] ? ": " : "");
  fput_single_line(info->reason, stdout);
  putchar('\n');
  for (uint32_t i = 0; i < backend->attempt_count; i++) {
    printf("           tried %s: ", backend->attempt_names[i]);
    fput_single_line(backend->attempt_errors[i][0] ? backend->attempt_errors[i] : "loaded", stdout);
    putchar('\n');
  }
  const doctor_probe *probe = &backend->probe;
  if (probe->loaded) {
    printf("           library: %s -> %s%s%s\n", probe->library, probe->path[0] ? probe->path : "?",
           probe->version[0] ? ", version " : "", probe->version);
    if (probe->init_called)
      printf("           %s: %d %s\n", probe->init_call, probe->init_result,
             probe->init_result_name);
  }
  backend_variables variables;
  for (const char *const *variable = split_variables(info, &variables); *variable; variable++) {
    const char *value = doctor_getenv(*variable);
    if (!value) continue;
    printf("           environment: %s=\"", *variable);
    fput_single_line(value, stdout);
    fputs("\"\n", stdout);
  }
}

static void print_pci_text(const doctor_context *context) {
  puts("\nPCI display and 3D controllers:");
  if (!context->pci_readable) {
    fputs("  unknown: ", stdout);
    fput_single_line(context->pci_error, stdout);
    putchar('\n');
    return;
  }
  if (context->pci_count == 0) {
    puts("  none: no GPU on the bus");
    return;
  }
  for (uint32_t i = 0; i < context->pci_count; i++) {
    const doctor_pci_device *gpu = &context->pci[i];
    char vendor_text[32];
    printf("  %s  %s 0x%04x:0x%04x  class 0x%06x  %s  driver %s  %s%s\n", gpu->address,
           doctor_vendor_name(gpu->vendor_id, vendor_text, sizeof vendor_text), gpu->vendor_id,
           gpu->device_id, gpu->class_code,
           gpu->display_only ? "display-only" : gpu_kind_name(gpu->kind),
           gpu->driver[0] ? gpu->driver : "none",
           gpu->physical >= 0 ? context->physical[gpu->physical].id : "not exposed",
           gpu->physical_guessed ? " (matched by ids)" : "");
  }
}

int doctor_print_text(const doctor_context *context) {
  size_t *order = finding_order(context);
  if (!order) return cli_out_of_memory();
  printf("anygpu doctor %s%s%s\n", agpu_version(), context->sysroot[0] ? ", sysroot " : "",
         context->sysroot);
  puts("\nBackends:");
  for (uint32_t i = 0; i < context->backend_count; i++) print_backend_text(&context->backends[i]);
  puts("\nPhysical devices:");
  if (context->physical_count == 0)
    puts("  none");
  else if (!physical_report_print_table(stdout, context->physical, context->physical_count, "  ")) {
    free(order);
    return cli_out_of_memory();
  }
  print_pci_text(context);
  puts("\nFindings:");
  for (size_t n = 0; n < context->finding_count; n++) {
    const doctor_finding *finding = &context->findings[order[n]];
    printf("  %-8s ", doctor_severity_name(finding->severity));
    fput_single_line(finding->what, stdout);
    printf(" [%s]\n", finding->check);
    print_wrapped_field("evidence", finding->evidence);
    print_wrapped_field("fix", finding->fix);
  }
  size_t counts[4];
  count_severities(context, counts);
  printf("\nSummary: %zu error%s, %zu warning%s, %zu info, %zu ok\n", counts[DOCTOR_ERROR],
         counts[DOCTOR_ERROR] == 1 ? "" : "s", counts[DOCTOR_WARNING],
         counts[DOCTOR_WARNING] == 1 ? "" : "s", counts[DOCTOR_INFO], counts[DOCTOR_OK]);
  free(order);
  return cli_finish_output();
}

/* ------------------------------------------------------------------ JSON */

static void write_backend_json(json_writer *writer, const doctor_backend *backend) {
  const agpu_backend_info *info = &backend->info;
  json_begin_object(writer);
  json_key_string(writer, "name", info->name);
  json_key_bool(writer, "available", info->available);
  json_key_uint(writer, "device_count", info->device_count);
  json_key_string(writer, "library", info->library ? info->library : "");
  json_key_string(writer, "reason", info->reason ? info->reason : "");
  json_key(writer, "attempts");
  json_begin_array(writer);
  for (uint32_t i = 0; i < backend->attempt_count; i++) {
    json_begin_object(writer);
    json_key_string(writer, "name", backend->attempt_names[i]);
    json_key_string(writer, "error", backend->attempt_errors[i]);
    json_end_object(writer);
  }
  json_end_array(writer);
  const doctor_probe *probe = &backend->probe;
  json_key(writer, "probe");
  json_begin_object(writer);
  json_key_bool(writer, "loaded", probe->loaded);
  json_key_string(writer, "library", probe->library);
  json_key_string(writer, "path", probe->path);
  json_key_string(writer, "version", probe->version);
  if (probe->init_called) {
    json_key_string(writer, "init_call", probe->init_call);
    json_key(writer, "init_result");
    json_int(writer, probe->init_result);
    json_key_string(writer, "init_result_name", probe->init_result_name);
  } else {
    json_key_null(writer, "init_call");
    json_key_null(writer, "init_result");
    json_key_null(writer, "init_result_name");
  }
  if (probe->count_known)
    json_key_uint(writer, "count", probe->device_count);
  else
    json_key_null(writer, "count");
  json_end_object(writer);
  json_key(writer, "environment");
  json_begin_object(writer);
  backend_variables variables;
  for (const char *const *variable = split_variables(info, &variables); *variable; variable++) {
    const char *value = doctor_getenv(*variable);
    if (value)
      json_key_string(writer, *variable, value);
    else
      json_key_null(writer, *variable);
  }
  json_end_object(writer);
  json_end_object(writer);
}

static void write_pci_json(json_writer *writer, const doctor_context *context) {
  json_key(writer, "pci");
  json_begin_array(writer);
  for (uint32_t i = 0; i < context->pci_count; i++) {
    const doctor_pci_device *gpu = &context->pci[i];
    char vendor_text[32];
    json_begin_object(writer);
    json_key_string(writer, "address", gpu->address);
    json_key_uint(writer, "class", gpu->class_code);
    json_key_uint(writer, "vendor_id", gpu->vendor_id);
    json_key_uint(writer, "device_id", gpu->device_id);
    json_key_string(writer, "vendor",
                    doctor_vendor_name(gpu->vendor_id, vendor_text, sizeof vendor_text));
    if (gpu->driver[0])
      json_key_string(writer, "driver", gpu->driver);
    else
      json_key_null(writer, "driver");
    json_key_string(writer, "kind", gpu->display_only ? "display" : gpu_kind_name(gpu->kind));
    json_key_bool(writer, "boot_vga", gpu->boot_vga);
    if (gpu->physical >= 0)
      json_key_string(writer, "physical", context->physical[gpu->physical].id);
    else
      json_key_null(writer, "physical");
    json_key_bool(writer, "matched_by_ids", gpu->physical_guessed);
    json_end_object(writer);
  }
  json_end_array(writer);
}

int doctor_print_json(const doctor_context *context) {
  size_t *order = finding_order(context);
  if (!order) return cli_out_of_memory();
  json_writer writer;
  json_writer_init(&writer, stdout, true);
  json_begin_object(&writer);
  json_key_string(&writer, "version", agpu_version());
  json_key_string(&writer, "sysroot", context->sysroot[0] ? context->sysroot : "/");
  json_key(&writer, "backends");
  json_begin_array(&writer);
  for (uint32_t i = 0; i < context->backend_count; i++)
    write_backend_json(&writer, &context->backends[i]);
  json_end_array(&writer);
  json_key(&writer, "findings");
  json_begin_array(&writer);
  for (size_t n = 0; n < context->finding_count; n++) {
    const doctor_finding *finding = &context->findings[order[n]];
    json_begin_object(&writer);
    json_key_string(&writer, "severity", doctor_severity_name(finding->severity));
    json_key_string(&writer, "check", finding->check);
    json_key_string(&writer, "what", finding->what);
    json_key_string(&writer, "evidence", finding->evidence);
    json_key_string(&writer, "fix", finding->fix);
    json_end_object(&writer);
  }
  json_end_array(&writer);
  write_pci_json(&writer, context);
  physical_report_write_json(&writer, context->physical, context->physical_count);
  json_key(&writer, "devices");
  json_begin_array(&writer);
  for (uint32_t i = 0; i < context->device_count; i++) {
    json_begin_object(&writer);
    device_report_write_json_members(&writer, &context->devices[i]);
    json_end_object(&writer);
  }
  json_end_array(&writer);
  if (context->has_default_device)
    json_key_string(&writer, "default_device", context->default_device.selector);
  else
    json_key_null(&writer, "default_device");
  size_t counts[4];
  count_severities(context, counts);
  json_key(&writer, "summary");
  json_begin_object(&writer);
  json_key_uint(&writer, "error", counts[DOCTOR_ERROR]);
  json_key_uint(&writer, "warning", counts[DOCTOR_WARNING]);
  json_key_uint(&writer, "info", counts[DOCTOR_INFO]);
  json_key_uint(&writer, "ok", counts[DOCTOR_OK]);
  json_end_object(&writer);
  json_end_object(&writer);
  free(order);
  if (!json_writer_finish(&writer)) {
    fputs("anygpu: internal error: malformed JSON output\n", stderr);
    return CLI_EXIT_FAILURE;
  }
  return cli_finish_output();
}
