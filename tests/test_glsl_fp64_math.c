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
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dlfcn.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agpu_test.h"
#include "glsl_fp64_math.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
/* The Vulkan driver's own allocations (lavapipe keeps some past
 * vkDestroyInstance) are not the library's leaks. */
#define DRIVER_ALLOCATIONS_BEGIN() __lsan_disable()
#define DRIVER_ALLOCATIONS_END() __lsan_enable()
#else
#define DRIVER_ALLOCATIONS_BEGIN() ((void)0)
#define DRIVER_ALLOCATIONS_END() ((void)0)
#endif

#if defined(__has_include)
#if __has_include(<vulkan/vulkan.h>)
#define FP64_HAVE_VULKAN_H 1
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#endif
#endif

#ifndef AGPU_TEST_CC
#define AGPU_TEST_CC "cc"
#endif

static char work_dir[512];

static bool make_work_dir(void) {
  if (work_dir[0]) return true;
  snprintf(work_dir, sizeof work_dir, "/tmp/agpu_fp64_XXXXXX");
  return mkdtemp(work_dir) != NULL;
}

static bool write_text(const char *path, const char *a, const char *b) {
  FILE *f = fopen(path, "w");
  if (!f) return false;
  bool ok = fputs(a, f) >= 0 && (!b || fputs(b, f) >= 0);
  return fclose(f) == 0 && ok;
}

static void print_log(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512];
  for (int n = 0; n < 40 && fgets(line, sizeof line, f); n++) printf("    %s", line);
  fclose(f);
}

