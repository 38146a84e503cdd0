// SPDX-License-Identifier: Apache-2.0
/* The GLSL double-precision math library (kernels/glsl_fp64_math.c):
 * (a) the whole text and the extracted source of every builtin compile as
 *     GLSL 4.50 compute shaders with glslangValidator and pass spirv-val;
 * (b) accuracy, measured for real: the same text is compiled as C (a prelude
 *     of macros maps the GLSL constructs; `lf` suffixes are dropped) into a
 *     shared object with the system C compiler (-ffp-contract=off, so every
 *     fma is the explicit one the GLSL means; SSE2 arithmetic on x86-64),
 *     and every function is compared on thousands of random arguments with
 *     a reference computed in long double (x87 80-bit; exact libm double
 *     functions for fmod, remainder, remquo, nextafter, ldexp, frexp,
 *     ilogb, logb, modf), asserting OpenCL C 1.2's double ULP limits and
 *     the special values (NaN, infinities, signed zeros, domain errors);
 * (c) the SPIR-V of every function runs on a Vulkan device with
 *     shaderFloat64 (lavapipe where there is no GPU) over the same kinds of
 *     arguments; each result must be bit-identical to the C build or within
 *     the ULP limits (a device whose fma is not fused rounds the polynomials
 *     differently). */
#include "test_glsl_fp64.h"

#include "agpu_test.h"
#include "agpu_test_tools.h"

static void test_interface(void) {
  CHECK(strcmp(kl_glsl_fp64_function("exp"), "kl_exp_f64") == 0);
  CHECK(strcmp(kl_glsl_fp64_function("sincos"), "kl_sin_f64") == 0);
  CHECK(strcmp(kl_glsl_fp64_out_function("sincos"), "kl_cos_f64") == 0);
  CHECK(strcmp(kl_glsl_fp64_out_function("remquo"), "kl_remquo_quo_f64") == 0);
  CHECK(kl_glsl_fp64_function("sqrt") == NULL && kl_glsl_fp64_function("fma") == NULL);
  CHECK(kl_glsl_fp64_function("no_such") == NULL && kl_glsl_fp64_function(NULL) == NULL);
  CHECK(kl_glsl_fp64_out_function("exp") == NULL);
  for (size_t i = 0; i < BUILTIN_COUNT; i++)
    CHECK(kl_glsl_fp64_function(fp64_all_builtins[i]) != NULL);
  /* snprintf-style: the length needed, a truncated copy, and each function
   * of the library defined exactly once in the whole text. */
  size_t whole = kl_glsl_fp64_source(fp64_all_builtins, BUILTIN_COUNT, NULL, 0);
  CHECK(whole == strlen(kl_glsl_fp64_library()));
  char small[64];
  memset(small, 'x', sizeof small);
  const char *one[] = {"exp"};
  size_t need = kl_glsl_fp64_source(one, 1, small, sizeof small);
  CHECK(need > sizeof small && small[sizeof small - 1] == '\0' &&
        strlen(small) == sizeof small - 1);
  char *exp_text = malloc(need + 1);
  CHECK(exp_text && kl_glsl_fp64_source(one, 1, exp_text, need + 1) == need);
  if (exp_text) {
    CHECK(strlen(exp_text) == need && strstr(exp_text, "double kl_exp_f64(double x)"));
    CHECK(!strstr(exp_text, "kl_sin_f64"));
    const char *twice[] = {"exp", "exp2", "exp", "no_such"};
    CHECK(kl_glsl_fp64_source(twice, 4, NULL, 0) == need);
  }
  free(exp_text);
  printf("  library text: %zu bytes; exp alone: %zu bytes\n", whole, need);
}

