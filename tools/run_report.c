// SPDX-License-Identifier: Apache-2.0
/* anygpu run's output: each device's outcome, the first values of the
 * buffers it wrote, --out files, and with --compare each buffer against the
 * reference device's. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "format.h"
#include "run.h"

static void run_print_element(const run_type *type, const void *data, size_t index) {
  uint64_t bits = run_element_bits(type, data, index);
  if (type->is_float)
    printf("%.9g", run_element(type, data, index));
  else if (type->is_signed)
    printf("%.0f", run_element(type, data, index)); /* exact below 2^53 */
  else
    printf("%llu", (unsigned long long)bits);
  if (!type->is_float && type->size == 8 && type->is_signed &&
      fabs(run_element(type, data, index)) >= 0x1p53)
    printf(" (0x%016llx)", (unsigned long long)bits);
}

/* The rule in words, for the report. */
static void run_print_rule(const run_rule *rule) {
  if (rule->by_ulp)
    printf("within %llu ulp", (unsigned long long)rule->ulps);
  else
    printf("|a - b| <= %.3g + %.3g * |b|", rule->atol, rule->rtol);
}

/* One buffer of `device` against the reference's; true when within the
 * tolerance. */
static bool run_compare_buffer(const run_request *request, const run_device *reference,
                               const run_device *device, uint32_t index) {
  const run_arg *arg = &request->args[index];
  const run_type *type = arg->type;
  const void *expected = reference->buffers[index], *got = device->buffers[index];
  run_rule rule = run_rule_for(&request->tolerance, type, expected, arg->count);
  run_verdict v = run_compare_elements(&rule, type, expected, got, arg->count);
  printf("  %-10s %-12s %s[%zu]  ", device->info.selector, device->names[index], type->name,
         arg->count);
  if (!v.differ) {
    printf("identical\n");
    return true;
  }
  printf("%zu of %zu elements differ (the first at index %zu), max abs %.3g, max rel %.3g",
         v.differ, arg->count, v.first, v.max_abs, v.max_rel);
  if (type->is_float) {
    /* Where the worst element is, and what would accept every element. */
    printf("\n             worst at index %zu: %s has ", v.worst, reference->info.selector);
    run_print_element(type, expected, v.worst);
    printf(", %s has ", device->info.selector);
    run_print_element(type, got, v.worst);
    printf("; all pass with --atol %.3g (at rtol %.3g), --rtol %.3g (at atol %.3g)", v.needed_atol,
           rule.rtol, v.needed_rtol, rule.atol);
    if (v.needed_ulps != UINT64_MAX) printf(" or --ulp %llu", (unsigned long long)v.needed_ulps);
  }
  if (!v.beyond) {
    printf("\n             within the tolerance (");
    run_print_rule(&rule);
    printf(")\n");
    return true;
  }
  size_t at = v.first_beyond;
  printf(
      "\n  MISMATCH: %s differs from %s in buffer '%s' (argument %u): %zu element%s beyond "
      "%s; first at index %zu: %s has ",
      device->info.selector, reference->info.selector, device->names[index], index, v.beyond,
      v.beyond == 1 ? "" : "s", type->is_float ? "the tolerance" : "bit-exact equality", at,
      reference->info.selector);
  run_print_element(type, expected, at);
  printf(", %s has ", device->info.selector);
  run_print_element(type, got, at);
  if (type->is_float) {
    printf(" (tolerance ");
    run_print_rule(&rule);
    printf(")");
  }
  putchar('\n');
  return false;
}

static void run_print_values(const run_request *request, const run_device *device) {
  for (uint32_t i = 0; i < request->arg_count; i++) {
    const run_arg *arg = &request->args[i];
    if (arg->kind != RUN_ARG_BUFFER || device->is_const[i]) continue;
    printf("  %s (argument %u, %s[%zu]):", device->names[i], i, arg->type->name, arg->count);
    for (size_t e = 0; e < arg->count && e < 8; e++) {
      putchar(' ');
      run_print_element(arg->type, device->buffers[i], e);
    }
    printf("%s\n", arg->count > 8 ? " ..." : "");
  }
}