static int run_logged(const char *command, const char *log) {
  char full[4096];
  snprintf(full, sizeof full, "%s > '%s' 2>&1", command, log);
  int status = system(full);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool find_tool(const char *name, char *path, size_t size) {
  const char *env_path = getenv("PATH");
  char dirs[4096];
  snprintf(dirs, sizeof dirs, "%s:/usr/bin:/usr/local/bin", env_path ? env_path : "");
  for (char *dir = strtok(dirs, ":"); dir; dir = strtok(NULL, ":")) {
    snprintf(path, size, "%s/%s", dir, name);
    if (access(path, X_OK) == 0) return true;
  }
  return false;
}

/* ---- the builtins, their C signatures and limits ---- */

typedef enum { D_D, D_DD, D_DI, I_D, I_DD } kind_t;

typedef struct fn_info {
  const char *builtin;
  kind_t kind;
  double ulp_limit; /* OpenCL C 1.2, section 7.4, double */
} fn_info;

static const fn_info functions[] = {
    {"exp", D_D, 3},     {"exp2", D_D, 3},       {"exp10", D_D, 3},  {"expm1", D_D, 3},
    {"log", D_D, 3},     {"log2", D_D, 3},       {"log10", D_D, 3},  {"log1p", D_D, 2},
    {"pow", D_DD, 16},   {"pown", D_DI, 16},     {"powr", D_DD, 16}, {"rootn", D_DI, 16},
    {"cbrt", D_D, 2},    {"hypot", D_DD, 4},     {"sin", D_D, 4},    {"cos", D_D, 4},
    {"tan", D_D, 5},     {"sinpi", D_D, 4},      {"cospi", D_D, 4},  {"tanpi", D_D, 6},
    {"asin", D_D, 4},    {"acos", D_D, 4},       {"atan", D_D, 5},   {"atan2", D_DD, 6},
    {"asinpi", D_D, 5},  {"acospi", D_D, 5},     {"atanpi", D_D, 5}, {"atan2pi", D_DD, 6},
    {"sinh", D_D, 4},    {"cosh", D_D, 4},       {"tanh", D_D, 5},   {"asinh", D_D, 4},
    {"acosh", D_D, 4},   {"atanh", D_D, 5},      {"erf", D_D, 16},   {"erfc", D_D, 16},
    {"tgamma", D_D, 16}, {"lgamma", D_D, 16},    {"fmod", D_DD, 0},  {"remainder", D_DD, 0},
    {"ldexp", D_DI, 0},  {"nextafter", D_DD, 0}, {"frexp", D_D, 0},  {"logb", D_D, 0},
    {"ilogb", I_D, 0},   {"modf", D_D, 0},       {"fract", D_D, 0},  {"degrees", D_D, 2},
    {"radians", D_D, 2},
};
#define FUNCTION_COUNT (sizeof functions / sizeof functions[0])

/* ---- (a) GLSL ---- */

/* A compute shader that calls every function in `text` reachable from the
 * builtins named, so that the SPIR-V holds them all. */
static char *shader_for(const char *text, const char *const *names, size_t count) {
  size_t cap = strlen(text) + 4096 + count * 256;
  char *s = malloc(cap);
  if (!s) return NULL;
  size_t n = (size_t)snprintf(s, cap, "#version 450\n%s", text);
  n += (size_t)snprintf(s + n, cap - n,
                        "layout(local_size_x = 1) in;\n"
                        "layout(std430, binding = 0) buffer B { double v[]; };\n"
                        "void main() {\n  double x = v[0], y = v[1], r = 0.0lf;\n"
                        "  int i = int(v[2]);\n");
  for (size_t k = 0; k < count; k++) {
    const char *f = kl_glsl_fp64_function(names[k]), *o = kl_glsl_fp64_out_function(names[k]);
    const fn_info *info = NULL;
    for (size_t j = 0; j < FUNCTION_COUNT; j++)
      if (strcmp(functions[j].builtin, names[k]) == 0) info = &functions[j];
    bool two = info ? info->kind == D_DD || info->kind == I_DD : strcmp(names[k], "remquo") == 0;
    bool with_int = info && info->kind == D_DI;
    const char *args = two ? "x, y" : with_int ? "x, i" : "x";
    if (f) n += (size_t)snprintf(s + n, cap - n, "  r += double(%s(%s));\n", f, args);
    if (o) n += (size_t)snprintf(s + n, cap - n, "  r += double(%s(%s));\n", o, args);
  }
  snprintf(s + n, cap - n, "  v[3] = r;\n}\n");
  return s;
}

static char glslang[600], spirv_val[600];

static bool glsl_valid(const char *label, const char *shader) {
  char comp[700], spv[700], log[700], command[2400];
  snprintf(comp, sizeof comp, "%s/%s.comp", work_dir, label);
  snprintf(spv, sizeof spv, "%s/%s.spv", work_dir, label);
  snprintf(log, sizeof log, "%s/%s.log", work_dir, label);
  if (!write_text(comp, shader, NULL)) return false;
  snprintf(command, sizeof command, "'%s' -V --target-env vulkan1.1 -S comp '%s' -o '%s'", glslang,
           comp, spv);
  if (run_logged(command, log) != 0) {
    printf("  glslang rejects %s:\n", label);
    print_log(log);
    return false;
  }
  snprintf(command, sizeof command, "'%s' --target-env vulkan1.1 '%s'", spirv_val, spv);
  if (run_logged(command, log) != 0) {
    printf("  spirv-val rejects %s:\n", label);
    print_log(log);
    return false;
  }
  return true;
}

static const char *all_builtins[] = {
    "acos",   "acosh",  "acospi",  "asin",      "asinh",    "asinpi", "atan",  "atan2",
    "atanh",  "atanpi", "atan2pi", "cbrt",      "cos",      "cosh",   "cospi", "erf",
    "erfc",   "exp",    "exp2",    "exp10",     "expm1",    "fmod",   "fract", "frexp",
    "hypot",  "ilogb",  "ldexp",   "lgamma",    "lgamma_r", "log",    "log2",  "log10",
    "log1p",  "logb",   "modf",    "nextafter", "pow",      "pown",   "powr",  "remainder",
    "remquo", "rootn",  "sin",     "sincos",    "sinh",     "sinpi",  "tan",   "tanh",
    "tanpi",  "tgamma", "degrees", "radians"};
#define BUILTIN_COUNT (sizeof all_builtins / sizeof all_builtins[0])

static void test_interface(void) {
  CHECK(strcmp(kl_glsl_fp64_function("exp"), "kl_exp_f64") == 0);
  CHECK(strcmp(kl_glsl_fp64_function("sincos"), "kl_sin_f64") == 0);
  CHECK(strcmp(kl_glsl_fp64_out_function("sincos"), "kl_cos_f64") == 0);
  CHECK(strcmp(kl_glsl_fp64_out_function("remquo"), "kl_remquo_quo_f64") == 0);
  CHECK(kl_glsl_fp64_function("sqrt") == NULL && kl_glsl_fp64_function("fma") == NULL);
  CHECK(kl_glsl_fp64_function("no_such") == NULL && kl_glsl_fp64_function(NULL) == NULL);
  CHECK(kl_glsl_fp64_out_function("exp") == NULL);
  for (size_t i = 0; i < BUILTIN_COUNT; i++) CHECK(kl_glsl_fp64_function(all_builtins[i]) != NULL);
  /* snprintf-style: the length needed, a truncated copy, and each function
   * of the library defined exactly once in the whole text. */
  size_t whole = kl_glsl_fp64_source(all_builtins, BUILTIN_COUNT, NULL, 0);
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
  if (!find_tool("glslangValidator", glslang, sizeof glslang))
    SKIP("glslangValidator not found in PATH (Debian: glslang-tools)");
  if (!find_tool("spirv-val", spirv_val, sizeof spirv_val))
    SKIP("spirv-val not found in PATH (Debian: spirv-tools)");
  if (!make_work_dir()) SKIP("mkdtemp failed");
  char *shader = shader_for(kl_glsl_fp64_library(), all_builtins, BUILTIN_COUNT);
  CHECK(shader && glsl_valid("whole", shader));
  free(shader);
  int valid = 0;
  for (size_t i = 0; i < BUILTIN_COUNT; i++) {
    size_t length = kl_glsl_fp64_source(&all_builtins[i], 1, NULL, 0);
    char *text = malloc(length + 1);
    if (!text) continue;
    kl_glsl_fp64_source(&all_builtins[i], 1, text, length + 1);
    shader = shader_for(text, &all_builtins[i], 1);
    bool ok = shader && glsl_valid(all_builtins[i], shader);
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

/* ---- (b) the same text as C ---- */

static const char c_prelude[] =
    "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include "
    "<string.h>\n"
    "typedef unsigned int uint;\n"
    "typedef struct { uint x, y; } uvec2;\n"
    "typedef struct { double x, y; } dvec2;\n"
    "typedef struct { double x, y, z; } dvec3;\n"
    "static inline uvec2 kl_c_uvec2(uint x, uint y) { uvec2 v = {x, y}; return "
    "v; }\n"
    "static inline dvec2 kl_c_dvec2(double x, double y) { dvec2 v = {x, y}; "
    "return v; }\n"
    "static inline dvec3 kl_c_dvec3(double x, double y, double z) { dvec3 v = "
    "{x, y, z}; return v; }\n"
    "static inline uvec2 unpackDouble2x32(double d) { uint64_t u; memcpy(&u, "
    "&d, 8);\n"
    "  return kl_c_uvec2((uint)u, (uint)(u >> 32)); }\n"
    "static inline double packDouble2x32(uvec2 v) { uint64_t u = "
    "((uint64_t)v.y << 32) | v.x;\n"
    "  double d; memcpy(&d, &u, 8); return d; }\n"
    "static inline double min(double a, double b) { return b < a ? b : a; }\n"
    "static inline double max(double a, double b) { return a < b ? b : a; }\n"
    "#define uvec2(a, b) kl_c_uvec2(a, b)\n"
    "#define dvec2(a, b) kl_c_dvec2(a, b)\n"
    "#define dvec3(a, b, c) kl_c_dvec3(a, b, c)\n"
    "#define int(x) ((int)(x))\n"
    "#define uint(x) ((uint)(x))\n"
    "#define double(x) ((double)(x))\n"
    "#define precise\n"
    "#define abs(x) fabs(x)\n"
    "#define roundEven(x) nearbyint(x)\n";

/* The GLSL text with the `lf` suffixes of its double literals dropped. */
static char *glsl_to_c(const char *text) {
  size_t n = strlen(text);
  char *out = malloc(n + 1), *o = out;
  if (!out) return NULL;
  for (size_t i = 0; i < n;) {
    bool ident_before = i > 0 && (isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_');
    if (!ident_before && (isdigit((unsigned char)text[i]) ||
                          (text[i] == '.' && isdigit((unsigned char)text[i + 1])))) {
      bool hex = text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X');
      size_t j = i + (hex ? 2 : 0);
      while (j < n) {
        char c = text[j];
        if (isdigit((unsigned char)c) || c == '.' || (hex && isxdigit((unsigned char)c)))
          j++;
        else if (!hex && (c == 'e' || c == 'E'))
          j += (text[j + 1] == '-' || text[j + 1] == '+') ? 2 : 1;
        else
          break;
      }
      memcpy(o, text + i, j - i);
      o += j - i;
      i = j;
      if (!hex && (strncmp(text + i, "lf", 2) == 0 || strncmp(text + i, "LF", 2) == 0)) i += 2;
    } else {
      *o++ = text[i++];
    }
  }
  *o = '\0';
  return out;
}

typedef double (*fn_d_d)(double);
typedef double (*fn_d_dd)(double, double);
typedef double (*fn_d_di)(double, int);
typedef int (*fn_i_d)(double);
typedef int (*fn_i_dd)(double, double);

static void *library_so, *degraded_so, *active_so;

/* The prelude of a device as poor as Vulkan allows: fma not fused, sqrt 2
 * ulp off. */
static const char degraded_prelude[] =
    "static inline double kl_c_sqrt_2ulp(double x) { double r = sqrt(x);\n"
    "  return r > 0 && r < INFINITY ? nextafter(nextafter(r, INFINITY), INFINITY) : r; }\n"
    "#define sqrt(x) kl_c_sqrt_2ulp(x)\n"
    "#define fma(a, b, c) ((a) * (b) + (c))\n";

/* Builds the library as C (the degraded variant with `degraded`) once. */
static bool build_c_variant(bool degraded, char *why, size_t size) {
  void **handle = degraded ? &degraded_so : &library_so;
  if (*handle) return true;
  if (!make_work_dir()) {
    snprintf(why, size, "mkdtemp failed");
    return false;
  }
  char src[700], so[700], log[700], command[2400];
  const char *variant = degraded ? "degraded" : "fp64_math";
  snprintf(src, sizeof src, "%s/%s.c", work_dir, variant);
  snprintf(so, sizeof so, "%s/%s.so", work_dir, variant);
  snprintf(log, sizeof log, "%s/cc.log", work_dir);
  char *c_text = glsl_to_c(kl_glsl_fp64_library());
  size_t prelude_size = sizeof c_prelude + sizeof degraded_prelude;
  char *prelude = malloc(prelude_size);
  if (prelude) snprintf(prelude, prelude_size, "%s%s", c_prelude, degraded ? degraded_prelude : "");
  bool written = c_text && prelude && write_text(src, prelude, c_text);
  free(prelude);
  free(c_text);
  if (!written) {
    snprintf(why, size, "cannot write the C source in %.200s", work_dir);
    return false;
  }
  snprintf(command, sizeof command,
           "%s -std=c11 -O2 -fno-fast-math -ffp-contract=off -fPIC -shared "
           "-Wall -Wextra "
           "-Wno-unused-function -o '%s' '%s' -lm",
           AGPU_TEST_CC, so, src);
  if (run_logged(command, log) != 0) {
    printf("  the C compiler rejects the library as C:\n");
    print_log(log);
    snprintf(why, size, "C build failed");
    return false;
  }
  *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!*handle) snprintf(why, size, "dlopen: %s", dlerror());
  return *handle != NULL;
}

static bool build_c_library(char *why, size_t size) {
  if (!build_c_variant(false, why, size)) return false;
  if (!active_so) active_so = library_so;
  return true;
}

static void *symbol(const char *name) {
  void *p = active_so ? dlsym(active_so, name) : NULL;
  if (!p) printf("  missing symbol %s\n", name);
  return p;
}

static void test_c_build(void) {
  char why[256];
  if (!build_c_library(why, sizeof why)) {
    CHECK(!"the library builds as C");
    printf("  %s\n", why);
  }
}

/* ---- references ---- */

/* sin(pi r) for |r| <= 1/2, and the exact reductions around it. */
static long double sinpi_small(long double r) {
  return sinl(M_PIl * r);
}
static long double ref_sinpi(double x) {
  if (isinf(x) || isnan(x)) return NAN;
  long double r = fmodl(x, 2.0L); /* exact, (-2, 2) */
  if (r > 1) r -= 2;
  if (r < -1) r += 2;
  if (r == 0 || r == 1 || r == -1) return copysign(0.0, x);
  if (r > 0.5L) r = 1 - r;
  if (r < -0.5L) r = -1 - r;
  return sinpi_small(r);
}
static long double ref_cospi(double x) {
  if (isinf(x) || isnan(x)) return NAN;
  long double r = fmodl(fabsl(x), 2.0L); /* [0, 2) */
  if (r > 1) r = 2 - r;                  /* cos(pi r) symmetric: [0, 1] */
  if (r == 0.5L) return 0.0L;
  return sinpi_small(0.5L - r);
}
static long double ref_tanpi(double x) {
  if (isinf(x) || isnan(x)) return NAN;
  long double r = fmodl(x, 1.0L); /* (-1, 1) */
  double n = x - (double)r;       /* the integer part, exact */
  bool n_odd = fmod(n, 2.0) != 0;
  if (r == 0) return copysign(0.0, n_odd ? -x : x);
  if (r == 0.5L || r == -0.5L) {
    /* x = m + 1/2 with m = floor(x): +inf for even m */
    double m = floor(x);
    return fmod(m, 2.0) == 0 ? INFINITY : -INFINITY;
  }
  return ref_sinpi(x) / ref_cospi(x);
}
static long double ref_rootn(double x, int n) {
  if (n == 0 || isnan(x)) return NAN;
  bool odd = (n & 1) != 0;
  if (x < 0 && !odd) return NAN;
  if (x == 0) return n < 0 ? (odd ? copysign(INFINITY, x) : INFINITY) : (odd ? x : 0.0);
  if (isinf(x)) return n < 0 ? (x < 0 ? -0.0 : 0.0) : x;
  long double r = expl(logl(fabsl(x)) / n);
  return x < 0 ? -r : r;
}
static long double ref_powr(double x, double y) {
  if (isnan(x) || isnan(y) || x < 0) return NAN;
  if (x == 0) return y == 0 ? NAN : (y < 0 ? INFINITY : 0.0);
  if (isinf(x)) return y == 0 ? NAN : (y < 0 ? 0.0 : INFINITY);
  if (x == 1) return isinf(y) ? NAN : 1.0;
  return powl(x, y);
}
static long double ref_fract(double x) {
  if (isnan(x) || x == 0) return x;
  if (isinf(x)) return copysign(0.0, x);
  return fmin(x - floor(x), 0x1.fffffffffffffp-1);
}

static long double reference(const char *f, double x, double y, int n) {
#define IS(name) (strcmp(f, name) == 0)
  if (IS("exp")) return expl(x);
  if (IS("exp2")) return exp2l(x);
  if (IS("exp10")) return exp10l(x);
  if (IS("expm1")) return expm1l(x);
  if (IS("log")) return logl(x);
  if (IS("log2")) return log2l(x);
  if (IS("log10")) return log10l(x);
  if (IS("log1p")) return log1pl(x);
  if (IS("pow")) return powl(x, y);
  if (IS("pown")) return powl(x, (long double)n);
  if (IS("powr")) return ref_powr(x, y);
  if (IS("rootn")) return ref_rootn(x, n);
  if (IS("cbrt")) return cbrtl(x);
  if (IS("hypot")) return hypotl(x, y);
  if (IS("sin")) return sinl(x);
  if (IS("cos")) return cosl(x);
  if (IS("tan")) return tanl(x);
  if (IS("sinpi")) return ref_sinpi(x);
  if (IS("cospi")) return ref_cospi(x);
  if (IS("tanpi")) return ref_tanpi(x);
  if (IS("asin")) return asinl(x);
  if (IS("acos")) return acosl(x);
  if (IS("atan")) return atanl(x);
  if (IS("atan2")) return atan2l(x, y);
  if (IS("asinpi")) return asinl(x) / M_PIl;
  if (IS("acospi")) return acosl(x) / M_PIl;
  if (IS("atanpi")) return atanl(x) / M_PIl;
  if (IS("atan2pi")) return atan2l(x, y) / M_PIl;
  if (IS("sinh")) return sinhl(x);
  if (IS("cosh")) return coshl(x);
  if (IS("tanh")) return tanhl(x);
  if (IS("asinh")) return asinhl(x);
  if (IS("acosh")) return acoshl(x);
  if (IS("atanh")) return atanhl(x);
  if (IS("erf")) return erfl(x);
  if (IS("erfc")) return erfcl(x);
  if (IS("tgamma")) return tgammal(x);
  if (IS("lgamma")) return lgammal(x);
  if (IS("fmod")) return fmod(x, y);
  if (IS("remainder")) return remainder(x, y);
  if (IS("ldexp")) return ldexp(x, n);
  if (IS("nextafter")) return nextafter(x, y);
  if (IS("frexp")) {
    int e;
    return frexp(x, &e);
  }
  if (IS("logb")) return logb(x);
  if (IS("modf")) {
    double i;
    return modf(x, &i);
  }
  if (IS("fract")) return ref_fract(x);
  if (IS("degrees")) return x * (180 / M_PIl);
  if (IS("radians")) return x * (M_PIl / 180);
  if (IS("ilogb")) return isnan(x) ? INT_MAX : ilogb(x); /* OpenCL: FP_ILOGBNAN is INT_MAX */
#undef IS
  return NAN;
}

/* |got - want| in units in the last place of want (as a double), or
 * INFINITY when the classes differ (NaN, infinity, zero sign). */
static double ulp_error(double got, long double want, bool absolute_near_zero) {
  if (isnan(want)) return isnan(got) ? 0 : INFINITY;
  double wd = (double)want;
  if (isinf(wd)) return got == wd ? 0 : INFINITY;
  if (isnan(got) || isinf(got)) return INFINITY;
  if (want == 0) return got == 0 && signbit(got) == signbit(wd) ? 0 : INFINITY;
  long double scale = fabsl(want);
  if (absolute_near_zero && scale < 1) scale = 1;
  int e;
  frexpl(scale, &e);
  long double ulp = ldexpl(1.0L, e - 53 < -1074 ? -1074 : e - 53);
  return (double)(fabsl((long double)got - want) / ulp);
}

/* ---- argument domains ---- */

typedef struct range_t {
  char mode; /* 'u' uniform, 'l' log-uniform magnitude, 's' the same with a
                random sign, 'i' uniform integers */
  double lo, hi;
} range_t;

typedef struct domain_t {
  const char *builtin;
  range_t x[3], y[3];
  int n_lo[3], n_hi[3];
} domain_t;

#define TINY 4.9406564584124654e-324
#define HUGE_D 1.7976931348623157e308
static const domain_t domains[] = {
    {"exp", .x = {{'u', -745.2, 709.8}, {'u', -1, 1}, {'s', 1e-300, 1}}},
    {"exp2", .x = {{'u', -1080, 1024}, {'u', -1, 1}, {'s', 1e-300, 1}}},
    {"exp10", .x = {{'u', -325, 308.3}, {'u', -1, 1}, {'s', 1e-300, 1}}},
    {"expm1", .x = {{'u', -40, 709.8}, {'u', -0.4, 0.4}, {'s', 1e-300, 1}}},
    {"log", .x = {{'l', TINY, HUGE_D}, {'u', 0.5, 2}, {'u', 0.99, 1.01}}},
    {"log2", .x = {{'l', TINY, HUGE_D}, {'u', 0.5, 2}, {'u', 0.99, 1.01}}},
    {"log10", .x = {{'l', TINY, HUGE_D}, {'u', 0.5, 2}, {'u', 0.99, 1.01}}},
    {"log1p", .x = {{'u', -1, 1}, {'l', 1e-300, 1e300}, {'s', 1e-300, 1e-3}}},
    {"pow", .x = {{'l', 1e-3, 1e3}, {'l', 1e-300, 1e300}, {'s', 0.5, 2}},
     .y = {{'u', -100, 100}, {'u', -2, 2}, {'i', -1000, 1000}}},
    {"pown", .x = {{'s', 1e-3, 1e3}, {'s', 0.5, 2}, {'s', 1e-300, 1e300}},
     .n_lo = {-100, -1000, -2}, .n_hi = {100, 1000, 2}},
    {"powr", .x = {{'l', 1e-3, 1e3}, {'l', 1e-300, 1e300}, {'u', 0.9, 1.1}},
     .y = {{'u', -100, 100}, {'u', -2, 2}, {'u', -5000, 5000}}},
    {"rootn", .x = {{'s', 1e-300, 1e300}, {'l', TINY, HUGE_D}, {'s', 0.5, 2}}, .n_lo = {-20, 1, -3},
     .n_hi = {20, 5, 3}},
    {"cbrt", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'u', 0.9, 8.1}}},
    {"hypot", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', TINY, 1e-300}},
     .y = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', TINY, 1e-300}}},
    {"sin", .x = {{'u', -10, 10}, {'s', 1e-300, 1e5}, {'u', -1e5, 1e5}}},
    {"cos", .x = {{'u', -10, 10}, {'s', 1e-300, 1e5}, {'u', -1e5, 1e5}}},
    {"tan", .x = {{'u', -10, 10}, {'s', 1e-300, 1e5}, {'u', -1e5, 1e5}}},
    {"sinpi", .x = {{'u', -10, 10}, {'s', 1e-300, 1e16}, {'u', -1e5, 1e5}}},
    {"cospi", .x = {{'u', -10, 10}, {'s', 1e-300, 1e16}, {'u', -1e5, 1e5}}},
    {"tanpi", .x = {{'u', -10, 10}, {'s', 1e-300, 1e16}, {'u', -1e5, 1e5}}},
    {"asin", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.9, 1}}},
    {"acos", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.9, 1}}},
    {"atan", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'u', -1, 1}}},
    {"atan2", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', TINY, 1e-300}},
     .y = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', 1e-300, 1}}},
    {"asinpi", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.9, 1}}},
    {"acospi", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.9, 1}}},
    {"atanpi", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'u', -1, 1}}},
    {"atan2pi", .x = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', TINY, 1e-300}},
     .y = {{'s', 1e-300, 1e300}, {'u', -10, 10}, {'s', 1e-300, 1}}},
    {"sinh", .x = {{'u', -710.4, 710.4}, {'u', -2, 2}, {'s', 1e-300, 1}}},
    {"cosh", .x = {{'u', -710.4, 710.4}, {'u', -2, 2}, {'s', 1e-300, 1}}},
    {"tanh", .x = {{'u', -25, 25}, {'u', -1, 1}, {'s', 1e-300, 1}}},
    {"asinh", .x = {{'s', 1e-300, 1e300}, {'u', -3, 3}, {'s', 1e-300, 1}}},
    {"acosh", .x = {{'l', 1, 1e300}, {'u', 1, 3}, {'u', 1, 1.01}}},
    {"atanh", .x = {{'u', -1, 1}, {'s', 1e-300, 1}, {'u', 0.99, 1}}},
    {"erf", .x = {{'u', -7, 7}, {'s', 1e-300, 1}, {'u', -2, 2}}},
    {"erfc", .x = {{'u', -7, 28}, {'u', -1, 1}, {'u', 0, 10}}},
    {"tgamma", .x = {{'u', -170, 171.6}, {'u', 0, 10}, {'u', -186, -170}}},
    {"lgamma", .x = {{'l', 1e-300, 1e300}, {'u', 0, 10}, {'u', -100, 0}}},
    {"fmod", .x = {{'s', 1e-30, 1e30}, {'s', TINY, HUGE_D}, {'u', -10, 10}},
     .y = {{'s', 1e-30, 1e30}, {'s', TINY, HUGE_D}, {'u', -10, 10}}},
    {"remainder", .x = {{'s', 1e-30, 1e30}, {'s', TINY, HUGE_D}, {'u', -10, 10}},
     .y = {{'s', 1e-30, 1e30}, {'s', TINY, HUGE_D}, {'u', -10, 10}}},
    {"ldexp", .x = {{'s', TINY, HUGE_D}, {'s', TINY, HUGE_D}, {'s', 1e-310, 1e-300}},
     .n_lo = {-2200, -60, -80}, .n_hi = {2200, 60, 10}},
    {"nextafter", .x = {{'s', TINY, HUGE_D}, {'s', TINY, 1e-300}, {'u', -1, 1}},
     .y = {{'s', TINY, HUGE_D}, {'s', TINY, 1e-300}, {'u', -1, 1}}},
    {"frexp", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', TINY, 1e-300}}},
    {"logb", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', TINY, 1e-300}}},
    {"ilogb", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', TINY, 1e-300}}},
    {"modf", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', 1, 1e17}}},
    {"fract", .x = {{'s', TINY, HUGE_D}, {'u', -10, 10}, {'s', 1, 1e17}}},
    {"degrees", .x = {{'s', TINY, 1e300}, {'u', -10, 10}, {'s', 1e305, HUGE_D}}},
    {"radians", .x = {{'s', TINY, HUGE_D}, {'u', -1000, 1000}, {'s', TINY, 1e-300}}},
};

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

/* One call of the library function of `info` (through the C build). */
static double call(const fn_info *info, void *fn, double x, double y, int n) {
  switch (info->kind) {
    case D_D:
      return ((fn_d_d)fn)(x);
    case D_DD:
      return ((fn_d_dd)fn)(x, y);
    case D_DI:
      return ((fn_d_di)fn)(x, n);
    case I_D:
      return ((fn_i_d)fn)(x);
    default:
      return ((fn_i_dd)fn)(x, y);
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
  void *fn = symbol(symbol_name);
  if (!fn) return false;
  const domain_t *d = NULL;
  for (size_t i = 0; i < sizeof domains / sizeof domains[0]; i++)
    if (strcmp(domains[i].builtin, info->builtin) == 0) d = &domains[i];
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
      double got = call(info, fn, x, y, n);
      long double want = reference(info->builtin, x, y, n);
      note(&random, ulp_error(got, want, is_pole_domain(info->builtin, x)), x, y, n);
    }
  }
  size_t second = info->kind == D_DD || info->kind == I_DD ? SPECIAL_COUNT
                  : info->kind == D_DI                     ? SPECIAL_INT_COUNT
                                                           : 1;
  for (size_t i = 0; i < SPECIAL_COUNT; i++) {
    for (size_t j = 0; j < second; j++) {
      double x = specials[i], y = info->kind == D_DI ? 0 : specials[j];
      int n = info->kind == D_DI ? special_ints[j] : 0;
      double got = call(info, fn, x, y, n);
      long double want = reference(info->builtin, x, y, n);
      note(&special, ulp_error(got, want, is_pole_domain(info->builtin, x)), x, y, n);
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
    double got = call(info, fn, w->x, w->y, w->n);
    printf(" at x=%.17g y=%.17g n=%d: got %.17g want %.21Lg\n", w->x, w->y, w->n, got,
           reference(info->builtin, w->x, w->y, w->n));
  }
  return ok;
}

static void test_accuracy(void) {
  char why[256];
  if (!build_c_library(why, sizeof why)) SKIP("%s", why);
  int failed = 0;
  for (size_t i = 0; i < FUNCTION_COUNT; i++) {
    double measured = 0;
    if (!check_function(&functions[i], &measured, true)) failed++;
  }
  CHECK(failed == 0);
}

/* The same checks on the degraded build: every function must keep its
 * limits on a device whose fma is not fused and whose sqrt is 2 ulp off,
 * both of which Vulkan allows. */
static void test_degraded_device(void) {
  char why[256];
  if (!build_c_library(why, sizeof why) || !build_c_variant(true, why, sizeof why)) SKIP("%s", why);
  active_so = degraded_so;
  int failed = 0;
  double worst_ratio = 0;
  const char *worst = "";
  for (size_t i = 0; i < FUNCTION_COUNT; i++) {
    double measured = 0;
    if (!check_function(&functions[i], &measured, false)) failed++;
    double ratio = functions[i].ulp_limit > 0 ? measured / functions[i].ulp_limit : measured;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = functions[i].builtin;
    }
  }
  active_so = library_so;
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
  if (!build_c_library(why, sizeof why)) SKIP("%s", why);
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
      if (strcmp(functions[j].builtin, names[f]) == 0) info = &functions[j];
    fn_d_d fn = (fn_d_d)symbol(kl_glsl_fp64_function(names[f]));
    if (!fn || !info) {
      CHECK(!"symbol");
      continue;
    }
    uint64_t seed = 777 + (uint64_t)f;
    range_t large = {'s', 1e5, HUGE_D}, mid = {'s', 1e5, 1e16};
    worst_t w = {0, 0, 0, 0};
    for (int i = 0; i < 6000; i++) {
      double x = sample(i & 1 ? &large : &mid, &seed);
      note(&w, ulp_error(fn(x), reference(names[f], x, 0, 0), false), x, 0, 0);
    }
    for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++)
      for (int sign = -1; sign <= 1; sign += 2) {
        double x = sign * hard[i];
        note(&w, ulp_error(fn(x), reference(names[f], x, 0, 0), false), x, 0, 0);
      }
    printf("  %-4s |x| from 1e5 to DBL_MAX: max %.3g ulp (limit %g)", names[f], w.ulp,
           info->ulp_limit);
    if (w.ulp > info->ulp_limit) printf(" at x=%.17g", w.x);
    printf("\n");
    CHECK(w.ulp <= info->ulp_limit);
  }
}