static void test_glsl_compiles(void) {
  if (!agpu_test_find_tool("glslangValidator", fp64_glslang, sizeof fp64_glslang))
    SKIP("glslangValidator not found in PATH (Debian: glslang-tools)");
  if (!agpu_test_find_tool("spirv-val", fp64_spirv_val, sizeof fp64_spirv_val))
    SKIP("spirv-val not found in PATH (Debian: spirv-tools)");
  if (!fp64_make_work_dir()) SKIP("mkdtemp failed");
  char *shader = fp64_shader_for(kl_glsl_fp64_library(), fp64_all_builtins, BUILTIN_COUNT);
  CHECK(shader && fp64_glsl_valid("whole", shader));
  free(shader);
  int valid = 0;
  for (size_t i = 0; i < BUILTIN_COUNT; i++) {
    size_t length = kl_glsl_fp64_source(&fp64_all_builtins[i], 1, NULL, 0);
    char *text = malloc(length + 1);
    if (!text) continue;
    kl_glsl_fp64_source(&fp64_all_builtins[i], 1, text, length + 1);
    shader = fp64_shader_for(text, &fp64_all_builtins[i], 1);
    bool ok = shader && fp64_glsl_valid(fp64_all_builtins[i], shader);
    CHECK(ok);
    valid += ok;
    free(shader);
    free(text);
  }
  printf(
      "  glslang + spirv-val: the whole library and %d of %zu "
      "single-builtin extracts\n",
      valid, BUILTIN_COUNT);
}

static void test_c_build(void) {
  char why[256];
  if (!fp64_build_c_library(why, sizeof why)) {
    CHECK(!"the library builds as C");
    printf("  %s\n", why);
  }
}

static double sample(const range_t *r, uint64_t *seed) {
  double u = (double)(agpu_test_rand(seed) >> 11) / 9007199254740992.0;
  switch (r->mode) {
    case 'u':
      return r->lo + (r->hi - r->lo) * u;
    case 'i':
      return floor(r->lo + (r->hi - r->lo + 1) * u);
    default: {
      double v = exp(log(r->lo) + (log(r->hi) - log(r->lo)) * u);
      if (r->mode == 's' && (agpu_test_rand(seed) & 1)) v = -v;
      return v;
    }
  }
}

static const double specials[] = {0.0,
                                  -0.0,
                                  INFINITY,
                                  -INFINITY,
                                  NAN,
                                  1.0,
                                  -1.0,
                                  0.5,
                                  -0.5,
                                  2.0,
                                  -2.0,
                                  3.0,
                                  -3.0,
                                  1.5,
                                  -2.5,
                                  0.25,
                                  TINY,
                                  -TINY,
                                  DBL_MIN,
                                  -DBL_MIN,
                                  HUGE_D,
                                  -HUGE_D,
                                  1e-300,
                                  -1e-300,
                                  1e300,
                                  10.0,
                                  -10.0,
                                  709.78,
                                  710.0,
                                  -745.2,
                                  1024.0,
                                  -1075.0,
                                  4503599627370496.0,
                                  9007199254740994.0,
                                  -9007199254740994.0,
                                  1.5707963267948966,
                                  1e22,
                                  6.0,
                                  -6.0,
                                  27.0,
                                  171.7,
                                  -171.5,
                                  0.75,
                                  -180.5,
                                  -183.9,
                                  1e-5,
                                  -1e-5};
#define SPECIAL_COUNT (sizeof specials / sizeof specials[0])
static const int special_ints[] = {0,  1,   -1,   2,    -2,    3,       -3,     5,
                                   -4, 100, -100, 2000, -2000, INT_MAX, INT_MIN};
#define SPECIAL_INT_COUNT (sizeof special_ints / sizeof special_ints[0])

typedef struct worst_t {
  double ulp, x, y;
  int n;
} worst_t;

static void note(worst_t *w, double err, double x, double y, int n) {
  if (err > w->ulp || (isinf(err) && !isinf(w->ulp))) {
    w->ulp = err;
    w->x = x;
    w->y = y;
    w->n = n;
  }
}

static bool is_pole_domain(const char *f, double x) {
  return strcmp(f, "lgamma") == 0 && x < 0;
}

