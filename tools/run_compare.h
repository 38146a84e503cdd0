// SPDX-License-Identifier: Apache-2.0
/* anygpu run --compare: when two floats agree. numpy.allclose's rule,
 * |a - b| <= atol + rtol * |b| with b the reference device's value, or a
 * distance in units in the last place (--ulp). */
#ifndef ANYGPU_TOOLS_RUN_COMPARE_H
#define ANYGPU_TOOLS_RUN_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run_args.h"

/* What the user asked for; what is not given takes the defaults below. */
typedef struct run_tolerance {
  double atol, rtol;
  bool atol_given, rtol_given;
  bool by_ulp;
  uint64_t ulps;
} run_tolerance;

/* The defaults accept fma contraction (OpenCL allows it; PoCL does it) and
 * another summation order for well-conditioned results: rtol 1e-4 for
 * float (about 840 ulps) and 1e-10 for double, and atol rtol times the
 * largest magnitude in the reference buffer, so that an element near zero
 * from cancellation is judged against the buffer's scale. */
#define RUN_DEFAULT_RTOL_FLOAT 1e-4
#define RUN_DEFAULT_RTOL_DOUBLE 1e-10

/* The rule applied to one buffer: the user's values or the defaults. */
typedef struct run_rule {
  double atol, rtol;
  bool by_ulp;
  uint64_t ulps;
} run_rule;

run_rule run_rule_for(const run_tolerance *tolerance, const run_type *type, const void *reference,
                      size_t count);

/* Units in the last place between two values of a float type (4 or 8
 * bytes); UINT64_MAX when either is NaN and not both. */
uint64_t run_ulp_distance(const run_type *type, uint64_t a_bits, uint64_t b_bits);

/* Every element against the rule, and what would have been needed. */
typedef struct run_verdict {
  size_t differ, beyond, first, first_beyond;
  size_t worst;            /* the element furthest beyond (or nearest to) the rule */
  double max_abs, max_rel; /* over differing elements */
  double needed_atol;      /* every element passes with this atol, at the rule's rtol */
  double needed_rtol;      /* ... with this rtol, at the rule's atol */
  uint64_t needed_ulps;    /* ... within this many ulps */
} run_verdict;

run_verdict run_compare_elements(const run_rule *rule, const run_type *type, const void *expected,
                                 const void *got, size_t count);

#endif /* ANYGPU_TOOLS_RUN_COMPARE_H */
