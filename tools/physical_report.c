// SPDX-License-Identifier: Apache-2.0
#include "physical_report.h"

#include <stdlib.h>
#include <string.h>

#include "format.h"

agpu_status physical_report_collect(agpu_physical_device_info **physical, uint32_t *count) {
  *physical = NULL;
  *count = 0;
  uint32_t total = 0;
  agpu_status status = agpu_physical_device_count(&total);
  if (status != AGPU_SUCCESS || total == 0) return status;
  agpu_physical_device_info *list = calloc(total, sizeof *list);
  if (!list) return AGPU_ERROR_OUT_OF_HOST_MEMORY;
  for (uint32_t i = 0; i < total; i++) {
    status = agpu_physical_device_get_info(i, &list[i]);
    if (status != AGPU_SUCCESS) {
      free(list);
      return status;
    }
    list[i].name[sizeof list[i].name - 1] = '\0';
  }
  *physical = list;
  *count = total;
  return AGPU_SUCCESS;
}

void physical_report_write_json(json_writer *writer, const agpu_physical_device_info *physical,
                                uint32_t count) {
  json_key(writer, "physical");
  json_begin_array(writer);
  for (uint32_t i = 0; i < count; i++) {
    const agpu_physical_device_info *group = &physical[i];
    json_begin_object(writer);
    json_key_string(writer, "id", group->id);
    json_key_uint(writer, "index", group->index);
    json_key_string(writer, "name", group->name);
    json_key_string(writer, "type", agpu_device_type_name(group->type));
    json_key_uint(writer, "vendor_id", group->vendor_id);
    json_key_uint(writer, "device_id", group->device_id);
    json_key_uint(writer, "global_mem_bytes", group->global_mem_bytes);
    if (group->has_pci)
      json_key_string(writer, "pci", group->pci);
    else
      json_key_null(writer, "pci");
    if (group->has_uuid) {
      char uuid[FORMAT_UUID_HEX_CAPACITY];
      format_uuid_hex(group->uuid, uuid);
      json_key_string(writer, "uuid", uuid);
    } else {
      json_key_null(writer, "uuid");
    }
    json_key(writer, "devices");
    json_begin_array(writer);
    for (uint32_t m = 0; m < group->member_count && m < AGPU_PHYSICAL_MAX_MEMBERS; m++)
      json_string(writer, group->members[m]);
    json_end_array(writer);
    json_key_string(writer, "match", agpu_physical_match_name(group->match));
    json_key_bool(writer, "uncertain", group->uncertain);
    json_key_bool(writer, "duplicate_in_backend", group->duplicate_in_backend);
    if (group->duplicate_in_backend)
      json_key_string(writer, "duplicate_backend", group->duplicate_backend);
    else
      json_key_null(writer, "duplicate_backend");
    json_end_object(writer);
  }
  json_end_array(writer);
}

void physical_report_members(const agpu_physical_device_info *physical, char *out,
                             size_t capacity) {
  size_t length = 0;
  out[0] = '\0';
  for (uint32_t m = 0; m < physical->member_count && m < AGPU_PHYSICAL_MAX_MEMBERS; m++) {
    int written =
        snprintf(out + length, capacity - length, "%s%s", m ? ", " : "", physical->members[m]);
    if (written < 0 || (size_t)written >= capacity - length) break;
    length += (size_t)written;
  }
}

bool physical_report_print_table(FILE *out, const agpu_physical_device_info *physical,
                                 uint32_t count, const char *indent) {
  enum { ID, NAME, TYPE, PCI, MATCH, DEVICES, COLUMN_COUNT };
  text_table table;
  if (!text_table_init(&table, COLUMN_COUNT)) return false;
  const char *header[COLUMN_COUNT] = {"PHYSICAL", "NAME", "TYPE", "PCI", "MATCH", "DEVICES"};
  bool ok = text_table_add_row(&table, header);
  for (uint32_t i = 0; ok && i < count; i++) {
    const agpu_physical_device_info *group = &physical[i];
    char members[1024], match[64];
    physical_report_members(group, members, sizeof members);
    snprintf(match, sizeof match, "%s%s%s%s", agpu_physical_match_name(group->match),
             group->uncertain ? " (uncertain)" : "",
             group->duplicate_in_backend ? ", twice in " : "",
             group->duplicate_in_backend ? group->duplicate_backend : "");
    const char *row[COLUMN_COUNT] = {group->id,
                                     group->name[0] ? group->name : "unknown",
                                     agpu_device_type_name(group->type),
                                     group->has_pci ? group->pci : "-",
                                     match,
                                     members};
    ok = text_table_add_row(&table, row);
  }
  if (ok) text_table_print(&table, out, indent);
  text_table_free(&table);
  return ok;
}
