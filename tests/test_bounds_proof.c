// SPDX-License-Identifier: Apache-2.0
/* Bounds checking's proofs at launch (issue 21; docs/debugging.md, "What it
 * costs") on cpu:0, opencl:0 and vulkan:0: a checked kernel whose launch
 * the host proves in bounds runs the build without checks (the trace's
 * launch event says "proven, run unchecked") and gives the right results;
 * the same kernel launched past its buffers runs checked and faults, and a
 * proven launch after it is proven again. Covered: the global id as index,
 * a guard (`if (i < n)`), an early return, a counted loop over a scalar
 * argument, a shrinking loop over a __local argument, a negative signed
 * argument and an index that could wrap its 32 bits (both run checked), a
 * gather through loaded indices (never proven), a case label past a
 * guard's early exit (checked), ANYGPU_CHECK_PROOFS=off;
 * threads whose first launches race to build the unchecked twin (in the
 * ThreadSanitizer stage). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "agpu_test_bounds.h"

static const char source[] =
    "__kernel void triad(__global float *a, __global const float *b, __global const float *c,\n"
    "                    float s) {\n"
    "  size_t i = get_global_id(0);\n"
    "  a[i] = b[i] + s * c[i];\n"
    "}\n"
    "__kernel void guarded(__global const float *in, __global float *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = in[i] * 3.0f;\n"
    "}\n"
    "__kernel void early_exit(__global const float *in, __global float *out, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  out[i] = in[i] + 1.0f;\n"
    "}\n"
    "__kernel void rows(__global const float *m, __global float *sums, uint cols) {\n"
    "  uint r = get_global_id(0);\n"
    "  float acc = 0.0f;\n"
    "  for (uint k = 0; k < cols; k++) acc += m[r * cols + k];\n"
    "  sums[r] = acc;\n"
    "}\n"
    "__kernel void tree_sum(__global const float *in, __global float *out,\n"
    "                       __local float *scratch) {\n"
    "  uint l = get_local_id(0);\n"
    "  scratch[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (l < s) scratch[l] += scratch[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = scratch[0];\n"
    "}\n"
    "__kernel void gather(__global const int *idx, __global const float *in,\n"
    "                     __global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[idx[i]];\n"
    "}\n"
    "__kernel void cases(__global float *out, uint n, uint which) {\n"
    "  uint i = get_global_id(0);\n"
    "  float v = 1.0f;\n"
    "  switch (which) {\n"
    "    case 0:\n"
    "      v = 3.0f;\n"
    "      if (i >= n) break;\n"
    "      out[i] = v;\n"
    "    case 1:\n"
    "      out[i] = 2.0f;\n"
    "  }\n"
    "}\n"
    "__kernel void wraps(__global float *out) {\n"
    "  uint i = get_global_id(0);\n"
    "  uint j = (i * 65536u) >> 16;\n"
    "  out[j] = (float)j;\n"
    "}\n";

enum { N = 1000, GLOBAL = 1024, LOCAL = 64, ROWS = 37, COLS = 53, WRAP = 70000 };
static const char *const proven = "\"bounds\":\"proven, run unchecked\"";
static const char *const checked = "\"bounds\":\"checked\"";
static float in_a[GLOBAL], in_b[GLOBAL], matrix[ROWS * COLS];
static int indices[N];
static char said[1024]; /* the last launch's finish message */

typedef struct run {
  agpu_device *device;
  agpu_program *program;
  char trace[256];
} run;

/* Launches `name` in a trace of its own; returns agpu_queue_finish's status
 * and checks the launch event says `how` (proven or checked). */
static agpu_status launch(run *r, const char *name, size_t global, size_t local, agpu_arg *args,
                          uint32_t nargs, const char *how) {
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(r->program, name, &kernel));
  if (!kernel) return AGPU_ERROR_INVALID_ARGUMENT;
  CHECK_OK(agpu_trace_start(r->trace));
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, local ? &local : NULL, nargs, args));
  agpu_status status = agpu_queue_finish(NULL);
  snprintf(said, sizeof said, "%s", status == AGPU_SUCCESS ? "" : agpu_last_error());
  CHECK_OK(agpu_trace_stop());
  size_t length = 0;
  char *text = agpu_test_read_file(r->trace, &length);
  CHECK(text && strstr(text, how));
  if (text && !strstr(text, how))
    printf("  %s: the trace lacks %s; it says:\n%s\n", name, how, text);
  free(text);
  agpu_kernel_release(kernel);
  return status;
}