/* Checks one builtin: random arguments and the special ones. */
static bool check_function(const fn_info *info, double *measured, bool verbose) {
  const char *symbol_name = kl_glsl_fp64_function(info->builtin);
  void *fn = fp64_symbol(symbol_name);
  if (!fn) return false;
  const domain_t *d = NULL;
  for (size_t i = 0; i < fp64_domain_count; i++)
    if (strcmp(fp64_domains[i].builtin, info->builtin) == 0) d = &fp64_domains[i];
  if (!d) return false;
  uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)strlen(info->builtin) * 0x100000001b3ull;
  for (const char *c = info->builtin; *c; c++) seed = seed * 131 + (unsigned char)*c;
  worst_t random = {0, 0, 0, 0}, special = {0, 0, 0, 0};
  for (int r = 0; r < 3; r++) {
    for (int i = 0; i < 3000; i++) {
      double x = sample(&d->x[r], &seed), y = 0;
      int n = 0;
      if (info->kind == D_DD || info->kind == I_DD) y = sample(&d->y[r], &seed);
      if (info->kind == D_DI)
        n = d->n_lo[r] + (int)(agpu_test_rand(&seed) % (uint64_t)(d->n_hi[r] - d->n_lo[r] + 1));
      double got = fp64_call(info, fn, x, y, n);
      long double want = fp64_reference(info->builtin, x, y, n);
      note(&random, fp64_ulp_error(got, want, is_pole_domain(info->builtin, x)), x, y, n);
    }
  }
  size_t second = info->kind == D_DD || info->kind == I_DD ? SPECIAL_COUNT
                  : info->kind == D_DI                     ? SPECIAL_INT_COUNT
                                                           : 1;
  for (size_t i = 0; i < SPECIAL_COUNT; i++) {
    for (size_t j = 0; j < second; j++) {
      double x = specials[i], y = info->kind == D_DI ? 0 : specials[j];
      int n = info->kind == D_DI ? special_ints[j] : 0;
      double got = fp64_call(info, fn, x, y, n);
      long double want = fp64_reference(info->builtin, x, y, n);
      note(&special, fp64_ulp_error(got, want, is_pole_domain(info->builtin, x)), x, y, n);
    }
  }
  *measured = random.ulp > special.ulp ? random.ulp : special.ulp;
  bool ok = random.ulp <= info->ulp_limit && special.ulp <= info->ulp_limit;
  if (!verbose && ok) return ok;
  printf("  %-10s max %6.3g ulp random (at %.17g", info->builtin, random.ulp, random.x);
  if (info->kind == D_DD || info->kind == I_DD) printf(", %.17g", random.y);
  if (info->kind == D_DI) printf(", %d", random.n);
  printf("), %6.3g ulp specials (limit %g)%s", special.ulp, info->ulp_limit, ok ? "\n" : "  FAIL");
  if (!ok) {
    worst_t *w = random.ulp > info->ulp_limit ? &random : &special;
    double got = fp64_call(info, fn, w->x, w->y, w->n);
    printf(" at x=%.17g y=%.17g n=%d: got %.17g want %.21Lg\n", w->x, w->y, w->n, got,
           fp64_reference(info->builtin, w->x, w->y, w->n));
  }
  return ok;
}

static void test_accuracy(void) {
  char why[256];
  if (!fp64_build_c_library(why, sizeof why)) SKIP("%s", why);
  int failed = 0;
  for (size_t i = 0; i < FUNCTION_COUNT; i++) {
    double measured = 0;
    if (!check_function(&fp64_functions[i], &measured, true)) failed++;
  }
  CHECK(failed == 0);
}

/* The same checks on the degraded build: every function must keep its
 * limits on a device whose fma is not fused and whose sqrt is 2 ulp off,
 * both of which Vulkan allows. */
static void test_degraded_device(void) {
  char why[256];
  if (!fp64_build_c_library(why, sizeof why) || !fp64_build_c_variant(true, why, sizeof why))
    SKIP("%s", why);
  fp64_active_so = fp64_degraded_so;
  int failed = 0;
  double worst_ratio = 0;
  const char *worst = "";
  for (size_t i = 0; i < FUNCTION_COUNT; i++) {
    double measured = 0;
    if (!check_function(&fp64_functions[i], &measured, false)) failed++;
    double ratio =
        fp64_functions[i].ulp_limit > 0 ? measured / fp64_functions[i].ulp_limit : measured;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = fp64_functions[i].builtin;
    }
  }
  fp64_active_so = fp64_library_so;
  printf(
      "  unfused fma, sqrt 2 ulp off: %d functions over their limits; closest to its limit: %s at "
      "%.0f%%\n",
      failed, worst, 100 * worst_ratio);
  CHECK(failed == 0);
}

/* sin, cos and tan far beyond 1e5 (Payne-Hanek reduction from 2^26 on),
 * with arguments famous for lying close to multiples of pi/2. */
