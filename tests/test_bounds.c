// SPDX-License-Identifier: Apache-2.0
/* Bounds checking (issue 21; docs/debugging.md, "Bounds checking") on
 * cpu:0, opencl:0 and vulkan:0: planted kernels (an off-by-one store, a
 * read through a computed index, __local overruns by a store and a load, a
 * store through a pointer cast past the end, an overrun of a __local
 * argument) give AGPU_ERROR_KERNEL_FAULT naming the kernel, parameter,
 * element and byte offset, the rest of their results intact (a violating
 * load gives 0, a violating store is dropped); the same kernels in bounds
 * pass with the check and give bit-identical results to the unchecked
 * build; the fault comes with an event wait and a blocking read too, and
 * the next launch starts clean; ANYGPU_CHECK=bounds checks a program built
 * without the option; the build log says what is not checked. */
#include <stdlib.h>

#include "agpu_test_bounds.h"

static const char source[] =
    "__kernel void off_by_one(__global const float *a, __global float *out, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i <= n) out[i] = a[i < n ? i : 0] * 2.0f;\n"
    "}\n"
    "__kernel void computed_read(__global const int *idx, __global const float *a,\n"
    "                            __global float *out, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) out[i] = a[idx[i]];\n"
    "}\n"
    "__kernel void local_read(__global const float *a, __global float *out, uint n) {\n"
    "  __local float tile[64];\n"
    "  size_t l = get_local_id(0), g = get_global_id(0);\n"
    "  tile[l] = g < n ? a[g] : 0.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (g < n) out[g] = tile[l + STEP];\n"
    "}\n"
    "__kernel void local_store(__global const float *a, __global float *out) {\n"
    "  __local float tile[64];\n"
    "  size_t l = get_local_id(0);\n"
    "  tile[l + STEP] = a[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = tile[l];\n"
    "}\n"
    "__kernel void cast_store(__global float *out, uint n4) {\n"
    "  size_t i = get_global_id(0);\n"
    "  __global float4 *v = (__global float4 *)out;\n"
    "  if (i <= n4) v[i] = (float4)(1.0f, 2.0f, 3.0f, (float)i);\n"
    "}\n"
    "__kernel void local_arg(__local float *scratch, __global float *out, uint stride) {\n"
    "  size_t l = get_local_id(0);\n"
    "  scratch[l * stride] = (float)l;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = scratch[l];\n"
    "}\n"
    "__kernel void early_return(__global const float *a, __global float *out, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i % 3 == 0) return;\n"
    "  if (i < n) out[i] = a[i + 2 * STEP];\n"
    "}\n"
    "__kernel void counted_local(__global float *out) {\n"
    "  __local float tile[64];\n"
    "  uint l = get_local_id(0);\n"
    "  for (uint j = 0; j < 4; j++) tile[l * 4 + j] = (float)(l * 4 + j);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = tile[l];\n"
    "}\n"
    "__kernel void counted_past(__global float *out) {\n"
    "  __local float t[16];\n"
    "  if (get_local_id(0) == 0)\n"
    "    for (uint j = 0; j <= 16; j++) t[j] = (float)j;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = t[get_local_id(0) % 16];\n"
    "}\n"
    "__kernel void compact(__global const float *in, __global float *out,\n"
    "                      __global uint *count, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n && in[i] > 0.0f) out[atomic_inc(count)] = in[i];\n"
    "}\n";

enum { N = 1000, GLOBAL = 1024, LOCAL = 64 };
static char said[4096]; /* the last launch's finish message */

static float a_in[GLOBAL];
static int idx_in[N];

typedef struct setup {
  agpu_device *device;
  agpu_program *program;
} setup;

static bool build(setup *s, const char *selector, const char *options) {
  s->device = agpu_test_device(selector);
  s->program = NULL;
  if (!s->device) return false;
  agpu_program_desc desc = {.source = source, .source_name = "bounds.cl", .options = options};
  CHECK_OK(agpu_program_build(s->device, &desc, &s->program));
  return s->program != NULL;
}

/* Launches `kernel` and returns agpu_queue_finish's status; *out gets the
 * last buffer argument's contents. */
