// SPDX-License-Identifier: Apache-2.0
/* A library of double-precision math functions in GLSL 4.50 for the OpenCL C
 * builtins that GLSL has only for 16/32-bit floats (see glsl_fp64_math.h).
 * The algorithms: range reduction (Cody-Waite with split constants,
 * Payne-Hanek for large trigonometric arguments, exact power-of-two scaling),
 * double-double arithmetic where the error budget needs it (the log behind
 * pow, the exp of a double-double, the reduced trigonometric argument) with
 * exact products by Veltkamp-Dekker splitting, not fma: SPIR-V does not
 * promise a fused fma and lavapipe's is not, and all arithmetic whose
 * rounding matters sits in `precise` variables so that drivers neither
 * contract nor reorder it; polynomials by Horner's rule with fma. Their
 * coefficients were derived with mpmath: Taylor coefficients rounded to
 * double, and for erfc, tgamma and lgamma Chebyshev interpolants of 40-digit
 * values on the intervals the code selects, converted to monomials in a
 * centred variable. The text is written so that it also compiles as C under a small
 * prelude of macros (tests/test_glsl_fp64_math.c measures its accuracy that
 * way): no GLSL-only syntax except the `lf` literal suffix, constructor
 * casts (int(x), double(x)) and the vector types. */
#include "glsl_fp64_math.h"

#include <string.h>

typedef struct kl_fp64_unit {
  const char *name, *deps; /* deps: unit names separated by spaces */
} kl_fp64_unit;

typedef struct kl_fp64_builtin {
  const char *builtin, *function, *out_function;
  const char *unit, *out_unit; /* out_unit NULL: a GLSL builtin or none */
} kl_fp64_builtin;

/* clang-format off */
static const char kl_fp64_text[] =
#include "glsl_fp64_math_bits.h"
#include "glsl_fp64_math_exp_log.h"
#include "glsl_fp64_math_trig.h"
#include "glsl_fp64_math_special.h"
    ;

/* The units of the text, in its order: each starts at its "// unit NAME"
 * line and uses the units listed (all earlier). */
static const kl_fp64_unit kl_fp64_units[] = {
    {"kl_f64_bits", ""},
    {"kl_ldexp_f64", "kl_f64_bits"},
    {"kl_frexp_f64", "kl_f64_bits kl_ldexp_f64"},
    {"kl_ilogb_f64", "kl_f64_bits"},
    {"kl_nextafter_f64", "kl_f64_bits"},
    {"kl_fmod_f64", "kl_f64_bits kl_ldexp_f64"},
    {"kl_modf_f64", "kl_f64_bits"},
    {"kl_exp_f64", "kl_f64_bits"},
    {"kl_expm1_f64", "kl_f64_bits kl_exp_f64"},
    {"kl_sinh_f64", "kl_f64_bits kl_exp_f64 kl_expm1_f64"},
    {"kl_log_f64", "kl_f64_bits"},
    {"kl_pow_f64", "kl_f64_bits kl_exp_f64 kl_log_f64"},
    {"kl_cbrt_f64", "kl_f64_bits"},
    {"kl_hypot_f64", "kl_f64_bits kl_ldexp_f64"},
    {"kl_sin_f64", "kl_f64_bits"},
    {"kl_sinpi_f64", "kl_f64_bits kl_sin_f64"},
    {"kl_atan_f64", "kl_f64_bits"},
    {"kl_asin_f64", "kl_f64_bits"},
    {"kl_asinpi_f64", "kl_f64_bits kl_asin_f64 kl_atan_f64"},
    {"kl_asinh_f64", "kl_f64_bits kl_log_f64"},
    {"kl_erf_f64", "kl_f64_bits kl_exp_f64"},
    {"kl_tgamma_f64", "kl_f64_bits kl_exp_f64 kl_log_f64 kl_sinpi_f64"},
    {"kl_lgamma_f64", "kl_f64_bits kl_exp_f64 kl_log_f64 kl_sinpi_f64 kl_tgamma_f64"},
    {"kl_degrees_f64", ""},
};

