// SPDX-License-Identifier: Apache-2.0
/* OpenCL kernels: building, signatures, launches checked element by element
 * against a double-precision reference, launch validation and timing. */
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "agpu_cache.h"
#include "agpu_test.h"

static const char kernels_source[] =
    "__kernel void saxpy(uint n, float a, __global const float *x, __global const float *y,\n"
    "                    __global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) out[i] = a * x[i] + y[i];\n"
    "}\n"
    "\n"
    "/* Each work-group sums (x * s.x + s.y) over its items; the sum is then\n"
    " * scaled to sum * s.z + s.w. */\n"
    "__kernel void group_sum(__global const float *in, __global float *out,\n"
    "                        __local float *scratch, float4 s) {\n"
    "  size_t lid = get_local_id(0), size = get_local_size(0);\n"
    "  scratch[lid] = in[get_global_id(0)] * s.x + s.y;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t step = size / 2; step > 0; step /= 2) {\n"
    "    if (lid < step) scratch[lid] += scratch[lid + step];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = scratch[0] * s.z + s.w;\n"
    "}\n"
    "\n"
    "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
    "void fixed_group(__global int *out) { out[get_global_id(0)] = (int)get_local_size(0); }\n"
    "\n"
    "/* Enough work to time: a few hundred multiply-adds per element. */\n"
    "__kernel void busy(__global float *data, int rounds) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float v = data[i];\n"
    "  for (int r = 0; r < rounds; r++) v = v * 0.999f + 0.001f;\n"
    "  data[i] = v;\n"
    "}\n";

/* One parameter of every by-value kind whose size the backend must know. */
static const char signature_source[] =
    "typedef struct { float a; int b; } pair_t;\n"
    "#ifdef cl_khr_fp64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#define DOUBLE_PARAMS , double d, double3 d3, double16 d16\n"
    "#else\n"
    "#define DOUBLE_PARAMS\n"
    "#endif\n"
    "__kernel void signature(char c, uchar uc, short s, ushort us, int i, uint ui, long l,\n"
    "                        ulong ul, float f, float3 f3, float4 f4, int2 i2, uchar16 uc16,\n"
    "                        pair_t pair, __constant float *table, __local int *scratch,\n"
    "                        __global const uint *in, __global float *out DOUBLE_PARAMS) {\n"
    "  if (get_global_id(0) == 0) out[0] = f + table[0] + (float)in[0] + (float)scratch[0];\n"
    "}\n";

static agpu_program *build(agpu_device *device, const char *source, const char *name) {
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = name};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  return program;
}

static agpu_kernel *kernel_of(agpu_program *program, const char *name) {
  agpu_kernel *kernel = NULL;
  if (program) CHECK_OK(agpu_kernel_create(program, name, &kernel));
  return kernel;
}

static float *random_floats(size_t count, uint64_t *seed) {
  float *values = malloc(count * sizeof *values);
  for (size_t i = 0; values && i < count; i++) values[i] = agpu_test_randf(seed, -10.0f, 10.0f);
  return values;
}

static agpu_buffer *buffer_with(agpu_device *device, const void *data, size_t bytes) {
  agpu_buffer *buffer = NULL;
  CHECK_OK(agpu_buffer_create(device, bytes, 0, &buffer));
  if (buffer && data) CHECK_OK(agpu_buffer_write(NULL, buffer, 0, bytes, data));
  return buffer;
}

/* A float computed as a * x + y, in one fused or two rounded steps, is within
 * two roundings of the exact value: |error| <= 2^-23 * (|a x| + |y|). */
static bool saxpy_close(float got, double a, double x, double y) {
  double exact = a * x + y;
  return fabs((double)got - exact) <= ldexp(fabs(a * x) + fabs(y), -23) + 1e-30;
}

