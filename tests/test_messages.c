// SPDX-License-Identifier: Apache-2.0
/* One message per case on every backend (cpu:0, opencl:0, vulkan:0 here;
 * cuda:0 and hip:0 where present): the same text with only the selector
 * differing, for a missing kernel, a kernel that does not compile, the
 * parameters' type names in a launch message and in agpu_kernel_get_info,
 * a global size of 0; and agpu_last_error() is not cleared by success. */
#include "agpu_test.h"

static const char source[] =
    "__kernel void scale(__global const float *x, __global float *y, float a, uint n,\n"
    "                    __local float *scratch, __constant int *table) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + (float)table[0] + scratch[0] * 0.0f;\n"
    "}\n"
    "__kernel void other(__global int *z) { z[0] = 1; }\n";

static const char broken[] =
    "__kernel void k(__global int *z) {\n"
    "  z[0] = undefined_thing;\n"
    "}\n";

/* `expected` with "%s" standing for the selector. */
static void check_message_is(const char *selector, const char *expected) {
  char text[1024];
  snprintf(text, sizeof text, expected, selector);
  if (strcmp(agpu_last_error(), text) != 0) {
    printf("  %s: message\n    \"%s\"\n  expected\n    \"%s\"\n", selector, agpu_last_error(),
           text);
    CHECK(false);
  }
}

static void check_message_starts(const char *selector, const char *expected) {
  char text[1024];
  snprintf(text, sizeof text, expected, selector);
  if (strncmp(agpu_last_error(), text, strlen(text)) != 0) {
    printf("  %s: message\n    \"%s\"\n  should start\n    \"%s\"\n", selector, agpu_last_error(),
           text);
    CHECK(false);
  }
}

