// SPDX-License-Identifier: Apache-2.0
/* One kernel a target cannot express is refused alone (issue 18): on
 * vulkan:0 a program whose one kernel reads a float through a private
 * uint pointer (GLSL has no such casts) builds, its other kernel runs right
 * (random inputs, poisoned output, every element checked, a size that is
 * not a multiple of the work-group size), agpu_kernel_create of the refused
 * one says why, and the build log warns of it. A program whose every kernel
 * is refused fails to build as before. On cpu:0 a helper the C target
 * cannot translate refuses only the kernels that reach it. */
#include <ftw.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "agpu_test.h"

static const char both[] =
    "__kernel void bits(__global const float *in, __global uint *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  float f = in[i];\n"
    "  uint *p = (uint *)&f;\n"
    "  if (i < n) out[i] = *p;\n"
    "}\n"
    "__kernel void twice(__global const float *in, __global float *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = 2.0f * in[i] + 0.5f;\n"
    "}\n";

/* kernel(in, out, values...) over 1024 work-items in groups of 64: `bytes`
 * of `in` and of `out` in, `out` back. */
static void run_in_out(agpu_device *device, agpu_kernel *kernel, const void *in, void *out,
                       size_t bytes, const agpu_arg *values, int value_count) {
  agpu_queue *queue = NULL;
  agpu_buffer *a = NULL, *b = NULL;
  CHECK_OK(agpu_queue_create(device, &queue));
  CHECK_OK(agpu_buffer_create(device, bytes, 0, &a));
  CHECK_OK(agpu_buffer_create(device, bytes, 0, &b));
  CHECK_OK(agpu_buffer_write(queue, a, 0, bytes, in));
  CHECK_OK(agpu_buffer_write(queue, b, 0, bytes, out));
  agpu_arg args[4] = {agpu_arg_buffer(a), agpu_arg_buffer(b)};
  for (int i = 0; i < value_count && i < 2; i++) args[2 + i] = values[i];
  size_t global[3] = {1024, 1, 1}, local[3] = {64, 1, 1};
  CHECK_OK(agpu_launch(queue, kernel, 1, global, local, 2 + (uint32_t)value_count, args));
  CHECK_OK(agpu_buffer_read(queue, b, 0, bytes, out));
  agpu_buffer_release(a);
  agpu_buffer_release(b);
  agpu_queue_release(queue);
}

static void the_other_kernel_builds_and_runs(void) {
  REQUIRE_DEVICE(device, "vulkan");
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = both, .source_name = "both.cl"};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;
  const char *log = agpu_program_build_log(program);
  CHECK(strstr(log, "warning: kernel 'bits' is not built for vulkan:0") != NULL);
  CHECK(strstr(log, "both.cl:4:") != NULL);
  agpu_kernel *bits = NULL, *twice = NULL;
  CHECK_STATUS(agpu_kernel_create(program, "bits", &bits), AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("kernel 'bits' was not built for vulkan:0 (the program's other kernels were)");
  CHECK_MESSAGE("a pointer into private memory, to a pointer to another element type");
  CHECK(bits == NULL);
  CHECK_STATUS(agpu_kernel_create(program, "nothere", &bits), AGPU_ERROR_NOT_FOUND);
  CHECK_OK(agpu_kernel_create(program, "twice", &twice));
  enum { N = 1001 };
  static float in[N], out[N];
  uint64_t seed = 77;
  for (int i = 0; i < N; i++) {
    in[i] = agpu_test_randf(&seed, -50.0f, 50.0f);
    out[i] = NAN;
  }
  agpu_arg n = agpu_arg_u32(N);
  run_in_out(device, twice, in, out, sizeof in, &n, 1);
  int wrong = 0;
  for (int i = 0; i < N; i++)
    if (fabs((double)out[i] - (2.0 * in[i] + 0.5)) > 1e-5 * (fabs(2.0 * in[i]) + 1.0)) wrong++;
  CHECK(wrong == 0);
  if (twice) agpu_kernel_release(twice);
  agpu_program_release(program);
}

/* A union GLSL cannot declare refuses the kernels that use it, not the
 * program's others. */
