// SPDX-License-Identifier: Apache-2.0
/* The text report: one table per physical device, benchmarks down, and for
 * each of its devices (a column group per backend) the figure, the fraction
 * of the theoretical peak and the ratio to the native program. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "format.h"

#define TABLE_GROUPS 4 /* devices side by side: 2 + 3 x 4 columns */

static void format_value(double value, char *out, size_t capacity) {
  if (!isfinite(value))
    snprintf(out, capacity, "-");
  else if (fabs(value) >= 100)
    snprintf(out, capacity, "%.0f", value);
  else if (fabs(value) >= 10)
    snprintf(out, capacity, "%.1f", value);
  else
    snprintf(out, capacity, "%.2f", value);
}

static const bench_result *find(const bench_results *results, const char *selector,
                                const char *benchmark) {
  for (size_t i = 0; i < results->count; i++)
    if (strcmp(results->items[i].selector, selector) == 0 &&
        strcmp(results->items[i].benchmark, benchmark) == 0)
      return &results->items[i];
  return NULL;
}

/* The distinct values of a field, in order of appearance, among the results
 * of one physical device. */
static size_t distinct(const bench_results *results, uint32_t physical, bool selectors,
                       const char **out, size_t capacity) {
  size_t count = 0;
  for (size_t i = 0; i < results->count; i++) {
    const bench_result *r = &results->items[i];
    if (r->physical != physical) continue;
    const char *value = selectors ? r->selector : r->benchmark;
    bool seen = false;
    for (size_t j = 0; j < count && !seen; j++) seen = strcmp(out[j], value) == 0;
    if (!seen && count < capacity) out[count++] = value;
  }
  return count;
}

static void print_peaks(FILE *out, const bench_results *results, uint32_t physical) {
  double bandwidth = NAN, flops = NAN;
  const char *from_bandwidth = "", *from_flops = "";
  for (size_t i = 0; i < results->count; i++) {
    const bench_result *r = &results->items[i];
    if (r->physical != physical || !(r->peak > 0)) continue;
    if (strcmp(r->unit, "GB/s") == 0 && !(bandwidth > 0))
      bandwidth = r->peak, from_bandwidth = r->selector;
    if (strcmp(r->unit, "GFLOP/s") == 0 && !(flops > 0)) flops = r->peak, from_flops = r->selector;
  }
  char text[64];
  fputs("theoretical peak: ", out);
  if (bandwidth > 0) {
    format_value(bandwidth, text, sizeof text);
    fprintf(out, "%s GB/s memory (%s)", text, from_bandwidth);
  } else {
    fputs("memory bandwidth unknown", out);
  }
  if (flops > 0) {
    format_value(flops, text, sizeof text);
    fprintf(out, ", %s GFLOP/s FP32 (%s)\n", text, from_flops);
  } else {
    fputs(", FP32 rate unknown\n", out);
  }
}

static void print_physical(FILE *out, const bench_results *results, uint32_t physical) {
  const char *selectors[64], *benchmarks[64];
  size_t device_count = distinct(results, physical, true, selectors, 64);
  size_t benchmark_count = distinct(results, physical, false, benchmarks, 64);
  agpu_physical_device_info info;
  memset(&info, 0, sizeof info);
  if (agpu_physical_device_get_info(physical, &info) != AGPU_SUCCESS)
    snprintf(info.name, sizeof info.name, "unknown");
  fprintf(out, "phys:%u  %s  (%s)\n", physical, info.name, agpu_device_type_name(info.type));
  print_peaks(out, results, physical);
  for (size_t first = 0; first < device_count; first += TABLE_GROUPS) {
    size_t group = device_count - first < TABLE_GROUPS ? device_count - first : TABLE_GROUPS;
    text_table table;
    if (!text_table_init(&table, 2 + 3 * group)) return;
    for (size_t c = 2; c < 2 + 3 * group; c++) text_table_align_right(&table, c);
    const char *cells[TEXT_TABLE_MAX_COLUMNS];
    cells[0] = "BENCHMARK", cells[1] = "UNIT";
    for (size_t d = 0; d < group; d++) {
      cells[2 + 3 * d] = selectors[first + d];
      cells[3 + 3 * d] = "PEAK";
      cells[4 + 3 * d] = "NATIVE";
    }
    text_table_add_row(&table, cells);
    char text[TEXT_TABLE_MAX_COLUMNS][96];
    for (size_t b = 0; b < benchmark_count; b++) {
      cells[0] = benchmarks[b];
      cells[1] = "";
      for (size_t d = 0; d < group; d++) {
        const bench_result *r = find(results, selectors[first + d], benchmarks[b]);
        char *value = text[2 + 3 * d], *peak = text[3 + 3 * d], *native = text[4 + 3 * d];
        snprintf(value, 96, "-");
        snprintf(peak, 96, "—");
        snprintf(native, 96, "—");
        if (r) {
          cells[1] = r->unit;
          if (r->status == BENCH_FAILED) snprintf(value, 96, "FAIL");
          if (r->status == BENCH_SKIPPED) snprintf(value, 96, "skip");
          if (r->status == BENCH_OK) format_value(r->value, value, 96);
          double fraction = bench_fraction_of_peak(r), ratio = bench_ratio_to_native(r);
          if (isfinite(fraction)) snprintf(peak, 96, "%.0f%%", 100 * fraction);
          if (isfinite(ratio)) snprintf(native, 96, "%.2fx", ratio);
        }
        cells[2 + 3 * d] = value, cells[3 + 3 * d] = peak, cells[4 + 3 * d] = native;
      }
      text_table_add_row(&table, cells);
    }
    text_table_print(&table, out, "  ");
    text_table_free(&table);
  }
}

void bench_print_table(FILE *out, const bench_results *results) {
  uint32_t physicals[64];
  size_t count = 0;
  for (size_t i = 0; i < results->count; i++) {
    bool seen = false;
    for (size_t j = 0; j < count && !seen; j++) seen = physicals[j] == results->items[i].physical;
    if (!seen && count < 64) physicals[count++] = results->items[i].physical;
  }
  for (size_t p = 0; p < count; p++) {
    if (p) fputc('\n', out);
    print_physical(out, results, physicals[p]);
  }
  fputs(
      "\nPEAK: the figure as a fraction of the device's theoretical peak (— where the backend\n"
      "does not report one). NATIVE: anygpu's performance over the native program's, measured\n"
      "in the same run (for latencies: native time / anygpu time); above 1.00x anygpu is\n"
      "faster. Bandwidths in 1e9 B/s, latencies in microseconds (docs/bench.md).\n",
      out);
  bool header = false;
  for (size_t i = 0; i < results->count; i++) {
    const bench_result *r = &results->items[i];
    if (r->status == BENCH_OK) continue;
    if (!header) fputs("\nNot measured:\n", out);
    header = true;
    fprintf(out, "  %s on %s: %s: ", r->benchmark, r->selector,
            r->status == BENCH_FAILED ? "FAILED" : "skipped");
    fput_single_line(r->message, out);
    fputc('\n', out);
  }
  header = false;
  for (size_t i = 0; i < results->count; i++) {
    const bench_result *r = &results->items[i];
    if (r->status != BENCH_OK || !r->native_note[0]) continue;
    if (!header) fputs("\nNative baselines:\n", out);
    header = true;
    fprintf(out, "  %s on %s: ", r->benchmark, r->selector);
    fput_single_line(r->native_note, out);
    fputc('\n', out);
  }
}
