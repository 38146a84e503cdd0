// SPDX-License-Identifier: Apache-2.0
/* Rounding doubles to integers on every device, bit for bit against the
 * host's C library: floor, ceil, trunc, rint, round, modf, fract and the
 * conversions with a rounding mode, over fractions at every magnitude from
 * 2^-3 to 2^60, halves, the edges at 2^24, 2^31, 2^32 and 2^52, negatives
 * and signed zeros. On Vulkan each case runs three ways: as anygpu chooses
 * (the device's own functions where its probe found them exact), with the
 * software versions forced, and with the device's own forced; the first two
 * must be exact everywhere, the third shows whether the probe had a reason
 * (lavapipe on a host without AVX-512 rounds them wrongly; CI runs this
 * test with GALLIUM_OVERRIDE_CPU_CAPS=avx to be such a host). */
#include <math.h>

#include "agpu_test.h"

#define COUNT 4099 /* not a multiple of the work-group size */
#define LOCAL 64
#define FLOAT_OUTPUTS 7
#define INT_OUTPUTS 4

static const char source[] =
    "__kernel void rounding(__global const double *x, __global double *f, __global long *l,\n"
    "                       uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  double v = x[i], ip, fp;\n"
    "  f[i] = floor(v);\n"
    "  f[n + i] = ceil(v);\n"
    "  f[2 * n + i] = trunc(v);\n"
    "  f[3 * n + i] = rint(v);\n"
    "  f[4 * n + i] = round(v);\n"
    "  f[5 * n + i] = modf(v, &ip) + 4.0 * ip;\n"
    "  f[6 * n + i] = fract(v, &fp) + 4.0 * fp;\n"
    "  double s = v * 0x1p-12; /* within long's range */\n"
    "  l[i] = convert_long_rte(s);\n"
    "  l[n + i] = convert_long_rtn(s);\n"
    "  l[2 * n + i] = convert_long_rtp(s);\n"
    "  l[3 * n + i] = convert_int_sat_rte(v);\n"
    "}\n";

static void make_inputs(double *x) {
  static const double fixed[] = {0.5,
                                 1.5,
                                 2.5,
                                 -0.5,
                                 -1.5,
                                 -2.5,
                                 0.49999999999999994,
                                 -0.49999999999999994,
                                 -0.3,
                                 0.0,
                                 -0.0,
                                 16777216.5,
                                 16777217.5,
                                 -16777219.5,
                                 2147483647.5,
                                 2147483648.5,
                                 -2147483648.5,
                                 -2147483649.5,
                                 4294967295.5,
                                 4294967296.5,
                                 2251799813685248.5,
                                 2251799813685249.5,
                                 4503599627370495.5,
                                 -4503599627370495.5,
                                 4503599627370497.0,
                                 9007199254740993.0,
                                 1e300,
                                 -1e300,
                                 1e-310,
                                 -1e-310};
  size_t fixed_count = sizeof fixed / sizeof fixed[0];
  memcpy(x, fixed, sizeof fixed);
  uint64_t seed = 20261204;
  for (size_t i = fixed_count; i < COUNT; i++) {
    int e = (int)(agpu_test_rand(&seed) % 64) - 3;
    double m = 1.0 + (double)(agpu_test_rand(&seed) >> 11) * 0x1p-53;
    if (i % 5 == 0) m = floor(ldexp(m, 20)) * 0x1p-20 + 0x1p-21; /* a half at scale 2^(e-20) */
    double v = ldexp(m, e);
    x[i] = agpu_test_rand(&seed) & 1 ? -v : v;
  }
}

