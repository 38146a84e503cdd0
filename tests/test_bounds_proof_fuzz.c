// SPDX-License-Identifier: Apache-2.0
/* The proofs at launch must be sound (docs/debugging.md, "What it costs"):
 * a launch proven in bounds runs without checks, so a proof that holds
 * where an access overruns would hide the fault. Random kernels store
 * through indices built from work-item ids and sizes, constants, scalar
 * arguments (a signed one sometimes negative), loop counters, guards and
 * early returns, with +, *, -, shifts, /, % and &, in types from ushort to
 * ulong; each is launched with random sizes, buffer lengths and arguments
 * twice on cpu:0: from a program whose launches may be proven, and from one
 * whose every launch is checked (ANYGPU_CHECK_PROOFS=off). Wherever the
 * first launch was proven (its trace says so), the checked one must report
 * no violation; both must give the same status and the same buffer. The
 * test fails too where too few launches were proven or faulted to mean
 * anything. */
#include <stdarg.h>
#include <stdlib.h>

#include "agpu_test.h"

enum { KERNELS = 40, CONFIGS = 6, MAX_ELEMENTS = 512 };

typedef struct gen {
  uint64_t seed;
  char *text;
  size_t length, capacity;
} gen;

static void put(gen *g, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void put(gen *g, const char *format, ...) {
  va_list args;
  va_start(args, format);
  char line[8192];
  int n = vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (g->length + (size_t)n + 1 > g->capacity) {
    g->capacity = (g->capacity + (size_t)n + 1) * 2;
    g->text = realloc(g->text, g->capacity);
  }
  memcpy(g->text + g->length, line, (size_t)n + 1);
  g->length += (size_t)n;
}

static unsigned pick(gen *g, unsigned count) {
  return (unsigned)(agpu_test_rand(&g->seed) % count);
}

/* An index expression of `depth` levels over the ids, sizes, arguments
 * and `extra` (a counter or the variable i; NULL: none). */
static void expression(gen *g, int depth, const char *extra, char *out, size_t size) {
  static const char *const leaves[] = {"get_global_id(0)",
                                       "get_local_id(0)",
                                       "get_group_id(0)",
                                       "get_global_size(0)",
                                       "get_local_size(0)",
                                       "get_num_groups(0)",
                                       "n",
                                       "(uint)m",
                                       "3u",
                                       "17u",
                                       "1u",
                                       "0u"};
  if (depth == 0 || pick(g, 3) == 0) {
    bool use_extra = extra && pick(g, 2) == 0;
    snprintf(out, size, "%s", use_extra ? extra : leaves[pick(g, sizeof leaves / sizeof *leaves)]);
    return;
  }
  char lhs[300], rhs[300];
  expression(g, depth - 1, extra, lhs, sizeof lhs);
  switch (pick(g, 12)) {
    case 0:
    case 1:
      expression(g, depth - 1, extra, rhs, sizeof rhs);
      snprintf(out, size, "(%s + %s)", lhs, rhs);
      break;
    case 2:
      expression(g, depth - 1, extra, rhs, sizeof rhs);
      snprintf(out, size, "(%s * %s)", lhs, rhs);
      break;
    case 3:
      expression(g, depth - 1, extra, rhs, sizeof rhs);
      snprintf(out, size, "(%s - %s)", lhs, rhs);
      break;
    case 4:
      snprintf(out, size, "(%s << %u)", lhs, pick(g, 4));
      break;
    case 5:
      snprintf(out, size, "(%s >> %u)", lhs, pick(g, 4));
      break;
    case 6:
      snprintf(out, size, "(%s / %uu)", lhs, 1 + pick(g, 5));
      break;
    case 7:
      snprintf(out, size, "(%s %% %uu)", lhs, 1 + pick(g, 90));
      break;
    case 8:
      snprintf(out, size, "(%s & %uu)", lhs, pick(g, 300));
      break;
    case 9: /* a guarded choice */
      expression(g, depth - 1, extra, rhs, sizeof rhs);
      snprintf(out, size, "(%s < %s ? %s : %s)", lhs, pick(g, 2) ? "n" : "m", lhs, rhs);
      break;
    case 10:
      expression(g, depth - 1, extra, rhs, sizeof rhs);
      snprintf(out, size, "%s((uint)%s, (uint)%s)", pick(g, 2) ? "min" : "max", lhs, rhs);
      break;
    default:
      expression(g, depth - 1, extra, rhs, sizeof rhs);
      snprintf(out, size, "clamp((uint)%s, (uint)%s, n)", lhs, rhs);
      break;
  }
}

/* Kernel k: a store of 1.0f at an index of one of five shapes. */
static void kernel_source(gen *g, int k) {
  static const char *const types[] = {"uint", "int", "ulong", "ushort", "size_t", "long"};
  const char *type = types[pick(g, sizeof types / sizeof *types)];
  char e1[4096], e2[4096];
  put(g, "__kernel void k%d(__global float *out, uint n, int m) {\n", k);
  switch (pick(g, 5)) {
    case 0: /* straight */
      expression(g, 2, NULL, e1, sizeof e1);
      expression(g, 1, "i", e2, sizeof e2);
      put(g, "  %s i = %s;\n  out[%s] = 1.0f;\n", type, e1, e2);
      break;
    case 1: /* guarded */
      expression(g, 2, NULL, e1, sizeof e1);
      expression(g, 1, "i", e2, sizeof e2);
      put(g, "  %s i = %s;\n  if (i%s < %s%s) out[%s] = 1.0f;\n", type, e1,
          pick(g, 2) ? "" : " + 3u", pick(g, 2) ? "n" : "m", pick(g, 2) ? " && i != 7u" : "", e2);
      break;
    case 2: /* early return */
      expression(g, 2, NULL, e1, sizeof e1);
      expression(g, 1, "i", e2, sizeof e2);
      put(g, "  %s i = %s;\n  if (i >= %s) return;\n  out[%s] = 1.0f;\n", type, e1,
          pick(g, 2) ? "n" : "m", e2);
      break;
    case 3: /* counted loop */
      expression(g, 1, NULL, e1, sizeof e1);
      expression(g, 2, "k", e2, sizeof e2);
      put(g, "  for (%s k = %s; k %s %s; k += %uu) out[%s] = 1.0f;\n", type, e1,
          pick(g, 2) ? "<" : "<=", pick(g, 2) ? "n" : "(n / 2u + 3u)", 1 + pick(g, 3), e2);
      break;
    default: { /* shrinking loop (counting down from a leaf, not to run long) */
      static const char *const starts[] = {"n", "get_local_size(0)", "get_global_id(0)", "17u"};
      bool halves = pick(g, 2);
      if (halves)
        expression(g, 1, NULL, e1, sizeof e1);
      else
        snprintf(e1, sizeof e1, "%s", starts[pick(g, 4)]);
      put(g,
          "  uint l = get_local_id(0);\n"
          "  for (%s s = %s; s > %uu; s %s) if (l < s) out[l + s%s] = 1.0f;\n",
          type, e1, pick(g, 2), halves ? ">>= 1" : "--", pick(g, 2) ? "" : " + 1u");
      break;
    }
  }
  put(g, "}\n");
}

static agpu_program *build(agpu_device *device, const char *source, bool proofs) {
  if (!proofs) setenv("ANYGPU_CHECK_PROOFS", "off", 1);
  agpu_program *program = NULL;
  agpu_program_desc desc = {
      .source = source, .source_name = "proof_fuzz.cl", .options = AGPU_PROGRAM_CHECK_BOUNDS};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  unsetenv("ANYGPU_CHECK_PROOFS");
  return program;
}

typedef struct config {
  size_t global, local;
  size_t elements;
  uint32_t n;
  int32_t m;
} config;

/* One launch; *proven: the trace said so. The buffer's contents in out. */
static agpu_status launch(agpu_device *device, agpu_program *program, const char *name,
                          const config *c, float *out, bool *proven) {
  agpu_kernel *kernel = NULL;
  agpu_buffer *buffer = NULL;
  CHECK_OK(agpu_kernel_create(program, name, &kernel));
  CHECK_OK(agpu_buffer_create(device, c->elements * 4, 0, &buffer));
  if (!kernel || !buffer) return AGPU_ERROR_INVALID_ARGUMENT;
  for (size_t i = 0; i < c->elements; i++) out[i] = 0.0f;
  CHECK_OK(agpu_buffer_write(NULL, buffer, 0, c->elements * 4, out));
  agpu_arg args[] = {agpu_arg_buffer(buffer), agpu_arg_u32(c->n), agpu_arg_i32(c->m)};
  CHECK_OK(agpu_trace_start("test_bounds_proof_fuzz.json"));
  agpu_status status = agpu_launch(NULL, kernel, 1, &c->global, &c->local, 3, args);
  if (status == AGPU_SUCCESS) status = agpu_queue_finish(NULL);
  CHECK_OK(agpu_trace_stop());
  size_t length = 0;
  char *trace = agpu_test_read_file("test_bounds_proof_fuzz.json", &length);
  *proven = trace && strstr(trace, "\"bounds\":\"proven, run unchecked\"");
  free(trace);
  CHECK_OK(agpu_buffer_read(NULL, buffer, 0, c->elements * 4, out));
  agpu_buffer_release(buffer);
  agpu_kernel_release(kernel);
  return status;
}

static config random_config(gen *g) {
  config c;
  c.local = 1 + pick(g, 64);
  c.global = c.local * (1 + pick(g, 8));
  c.elements = 1 + pick(g, MAX_ELEMENTS);
  c.n = pick(g, 3) ? pick(g, MAX_ELEMENTS) : (uint32_t)c.elements;
  c.m = pick(g, 4) == 0 ? -(int32_t)pick(g, 5) - 1 : (int32_t)pick(g, MAX_ELEMENTS);
  return c;
}

static void random_kernels_on_cpu(void) {
  agpu_device *device = agpu_test_device("cpu:0");
  if (!device) SKIP("no cpu:0");
  const char *seed = getenv("ANYGPU_TEST_SEED"); /* another set of kernels */
  gen g = {.seed = seed ? strtoull(seed, NULL, 10) : 1721};
  for (int k = 0; k < KERNELS; k++) kernel_source(&g, k);
  bool verbose = getenv("ANYGPU_TEST_VERBOSE") != NULL; /* the source, each launch */
  if (verbose) setvbuf(stdout, NULL, _IONBF, 0), printf("%s", g.text);
  agpu_program *may_prove = build(device, g.text, true);
  agpu_program *checks_all = build(device, g.text, false);
  int proven = 0, faults = 0, unsound = 0, differ = 0;
  static float with_proofs[MAX_ELEMENTS], checked[MAX_ELEMENTS];
  for (int k = 0; k < KERNELS && may_prove && checks_all; k++) {
    char name[16];
    snprintf(name, sizeof name, "k%d", k);
    for (int i = 0; i < CONFIGS; i++) {
      config c = random_config(&g);
      bool was_proven = false, ignored;
      if (verbose)
        printf("  %s: global %zu, local %zu, %zu elements, n %u, m %d\n", name, c.global, c.local,
               c.elements, c.n, c.m);
      agpu_status a = launch(device, may_prove, name, &c, with_proofs, &was_proven);
      agpu_status b = launch(device, checks_all, name, &c, checked, &ignored);
      proven += was_proven;
      faults += b == AGPU_ERROR_KERNEL_FAULT;
      bool same = a == b && !memcmp(with_proofs, checked, c.elements * 4);
      if ((was_proven && b != AGPU_SUCCESS) || !same) {
        unsound += was_proven && b != AGPU_SUCCESS;
        differ += !same;
        printf("  %s (global %zu, local %zu, %zu elements, n %u, m %d): %s, statuses %s / %s\n",
               name, c.global, c.local, c.elements, c.n, c.m, was_proven ? "proven" : "checked",
               agpu_status_name(a), agpu_status_name(b));
      }
    }
  }
  printf("  %d launches: %d proven, %d faulted when checked\n", KERNELS * CONFIGS, proven, faults);
  CHECK(unsound == 0);
  CHECK(differ == 0);
  CHECK(proven >= KERNELS * CONFIGS / 10); /* enough of each to mean something */
  CHECK(faults >= KERNELS * CONFIGS / 10);
  if (unsound || differ) printf("%s", g.text);
  agpu_program_release(may_prove);
  agpu_program_release(checks_all);
  remove("test_bounds_proof_fuzz.json");
  free(g.text);
}

int main(void) {
  RUN(random_kernels_on_cpu);
  return agpu_test_finish();
}
