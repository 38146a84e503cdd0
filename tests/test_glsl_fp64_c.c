// SPDX-License-Identifier: Apache-2.0
/* test_glsl_fp64_math's C build of the library (test_glsl_fp64.h): the GLSL
 * text turned into C under a prelude of macros, compiled into a shared
 * object (and a degraded variant: fma not fused, sqrt 2 ulp off), its
 * functions called. */
#include "test_glsl_fp64.h"

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

void *fp64_library_so, *fp64_degraded_so, *fp64_active_so;

/* The prelude of a device as poor as Vulkan allows: fma not fused, sqrt 2
 * ulp off. */
static const char degraded_prelude[] =
    "static inline double kl_c_sqrt_2ulp(double x) { double r = sqrt(x);\n"
    "  return r > 0 && r < INFINITY ? nextafter(nextafter(r, INFINITY), INFINITY) : r; }\n"
    "#define sqrt(x) kl_c_sqrt_2ulp(x)\n"
    "#define fma(a, b, c) ((a) * (b) + (c))\n";

/* Builds the library as C (the degraded variant with `degraded`) once. */
bool fp64_build_c_variant(bool degraded, char *why, size_t size) {
  void **handle = degraded ? &fp64_degraded_so : &fp64_library_so;
  if (*handle) return true;
  if (!fp64_make_work_dir()) {
    snprintf(why, size, "mkdtemp failed");
    return false;
  }
  char src[700], so[700], log[700], command[2400];
  const char *variant = degraded ? "degraded" : "fp64_math";
  snprintf(src, sizeof src, "%s/%s.c", fp64_work_dir, variant);
  snprintf(so, sizeof so, "%s/%s.so", fp64_work_dir, variant);
  snprintf(log, sizeof log, "%s/cc.log", fp64_work_dir);
  char *c_text = glsl_to_c(kl_glsl_fp64_library());
  size_t prelude_size = sizeof c_prelude + sizeof degraded_prelude;
  char *prelude = malloc(prelude_size);
  if (prelude) snprintf(prelude, prelude_size, "%s%s", c_prelude, degraded ? degraded_prelude : "");
  bool written = c_text && prelude && fp64_write_text(src, prelude, c_text);
  free(prelude);
  free(c_text);
  if (!written) {
    snprintf(why, size, "cannot write the C source in %.200s", fp64_work_dir);
    return false;
  }
  snprintf(command, sizeof command,
           "%s -std=c11 -O2 -fno-fast-math -ffp-contract=off -fPIC -shared "
           "-Wall -Wextra "
           "-Wno-unused-function -o '%s' '%s' -lm",
           AGPU_TEST_CC, so, src);
  if (fp64_run_logged(command, log) != 0) {
    printf("  the C compiler rejects the library as C:\n");
    fp64_print_log(log);
    snprintf(why, size, "C build failed");
    return false;
  }
  *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!*handle) snprintf(why, size, "dlopen: %s", dlerror());
  return *handle != NULL;
}

bool fp64_build_c_library(char *why, size_t size) {
  if (!fp64_build_c_variant(false, why, size)) return false;
  if (!fp64_active_so) fp64_active_so = fp64_library_so;
  return true;
}

void *fp64_symbol(const char *name) {
  void *p = fp64_active_so ? dlsym(fp64_active_so, name) : NULL;
  if (!p) printf("  missing symbol %s\n", name);
  return p;
}

/* One call of the library function of `info` (through the C build). */
double fp64_call(const fn_info *info, void *fn, double x, double y, int n) {
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