static void test_trig_large(void) {
  char why[256];
  if (!fp64_build_c_library(why, sizeof why)) SKIP("%s", why);
  const char *names[] = {"sin", "cos", "tan"};
  const double hard[] = {ldexp(6381956970095103.0, 797),
                         ldexp(5706435512100427.0, 66),
                         1.0e22,
                         5.319372648326541e255,
                         2.6689979229422463e29,
                         67108864.0,
                         67108863.999999993,
                         1e6,
                         1.5707963267948966e15};
  for (int f = 0; f < 3; f++) {
    const fn_info *info = NULL;
    for (size_t j = 0; j < FUNCTION_COUNT; j++)
      if (strcmp(fp64_functions[j].builtin, names[f]) == 0) info = &fp64_functions[j];
    fn_d_d fn = (fn_d_d)fp64_symbol(kl_glsl_fp64_function(names[f]));
    if (!fn || !info) {
      CHECK(!"symbol");
      continue;
    }
    uint64_t seed = 777 + (uint64_t)f;
    range_t large = {'s', 1e5, HUGE_D}, mid = {'s', 1e5, 1e16};
    worst_t w = {0, 0, 0, 0};
    for (int i = 0; i < 6000; i++) {
      double x = sample(i & 1 ? &large : &mid, &seed);
      note(&w, fp64_ulp_error(fn(x), fp64_reference(names[f], x, 0, 0), false), x, 0, 0);
    }
    for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++)
      for (int sign = -1; sign <= 1; sign += 2) {
        double x = sign * hard[i];
        note(&w, fp64_ulp_error(fn(x), fp64_reference(names[f], x, 0, 0), false), x, 0, 0);
      }
    printf("  %-4s |x| from 1e5 to DBL_MAX: max %.3g ulp (limit %g)", names[f], w.ulp,
           info->ulp_limit);
    if (w.ulp > info->ulp_limit) printf(" at x=%.17g", w.x);
    printf("\n");
    CHECK(w.ulp <= info->ulp_limit);
  }
}

/* Every function on a Vulkan device, compared with the C build (bit for
 * bit) and with the references (the ULP limits). Devices that do not
 * preserve fp64 subnormals (shaderDenormPreserveFloat64, which lavapipe
 * lacks) may differ where a subnormal is involved; those are counted. */
