// SPDX-License-Identifier: Apache-2.0
/* anygpu top --json: one JSON document per sample, on one line. An unknown
 * value is null, never 0. */
#include <stdio.h>
#include <time.h>

#include "json_writer.h"
#include "top.h"

static void top_json_value(json_writer *w, const char *key, agpu_telemetry_value value) {
  json_key(w, key);
  if (value.known)
    json_double(w, value.value);
  else
    json_null(w);
}

static void top_json_bytes(json_writer *w, const char *key, agpu_telemetry_bytes value) {
  if (value.known)
    json_key_uint(w, key, value.bytes);
  else
    json_key_null(w, key);
}

static void top_json_processes(json_writer *w, const agpu_device_telemetry *d) {
  json_key(w, "processes");
  if (!d->processes_known) {
    json_null(w);
    return;
  }
  json_begin_array(w);
  for (uint32_t i = 0; i < d->process_count; i++) {
    const agpu_process_telemetry *p = &d->processes[i];
    json_begin_object(w);
    json_key_uint(w, "pid", p->pid);
    json_key_string(w, "name", p->name);
    top_json_bytes(w, "memory_bytes", p->memory);
    top_json_bytes(w, "shared_memory_bytes", p->shared_memory);
    top_json_value(w, "engine_percent", p->engine_percent);
    json_end_object(w);
  }
  json_end_array(w);
  json_key_bool(w, "processes_truncated", d->processes_truncated);
}

static void top_json_missing(json_writer *w, const agpu_device_telemetry *d) {
  json_key(w, "missing");
  json_begin_array(w);
  for (uint32_t i = 0; i < d->missing_count; i++) {
    json_begin_object(w);
    json_key_string(w, "source", d->missing[i].source);
    json_key_string(w, "reason", d->missing[i].reason);
    json_end_object(w);
  }
  json_end_array(w);
}

static void top_json_partitions(json_writer *w, const agpu_device_telemetry *d) {
  json_key(w, "partitions");
  json_begin_array(w);
  for (uint32_t i = 0; i < d->partition_count; i++) {
    const agpu_telemetry_partition *p = &d->partitions[i];
    json_begin_object(w);
    json_key_string(w, "name", p->name);
    json_key_uint(w, "instance_id", p->instance_id);
    top_json_bytes(w, "memory_total_bytes", p->memory_total);
    top_json_bytes(w, "memory_used_bytes", p->memory_used);
    top_json_bytes(w, "memory_free_bytes", p->memory_free);
    json_end_object(w);
  }
  json_end_array(w);
}

static void top_json_device(json_writer *w, const agpu_device_telemetry *d) {
  json_begin_object(w);
  json_key_string(w, "name", d->name);
  json_key_string(w, "type", agpu_device_type_name(d->type));
  json_key_string(w, "driver", d->driver);
  json_key_string_or_null(w, "pci", d->has_pci, d->pci);
  if (d->physical_index != UINT32_MAX) {
    char apis[1024];
    json_key_uint(w, "physical_index", d->physical_index);
    top_device_apis(d, apis, sizeof apis);
    json_key_string(w, "apis", apis);
  }
  json_key_string(w, "sources", d->sources);
  top_json_bytes(w, "memory_total_bytes", d->memory_total);
  top_json_bytes(w, "memory_used_bytes", d->memory_used);
  top_json_bytes(w, "memory_free_bytes", d->memory_free);
  top_json_bytes(w, "shared_total_bytes", d->shared_total);
  top_json_bytes(w, "shared_used_bytes", d->shared_used);
  top_json_value(w, "utilization_percent", d->utilization_percent);
  top_json_value(w, "temperature_c", d->temperature_c);
  json_key_string_or_null(w, "temperature_sensor", d->temperature_c.known, d->temperature_sensor);
  top_json_value(w, "power_w", d->power_w);
  top_json_value(w, "power_limit_w", d->power_limit_w);
  top_json_value(w, "clock_mhz", d->clock_mhz);
  top_json_value(w, "clock_max_mhz", d->clock_max_mhz);
  top_json_value(w, "memory_clock_mhz", d->memory_clock_mhz);
  top_json_value(w, "memory_clock_max_mhz", d->memory_clock_max_mhz);
  top_json_value(w, "fan_percent", d->fan_percent);
  json_key_string_or_null(w, "throttle_reasons", d->throttle_known, d->throttle_reasons);
  top_json_processes(w, d);
  top_json_partitions(w, d);
  top_json_missing(w, d);
  json_end_object(w);
}

void top_print_json(FILE *out, const agpu_telemetry *sample, const top_options *options) {
  json_writer w;
  json_writer_init(&w, out, false);
  json_begin_object(&w);
  json_key(&w, "time");
  json_double(&w, (double)time(NULL));
  json_key(&w, "window_s");
  json_double(&w, agpu_telemetry_window_s(sample));
  json_key_string(&w, "sysroot", options->sysroot ? options->sysroot : "");
  json_key(&w, "sources");
  json_begin_array(&w);
  for (uint32_t i = 0; i < agpu_telemetry_source_count(sample); i++) {
    const char *name, *reason;
    if (agpu_telemetry_get_source(sample, i, &name, &reason) != AGPU_SUCCESS) continue;
    json_begin_object(&w);
    json_key_string(&w, "name", name);
    json_key_bool(&w, "available", reason[0] == '\0');
    json_key_string(&w, "reason", reason);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_key(&w, "devices");
  json_begin_array(&w);
  for (uint32_t i = 0; i < agpu_telemetry_device_count(sample); i++) {
    agpu_device_telemetry d;
    if (agpu_telemetry_get_device(sample, i, &d) == AGPU_SUCCESS) top_json_device(&w, &d);
  }
  json_end_array(&w);
  json_end_object(&w);
  json_writer_finish(&w);
}
