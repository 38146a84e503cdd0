// SPDX-License-Identifier: Apache-2.0
/* anygpu top [--interval S] [--count N] [--json] [--sysroot DIR] [--apis]:
 * memory, utilisation, temperature, power, clocks and processes of every
 * device, sampled every S seconds. The first sample's rates cover a short
 * window (TOP_FIRST_WINDOW_MS) so that `--count 1` answers at once. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "top.h"

#define TOP_FIRST_WINDOW_MS 30

static int top_parse_number(const char *option, const char *text, double *value) {
  char *end;
  errno = 0;
  *value = strtod(text, &end);
  if (end == text || *end || errno || *value < 0 || *value > 1e6)
    return cli_usage_error("expected a number of at least 0 after", option);
  return CLI_EXIT_OK;
}

static int top_parse(int argc, char **argv, top_options *options) {
  *options = (top_options){.interval_s = 1.0};
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    double number;
    if (strcmp(arg, "--json") == 0) {
      options->json = true;
    } else if (strcmp(arg, "--apis") == 0) {
      options->apis = true;
    } else if (strcmp(arg, "--interval") == 0 || strcmp(arg, "--count") == 0 ||
               strcmp(arg, "--sysroot") == 0) {
      if (!has_value) return cli_usage_error("missing value after", arg);
      const char *value = argv[++i];
      if (strcmp(arg, "--sysroot") == 0) {
        options->sysroot = value;
        continue;
      }
      if (top_parse_number(arg, value, &number) != CLI_EXIT_OK) return CLI_EXIT_USAGE;
      if (strcmp(arg, "--interval") == 0)
        options->interval_s = number;
      else if (number != (double)(long)number)
        return cli_usage_error("expected a whole number after", arg);
      else
        options->count = (long)number;
    } else {
      return cli_usage_error("unexpected argument", arg);
    }
  }
  return CLI_EXIT_OK;
}

static void top_sleep(double seconds) {
  struct timespec wait = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&wait, &wait) != 0 && errno == EINTR) continue;
}

static uint32_t top_milliseconds(double seconds) {
  return seconds * 1000.0 > 4e9 ? 4000000000u : (uint32_t)(seconds * 1000.0);
}

int cmd_top(int argc, char **argv) {
  top_options options;
  int parsed = top_parse(argc, argv, &options);
  if (parsed != CLI_EXIT_OK) return parsed;
  struct stat root;
  errno = 0;
  if (options.sysroot && (stat(options.sysroot, &root) != 0 || !S_ISDIR(root.st_mode))) {
    fprintf(stderr, "anygpu: top: --sysroot %s: %s\n", options.sysroot,
            errno ? strerror(errno) : "not a directory");
    return CLI_EXIT_FAILURE;
  }
  bool terminal = !options.json && isatty(STDOUT_FILENO);
  agpu_telemetry *previous = NULL;
  uint32_t first_window = top_milliseconds(options.interval_s);
  if (first_window > TOP_FIRST_WINDOW_MS) first_window = TOP_FIRST_WINDOW_MS;
  for (long n = 0; options.count == 0 || n < options.count; n++) {
    if (n > 0) top_sleep(options.interval_s);
    agpu_telemetry_desc desc = {.sysroot = options.sysroot,
                                .previous = previous,
                                .interval_ms = previous ? 0 : first_window,
                                .match_physical = options.apis};
    agpu_telemetry *sample = NULL;
    agpu_status status = agpu_telemetry_sample(&desc, &sample);
    agpu_telemetry_release(previous);
    previous = sample;
    if (status != AGPU_SUCCESS) return cli_library_error(status);
    if (terminal) fputs("\033[H\033[2J", stdout); /* a refreshing screen, as top's */
    if (options.json)
      top_print_json(stdout, sample, &options);
    else
      top_print_text(stdout, sample, &options);
    if (fflush(stdout) != 0) break;
  }
  agpu_telemetry_release(previous);
  return cli_finish_output();
}
