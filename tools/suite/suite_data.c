// SPDX-License-Identifier: Apache-2.0
/* Inputs from the seed, and the element-by-element checks. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "data_patterns.h"
#include "suite_internal.h"

/* ---------------------------------------------------------------- random */

typedef struct suite_rng {
  uint64_t state;
} suite_rng;

/* One stream per (seed, case, array): the same seed gives the same inputs
 * on every device, whatever else the suite runs. */
static suite_rng suite_stream(const suite_run *run, const char *stream) {
  uint64_t hash = 0xCBF29CE484222325ull; /* FNV-1a */
  for (const char *p = run->kase->name; *p; p++)
    hash = (hash ^ (unsigned char)*p) * 0x100000001B3ull;
  hash = (hash ^ '/') * 0x100000001B3ull;
  for (const char *p = stream; *p; p++) hash = (hash ^ (unsigned char)*p) * 0x100000001B3ull;
  suite_rng rng = {run->seed ^ hash};
  splitmix64_next(&rng.state);
  return rng;
}

void *suite_random_reals(suite_run *run, const char *stream, size_t n, double lo, double hi) {
  void *data = suite_alloc(run, n * suite_real_size(run));
  if (!data) return NULL;
  suite_rng rng = suite_stream(run, stream);
  for (size_t i = 0; i < n; i++) {
    double unit = splitmix64_unit(&rng.state);
    suite_real_set(run, data, i, lo + (hi - lo) * unit);
  }
  return data;
}

uint32_t *suite_random_uints(suite_run *run, const char *stream, size_t n, uint32_t mask) {
  uint32_t *data = suite_alloc(run, n * sizeof *data);
  if (!data) return NULL;
  suite_rng rng = suite_stream(run, stream);
  for (size_t i = 0; i < n; i++) data[i] = (uint32_t)(splitmix64_next(&rng.state) >> 32) & mask;
  return data;
}

int32_t *suite_random_ints(suite_run *run, const char *stream, size_t n, int32_t lo, int32_t hi) {
  int32_t *data = suite_alloc(run, n * sizeof *data);
  if (!data) return NULL;
  suite_rng rng = suite_stream(run, stream);
  uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
  for (size_t i = 0; i < n; i++)
    data[i] = (int32_t)(lo + (int64_t)(splitmix64_next(&rng.state) % span));
  return data;
}

/* ---------------------------------------------------------------- bounds */

static double suite_gamma_of(double n, double u) {
  return n * u / (1 - n * u);
}

double suite_gamma(const suite_run *run, double n) {
  /* The kernel rounds to float or double; the references compute in double
   * (float cases) or long double (double cases) and are stored in double:
   * one more rounding. */
  double u = run->kase->fp64 ? 0x1p-53 : 0x1p-24;
  double reference_u = run->kase->fp64 ? (double)LDBL_EPSILON / 2 : 0x1p-53;
  return suite_gamma_of(n, u) + suite_gamma_of(n, reference_u) + 0x1p-53;
}

/* ---------------------------------------------------------------- checks */

static void suite_where(char *out, size_t capacity, const char *what, size_t index,
                        size_t columns) {
  if (columns)
    snprintf(out, capacity, "%s[%zu] (row %zu, column %zu)", what, index, index / columns,
             index % columns);
  else
    snprintf(out, capacity, "%s[%zu]", what, index);
}

void suite_check_reals(suite_run *run, const char *what, const void *got, const double *expected,
                       const double *scale, size_t n, size_t columns, double tolerance) {
  if (run->done) return;
  size_t wrong = 0, worst = 0;
  double worst_error = -1;
  for (size_t i = 0; i < n; i++) {
    double g = suite_real_get(run, got, i), e = expected[i];
    double error = g == e ? 0 : scale[i] > 0 ? fabs(g - e) / scale[i] : INFINITY;
    if (isnan(error)) error = INFINITY; /* a NaN: the poison, never written */
    if (error > tolerance) wrong++;
    if (error > worst_error) {
      worst_error = error;
      worst = i;
    }
  }
  if (worst_error > run->result->max_rel_error) run->result->max_rel_error = worst_error;
  if (tolerance > run->result->tolerance) run->result->tolerance = tolerance;
  if (!wrong) return;
  char where[160];
  suite_where(where, sizeof where, what, worst, columns);
  double g = suite_real_get(run, got, worst);
  suite_fail(run,
             "%s: expected %.9g, got %.9g%s (error %.3g of scale %.3g, tolerance %.3g); %zu of %zu "
             "elements wrong",
             where, expected[worst], g, isnan(g) ? " (never written?)" : "", worst_error,
             scale[worst], tolerance, wrong, n);
}

void suite_check_uints(suite_run *run, const char *what, const uint32_t *got,
                       const uint32_t *expected, size_t n, size_t columns) {
  if (run->done) return;
  size_t wrong = 0, first = 0;
  for (size_t i = 0; i < n; i++)
    if (got[i] != expected[i] && !wrong++) first = i;
  if (!wrong) return;
  double e = expected[first], g = got[first];
  double error = e != 0 ? fabs(g - e) / e : INFINITY;
  if (error > run->result->max_rel_error) run->result->max_rel_error = error;
  char where[160];
  suite_where(where, sizeof where, what, first, columns);
  suite_fail(run, "%s: expected %u (0x%08x), got %u (0x%08x)%s; %zu of %zu elements wrong", where,
             expected[first], expected[first], got[first], got[first],
             got[first] == POISON_INTEGER_BYTE * UINT32_C(0x01010101)
                 ? " (the poison: never written)"
                 : "",
             wrong, n);
}