static agpu_status launch(setup *s, const char *name, agpu_arg *args, uint32_t nargs, size_t global,
                          float *out, size_t out_bytes) {
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(s->program, name, &kernel));
  if (!kernel) return AGPU_ERROR_INVALID_ARGUMENT;
  size_t local = LOCAL;
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, nargs, args));
  agpu_status status = agpu_queue_finish(NULL);
  snprintf(said, sizeof said, "%s", status == AGPU_SUCCESS ? "" : agpu_last_error());
  agpu_buffer *last = NULL;
  for (uint32_t i = 0; i < nargs; i++)
    if (args[i].kind == AGPU_ARG_BUFFER) last = args[i].buffer;
  if (out && last) CHECK_OK(agpu_buffer_read(NULL, last, 0, out_bytes, out));
  agpu_kernel_release(kernel);
  return status;
}

static void release_args(agpu_arg *args, uint32_t nargs) {
  for (uint32_t i = 0; i < nargs; i++)
    if (args[i].kind == AGPU_ARG_BUFFER) agpu_buffer_release(args[i].buffer);
}

static void off_by_one(setup *s, const char *options_checked) {
  (void)options_checked;
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(s->device, a_in, N * 4)),
                     agpu_arg_buffer(buffer_of(s->device, NULL, N * 4)), agpu_arg_u32(N)};
  static float out[N];
  CHECK_STATUS(launch(s, "off_by_one", args, 3, GLOBAL, out, sizeof out), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'off_by_one' wrote out of bounds of parameter 'out' (argument 1)");
  CHECK_SAID("bounds.cl:3:22: element 1000 (byte offset 4000, 4 bytes) of 4000");
  CHECK_SAID("by work-item (1000,0,0) of work-group (15,0,0)");
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != a_in[i] * 2.0f;
  CHECK(wrong == 0);
  release_args(args, 3);
}

static void computed_read(setup *s) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(s->device, idx_in, sizeof idx_in)),
                     agpu_arg_buffer(buffer_of(s->device, a_in, N * 4)),
                     agpu_arg_buffer(buffer_of(s->device, NULL, N * 4)), agpu_arg_u32(N)};
  static float out[N];
  CHECK_STATUS(launch(s, "computed_read", args, 4, GLOBAL, out, sizeof out),
               AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'computed_read' read out of bounds of parameter 'a' (argument 1)");
  CHECK_SAID("at bounds.cl:8:24: element ");
  CHECK_SAID("the load was given 0");
  int wrong = 0, outside = 0;
  for (int i = 0; i < N; i++) {
    outside += idx_in[i] >= N;
    wrong += out[i] != (idx_in[i] < N ? a_in[idx_in[i]] : 0.0f);
  }
  CHECK(wrong == 0);
  char more[64];
  snprintf(more, sizeof more, "%d more violations", outside - 1);
  CHECK_SAID(more);
  release_args(args, 4);
}

static void local_read(setup *s) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(s->device, a_in, N * 4)),
                     agpu_arg_buffer(buffer_of(s->device, NULL, N * 4)), agpu_arg_u32(N)};
  static float out[N];
  CHECK_STATUS(launch(s, "local_read", args, 3, GLOBAL, out, sizeof out), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'local_read' read out of bounds of __local array 'tile'");
  CHECK_SAID("element 64 (byte offset 256, 4 bytes) of 256");
  CHECK_SAID("14 more violations"); /* the last work-item of 15 groups (not g >= n) */
  int wrong = 0;
  for (int g = 0; g < N; g++) {
    int l = g % LOCAL;
    float want = l + 1 < LOCAL ? (g + 1 < N ? a_in[g + 1] : 0.0f) : 0.0f;
    wrong += out[g] != want;
  }
  CHECK(wrong == 0);
  release_args(args, 3);
}

static void local_store(setup *s) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(s->device, a_in, GLOBAL * 4)),
                     agpu_arg_buffer(buffer_of(s->device, NULL, GLOBAL * 4))};
  static float out[GLOBAL];
  CHECK_STATUS(launch(s, "local_store", args, 2, GLOBAL, out, sizeof out), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'local_store' wrote out of bounds of __local array 'tile' at bounds.cl:20");
  CHECK_SAID("element 64 (byte offset 256, 4 bytes)");
  CHECK_SAID("by work-item (");
  int wrong = 0; /* tile[l] holds a[g - 1] but for l = 0, never written */
  for (int g = 0; g < GLOBAL; g++)
    if (g % LOCAL) wrong += out[g] != a_in[g - 1];
  CHECK(wrong == 0);
  release_args(args, 2);
}

