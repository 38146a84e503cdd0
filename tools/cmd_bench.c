// SPDX-License-Identifier: Apache-2.0
/* anygpu bench: per physical device, a column per backend: stream
 * bandwidth, reduction, sgemm, launch latency, transfers and build time,
 * beside the theoretical peak and the native API (docs/bench.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cli.h"

#define BENCH_MAX_DEVICES 64

typedef struct bench_request {
  bench_options options;
  bool json;
  const char *html;
  const char *trace;
} bench_request;

static const char *option_value(int argc, char **argv, int *i) {
  const char *argument = argv[*i], *equals = strchr(argument, '=');
  if (strncmp(argument, "--", 2) == 0 && equals) return equals + 1;
  return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool option_is(const char *argument, const char *name) {
  size_t length = strlen(name);
  return strncmp(argument, name, length) == 0 &&
         (argument[length] == '\0' || argument[length] == '=');
}

/* A positive count with an optional K, M or G (powers of 1024). */
static bool parse_count(const char *text, uint64_t max, uint64_t *value) {
  char *end = NULL;
  errno = 0;
  if (!text[0] || text[0] == '-') return false;
  unsigned long long number = strtoull(text, &end, 10);
  if (errno || end == text) return false;
  unsigned long long scale = 1;
  if (*end == 'K' || *end == 'k')
    scale = 1ull << 10, end++;
  else if (*end == 'M' || *end == 'm')
    scale = 1ull << 20, end++;
  else if (*end == 'G' || *end == 'g')
    scale = 1ull << 30, end++;
  if (*end || number == 0 || number > max / scale) return false;
  *value = number * scale;
  return true;
}

static void print_bench_help(FILE *out) {
  fputs(
      "Usage: anygpu bench [-d SELECTOR] [--bench NAME[,NAME...]] [--size ELEMENTS]\n"
      "                    [--sgemm-size N] [--iterations K] [--repeat R] [--quick]\n"
      "                    [--no-native] [--json] [--html FILE] [--trace FILE]\n"
      "\n"
      "Measures every device (or those SELECTOR matches), one table per physical device\n"
      "with a column per backend: BabelStream's copy, mul, add, triad and dot in float\n"
      "and double, a reduction, sgemm, launch latency, host-device transfers and kernel\n"
      "build time, each beside the device's theoretical peak and the native API's\n"
      "figure for the same work (docs/bench.md).\n"
      "\n"
      "  -d, --device SEL  the devices (default: all)\n"
      "  --bench NAMES     copy, mul, add, triad, dot, stream, sum, sgemm, launch,\n"
      "                    transfer, build, all (default: all)\n"
      "  --size N          elements per stream array (K, M, G suffixes; default 4x the\n"
      "                    last-level cache, at most a quarter of device memory)\n"
      "  --sgemm-size N    sgemm matrix order (default 1024, --quick 256)\n"
      "  --iterations K    stream iterations, the first not counted (default 10)\n"
      "  --repeat R        repeats of the other benchmarks (their median is reported)\n"
      "  --quick           small sizes and few repeats: a smoke run, not a measurement\n"
      "  --no-native       do not run the native programs\n"
      "  --json            print {\"results\": [...]} instead of the tables\n"
      "  --mpi             under mpirun or srun: every rank measures its devices\n"
      "                    (-d '*:gpu@local': its own) and rank 0 prints one report\n"
      "  --html FILE       also write a self-contained page with charts\n"
      "  --trace FILE      write a timeline of every build, transfer, launch and wait\n"
      "                    to FILE (Chrome trace format; docs/debugging.md); tracing\n"
      "                    adds its own cost to what is measured\n",
      out);
}

static int parse_bench_arguments(int argc, char **argv, bench_request *request) {
  for (int i = 0; i < argc; i++) {
    const char *argument = argv[i], *value = NULL;
    uint64_t number = 0;
    if (strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0) {
      print_bench_help(stdout);
      return -1;
    } else if (strcmp(argument, "--json") == 0) {
      request->json = true;
    } else if (strcmp(argument, "--quick") == 0) {
      request->options.quick = true;
    } else if (strcmp(argument, "--no-native") == 0) {
      request->options.native = false;
    } else if (strcmp(argument, "-d") == 0 || option_is(argument, "--device")) {
      if (!(request->options.selector = option_value(argc, argv, &i)) ||
          !request->options.selector[0])
        return cli_usage_error("missing selector after", argument);
    } else if (option_is(argument, "--bench")) {
      if (!(value = option_value(argc, argv, &i)))
        return cli_usage_error("missing benchmark names after", argument);
      char bad[64];
      uint32_t mask = 0;
      if (!bench_parse_names(value, &mask, bad, sizeof bad)) {
        fprintf(stderr, "anygpu: unknown benchmark '%s' (known: %s)\n", bad, bench_known_names());
        return CLI_EXIT_USAGE;
      }
      request->options.benches |= mask;
    } else if (option_is(argument, "--size")) {
      if (!(value = option_value(argc, argv, &i)) ||
          !parse_count(value, UINT32_MAX - 1024, &number))
        return cli_usage_error("--size takes a positive number of elements (e.g. 64M), not",
                               value ? value : "nothing");
      request->options.elements = number;
    } else if (option_is(argument, "--sgemm-size")) {
      if (!(value = option_value(argc, argv, &i)) || !parse_count(value, 32768, &number))
        return cli_usage_error("--sgemm-size takes a matrix order from 1 to 32768, not",
                               value ? value : "nothing");
      request->options.sgemm_n = (uint32_t)number;
    } else if (option_is(argument, "--iterations")) {
      if (!(value = option_value(argc, argv, &i)) || !parse_count(value, 100000, &number) ||
          number < 2)
        return cli_usage_error("--iterations takes a number from 2 to 100000, not",
                               value ? value : "nothing");
      request->options.iterations = (uint32_t)number;
    } else if (option_is(argument, "--repeat")) {
      if (!(value = option_value(argc, argv, &i)) || !parse_count(value, 1000, &number))
        return cli_usage_error("--repeat takes a number from 1 to 1000, not",
                               value ? value : "nothing");
      request->options.repeat = (uint32_t)number;
    } else if (option_is(argument, "--html")) {
      if (!(request->html = option_value(argc, argv, &i)) || !request->html[0])
        return cli_usage_error("missing file after", argument);
    } else if (option_is(argument, "--trace")) {
      if (!(request->trace = option_value(argc, argv, &i)) || !request->trace[0])
        return cli_usage_error("missing file after", argument);
    } else if (argument[0] == '-') {
      return cli_usage_error("unknown option", argument);
    } else {
      return cli_usage_error("unexpected argument", argument);
    }
  }
  if (!request->options.benches) request->options.benches = BENCH_ALL;
  return CLI_EXIT_OK;
}