static void test_vulkan_device(void) {
#ifndef FP64_HAVE_VULKAN_H
  SKIP("vulkan/vulkan.h not found when the test was built");
#else
  char why[256];
  if (!fp64_build_c_library(why, sizeof why)) SKIP("%s", why);
  if (!fp64_glslang[0] &&
      !agpu_test_find_tool("glslangValidator", fp64_glslang, sizeof fp64_glslang))
    SKIP("glslangValidator not found in PATH (Debian: glslang-tools)");
  vk_run run;
  DRIVER_ALLOCATIONS_BEGIN();
  bool opened = fp64_vk_open(&run, why, sizeof why);
  DRIVER_ALLOCATIONS_END();
  if (!opened) {
    DRIVER_ALLOCATIONS_BEGIN();
    fp64_vk_close(&run);
    DRIVER_ALLOCATIONS_END();
    SKIP("%s", why);
  }
  char *shader = fp64_device_shader();
  char comp[700], spv_path[700], log[700], command[2400];
  snprintf(comp, sizeof comp, "%s/device.comp", fp64_work_dir);
  snprintf(spv_path, sizeof spv_path, "%s/device.spv", fp64_work_dir);
  snprintf(log, sizeof log, "%s/device.log", fp64_work_dir);
  snprintf(command, sizeof command, "'%s' -V --target-env vulkan1.1 -S comp '%s' -o '%s'",
           fp64_glslang, comp, spv_path);
  bool compiled =
      shader && fp64_write_text(comp, shader, NULL) && fp64_run_logged(command, log) == 0;
  free(shader);
  if (!compiled) {
    fp64_print_log(log);
    CHECK(!"the device shader compiles");
    DRIVER_ALLOCATIONS_BEGIN();
    fp64_vk_close(&run);
    DRIVER_ALLOCATIONS_END();
    return;
  }
  FILE *f = fopen(spv_path, "rb");
  uint32_t *spv = malloc(8 << 20);
  size_t spv_bytes = f && spv ? fread(spv, 1, 8 << 20, f) : 0;
  if (f) fclose(f);
  /* the arguments: 600 random ones per range and the special ones */
  size_t cap = FUNCTION_COUNT * (1800 + SPECIAL_COUNT * SPECIAL_COUNT), count = 0;
  double *in = malloc(cap * 4 * sizeof(double)), *out = malloc(cap * sizeof(double));
  CHECK(spv_bytes > 0 && in && out);
  if (spv_bytes == 0 || !in || !out) goto done;
  for (size_t fi = 0; fi < FUNCTION_COUNT; fi++) {
    const fn_info *info = &fp64_functions[fi];
    const domain_t *d = NULL;
    for (size_t i = 0; i < fp64_domain_count; i++)
      if (strcmp(fp64_domains[i].builtin, info->builtin) == 0) d = &fp64_domains[i];
    uint64_t seed = 4242 + fi;
    for (int r = 0; d && r < 3; r++)
      for (int i = 0; i < 600; i++) {
        double *rec = &in[4 * count++];
        rec[0] = sample(&d->x[r], &seed);
        rec[1] = info->kind == D_DD || info->kind == I_DD ? sample(&d->y[r], &seed) : 0;
        rec[2] = info->kind == D_DI ? d->n_lo[r] + (int)(agpu_test_rand(&seed) %
                                                         (uint64_t)(d->n_hi[r] - d->n_lo[r] + 1))
                                    : 0;
        rec[3] = (double)fi;
      }
    size_t second = info->kind == D_DD || info->kind == I_DD ? SPECIAL_COUNT
                    : info->kind == D_DI                     ? SPECIAL_INT_COUNT
                                                             : 1;
    for (size_t i = 0; i < SPECIAL_COUNT; i++)
      for (size_t j = 0; j < second; j++) {
        double *rec = &in[4 * count++];
        rec[0] = specials[i];
        rec[1] = info->kind == D_DI ? 0 : specials[j];
        rec[2] = info->kind == D_DI ? special_ints[j] : 0;
        rec[3] = (double)fi;
      }
  }
  DRIVER_ALLOCATIONS_BEGIN();
  bool dispatched = fp64_vk_dispatch(&run, spv, spv_bytes, in, out, (uint32_t)count);
  DRIVER_ALLOCATIONS_END();
  CHECK(dispatched);
  size_t identical = 0, within = 0, subnormal = 0, bad = 0;
  for (size_t i = 0; i < count; i++) {
    const double *rec = &in[4 * i];
    const fn_info *info = &fp64_functions[(size_t)rec[3]];
    void *fn = fp64_symbol(kl_glsl_fp64_function(info->builtin));
    double c = fn ? fp64_call(info, fn, rec[0], rec[1], (int)rec[2]) : NAN, g = out[i];
    if (memcmp(&c, &g, sizeof c) == 0 || (isnan(c) && isnan(g))) {
      identical++;
      continue;
    }
    long double want = fp64_reference(info->builtin, rec[0], rec[1], (int)rec[2]);
    if (fp64_ulp_error(g, want, is_pole_domain(info->builtin, rec[0])) <= info->ulp_limit)
      within++;
    else if (fp64_involves_subnormal(rec[0], rec[1], want))
      subnormal++;
    else if (bad++ < 10)
      printf(
          "  %s(%.17g, %.17g, %d) on the device: %.17g, C build %.17g, "
          "reference %.21Lg\n",
          info->builtin, rec[0], rec[1], (int)rec[2], g, c, want);
  }
  printf(
      "  %s: %zu of %zu results bit-identical to the C build, %zu others "
      "within the ULP limits, %zu "
      "differ where a subnormal is involved, %zu wrong\n",
      run.name, identical, count, within, subnormal, bad);
  CHECK(bad == 0);
done:
  free(spv);
  free(in);
  free(out);
  DRIVER_ALLOCATIONS_BEGIN();
  fp64_vk_close(&run);
  DRIVER_ALLOCATIONS_END();
#endif
}

/* The out-pointer parts: frexp's exponent, lgamma_r's sign, remquo's
 * quotient bits, sincos's cosine (checked as cos above). */