static void cast_store(setup *s) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(s->device, NULL, N * 4)), agpu_arg_u32(N / 4)};
  static float out[N];
  CHECK_STATUS(launch(s, "cast_store", args, 2, 256, out, sizeof out), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'cast_store' wrote out of bounds of parameter 'out' (argument 0)");
  CHECK_SAID("element 1000 (byte offset 4000, 16 bytes) of 4000 bytes");
  CHECK_SAID("by work-item (250,0,0) of work-group (3,0,0); the store was dropped");
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != (i % 4 == 3 ? (float)(i / 4) : (float)(i % 4 + 1));
  CHECK(wrong == 0);
  release_args(args, 2);
}

static void local_arg(setup *s) {
  agpu_arg args[] = {agpu_arg_local(100 * 4), agpu_arg_buffer(buffer_of(s->device, NULL, 256 * 4)),
                     agpu_arg_u32(2)};
  CHECK_STATUS(launch(s, "local_arg", args, 3, 256, NULL, 0), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'local_arg' wrote out of bounds of parameter 'scratch' (argument 0)");
  CHECK_SAID("element 100 (byte offset 400, 4 bytes) of 400 bytes");
  release_args(args, 3);
}

/* Work-items that return early beside one that reads past the end (the
 * C target reports after each group's work-item loop: returned work-items
 * must not report stale notes of an earlier group). */
static void early_return(setup *s) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(s->device, a_in, N * 4)),
                     agpu_arg_buffer(buffer_of(s->device, NULL, N * 4)), agpu_arg_u32(N)};
  static float out[N];
  CHECK_STATUS(launch(s, "early_return", args, 3, GLOBAL, out, sizeof out),
               AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'early_return' read out of bounds of parameter 'a' (argument 0)");
  CHECK_SAID("element 1000 (byte offset 4000, 4 bytes) of 4000 bytes");
  CHECK_SAID("by work-item (998,0,0) of work-group (15,0,0); the load was given 0");
  CHECK(strstr(said, "more violation") == NULL);
  int wrong = 0;
  for (int i = 0; i < N; i++) {
    uint32_t bits;
    memcpy(&bits, &out[i], 4);
    if (i % 3 == 0)
      wrong += bits != 0x7fc0dead;
    else
      wrong += out[i] != (i + 2 < N ? a_in[i + 2] : 0.0f);
  }
  CHECK(wrong == 0);
  release_args(args, 3);
}

/* An access whose offset the pass bounds by the group's size (l * 4 + j
 * with j < 4: in bounds for groups of up to 16): unchecked in such
 * groups, checked in larger ones (kernels/bounds_ranges.c). */
static void counted_local(setup *s) {
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(s->device, NULL, GLOBAL * 4))};
  static float out[GLOBAL];
  CHECK_STATUS(launch(s, "counted_local", args, 1, GLOBAL, out, sizeof out),
               AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'counted_local' wrote out of bounds of __local array 'tile' at bounds.cl:");
  CHECK_SAID("element 64 (byte offset 256, 4 bytes) of 256 bytes");
  /* the first to be recorded: work-item 16 of whichever group got there
   * first (groups run at once on opencl:0) */
  unsigned item = 0, group = 0;
  const char *by = strstr(said, "by work-item (");
  CHECK(by && sscanf(by, "by work-item (%u,0,0) of work-group (%u,0,0)", &item, &group) == 2 &&
        item == group * LOCAL + 16);
  CHECK_SAID("3071 more violations"); /* 48 work-items x 4 stores x 16 groups, but one */
  int wrong = 0;
  for (int g = 0; g < GLOBAL; g++) wrong += out[g] != (float)(g % LOCAL);
  CHECK(wrong == 0);
  agpu_kernel *kernel = NULL; /* groups of 16: in bounds, nothing said */
  CHECK_OK(agpu_kernel_create(s->program, "counted_local", &kernel));
  size_t global = GLOBAL, local = 16;
  if (kernel) CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 1, args));
  CHECK_OK(agpu_queue_finish(NULL));
  CHECK_OK(agpu_buffer_read(NULL, args[0].buffer, 0, sizeof out, out));
  wrong = 0;
  for (int g = 0; g < GLOBAL; g++) wrong += out[g] != (float)(g % 16);
  CHECK(wrong == 0);
  agpu_kernel_release(kernel);
  /* a counted loop one past a __local array's end: checked, whatever the
   * group's size */
  CHECK_STATUS(launch(s, "counted_past", args, 1, GLOBAL, out, sizeof out),
               AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'counted_past' wrote out of bounds of __local array 't' at bounds.cl:");
  CHECK_SAID("element 16 (byte offset 64, 4 bytes) of 64 bytes");
  CHECK_SAID("15 more violations");
  wrong = 0;
  for (int g = 0; g < GLOBAL; g++) wrong += out[g] != (float)(g % 16);
  CHECK(wrong == 0);
  release_args(args, 1);
}