static void saxpy_covers_a_ragged_range(void) {
  REQUIRE_DEVICE(device, "opencl");
  const uint32_t n = 1000003;
  const size_t local = 64, global = (n + local - 1) / local * local;
  const size_t padded = global + 5; /* room past n that the kernel must not touch */
  uint64_t seed = 21;
  float *x = random_floats(n, &seed), *y = random_floats(n, &seed);
  float *out = malloc(padded * sizeof *out);
  const float a = 2.71828f;
  memset(out, 0xFF, padded * sizeof *out); /* a NaN poison */
  agpu_program *program = build(device, kernels_source, "kernels.cl");
  agpu_kernel *saxpy = kernel_of(program, "saxpy");
  agpu_buffer *bx = buffer_with(device, x, n * sizeof *x), *by = buffer_with(device, y, n * 4);
  agpu_buffer *bout = buffer_with(device, out, padded * sizeof *out);
  if (!saxpy || !bx || !by || !bout) return;
  agpu_arg args[] = {agpu_arg_u32(n), agpu_arg_f32(a), agpu_arg_buffer(bx), agpu_arg_buffer(by),
                     agpu_arg_buffer(bout)};
  CHECK_OK(agpu_launch(NULL, saxpy, 1, &global, &local, 5, args));
  CHECK_OK(agpu_buffer_read(NULL, bout, 0, padded * sizeof *out, out));
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++) {
    if (!saxpy_close(out[i], a, x[i], y[i]) && wrong++ < 3)
      printf("  out[%zu] = %.9g, expected %.9g\n", i, out[i], (double)a * x[i] + y[i]);
  }
  CHECK(wrong == 0);
  uint32_t poison;
  for (size_t i = n; i < padded; i++) {
    memcpy(&poison, &out[i], 4);
    CHECK(poison == 0xFFFFFFFFu);
  }
  agpu_buffer_release(bx);
  agpu_buffer_release(by);
  agpu_buffer_release(bout);
  agpu_kernel_release(saxpy);
  agpu_program_release(program);
  free(x);
  free(y);
  free(out);
}

static void group_sum_uses_local_memory_and_a_float4(void) {
  REQUIRE_DEVICE(device, "opencl");
  const size_t local = 128, groups = 300, global = local * groups;
  uint64_t seed = 22;
  float *in = random_floats(global, &seed), *out = malloc(groups * sizeof *out);
  const float s[4] = {0.5f, 1.25f, -2.0f, 3.0f};
  agpu_program *program = build(device, kernels_source, "kernels.cl");
  agpu_kernel *kernel = kernel_of(program, "group_sum");
  agpu_buffer *bin = buffer_with(device, in, global * sizeof *in);
  agpu_buffer *bout = buffer_with(device, NULL, groups * sizeof *out);
  if (!kernel || !bin || !bout) return;
  agpu_arg args[] = {agpu_arg_buffer(bin), agpu_arg_buffer(bout),
                     agpu_arg_local(local * sizeof(float)), agpu_arg_value(s, sizeof s)};
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 4, args));
  CHECK_OK(agpu_buffer_read(NULL, bout, 0, groups * sizeof *out, out));
  for (size_t g = 0; g < groups; g++) {
    double sum = 0, magnitude = 0;
    for (size_t i = 0; i < local; i++) {
      double v = (double)in[g * local + i] * s[0] + s[1];
      sum += v;
      magnitude += fabs(v);
    }
    double expected = sum * s[2] + s[3];
    /* 128 float additions in a tree: each level rounds once, 7 levels plus
     * the scaling; bound by 16 * 2^-24 of the summed magnitudes. */
    double tolerance = 16 * ldexp(magnitude * fabs(s[2]) + fabs(s[3]), -24);
    if (fabs(out[g] - expected) > tolerance) {
      printf("  group %zu: %.9g, expected %.9g (tolerance %.3g)\n", g, out[g], expected, tolerance);
      CHECK(fabs(out[g] - expected) <= tolerance);
      break;
    }
  }
  agpu_buffer_release(bin);
  agpu_buffer_release(bout);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
  free(in);
  free(out);
}

static const agpu_kernel_param *param_named(const agpu_kernel_info *info, const char *name) {
  for (uint32_t i = 0; i < info->param_count; i++)
    if (strcmp(info->params[i].name, name) == 0) return &info->params[i];
  return NULL;
}

static void check_param(const agpu_kernel_info *info, const char *name, agpu_param_kind kind,
                        const char *type_name, uint32_t size, bool is_const) {
  const agpu_kernel_param *param = param_named(info, name);
  CHECK(param != NULL);
  if (!param) {
    printf("  no parameter '%s'\n", name);
    return;
  }
  bool ok = param->kind == kind && strcmp(param->type_name, type_name) == 0 &&
            param->size == size && param->is_const == is_const;
  if (!ok)
    printf("  '%s': kind %d type '%s' size %u const %d; expected %d '%s' %u %d\n", name,
           param->kind, param->type_name, param->size, param->is_const, kind, type_name, size,
           is_const);
  CHECK(ok);
}

