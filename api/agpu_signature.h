// SPDX-License-Identifier: Apache-2.0
/* A program's kernel signatures, parsed and checked once in the core, for
 * the backends (issue 17): the one conversion of the translator's AST to
 * agpu_kernel_param. Backends include this, not the front end's headers. */
#ifndef AGPU_SIGNATURE_H
#define AGPU_SIGNATURE_H

#include "agpu_backend.h"

typedef struct agpu_kernel_signature {
  char name[128];
  uint32_t param_count;
  agpu_kernel_param *params;
  bool has_required_work_group_size;
  uint32_t required_work_group_size[3];
} agpu_kernel_signature;

typedef struct agpu_program_signatures {
  uint32_t kernel_count;
  agpu_kernel_signature *kernels;
  char *warnings; /* the front end's warnings, malloc'd; NULL when none */
} agpu_program_signatures;

/* Preprocesses, parses and checks `desc` for a device with `device`'s
 * traits and fills `out`. On errors returns AGPU_ERROR_BUILD_FAILED with
 * every diagnostic (file:line:col) in the message, prefixed by `backend`. */
agpu_status agpu_signatures_parse(const agpu_program_desc *desc, const agpu_device *device,
                                  const char *backend, agpu_program_signatures *out);
void agpu_signatures_free(agpu_program_signatures *signatures);

/* The kernel called `name`, or NULL. */
const agpu_kernel_signature *agpu_signatures_find(const agpu_program_signatures *signatures,
                                                  const char *name);

/* The one conversion of a kernel parameter of the translator's AST to its
 * public description; for the backends that still parse the source
 * themselves (issue 17 moves the parse into the core). */
struct kl_context;
struct kl_variable;
void agpu_param_from_variable(struct kl_context *ctx, const struct kl_variable *variable,
                              agpu_kernel_param *param);

/* Fills kernel->info (all but the name) and kernel->params (malloc'd) from
 * `signature`. */
agpu_status agpu_kernel_fill_from_signature(agpu_kernel *kernel,
                                            const agpu_kernel_signature *signature);

#endif /* AGPU_SIGNATURE_H */