static void test_out_parts(void) {
  char why[256];
  if (!fp64_build_c_library(why, sizeof why)) SKIP("%s", why);
  fn_i_d frexp_exp = (fn_i_d)fp64_symbol("kl_frexp_exp_f64");
  fn_i_d lgamma_sign = (fn_i_d)fp64_symbol("kl_lgamma_sign_f64");
  fn_i_dd remquo_quo = (fn_i_dd)fp64_symbol("kl_remquo_quo_f64");
  if (!frexp_exp || !lgamma_sign || !remquo_quo) {
    CHECK(!"out-part symbols");
    return;
  }
  uint64_t seed = 12345;
  range_t wide = {'s', TINY, HUGE_D}, mid = {'s', 1e-30, 1e30}, neg = {'u', -50, 50};
  int bad = 0;
  for (int i = 0; i < 20000; i++) {
    double x = sample(&wide, &seed), a = sample(&mid, &seed), b = sample(&mid, &seed);
    int e;
    frexp(x, &e);
    if (frexp_exp(x) != e && bad++ < 5) printf("  frexp(%.17g): %d, libm %d\n", x, frexp_exp(x), e);
    double g = sample(&neg, &seed);
    int s;
    lgamma_r(g, &s);
    if (floor(g) != g && lgamma_sign(g) != s && bad++ < 5)
      printf("  lgamma_r(%.17g): sign %d, libm %d\n", g, lgamma_sign(g), s);
    int q;
    remquo(a, b, &q);
    int got = remquo_quo(a, b);
    if (((got - q) & 7) != 0 || (got != 0 && q != 0 && (got < 0) != (q < 0))) {
      if (bad++ < 5) printf("  remquo(%.17g, %.17g): quo %d, libm %d\n", a, b, got, q);
    }
  }
  for (size_t i = 0; i < SPECIAL_COUNT; i++) {
    double x = specials[i];
    int e = 0;
    if (isfinite(x)) frexp(x, &e);
    bad += frexp_exp(x) != e;
  }
  /* fmod, remainder and remquo on random bit patterns (any exponents) */
  fn_d_dd fmod_fn = (fn_d_dd)fp64_symbol("kl_fmod_f64"),
          remainder_fn = (fn_d_dd)fp64_symbol("kl_remainder_f64");
  int inexact = 0;
  for (int i = 0; fmod_fn && remainder_fn && i < 20000; i++) {
    uint64_t bx = agpu_test_rand(&seed), by = agpu_test_rand(&seed);
    double x, y;
    memcpy(&x, &bx, 8);
    memcpy(&y, &by, 8);
    if (!isfinite(x) || !isfinite(y) || y == 0) continue;
    double f = fmod_fn(x, y), r = remainder_fn(x, y), want_f = fmod(x, y), want_r = remainder(x, y);
    int q, got = remquo_quo(x, y);
    remquo(x, y, &q);
    if (memcmp(&f, &want_f, 8) != 0 || memcmp(&r, &want_r, 8) != 0 || ((got - q) & 7) != 0) {
      if (inexact++ < 5)
        printf("  fmod/remainder/remquo(%a, %a): %a %a %d, libm %a %a %d\n", x, y, f, r, got,
               want_f, want_r, q);
    }
  }
  CHECK(inexact == 0);
  CHECK(lgamma_sign(-0.0) == -1 && lgamma_sign(0.0) == 1 && lgamma_sign(-2.0) == 0);
  CHECK(remquo_quo(7.0, 2.0) == 4 && remquo_quo(-7.0, 2.0) == -4 && remquo_quo(5.0, 2.0) == 2);
  CHECK(bad == 0);
}

int main(void) {
  RUN(test_interface);
  RUN(test_glsl_compiles);
  RUN(test_c_build);
  RUN(test_accuracy);
  RUN(test_degraded_device);
  RUN(test_trig_large);
  RUN(test_out_parts);
  RUN(test_vulkan_device);
  int rc = agpu_test_finish();
  if (fp64_work_dir[0] && !agpu_test_g.failed) {
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", fp64_work_dir);
    if (system(command) != 0) printf("cannot remove %s\n", fp64_work_dir);
  }
  return rc;
}
