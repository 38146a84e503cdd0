// SPDX-License-Identifier: Apache-2.0
/* anygpu top as text: one row per device, then each device's processes and
 * the sources that did not answer. Plain lines: the caller clears the
 * screen only on a terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "top.h"

/* The text shows the largest few; --json has every process the sample has. */
#define TOP_TEXT_PROCESSES 10

void top_device_apis(const agpu_device_telemetry *device, char *out, size_t capacity) {
  agpu_physical_device_info info;
  snprintf(out, capacity, "-");
  if (device->physical_index == UINT32_MAX ||
      agpu_physical_device_get_info(device->physical_index, &info) != AGPU_SUCCESS)
    return;
  size_t length = (size_t)snprintf(out, capacity, "%s:", info.id);
  for (uint32_t i = 0; i < info.member_count && length < capacity; i++)
    length +=
        (size_t)snprintf(out + length, capacity - length, "%s%s", i ? ", " : " ", info.members[i]);
}

static void top_value(char *out, size_t capacity, agpu_telemetry_value value, const char *format) {
  if (value.known)
    snprintf(out, capacity, format, value.value);
  else
    snprintf(out, capacity, "-");
}

static void top_bytes(char *out, size_t capacity, agpu_telemetry_bytes value) {
  if (value.known)
    format_bytes(value.bytes, out, capacity);
  else
    snprintf(out, capacity, "-");
}

/* "a / b" from two cells. */
static void top_pair(char *out, size_t capacity, const char *a, const char *b) {
  snprintf(out, capacity, "%s / %s", a, b);
}

static void top_device_row(text_table *table, const agpu_device_telemetry *d, size_t index) {
  char id[24], util[16], used[FORMAT_BYTES_CAPACITY], total[FORMAT_BYTES_CAPACITY], memory[48];
  char temp[96], power[24], limit[24], watts[56], clock[24], clock_max[24], clocks[56], fan[16];
  char apis[256];
  snprintf(id, sizeof id, "%zu", index);
  top_value(util, sizeof util, d->utilization_percent, "%.0f%%");
  top_bytes(used, sizeof used, d->memory_used);
  top_bytes(total, sizeof total, d->memory_total);
  top_pair(memory, sizeof memory, used, total);
  if (d->temperature_c.known)
    snprintf(temp, sizeof temp, "%.0f C (%s)", d->temperature_c.value, d->temperature_sensor);
  else
    snprintf(temp, sizeof temp, "-");
  top_value(power, sizeof power, d->power_w, "%.1f W");
  top_value(limit, sizeof limit, d->power_limit_w, "%.0f W");
  top_pair(watts, sizeof watts, power, limit);
  top_value(clock, sizeof clock, d->clock_mhz, "%.0f");
  top_value(clock_max, sizeof clock_max, d->clock_max_mhz, "%.0f MHz");
  top_pair(clocks, sizeof clocks, clock, clock_max);
  top_value(fan, sizeof fan, d->fan_percent, "%.0f%%");
  top_device_apis(d, apis, sizeof apis);
  const char *cells[] = {id,     d->name, d->driver, d->has_pci ? d->pci : "-",
                         util,   memory,  temp,      watts,
                         clocks, fan,     apis};
  text_table_add_row(table, cells);
}

static void top_processes(FILE *out, const agpu_device_telemetry *d, size_t index) {
  if (!d->processes_known || d->process_count == 0) return;
  text_table table;
  if (!text_table_init(&table, 5)) return;
  const char *header[] = {"PID", "NAME", "MEMORY", "SHARED", "ENGINE"};
  text_table_add_row(&table, header);
  uint32_t shown = d->process_count < TOP_TEXT_PROCESSES ? d->process_count : TOP_TEXT_PROCESSES;
  for (uint32_t i = 0; i < shown; i++) {
    const agpu_process_telemetry *p = &d->processes[i];
    char pid[16], memory[FORMAT_BYTES_CAPACITY], shared[FORMAT_BYTES_CAPACITY], engine[16];
    snprintf(pid, sizeof pid, "%u", p->pid);
    top_bytes(memory, sizeof memory, p->memory);
    top_bytes(shared, sizeof shared, p->shared_memory);
    top_value(engine, sizeof engine, p->engine_percent, "%.1f%%");
    const char *cells[] = {pid, p->name, memory, shared, engine};
    text_table_add_row(&table, cells);
  }
  fprintf(out, "\nProcesses on device %zu (%s%s):\n", index, d->name,
          d->processes_truncated || shown < d->process_count ? ", the largest" : "");
  text_table_print(&table, out, "  ");
  text_table_free(&table);
}

