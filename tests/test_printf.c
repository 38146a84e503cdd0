// SPDX-License-Identifier: Apache-2.0
/* printf in kernels (issue 21), on every device here: the same lines in
 * the documented order (by work-group, then work-item, then program order)
 * as the C library formats them on the host from the same random inputs,
 * with integers of every width, chars, string literals, floats, vectors and
 * doubles, from a kernel and from a helper it calls, around barriers; a
 * flood ends with the dropped-lines notice; the output comes with a finish,
 * an event wait and a blocking read; a malformed call is a build error at
 * its line and column. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "agpu_test.h"

static const char source[] =
    "void note(int i, float x) {\n"
    "  printf(\"note %d: %8.3f|%-6d|%+.2e\\n\", i, x, i * 7, x * 1000.0f);\n"
    "}\n"
    "__kernel void show(__global const float *in, __global const int *ints, __global float *out,\n"
    "                   uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) {\n"
    "    float4 v = (float4)(in[i], -in[i], in[i] * 0.5f, 1.0f);\n"
    "    printf(\"item %u: %d %x %o %c %s %g %v4f %v2hd %ld %%\\n\", i, ints[i], ints[i],\n"
    "           (uint)ints[i] & 0x1ffu, 'a' + (int)(i % 26u), \"lit\", in[i], v,\n"
    "           (short2)((short)i, (short)-(int)i), (long)ints[i] * 100000000000L);\n"
    "    note((int)i, in[i]);\n"
    "    out[i] = in[i] * 2.0f;\n"
    "  }\n"
    "}\n"
    "__kernel void ordered(__global int *out) {\n"
    "  __local int s[4];\n"
    "  int l = get_local_id(0);\n"
    "  s[l] = l * 10 + (int)get_group_id(0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  printf(\"g%u l%d sees %d\\n\", (uint)get_group_id(0), l, s[(l + 1) % 4]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  printf(\"second %d\\n\", l);\n"
    "  out[get_global_id(0)] = l;\n"
    "}\n"
    "__kernel void flood(__global int *out) {\n"
    "  int i = get_global_id(0);\n"
    "  for (int k = 0; k < 64; k++) printf(\"%d %d\\n\", i, k);\n"
    "  out[i] = i;\n"
    "}\n";

static const char doubles[] =
    "__kernel void wide(__global const double *in, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) printf(\"%u %.17g %a %lu\\n\", i, in[i] / 3.0, in[i], (ulong)i << 40);\n"
    "}\n";

typedef struct captured {
  char *text;
  size_t length, capacity;
  int calls;
} captured;

static void capture(const char *text, size_t length, void *data) {
  captured *c = data;
  if (c->length + length + 1 > c->capacity) {
    c->capacity = (c->length + length + 1) * 2;
    c->text = realloc(c->text, c->capacity);
  }
  memcpy(c->text + c->length, text, length);
  c->length += length;
  c->text[c->length] = 0;
  c->calls++;
}

static void appendf(captured *c, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void appendf(captured *c, const char *format, ...) {
  char line[512];
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  capture(line, (size_t)n, c);
  c->calls--;
}

static captured output;

static void reset(captured *c) {
  c->length = 0;
  c->calls = 0;
  if (c->text) c->text[0] = 0;
}

/* The first line where two texts differ, for the failure message. */
static void report_difference(const char *want, const char *got) {
  int line = 1;
  const char *w = want, *g = got;
  while (*w && *w == *g) {
    if (*w == '\n') line++;
    w++, g++;
  }
  const char *we = strchr(w, '\n'), *ge = strchr(g, '\n');
  printf("  line %d differs:\n  want: %.*s\n  got:  %.*s\n", line, we ? (int)(we - w) : 80, w,
         ge ? (int)(ge - g) : 80, g);
}

enum { N = 1000 };
static float in[N];
static int ints[N];

static void expected_show(captured *c) {
  for (int i = 0; i < N; i++) {
    float x = in[i];
    appendf(c, "item %u: %d %x %o %c %s %g %f,%f,%f,%f %hd,%hd %lld %%\n", (unsigned)i, ints[i],
            (unsigned)ints[i], (unsigned)ints[i] & 0x1ffu, 'a' + i % 26, "lit", (double)x,
            (double)x, (double)-x, (double)(x * 0.5f), 1.0, (short)i, (short)-i,
            (long long)ints[i] * 100000000000LL);
    appendf(c, "note %d: %8.3f|%-6d|%+.2e\n", i, (double)x, i * 7, (double)(x * 1000.0f));
  }
}

static agpu_kernel *build_kernel(agpu_device *device, const char *text, const char *name,
                                 agpu_program **program) {
  agpu_program_desc desc = {.source = text, .source_name = "printf.cl"};
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_program_build(device, &desc, program));
  if (*program) CHECK_OK(agpu_kernel_create(*program, name, &kernel));
  return kernel;
}

