// SPDX-License-Identifier: Apache-2.0
/* anygpu info [SELECTOR]: every property of one device. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device_report.h"
#include "format.h"
#include "json_writer.h"

/* Wide enough for the longest key, "memory.peak_allocated_bytes:". */
#define INFO_KEY_WIDTH 28
#define INFO_VALUE_CAPACITY 512

static void print_field(const char *key, const char *value) {
  char label[INFO_KEY_WIDTH + 2];
  snprintf(label, sizeof label, "%s:", key);
  printf("%-*s ", INFO_KEY_WIDTH, label);
  fput_single_line(value, stdout);
  putchar('\n');
}

static void print_text_field(const char *key, const char *text) {
  print_field(key, text[0] ? text : "unknown");
}

static void print_uint_field(const char *key, uint64_t value) {
  char text[24];
  snprintf(text, sizeof text, "%" PRIu64, value);
  print_field(key, text);
}

static void print_bool_field(const char *key, bool value) {
  print_field(key, value ? "yes" : "no");
}

/* "3.6 GiB (3865470566 bytes)": readable and exact. */
static void print_bytes_field(const char *key, uint64_t bytes) {
  char human[FORMAT_BYTES_CAPACITY];
  char text[64];
  format_bytes(bytes, human, sizeof human);
  if (bytes < 1024)
    snprintf(text, sizeof text, "%s", human);
  else
    snprintf(text, sizeof text, "%s (%" PRIu64 " bytes)", human, bytes);
  print_field(key, text);
}

static void print_pci_id_field(const char *key, uint32_t id) {
  char text[32];
  snprintf(text, sizeof text, id ? "0x%04x" : "0x%04x (unknown)", id);
  print_field(key, text);
}

/* "4096, 4096, 4096"; zeros are left out when `skip_zeros`. */
static void print_list_field(const char *key, const uint64_t *values, size_t count,
                             bool skip_zeros) {
  char text[INFO_VALUE_CAPACITY] = "";
  size_t length = 0;
  for (size_t i = 0; i < count; i++) {
    if (skip_zeros && values[i] == 0) continue;
    int written =
        snprintf(text + length, sizeof text - length, "%s%" PRIu64, length ? ", " : "", values[i]);
    if (written < 0 || (size_t)written >= sizeof text - length) break;
    length += (size_t)written;
  }
  print_text_field(key, text);
}

/* How a "@local" selector mapped this process: which launcher variable gave
 * which node-local rank (the device is the selector field). */
typedef struct info_local {
  bool used; /* the selector in effect has "@local" */
  const char *selector;
  uint32_t rank;
  const char *variable; /* NULL: no launcher variable, rank 0 */
} info_local;

static void print_local_text(const info_local *local) {
  if (!local->used) return;
  char text[INFO_VALUE_CAPACITY];
  if (local->variable)
    snprintf(text, sizeof text, "%u (%s) of '%s'", local->rank, local->variable, local->selector);
  else
    snprintf(text, sizeof text,
             "0 (no launcher variable set: OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, "
             "SLURM_LOCALID, PMI_LOCAL_RANK) of '%s'",
             local->selector);
  print_field("local_rank", text);
}