/* Throttling and partitions, a line each, under the table. */
static void top_device_notes(FILE *out, const agpu_device_telemetry *d, uint32_t index) {
  if (d->throttle_known && d->throttle_reasons[0])
    fprintf(out, "Device %u is throttled: %s\n", index, d->throttle_reasons);
  for (uint32_t i = 0; i < d->partition_count; i++) {
    const agpu_telemetry_partition *p = &d->partitions[i];
    char used[FORMAT_BYTES_CAPACITY], total[FORMAT_BYTES_CAPACITY];
    top_bytes(used, sizeof used, p->memory_used);
    top_bytes(total, sizeof total, p->memory_total);
    fprintf(out, "Device %u partition %u (%s): %s / %s\n", index, p->instance_id, p->name, used,
            total);
  }
}

/* "  device 1 hwmon: reason" or "  nvml: reason", under one heading. */
static void top_missing_line(FILE *out, bool *headed, const char *what, const char *reason) {
  if (!*headed) fputs("\nNot available:\n", out);
  *headed = true;
  fprintf(out, "  %s: ", what);
  fput_single_line(reason, out);
  fputc('\n', out);
}

static void top_missing(FILE *out, const agpu_telemetry *sample,
                        const agpu_device_telemetry *devices, uint32_t count) {
  bool headed = false;
  char what[64];
  for (uint32_t i = 0; devices && i < count; i++)
    for (uint32_t m = 0; m < devices[i].missing_count; m++) {
      snprintf(what, sizeof what, "device %u %s", i, devices[i].missing[m].source);
      top_missing_line(out, &headed, what, devices[i].missing[m].reason);
    }
  for (uint32_t i = 0; i < agpu_telemetry_source_count(sample); i++) {
    const char *name, *reason;
    if (agpu_telemetry_get_source(sample, i, &name, &reason) == AGPU_SUCCESS && reason[0])
      top_missing_line(out, &headed, name, reason);
  }
}

void top_print_text(FILE *out, const agpu_telemetry *sample, const top_options *options) {
  (void)options;
  text_table table;
  if (!text_table_init(&table, 11)) return;
  const char *header[] = {
      "DEV",  "NAME",          "DRIVER",      "PCI", "UTIL", "MEMORY USED / TOTAL",
      "TEMP", "POWER / LIMIT", "CLOCK / MAX", "FAN", "APIS"};
  text_table_add_row(&table, header);
  uint32_t count = agpu_telemetry_device_count(sample);
  agpu_device_telemetry *devices = calloc(count ? count : 1, sizeof *devices);
  for (uint32_t i = 0; devices && i < count; i++)
    if (agpu_telemetry_get_device(sample, i, &devices[i]) == AGPU_SUCCESS)
      top_device_row(&table, &devices[i], i);
  fprintf(out, "anygpu top: %u devices, rates over %.3f s\n", count,
          agpu_telemetry_window_s(sample));
  text_table_print(&table, out, "");
  text_table_free(&table);
  for (uint32_t i = 0; devices && i < count; i++) top_device_notes(out, &devices[i], i);
  for (uint32_t i = 0; devices && i < count; i++) top_processes(out, &devices[i], i);
  top_missing(out, sample, devices, count);
  free(devices);
  fputc('\n', out);
}
