// SPDX-License-Identifier: Apache-2.0
/* Physical devices as the CLI reports them: the "physical" JSON array that
 * `list --json` and `doctor --json` share, and the text table. */
#ifndef ANYGPU_TOOLS_PHYSICAL_REPORT_H
#define ANYGPU_TOOLS_PHYSICAL_REPORT_H

#include <stdio.h>

#include "anygpu.h"
#include "json_writer.h"

/* Fetches every physical device into a malloc'd array (*physical; NULL and
 * 0 when there are none). */
agpu_status physical_report_collect(agpu_physical_device_info **physical, uint32_t *count);

/* The "physical" key and its array. */
void physical_report_write_json(json_writer *writer, const agpu_physical_device_info *physical,
                                uint32_t count);

/* One line per physical device: ID, NAME, TYPE, PCI, MATCH, DEVICES; each
 * line starts with `indent`. False when out of memory. */
bool physical_report_print_table(FILE *out, const agpu_physical_device_info *physical,
                                 uint32_t count, const char *indent);

/* "cpu:0, opencl:0" */
void physical_report_members(const agpu_physical_device_info *physical, char *out, size_t capacity);

#endif /* ANYGPU_TOOLS_PHYSICAL_REPORT_H */
