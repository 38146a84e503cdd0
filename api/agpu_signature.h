// SPDX-License-Identifier: Apache-2.0
/* A program's kernel signatures, derived once in the core from the parse
 * (agpu_parsed.h) for the backends: the one conversion of the translator's
 * AST to agpu_kernel_param. */
#ifndef AGPU_SIGNATURE_H
#define AGPU_SIGNATURE_H

#include "agpu_backend.h"

typedef struct agpu_kernel_signature {
  char name[128];
  uint32_t param_count;
  agpu_kernel_param *params;
  bool has_required_work_group_size;
  uint32_t required_work_group_size[3];
  uint32_t local_memory_bytes; /* static __local arrays, callees included */
  /* printf: the last parameter is the hidden printf buffer (agpu_printf.h),
   * which the core passes; the user passes the others. */
  bool prints;
} agpu_kernel_signature;

typedef struct agpu_program_signatures {
  uint32_t kernel_count;
  agpu_kernel_signature *kernels;
  char *warnings; /* the front end's warnings, malloc'd; NULL when none */
} agpu_program_signatures;

void agpu_signatures_free(agpu_program_signatures *signatures);

/* The kernel called `name`, or NULL. */
const agpu_kernel_signature *agpu_signatures_find(const agpu_program_signatures *signatures,
                                                  const char *name);

/* The one conversion of the translator's AST to signatures (api/parsed.c
 * calls it); AGPU_ERROR_OUT_OF_HOST_MEMORY without a message. */
struct kl_context;
struct kl_program;
agpu_status agpu_signatures_describe(struct kl_context *ctx, const struct kl_program *program,
                                     agpu_program_signatures *out);

/* A deep copy (the parameters malloc'd: free to->params);
 * AGPU_ERROR_OUT_OF_HOST_MEMORY without a message. */
agpu_status agpu_signature_copy(agpu_kernel_signature *to, const agpu_kernel_signature *from);

/* A backend's array of kernel entries, each starting with an
 * agpu_kernel_signature (its first member) and `entry_size` bytes long, with
 * a deep copy of each of `from`'s: *entries is calloc'd and *count says how
 * many copies are made, also on failure (AGPU_ERROR_OUT_OF_HOST_MEMORY, no
 * message). */
agpu_status agpu_signatures_copy_into(const agpu_program_signatures *from, size_t entry_size,
                                      void **entries, uint32_t *count);

/* Fills kernel->info (all but the name) and kernel->params (malloc'd) from
 * `signature`. */
agpu_status agpu_kernel_fill_from_signature(agpu_kernel *kernel,
                                            const agpu_kernel_signature *signature);

#endif /* AGPU_SIGNATURE_H */