static void signatures_are_reported(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_device_info device_info;
  CHECK_OK(agpu_device_get_info(device, &device_info));
  /* A struct parameter is outside the portable subset, so this goes through
   * the native OpenCL C path, where the driver reports the signature. */
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_create_native(device, AGPU_NATIVE_OPENCL_C, signature_source,
                                      strlen(signature_source), NULL, &program));
  agpu_kernel *kernel = kernel_of(program, "signature");
  if (!kernel) return;
  agpu_kernel_info info;
  CHECK_OK(agpu_kernel_get_info(kernel, &info));
  CHECK(strcmp(info.name, "signature") == 0);
  CHECK(info.param_count == (device_info.fp64 ? 21u : 18u));
  CHECK(strcmp(info.params[0].name, "c") == 0 && strcmp(info.params[17].name, "out") == 0);
  const agpu_param_kind V = AGPU_PARAM_SCALAR;
  check_param(&info, "c", V, "char", 1, false);
  check_param(&info, "uc", V, "uchar", 1, false);
  check_param(&info, "s", V, "short", 2, false);
  check_param(&info, "us", V, "ushort", 2, false);
  check_param(&info, "i", V, "int", 4, false);
  check_param(&info, "ui", V, "uint", 4, false);
  check_param(&info, "l", V, "long", 8, false);
  check_param(&info, "ul", V, "ulong", 8, false);
  check_param(&info, "f", V, "float", 4, false);
  check_param(&info, "f3", V, "float3", 16, false); /* 3-vectors take 4 lanes */
  check_param(&info, "f4", V, "float4", 16, false);
  check_param(&info, "i2", V, "int2", 8, false);
  check_param(&info, "uc16", V, "uchar16", 16, false);
  const agpu_kernel_param *pair = param_named(&info, "pair");
  CHECK(pair && pair->kind == V && pair->size == 0); /* a struct: size unknown */
  check_param(&info, "table", AGPU_PARAM_CONSTANT_BUFFER, "const float*", 0, true);
  check_param(&info, "scratch", AGPU_PARAM_LOCAL, "int*", 0, false);
  check_param(&info, "in", AGPU_PARAM_GLOBAL_BUFFER, "const uint*", 0, true);
  check_param(&info, "out", AGPU_PARAM_GLOBAL_BUFFER, "float*", 0, false);
  if (device_info.fp64) {
    check_param(&info, "d", V, "double", 8, false);
    check_param(&info, "d3", V, "double3", 32, false);
    check_param(&info, "d16", V, "double16", 128, false);
  }
  CHECK(!info.has_required_work_group_size);
  CHECK(info.max_work_group_size > 0 &&
        info.max_work_group_size <= device_info.max_work_group_size);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void required_work_group_size_is_reported_and_enforced(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_program *program = build(device, kernels_source, "kernels.cl");
  agpu_kernel *kernel = kernel_of(program, "fixed_group");
  if (!kernel) return;
  agpu_kernel_info info;
  CHECK_OK(agpu_kernel_get_info(kernel, &info));
  CHECK(info.has_required_work_group_size);
  CHECK(info.required_work_group_size[0] == 64 && info.required_work_group_size[1] == 1 &&
        info.required_work_group_size[2] == 1);
  agpu_buffer *out = buffer_with(device, NULL, 256 * sizeof(int));
  agpu_arg arg = agpu_arg_buffer(out);
  const size_t global = 256, wrong_local = 32;
  CHECK_STATUS(agpu_launch(NULL, kernel, 1, &global, &wrong_local, 1, &arg),
               AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("requires work-groups of 64x1x1");
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, NULL, 1, &arg)); /* local from the kernel */
  int got[256];
  CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof got, got));
  for (int i = 0; i < 256; i++) CHECK(got[i] == 64);
  agpu_buffer_release(out);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void bad_launches_are_refused(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_device_info device_info;
  CHECK_OK(agpu_device_get_info(device, &device_info));
  agpu_program *program = build(device, kernels_source, "kernels.cl");
  agpu_kernel *saxpy = kernel_of(program, "saxpy");
  agpu_buffer *buffer = buffer_with(device, NULL, 4096);
  if (!saxpy || !buffer) return;
  agpu_arg args[] = {agpu_arg_u32(1000), agpu_arg_f32(1.0f), agpu_arg_buffer(buffer),
                     agpu_arg_buffer(buffer), agpu_arg_buffer(buffer)};
  const size_t global = 1024, local = 64;

  CHECK_STATUS(agpu_launch(NULL, saxpy, 1, &global, &local, 4, args), AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("argument 4 ('out'");
  CHECK_MESSAGE("missing");

  agpu_arg wrong_size[5];
  memcpy(wrong_size, args, sizeof args);
  wrong_size[1] = agpu_arg_f64(1.0);
  CHECK_STATUS(agpu_launch(NULL, saxpy, 1, &global, &local, 5, wrong_size),
               AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("argument 1 ('a'");
  CHECK_MESSAGE("4-byte value, got 8 bytes");

  agpu_arg buffer_for_scalar[5];
  memcpy(buffer_for_scalar, args, sizeof args);
  buffer_for_scalar[0] = agpu_arg_buffer(buffer);
  CHECK_STATUS(agpu_launch(NULL, saxpy, 1, &global, &local, 5, buffer_for_scalar),
               AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("argument 0 ('n'");

  const size_t huge_global = (size_t)1 << 40; /* 2^34 groups of 64 > 2^32-1 */
  CHECK_STATUS(agpu_launch(NULL, saxpy, 1, &huge_global, &local, 5, args),
               AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("work-groups");

  const size_t too_wide = (size_t)device_info.max_work_group_size * 2;
  CHECK_STATUS(agpu_launch(NULL, saxpy, 1, &too_wide, &too_wide, 5, args),
               AGPU_ERROR_INVALID_LAUNCH);
  /* Within each dimension's limit, but too many work-items in all. */
  const size_t global2[2] = {64, device_info.max_work_group_size};
  const size_t local2[2] = {64, device_info.max_work_group_size};
  if (device_info.max_work_item_sizes[1] >= device_info.max_work_group_size) {
    CHECK_STATUS(agpu_launch(NULL, saxpy, 2, global2, local2, 5, args), AGPU_ERROR_INVALID_LAUNCH);
    CHECK_MESSAGE("exceeds");
  }

  const size_t ragged = 1000;
  CHECK_STATUS(agpu_launch(NULL, saxpy, 1, &ragged, &local, 5, args), AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("not a multiple of the local size");

  CHECK_OK(agpu_launch(NULL, saxpy, 1, &global, &local, 5, args)); /* and a right one works */
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_device_default_queue(device, &queue));
  CHECK_OK(agpu_queue_finish(queue));
  agpu_buffer_release(buffer);
  agpu_kernel_release(saxpy);
  agpu_program_release(program);
}

static void build_errors_carry_the_log(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_program *program = NULL;
  agpu_program_desc desc = {
      .source = "__kernel void broken(__global float *x) {\n  x[0] = undefined_thing;\n}\n",
      .source_name = "broken.cl"};
  /* Portable source: the translator's front end answers, as on every backend. */
  CHECK_STATUS(agpu_program_build(device, &desc, &program), AGPU_ERROR_BUILD_FAILED);
  CHECK(program == NULL);
  CHECK_MESSAGE("broken.cl:2:10: error: use of undeclared identifier 'undefined_thing'");
  CHECK_MESSAGE("x[0] = undefined_thing;\n");
  CHECK_MESSAGE("^");
  /* Native OpenCL C: the driver's compiler and its log. */
  CHECK_STATUS(agpu_program_create_native(device, AGPU_NATIVE_OPENCL_C, desc.source,
                                          strlen(desc.source), NULL, &program),
               AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE(
      "agpu_program_create_native: the kernel source did not compile for opencl:0 "
      "(<OpenCL C source>, by the driver's OpenCL C compiler on ");
  CHECK_MESSAGE("undefined_thing");

  agpu_program_desc bad_option = {.source = "__kernel void k(void) {}",
                                  .options = "-no-such-option"};
  CHECK_STATUS(agpu_program_build(device, &bad_option, &program), AGPU_ERROR_BUILD_FAILED);
  /* refused by the translator, as on every backend (issue 33), and by the
   * driver, which is given the source when the translator refuses it */
  CHECK_MESSAGE("agpu_program_build: the kernel source did not compile for opencl:0");
  CHECK_MESSAGE("unknown build option '-no-such-option'");
  CHECK_MESSAGE("the OpenCL driver, given the source as written, refused it too");
}

/* A source in a directory whose path has a space, including a header next
 * to it: drivers take no quotes in their options (PoCL answered
 * CL_INVALID_BUILD_OPTIONS), so the directory is named by a descriptor. */
static void headers_beside_a_source_in_a_path_with_spaces(void) {
  REQUIRE_DEVICE(device, "opencl");
  char base[] = "/tmp/agpu_space_XXXXXX", dir[128], header[160], name[160];
  if (!mkdtemp(base)) return;
  snprintf(dir, sizeof dir, "%s/a dir", base);
  snprintf(header, sizeof header, "%s/value.h", dir);
  snprintf(name, sizeof name, "%s/k.cl", dir);
  CHECK(mkdir(dir, 0700) == 0);
  FILE *f = fopen(header, "w");
  if (f) {
    fputs("#define VALUE 41\n", f);
    fclose(f);
  }
  agpu_program_desc desc = {
      .source = "#include \"value.h\"\n__kernel void k(__global int *o) { o[0] = VALUE + 1; }\n",
      .source_name = name};
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  agpu_kernel *kernel = kernel_of(program, "k");
  agpu_buffer *out = buffer_with(device, NULL, sizeof(int));
  size_t one = 1;
  agpu_arg args[] = {agpu_arg_buffer(out)};
  int got = 0;
  if (kernel && out) {
    CHECK_OK(agpu_launch(NULL, kernel, 1, &one, &one, 1, args));
    CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof got, &got));
  }
  CHECK(got == 42);
  if (out) agpu_buffer_release(out);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
  remove(header);
  rmdir(dir);
  rmdir(base);
}

/* OpenCL outside the portable subset that the driver accepts: built as
 * written, with the translator's refusal as a warning in the build log;
 * -Werror=portable keeps the refusal an error. A kernel with goto and
 * recursion (both out of the subset) computes the right answer. */
static void sources_outside_the_subset_pass_through(void) {
  REQUIRE_DEVICE(device, "opencl");
  static const char source[] =
      "int tri(int n) { return n <= 0 ? 0 : n + tri(n - 1); }\n"
      "__kernel void k(__global int *out, int n) {\n"
      "  int i = (int)get_global_id(0);\n"
      "  if (i >= n) goto done;\n"
      "  out[i] = tri(i % 7);\n"
      "done:;\n"
      "}\n";
  agpu_program_desc desc = {.source = source, .source_name = "outside.cl"};
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  const char *log = program ? agpu_program_build_log(program) : "";
  CHECK(strstr(log, "warning: outside anygpu's portable subset, so built for OpenCL devices only"));
  CHECK(strstr(log, "outside.cl:"));
  agpu_kernel *kernel = kernel_of(program, "k");
  enum { N = 301 };
  agpu_buffer *out = buffer_with(device, NULL, (N + 3) * sizeof(int));
  int poison[N + 3], n = N;
  for (int i = 0; i < N + 3; i++) poison[i] = -12345;
  if (out) CHECK_OK(agpu_buffer_write(NULL, out, 0, sizeof poison, poison));
  size_t global = N + 3, local = 8;
  agpu_arg args[] = {agpu_arg_buffer(out), agpu_arg_value(&n, sizeof n)};
  if (kernel && out) CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 2, args));
  int got[N + 3];
  if (out) CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof got, got));
  for (int i = 0; out && i < N + 3; i++) {
    int m = i % 7, want = i < N ? m * (m + 1) / 2 : -12345;
    if (got[i] != want) {
      CHECK(got[i] == want);
      printf("  out[%d] = %d, expected %d\n", i, got[i], want);
      break;
    }
  }
  if (out) agpu_buffer_release(out);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
  /* -Werror=portable: the translator's refusal stands (and is not passed on) */
  desc.options = "-DX=1 -Werror=portable";
  CHECK_STATUS(agpu_program_build(device, &desc, &program), AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE("outside.cl:");
  CHECK(!strstr(agpu_last_error(), "refused it too"));
  /* a limit of the translator is never passed to the driver */
  char *deep = malloc(40000);
  if (!deep) return;
  strcpy(deep, "__kernel void k(__global int *o) { o[0] = 0");
  for (int i = 0; i < 3000; i++) strcat(deep, " + 1");
  strcat(deep, "; }\n");
  desc = (agpu_program_desc){.source = deep, .source_name = "deep.cl"};
  CHECK_STATUS(agpu_program_build(device, &desc, &program), AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE("nested too deeply");
  free(deep);
}

static void warnings_land_in_the_build_log(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_program_desc desc = {.source = "#warning anygpu-was-here\n__kernel void k(void) {}\n",
                            .source_name = "warn.cl",
                            .options = "-DUNUSED=1"};
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;
  CHECK(strstr(agpu_program_build_log(program), "anygpu-was-here") != NULL);
  agpu_program_release(program);

  program = build(device, "__kernel void quiet(void) {}\n", "quiet.cl");
  if (program) CHECK(strcmp(agpu_program_build_log(program), "") == 0);
  agpu_program_release(program);
}

static double elapsed_ms(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) * 1e3 + (double)(now.tv_nsec - start->tv_nsec) / 1e6;
}

