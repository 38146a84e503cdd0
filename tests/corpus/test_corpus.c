// SPDX-License-Identifier: Apache-2.0
/* The kernel corpus test (tests/kernels/README.md).
 *
 *   test_corpus CORPUS_DIR [--device SEL] [--oracle SEL] [--kernel NAME] [--seed N] [--list]
 *               [--dump N] [--build-logs]
 *   test_corpus CORPUS_DIR --check-invalid [--device SEL] [--kernel NAME]
 *
 * Valid kernels run on the oracle (default opencl:0, PoCL): twice with the same
 * inputs and different poison, so that every element declared written must
 * have been written and the two runs must agree bit for bit. Every other
 * device (or those --device selects) that can build them runs them too, and
 * its outputs are compared with the oracle's.
 *
 * --check-invalid checks that every invalid kernel's header is well formed and,
 * on each device with a translator (every backend but opencl, or --device),
 * that building it fails with the declared line, column and message. */
#include <time.h>

#include "agpu_test.h"
#include "corpus.h"
#include "corpus_data.h"

#define CORPUS_MESSAGE_MAX 16384
#define CORPUS_MAX_DEVICES 64

typedef struct corpus_options {
  const char *dir;
  const char *device;
  const char *oracle;
  const char *kernel;
  uint64_t seed;
  size_t dump; /* --dump N: print the first N elements of each output */
  bool list, check_invalid;
} corpus_options;

static double corpus_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* One case line in agpu_test.h's format, counted. */
static void corpus_report(const char *name, const char *device, corpus_outcome outcome,
                          const char *detail) {
  const char *word = outcome == CORPUS_RAN ? "ok  " : outcome == CORPUS_SKIPPED ? "skip" : "FAIL";
  printf("%s %s on %s%s%s\n", word, name, device, detail[0] ? ": " : "", detail);
  if (outcome == CORPUS_RAN) agpu_test_g.passed++;
  if (outcome == CORPUS_SKIPPED) agpu_test_g.skipped++;
  if (outcome == CORPUS_FAILED) agpu_test_g.failed++;
}

static bool corpus_selected(const corpus_kernel *kernel, const char *wanted) {
  if (!wanted) return true;
  const char *bare = strchr(kernel->stem, '_');
  return strcmp(wanted, kernel->stem) == 0 || strcmp(wanted, kernel->entry) == 0 ||
         (bare && strcmp(wanted, bare + 1) == 0);
}

/* ---------------------------------------------------------------- devices */

/* The devices --device selects, or every device; minus `except`. */
static uint32_t corpus_devices(const char *selector, agpu_device *except, bool skip_opencl,
                               agpu_device **devices) {
  agpu_device *found[CORPUS_MAX_DEVICES];
  uint32_t count = 0, kept = 0;
  if (selector) {
    if (agpu_device_select_all(selector, found, CORPUS_MAX_DEVICES, &count) != AGPU_SUCCESS) {
      printf("note: --device '%s' selects nothing: %s\n", selector, agpu_last_error());
      count = 0;
    } else if (count == 0) {
      printf("note: --device '%s' selects nothing on this machine\n", selector);
    }
  } else if (agpu_device_count(&count) == AGPU_SUCCESS) {
    for (uint32_t i = 0; i < count && i < CORPUS_MAX_DEVICES; i++) agpu_device_get(i, &found[i]);
  }
  if (count > CORPUS_MAX_DEVICES) count = CORPUS_MAX_DEVICES;
  for (uint32_t i = 0; i < count; i++) {
    agpu_device_info info;
    if (found[i] == except || agpu_device_get_info(found[i], &info) != AGPU_SUCCESS) continue;
    if (skip_opencl && !selector && info.backend == AGPU_BACKEND_OPENCL) continue;
    devices[kept++] = found[i];
  }
  return kept;
}

/* ------------------------------------------------------------ valid runs */