static void reference(const double *x, double *f, int64_t *l) {
  for (size_t i = 0; i < COUNT; i++) {
    double v = x[i], ip;
    f[i] = floor(v);
    f[COUNT + i] = ceil(v);
    f[2 * COUNT + i] = trunc(v);
    f[3 * COUNT + i] = nearbyint(v);
    f[4 * COUNT + i] = round(v);
    f[5 * COUNT + i] = modf(v, &ip) + 4.0 * ip;
    double fl = floor(v);
    double fr = isinf(v) ? copysign(0.0, v) : fmin(v - fl, 0x1.fffffffffffffp-1);
    f[6 * COUNT + i] = fr + 4.0 * fl;
    double s = v * 0x1p-12;
    l[i] = (int64_t)nearbyint(s);
    l[COUNT + i] = (int64_t)floor(s);
    l[2 * COUNT + i] = (int64_t)ceil(s);
    double r = nearbyint(v);
    l[3 * COUNT + i] = r >= 2147483647.0 ? INT32_MAX : r <= -2147483648.0 ? INT32_MIN : (int32_t)r;
  }
}

static const char *const names[FLOAT_OUTPUTS + INT_OUTPUTS] = {"floor",
                                                               "ceil",
                                                               "trunc",
                                                               "rint",
                                                               "round",
                                                               "modf",
                                                               "fract",
                                                               "convert_long_rte",
                                                               "convert_long_rtn",
                                                               "convert_long_rtp",
                                                               "convert_int_sat_rte"};

/* Runs the kernel on `device`; returns the number of wrong elements (every
 * one is compared, bit for bit), or -1 if it could not run. */
static long run_on(agpu_device *device, const double *x, const double *want_f,
                   const int64_t *want_l, bool report) {
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  agpu_buffer *in = NULL, *fb = NULL, *lb = NULL;
  size_t f_bytes = sizeof(double) * COUNT * FLOAT_OUTPUTS;
  size_t l_bytes = sizeof(int64_t) * COUNT * INT_OUTPUTS;
  double *f = malloc(f_bytes);
  int64_t *l = malloc(l_bytes);
  long wrong = -1;
  agpu_program_desc desc = {.source = source, .source_name = "rounding.cl"};
  if (!f || !l) goto done;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) goto done;
  CHECK_OK(agpu_kernel_create(program, "rounding", &kernel));
  CHECK_OK(agpu_buffer_create(device, sizeof(double) * COUNT, 0, &in));
  CHECK_OK(agpu_buffer_create(device, f_bytes, 0, &fb));
  CHECK_OK(agpu_buffer_create(device, l_bytes, 0, &lb));
  if (!kernel || !in || !fb || !lb) goto done;
  /* poison: a NaN pattern and -1, which no element may keep */
  uint64_t poison = 0x7ff4dead7ff4deadULL;
  CHECK_OK(agpu_buffer_fill(NULL, fb, 0, f_bytes, &poison, sizeof poison));
  CHECK_OK(agpu_buffer_fill(NULL, lb, 0, l_bytes, &poison, sizeof poison));
  CHECK_OK(agpu_buffer_write(NULL, in, 0, sizeof(double) * COUNT, x));
  size_t global[1] = {(COUNT + LOCAL - 1) / LOCAL * LOCAL}, local[1] = {LOCAL};
  agpu_arg args[4] = {agpu_arg_buffer(in), agpu_arg_buffer(fb), agpu_arg_buffer(lb),
                      agpu_arg_u32(COUNT)};
  CHECK_OK(agpu_launch(NULL, kernel, 1, global, local, 4, args));
  CHECK_OK(agpu_buffer_read(NULL, fb, 0, f_bytes, f));
  CHECK_OK(agpu_buffer_read(NULL, lb, 0, l_bytes, l));
  wrong = 0;
  for (int k = 0; k < FLOAT_OUTPUTS + INT_OUTPUTS; k++) {
    long bad = 0;
    for (size_t i = 0; i < COUNT; i++) {
      bool same = k < FLOAT_OUTPUTS ? memcmp(&f[k * COUNT + i], &want_f[k * COUNT + i], 8) == 0
                                    : l[(k - FLOAT_OUTPUTS) * COUNT + i] ==
                                          want_l[(k - FLOAT_OUTPUTS) * COUNT + i];
      /* fract(-0): PoCL and the CPU backend give +0, the GLSL library -0
       * (the sign of that zero is the one difference allowed) */
      if (!same && k == 6 && x[i] == 0.0) same = f[k * COUNT + i] == 0.0;
      if (same) continue;
      if (bad++ < 2 && report) {
        if (k < FLOAT_OUTPUTS)
          printf("    %s(%.17g) = %.17g, want %.17g\n", names[k], x[i], f[k * COUNT + i],
                 want_f[k * COUNT + i]);
        else
          printf("    %s(%.17g) = %" PRId64 ", want %" PRId64 "\n", names[k],
                 k == FLOAT_OUTPUTS + 3 ? x[i] : x[i] * 0x1p-12, l[(k - FLOAT_OUTPUTS) * COUNT + i],
                 want_l[(k - FLOAT_OUTPUTS) * COUNT + i]);
      }
    }
    if (bad && report) printf("    %s: %ld of %d wrong\n", names[k], bad, COUNT);
    wrong += bad;
  }