static int run_write_outputs(const run_request *request, const run_device *device) {
  if (mkdir(request->out_dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "anygpu: cannot create %s: %s\n", request->out_dir, strerror(errno));
    return CLI_EXIT_FAILURE;
  }
  char selector[32];
  snprintf(selector, sizeof selector, "%s", device->info.selector);
  for (char *p = selector; *p; p++)
    if (*p == ':') *p = '-';
  for (uint32_t i = 0; i < request->arg_count; i++) {
    if (!device->buffers[i]) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%u.%s.bin", request->out_dir, selector, i, device->names[i]);
    FILE *file = fopen(path, "wb");
    size_t bytes = run_arg_bytes(&request->args[i]);
    bool ok = file && fwrite(device->buffers[i], 1, bytes, file) == bytes;
    if (file && fclose(file) != 0) ok = false;
    if (!ok) {
      fprintf(stderr, "anygpu: cannot write %s: %s\n", path, strerror(errno));
      return CLI_EXIT_FAILURE;
    }
  }
  return CLI_EXIT_OK;
}

/* The reference for --compare: the first device that ran, OpenCL first. */
static const run_device *run_reference(const run_device *devices, uint32_t count) {
  for (uint32_t i = 0; i < count; i++)
    if (devices[i].outcome == RUN_RAN && strcmp(devices[i].info.backend_name, "opencl") == 0)
      return &devices[i];
  for (uint32_t i = 0; i < count; i++)
    if (devices[i].outcome == RUN_RAN) return &devices[i];
  return NULL;
}

int run_report(const run_request *request, run_device *devices, uint32_t count) {
  int status = CLI_EXIT_OK;
  for (uint32_t d = 0; d < count; d++) {
    run_device *device = &devices[d];
    printf("%-10s ", device->info.selector);
    if (device->outcome == RUN_RAN) {
      printf("ran in %.3f ms (%s)\n", device->milliseconds, device->info.name);
      if (!request->compare) run_print_values(request, device);
      if (request->out_dir && run_write_outputs(request, device) != CLI_EXIT_OK)
        status = CLI_EXIT_FAILURE;
    } else {
      printf("%s: ", device->outcome == RUN_SKIPPED ? "skipped" : "FAILED");
      fput_single_line(device->message, stdout);
      putchar('\n');
      if (device->outcome == RUN_FAILED) status = CLI_EXIT_FAILURE;
    }
  }
  if (!request->compare) return status;
  const run_device *reference = run_reference(devices, count);
  uint32_t compared = 0;
  bool all_within = true;
  for (uint32_t d = 0; d < count; d++) {
    if (&devices[d] == reference || devices[d].outcome != RUN_RAN) continue;
    if (!compared++) {
      const run_tolerance *t = &request->tolerance;
      printf("\nCompared with %s (floats: ", reference->info.selector);
      if (t->by_ulp)
        printf("within %llu ulp", (unsigned long long)t->ulps);
      else if (t->rtol_given)
        printf("|a - b| <= atol + %g * |b|", t->rtol);
      else
        printf("|a - b| <= atol + rtol * |b|, rtol %g (float) or %g (double)",
               RUN_DEFAULT_RTOL_FLOAT, RUN_DEFAULT_RTOL_DOUBLE);
      if (!t->by_ulp) {
        if (t->atol_given)
          printf(", atol %g", t->atol);
        else
          printf(", atol rtol * the largest |b| of each buffer");
      }
      printf("; integers bit for bit):\n");
    }
    for (uint32_t i = 0; i < request->arg_count; i++)
      if (devices[d].buffers[i] && !devices[d].is_const[i] &&
          !run_compare_buffer(request, reference, &devices[d], i))
        all_within = false;
  }
  if (!compared) printf("\nNothing to compare: fewer than two devices ran the kernel.\n");
  printf("%s\n", all_within ? (compared ? "All devices agree." : "")
                            : "Devices disagree beyond the tolerance.");
  return all_within ? status : CLI_EXIT_FAILURE;
}