static const kl_fp64_builtin kl_fp64_builtins[] = {
    {"acos", "kl_acos_f64", NULL, "kl_asin_f64", NULL},
    {"acosh", "kl_acosh_f64", NULL, "kl_asinh_f64", NULL},
    {"acospi", "kl_acospi_f64", NULL, "kl_asinpi_f64", NULL},
    {"asin", "kl_asin_f64", NULL, "kl_asin_f64", NULL},
    {"asinh", "kl_asinh_f64", NULL, "kl_asinh_f64", NULL},
    {"asinpi", "kl_asinpi_f64", NULL, "kl_asinpi_f64", NULL},
    {"atan", "kl_atan_f64", NULL, "kl_atan_f64", NULL},
    {"atan2", "kl_atan2_f64", NULL, "kl_atan_f64", NULL},
    {"atanh", "kl_atanh_f64", NULL, "kl_asinh_f64", NULL},
    {"atanpi", "kl_atanpi_f64", NULL, "kl_asinpi_f64", NULL},
    {"atan2pi", "kl_atan2pi_f64", NULL, "kl_asinpi_f64", NULL},
    {"cbrt", "kl_cbrt_f64", NULL, "kl_cbrt_f64", NULL},
    {"ceil", "kl_f64_ceil", NULL, "kl_f64_bits", NULL},
    {"cos", "kl_cos_f64", NULL, "kl_sin_f64", NULL},
    {"cosh", "kl_cosh_f64", NULL, "kl_sinh_f64", NULL},
    {"cospi", "kl_cospi_f64", NULL, "kl_sinpi_f64", NULL},
    {"erf", "kl_erf_f64", NULL, "kl_erf_f64", NULL},
    {"erfc", "kl_erfc_f64", NULL, "kl_erf_f64", NULL},
    {"exp", "kl_exp_f64", NULL, "kl_exp_f64", NULL},
    {"exp2", "kl_exp2_f64", NULL, "kl_exp_f64", NULL},
    {"exp10", "kl_exp10_f64", NULL, "kl_exp_f64", NULL},
    {"expm1", "kl_expm1_f64", NULL, "kl_expm1_f64", NULL},
    {"floor", "kl_f64_floor", NULL, "kl_f64_bits", NULL},
    {"fmod", "kl_fmod_f64", NULL, "kl_fmod_f64", NULL},
    {"fract", "kl_fract_f64", "kl_f64_floor", "kl_modf_f64", NULL},
    {"frexp", "kl_frexp_f64", "kl_frexp_exp_f64", "kl_frexp_f64", "kl_frexp_f64"},
    {"hypot", "kl_hypot_f64", NULL, "kl_hypot_f64", NULL},
    {"ilogb", "kl_ilogb_f64", NULL, "kl_ilogb_f64", NULL},
    {"ldexp", "kl_ldexp_f64", NULL, "kl_ldexp_f64", NULL},
    {"lgamma", "kl_lgamma_f64", NULL, "kl_lgamma_f64", NULL},
    {"lgamma_r", "kl_lgamma_f64", "kl_lgamma_sign_f64", "kl_lgamma_f64", "kl_lgamma_f64"},
    {"log", "kl_log_f64", NULL, "kl_log_f64", NULL},
    {"log2", "kl_log2_f64", NULL, "kl_log_f64", NULL},
    {"log10", "kl_log10_f64", NULL, "kl_log_f64", NULL},
    {"log1p", "kl_log1p_f64", NULL, "kl_log_f64", NULL},
    {"logb", "kl_logb_f64", NULL, "kl_ilogb_f64", NULL},
    {"modf", "kl_modf_f64", "kl_f64_trunc", "kl_modf_f64", NULL},
    {"nextafter", "kl_nextafter_f64", NULL, "kl_nextafter_f64", NULL},
    {"pow", "kl_pow_f64", NULL, "kl_pow_f64", NULL},
    {"pown", "kl_pown_f64", NULL, "kl_pow_f64", NULL},
    {"powr", "kl_powr_f64", NULL, "kl_pow_f64", NULL},
    {"remainder", "kl_remainder_f64", NULL, "kl_fmod_f64", NULL},
    {"remquo", "kl_remainder_f64", "kl_remquo_quo_f64", "kl_fmod_f64", "kl_fmod_f64"},
    {"rint", "kl_f64_rint", NULL, "kl_f64_bits", NULL},
    {"rootn", "kl_rootn_f64", NULL, "kl_pow_f64", NULL},
    {"round", "kl_f64_round", NULL, "kl_f64_bits", NULL},
    {"sin", "kl_sin_f64", NULL, "kl_sin_f64", NULL},
    {"sincos", "kl_sin_f64", "kl_cos_f64", "kl_sin_f64", "kl_sin_f64"},
    {"sinh", "kl_sinh_f64", NULL, "kl_sinh_f64", NULL},
    {"sinpi", "kl_sinpi_f64", NULL, "kl_sinpi_f64", NULL},
    {"tan", "kl_tan_f64", NULL, "kl_sin_f64", NULL},
    {"tanh", "kl_tanh_f64", NULL, "kl_sinh_f64", NULL},
    {"tanpi", "kl_tanpi_f64", NULL, "kl_sinpi_f64", NULL},
    {"tgamma", "kl_tgamma_f64", NULL, "kl_tgamma_f64", NULL},
    {"trunc", "kl_f64_trunc", NULL, "kl_f64_bits", NULL},
    {"degrees", "kl_degrees_f64", NULL, "kl_degrees_f64", NULL},
    {"radians", "kl_radians_f64", NULL, "kl_degrees_f64", NULL},
};
/* clang-format on */