static void read_floats(agpu_buffer *b, float *out, size_t count) {
  CHECK_OK(agpu_buffer_read(NULL, b, 0, count * sizeof *out, out));
}

static void release_args(agpu_arg *args, uint32_t nargs) {
  for (uint32_t i = 0; i < nargs; i++)
    if (args[i].kind == AGPU_ARG_BUFFER) agpu_buffer_release(args[i].buffer);
}

/* Proven with exactly N work-items, checked with more (a fault), proven
 * again after it. */
static void triad(run *r) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(r->device, NULL, N * 4)),
                     agpu_arg_buffer(buffer_of(r->device, in_a, N * 4)),
                     agpu_arg_buffer(buffer_of(r->device, in_b, N * 4)), agpu_arg_f32(0.75f)};
  static float out[N];
  for (int round = 0; round < 3; round++) {
    bool past = round == 1;
    agpu_status status =
        launch(r, "triad", past ? GLOBAL : N, past ? LOCAL : 0, args, 4, past ? checked : proven);
    CHECK(status == (past ? AGPU_ERROR_KERNEL_FAULT : AGPU_SUCCESS));
    if (past) CHECK_SAID("kernel 'triad' wrote out of bounds of parameter 'a' (argument 0)");
    read_floats(args[0].buffer, out, N);
    int wrong = 0;
    for (int i = 0; i < N; i++)
      wrong += fabs(out[i] - ((double)in_a[i] + 0.75 * in_b[i])) > 1e-5 * (1 + fabs(out[i]));
    CHECK(wrong == 0);
  }
  release_args(args, 4);
}

/* `if (i < n)` with the global size rounded up: proven where n fits. */
static void guarded(run *r) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(r->device, in_a, N * 4)),
                     agpu_arg_buffer(buffer_of(r->device, NULL, N * 4)), agpu_arg_u32(N)};
  static float out[N];
  CHECK_OK(launch(r, "guarded", GLOBAL, LOCAL, args, 3, proven));
  read_floats(args[1].buffer, out, N);
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != in_a[i] * 3.0f;
  CHECK(wrong == 0);
  args[2] = agpu_arg_u32(N + 1);
  CHECK_STATUS(launch(r, "guarded", GLOBAL, LOCAL, args, 3, checked), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("element 1000 (byte offset 4000, 4 bytes) of 4000 bytes");
  release_args(args, 3);
}

/* `if (i >= n) return;` with a signed n: proven; n negative: checked (and
 * nothing written). */
static void early_exit(run *r) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(r->device, in_a, N * 4)),
                     agpu_arg_buffer(buffer_of(r->device, NULL, N * 4)), agpu_arg_i32(N)};
  static float out[N];
  CHECK_OK(launch(r, "early_exit", GLOBAL, LOCAL, args, 3, proven));
  read_floats(args[1].buffer, out, N);
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != in_a[i] + 1.0f;
  CHECK(wrong == 0);
  agpu_arg fresh[] = {args[0], agpu_arg_buffer(buffer_of(r->device, NULL, N * 4)),
                      agpu_arg_i32(-1)};
  CHECK_OK(launch(r, "early_exit", GLOBAL, LOCAL, fresh, 3, checked));
  read_floats(fresh[1].buffer, out, N);
  int written = 0;
  for (int i = 0; i < N; i++) written += !isnan(out[i]);
  CHECK(written == 0);
  agpu_buffer_release(fresh[1].buffer);
  release_args(args, 3);
}

/* A loop counted to a scalar argument: row r reads m[r * cols + k]. */
static void rows(run *r) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(r->device, matrix, sizeof matrix)),
                     agpu_arg_buffer(buffer_of(r->device, NULL, ROWS * 4)), agpu_arg_u32(COLS)};
  static float sums[ROWS];
  CHECK_OK(launch(r, "rows", ROWS, 0, args, 3, proven));
  read_floats(args[1].buffer, sums, ROWS);
  int wrong = 0;
  for (int i = 0; i < ROWS; i++) {
    double want = 0;
    for (int k = 0; k < COLS; k++) want += matrix[i * COLS + k];
    wrong += fabs(sums[i] - want) > 1e-4 * (1 + fabs(want));
  }
  CHECK(wrong == 0);
  args[2] = agpu_arg_u32(COLS + 1); /* the last rows read past the matrix */
  CHECK_STATUS(launch(r, "rows", ROWS, 0, args, 3, checked), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'rows' read out of bounds of parameter 'm' (argument 0)");
  release_args(args, 3);
}

