// SPDX-License-Identifier: Apache-2.0
/* Checking outputs: every element declared written was written, and a run
 * agrees with the oracle's (integers bit for bit, floats within the stated
 * tolerance), naming the worst element when it does not. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "corpus_data.h"

static const char *corpus_arg_what(const corpus_arg *arg, char *out, size_t capacity) {
  char type[32];
  corpus_type_name(arg->type, type, sizeof type);
  snprintf(out, capacity, "the %s %s buffer of header line %d", type,
           arg->poisoned ? "output" : "inout", arg->line);
  return out;
}

bool corpus_check_written(const corpus_arg *arg, const void *run0, const void *run1, char *message,
                          size_t capacity) {
  corpus_scalar scalar = arg->type.scalar;
  uint64_t poison0 = corpus_poison_bits(scalar, 0), poison1 = corpus_poison_bits(scalar, 1);
  size_t missing = 0, first = 0;
  unsigned first_lane = 0;
  for (size_t element = 0; element < arg->written; element++) {
    for (unsigned lane = 0; lane < arg->type.lanes; lane++) {
      if (corpus_lane_bits(arg->type, run0, element, lane) != poison0 ||
          corpus_lane_bits(arg->type, run1, element, lane) != poison1)
        continue;
      if (!missing++) {
        first = element;
        first_lane = lane;
      }
    }
  }
  if (!missing) return true;
  char what[96];
  snprintf(message, capacity,
           "%s: %zu lanes of the %zu elements declared written were never written (still "
           "poison); the first: element %zu lane %u",
           corpus_arg_what(arg, what, sizeof what), missing, arg->written, first, first_lane);
  return false;
}

/* ------------------------------------------------------------ comparing */

/* Distance in units in the last place between two floats of `bits` bits. */
static double corpus_ulp_distance(uint64_t a, uint64_t b, unsigned bits) {
  uint64_t sign = 1ull << (bits - 1);
  uint64_t magnitude_a = a & (sign - 1), magnitude_b = b & (sign - 1);
  if ((a & sign) != (b & sign)) return (double)magnitude_a + (double)magnitude_b;
  return (double)(magnitude_a > magnitude_b ? magnitude_a - magnitude_b
                                            : magnitude_b - magnitude_a);
}

typedef struct corpus_lane_verdict {
  bool ok;
  double badness; /* to find the worst lane */
  double ulp, abs, rel;
} corpus_lane_verdict;

static corpus_lane_verdict corpus_judge_float(const corpus_tolerance *tolerance,
                                              corpus_scalar scalar, uint64_t e, uint64_t g) {
  corpus_lane_verdict verdict = {false, INFINITY, INFINITY, INFINITY, INFINITY};
  double expected = corpus_bits_to_double(scalar, e), got = corpus_bits_to_double(scalar, g);
  if (isnan(expected) && isnan(got)) {
    verdict.ok = true;
    return verdict;
  }
  if (isnan(expected) || isnan(got)) return verdict;
  verdict.ulp = corpus_ulp_distance(e, g, 8 * (unsigned)corpus_scalar_size(scalar));
  verdict.abs = fabs(expected - got);
  verdict.rel = expected != 0 ? verdict.abs / fabs(expected) : INFINITY;
  if (isinf(expected) || isinf(got)) verdict.abs = verdict.rel = INFINITY;
  verdict.badness = verdict.ulp;
  unsigned kinds = tolerance->kinds;
  verdict.ok = ((kinds & CORPUS_TOLERANCE_ULP) && verdict.ulp <= tolerance->ulp) ||
               ((kinds & CORPUS_TOLERANCE_ABS) && verdict.abs <= tolerance->abs) ||
               ((kinds & CORPUS_TOLERANCE_REL) && verdict.rel <= tolerance->rel);
  return verdict;
}

static void corpus_describe_lane(corpus_scalar scalar, uint64_t bits, char *out, size_t capacity) {
  unsigned hex_digits = 2 * (unsigned)corpus_scalar_size(scalar);
  double value = corpus_bits_to_double(scalar, bits);
  if (corpus_scalar_is_float(scalar))
    snprintf(out, capacity, "%.17g (0x%0*llx)", value, (int)hex_digits, (unsigned long long)bits);
  else if (corpus_scalar_is_signed(scalar))
    snprintf(out, capacity, "%.0f (0x%0*llx)", value, (int)hex_digits, (unsigned long long)bits);
  else
    snprintf(out, capacity, "%llu (0x%0*llx)", (unsigned long long)bits, (int)hex_digits,
             (unsigned long long)bits);
}

bool corpus_compare(const corpus_kernel *kernel, const corpus_arg *arg, const void *expected,
                    const void *got, bool bitwise, char *message, size_t capacity) {
  corpus_scalar scalar = arg->type.scalar;
  bool tolerant = corpus_scalar_is_float(scalar) && !bitwise;
  size_t differ = 0, worst = 0;
  unsigned worst_lane = 0;
  corpus_lane_verdict worst_verdict = {false, -1, 0, 0, 0};
  for (size_t element = 0; element < arg->written; element++) {
    for (unsigned lane = 0; lane < arg->type.lanes; lane++) {
      uint64_t e = corpus_lane_bits(arg->type, expected, element, lane);
      uint64_t g = corpus_lane_bits(arg->type, got, element, lane);
      if (e == g) continue;
      corpus_lane_verdict verdict = {false, 0, 0, 0, 0};
      if (tolerant) verdict = corpus_judge_float(&kernel->tolerance, scalar, e, g);
      if (verdict.ok) continue;
      differ++;
      if (verdict.badness > worst_verdict.badness) { /* integers: the first */
        worst_verdict = verdict;
        worst = element;
        worst_lane = lane;
      }
    }
  }
  if (!differ) return true;
  char what[96], e_text[64], g_text[64];
  corpus_describe_lane(scalar, corpus_lane_bits(arg->type, expected, worst, worst_lane), e_text,
                       sizeof e_text);
  corpus_describe_lane(scalar, corpus_lane_bits(arg->type, got, worst, worst_lane), g_text,
                       sizeof g_text);
  int n = snprintf(message, capacity,
                   "%s: %zu of %zu lanes differ; %s element %zu lane %u: "
                   "expected %s, got %s",
                   corpus_arg_what(arg, what, sizeof what), differ, arg->written * arg->type.lanes,
                   tolerant ? "worst" : "first", worst, worst_lane, e_text, g_text);
  if (tolerant && n > 0 && (size_t)n < capacity)
    snprintf(message + n, capacity - (size_t)n, " (%.0f ulp, abs %.3g, rel %.3g)",
             worst_verdict.ulp, worst_verdict.abs, worst_verdict.rel);
  return false;
}
