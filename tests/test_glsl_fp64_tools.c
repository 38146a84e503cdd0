// SPDX-License-Identifier: Apache-2.0
/* test_glsl_fp64_math's tools (test_glsl_fp64.h): a work directory, commands
 * run with their logs, the tables of builtins, and GLSL shaders compiled
 * with glslangValidator and checked by spirv-val. */
#include "test_glsl_fp64.h"

char fp64_work_dir[512];

bool fp64_make_work_dir(void) {
  if (fp64_work_dir[0]) return true;
  snprintf(fp64_work_dir, sizeof fp64_work_dir, "/tmp/agpu_fp64_XXXXXX");
  return mkdtemp(fp64_work_dir) != NULL;
}

bool fp64_write_text(const char *path, const char *a, const char *b) {
  FILE *f = fopen(path, "w");
  if (!f) return false;
  bool ok = fputs(a, f) >= 0 && (!b || fputs(b, f) >= 0);
  return fclose(f) == 0 && ok;
}

void fp64_print_log(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512];
  for (int n = 0; n < 40 && fgets(line, sizeof line, f); n++) printf("    %s", line);
  fclose(f);
}

int fp64_run_logged(const char *command, const char *log) {
  char full[4096];
  snprintf(full, sizeof full, "%s > '%s' 2>&1", command, log);
  int status = system(full);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const fn_info fp64_functions[] = {
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
const size_t fp64_function_count = sizeof fp64_functions / sizeof fp64_functions[0];

/* ---- (a) GLSL ---- */

/* A compute shader that calls every function in `text` reachable from the
 * builtins named, so that the SPIR-V holds them all. */
char *fp64_shader_for(const char *text, const char *const *names, size_t count) {
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
      if (strcmp(fp64_functions[j].builtin, names[k]) == 0) info = &fp64_functions[j];
    bool two = info ? info->kind == D_DD || info->kind == I_DD : strcmp(names[k], "remquo") == 0;
    bool with_int = info && info->kind == D_DI;
    const char *args = two ? "x, y" : with_int ? "x, i" : "x";
    if (f) n += (size_t)snprintf(s + n, cap - n, "  r += double(%s(%s));\n", f, args);
    if (o) n += (size_t)snprintf(s + n, cap - n, "  r += double(%s(%s));\n", o, args);
  }
  snprintf(s + n, cap - n, "  v[3] = r;\n}\n");
  return s;
}

char fp64_glslang[600], fp64_spirv_val[600];

bool fp64_glsl_valid(const char *label, const char *shader) {
  char comp[700], spv[700], log[700], command[2400];
  snprintf(comp, sizeof comp, "%s/%s.comp", fp64_work_dir, label);
  snprintf(spv, sizeof spv, "%s/%s.spv", fp64_work_dir, label);
  snprintf(log, sizeof log, "%s/%s.log", fp64_work_dir, label);
  if (!fp64_write_text(comp, shader, NULL)) return false;
  snprintf(command, sizeof command, "'%s' -V --target-env vulkan1.1 -S comp '%s' -o '%s'",
           fp64_glslang, comp, spv);
  if (fp64_run_logged(command, log) != 0) {
    printf("  glslang rejects %s:\n", label);
    fp64_print_log(log);
    return false;
  }
  snprintf(command, sizeof command, "'%s' --target-env vulkan1.1 '%s'", fp64_spirv_val, spv);
  if (fp64_run_logged(command, log) != 0) {
    printf("  spirv-val rejects %s:\n", label);
    fp64_print_log(log);
    return false;
  }
  return true;
}

const char *fp64_all_builtins[] = {
    "acos",   "acosh",  "acospi",  "asin",      "asinh",    "asinpi", "atan",  "atan2",
    "atanh",  "atanpi", "atan2pi", "cbrt",      "cos",      "cosh",   "cospi", "erf",
    "erfc",   "exp",    "exp2",    "exp10",     "expm1",    "fmod",   "fract", "frexp",
    "hypot",  "ilogb",  "ldexp",   "lgamma",    "lgamma_r", "log",    "log2",  "log10",
    "log1p",  "logb",   "modf",    "nextafter", "pow",      "pown",   "powr",  "remainder",
    "remquo", "rootn",  "sin",     "sincos",    "sinh",     "sinpi",  "tan",   "tanh",
    "tanpi",  "tgamma", "degrees", "radians"};
const size_t fp64_builtin_count = sizeof fp64_all_builtins / sizeof fp64_all_builtins[0];
