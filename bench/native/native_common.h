// SPDX-License-Identifier: Apache-2.0
/* What every native baseline program shares: the command line, the clock,
 * the statistics and the JSON lines on stdout (see README.md). */
#ifndef AGPU_BENCH_NATIVE_COMMON_H
#define AGPU_BENCH_NATIVE_COMMON_H

#include <stdbool.h>
#include <stddef.h>

enum {
  NATIVE_TRIAD = 1u << 0,
  NATIVE_ROUNDTRIP = 1u << 1,
  NATIVE_SGEMM = 1u << 2,
};

/* The exit statuses of the protocol. */
enum { NATIVE_EXIT_FAILED = 1, NATIVE_EXIT_UNAVAILABLE = 77 };

typedef struct native_options {
  int device;       /* --device INDEX, as in anygpu's "<backend>:INDEX" */
  size_t size;      /* --size: elements per array, or the matrix order N for sgemm */
  int iterations;   /* --iterations K */
  unsigned benches; /* NATIVE_* of --bench, limited to what the program measures */
} native_options;

/* Parses argv for a program that measures `supported` (NATIVE_*), with
 * `default_size` when --size is absent. Returns -1 to go on, else the exit
 * status (usage errors print to stderr; 77 when none of the benchmarks asked
 * for is measured by this program). */
int native_parse(int argc, char **argv, unsigned supported, size_t default_size,
                 native_options *options);

/* The program's name for messages (set by native_parse). */
extern const char *native_program;

double native_now_ns(void);
/* Sorts `values`. */
double native_median(double *values, int count);
double native_minimum(const double *values, int count);
/* The fastest of the timed iterations: all but the first when there are more
 * than one (the first warms up). */
double native_best_after_first(const double *values, int count);
/* Launch roundtrips timed for a median: at least 1000. */
int native_roundtrip_reps(const native_options *options);

/* One JSON object on its own line on stdout. */
void native_report(const char *benchmark, double value, const char *unit);
/* A message on stderr, prefixed with the program's name; return the status. */
int native_unavailable(const char *format, ...) __attribute__((format(printf, 1, 2)));
int native_fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
void native_note(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
