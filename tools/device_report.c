// SPDX-License-Identifier: Apache-2.0
#include "device_report.h"

#include <inttypes.h>
#include <stdio.h>

#include "format.h"

#define TERMINATE(field) ((field)[sizeof(field) - 1] = '\0')

agpu_status device_report_get_info(const agpu_device *device, agpu_device_info *info) {
  memset(info, 0, sizeof *info);
  agpu_status status = agpu_device_get_info(device, info);
  if (status != AGPU_SUCCESS) return status;
  /* The library fills these with snprintf; a backend that copied a native
   * string with memcpy must still not make us read past the field. */
  TERMINATE(info->selector);
  TERMINATE(info->name);
  TERMINATE(info->vendor);
  TERMINATE(info->driver_version);
  TERMINATE(info->api_version);
  TERMINATE(info->pci);
  return AGPU_SUCCESS;
}

static void write_uint32_array(json_writer *writer, const char *key, const uint32_t *values,
                               size_t count, bool skip_zeros) {
  json_key(writer, key);
  json_begin_array(writer);
  for (size_t i = 0; i < count; i++)
    if (!skip_zeros || values[i] != 0) json_uint(writer, values[i]);
  json_end_array(writer);
}

void device_report_write_json_members(json_writer *writer, const agpu_device_info *info) {
  json_key_string(writer, "backend", info->backend_name ? info->backend_name : "");
  json_key_uint(writer, "index", info->index);
  json_key_string(writer, "selector", info->selector);
  json_key_string(writer, "name", info->name);
  json_key_string(writer, "vendor", info->vendor);
  json_key_uint(writer, "vendor_id", info->vendor_id);
  json_key_uint(writer, "device_id", info->device_id);
  json_key_string(writer, "type", agpu_device_type_name(info->type));
  json_key_string(writer, "driver_version", info->driver_version);
  json_key_string(writer, "api_version", info->api_version);
  json_key_uint(writer, "global_mem_bytes", info->global_mem_bytes);
  json_key_uint(writer, "max_alloc_bytes", info->max_alloc_bytes);
  json_key_uint(writer, "local_mem_bytes", info->local_mem_bytes);
  json_key_uint(writer, "compute_units", info->compute_units);
  json_key_uint(writer, "max_work_group_size", info->max_work_group_size);
  write_uint32_array(writer, "max_work_item_sizes", info->max_work_item_sizes, 3, false);
  json_key(writer, "max_work_groups");
  json_begin_array(writer);
  for (size_t i = 0; i < 3; i++) json_uint(writer, info->max_work_groups[i]);
  json_end_array(writer);
  write_uint32_array(writer, "subgroup_sizes", info->subgroup_sizes,
                     sizeof info->subgroup_sizes / sizeof info->subgroup_sizes[0], true);
  json_key_uint(writer, "max_clock_mhz", info->max_clock_mhz);
  json_key_bool(writer, "fp64", info->fp64);
  json_key_bool(writer, "fp16", info->fp16);
  json_key_bool(writer, "int64", info->int64);
  json_key_bool(writer, "unified_memory", info->unified_memory);
  if (info->has_pci)
    json_key_string(writer, "pci", info->pci);
  else
    json_key_null(writer, "pci");
  if (info->has_uuid) {
    char uuid[FORMAT_UUID_HEX_CAPACITY];
    format_uuid_hex(info->uuid, uuid);
    json_key_string(writer, "uuid", uuid);
  } else {
    json_key_null(writer, "uuid");
  }
  device_report_write_hardware_json(writer, info);
  device_report_write_limits_json(writer, info);
}

void device_report_write_limits_json(json_writer *writer, const agpu_device_info *info) {
  json_key_uint(writer, "max_buffer_range_bytes", info->max_buffer_range_bytes);
  json_key_bool(writer, "buffers_by_address", info->buffers_by_address);
  json_key_uint(writer, "max_buffer_params", info->max_buffer_params);
  json_key_uint(writer, "max_param_bytes", info->max_param_bytes);
}

void device_report_print_limits(const agpu_device_info *info,
                                void (*print)(const char *key, const char *value)) {
  char text[160];
  if (info->max_buffer_range_bytes) {
    char human[FORMAT_BYTES_CAPACITY];
    format_bytes(info->max_buffer_range_bytes, human, sizeof human);
    snprintf(text, sizeof text, "%s (%" PRIu64 " bytes) per binding; larger buffers %s", human,
             info->max_buffer_range_bytes,
             info->buffers_by_address ? "by address" : "refused at launch");
    print("max_buffer_range_bytes", text);
  } else {
    print("max_buffer_range_bytes", "none (up to max_alloc_bytes)");
  }
  snprintf(text, sizeof text, "%u", info->max_buffer_params);
  print("max_buffer_params", info->max_buffer_params ? text : "none");
  snprintf(text, sizeof text, "%u bytes", info->max_param_bytes);
  print("max_param_bytes", info->max_param_bytes ? text : "none");
}

/* The hardware fields CUDA and HIP fill; each only when known (non-zero). */
void device_report_write_hardware_json(json_writer *writer, const agpu_device_info *info) {
  if (info->arch[0]) json_key_string(writer, "arch", info->arch);
  if (info->memory_clock_mhz) json_key_uint(writer, "memory_clock_mhz", info->memory_clock_mhz);
  if (info->memory_bus_width_bits)
    json_key_uint(writer, "memory_bus_width_bits", info->memory_bus_width_bits);
  if (info->last_level_cache_bytes)
    json_key_uint(writer, "last_level_cache_bytes", info->last_level_cache_bytes);
  if (info->peak_bandwidth_gb_s > 0) {
    json_key(writer, "peak_bandwidth_gb_s");
    json_double(writer, info->peak_bandwidth_gb_s);
  }
  if (info->peak_fp32_gflop_s > 0) {
    json_key(writer, "peak_fp32_gflop_s");
    json_double(writer, info->peak_fp32_gflop_s);
  }
}

void device_report_print_hardware(const agpu_device_info *info,
                                  void (*print)(const char *key, const char *value)) {
  char text[64];
  if (info->arch[0]) print("arch", info->arch);
  if (info->memory_clock_mhz) {
    snprintf(text, sizeof text, "%u MHz", info->memory_clock_mhz);
    print("memory_clock_mhz", text);
  }
  if (info->memory_bus_width_bits) {
    snprintf(text, sizeof text, "%u bits", info->memory_bus_width_bits);
    print("memory_bus_width_bits", text);
  }
  if (info->last_level_cache_bytes) {
    char human[FORMAT_BYTES_CAPACITY];
    format_bytes(info->last_level_cache_bytes, human, sizeof human);
    snprintf(text, sizeof text, "%s (%" PRIu64 " bytes)", human, info->last_level_cache_bytes);
    print("last_level_cache_bytes", text);
  }
  if (info->peak_bandwidth_gb_s > 0) {
    snprintf(text, sizeof text, "%.1f GB/s (theoretical)", info->peak_bandwidth_gb_s);
    print("peak_bandwidth_gb_s", text);
  }
  if (info->peak_fp32_gflop_s > 0) {
    snprintf(text, sizeof text, "%.1f GFLOP/s (theoretical)", info->peak_fp32_gflop_s);
    print("peak_fp32_gflop_s", text);
  }
}
