// SPDX-License-Identifier: Apache-2.0
/* anygpu top: what each physical device is doing, sampled every interval
 * (cmd_top.c), as a table (top_text.c) or a JSON line per sample
 * (top_json.c). */
#ifndef ANYGPU_TOOLS_TOP_H
#define ANYGPU_TOOLS_TOP_H

#include <stdbool.h>
#include <stdio.h>

#include "anygpu.h"

typedef struct top_options {
  double interval_s; /* between samples */
  long count;        /* samples; 0: until interrupted */
  bool json;
  bool apis;           /* match the physical devices (loads the backends) */
  const char *sysroot; /* NULL: the running system */
} top_options;

/* The "phys:N" members' selectors ("vulkan:0, cpu:0"), "-" when unknown. */
void top_device_apis(const agpu_device_telemetry *device, char *out, size_t capacity);

void top_print_text(FILE *out, const agpu_telemetry *sample, const top_options *options);
void top_print_json(FILE *out, const agpu_telemetry *sample, const top_options *options);

#endif /* ANYGPU_TOOLS_TOP_H */