/* ---- (c) the SPIR-V run by a Vulkan device (lavapipe where no GPU) ---- */

#ifdef FP64_HAVE_VULKAN_H
/* clang-format off */
#define VK_FUNCTIONS(X) \
  X(DestroyInstance) \
  X(EnumeratePhysicalDevices) \
  X(GetPhysicalDeviceFeatures) \
  X(GetPhysicalDeviceProperties) \
  X(GetPhysicalDeviceQueueFamilyProperties) \
  X(GetPhysicalDeviceMemoryProperties) \
  X(CreateDevice) \
  X(DestroyDevice) \
  X(GetDeviceQueue) \
  X(CreateBuffer) \
  X(DestroyBuffer) \
  X(GetBufferMemoryRequirements) \
  X(AllocateMemory) \
  X(FreeMemory) \
  X(BindBufferMemory) \
  X(MapMemory) \
  X(UnmapMemory) \
  X(CreateShaderModule) \
  X(DestroyShaderModule) \
  X(CreateDescriptorSetLayout) \
  X(DestroyDescriptorSetLayout) \
  X(CreatePipelineLayout) \
  X(DestroyPipelineLayout) \
  X(CreateComputePipelines) \
  X(DestroyPipeline) \
  X(CreateDescriptorPool) \
  X(DestroyDescriptorPool) \
  X(AllocateDescriptorSets) \
  X(UpdateDescriptorSets) \
  X(CreateCommandPool) \
  X(DestroyCommandPool) \
  X(AllocateCommandBuffers) \
  X(BeginCommandBuffer) \
  X(EndCommandBuffer) \
  X(CmdBindPipeline) \
  X(CmdBindDescriptorSets) \
  X(CmdDispatch) \
  X(CmdPipelineBarrier) \
  X(QueueSubmit) \
  X(QueueWaitIdle)