/* A shrinking loop over a __local argument: proven with LOCAL floats of
 * scratch; half of them is too few. */
static void tree_sum(run *r) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(r->device, in_a, GLOBAL * 4)),
                     agpu_arg_buffer(buffer_of(r->device, NULL, GLOBAL / LOCAL * 4)),
                     agpu_arg_local(LOCAL * 4)};
  static float sums[GLOBAL / LOCAL];
  CHECK_OK(launch(r, "tree_sum", GLOBAL, LOCAL, args, 3, proven));
  read_floats(args[1].buffer, sums, GLOBAL / LOCAL);
  int wrong = 0;
  for (int g = 0; g < GLOBAL / LOCAL; g++) {
    double want = 0;
    for (int l = 0; l < LOCAL; l++) want += in_a[g * LOCAL + l];
    wrong += fabs(sums[g] - want) > 1e-4 * (1 + fabs(want));
  }
  CHECK(wrong == 0);
  args[2] = agpu_arg_local(LOCAL * 2);
  CHECK_STATUS(launch(r, "tree_sum", GLOBAL, LOCAL, args, 3, checked), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("of parameter 'scratch' (argument 2)");
  release_args(args, 3);
}

/* Loaded indices are never proven: checked, and right where they fit. */
static void gather(run *r) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(r->device, indices, sizeof indices)),
                     agpu_arg_buffer(buffer_of(r->device, in_a, N * 4)),
                     agpu_arg_buffer(buffer_of(r->device, NULL, N * 4))};
  static float out[N];
  CHECK_OK(launch(r, "gather", N, 0, args, 3, checked));
  read_floats(args[2].buffer, out, N);
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != in_a[indices[i]];
  CHECK(wrong == 0);
  release_args(args, 3);
}

/* A guard's early exit does not cover a case label after it, which a
 * switch enters directly: `case 1` stores past the end, checked. */
static void cases(run *r) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(r->device, NULL, N * 4)), agpu_arg_u32(N),
                     agpu_arg_u32(1)};
  CHECK_STATUS(launch(r, "cases", GLOBAL, LOCAL, args, 3, checked), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'cases' wrote out of bounds of parameter 'out' (argument 0)");
  release_args(args, 3);
}

/* i * 65536 passes 2^32 past 65536 work-items: the proof refuses the
 * launch (it would wrap), which runs checked, in bounds. */
static void wraps(run *r) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(r->device, NULL, WRAP * 4))};
  float *out = malloc(WRAP * sizeof *out);
  CHECK_OK(launch(r, "wraps", 1024, 0, args, 1, proven));
  CHECK_OK(launch(r, "wraps", WRAP, 0, args, 1, checked));
  read_floats(args[0].buffer, out, WRAP);
  int wrong = 0;
  for (int j = 0; j < WRAP; j++) wrong += j < 65536 ? out[j] != (float)j : !isnan(out[j]);
  CHECK(wrong == 0);
  free(out);
  release_args(args, 1);
}

typedef struct racer {
  agpu_device *device;
  agpu_kernel *kernel;
  float scale;
  int wrong;
  agpu_status status;
} racer;

/* One thread's proven launches of the shared kernel on its own buffers. */
static void *race_launches(void *data) {
  racer *t = data;
  agpu_buffer *a = NULL, *b = NULL, *c = NULL;
  static const size_t global = N;
  float *out = malloc(N * sizeof *out);
  t->status = agpu_buffer_create(t->device, N * 4, 0, &a);
  if (!t->status) t->status = agpu_buffer_create(t->device, N * 4, 0, &b);
  if (!t->status) t->status = agpu_buffer_create(t->device, N * 4, 0, &c);
  if (!t->status) t->status = agpu_buffer_write(NULL, b, 0, N * 4, in_a);
  if (!t->status) t->status = agpu_buffer_write(NULL, c, 0, N * 4, in_b);
  for (int round = 0; round < 4 && !t->status; round++) {
    agpu_arg args[] = {agpu_arg_buffer(a), agpu_arg_buffer(b), agpu_arg_buffer(c),
                       agpu_arg_f32(t->scale)};
    t->status = agpu_launch(NULL, t->kernel, 1, &global, NULL, 4, args);
    if (!t->status) t->status = agpu_buffer_read(NULL, a, 0, N * 4, out);
    for (int i = 0; i < N && !t->status; i++)
      t->wrong +=
          fabs(out[i] - ((double)in_a[i] + (double)t->scale * in_b[i])) > 1e-5 * (1 + fabs(out[i]));
  }
  agpu_buffer_release(a);
  agpu_buffer_release(b);
  agpu_buffer_release(c);
  free(out);
  return NULL;
}