/* A second build of a program loads the driver's binary from the kernel
 * cache (a hit, no store), keeps the first build's warnings, and runs. A
 * fresh constant in the options makes the first build a miss. */
static void warm_builds_load_the_binary(void) {
  REQUIRE_DEVICE(device, "opencl");
  const char *cache = getenv("ANYGPU_CACHE");
  if (cache && strcmp(cache, "0") == 0) SKIP("the kernel cache is off (ANYGPU_CACHE=0)");
  agpu_cache_stats before, between, after;
  agpu_cache_get_stats(&before);
  char options[96];
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  snprintf(options, sizeof options, "-DSTAMP=%lld%09ld -DSCALE=3", (long long)t.tv_sec, t.tv_nsec);
  agpu_program_desc desc = {.source =
                                "#warning kept-in-the-cache\n"
                                "__kernel void scale(__global int *x, uint n) {\n"
                                "  uint i = get_global_id(0);\n"
                                "  if (i < n) x[i] = x[i] * SCALE + (int)(STAMP % 7);\n"
                                "}\n",
                            .source_name = "scale.cl",
                            .options = options};
  double ms[2] = {0, 0};
  for (int round = 0; round < 2; round++) {
    if (round == 1) agpu_cache_get_stats(&between);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    agpu_program *program = NULL;
    CHECK_OK(agpu_program_build(device, &desc, &program));
    ms[round] = elapsed_ms(&start);
    if (!program) return;
    CHECK(strstr(agpu_program_build_log(program), "kept-in-the-cache") != NULL);
    agpu_kernel *kernel = kernel_of(program, "scale");
    agpu_kernel_info info;
    if (kernel) CHECK_OK(agpu_kernel_get_info(kernel, &info));
    if (kernel) CHECK(info.param_count == 2 && strcmp(info.params[0].name, "x") == 0);
    int data[37], want[37];
    for (int i = 0; i < 37; i++) data[i] = 1000 * round + i - 18;
    for (int i = 0; i < 37; i++)
      want[i] = data[i] * 3 + (int)((t.tv_sec * 1000000000LL + t.tv_nsec) % 7);
    agpu_buffer *buffer = buffer_with(device, data, sizeof data);
    if (kernel && buffer) {
      size_t global[1] = {64}, local[1] = {32};
      agpu_arg args[2] = {agpu_arg_buffer(buffer), agpu_arg_u32(37)};
      CHECK_OK(agpu_launch(NULL, kernel, 1, global, local, 2, args));
      CHECK_OK(agpu_buffer_read(NULL, buffer, 0, sizeof data, data));
      CHECK(memcmp(data, want, sizeof data) == 0);
    }
    if (buffer) agpu_buffer_release(buffer);
    if (kernel) agpu_kernel_release(kernel);
    agpu_program_release(program);
  }
  agpu_cache_get_stats(&after);
  printf("  first build %.1f ms (from source), second %.1f ms (from the cached binary)\n", ms[0],
         ms[1]);
  CHECK(between.stores >= before.stores + 1);
  CHECK(after.hits == between.hits + 1);
  CHECK(after.stores == between.stores);
}