/* clang-format on */

typedef struct vk_api {
  PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
  PFN_vkCreateInstance CreateInstance;
#define VK_MEMBER(name) PFN_vk##name name;
  VK_FUNCTIONS(VK_MEMBER)
#undef VK_MEMBER
} vk_api;

/* One compute device with shaderFloat64, its queue and two host-visible
 * storage buffers. */
typedef struct vk_run {
  void *loader;
  vk_api vk;
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t family;
  char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
} vk_run;

/* Opens the first device with double support; false with the reason. */
static bool vk_open(vk_run *r, char *why, size_t size) {
  memset(r, 0, sizeof *r);
  r->loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!r->loader) {
    snprintf(why, size, "no Vulkan loader (libvulkan.so.1)");
    return false;
  }
  r->vk.GetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)dlsym(r->loader, "vkGetInstanceProcAddr");
  if (!r->vk.GetInstanceProcAddr) {
    snprintf(why, size, "vkGetInstanceProcAddr missing");
    return false;
  }
  r->vk.CreateInstance = (PFN_vkCreateInstance)r->vk.GetInstanceProcAddr(NULL, "vkCreateInstance");
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "test_glsl_fp64_math",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                              .pApplicationInfo = &app};
  if (!r->vk.CreateInstance || r->vk.CreateInstance(&ici, NULL, &r->instance) != VK_SUCCESS) {
    snprintf(why, size, "vkCreateInstance failed");
    return false;
  }
