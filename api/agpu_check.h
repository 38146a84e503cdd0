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

/* A kernel's proof at launch (kl_check_proof, api/check_proof.c): its ops,
 * or `never` with why (file:line:col: what). */
struct kl_proof_op;
struct kl_program;
typedef struct agpu_check_proof {
  char *kernel;
  bool never;
  char *why;
  struct kl_proof_op *ops;
  uint32_t op_count;
} agpu_check_proof;

typedef struct agpu_check_table {
  _Atomic uint32_t references;
  agpu_check_count *counts;
  uint32_t count_count;
  agpu_check_root *roots;
  uint32_t root_count;
  agpu_check_site *sites;
  uint32_t site_count;
  agpu_check_proof *proofs;
  uint32_t proof_count;
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

/* The bytes an argument gives its parameter to reach: a buffer's size, a
 * __local argument's bytes; 0 for a value. */
uint64_t agpu_check_arg_extent(const agpu_arg *arg);

/* check_proof.c: the proofs copied from the translator's tree (false: out
 * of memory), freed with the table, and the one of a kernel (NULL: none). */
bool agpu_check_copy_proofs(agpu_check_table *table, const struct kl_program *program);
void agpu_check_free_proofs(agpu_check_table *table);
const agpu_check_proof *agpu_check_proof_of(const agpu_check_table *table, const char *kernel);
/* Whether every checked access of the kernel fits this launch (sizes with
 * 1 in unused dimensions; the arguments as the launch resolved them), so
 * that the launch may run the kernel without its checks. */
bool agpu_check_proof_holds(const agpu_check_proof *proof, const size_t global[3],
                            const size_t local[3], const agpu_arg *args, uint32_t nargs);

/* check_twin.c: a checked program's build without checks. Prepared with
 * the program (a copy of its description, where a kernel has a proof and
 * ANYGPU_CHECK_PROOFS is not off), built at the first proven launch. */
struct agpu_check_twin;
agpu_status agpu_check_twin_prepare(agpu_program *program, const agpu_program_desc *desc);
void agpu_check_twin_release(struct agpu_check_twin *twin); /* NULL: nothing */
/* The kernel's twin in that build (made once, thread-safe), or NULL where
 * there is none: the launch then runs checked. */
agpu_kernel *agpu_kernel_unchecked(agpu_kernel *kernel);

#endif /* AGPU_CHECK_H */