static void same_lines_on(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s", selector);
  agpu_program *program = NULL;
  agpu_kernel *kernel = build_kernel(device, source, "show", &program);
  if (!kernel) return;
  agpu_kernel_info info;
  CHECK_OK(agpu_kernel_get_info(kernel, &info));
  CHECK(info.param_count == 4); /* the printf buffer is the core's, not the caller's */
  agpu_buffer *a = NULL, *b = NULL, *o = NULL;
  CHECK_OK(agpu_buffer_create(device, sizeof in, 0, &a));
  CHECK_OK(agpu_buffer_create(device, sizeof ints, 0, &b));
  CHECK_OK(agpu_buffer_create(device, sizeof in, 0, &o));
  CHECK_OK(agpu_buffer_write(NULL, a, 0, sizeof in, in));
  CHECK_OK(agpu_buffer_write(NULL, b, 0, sizeof ints, ints));
  agpu_arg args[] = {agpu_arg_buffer(a), agpu_arg_buffer(b), agpu_arg_buffer(o), agpu_arg_u32(N)};
  size_t global = 1024, local = 64; /* the last 24 work-items print nothing */
  reset(&output);
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 4, args));
  CHECK_OK(agpu_queue_finish(NULL));
  captured want = {0};
  expected_show(&want);
  CHECK(output.calls == 1);
  CHECK(output.text && strcmp(output.text, want.text) == 0);
  if (output.text && strcmp(output.text, want.text) != 0) report_difference(want.text, output.text);
  static float doubled[N];
  CHECK_OK(agpu_buffer_read(NULL, o, 0, sizeof doubled, doubled));
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += doubled[i] != in[i] * 2.0f;
  CHECK(wrong == 0);
  free(want.text);
  agpu_buffer_release(a);
  agpu_buffer_release(b);
  agpu_buffer_release(o);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void cpu_lines(void) {
  same_lines_on("cpu:0");
}
static void opencl_lines(void) {
  same_lines_on("opencl:0");
}
static void vulkan_lines(void) {
  same_lines_on("vulkan:0");
}

/* Around barriers; reported by an event wait, then by a blocking read. */
static void ordered_on(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s", selector);
  agpu_program *program = NULL;
  agpu_kernel *kernel = build_kernel(device, source, "ordered", &program);
  if (!kernel) return;
  agpu_queue *queue = NULL;
  agpu_buffer *o = NULL;
  CHECK_OK(agpu_queue_create(device, &queue));
  CHECK_OK(agpu_buffer_create(device, 12 * sizeof(int), 0, &o));
  agpu_arg args[] = {agpu_arg_buffer(o)};
  size_t global = 12, local = 4;
  captured want = {0};
  for (unsigned g = 0; g < 3; g++)
    for (int l = 0; l < 4; l++) {
      appendf(&want, "g%u l%d sees %d\n", g, l, ((l + 1) % 4) * 10 + (int)g);
      appendf(&want, "second %d\n", l);
    }
  reset(&output);
  agpu_event *event = NULL;
  CHECK_OK(agpu_launch(queue, kernel, 1, &global, &local, 1, args));
  CHECK_OK(agpu_event_record(queue, &event));
  CHECK_OK(agpu_event_wait(event));
  CHECK(output.text && strcmp(output.text, want.text) == 0);
  if (output.text && strcmp(output.text, want.text) != 0) report_difference(want.text, output.text);
  reset(&output);
  int out[12];
  CHECK_OK(agpu_launch(queue, kernel, 1, &global, &local, 1, args));
  CHECK_OK(agpu_buffer_read(queue, o, 0, sizeof out, out));
  CHECK(output.text && strcmp(output.text, want.text) == 0);
  CHECK_OK(agpu_queue_finish(queue)); /* nothing more */
  CHECK(output.calls == 1);
  free(want.text);
  agpu_event_release(event);
  agpu_buffer_release(o);
  agpu_queue_release(queue);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void cpu_ordered(void) {
  ordered_on("cpu:0");
}
static void opencl_ordered(void) {
  ordered_on("opencl:0");
}
static void vulkan_ordered(void) {
  ordered_on("vulkan:0");
}

/* 65,536 lines into a 64 KiB buffer: what fits, in order, then the notice. */
static void flood_on(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s", selector);
  agpu_program *program = NULL;
  agpu_kernel *kernel = build_kernel(device, source, "flood", &program);
  if (!kernel) return;
  agpu_buffer *o = NULL;
  CHECK_OK(agpu_buffer_create(device, 1024 * sizeof(int), 0, &o));
  agpu_arg args[] = {agpu_arg_buffer(o)};
  size_t global = 1024, local = 64;
  setenv("ANYGPU_PRINTF_BUFFER", "65536", 1);
  reset(&output);
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 1, args));
  unsetenv("ANYGPU_PRINTF_BUFFER");
  CHECK_OK(agpu_queue_finish(NULL));
  long lines = 0, dropped = -1, last_i = -1, last_k = -1;
  bool in_order = true;
  for (char *line = output.text; line && *line;) {
    char *end = strchr(line, '\n');
    if (!end) break;
    long i, k;
    if (sscanf(line, "%ld %ld", &i, &k) == 2 && dropped < 0) {
      if (i < last_i || (i == last_i && k <= last_k)) in_order = false;
      last_i = i, last_k = k;
      lines++;
    } else {
      CHECK(sscanf(line, "anygpu: kernel 'flood': %ld printf lines dropped", &dropped) == 1);
    }
    line = end + 1;
  }
  /* (65536 / 4 - 4 header words) / 6 words a record */
  CHECK(lines == 2730);
  CHECK(dropped == 65536 - lines);
  CHECK(in_order);
  agpu_buffer_release(o);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void cpu_flood(void) {
  flood_on("cpu:0");
}
static void opencl_flood(void) {
  flood_on("opencl:0");
}
static void vulkan_flood(void) {
  flood_on("vulkan:0");
}