#define VK_LOAD(name)                                                            \
  r->vk.name = (PFN_vk##name)r->vk.GetInstanceProcAddr(r->instance, "vk" #name); \
  if (!r->vk.name) {                                                             \
    snprintf(why, size, "vk" #name " missing");                                  \
    return false;                                                                \
  }
  VK_FUNCTIONS(VK_LOAD)
#undef VK_LOAD
  uint32_t count = 0;
  r->vk.EnumeratePhysicalDevices(r->instance, &count, NULL);
  VkPhysicalDevice devices[16];
  if (count > 16) count = 16;
  r->vk.EnumeratePhysicalDevices(r->instance, &count, devices);
  for (uint32_t i = 0; i < count && !r->physical; i++) {
    VkPhysicalDeviceFeatures features;
    r->vk.GetPhysicalDeviceFeatures(devices[i], &features);
    uint32_t families = 0;
    VkQueueFamilyProperties props[16];
    r->vk.GetPhysicalDeviceQueueFamilyProperties(devices[i], &families, NULL);
    if (families > 16) families = 16;
    r->vk.GetPhysicalDeviceQueueFamilyProperties(devices[i], &families, props);
    for (uint32_t f = 0; f < families && features.shaderFloat64; f++) {
      if (props[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        r->physical = devices[i];
        r->family = f;
        break;
      }
    }
  }
  if (!r->physical) {
    snprintf(why, size, "no Vulkan device with shaderFloat64 and a compute queue (%u devices)",
             count);
    return false;
  }
  VkPhysicalDeviceProperties properties;
  r->vk.GetPhysicalDeviceProperties(r->physical, &properties);
  snprintf(r->name, sizeof r->name, "%s", properties.deviceName);
  float priority = 1;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = r->family,
                                 .queueCount = 1,
                                 .pQueuePriorities = &priority};
  VkPhysicalDeviceFeatures enabled = {.shaderFloat64 = VK_TRUE};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                            .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci,
                            .pEnabledFeatures = &enabled};
  if (r->vk.CreateDevice(r->physical, &dci, NULL, &r->device) != VK_SUCCESS) {
    snprintf(why, size, "vkCreateDevice failed on %.100s", r->name);
    return false;
  }
  r->vk.GetDeviceQueue(r->device, r->family, 0, &r->queue);
  return true;
}

