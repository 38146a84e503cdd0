// SPDX-License-Identifier: Apache-2.0
/* anygpu run --compare: the float rule (run_compare.h). */
#include "run_compare.h"

#include <math.h>

run_rule run_rule_for(const run_tolerance *tolerance, const run_type *type, const void *reference,
                      size_t count) {
  run_rule rule = {.by_ulp = tolerance->by_ulp, .ulps = tolerance->ulps};
  rule.rtol = tolerance->rtol_given ? tolerance->rtol
              : type->size == 8     ? RUN_DEFAULT_RTOL_DOUBLE
                                    : RUN_DEFAULT_RTOL_FLOAT;
  if (tolerance->atol_given) {
    rule.atol = tolerance->atol;
  } else {
    double largest = 0;
    for (size_t i = 0; i < count; i++) {
      double value = fabs(run_element(type, reference, i));
      if (isfinite(value) && value > largest) largest = value;
    }
    rule.atol = rule.rtol * largest;
  }
  return rule;
}

/* Sign and magnitude as two's complement order: adjacent floats differ by 1. */
uint64_t run_ulp_distance(const run_type *type, uint64_t a_bits, uint64_t b_bits) {
  uint64_t sign = type->size == 8 ? 1ull << 63 : 1ull << 31;
  uint64_t exponent_mask = type->size == 8 ? 0x7ffull << 52 : 0xffull << 23;
  uint64_t mantissa_mask = type->size == 8 ? (1ull << 52) - 1 : (1ull << 23) - 1;
  bool a_nan = (a_bits & exponent_mask) == exponent_mask && (a_bits & mantissa_mask);
  bool b_nan = (b_bits & exponent_mask) == exponent_mask && (b_bits & mantissa_mask);
  if (a_nan || b_nan) return a_nan && b_nan ? 0 : UINT64_MAX;
  uint64_t a_magnitude = a_bits & (sign - 1), b_magnitude = b_bits & (sign - 1);
  if ((a_bits & sign) == (b_bits & sign))
    return a_magnitude > b_magnitude ? a_magnitude - b_magnitude : b_magnitude - a_magnitude;
  return a_magnitude + b_magnitude; /* across zero; +0 and -0 are 0 apart */
}

run_verdict run_compare_elements(const run_rule *rule, const run_type *type, const void *expected,
                                 const void *got, size_t count) {
  run_verdict v = {0};
  double worst_excess = -1;
  for (size_t i = 0; i < count; i++) {
    uint64_t e_bits = run_element_bits(type, expected, i), g_bits = run_element_bits(type, got, i);
    if (e_bits == g_bits) continue;
    double e = run_element(type, expected, i), g = run_element(type, got, i);
    if (type->is_float && isnan(e) && isnan(g)) continue;
    if (!v.differ++) v.first = i;
    double abs_diff = fabs(e - g), scale = fmax(fabs(e), fabs(g));
    double rel = isnan(abs_diff) ? INFINITY : scale > 0 ? abs_diff / scale : 0;
    if (isnan(abs_diff)) abs_diff = INFINITY;
    if (abs_diff > v.max_abs) v.max_abs = abs_diff;
    if (rel > v.max_rel) v.max_rel = rel;
    bool within = false;
    double excess = INFINITY; /* how far past the rule: above 1 fails */
    if (type->is_float) {
      uint64_t ulps = run_ulp_distance(type, e_bits, g_bits);
      if (ulps > v.needed_ulps) v.needed_ulps = ulps;
      double allowed = rule->atol + rule->rtol * fabs(e);
      double atol_needed = abs_diff - rule->rtol * fabs(e);
      if (atol_needed > v.needed_atol) v.needed_atol = atol_needed;
      double rtol_needed = fabs(e) > 0 ? (abs_diff - rule->atol) / fabs(e) : INFINITY;
      if (abs_diff <= rule->atol) rtol_needed = 0;
      if (rtol_needed > v.needed_rtol) v.needed_rtol = rtol_needed;
      if (rule->by_ulp) {
        within = ulps <= rule->ulps;
        excess = rule->ulps ? (double)ulps / (double)rule->ulps : INFINITY;
      } else {
        within = abs_diff <= allowed;
        excess = allowed > 0 ? abs_diff / allowed : INFINITY;
      }
    }
    if (excess > worst_excess || (worst_excess < 0)) {
      worst_excess = excess;
      v.worst = i;
    }
    if (!within && !v.beyond++) v.first_beyond = i;
  }
  return v;
}
