// SPDX-License-Identifier: Apache-2.0
/* A device as the CLI reports it: its info fetched safely, and the JSON
 * members that `list --json` and `info --json` share. */
#ifndef ANYGPU_TOOLS_DEVICE_REPORT_H
#define ANYGPU_TOOLS_DEVICE_REPORT_H

#include "anygpu.h"
#include "json_writer.h"

/* agpu_device_get_info, with every string field NUL-terminated. */
agpu_status device_report_get_info(const agpu_device *device, agpu_device_info *info);

/* The members of a device object, without its braces. */
void device_report_write_json_members(json_writer *writer, const agpu_device_info *info);

/* arch, memory clock and bus width, last-level cache and the theoretical
 * peaks, each only when the backend filled it (also part of the above). */
void device_report_write_hardware_json(json_writer *writer, const agpu_device_info *info);
/* The same fields as text, one print(key, value) each, for `anygpu info`. */
void device_report_print_hardware(const agpu_device_info *info,
                                  void (*print)(const char *key, const char *value));

/* The launch limits (buffer range and whether larger buffers go by address,
 * buffer parameters, argument bytes): JSON members (always, 0 for none,
 * also part of device_report_write_json_members) and text ("none"). */
void device_report_write_limits_json(json_writer *writer, const agpu_device_info *info);
void device_report_print_limits(const agpu_device_info *info,
                                void (*print)(const char *key, const char *value));

#endif /* ANYGPU_TOOLS_DEVICE_REPORT_H */