static void vk_close(vk_run *r) {
  if (r->device) r->vk.DestroyDevice(r->device, NULL);
  if (r->instance) r->vk.DestroyInstance(r->instance, NULL);
  if (r->loader) dlclose(r->loader);
}

typedef struct vk_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void *map;
} vk_buffer;

static bool vk_buffer_create(vk_run *r, VkDeviceSize bytes, vk_buffer *b) {
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = bytes,
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  if (r->vk.CreateBuffer(r->device, &bci, NULL, &b->buffer) != VK_SUCCESS) return false;
  VkMemoryRequirements req;
  r->vk.GetBufferMemoryRequirements(r->device, b->buffer, &req);
  VkPhysicalDeviceMemoryProperties mem;
  r->vk.GetPhysicalDeviceMemoryProperties(r->physical, &mem);
  VkMemoryPropertyFlags want =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < mem.memoryTypeCount && type == UINT32_MAX; i++)
    if ((req.memoryTypeBits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & want) == want)
      type = i;
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                              .allocationSize = req.size,
                              .memoryTypeIndex = type};
  return type != UINT32_MAX &&
         r->vk.AllocateMemory(r->device, &mai, NULL, &b->memory) == VK_SUCCESS &&
         r->vk.BindBufferMemory(r->device, b->buffer, b->memory, 0) == VK_SUCCESS &&
         r->vk.MapMemory(r->device, b->memory, 0, bytes, 0, &b->map) == VK_SUCCESS;
}