static void same_words(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no device %s", selector);
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "scale.cl"};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;

  agpu_kernel *kernel = NULL;
  CHECK_STATUS(agpu_kernel_create(program, "scal", &kernel), AGPU_ERROR_NOT_FOUND);
  check_message_is(selector,
                   "agpu_kernel_create: the program on %s has no kernel 'scal'; it has: scale, "
                   "other");

  CHECK_OK(agpu_kernel_create(program, "scale", &kernel));
  if (!kernel) return;
  agpu_kernel_info info;
  CHECK_OK(agpu_kernel_get_info(kernel, &info));
  static const char *const types[] = {"const float*", "float*", "float",
                                      "uint",         "float*", "const int*"};
  static const bool consts[] = {true, false, false, false, false, true};
  CHECK(info.param_count == 6);
  for (uint32_t i = 0; i < info.param_count && i < 6; i++) {
    if (strcmp(info.params[i].type_name, types[i]) != 0 || info.params[i].is_const != consts[i]) {
      printf("  %s: parameter %u ('%s') is '%s' const %d, expected '%s' const %d\n", selector, i,
             info.params[i].name, info.params[i].type_name, info.params[i].is_const, types[i],
             consts[i]);
      CHECK(false);
    }
  }

  /* The type names in a launch message: the kind once, then the type. */
  size_t global = 64, local = 64;
  agpu_arg args[] = {agpu_arg_u32(1)};
  CHECK_STATUS(agpu_launch(NULL, kernel, 1, &global, &local, 1, args), AGPU_ERROR_INVALID_LAUNCH);
  check_message_is(selector,
                   "agpu_launch: kernel 'scale' takes 6 arguments, 1 given: argument 1 "
                   "('y', __global float*) is missing");
  agpu_buffer *x = NULL;
  CHECK_OK(agpu_buffer_create(device, 256, 0, &x));
  agpu_arg six[] = {agpu_arg_u32(1),  agpu_arg_buffer(x),  agpu_arg_f32(1),
                    agpu_arg_u32(64), agpu_arg_local(256), agpu_arg_buffer(x)};
  CHECK_STATUS(agpu_launch(NULL, kernel, 1, &global, &local, 6, six), AGPU_ERROR_INVALID_LAUNCH);
  check_message_starts(selector,
                       "agpu_launch: kernel 'scale' argument 0 ('x', __global const "
                       "float*)");
  six[0] = agpu_arg_buffer(x);
  size_t zero = 0;
  CHECK_STATUS(agpu_launch(NULL, kernel, 1, &zero, NULL, 6, six), AGPU_ERROR_INVALID_LAUNCH);
  check_message_is(selector,
                   "agpu_launch: kernel 'scale': the global size in dimension 0 is 0; each "
                   "dimension needs at least one work-item (unused ones: 1)");
  /* Success leaves the message as it was. */
  agpu_device_info device_info;
  CHECK_OK(agpu_device_get_info(device, &device_info));
  CHECK_MESSAGE("the global size in dimension 0 is 0");
  agpu_buffer_release(x);
  agpu_kernel_release(kernel);
  agpu_program_release(program);

  /* A kernel that does not compile: the same prefix and diagnostics. */
  agpu_program_desc bad = {.source = broken, .source_name = "broken.cl"};
  program = NULL;
  CHECK_STATUS(agpu_program_build(device, &bad, &program), AGPU_ERROR_BUILD_FAILED);
  CHECK(program == NULL);
  check_message_starts(selector,
                       "agpu_program_build: the kernel source did not compile for %s:\n"
                       "broken.cl:2:10: error: use of undeclared identifier 'undefined_thing'");

  /* An unknown build option: an error on every backend (issue 33). */
  static const char *const unknown[] = {"-fbogus", "-cl-bogus", "-O2"};
  for (int i = 0; i < 3; i++) {
    agpu_program_desc opt = {.source = "__kernel void k(__global int *z) { z[0] = 1; }\n",
                             .source_name = "opt.cl",
                             .options = unknown[i]};
    program = NULL;
    CHECK_STATUS(agpu_program_build(device, &opt, &program), AGPU_ERROR_BUILD_FAILED);
    CHECK(program == NULL);
    char want[128];
    snprintf(want, sizeof want, "unknown build option '%s'", unknown[i]);
    CHECK_MESSAGE(want);
    agpu_program_release(program);
  }
  /* ... and the known ones build */
  agpu_program_desc known = {.source = "__kernel void k(__global int *z) { z[0] = 1; }\n",
                             .options = "-DX=1 -w -cl-mad-enable -cl-std=CL1.2"};
  program = NULL;
  CHECK_OK(agpu_program_build(device, &known, &program));
  agpu_program_release(program);

  /* reqd_work_group_size past the device's limit: refused at the build or
   * the launch naming the limit, never an "internal error" (issue 33). */
  uint32_t over = device_info.max_work_item_sizes[0] * 2;
  char required[256];
  snprintf(required, sizeof required,
           "__kernel __attribute__((reqd_work_group_size(%u, 1, 1)))\n"
           "void k(__global int *z) { z[get_global_id(0)] = 1; }\n",
           over);
  agpu_program_desc big = {.source = required, .source_name = "big.cl"};
  program = NULL;
  agpu_status status = agpu_program_build(device, &big, &program);
  if (status == AGPU_SUCCESS) {
    CHECK_OK(agpu_kernel_create(program, "k", &kernel));
    agpu_buffer *z = NULL;
    CHECK_OK(agpu_buffer_create(device, (size_t)over * 4, 0, &z));
    size_t g = over;
    agpu_arg one[] = {agpu_arg_buffer(z)};
    status = agpu_launch(NULL, kernel, 1, &g, NULL, 1, one);
    if (status == AGPU_SUCCESS) status = agpu_device_finish(device);
    agpu_buffer_release(z);
    agpu_kernel_release(kernel);
    agpu_program_release(program);
  }
  CHECK(status != AGPU_SUCCESS && status != AGPU_ERROR_INTERNAL);
  char limit[64];
  snprintf(limit, sizeof limit, "limit of %u", device_info.max_work_item_sizes[0]);
  if (!strstr(agpu_last_error(), limit) || strstr(agpu_last_error(), "internal error")) {
    printf("  %s: reqd_work_group_size(%u): %s: \"%s\" lacks \"%s\"\n", selector, over,
           agpu_status_name(status), agpu_last_error(), limit);
    CHECK(false);
  }
}

static void on_cpu(void) {
  same_words("cpu:0");
}
static void on_opencl(void) {
  same_words("opencl:0");
}
static void on_vulkan(void) {
  same_words("vulkan:0");
}
static void on_cuda(void) {
  same_words("cuda:0");
}
static void on_hip(void) {
  same_words("hip:0");
}

int main(void) {
  RUN(on_cpu);
  RUN(on_opencl);
  RUN(on_vulkan);
  RUN(on_cuda);
  RUN(on_hip);
  return agpu_test_finish();
}
