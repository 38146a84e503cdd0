// SPDX-License-Identifier: Apache-2.0
/* bench --html FILE: one self-contained page (no scripts, no fetches): per
 * physical device the table and inline SVG bar charts of bandwidth per
 * kernel, launch latency and sgemm, one colour per backend and grey for
 * the native programs. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench.h"

#define CHART_WIDTH 760
#define CHART_LABEL 150
#define CHART_BARS 470
#define CHART_BAR 14

/* The backend's colour, from its descriptor. */
static const char *backend_colour(const char *backend) {
  uint32_t index = 0;
  agpu_backend_info info;
  if (agpu_backend_find(backend, &index) == AGPU_SUCCESS &&
      agpu_backend_get_info(index, &info) == AGPU_SUCCESS && info.colour)
    return info.colour;
  return "#17becf";
}
#define NATIVE_COLOUR "#7f7f7f"

static void escaped(FILE *out, const char *text) {
  for (; *text; text++) {
    switch (*text) {
      case '<':
        fputs("&lt;", out);
        break;
      case '>':
        fputs("&gt;", out);
        break;
      case '&':
        fputs("&amp;", out);
        break;
      case '"':
        fputs("&quot;", out);
        break;
      default:
        fputc(*text, out);
    }
  }
}

static bool in_chart(const bench_result *r, int chart) {
  if (chart == 0) return strcmp(r->unit, "GB/s") == 0;
  if (chart == 1) return strcmp(r->unit, "us") == 0;
  return strcmp(r->unit, "GFLOP/s") == 0;
}

/* One horizontal bar chart: a group of bars per benchmark, one bar per
 * device (and a grey one per native figure). */
static void chart(FILE *out, const bench_results *results, uint32_t physical, int which) {
  static const char *const titles[] = {"Bandwidth (GB/s, higher is better)",
                                       "Launch latency (microseconds, lower is better)",
                                       "sgemm (GFLOP/s, higher is better)"};
  static const char *const ids[] = {"bandwidth", "latency", "sgemm"};
  const char *benchmarks[64];
  size_t count = 0, bars = 0;
  double largest = 0;
  for (size_t i = 0; i < results->count; i++) {
    const bench_result *r = &results->items[i];
    if (r->physical != physical || !in_chart(r, which) || r->status != BENCH_OK) continue;
    bars += 1 + (r->native > 0);
    if (r->value > largest) largest = r->value;
    if (r->native > largest) largest = r->native;
    bool seen = false;
    for (size_t j = 0; j < count && !seen; j++) seen = strcmp(benchmarks[j], r->benchmark) == 0;
    if (!seen && count < 64) benchmarks[count++] = r->benchmark;
  }
  if (bars == 0 || !(largest > 0)) return;
  int height = 40 + (int)bars * (CHART_BAR + 2) + (int)count * 12;
  fprintf(out,
          "<h3>%s</h3>\n<svg class=\"chart\" id=\"chart-%s-%u\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
          titles[which], ids[which], physical, CHART_WIDTH, height, CHART_WIDTH, height);
  int y = 10;
  for (size_t b = 0; b < count; b++) {
    int group_top = y;
    for (size_t i = 0; i < results->count; i++) {
      const bench_result *r = &results->items[i];
      if (r->physical != physical || r->status != BENCH_OK ||
          strcmp(r->benchmark, benchmarks[b]) != 0)
        continue;
      for (int native = 0; native < 2; native++) {
        double value = native ? r->native : r->value;
        if (!(value > 0)) continue;
        int width = (int)lround(value / largest * CHART_BARS);
        if (width < 1) width = 1;
        fprintf(out,
                "<rect class=\"bar\" data-backend=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" "
                "height=\"%d\" fill=\"%s\"><title>",
                native ? "native" : r->backend, CHART_LABEL, y, width, CHART_BAR,
                native ? NATIVE_COLOUR : backend_colour(r->backend));
        escaped(out, native ? r->native_program : r->selector);
        fprintf(out, ": %.4g %s</title></rect>\n", value, r->unit);
        fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"value\">%.3g %s</text>\n",
                CHART_LABEL + width + 4, y + CHART_BAR - 3, value, native ? "native" : r->selector);
        y += CHART_BAR + 2;
      }
    }
    fprintf(out, "<text x=\"4\" y=\"%d\" class=\"label\">", (group_top + y) / 2 + 4);
    escaped(out, benchmarks[b]);
    fputs("</text>\n", out);
    y += 12;
  }
  fprintf(out, "<line x1=\"%d\" y1=\"4\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n</svg>\n",
          CHART_LABEL, CHART_LABEL, y);
}