static void vk_buffer_destroy(vk_run *r, vk_buffer *b) {
  if (b->map) r->vk.UnmapMemory(r->device, b->memory);
  if (b->buffer) r->vk.DestroyBuffer(r->device, b->buffer, NULL);
  if (b->memory) r->vk.FreeMemory(r->device, b->memory, NULL);
}

/* Runs the shader (SPIR-V words) once per record: binding 0 holds `count`
 * records of 4 doubles, binding 1 receives `count` doubles. */
static bool vk_dispatch(vk_run *r, const uint32_t *spv, size_t spv_bytes, const double *in,
                        double *out, uint32_t count) {
  bool ok = false;
  vk_buffer bin = {0}, bout = {0};
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkCommandPool cpool = VK_NULL_HANDLE;
  if (!vk_buffer_create(r, (VkDeviceSize)count * 32, &bin) ||
      !vk_buffer_create(r, (VkDeviceSize)count * 8, &bout))
    goto done;
  memcpy(bin.map, in, (size_t)count * 32);
  memset(bout.map, 0xff, (size_t)count * 8); /* NaN-poisoned */
  VkShaderModuleCreateInfo smci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spv_bytes, .pCode = spv};
  if (r->vk.CreateShaderModule(r->device, &smci, NULL, &module) != VK_SUCCESS) goto done;
  VkDescriptorSetLayoutBinding bindings[2] = {{.binding = 0,
                                               .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .descriptorCount = 1,
                                               .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT},
                                              {.binding = 1,
                                               .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .descriptorCount = 1,
                                               .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT}};
  VkDescriptorSetLayoutCreateInfo dslci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = 2,
      .pBindings = bindings};
  if (r->vk.CreateDescriptorSetLayout(r->device, &dslci, NULL, &dsl) != VK_SUCCESS) goto done;
  VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &dsl};
  if (r->vk.CreatePipelineLayout(r->device, &plci, NULL, &layout) != VK_SUCCESS) goto done;
  VkComputePipelineCreateInfo cpci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = "main"},
      .layout = layout};
  if (r->vk.CreateComputePipelines(r->device, VK_NULL_HANDLE, 1, &cpci, NULL, &pipeline) !=
      VK_SUCCESS)
    goto done;
  VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 2};
  VkDescriptorPoolCreateInfo dpci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &ps};
  if (r->vk.CreateDescriptorPool(r->device, &dpci, NULL, &pool) != VK_SUCCESS) goto done;
  VkDescriptorSet set;
  VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &dsl};
  if (r->vk.AllocateDescriptorSets(r->device, &dsai, &set) != VK_SUCCESS) goto done;
  VkDescriptorBufferInfo infos[2] = {{bin.buffer, 0, VK_WHOLE_SIZE},
                                     {bout.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet writes[2];
  for (int i = 0; i < 2; i++)
    writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                       .dstSet = set,
                                       .dstBinding = (uint32_t)i,
                                       .descriptorCount = 1,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .pBufferInfo = &infos[i]};
  r->vk.UpdateDescriptorSets(r->device, 2, writes, 0, NULL);
  VkCommandPoolCreateInfo cpoolci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                     .queueFamilyIndex = r->family};
  if (r->vk.CreateCommandPool(r->device, &cpoolci, NULL, &cpool) != VK_SUCCESS) goto done;
  VkCommandBuffer cb;
  VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = cpool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
  if (r->vk.AllocateCommandBuffers(r->device, &cbai, &cb) != VK_SUCCESS) goto done;
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  if (r->vk.BeginCommandBuffer(cb, &begin) != VK_SUCCESS) goto done;
  r->vk.CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  r->vk.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
  r->vk.CmdDispatch(cb, (count + 63) / 64, 1, 1);
  VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  r->vk.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                           1, &barrier, 0, NULL, 0, NULL);
  if (r->vk.EndCommandBuffer(cb) != VK_SUCCESS) goto done;
  VkSubmitInfo submit = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
  if (r->vk.QueueSubmit(r->queue, 1, &submit, VK_NULL_HANDLE) != VK_SUCCESS) goto done;
  if (r->vk.QueueWaitIdle(r->queue) != VK_SUCCESS) goto done;
  memcpy(out, bout.map, (size_t)count * 8);
  ok = true;
