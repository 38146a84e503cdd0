// SPDX-License-Identifier: Apache-2.0
/* anygpu list: every device of every backend, the physical devices they
 * are (the same GPU through several APIs is one), then the backends that
 * have none and why. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device_report.h"
#include "format.h"
#include "json_writer.h"
#include "physical_report.h"

typedef struct device_listing {
  uint32_t device_count;
  agpu_device_info *devices;
  uint32_t backend_count;
  agpu_backend_info backends[AGPU_BACKEND_COUNT_];
  uint32_t physical_count;
  agpu_physical_device_info *physical;
} device_listing;

/* Everything is queried before anything is printed, so that a failure
 * leaves no half-written table or JSON behind. Returns the exit status, having
 * reported any failure. */
static int collect_listing(device_listing *listing) {
  agpu_status status = agpu_device_count(&listing->device_count);
  if (status != AGPU_SUCCESS) return cli_library_error(status);
  listing->devices =
      calloc(listing->device_count ? listing->device_count : 1, sizeof *listing->devices);
  if (!listing->devices) return cli_out_of_memory();
  for (uint32_t i = 0; i < listing->device_count; i++) {
    agpu_device *device = NULL;
    status = agpu_device_get(i, &device);
    if (status == AGPU_SUCCESS) status = device_report_get_info(device, &listing->devices[i]);
    if (status != AGPU_SUCCESS) return cli_library_error(status);
  }
  uint32_t backend_count = agpu_backend_count();
  if (backend_count > AGPU_BACKEND_COUNT_) backend_count = AGPU_BACKEND_COUNT_;
  listing->backend_count = backend_count;
  for (uint32_t i = 0; i < backend_count; i++) {
    status = agpu_backend_get_info(i, &listing->backends[i]);
    if (status != AGPU_SUCCESS) return cli_library_error(status);
  }
  status = physical_report_collect(&listing->physical, &listing->physical_count);
  if (status != AGPU_SUCCESS) return cli_library_error(status);
  return CLI_EXIT_OK;
}

/* A backend to name under "without devices"; a testing backend (null)
 * without devices only when it failed (it has none unless asked). */
static bool backend_lacks_devices(const agpu_backend_info *backend) {
  if (backend->testing && backend->available) return false;
  return !backend->available || backend->device_count == 0;
}

static const char *text_or(const char *text, const char *fallback) {
  return text && text[0] ? text : fallback;
}

/* The reason a backend shows no devices, never empty. */
static const char *missing_devices_reason(const agpu_backend_info *backend) {
  return text_or(backend->reason, backend->available ? "no devices" : "unknown reason");
}

static int print_listing_json(const device_listing *listing) {
  json_writer writer;
  json_writer_init(&writer, stdout, true);
  json_begin_object(&writer);
  json_key_string(&writer, "version", agpu_version());
  json_key(&writer, "devices");
  json_begin_array(&writer);
  for (uint32_t i = 0; i < listing->device_count; i++) {
    json_begin_object(&writer);
    device_report_write_json_members(&writer, &listing->devices[i]);
    json_end_object(&writer);
  }
  json_end_array(&writer);
  json_key(&writer, "unavailable");
  json_begin_array(&writer);
  for (uint32_t i = 0; i < listing->backend_count; i++) {
    const agpu_backend_info *backend = &listing->backends[i];
    if (!backend_lacks_devices(backend)) continue;
    json_begin_object(&writer);
    json_key_string(&writer, "backend", backend->name);
    json_key_bool(&writer, "available", backend->available);
    json_key_string(&writer, "reason", missing_devices_reason(backend));
    json_end_object(&writer);
  }
  json_end_array(&writer);
  json_key(&writer, "backends");
  json_begin_array(&writer);
  for (uint32_t i = 0; i < listing->backend_count; i++) {
    const agpu_backend_info *backend = &listing->backends[i];
    json_begin_object(&writer);
    json_key_string(&writer, "name", backend->name);
    json_key_bool(&writer, "available", backend->available);
    json_key_uint(&writer, "device_count", backend->device_count);
    json_key_string(&writer, "library", text_or(backend->library, ""));
    json_key_string(&writer, "reason", text_or(backend->reason, ""));
    json_end_object(&writer);
  }
  json_end_array(&writer);
  physical_report_write_json(&writer, listing->physical, listing->physical_count);
  json_end_object(&writer);
  if (!json_writer_finish(&writer)) {
    fputs("anygpu: internal error: malformed JSON output\n", stderr);
    return CLI_EXIT_FAILURE;
  }
  return cli_finish_output();
}