static void table(FILE *out, const bench_results *results, uint32_t physical) {
  fputs(
      "<table>\n<tr><th>benchmark</th><th>device</th><th>value</th><th>unit</th><th>of peak</th>"
      "<th>anygpu/native</th><th>note</th></tr>\n",
      out);
  for (size_t i = 0; i < results->count; i++) {
    const bench_result *r = &results->items[i];
    if (r->physical != physical) continue;
    fputs("<tr><td>", out);
    escaped(out, r->benchmark);
    fputs("</td><td>", out);
    escaped(out, r->selector);
    fputs("</td><td class=\"num\">", out);
    if (r->status == BENCH_OK)
      fprintf(out, "%.4g", r->value);
    else
      fputs(r->status == BENCH_FAILED ? "FAIL" : "skip", out);
    fputs("</td><td>", out);
    escaped(out, r->unit);
    double fraction = bench_fraction_of_peak(r), ratio = bench_ratio_to_native(r);
    fputs("</td><td class=\"num\">", out);
    if (isfinite(fraction))
      fprintf(out, "%.0f%%", 100 * fraction);
    else
      fputs("&mdash;", out);
    fputs("</td><td class=\"num\">", out);
    if (isfinite(ratio))
      fprintf(out, "%.2fx", ratio);
    else
      fputs("&mdash;", out);
    fputs("</td><td>", out);
    escaped(out, r->status == BENCH_OK ? r->note : r->message);
    fputs("</td></tr>\n", out);
  }
  fputs("</table>\n", out);
}

bool bench_write_html(const char *path, const bench_results *results, char *error,
                      size_t error_size) {
  FILE *out = fopen(path, "w");
  if (!out) {
    snprintf(error, error_size, "cannot write %s: %s", path, strerror(errno));
    return false;
  }
  fputs(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<title>anygpu bench</title>\n<style>\n"
      "body{font-family:sans-serif;margin:16px;background:#fff;color:#111}\n"
      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 6px;"
      "font-size:13px}td.num{text-align:right}\n"
      "svg text{font-size:11px;fill:#111}.legend span{display:inline-block;width:12px;"
      "height:12px;margin:0 4px 0 12px}\n</style></head><body>\n<h1>anygpu bench</h1>\n",
      out);
  fputs("<p class=\"legend\">", out);
  for (uint32_t b = 0; b < agpu_backend_count(); b++) {
    agpu_backend_info info;
    if (agpu_backend_get_info(b, &info) != AGPU_SUCCESS || info.testing) continue;
    fprintf(out, "<span style=\"background:%s\"></span>%s", info.colour, info.name);
  }
  fprintf(out, "<span style=\"background:%s\"></span>native API</p>\n", NATIVE_COLOUR);
  fputs(
      "<p>Of peak: the figure over the device's theoretical peak. anygpu/native: anygpu's "
      "performance over the native program's in the same run (latency: native time over "
      "anygpu time); above 1 anygpu is faster.</p>\n",
      out);
  uint32_t done[64];
  size_t done_count = 0;
  for (size_t i = 0; i < results->count; i++) {
    uint32_t physical = results->items[i].physical;
    bool seen = false;
    for (size_t j = 0; j < done_count && !seen; j++) seen = done[j] == physical;
    if (seen || done_count == 64) continue;
    done[done_count++] = physical;
    agpu_physical_device_info info;
    memset(&info, 0, sizeof info);
    agpu_physical_device_get_info(physical, &info);
    fprintf(out, "<section class=\"physical\"><h2>phys:%u ", physical);
    escaped(out, info.name);
    fputs("</h2>\n", out);
    for (int c = 0; c < 3; c++) chart(out, results, physical, c);
    table(out, results, physical);
    fputs("</section>\n", out);
  }
  fputs("</body></html>\n", out);
  bool ok = !ferror(out);
  if (fclose(out) != 0) ok = false;
  if (!ok) snprintf(error, error_size, "write error on %s", path);
  return ok;
}