#define KL_FP64_UNIT_COUNT (sizeof kl_fp64_units / sizeof kl_fp64_units[0])

static const kl_fp64_builtin *kl_fp64_find(const char *builtin) {
  if (!builtin) return NULL;
  for (size_t i = 0; i < sizeof kl_fp64_builtins / sizeof kl_fp64_builtins[0]; i++)
    if (strcmp(kl_fp64_builtins[i].builtin, builtin) == 0) return &kl_fp64_builtins[i];
  return NULL;
}

const char *kl_glsl_fp64_function(const char *builtin) {
  const kl_fp64_builtin *b = kl_fp64_find(builtin);
  return b ? b->function : NULL;
}

const char *kl_glsl_fp64_out_function(const char *builtin) {
  const kl_fp64_builtin *b = kl_fp64_find(builtin);
  return b ? b->out_function : NULL;
}

static int kl_fp64_unit_index(const char *name, size_t length) {
  for (size_t i = 0; i < KL_FP64_UNIT_COUNT; i++)
    if (strlen(kl_fp64_units[i].name) == length &&
        strncmp(kl_fp64_units[i].name, name, length) == 0)
      return (int)i;
  return -1;
}

/* Marks a unit and, walking its dependency list, the units it uses. The
 * dependencies come earlier in the text, so the walk ends. */
static void kl_fp64_mark(int unit, unsigned char *wanted) {
  if (unit < 0 || wanted[unit]) return;
  wanted[unit] = 1;
  for (const char *d = kl_fp64_units[unit].deps; *d;) {
    size_t n = strcspn(d, " ");
    int dep = kl_fp64_unit_index(d, n);
    if (dep < unit) kl_fp64_mark(dep, wanted);
    d += n;
    d += strspn(d, " ");
  }
}

/* The text of a unit: from its "// unit NAME" line to the next one. */
static const char *kl_fp64_unit_text(int unit, size_t *length) {
  const char *start = kl_fp64_text;
  for (int i = 0; i <= unit && start; i++) start = strstr(i ? start + 1 : start, "// unit ");
  if (!start) {
    *length = 0;
    return kl_fp64_text;
  }
  const char *end = strstr(start + 1, "// unit ");
  *length = end ? (size_t)(end - start) : strlen(start);
  return start;
}

size_t kl_glsl_fp64_source(const char *const *builtins, size_t count, char *out, size_t capacity) {
  unsigned char wanted[KL_FP64_UNIT_COUNT] = {0};
  for (size_t i = 0; builtins && i < count; i++) {
    const kl_fp64_builtin *b = kl_fp64_find(builtins[i]);
    if (!b) continue;
    kl_fp64_mark(kl_fp64_unit_index(b->unit, strlen(b->unit)), wanted);
    if (b->out_unit) kl_fp64_mark(kl_fp64_unit_index(b->out_unit, strlen(b->out_unit)), wanted);
  }
  size_t length = 0;
  for (size_t i = 0; i < KL_FP64_UNIT_COUNT; i++) {
    if (!wanted[i]) continue;
    size_t n = 0;
    const char *text = kl_fp64_unit_text((int)i, &n);
    if (capacity > 0 && length < capacity - 1) {
      size_t room = capacity - 1 - length;
      memcpy(out + length, text, n < room ? n : room);
    }
    length += n;
  }
  if (capacity > 0) out[length < capacity - 1 ? length : capacity - 1] = '\0';
  return length;
}

const char *kl_glsl_fp64_library(void) {
  return kl_fp64_text;
}