static void a_union_refuses_only_its_kernels(void) {
  REQUIRE_DEVICE(device, "vulkan");
  const char *source =
      "typedef union { float4 f; uint u[4]; } pun;\n"
      "__kernel void bits(__global const float *in, __global uint *out) {\n"
      "  pun p; p.f = (float4)(in[get_global_id(0)]); out[get_global_id(0)] = p.u[1];\n"
      "}\n"
      "__kernel void copy(__global const float *in, __global float *out) {\n"
      "  out[get_global_id(0)] = in[get_global_id(0)];\n"
      "}\n";
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "pun.cl"};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;
  agpu_kernel *kernel = NULL;
  CHECK_STATUS(agpu_kernel_create(program, "bits", &kernel), AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("pun.cl:3:7: error: the GLSL target does not support union 'pun'");
  CHECK_OK(agpu_kernel_create(program, "copy", &kernel));
  if (kernel) agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void a_program_of_refused_kernels_fails(void) {
  REQUIRE_DEVICE(device, "vulkan");
  const char *bits_only = strstr(both, "__kernel void twice");
  char source[1024];
  snprintf(source, sizeof source, "%.*s", (int)(bits_only - both), both);
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "bits.cl"};
  CHECK_STATUS(agpu_program_build(device, &desc, &program), AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("the GLSL emitter cannot translate this kernel (kernel 'bits') for vulkan:0");
  CHECK(program == NULL);
}

/* More errors than the translator reports stop the emitter, not the
 * process (an emitter called from the core had no way out: abort). */
static void too_many_emitter_errors_are_an_error(void) {
  REQUIRE_DEVICE(device, "vulkan");
  char source[16384];
  int used = snprintf(source, sizeof source,
                      "__kernel void k(__global float *in, __global uint *out) {\n"
                      "  float f = in[0];\n");
  for (int i = 0; i < 150; i++)
    used += snprintf(source + used, sizeof source - (size_t)used,
                     "  uint *p%d = (uint *)&f; out[%d] = *p%d;\n", i, i, i);
  snprintf(source + used, sizeof source - (size_t)used, "}\n");
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "many.cl"};
  CHECK_STATUS(agpu_program_build(device, &desc, &program), AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("too many errors");
  CHECK(program == NULL);
}

static const char cpu_pair[] =
    "__kernel void divergent(__global float *out, __local float *tmp, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  for (uint k = 0; k < i; k++) {\n"
    "    tmp[get_local_id(0)] = (float)k;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (tmp[0] > 3.0f) break;\n"
    "  }\n"
    "  out[i] = tmp[0];\n"
    "}\n"
    "__kernel void twice(__global const float *in, __global float *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = 2.0f * in[i] + 0.5f;\n"
    "}\n";

AGPU_API agpu_status agpu_cpu_program_digest(const agpu_program *program, char hex[65],
                                             bool *from_cache);

/* On cpu:0 the C target refuses a barrier in a loop whose trip count
 * differs between the work-items and that a break leaves (masks cannot
 * follow it): that kernel alone, on the first build and on the second, from
 * the cache. */
static void cpu_refuses_one_kernel_cold_and_warm(void) {
  REQUIRE_DEVICE(device, "cpu");
  for (int round = 0; round < 2; round++) {
    agpu_program *program = NULL;
    agpu_program_desc desc = {.source = cpu_pair, .source_name = "pair.cl"};
    CHECK_OK(agpu_program_build(device, &desc, &program));
    if (!program) return;
    char hex[65];
    bool from_cache = false;
    CHECK_OK(agpu_cpu_program_digest(program, hex, &from_cache));
    CHECK(from_cache == (round == 1));
    CHECK(strstr(agpu_program_build_log(program), "kernel 'divergent' is not built for cpu:0"));
    agpu_kernel *kernel = NULL;
    CHECK_STATUS(agpu_kernel_create(program, "divergent", &kernel), AGPU_ERROR_BUILD_FAILED);
    CHECK_MESSAGE("pair.cl:3:");
    CHECK_MESSAGE("may differ between the work-items of a group: 'i' differs");
    CHECK_OK(agpu_kernel_create(program, "twice", &kernel));
    if (kernel) agpu_kernel_release(kernel);
    agpu_program_release(program);
  }
}

/* A helper the C target cannot translate (++ of a two-component swizzle)
 * refuses the kernel that reaches it through a second helper, not the
 * program: the other kernel and its own helper build and run. */
static const char cpu_helpers[] =
    "int2 inner(int2 v) { ++v.xy; return v; }\n"
    "int2 outer(int2 v) { return inner(v) * 2; }\n"
    "int scale(int x, int k) { return x * k + 3; }\n"
    "__kernel void bumped(__global int2 *p) { p[get_global_id(0)] = outer(p[get_global_id(0)]); }\n"
    "__kernel void scaled(__global const int *in, __global int *out, int k, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = scale(in[i], k);\n"
    "}\n";

/* scaled on random ints, a size that is not a multiple of the group's:
 * every element right. */
static void run_scaled(agpu_device *device, agpu_kernel *scaled) {
  enum { N = 1001, K = -7 };
  static int32_t in[N], out[N];
  uint64_t seed = 18;
  for (int i = 0; i < N; i++) {
    in[i] = (int32_t)agpu_test_randf(&seed, -100000.0f, 100000.0f);
    out[i] = INT32_MIN;
  }
  agpu_arg values[] = {agpu_arg_i32(K), agpu_arg_u32(N)};
  run_in_out(device, scaled, in, out, sizeof in, values, 2);
  int wrong = 0;
  for (int i = 0; i < N; i++)
    if (out[i] != in[i] * K + 3 && wrong++ < 3)
      printf("  out[%d] = %d, not %d\n", i, out[i], in[i] * K + 3);
  CHECK(wrong == 0);
}

static void cpu_refuses_the_kernels_of_a_helper(void) {
  REQUIRE_DEVICE(device, "cpu");
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = cpu_helpers, .source_name = "helpers.cl"};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;
  CHECK(strstr(agpu_program_build_log(program), "kernel 'bumped' is not built for cpu:0"));
  agpu_kernel *kernel = NULL;
  CHECK_STATUS(agpu_kernel_create(program, "bumped", &kernel), AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE(
      "helpers.cl:4:15: error: kernel 'bumped' calls 'outer', which calls 'inner', "
      "which the C target cannot translate: the kernel is left out");
  CHECK_MESSAGE(
      "helpers.cl:1:22: error: ++/-- of a multi-component swizzle is not supported by "
      "the C target");
  CHECK_OK(agpu_kernel_create(program, "scaled", &kernel));
  if (kernel) run_scaled(device, kernel);
  if (kernel) agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

int main(void) {
  /* a cache of this run's own, so that the first build compiles */
  char cache[] = "/tmp/agpu-refusal-XXXXXX";
  if (mkdtemp(cache)) setenv("ANYGPU_CACHE_DIR", cache, 1);
  RUN(the_other_kernel_builds_and_runs);
  RUN(a_program_of_refused_kernels_fails);
  RUN(a_union_refuses_only_its_kernels);
  RUN(too_many_emitter_errors_are_an_error);
  RUN(cpu_refuses_one_kernel_cold_and_warm);
  RUN(cpu_refuses_the_kernels_of_a_helper);
  nftw(cache, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
  return agpu_test_finish();
}
