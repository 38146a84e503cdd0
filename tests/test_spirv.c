// SPDX-License-Identifier: Apache-2.0
/* The spirv translation target: agpu_translate compiles the GLSL target's
 * shader to SPIR-V with glslang inside the library (kernels/spirv/). Checks
 * the module's header, that text and binary outputs are kept apart, and
 * prints how long the first and the later compiles take (no time is
 * asserted: these machines are shared). A library built without glslang must
 * say so with AGPU_ERROR_UNSUPPORTED. */
#include <time.h>

#include "agpu_test.h"

#define SPIRV_MAGIC 0x07230203u

static const char saxpy[] =
    "__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void twice(__global int *v) { v[get_global_id(0)] *= 2; }\n";

static agpu_status translate(agpu_target target, const char *kernel, agpu_translation **out) {
  agpu_translate_desc desc = {
      .source = saxpy, .source_name = "saxpy.cl", .target = target, .kernel = kernel};
  return agpu_translate(&desc, out);
}

static void test_target_name(void) {
  CHECK(agpu_target_name(AGPU_TARGET_SPIRV) &&
        strcmp(agpu_target_name(AGPU_TARGET_SPIRV), "spirv") == 0);
}

#ifdef AGPU_TEST_HAVE_GLSLANG
static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median milliseconds of `runs` translations of saxpy for `target`. */
static double median_ms(agpu_target target, int runs) {
  double times[64];
  for (int i = 0; i < runs; i++) {
    agpu_translation *t = NULL;
    double start = now_ms();
    CHECK_OK(translate(target, "saxpy", &t));
    times[i] = now_ms() - start;
    agpu_translation_release(t);
  }
  qsort(times, (size_t)runs, sizeof times[0], compare_doubles);
  return times[runs / 2];
}

static void test_spirv_module(void) {
  agpu_translation *t = NULL;
  double start = now_ms();
  CHECK_OK(translate(AGPU_TARGET_SPIRV, "saxpy", &t));
  double first = now_ms() - start;
  if (!t) return;
  size_t size = 0;
  const uint32_t *words = agpu_translation_binary(t, &size);
  CHECK(words != NULL);
  CHECK(size >= 20 && size % 4 == 0);
  if (words && size >= 20) {
    CHECK(words[0] == SPIRV_MAGIC);
    CHECK(words[1] == 0x00010300u); /* SPIR-V 1.3 */
    CHECK(words[3] > 0);            /* id bound */
    CHECK(words[4] == 0);           /* schema */
  }
  CHECK(strcmp(agpu_translation_output(t), "") == 0); /* no disassembly */
  CHECK(strstr(agpu_translation_signature_json(t), "\"saxpy\"") != NULL);
  agpu_translation_release(t);

  double spirv = median_ms(AGPU_TARGET_SPIRV, 20), glsl = median_ms(AGPU_TARGET_GLSL, 20);
  printf(
      "  spirv: first agpu_translate %.2f ms (glslang process init included); "
      "median of 20 after: %.3f ms (the GLSL translation alone: %.3f ms)\n",
      first, spirv, glsl);
}

static void test_spirv_needs_one_kernel(void) {
  agpu_translation *t = NULL;
  CHECK_STATUS(translate(AGPU_TARGET_SPIRV, NULL, &t), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("one shader per kernel");
  CHECK_STATUS(translate(AGPU_TARGET_SPIRV, "nope", &t), AGPU_ERROR_NOT_FOUND);
  CHECK_OK(translate(AGPU_TARGET_SPIRV, "twice", &t));
  size_t size = 0;
  const uint32_t *words = agpu_translation_binary(t, &size);
  CHECK(words && size >= 20 && words[0] == SPIRV_MAGIC);
  agpu_translation_release(t);
}
#else
static void test_spirv_unsupported(void) {
  agpu_translation *t = NULL;
  CHECK_STATUS(translate(AGPU_TARGET_SPIRV, "saxpy", &t), AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("anygpu was built without glslang (install glslang-dev and reconfigure)");
  CHECK(t == NULL);
}
#endif

static void test_text_targets_have_no_binary(void) {
  agpu_translation *t = NULL;
  CHECK_OK(translate(AGPU_TARGET_GLSL, "saxpy", &t));
  size_t size = 1;
  CHECK(agpu_translation_binary(t, &size) == NULL && size == 0);
  CHECK(strstr(agpu_translation_output(t), "#version 450") != NULL);
  agpu_translation_release(t);
  size = 1;
  CHECK(agpu_translation_binary(NULL, &size) == NULL && size == 0);
}

int main(void) {
  RUN(test_target_name);
#ifdef AGPU_TEST_HAVE_GLSLANG
  RUN(test_spirv_module);
  RUN(test_spirv_needs_one_kernel);
#else
  RUN(test_spirv_unsupported);
#endif
  RUN(test_text_targets_have_no_binary);
  return agpu_test_finish();
}