static size_t bench_steps(uint32_t benches) {
  size_t steps = 0;
  if (benches & BENCH_STREAM) steps += 2;
  uint32_t others[] = {BENCH_SUM, BENCH_SGEMM, BENCH_LAUNCH, BENCH_TRANSFER, BENCH_BUILD};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) steps += (benches & others[i]) != 0;
  return steps;
}

/* Every device's benchmarks, then the report. */
static int bench_run(bench_request *request) {
  agpu_device *devices[BENCH_MAX_DEVICES];
  uint32_t found = 0;
  agpu_status got;
  if (request->options.selector) {
    got = agpu_device_select_all(request->options.selector, devices, BENCH_MAX_DEVICES, &found);
  } else {
    got = agpu_device_count(&found);
    for (uint32_t i = 0; got == AGPU_SUCCESS && i < found && i < BENCH_MAX_DEVICES; i++)
      got = agpu_device_get(i, &devices[i]);
  }
  if (got != AGPU_SUCCESS) return cli_library_error(got);
  if (found == 0) {
    fprintf(stderr, "anygpu: no device to benchmark%s%s%s (anygpu list shows the devices)\n",
            request->options.selector ? " matches '" : "",
            request->options.selector ? request->options.selector : "",
            request->options.selector ? "'" : "");
    return CLI_EXIT_FAILURE;
  }
  uint32_t count = found < BENCH_MAX_DEVICES ? found : BENCH_MAX_DEVICES;

  bench_results results = {0};
  double start = bench_seconds();
  size_t steps = bench_steps(request->options.benches);
  for (uint32_t d = 0; d < count; d++) {
    bench_device device;
    memset(&device, 0, sizeof device);
    device.device = devices[d];
    device.options = &request->options;
    device.results = &results;
    device.steps = steps;
    if ((got = agpu_device_get_info(devices[d], &device.info)) != AGPU_SUCCESS ||
        (got = agpu_device_physical_index(devices[d], &device.physical)) != AGPU_SUCCESS ||
        (got = agpu_device_default_queue(devices[d], &device.queue)) != AGPU_SUCCESS) {
      bench_results_free(&results);
      return cli_library_error(got);
    }
    /* Build time first: the others would warm the driver's caches. */
    bench_build_time(&device);
    bench_stream(&device, false);
    bench_stream(&device, true);
    bench_sum(&device);
    bench_sgemm(&device);
    bench_latency(&device);
    bench_transfer(&device);
    if (device.program) agpu_program_release(device.program);
  }
  if (request->options.progress) fputs("\r\033[K", stderr);
  double seconds = bench_seconds() - start;

  bool failed = false;
  for (size_t i = 0; i < results.count; i++) {
    const bench_result *r = &results.items[i];
    if (r->status != BENCH_FAILED) continue;
    failed = true;
    if (request->json) /* the text report lists them itself */
      fprintf(stderr, "anygpu: bench %s on %s failed: %s\n", r->benchmark, r->selector, r->message);
  }
  if (request->json) {
    bench_print_json(stdout, &results, seconds);
  } else {
    printf("anygpu bench: %u device%s in %.1f s%s\n\n", count, count == 1 ? "" : "s", seconds,
           request->options.quick ? " (--quick: a smoke run, not a measurement)" : "");
    bench_print_table(stdout, &results);
  }
  if (request->html) {
    char error[512];
    if (!bench_write_html(request->html, &results, error, sizeof error)) {
      fprintf(stderr, "anygpu: %s\n", error);
      failed = true;
    }
  }
  bench_results_free(&results);
  int status = cli_finish_output();
  if (status != CLI_EXIT_OK) return status;
  return failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

int cmd_bench(int argc, char **argv) {
  bench_request request;
  memset(&request, 0, sizeof request);
  request.options.native = true;
  int status = parse_bench_arguments(argc, argv, &request);
  if (status != CLI_EXIT_OK) return status < 0 ? cli_finish_output() : status;
  request.options.progress = isatty(STDERR_FILENO);
  if ((status = cli_trace_start(request.trace)) != CLI_EXIT_OK) return status;
  return cli_trace_stop(request.trace, bench_run(&request));
}
