// SPDX-License-Identifier: Apache-2.0
/* The command line, clock, statistics and output of the native programs. */
#include "native_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *native_program = "native";

static int usage(void) {
  fprintf(stderr,
          "usage: %s [--device INDEX] [--size ELEMENTS] [--iterations K] "
          "[--bench triad,roundtrip,sgemm]\n",
          native_program);
  return NATIVE_EXIT_FAILED;
}

static bool parse_count(const char *text, unsigned long long *value) {
  char *end = NULL;
  errno = 0;
  if (!text || *text == '-') return false;
  *value = strtoull(text, &end, 0);
  return errno == 0 && end != text && *end == '\0';
}

static unsigned bench_flag(const char *name, size_t length) {
  static const struct {
    const char *name;
    unsigned flag;
  } names[] = {{"triad", NATIVE_TRIAD},
               {"roundtrip", NATIVE_ROUNDTRIP},
               {"launch_roundtrip", NATIVE_ROUNDTRIP},
               {"sgemm", NATIVE_SGEMM}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen(names[i].name) == length && strncmp(names[i].name, name, length) == 0)
      return names[i].flag;
  return 0;
}

int native_parse(int argc, char **argv, unsigned supported, size_t default_size,
                 native_options *options) {
  const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
  native_program = slash ? slash + 1 : argc > 0 ? argv[0] : native_program;
  options->device = 0;
  options->size = default_size;
  options->iterations = 10;
  options->benches = supported;
  for (int i = 1; i < argc; i += 2) { /* a flag and its value */
    const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    unsigned long long number = 0;
    if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
      usage();
      return 0;
    } else if (strcmp(flag, "--device") == 0 && parse_count(value, &number) && number < 1024) {
      options->device = (int)number;
    } else if (strcmp(flag, "--size") == 0 && parse_count(value, &number) && number > 0) {
      options->size = (size_t)number;
    } else if (strcmp(flag, "--iterations") == 0 && parse_count(value, &number) && number > 0 &&
               number <= 1000000) {
      options->iterations = (int)number;
    } else if (strcmp(flag, "--bench") == 0 && value) {
      unsigned asked = 0;
      for (const char *p = value; *p;) {
        size_t length = strcspn(p, ",");
        unsigned bench = bench_flag(p, length);
        if (!bench) {
          fprintf(stderr, "%s: unknown benchmark '%.*s' (triad, roundtrip, sgemm)\n",
                  native_program, (int)length, p);
          return NATIVE_EXIT_FAILED;
        }
        if (!(bench & supported))
          native_note("%.*s is not measured by this program; skipped", (int)length, p);
        asked |= bench;
        p += length + (p[length] == ',');
      }
      options->benches = asked & supported;
      if (!options->benches)
        return native_unavailable("none of the benchmarks asked for (%s) is measured here", value);
    } else {
      fprintf(stderr, "%s: bad argument '%s'%s\n", native_program, flag,
              value ? "" : " (or its value is missing)");
      return usage();
    }
  }
  return -1;
}

double native_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double native_median(double *values, int count) {
  qsort(values, (size_t)count, sizeof *values, by_value);
  return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

double native_minimum(const double *values, int count) {
  double best = values[0];
  for (int i = 1; i < count; i++)
    if (values[i] < best) best = values[i];
  return best;
}

double native_best_after_first(const double *values, int count) {
  return count > 1 ? native_minimum(values + 1, count - 1) : values[0];
}

int native_roundtrip_reps(const native_options *options) {
  return options->iterations > 1000 ? options->iterations : 1000;
}

void native_report(const char *benchmark, double value, const char *unit) {
  printf("{\"benchmark\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"}\n", benchmark, value, unit);
  fflush(stdout);
}

static void message(const char *format, va_list args) {
  fprintf(stderr, "%s: ", native_program);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
}

int native_unavailable(const char *format, ...) {
  va_list args;
  va_start(args, format);
  message(format, args);
  va_end(args);
  return NATIVE_EXIT_UNAVAILABLE;
}

int native_fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  message(format, args);
  va_end(args);
  return NATIVE_EXIT_FAILED;
}

void native_note(const char *format, ...) {
  va_list args;
  va_start(args, format);
  message(format, args);
  va_end(args);
}