static void print_info_text(const agpu_device_info *info, const agpu_memory_info *memory,
                            const info_local *local) {
  print_field("selector", info->selector);
  print_local_text(local);
  print_text_field("backend", info->backend_name ? info->backend_name : "");
  print_uint_field("index", info->index);
  print_text_field("name", info->name);
  print_text_field("vendor", info->vendor);
  print_pci_id_field("vendor_id", info->vendor_id);
  print_pci_id_field("device_id", info->device_id);
  print_field("type", agpu_device_type_name(info->type));
  print_text_field("driver_version", info->driver_version);
  print_text_field("api_version", info->api_version);
  print_bytes_field("global_mem_bytes", info->global_mem_bytes);
  print_bytes_field("max_alloc_bytes", info->max_alloc_bytes);
  print_bytes_field("local_mem_bytes", info->local_mem_bytes);
  print_uint_field("compute_units", info->compute_units);
  print_uint_field("max_work_group_size", info->max_work_group_size);

  uint64_t values[4];
  for (size_t i = 0; i < 3; i++) values[i] = info->max_work_item_sizes[i];
  print_list_field("max_work_item_sizes", values, 3, false);
  print_list_field("max_work_groups", info->max_work_groups, 3, false);
  for (size_t i = 0; i < 4; i++) values[i] = info->subgroup_sizes[i];
  print_list_field("subgroup_sizes", values, 4, true);

  char clock[24] = "";
  if (info->max_clock_mhz) snprintf(clock, sizeof clock, "%u MHz", info->max_clock_mhz);
  print_text_field("max_clock_mhz", clock);
  print_bool_field("fp64", info->fp64);
  print_bool_field("fp16", info->fp16);
  print_bool_field("int64", info->int64);
  print_bool_field("unified_memory", info->unified_memory);
  print_text_field("pci", info->has_pci ? info->pci : "");
  char uuid[FORMAT_UUID_DASHED_CAPACITY] = "";
  if (info->has_uuid) format_uuid_dashed(info->uuid, uuid);
  print_text_field("uuid", uuid);
  device_report_print_hardware(info, print_field);
  device_report_print_limits(info, print_field);

  print_bytes_field("memory.total_bytes", memory->total_bytes);
  if (memory->free_known)
    print_bytes_field("memory.free_bytes", memory->free_bytes);
  else
    print_field("memory.free_bytes", "unknown");
  print_bytes_field("memory.allocated_bytes", memory->allocated_bytes);
  print_bytes_field("memory.peak_allocated_bytes", memory->peak_allocated_bytes);
}

static bool print_info_json(const agpu_device_info *info, const agpu_memory_info *memory,
                            const info_local *local) {
  json_writer writer;
  json_writer_init(&writer, stdout, true);
  json_begin_object(&writer);
  device_report_write_json_members(&writer, info);
  if (local->used) {
    json_key(&writer, "local_rank");
    json_begin_object(&writer);
    json_key_uint(&writer, "rank", local->rank);
    json_key_string_or_null(&writer, "variable", local->variable != NULL,
                            local->variable ? local->variable : "");
    json_key_string(&writer, "selector", local->selector);
    json_end_object(&writer);
  }
  json_key(&writer, "memory");
  json_begin_object(&writer);
  json_key_uint(&writer, "total_bytes", memory->total_bytes);
  if (memory->free_known)
    json_key_uint(&writer, "free_bytes", memory->free_bytes);
  else
    json_key_null(&writer, "free_bytes");
  json_key_uint(&writer, "allocated_bytes", memory->allocated_bytes);
  json_key_uint(&writer, "peak_allocated_bytes", memory->peak_allocated_bytes);
  json_end_object(&writer);
  json_end_object(&writer);
  return json_writer_finish(&writer);
}

int cmd_info(int argc, char **argv) {
  cli_arguments arguments;
  int exit_status = cli_parse_arguments(argc, argv, 1, &arguments);
  if (exit_status != CLI_EXIT_OK) return exit_status;
  if (arguments.help) {
    cli_print_command_help(stdout, "info");
    return cli_finish_output();
  }
  /* NULL lets the library apply $ANYGPU_DEVICE, then pick the best device. */
  const char *selector = arguments.positional_count ? arguments.positional[0] : NULL;
  agpu_device *device = NULL;
  agpu_device_info info;
  agpu_memory_info memory;
  memset(&memory, 0, sizeof memory);
  agpu_status status = agpu_device_select(selector, &device);
  if (status == AGPU_SUCCESS) status = device_report_get_info(device, &info);
  if (status == AGPU_SUCCESS) status = agpu_device_memory(device, &memory);
  if (status != AGPU_SUCCESS) return cli_library_error(status);
  info_local local = {.selector = selector && *selector ? selector : getenv("ANYGPU_DEVICE")};
  local.used = local.selector && strstr(local.selector, "@");
  if (local.used && (status = agpu_local_rank(&local.rank, &local.variable)) != AGPU_SUCCESS)
    return cli_library_error(status);

  if (arguments.json) {
    if (!print_info_json(&info, &memory, &local)) {
      fputs("anygpu: internal error: malformed JSON output\n", stderr);
      return CLI_EXIT_FAILURE;
    }
  } else {
    print_info_text(&info, &memory, &local);
  }
  return cli_finish_output();
}