/* A store at an index with side effects (stream compaction through
 * atomic_inc) is checked: the index is computed once, before the check. */
static void compact(setup *s) {
  enum { ROOM = N / 4 };
  uint32_t zero = 0;
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(s->device, a_in, N * 4)),
                     agpu_arg_buffer(buffer_of(s->device, NULL, ROOM * 4)),
                     agpu_arg_buffer(buffer_of(s->device, &zero, 4)), agpu_arg_u32(N)};
  int positive = 0;
  for (int i = 0; i < N; i++) positive += a_in[i] > 0.0f;
  static float out[ROOM];
  CHECK_STATUS(launch(s, "compact", args, 4, GLOBAL, NULL, 0), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'compact' wrote out of bounds of parameter 'out' (argument 1)");
  char more[64];
  snprintf(more, sizeof more, "%d more violations", positive - ROOM - 1);
  CHECK_SAID(more);
  uint32_t count = 0;
  CHECK_OK(agpu_buffer_read(NULL, args[2].buffer, 0, 4, &count));
  CHECK(count == (uint32_t)positive);
  CHECK_OK(agpu_buffer_read(NULL, args[1].buffer, 0, sizeof out, out));
  int wrong = 0; /* the room filled with positive inputs, each once */
  for (int k = 0; k < ROOM; k++) {
    int found = 0;
    for (int i = 0; i < N; i++) found += a_in[i] > 0.0f && a_in[i] == out[k];
    wrong += found == 0;
  }
  CHECK(wrong == 0);
  release_args(args, 4);
}

static void planted_on(const char *selector) {
  setup s;
  if (!build(&s, selector, "-DSTEP=1 " AGPU_PROGRAM_CHECK_BOUNDS)) {
    if (!s.device) SKIP("no %s", selector);
    return;
  }
  off_by_one(&s, NULL);
  computed_read(&s);
  local_read(&s);
  local_store(&s);
  cast_store(&s);
  local_arg(&s);
  early_return(&s);
  counted_local(&s);
  compact(&s);
  agpu_program_release(s.program);
}

static void cpu_planted(void) {
  planted_on("cpu:0");
}
static void opencl_planted(void) {
  planted_on("opencl:0");
}
static void vulkan_planted(void) {
  planted_on("vulkan:0");
}

/* Every kernel in bounds: success, and the unchecked build's results bit
 * for bit. */
static void in_bounds_results(setup *s, float results[5][GLOBAL]) {
  int in_range[N];
  for (int i = 0; i < N; i++) in_range[i] = idx_in[i] % N;
  agpu_arg one[] = {agpu_arg_buffer(buffer_of(s->device, a_in, N * 4)),
                    agpu_arg_buffer(buffer_of(s->device, NULL, N * 4)), agpu_arg_u32(N - 1)};
  CHECK_OK(launch(s, "off_by_one", one, 3, GLOBAL, results[0], N * 4));
  agpu_arg two[] = {agpu_arg_buffer(buffer_of(s->device, in_range, sizeof in_range)),
                    agpu_arg_buffer(buffer_of(s->device, a_in, N * 4)),
                    agpu_arg_buffer(buffer_of(s->device, NULL, N * 4)), agpu_arg_u32(N)};
  CHECK_OK(launch(s, "computed_read", two, 4, GLOBAL, results[1], N * 4));
  agpu_arg three[] = {agpu_arg_buffer(buffer_of(s->device, a_in, GLOBAL * 4)),
                      agpu_arg_buffer(buffer_of(s->device, NULL, GLOBAL * 4)),
                      agpu_arg_u32(GLOBAL)};
  CHECK_OK(launch(s, "local_read", three, 3, GLOBAL, results[2], GLOBAL * 4));
  agpu_arg four[] = {agpu_arg_buffer(buffer_of(s->device, NULL, N * 4)), agpu_arg_u32(N / 4 - 1)};
  CHECK_OK(launch(s, "cast_store", four, 2, 256, results[3], N * 4));
  agpu_arg five[] = {agpu_arg_local(128 * 4), agpu_arg_buffer(buffer_of(s->device, NULL, 256 * 4)),
                     agpu_arg_u32(1)};
  CHECK_OK(launch(s, "local_arg", five, 3, 256, results[4], 256 * 4));
  release_args(one, 3);
  release_args(two, 4);
  release_args(three, 3);
  release_args(four, 2);
  release_args(five, 3);
}