/* Four threads launch a checked kernel at once: one builds the twin, every
 * launch is right. */
static void racing_first_launches(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) return;
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  agpu_program_desc desc = {
      .source = source, .source_name = "proof.cl", .options = AGPU_PROGRAM_CHECK_BOUNDS};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (program) CHECK_OK(agpu_kernel_create(program, "triad", &kernel));
  if (!kernel) return;
  racer racers[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) {
    racers[i] = (racer){.device = device, .kernel = kernel, .scale = 0.5f + (float)i};
    pthread_create(&threads[i], NULL, race_launches, &racers[i]);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
    CHECK_OK(racers[i].status);
    CHECK(racers[i].wrong == 0);
  }
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void proofs_on(const char *selector) {
  run r = {.device = agpu_test_device(selector)};
  if (!r.device) SKIP("no %s", selector);
  snprintf(r.trace, sizeof r.trace, "test_bounds_proof_%s.json", selector);
  r.trace[strlen(r.trace) - 7] = '_'; /* no ':' in the file name */
  agpu_program_desc desc = {
      .source = source, .source_name = "proof.cl", .options = AGPU_PROGRAM_CHECK_BOUNDS};
  CHECK_OK(agpu_program_build(r.device, &desc, &r.program));
  if (!r.program) return;
  triad(&r);
  guarded(&r);
  early_exit(&r);
  rows(&r);
  tree_sum(&r);
  gather(&r);
  cases(&r);
  wraps(&r);
  agpu_program_release(r.program);
  remove(r.trace);
  racing_first_launches(selector);
}

static void cpu_proofs(void) {
  proofs_on("cpu:0");
}
static void opencl_proofs(void) {
  proofs_on("opencl:0");
}
static void vulkan_proofs(void) {
  proofs_on("vulkan:0");
}

/* ANYGPU_CHECK_PROOFS=off: a program built then checks every launch. */
static void proofs_off(void) {
  run r = {.device = agpu_test_device("cpu:0")};
  if (!r.device) SKIP("no cpu:0");
  snprintf(r.trace, sizeof r.trace, "test_bounds_proof_off.json");
  setenv("ANYGPU_CHECK_PROOFS", "off", 1);
  agpu_program_desc desc = {
      .source = source, .source_name = "proof.cl", .options = AGPU_PROGRAM_CHECK_BOUNDS};
  CHECK_OK(agpu_program_build(r.device, &desc, &r.program));
  unsetenv("ANYGPU_CHECK_PROOFS");
  if (!r.program) return;
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(r.device, NULL, N * 4)),
                     agpu_arg_buffer(buffer_of(r.device, in_a, N * 4)),
                     agpu_arg_buffer(buffer_of(r.device, in_b, N * 4)), agpu_arg_f32(2.0f)};
  CHECK_OK(launch(&r, "triad", N, 0, args, 4, checked));
  release_args(args, 4);
  agpu_program_release(r.program);
  remove(r.trace);
}

int main(void) {
  uint64_t seed = 2112;
  for (int i = 0; i < GLOBAL; i++) {
    in_a[i] = agpu_test_randf(&seed, -10.0f, 10.0f);
    in_b[i] = agpu_test_randf(&seed, -10.0f, 10.0f);
  }
  for (int i = 0; i < ROWS * COLS; i++) matrix[i] = agpu_test_randf(&seed, -1.0f, 1.0f);
  for (int i = 0; i < N; i++) indices[i] = (int)(agpu_test_rand(&seed) % N);
  RUN(cpu_proofs);
  RUN(opencl_proofs);
  RUN(vulkan_proofs);
  RUN(proofs_off);
  return agpu_test_finish();
}