static void unknown_kernels_are_not_found(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_program *program = build(device, kernels_source, "kernels.cl");
  if (!program) return;
  agpu_kernel *kernel = NULL;
  CHECK_STATUS(agpu_kernel_create(program, "saxpi", &kernel), AGPU_ERROR_NOT_FOUND);
  CHECK(kernel == NULL);
  /* Checked and worded by the core, as on every backend (test_messages). */
  CHECK_MESSAGE(
      "agpu_kernel_create: the program on opencl:0 has no kernel 'saxpi'; it has: saxpy, "
      "group_sum, fixed_group, busy");
  agpu_program_release(program);
}

/* A kernel keeps its program alive: releasing the program first is fine,
 * and the program's handle is dead for the user at once. */
static void kernels_outlive_their_program(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_program *program = build(device, kernels_source, "kernels.cl");
  if (!program) return;
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(program, "saxpy", &kernel));
  CHECK_OK(agpu_program_release(program));
  CHECK_STATUS(agpu_program_release(program), AGPU_ERROR_INVALID_HANDLE);
  CHECK_MESSAGE("already released");
  enum { n = 333 };
  float x[n], y[n], out[n];
  for (int i = 0; i < n; i++) x[i] = (float)i, y[i] = 1.0f, out[i] = -1.0f;
  agpu_buffer *bx, *by, *bout;
  CHECK_OK(agpu_buffer_create(device, sizeof x, 0, &bx));
  CHECK_OK(agpu_buffer_create(device, sizeof y, 0, &by));
  CHECK_OK(agpu_buffer_create(device, sizeof out, 0, &bout));
  CHECK_OK(agpu_buffer_write(NULL, bx, 0, sizeof x, x));
  CHECK_OK(agpu_buffer_write(NULL, by, 0, sizeof y, y));
  agpu_arg args[] = {agpu_arg_u32(n), agpu_arg_f32(2.0f), agpu_arg_buffer(bx), agpu_arg_buffer(by),
                     agpu_arg_buffer(bout)};
  size_t global = 384, local = 64;
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 5, args));
  CHECK_OK(agpu_buffer_read(NULL, bout, 0, sizeof out, out));
  CHECK(out[0] == 1.0f && out[n - 1] == 2.0f * (n - 1) + 1.0f);
  CHECK_OK(agpu_kernel_release(kernel));
  agpu_buffer_release(bx);
  agpu_buffer_release(by);
  agpu_buffer_release(bout);
}

