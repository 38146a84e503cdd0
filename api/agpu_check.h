// SPDX-License-Identifier: Apache-2.0
/* Bounds checking, the host's half (docs/debugging.md, "Bounds checking").
 * A program built with -anygpu-check=bounds (AGPU_PROGRAM_CHECK_BOUNDS,
 * ANYGPU_CHECK=bounds) has every kernel's accesses guarded by the
 * translator (kernels/bounds.c), which adds a hidden last parameter: a
 * small buffer holding the violation record and the extents of the
 * launch's buffers and __local arguments. The core fills it at each launch
 * and reads it when the launch is known to be done, with printf's reports
 * (api/printf.c): a violation becomes AGPU_ERROR_KERNEL_FAULT. */
#ifndef AGPU_CHECK_H
#define AGPU_CHECK_H

#include "agpu_backend.h"

struct agpu_parsed;

/* What an access is checked against: a kernel's parameter or __local array. */
typedef struct agpu_check_root {
  char *kernel, *name;
  int param_index; /* -1: a __local array of `extent` bytes */
  uint64_t extent;
  uint32_t element_bytes;
} agpu_check_root;

typedef struct agpu_check_site {
  char *function, *file;
  int line, column;
  int root; /* -1: the record's (an access in a helper function) */
  uint32_t bytes;
  bool write;
} agpu_check_site;

/* A checked program's roots and sites, shared by the program, its kernels
 * and their launches still to be reported. */
/* A parameter's extent in elements of `stride` bytes (kl_check_count). */
typedef struct agpu_check_count {
  int param_index;
  uint32_t stride;
} agpu_check_count;

typedef struct agpu_check_table {
  _Atomic uint32_t references;
  agpu_check_count *counts;
  uint32_t count_count;
  agpu_check_root *roots;
  uint32_t root_count;
  agpu_check_site *sites;
  uint32_t site_count;
} agpu_check_table;

/* The table of a parsed program; *table is NULL when it is not checked. */
agpu_status agpu_check_table_create(const struct agpu_parsed *parsed, agpu_check_table **table);
void agpu_check_table_retain(agpu_check_table *table);
void agpu_check_table_release(agpu_check_table *table); /* NULL: nothing */

/* The words of a launch's check buffer: the header, then each parameter's
 * extent (the buffer's size, the __local argument's bytes; 0 for values),
 * then the table's counts (extent / stride), two words each. */
size_t agpu_check_words(const agpu_check_table *table, uint32_t nargs);
void agpu_check_prepare_words(const agpu_check_table *table, uint32_t *words, const agpu_arg *args,
                              uint32_t nargs);

/* The launch's record (`words` as agpu_check_words says, read back after
 * it finished) as a status: AGPU_SUCCESS, or AGPU_ERROR_KERNEL_FAULT with
 * the message naming the first violation. */
agpu_status agpu_check_report(const agpu_check_table *table, const char *kernel,
                              const uint32_t *words, uint32_t nargs);

#endif /* AGPU_CHECK_H */
