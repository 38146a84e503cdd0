// SPDX-License-Identifier: Apache-2.0
/* The suite's cases, in the order `anygpu test` shows them, and the
 * problem sizes of --size. */
#include <string.h>

#include "suite_internal.h"

static const suite_case suite_cases[] = {
    {"copy.f32", "vector.cl", "copy", false, suite_case_vector},
    {"scale.f32", "vector.cl", "scale", false, suite_case_vector},
    {"add.f32", "vector.cl", "add", false, suite_case_vector},
    {"triad.f32", "vector.cl", "triad", false, suite_case_vector},
    {"saxpy.f32", "vector.cl", "saxpy", false, suite_case_vector},
    {"copy.f64", "vector.cl", "copy", true, suite_case_vector},
    {"scale.f64", "vector.cl", "scale", true, suite_case_vector},
    {"add.f64", "vector.cl", "add", true, suite_case_vector},
    {"triad.f64", "vector.cl", "triad", true, suite_case_vector},
    {"saxpy.f64", "vector.cl", "saxpy", true, suite_case_vector},
    {"add.i32", "integer.cl", "add_int", false, suite_case_add_int},
    {"bitops.u32", "integer.cl", "bitops", false, suite_case_bitops},
    {"matmul_naive.f32", "matmul.cl", "matmul_naive", false, suite_case_matmul},
    {"matmul_tiled.f32", "matmul.cl", "matmul_tiled", false, suite_case_matmul},
    {"matmul_naive.f64", "matmul.cl", "matmul_naive", true, suite_case_matmul},
    {"matmul_tiled.f64", "matmul.cl", "matmul_tiled", true, suite_case_matmul},
    {"reduce_sum.f32", "reduce.cl", "reduce_sum", false, suite_case_reduce_sum},
    {"reduce_sum.f64", "reduce.cl", "reduce_sum", true, suite_case_reduce_sum},
    {"dot.f32", "reduce.cl", "dot_product", false, suite_case_dot},
    {"dot.f64", "reduce.cl", "dot_product", true, suite_case_dot},
    {"minmax.f32", "reduce.cl", "minmax", false, suite_case_minmax},
    {"sum_atomic.u32", "reduce.cl", "sum_atomic", false, suite_case_sum_atomic},
    {"transpose.f32", "transpose.cl", "transpose", false, suite_case_transpose},
    {"scan.u32", "scan.cl", "scan_blocks", false, suite_case_scan},
    {"histogram_local.u32", "histogram.cl", "histogram_local", false, suite_case_histogram},
    {"histogram_global.u32", "histogram.cl", "histogram_global", false, suite_case_histogram},
    {"stencil5.f32", "stencil.cl", "stencil5", false, suite_case_stencil},
};

size_t suite_case_count(void) {
  return sizeof suite_cases / sizeof suite_cases[0];
}

const suite_case *suite_case_at(size_t index) {
  return index < suite_case_count() ? &suite_cases[index] : NULL;
}

bool suite_case_matches(const suite_case *kase, const char *term) {
  size_t length = strlen(term);
  if (strcmp(kase->name, term) == 0) return true;
  const char *dot = strchr(kase->name, '.');
  if (dot && (size_t)(dot - kase->name) == length && strncmp(kase->name, term, length) == 0)
    return true;
  const char *stem_end = strrchr(kase->file, '.');
  return stem_end && (size_t)(stem_end - kase->file) == length &&
         strncmp(kase->file, term, length) == 0;
}

/* Sizes are deliberately not multiples of any work-group size. */
static const suite_sizes suite_size_table[] = {
    [SUITE_SMALL] = {.vector_n = 100003,
                     .matmul_m = 67,
                     .matmul_n = 83,
                     .matmul_k = 150,
                     .reduce_n = 100003,
                     .scan_n = 100003,
                     .histogram_n = 100003,
                     .transpose_rows = 131,
                     .transpose_cols = 97,
                     .stencil_width = 133,
                     .stencil_height = 71},
    [SUITE_MEDIUM] = {.vector_n = 4000037,
                      .matmul_m = 257,
                      .matmul_n = 211,
                      .matmul_k = 300,
                      .reduce_n = 4000037,
                      .scan_n = 1000003,
                      .histogram_n = 4000037,
                      .transpose_rows = 1031,
                      .transpose_cols = 777,
                      .stencil_width = 1031,
                      .stencil_height = 777},
    [SUITE_LARGE] = {.vector_n = 33554467,
                     .matmul_m = 1031,
                     .matmul_n = 1029,
                     .matmul_k = 1033,
                     .reduce_n = 33554467,
                     .scan_n = 16777259,
                     .histogram_n = 33554467,
                     .transpose_rows = 4099,
                     .transpose_cols = 3001,
                     .stencil_width = 4099,
                     .stencil_height = 3001},
};

const suite_sizes *suite_sizes_of(suite_size size) {
  return &suite_size_table[size];
}

static const char *const suite_size_names[] = {"small", "medium", "large"};

bool suite_size_parse(const char *name, suite_size *size) {
  for (int i = 0; i < 3; i++) {
    if (strcmp(name, suite_size_names[i]) == 0) {
      *size = (suite_size)i;
      return true;
    }
  }
  return false;
}

const char *suite_size_name(suite_size size) {
  return suite_size_names[size];
}