static void doubles_everywhere(void) {
  const char *selectors[] = {"cpu:0", "opencl:0", "vulkan:0"};
  enum { M = 40 };
  double values[M];
  uint64_t seed = 99;
  for (int i = 0; i < M; i++) values[i] = agpu_test_randf(&seed, -1e3f, 1e3f) * 1.000000001;
  captured want = {0};
  for (unsigned i = 0; i < M; i++)
    appendf(&want, "%u %.17g %a %llu\n", i, values[i] / 3.0, values[i],
            (unsigned long long)i << 40);
  int ran = 0;
  for (int d = 0; d < 3; d++) {
    agpu_device *device = agpu_test_device(selectors[d]);
    agpu_device_info di;
    if (!device || agpu_device_get_info(device, &di) || !di.fp64) continue;
    agpu_program *program = NULL;
    agpu_kernel *kernel = build_kernel(device, doubles, "wide", &program);
    if (!kernel) continue;
    agpu_buffer *a = NULL;
    CHECK_OK(agpu_buffer_create(device, sizeof values, 0, &a));
    CHECK_OK(agpu_buffer_write(NULL, a, 0, sizeof values, values));
    agpu_arg args[] = {agpu_arg_buffer(a), agpu_arg_u32(M)};
    size_t global = 48, local = 16;
    reset(&output);
    CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 2, args));
    CHECK_OK(agpu_queue_finish(NULL));
    CHECK(output.text && strcmp(output.text, want.text) == 0);
    if (output.text && strcmp(output.text, want.text) != 0)
      report_difference(want.text, output.text);
    ran++;
    agpu_buffer_release(a);
    agpu_kernel_release(kernel);
    agpu_program_release(program);
  }
  free(want.text);
  if (!ran) SKIP("no device with fp64");
}

static void refused(const char *body, const char *message) {
  agpu_device *device = agpu_test_device("cpu:0");
  char text[1024];
  snprintf(text, sizeof text, "__kernel void k(__global float *p, int n) {\n  %s\n}\n", body);
  agpu_program_desc desc = {.source = text, .source_name = "bad.cl"};
  agpu_program *program = NULL;
  CHECK_STATUS(agpu_program_build(device, &desc, &program), AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE("bad.cl:2:");
  CHECK_MESSAGE(message);
}

static void malformed_calls_are_build_errors(void) {
  if (!agpu_test_device("cpu:0")) SKIP("no cpu:0");
  refused("printf(\"%d\\n\", p[0]);", "printf's '%d' takes an integer argument, got 'float'");
  refused("printf(\"%f %f\\n\", p[0]);", "printf: '%f' has no argument (1 given)");
  refused("printf(\"%f\\n\", p[0], n);", "printf: 2 arguments given, the format converts 1");
  refused("printf(\"%p\\n\", p);", "'%p' is not a conversion OpenCL C's printf has");
  refused("printf(\"%*d\\n\", n, n);", "'*' widths and precisions are not supported");
  refused("printf(\"%s\\n\", n);", "printf's '%s' takes a string literal");
  refused("printf(\"%v4f\\n\", p[0]);", "takes a floating-point vector of 4 components");
  refused("int r = printf(\"x\");", "printf's result is not supported");
}

int main(void) {
  uint64_t seed = 2026;
  for (int i = 0; i < N; i++) {
    in[i] = agpu_test_randf(&seed, -100.0f, 100.0f);
    ints[i] = (int)(agpu_test_rand(&seed) % 2000001) - 1000000;
  }
  CHECK_OK(agpu_set_printf_callback(capture, &output));
  RUN(cpu_lines);
  RUN(opencl_lines);
  RUN(vulkan_lines);
  RUN(cpu_ordered);
  RUN(opencl_ordered);
  RUN(vulkan_ordered);
  RUN(cpu_flood);
  RUN(opencl_flood);
  RUN(vulkan_flood);
  RUN(doubles_everywhere);
  RUN(malformed_calls_are_build_errors);
  CHECK_OK(agpu_set_printf_callback(NULL, NULL));
  free(output.text);
  return agpu_test_finish();
}
