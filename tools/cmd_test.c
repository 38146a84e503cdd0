// SPDX-License-Identifier: Apache-2.0
/* anygpu test: the conformance suite on every device (docs/conformance.md). */
#define _GNU_SOURCE /* clock_gettime, strtok_r */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "format.h"
#include "json_writer.h"
#include "suite/suite.h"

#define TEST_MAX_DEVICES 15 /* one table column each, next to the kernel names */
#define TEST_MAX_TERMS 32

typedef struct test_request {
  const char *selector; /* NULL: every device */
  const char *terms[TEST_MAX_TERMS];
  int term_count;
  suite_size size;
  uint64_t seed;
  bool seed_given;
  bool json;
  bool list;
  const char *kernels_dir;
} test_request;

static const char *option_argument(int argc, char **argv, int *i) {
  const char *argument = argv[*i], *equals = strchr(argument, '=');
  if (strncmp(argument, "--", 2) == 0 && equals) return equals + 1;
  return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool option_is(const char *argument, const char *name) {
  size_t length = strlen(name);
  return strncmp(argument, name, length) == 0 &&
         (argument[length] == '\0' || argument[length] == '=');
}

static int parse_test_arguments(int argc, char **argv, test_request *request) {
  for (int i = 0; i < argc; i++) {
    const char *argument = argv[i], *value = NULL;
    if (strcmp(argument, "--help") == 0 || strcmp(argument, "-h") == 0) {
      cli_print_command_help(stdout, "test");
      return -1;
    } else if (strcmp(argument, "--json") == 0) {
      request->json = true;
    } else if (strcmp(argument, "--list") == 0) {
      request->list = true;
    } else if (strcmp(argument, "--check") == 0) {
      /* every program the suite builds checks its accesses (agpu_check.h) */
      setenv("ANYGPU_CHECK", "bounds", 1);
    } else if (option_is(argument, "--device")) {
      if (!(request->selector = option_argument(argc, argv, &i)))
        return cli_usage_error("missing value after", argument);
    } else if (option_is(argument, "--kernel")) {
      if (!(value = option_argument(argc, argv, &i)))
        return cli_usage_error("missing value after", argument);
      if (!value[0]) return cli_usage_error("an empty name after", argument);
      if (request->term_count == TEST_MAX_TERMS) return cli_usage_error("too many", argument);
      request->terms[request->term_count++] = value;
    } else if (option_is(argument, "--size")) {
      if (!(value = option_argument(argc, argv, &i)))
        return cli_usage_error("missing value after", argument);
      if (!suite_size_parse(value, &request->size))
        return cli_usage_error("unknown size (small, medium, large)", value);
    } else if (option_is(argument, "--seed")) {
      if (!(value = option_argument(argc, argv, &i)))
        return cli_usage_error("missing value after", argument);
      char *end = NULL;
      errno = 0;
      request->seed = strtoull(value, &end, 0);
      if (errno || !*value || *end || value[0] == '-')
        return cli_usage_error("the seed is an unsigned 64-bit number, not", value);
      request->seed_given = true;
    } else if (option_is(argument, "--kernels-dir")) {
      if (!(request->kernels_dir = option_argument(argc, argv, &i)))
        return cli_usage_error("missing value after", argument);
    } else if (argument[0] == '-') {
      return cli_usage_error("unknown option", argument);
    } else {
      return cli_usage_error("unexpected argument", argument);
    }
  }
  return CLI_EXIT_OK;
}

/* The cases --kernel selects (every case without it). */
static int select_cases(const test_request *request, const suite_case **cases, size_t *count) {
  *count = 0;
  for (size_t i = 0; i < suite_case_count(); i++) {
    const suite_case *kase = suite_case_at(i);
    bool wanted = request->term_count == 0;
    for (int t = 0; t < request->term_count && !wanted; t++) {
      /* A term may list several names, joined by ','. */
      char term[128];
      snprintf(term, sizeof term, "%s", request->terms[t]);
      for (char *save = NULL, *name = strtok_r(term, ",", &save); name && !wanted;
           name = strtok_r(NULL, ",", &save))
        wanted = suite_case_matches(kase, name);
    }
    if (wanted) cases[(*count)++] = kase;
  }
  for (int t = 0; t < request->term_count; t++) {
    char term[128];
    snprintf(term, sizeof term, "%s", request->terms[t]);
    for (char *save = NULL, *name = strtok_r(term, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
      bool known = false;
      for (size_t i = 0; i < suite_case_count() && !known; i++)
        known = suite_case_matches(suite_case_at(i), name);
      if (!known) return cli_usage_error("no kernel of the suite is called (see --list)", name);
    }
  }
  return CLI_EXIT_OK;
}

static int select_devices(const test_request *request, agpu_device **devices, uint32_t *count) {
  agpu_status status;
  uint32_t found = 0;
  if (request->selector) {
    status = agpu_device_select_all(request->selector, devices, TEST_MAX_DEVICES, &found);
  } else {
    status = agpu_device_count(&found);
    for (uint32_t i = 0; status == AGPU_SUCCESS && i < found && i < TEST_MAX_DEVICES; i++)
      status = agpu_device_get(i, &devices[i]);
  }
  if (status != AGPU_SUCCESS) return cli_library_error(status);
  if (found == 0) {
    fprintf(stderr, "anygpu: no device to test%s%s%s (anygpu list shows the devices)\n",
            request->selector ? " matches '" : "", request->selector ? request->selector : "",
            request->selector ? "'" : "");
    return CLI_EXIT_FAILURE;
  }
  if (found > TEST_MAX_DEVICES)
    fprintf(stderr, "anygpu: testing the first %d of %u devices (use --device)\n", TEST_MAX_DEVICES,
            found);
  *count = found > TEST_MAX_DEVICES ? TEST_MAX_DEVICES : found;
  return CLI_EXIT_OK;
}

static const char *status_word(suite_status status) {
  return status == SUITE_PASS ? "pass" : status == SUITE_FAIL ? "FAIL" : "skip";
}

typedef struct test_outcome {
  size_t passed, failed, skipped;
  double seconds;
} test_outcome;

static void print_text(const test_request *request, const suite_case **cases, size_t case_count,
                       agpu_device_info *infos, uint32_t device_count, const suite_result *results,
                       const test_outcome *outcome) {
  text_table table;
  if (!text_table_init(&table, device_count + 1)) return;
  const char *cells[TEST_MAX_DEVICES + 1];
  cells[0] = "KERNEL";
  for (uint32_t d = 0; d < device_count; d++) cells[d + 1] = infos[d].selector;
  text_table_add_row(&table, cells);
  for (size_t c = 0; c < case_count; c++) {
    cells[0] = cases[c]->name;
    for (uint32_t d = 0; d < device_count; d++)
      cells[d + 1] = status_word(results[c * device_count + d].status);
    text_table_add_row(&table, cells);
  }
  for (uint32_t d = 0; d < device_count; d++)
    printf("%s: %s (%s)\n", infos[d].selector, infos[d].name, infos[d].backend_name);
  putchar('\n');
  text_table_print(&table, stdout, "");
  text_table_free(&table);
  for (int pass = 0; pass < 2; pass++) {
    suite_status wanted = pass == 0 ? SUITE_FAIL : SUITE_SKIP;
    bool header = false;
    for (size_t c = 0; c < case_count; c++) {
      for (uint32_t d = 0; d < device_count; d++) {
        const suite_result *result = &results[c * device_count + d];
        if (result->status != wanted) continue;
        if (!header) printf("\n%s:\n", pass == 0 ? "Failures" : "Skipped");
        header = true;
        printf("  %s on %s: ", cases[c]->name, infos[d].selector);
        fput_single_line(result->reason, stdout);
        putchar('\n');
      }
    }
  }
  printf(
      "\n%zu passed, %zu failed, %zu skipped (%zu kernel%s on %u device%s, size %s, seed %llu) "
      "in %.1f s\n",
      outcome->passed, outcome->failed, outcome->skipped, case_count, case_count == 1 ? "" : "s",
      device_count, device_count == 1 ? "" : "s", suite_size_name(request->size),
      (unsigned long long)request->seed, outcome->seconds);
}

static void print_json(const test_request *request, const suite_case **cases, size_t case_count,
                       agpu_device_info *infos, uint32_t device_count, const suite_result *results,
                       const test_outcome *outcome) {
  json_writer writer;
  json_writer_init(&writer, stdout, true);
  json_begin_object(&writer);
  json_key_uint(&writer, "seed", request->seed);
  json_key_string(&writer, "size", suite_size_name(request->size));
  json_key(&writer, "devices");
  json_begin_array(&writer);
  for (uint32_t d = 0; d < device_count; d++) {
    json_begin_object(&writer);
    json_key_string(&writer, "device", infos[d].selector);
    json_key_string(&writer, "name", infos[d].name);
    json_key_string(&writer, "backend", infos[d].backend_name);
    json_end_object(&writer);
  }
  json_end_array(&writer);
  json_key(&writer, "results");
  json_begin_array(&writer);
  static const char *const names[] = {"pass", "fail", "skip"};
  for (size_t c = 0; c < case_count; c++) {
    for (uint32_t d = 0; d < device_count; d++) {
      const suite_result *result = &results[c * device_count + d];
      bool ran = result->status != SUITE_SKIP;
      json_begin_object(&writer);
      json_key_string(&writer, "kernel", cases[c]->name);
      json_key_string(&writer, "device", infos[d].selector);
      json_key_string(&writer, "status", names[result->status]);
      json_key(&writer, "max_rel_error");
      ran ? json_double(&writer, result->max_rel_error) : json_null(&writer);
      json_key(&writer, "tolerance");
      ran ? json_double(&writer, result->tolerance) : json_null(&writer);
      json_key(&writer, "time_ms");
      ran ? json_double(&writer, result->time_ms) : json_null(&writer);
      json_key_string(&writer, "reason", result->reason);
      json_end_object(&writer);
    }
  }
  json_end_array(&writer);
  json_key_uint(&writer, "passed", outcome->passed);
  json_key_uint(&writer, "failed", outcome->failed);
  json_key_uint(&writer, "skipped", outcome->skipped);
  json_key(&writer, "seconds");
  json_double(&writer, outcome->seconds);
  json_end_object(&writer);
  json_writer_finish(&writer);
}

static int list_cases(void) {
  for (size_t i = 0; i < suite_case_count(); i++) {
    const suite_case *kase = suite_case_at(i);
    printf("%-22s tools/suite/%s (%s)%s\n", kase->name, kase->file, kase->entry,
           kase->fp64 ? ", needs fp64" : "");
  }
  return cli_finish_output();
}

static double seconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int cmd_test(int argc, char **argv) {
  test_request request;
  memset(&request, 0, sizeof request);
  int status = parse_test_arguments(argc, argv, &request);
  if (status != CLI_EXIT_OK) return status < 0 ? cli_finish_output() : status;
  if (request.list) return list_cases();
  if (!request.seed_given) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    request.seed =
        ((uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 20) ^ (uint64_t)getpid()) % 1000000007u;
  }
  const suite_case *cases[64];
  size_t case_count = 0;
  if ((status = select_cases(&request, cases, &case_count)) != CLI_EXIT_OK) return status;
  agpu_device *devices[TEST_MAX_DEVICES];
  uint32_t device_count = 0;
  if ((status = select_devices(&request, devices, &device_count)) != CLI_EXIT_OK) return status;
  agpu_device_info infos[TEST_MAX_DEVICES];
  for (uint32_t d = 0; d < device_count; d++) {
    agpu_status got = agpu_device_get_info(devices[d], &infos[d]);
    if (got != AGPU_SUCCESS) return cli_library_error(got);
  }
  if (!request.json) {
    printf("anygpu test: size %s, seed %llu (--seed %llu repeats these inputs)\n",
           suite_size_name(request.size), (unsigned long long)request.seed,
           (unsigned long long)request.seed);
    fflush(stdout);
  }

  suite_result *results = calloc(case_count * device_count, sizeof *results);
  if (!results) return cli_out_of_memory();
  test_outcome outcome = {0, 0, 0, 0};
  double start = seconds_now();
  /* Case by case, so that what the devices share (the host references) is
   * computed once and freed early; each device keeps its programs. */
  suite_device *opened[TEST_MAX_DEVICES] = {0};
  for (uint32_t d = 0; d < device_count; d++) {
    if (!(opened[d] = suite_device_open(devices[d], request.kernels_dir))) {
      for (uint32_t e = 0; e < d; e++) suite_device_close(opened[e]);
      free(results);
      return cli_out_of_memory();
    }
  }
  for (size_t c = 0; c < case_count; c++) {
    suite_shared shared;
    memset(&shared, 0, sizeof shared);
    for (uint32_t d = 0; d < device_count; d++) {
      suite_result *result = &results[c * device_count + d];
      suite_run_case(opened[d], cases[c], request.size, request.seed, &shared, result);
      if (result->status == SUITE_PASS) outcome.passed++;
      if (result->status == SUITE_FAIL) outcome.failed++;
      if (result->status == SUITE_SKIP) outcome.skipped++;
    }
    suite_shared_free(&shared);
  }
  for (uint32_t d = 0; d < device_count; d++) suite_device_close(opened[d]);
  outcome.seconds = seconds_now() - start;
  if (request.json)
    print_json(&request, cases, case_count, infos, device_count, results, &outcome);
  else
    print_text(&request, cases, case_count, infos, device_count, results, &outcome);
  free(results);
  status = cli_finish_output();
  if (status != CLI_EXIT_OK) return status;
  return outcome.failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