/* "8", "16,32,64" or "-" when the backend does not say. */
static void format_subgroups(const agpu_device_info *device, char *out, size_t capacity) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < 4 && device->subgroup_sizes[i] && used < capacity; i++)
    used += (size_t)snprintf(out + used, capacity - used, "%s%u", i ? "," : "",
                             device->subgroup_sizes[i]);
  if (!out[0]) snprintf(out, capacity, "-");
}

static bool print_device_table(const device_listing *listing) {
  enum { SELECTOR, NAME, TYPE, MEMORY, CU, SUBGROUP, UUID, DRIVER, COLUMN_COUNT };
  text_table table;
  text_table_init(&table, COLUMN_COUNT);
  text_table_align_right(&table, MEMORY);
  text_table_align_right(&table, CU);
  const char *header[COLUMN_COUNT] = {"SELECTOR", "NAME",     "TYPE", "MEMORY",
                                      "CU",       "SUBGROUP", "UUID", "DRIVER"};
  bool ok = text_table_add_row(&table, header);
  for (uint32_t i = 0; ok && i < listing->device_count; i++) {
    const agpu_device_info *device = &listing->devices[i];
    char memory[FORMAT_BYTES_CAPACITY];
    char compute_units[16], subgroups[48];
    char uuid[FORMAT_UUID_DASHED_CAPACITY] = "-";
    format_bytes(device->global_mem_bytes, memory, sizeof memory);
    snprintf(compute_units, sizeof compute_units, "%u", device->compute_units);
    format_subgroups(device, subgroups, sizeof subgroups);
    if (device->has_uuid) format_uuid_dashed(device->uuid, uuid);
    const char *row[COLUMN_COUNT] = {
        device->selector,
        device->name,
        agpu_device_type_name(device->type),
        memory,
        compute_units,
        subgroups,
        uuid,
        device->driver_version,
    };
    ok = text_table_add_row(&table, row);
  }
  if (ok) text_table_print(&table, stdout, "");
  text_table_free(&table);
  return ok;
}

static int print_listing_text(const device_listing *listing) {
  if (listing->device_count == 0)
    puts("No devices found.");
  else if (!print_device_table(listing))
    return cli_out_of_memory();
  if (listing->physical_count) {
    puts("\nPhysical devices:");
    if (!physical_report_print_table(stdout, listing->physical, listing->physical_count, "  "))
      return cli_out_of_memory();
  }

  bool header_printed = false;
  for (uint32_t i = 0; i < listing->backend_count; i++) {
    const agpu_backend_info *backend = &listing->backends[i];
    if (!backend_lacks_devices(backend)) continue;
    if (!header_printed) {
      puts("\nBackends without devices:");
      header_printed = true;
    }
    printf("  %-8s %s", backend->name, backend->available ? "no devices" : "unavailable");
    /* "no devices" alone says it all; anything else the backend said follows. */
    const char *reason = missing_devices_reason(backend);
    if (backend->available && strcmp(reason, "no devices") == 0) {
      putchar('\n');
      continue;
    }
    fputs(": ", stdout);
    fput_single_line(reason, stdout);
    putchar('\n');
  }
  return cli_finish_output();
}

int cmd_list(int argc, char **argv) {
  cli_arguments arguments;
  int exit_status = cli_parse_arguments(argc, argv, 0, &arguments);
  if (exit_status != CLI_EXIT_OK) return exit_status;
  if (arguments.help) {
    cli_print_command_help(stdout, "list");
    return cli_finish_output();
  }
  device_listing listing = {0};
  exit_status = collect_listing(&listing);
  if (exit_status == CLI_EXIT_OK)
    exit_status = arguments.json ? print_listing_json(&listing) : print_listing_text(&listing);
  free(listing.devices);
  free(listing.physical);
  return exit_status;
}
