// SPDX-License-Identifier: Apache-2.0
/* bench --json: {"results": [{"device", "selector", "backend", "physical",
 * "benchmark", "value", "unit", "peak", "fraction_of_peak", "native",
 * "ratio_to_native", ...}], "seconds"}, null where unknown. */
#include <math.h>

#include "bench.h"
#include "json_writer.h"

static void number_or_null(json_writer *writer, const char *key, double value) {
  json_key(writer, key);
  if (isfinite(value))
    json_double(writer, value);
  else
    json_null(writer);
}

void bench_print_json(FILE *out, const bench_results *results, double seconds) {
  static const char *const statuses[] = {"ok", "failed", "skipped"};
  json_writer writer;
  json_writer_init(&writer, out, true);
  json_begin_object(&writer);
  json_key(&writer, "results");
  json_begin_array(&writer);
  for (size_t i = 0; i < results->count; i++) {
    const bench_result *r = &results->items[i];
    char physical[24];
    snprintf(physical, sizeof physical, "phys:%u", r->physical);
    json_begin_object(&writer);
    json_key_string(&writer, "device", r->device);
    json_key_string(&writer, "selector", r->selector);
    json_key_string(&writer, "backend", r->backend);
    json_key_string(&writer, "physical", physical);
    json_key_string(&writer, "benchmark", r->benchmark);
    number_or_null(&writer, "value", r->status == BENCH_OK ? r->value : NAN);
    json_key_string(&writer, "unit", r->unit);
    json_key_bool(&writer, "lower_is_better", r->lower_is_better);
    number_or_null(&writer, "peak", r->peak);
    number_or_null(&writer, "fraction_of_peak", bench_fraction_of_peak(r));
    number_or_null(&writer, "native", r->native);
    number_or_null(&writer, "ratio_to_native", bench_ratio_to_native(r));
    if (r->native_program[0])
      json_key_string(&writer, "native_program", r->native_program);
    else
      json_key_null(&writer, "native_program");
    json_key_string(&writer, "native_note", r->native_note);
    json_key_string(&writer, "status", statuses[r->status]);
    json_key_string(&writer, "message", r->message);
    json_key_string(&writer, "note", r->note);
    json_end_object(&writer);
  }
  json_end_array(&writer);
  json_key(&writer, "seconds");
  json_double(&writer, seconds);
  json_end_object(&writer);
  json_writer_finish(&writer);
}