static void native_formats(void) {
  REQUIRE_DEVICE(device, "opencl");
  static const char source[] = "__kernel void twice(__global int *v) { v[get_global_id(0)] *= 2; }";
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_create_native(device, AGPU_NATIVE_OPENCL_C, source, strlen(source), NULL,
                                      &program));
  agpu_kernel *kernel = kernel_of(program, "twice");
  int values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  agpu_buffer *buffer = buffer_with(device, values, sizeof values);
  if (kernel && buffer) {
    agpu_arg arg = agpu_arg_buffer(buffer);
    const size_t global = 8;
    CHECK_OK(agpu_launch(NULL, kernel, 1, &global, NULL, 1, &arg));
    CHECK_OK(agpu_buffer_read(NULL, buffer, 0, sizeof values, values));
    for (int i = 0; i < 8; i++) CHECK(values[i] == 2 * (i + 1));
  }
  agpu_buffer_release(buffer);
  agpu_kernel_release(kernel);
  agpu_program_release(program);

  agpu_program *other = NULL;
  CHECK_STATUS(
      agpu_program_create_native(device, AGPU_NATIVE_PTX, ".version 7.0", 12, NULL, &other),
      AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("opencl cannot load PTX");
  /* Not a valid module: a driver that takes SPIR-V must refuse it. */
  const uint32_t not_spirv[5] = {0x07230203u, 0x00010000u, 0, 1, 0};
  agpu_status status = agpu_program_create_native(device, AGPU_NATIVE_SPIRV, not_spirv,
                                                  sizeof not_spirv, NULL, &other);
  CHECK(status != AGPU_SUCCESS && other == NULL);
  if (status == AGPU_ERROR_UNSUPPORTED) CHECK_MESSAGE("SPIR-V");
}