done:
  if (lb) agpu_buffer_release(lb);
  if (fb) agpu_buffer_release(fb);
  if (in) agpu_buffer_release(in);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
  free(f);
  free(l);
  return wrong;
}

static double *inputs, *want_f;
static int64_t *want_l;

static void check_device(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s", selector);
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  if (!info.fp64) SKIP("%s has no fp64", selector);
  long wrong = run_on(device, inputs, want_f, want_l, true);
  printf("  %s (%s): %ld of %d x %d results wrong\n", selector, info.name, wrong, COUNT,
         FLOAT_OUTPUTS + INT_OUTPUTS);
  CHECK(wrong == 0);
}

static void test_cpu(void) {
  check_device("cpu:0");
}
static void test_opencl(void) {
  check_device("opencl:0");
}

/* Vulkan three ways (the variable is read at every build; the kernel cache
 * keys the SPIR-V by the choice). */
static void test_vulkan(void) {
  agpu_device *device = agpu_test_device("vulkan:0");
  if (!device) SKIP("no vulkan device: %s", agpu_test_backend_reason("vulkan"));
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  if (!info.fp64) SKIP("vulkan:0 has no fp64");
  unsetenv("ANYGPU_VULKAN_F64_ROUNDING");
  long chosen = run_on(device, inputs, want_f, want_l, true);
  setenv("ANYGPU_VULKAN_F64_ROUNDING", "soft", 1);
  long soft = run_on(device, inputs, want_f, want_l, true);
  setenv("ANYGPU_VULKAN_F64_ROUNDING", "native", 1);
  long native = run_on(device, inputs, want_f, want_l, false);
  unsetenv("ANYGPU_VULKAN_F64_ROUNDING");
  printf(
      "  vulkan:0 (%s): wrong results as anygpu chooses %ld, software %ld, the device's own "
      "%ld (of %d x %d)%s\n",
      info.name, chosen, soft, native, COUNT, FLOAT_OUTPUTS + INT_OUTPUTS,
      native > 0 ? ": this driver rounds doubles wrongly, and the probe saw it" : "");
  CHECK(chosen == 0);
  CHECK(soft == 0);
  CHECK(native >= 0);
}

int main(void) {
  inputs = malloc(sizeof(double) * COUNT);
  want_f = malloc(sizeof(double) * COUNT * FLOAT_OUTPUTS);
  want_l = malloc(sizeof(int64_t) * COUNT * INT_OUTPUTS);
  if (!inputs || !want_f || !want_l) return 1;
  make_inputs(inputs);
  reference(inputs, want_f, want_l);
  RUN(test_cpu);
  RUN(test_opencl);
  RUN(test_vulkan);
  free(inputs);
  free(want_f);
  free(want_l);
  return agpu_test_finish();
}