/* The checks one device's two runs must pass on their own. */
static bool corpus_self_check(const corpus_kernel *kernel, corpus_result runs[CORPUS_RUNS],
                              char *message, size_t capacity) {
  for (uint32_t i = 0; i < kernel->arg_count; i++) {
    const corpus_arg *arg = &kernel->args[i];
    if (arg->kind != CORPUS_ARG_BUFFER || !arg->compared) continue;
    if (arg->poisoned &&
        !corpus_check_written(arg, runs[0].buffers[i], runs[1].buffers[i], message, capacity))
      return false;
    if (!corpus_compare(kernel, arg, runs[0].buffers[i], runs[1].buffers[i], true, message,
                        capacity)) {
      size_t length = strlen(message);
      snprintf(message + length, capacity - length, " (two runs with the same inputs differ)");
      return false;
    }
  }
  return true;
}

static bool corpus_compare_all(const corpus_kernel *kernel, const corpus_result *oracle,
                               const corpus_result *got, char *message, size_t capacity) {
  for (uint32_t i = 0; i < kernel->arg_count; i++) {
    const corpus_arg *arg = &kernel->args[i];
    if (arg->kind != CORPUS_ARG_BUFFER || !arg->compared) continue;
    if (!corpus_compare(kernel, arg, oracle->buffers[i], got->buffers[i], false, message, capacity))
      return false;
  }
  return true;
}

/* Prints the first `count` elements of each compared buffer. */
static void corpus_dump(const corpus_kernel *kernel, const corpus_result *result, size_t count) {
  for (uint32_t i = 0; i < kernel->arg_count; i++) {
    const corpus_arg *arg = &kernel->args[i];
    if (!result->buffers[i]) continue;
    char type[32];
    corpus_type_name(arg->type, type, sizeof type);
    printf("  argument %u (%s, line %d):", i, type, arg->line);
    for (size_t e = 0; e < count && e < arg->count; e++) {
      printf(" ");
      for (unsigned lane = 0; lane < arg->type.lanes; lane++) {
        uint64_t bits = corpus_lane_bits(arg->type, result->buffers[i], e, lane);
        corpus_scalar scalar = arg->type.scalar;
        unsigned shift = 64 - 8 * (unsigned)corpus_scalar_size(scalar);
        if (lane) printf(",");
        if (corpus_scalar_is_float(scalar))
          printf("%.9g", corpus_bits_to_double(scalar, bits));
        else if (corpus_scalar_is_signed(scalar))
          printf("%lld", (long long)((int64_t)(bits << shift) >> shift));
        else
          printf("%llu", (unsigned long long)bits);
      }
    }
    printf("\n");
  }
}

/* Runs `kernel` on `device`; compares with `oracle` when given. Returns
 * whether it ran and passed, with its results in `runs`. */
static bool corpus_run_on(const corpus_options *options, const corpus_kernel *kernel,
                          agpu_device *device, const corpus_result *oracle,
                          corpus_result runs[CORPUS_RUNS]) {
  static char message[CORPUS_MESSAGE_MAX];
  double start = corpus_now();
  corpus_outcome outcome = corpus_run(device, kernel, options->seed, runs, message, sizeof message);
  if (outcome == CORPUS_RAN && !corpus_self_check(kernel, runs, message, sizeof message))
    outcome = CORPUS_FAILED;
  if (outcome == CORPUS_RAN && oracle &&
      !corpus_compare_all(kernel, oracle, &runs[0], message, sizeof message))
    outcome = CORPUS_FAILED;
  if (outcome == CORPUS_RAN)
    snprintf(message, sizeof message, "%.0f ms%s", (corpus_now() - start) * 1e3,
             oracle ? ", matches the oracle" : "");
  corpus_report(kernel->stem, corpus_device_selector(device), outcome, message);
  if (options->dump) corpus_dump(kernel, &runs[0], options->dump);
  return outcome == CORPUS_RAN;
}

static void corpus_run_kernel(const corpus_options *options, const corpus_kernel *kernel,
                              agpu_device *oracle, const char *oracle_reason, agpu_device **devices,
                              uint32_t device_count) {
  corpus_result oracle_runs[CORPUS_RUNS], runs[CORPUS_RUNS];
  memset(oracle_runs, 0, sizeof oracle_runs);
  bool have_oracle = false;
  if (oracle)
    have_oracle = corpus_run_on(options, kernel, oracle, NULL, oracle_runs);
  else
    corpus_report(kernel->stem, options->oracle, CORPUS_SKIPPED, oracle_reason);
  for (uint32_t d = 0; d < device_count; d++) {
    corpus_run_on(options, kernel, devices[d], have_oracle ? &oracle_runs[0] : NULL, runs);
    for (int r = 0; r < CORPUS_RUNS; r++) corpus_result_free(&runs[r]);
  }
  for (int r = 0; r < CORPUS_RUNS; r++) corpus_result_free(&oracle_runs[r]);
}