done:
  if (cpool) r->vk.DestroyCommandPool(r->device, cpool, NULL);
  if (pool) r->vk.DestroyDescriptorPool(r->device, pool, NULL);
  if (pipeline) r->vk.DestroyPipeline(r->device, pipeline, NULL);
  if (layout) r->vk.DestroyPipelineLayout(r->device, layout, NULL);
  if (dsl) r->vk.DestroyDescriptorSetLayout(r->device, dsl, NULL);
  if (module) r->vk.DestroyShaderModule(r->device, module, NULL);
  vk_buffer_destroy(r, &bin);
  vk_buffer_destroy(r, &bout);
  return ok;
}
#endif /* FP64_HAVE_VULKAN_H */

/* The shader for the device run: record i is (x, y, n, function index). */
static char *device_shader(void) {
  size_t cap = strlen(kl_glsl_fp64_library()) + 16384;
  char *s = malloc(cap);
  if (!s) return NULL;
  size_t n =
      (size_t)snprintf(s, cap,
                       "#version 450\n%s"
                       "layout(local_size_x = 64) in;\n"
                       "layout(std430, binding = 0) readonly buffer In { double a[]; } inp;\n"
                       "layout(std430, binding = 1) writeonly buffer Out { double r[]; } outp;\n"
                       "void main() {\n"
                       "  uint i = gl_GlobalInvocationID.x;\n"
                       "  if (i >= uint(outp.r.length())) return;\n"
                       "  double x = inp.a[4u * i], y = inp.a[4u * i + 1u];\n"
                       "  int n = int(inp.a[4u * i + 2u]);\n"
                       "  double r = 0.0lf;\n"
                       "  switch (int(inp.a[4u * i + 3u])) {\n",
                       kl_glsl_fp64_library());
  for (size_t f = 0; f < FUNCTION_COUNT; f++) {
    const fn_info *info = &functions[f];
    const char *args = info->kind == D_DD || info->kind == I_DD ? "x, y"
                       : info->kind == D_DI                     ? "x, n"
                                                                : "x";
    n += (size_t)snprintf(s + n, cap - n, "    case %zu: r = double(%s(%s)); break;\n", f,
                          kl_glsl_fp64_function(info->builtin), args);
  }
  snprintf(s + n, cap - n, "  }\n  outp.r[i] = r;\n}\n");
  return s;
}

static bool involves_subnormal(double x, double y, long double want) {
  return (x != 0 && fabs(x) < DBL_MIN) || (y != 0 && fabs(y) < DBL_MIN) ||
         (want != 0 && fabsl(want) < DBL_MIN);
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
  if (!build_c_library(why, sizeof why)) SKIP("%s", why);
  if (!glslang[0] && !find_tool("glslangValidator", glslang, sizeof glslang))
    SKIP("glslangValidator not found in PATH (Debian: glslang-tools)");
  vk_run run;
  DRIVER_ALLOCATIONS_BEGIN();
  bool opened = vk_open(&run, why, sizeof why);
  DRIVER_ALLOCATIONS_END();
  if (!opened) {
    DRIVER_ALLOCATIONS_BEGIN();
    vk_close(&run);
    DRIVER_ALLOCATIONS_END();
    SKIP("%s", why);
  }
  char *shader = device_shader();
  char comp[700], spv_path[700], log[700], command[2400];
  snprintf(comp, sizeof comp, "%s/device.comp", work_dir);
  snprintf(spv_path, sizeof spv_path, "%s/device.spv", work_dir);
  snprintf(log, sizeof log, "%s/device.log", work_dir);
  snprintf(command, sizeof command, "'%s' -V --target-env vulkan1.1 -S comp '%s' -o '%s'", glslang,
           comp, spv_path);
  bool compiled = shader && write_text(comp, shader, NULL) && run_logged(command, log) == 0;
  free(shader);
  if (!compiled) {
    print_log(log);
    CHECK(!"the device shader compiles");
    DRIVER_ALLOCATIONS_BEGIN();
    vk_close(&run);
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
    const fn_info *info = &functions[fi];
    const domain_t *d = NULL;
    for (size_t i = 0; i < sizeof domains / sizeof domains[0]; i++)
      if (strcmp(domains[i].builtin, info->builtin) == 0) d = &domains[i];
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
  bool dispatched = vk_dispatch(&run, spv, spv_bytes, in, out, (uint32_t)count);
  DRIVER_ALLOCATIONS_END();
  CHECK(dispatched);
  size_t identical = 0, within = 0, subnormal = 0, bad = 0;
  for (size_t i = 0; i < count; i++) {
    const double *rec = &in[4 * i];
    const fn_info *info = &functions[(size_t)rec[3]];
    void *fn = symbol(kl_glsl_fp64_function(info->builtin));
    double c = fn ? call(info, fn, rec[0], rec[1], (int)rec[2]) : NAN, g = out[i];
    if (memcmp(&c, &g, sizeof c) == 0 || (isnan(c) && isnan(g))) {
      identical++;
      continue;
    }
    long double want = reference(info->builtin, rec[0], rec[1], (int)rec[2]);
    if (ulp_error(g, want, is_pole_domain(info->builtin, rec[0])) <= info->ulp_limit)
      within++;
    else if (involves_subnormal(rec[0], rec[1], want))
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
  vk_close(&run);
  DRIVER_ALLOCATIONS_END();
#endif
}

/* The out-pointer parts: frexp's exponent, lgamma_r's sign, remquo's
 * quotient bits, sincos's cosine (checked as cos above). */
static void test_out_parts(void) {
  char why[256];
  if (!build_c_library(why, sizeof why)) SKIP("%s", why);
  fn_i_d frexp_exp = (fn_i_d)symbol("kl_frexp_exp_f64");
  fn_i_d lgamma_sign = (fn_i_d)symbol("kl_lgamma_sign_f64");
  fn_i_dd remquo_quo = (fn_i_dd)symbol("kl_remquo_quo_f64");
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
  fn_d_dd fmod_fn = (fn_d_dd)symbol("kl_fmod_f64"),
          remainder_fn = (fn_d_dd)symbol("kl_remainder_f64");
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
  if (work_dir[0] && !agpu_test_g.failed) {
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", work_dir);
    if (system(command) != 0) printf("cannot remove %s\n", work_dir);
  }
  return rc;
}