static void in_bounds_on(const char *selector) {
  static float checked[5][GLOBAL], plain[5][GLOBAL];
  memset(checked, 0, sizeof checked);
  memset(plain, 0, sizeof plain);
  setup s;
  if (!build(&s, selector, "-DSTEP=0 " AGPU_PROGRAM_CHECK_BOUNDS)) {
    if (!s.device) SKIP("no %s", selector);
    return;
  }
  in_bounds_results(&s, checked);
  agpu_program_release(s.program);
  if (!build(&s, selector, "-DSTEP=0")) return;
  in_bounds_results(&s, plain);
  agpu_program_release(s.program);
  CHECK(memcmp(checked, plain, sizeof checked) == 0);
  int wrong = 0; /* and they are right */
  for (int i = 0; i < N - 1; i++) wrong += checked[0][i] != a_in[i] * 2.0f;
  for (int i = 0; i < N; i++) wrong += checked[1][i] != a_in[idx_in[i] % N];
  for (int i = 0; i < GLOBAL; i++) wrong += checked[2][i] != a_in[i];
  for (int i = 0; i < 256; i++) wrong += checked[4][i] != (float)(i % LOCAL);
  for (int i = 0; i < N; i++) wrong += checked[3][i] != (i % 4 == 3 ? (float)(i / 4) : i % 4 + 1);
  CHECK(wrong == 0);
}

static void cpu_in_bounds(void) {
  in_bounds_on("cpu:0");
}
static void opencl_in_bounds(void) {
  in_bounds_on("opencl:0");
}
static void vulkan_in_bounds(void) {
  in_bounds_on("vulkan:0");
}

/* An event's wait and a blocking read report the fault too; the next
 * launch starts with a clean record. */
static void reported_by_wait_and_read(void) {
  setup s;
  if (!build(&s, "cpu:0", "-DSTEP=1 " AGPU_PROGRAM_CHECK_BOUNDS)) {
    if (!s.device) SKIP("no cpu:0");
    return;
  }
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_queue_create(s.device, &queue));
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(s.program, "off_by_one", &kernel));
  agpu_buffer *a = buffer_of(s.device, a_in, N * 4), *o = buffer_of(s.device, NULL, N * 4);
  size_t global = GLOBAL, local = LOCAL;
  agpu_arg bad[] = {agpu_arg_buffer(a), agpu_arg_buffer(o), agpu_arg_u32(N)};
  agpu_arg good[] = {agpu_arg_buffer(a), agpu_arg_buffer(o), agpu_arg_u32(N - 1)};
  agpu_event *event = NULL;
  CHECK_OK(agpu_launch(queue, kernel, 1, &global, &local, 3, bad));
  CHECK_OK(agpu_event_record(queue, &event));
  CHECK_STATUS(agpu_event_wait(event), AGPU_ERROR_KERNEL_FAULT);
  CHECK_MESSAGE("agpu_event_wait: kernel 'off_by_one' wrote out of bounds");
  agpu_event_release(event);
  float out[4];
  CHECK_OK(agpu_launch(queue, kernel, 1, &global, &local, 3, bad));
  CHECK_STATUS(agpu_buffer_read(queue, o, 0, sizeof out, out), AGPU_ERROR_KERNEL_FAULT);
  CHECK_MESSAGE("agpu_buffer_read: kernel 'off_by_one' wrote out of bounds");
  CHECK_OK(agpu_launch(queue, kernel, 1, &global, &local, 3, good));
  CHECK_OK(agpu_queue_finish(queue));
  agpu_buffer_release(a);
  agpu_buffer_release(o);
  agpu_kernel_release(kernel);
  agpu_queue_release(queue);
  agpu_program_release(s.program);
}