/* ------------------------------------------------------- invalid kernels */

static void corpus_check_invalid(const corpus_kernel *kernel, agpu_device **devices,
                                 uint32_t device_count) {
  static char message[CORPUS_MESSAGE_MAX];
  char position[CORPUS_NAME_MAX + 32];
  snprintf(position, sizeof position, "%s:%d:%d:", kernel->file_name, kernel->error_line,
           kernel->error_column);
  for (uint32_t d = 0; d < device_count; d++) {
    agpu_program *program = NULL;
    /* Headers are found next to the kernel, as a host passing -I would. */
    const char *include_dirs[1] = {kernel->dir};
    agpu_program_desc desc = {.source = kernel->source,
                              .source_size = kernel->source_size,
                              .source_name = kernel->file_name,
                              .options = kernel->options[0] ? kernel->options : NULL,
                              .include_dirs = include_dirs,
                              .include_dir_count = 1};
    agpu_status status = agpu_program_build(devices[d], &desc, &program);
    const char *log = agpu_last_error();
    corpus_outcome outcome = CORPUS_FAILED;
    if (status == AGPU_ERROR_UNSUPPORTED) {
      outcome = CORPUS_SKIPPED;
      snprintf(message, sizeof message, "%s", log);
    } else if (status == AGPU_SUCCESS) {
      snprintf(message, sizeof message, "built, but must fail with %s %s", position,
               kernel->error_message);
      agpu_program_release(program);
    } else if (status != AGPU_ERROR_BUILD_FAILED) {
      snprintf(message, sizeof message, "returned %s, expected AGPU_ERROR_BUILD_FAILED: %s",
               agpu_status_name(status), log);
    } else if (!strstr(log, position) || !strstr(log, kernel->error_message)) {
      snprintf(message, sizeof message, "expected \"%s\" and \"%s\" in the message:\n%s", position,
               kernel->error_message, log);
    } else {
      outcome = CORPUS_RAN;
      snprintf(message, sizeof message, "%s %s", position, kernel->error_message);
    }
    corpus_report(kernel->stem, corpus_device_selector(devices[d]), outcome, message);
  }
}

/* ------------------------------------------------------------------ main */

static int corpus_usage(const char *program) {
  fprintf(stderr,
          "usage: %s CORPUS_DIR [--device SEL] [--oracle SEL] [--kernel NAME] [--seed N] "
          "[--list] [--dump N] [--build-logs] [--check-invalid]\n",
          program);
  return 2;
}

static bool corpus_parse_options(int argc, char **argv, corpus_options *options) {
  *options = (corpus_options){.oracle = "opencl:0", .seed = 1};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(arg, "--list") == 0)
      options->list = true;
    else if (strcmp(arg, "--build-logs") == 0)
      corpus_show_build_logs = true;
    else if (strcmp(arg, "--check-invalid") == 0)
      options->check_invalid = true;
    else if (strcmp(arg, "--device") == 0 && has_value)
      options->device = argv[++i];
    else if (strcmp(arg, "--oracle") == 0 && has_value)
      options->oracle = argv[++i];
    else if (strcmp(arg, "--kernel") == 0 && has_value)
      options->kernel = argv[++i];
    else if (strcmp(arg, "--dump") == 0 && has_value)
      options->dump = strtoull(argv[++i], NULL, 0);
    else if (strcmp(arg, "--seed") == 0 && has_value)
      options->seed = strtoull(argv[++i], NULL, 0);
    else if (arg[0] != '-' && !options->dir)
      options->dir = arg;
    else
      return false;
  }
  return options->dir != NULL;
}

/* Loads every selected file of DIR/valid or DIR/invalid; a file whose header
 * is malformed is reported as a failure. */