static void events_time_a_kernel(void) {
  REQUIRE_DEVICE(device, "opencl");
  const size_t count = 1 << 18, local = 64;
  agpu_program *program = build(device, kernels_source, "kernels.cl");
  agpu_kernel *busy = kernel_of(program, "busy");
  agpu_buffer *data = buffer_with(device, NULL, count * sizeof(float));
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_queue_create(device, &queue));
  if (!busy || !data || !queue) return;
  const float zero = 0;
  CHECK_OK(agpu_buffer_fill(queue, data, 0, count * sizeof(float), &zero, sizeof zero));
  agpu_arg args[] = {agpu_arg_buffer(data), agpu_arg_i32(200)};
  CHECK_OK(agpu_launch(queue, busy, 1, &count, &local, 2, args)); /* warm-up: PoCL JIT */
  agpu_event *start = NULL, *end = NULL;
  CHECK_OK(agpu_event_record(queue, &start));
  CHECK_OK(agpu_launch(queue, busy, 1, &count, &local, 2, args));
  CHECK_OK(agpu_event_record(queue, &end));
  CHECK_OK(agpu_event_wait(end));
  uint64_t ns = 0;
  CHECK_OK(agpu_event_elapsed_ns(start, end, &ns));
  /* 2^18 items x 200 multiply-adds: well over a microsecond, under a minute. */
  CHECK(ns > 1000 && ns < 60000000000ull);
  printf("  busy kernel: %.3f ms\n", ns / 1e6);
  uint64_t reversed = 0;
  CHECK_STATUS(agpu_event_elapsed_ns(end, start, &reversed), AGPU_ERROR_INVALID_ARGUMENT);
  /* Two events with nothing between them: zero or a little. */
  agpu_event *again = NULL;
  CHECK_OK(agpu_event_record(queue, &again));
  uint64_t idle = 0;
  CHECK_OK(agpu_event_elapsed_ns(end, again, &idle));
  CHECK(idle < ns + 1000000000ull);
  agpu_event_release(start);
  agpu_event_release(end);
  agpu_event_release(again);
  agpu_buffer_release(data);
  agpu_kernel_release(busy);
  agpu_program_release(program);
  agpu_queue_release(queue);
}