/* ANYGPU_CHECK=bounds checks a program built without the option. */
static void environment_turns_it_on(void) {
  setenv("ANYGPU_CHECK", "bounds", 1);
  setup s;
  bool built = build(&s, "vulkan:0", "-DSTEP=1");
  unsetenv("ANYGPU_CHECK");
  if (!built) {
    if (!s.device) SKIP("no vulkan:0");
    return;
  }
  off_by_one(&s, NULL);
  agpu_program_release(s.program);
}

/* Accesses in helper functions are checked against the kernel's buffers
 * their pointer arguments came from, through pointer arithmetic. */
static void helper_on(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s", selector);
  static const char helper[] =
      "void put(__global float *p, int i, float v) { p[i] = v; }\n"
      "float get(__global const float *p, int i) { return p[i]; }\n"
      "__kernel void k(__global const float *a, __global float *out, int shift) {\n"
      "  int i = get_global_id(0);\n"
      "  put(out + 1, i - 1, get(a, i + shift) * 2.0f);\n"
      "}\n";
  agpu_program_desc desc = {
      .source = helper, .source_name = "helper.cl", .options = AGPU_PROGRAM_CHECK_BOUNDS};
  setup s = {device, NULL};
  CHECK_OK(agpu_program_build(device, &desc, &s.program));
  if (!s.program) return;
  static float out[GLOBAL];
  agpu_arg args[] = {agpu_arg_buffer(buffer_of(device, a_in, GLOBAL * 4)),
                     agpu_arg_buffer(buffer_of(device, NULL, GLOBAL * 4)), agpu_arg_i32(0)};
  CHECK_OK(launch(&s, "k", args, 3, GLOBAL, out, sizeof out));
  int wrong = 0;
  for (int i = 0; i < GLOBAL; i++) wrong += out[i] != a_in[i] * 2.0f;
  CHECK(wrong == 0);
  args[2] = agpu_arg_i32(1); /* the last work-item reads a[1024] */
  CHECK_STATUS(launch(&s, "k", args, 3, GLOBAL, out, sizeof out), AGPU_ERROR_KERNEL_FAULT);
  CHECK_SAID("kernel 'k' read out of bounds of parameter 'a' (argument 0) at helper.cl:2:");
  CHECK_SAID("(in 'get'): element 1024 (byte offset 4096, 4 bytes) of 4096 bytes");
  CHECK_SAID("by work-item (1023,0,0)");
  release_args(args, 3);
  agpu_program_release(s.program);
}

static void cpu_helper(void) {
  helper_on("cpu:0");
}
static void opencl_helper(void) {
  helper_on("opencl:0");
}
static void vulkan_helper(void) {
  helper_on("vulkan:0");
}

/* What the pass cannot check is said in the build log. */
static void build_log_names_what_is_not_checked(void) {
  agpu_device *device = agpu_test_device("cpu:0");
  if (!device) SKIP("no cpu:0");
  static const char two[] =
      "__kernel void k(__global float *a, __global float *b, int which) {\n"
      "  __global float *p = a;\n"
      "  if (which) p = b;\n"
      "  p[get_global_id(0)] = 1.0f;\n"
      "}\n";
  agpu_program_desc desc = {
      .source = two, .source_name = "two.cl", .options = AGPU_PROGRAM_CHECK_BOUNDS};
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;
  const char *log = agpu_program_build_log(program);
  CHECK(strstr(log,
               "two.cl:4:23: warning: bounds checks do not cover 1 access here and "
               "elsewhere (the first: a store through a pointer whose buffer the pass "
               "cannot trace)") != NULL);
  if (!strstr(log, "do not cover")) printf("  log: %s\n", log);
  agpu_program_release(program);
}

int main(void) {
  uint64_t seed = 21;
  for (int i = 0; i < GLOBAL; i++) a_in[i] = agpu_test_randf(&seed, -10.0f, 10.0f);
  for (int i = 0; i < N; i++) /* about one index in 20 past the end */
    idx_in[i] = (int)(agpu_test_rand(&seed) % (N + N / 20));
  RUN(cpu_planted);
  RUN(opencl_planted);
  RUN(vulkan_planted);
  RUN(cpu_in_bounds);
  RUN(opencl_in_bounds);
  RUN(vulkan_in_bounds);
  RUN(reported_by_wait_and_read);
  RUN(environment_turns_it_on);
  RUN(cpu_helper);
  RUN(opencl_helper);
  RUN(vulkan_helper);
  RUN(build_log_names_what_is_not_checked);
  return agpu_test_finish();
}