static corpus_kernel *corpus_load_all(const corpus_options *options, corpus_file_kind kind,
                                      size_t *count) {
  char dir[CORPUS_TEXT_MAX], path[CORPUS_TEXT_MAX * 2], error[CORPUS_TEXT_MAX * 2];
  snprintf(dir, sizeof dir, "%s/%s", options->dir, kind == CORPUS_VALID ? "valid" : "invalid");
  char **names = NULL;
  size_t name_count = 0;
  *count = 0;
  if (!corpus_list_dir(dir, &names, &name_count) || name_count == 0) {
    printf("FAIL no corpus files in %s\n", dir);
    agpu_test_g.failed++;
    return NULL;
  }
  corpus_kernel *kernels = calloc(name_count, sizeof *kernels);
  for (size_t i = 0; i < name_count; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    free(names[i]);
    if (!kernels) continue;
    if (!corpus_load(path, kind, &kernels[*count], error, sizeof error)) {
      printf("FAIL header: %s\n", error);
      agpu_test_g.failed++;
      corpus_free(&kernels[*count]);
      continue;
    }
    if (corpus_selected(&kernels[*count], options->kernel))
      (*count)++;
    else
      corpus_free(&kernels[*count]);
  }
  free(names);
  return kernels;
}

static void corpus_list(const corpus_kernel *kernels, size_t count, corpus_file_kind kind) {
  for (size_t i = 0; i < count; i++) {
    const corpus_kernel *k = &kernels[i];
    if (kind == CORPUS_INVALID) {
      printf("%-40s error %d:%d %s\n", k->file_name, k->error_line, k->error_column,
             k->error_message);
      continue;
    }
    printf("%-40s %s, global %zux%zux%zu, local %zux%zux%zu, %u args%s%s\n", k->file_name, k->entry,
           k->global[0], k->global[1], k->global[2], k->local[0], k->local[1], k->local[2],
           k->arg_count, k->options[0] ? ", options " : "", k->options);
  }
}

static void corpus_main_valid(const corpus_options *options, corpus_kernel *kernels, size_t count) {
  agpu_device *oracle = NULL, *devices[CORPUS_MAX_DEVICES];
  char oracle_reason[1024] = "";
  if (agpu_device_select(options->oracle, &oracle) != AGPU_SUCCESS) {
    snprintf(oracle_reason, sizeof oracle_reason, "no oracle device: %s", agpu_last_error());
    oracle = NULL;
  }
  uint32_t device_count = corpus_devices(options->device, oracle, false, devices);
  printf("seed %llu; oracle %s; %zu kernels\n", (unsigned long long)options->seed,
         oracle ? corpus_device_selector(oracle) : "none", count);
  for (size_t i = 0; i < count; i++)
    corpus_run_kernel(options, &kernels[i], oracle, oracle_reason, devices, device_count);
}

static void corpus_main_invalid(const corpus_options *options, corpus_kernel *kernels,
                                size_t count) {
  agpu_device *devices[CORPUS_MAX_DEVICES];
  uint32_t device_count = corpus_devices(options->device, NULL, true, devices);
  for (size_t i = 0; i < count; i++) {
    char detail[CORPUS_TEXT_MAX + 64];
    snprintf(detail, sizeof detail, "well formed: %d:%d %s", kernels[i].error_line,
             kernels[i].error_column, kernels[i].error_message);
    corpus_report(kernels[i].stem, "header", CORPUS_RAN, detail);
    corpus_check_invalid(&kernels[i], devices, device_count);
  }
}

int main(int argc, char **argv) {
  corpus_options options;
  if (!corpus_parse_options(argc, argv, &options)) return corpus_usage(argv[0]);
  setvbuf(stdout, NULL, _IOLBF, 0);
  double start = corpus_now();
  corpus_file_kind kind = options.check_invalid ? CORPUS_INVALID : CORPUS_VALID;
  size_t count = 0;
  corpus_kernel *kernels = corpus_load_all(&options, kind, &count);
  if (options.list) {
    corpus_list(kernels, count, kind);
  } else if (kind == CORPUS_VALID) {
    corpus_main_valid(&options, kernels, count);
  } else {
    corpus_main_invalid(&options, kernels, count);
  }
  for (size_t i = 0; i < count; i++) corpus_free(&kernels[i]);
  free(kernels);
  if (options.list) return agpu_test_g.failed ? 1 : 0;
  printf("corpus: %zu %s kernels in %.1f s\n", count, kind == CORPUS_VALID ? "valid" : "invalid",
         corpus_now() - start);
  return agpu_test_finish();
}