/* Two threads launch one kernel with different arguments on their own queues:
 * the arguments of one launch must never leak into the other's. */
typedef struct launcher {
  agpu_kernel *kernel;
  agpu_device *device;
  float a;
  int failures;
} launcher;

static void *launch_repeatedly(void *argument) {
  launcher *self = argument;
  const uint32_t n = 4096;
  const size_t global = n, local = 64;
  float *ones = malloc(n * sizeof *ones), *out = malloc(n * sizeof *out);
  for (uint32_t i = 0; i < n; i++) ones[i] = 1.0f;
  agpu_queue *queue = NULL;
  agpu_buffer *x = NULL, *y = NULL, *result = NULL;
  if (agpu_queue_create(self->device, &queue) || agpu_buffer_create(self->device, n * 4, 0, &x) ||
      agpu_buffer_create(self->device, n * 4, 0, &y) ||
      agpu_buffer_create(self->device, n * 4, 0, &result) ||
      agpu_buffer_write(queue, x, 0, n * 4, ones) || agpu_buffer_write(queue, y, 0, n * 4, ones)) {
    self->failures++;
  } else {
    for (int round = 0; round < 50; round++) {
      agpu_arg args[] = {agpu_arg_u32(n), agpu_arg_f32(self->a), agpu_arg_buffer(x),
                         agpu_arg_buffer(y), agpu_arg_buffer(result)};
      if (agpu_launch(queue, self->kernel, 1, &global, &local, 5, args) ||
          agpu_buffer_read(queue, result, 0, n * 4, out)) {
        self->failures++;
        break;
      }
      for (uint32_t i = 0; i < n; i++) self->failures += out[i] != self->a + 1.0f;
    }
  }
  agpu_buffer_release(x);
  agpu_buffer_release(y);
  agpu_buffer_release(result);
  agpu_queue_release(queue);
  free(ones);
  free(out);
  return NULL;
}

static void one_kernel_launches_from_two_threads(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_program *program = build(device, kernels_source, "kernels.cl");
  agpu_kernel *saxpy = kernel_of(program, "saxpy");
  if (!saxpy) return;
  launcher launchers[2] = {{saxpy, device, 2.0f, 0}, {saxpy, device, 5.0f, 0}};
  pthread_t threads[2];
  for (int t = 0; t < 2; t++) pthread_create(&threads[t], NULL, launch_repeatedly, &launchers[t]);
  for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
  CHECK(launchers[0].failures == 0 && launchers[1].failures == 0);
  agpu_kernel_release(saxpy);
  agpu_program_release(program);
}

int main(void) {
  RUN(saxpy_covers_a_ragged_range);
  RUN(group_sum_uses_local_memory_and_a_float4);
  RUN(signatures_are_reported);
  RUN(required_work_group_size_is_reported_and_enforced);
  RUN(bad_launches_are_refused);
  RUN(build_errors_carry_the_log);
  RUN(warnings_land_in_the_build_log);
  RUN(sources_outside_the_subset_pass_through);
  RUN(headers_beside_a_source_in_a_path_with_spaces);
  RUN(warm_builds_load_the_binary);
  RUN(unknown_kernels_are_not_found);
  RUN(kernels_outlive_their_program);
  RUN(native_formats);
  RUN(events_time_a_kernel);
  RUN(one_kernel_launches_from_two_threads);
  return agpu_test_finish();
}
