// SPDX-License-Identifier: Apache-2.0
/* The null backend's programs and launches: the core parses and checks the
 * source once (agpu_parsed.h) and the kernels' signatures are all a
 * program holds; a launch, already validated by the core against the
 * signature and the device's limits, is counted and not run. */
#include <stdlib.h>
#include <string.h>

#include "null_internal.h"

agpu_status agpu_null_program_build(agpu_program *program, const agpu_program_desc *desc) {
  (void)desc;
  agpu_null_program *native = calloc(1, sizeof *native);
  if (!native) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "null: out of host memory");
  native->parsed = agpu_parsed_retain(program->parsed);
  native->signatures = agpu_parsed_signatures(native->parsed);
  program->native = native;
  return AGPU_SUCCESS;
}

void agpu_null_program_release(agpu_program *program) {
  agpu_null_program *native = program->native;
  if (!native) return;
  agpu_parsed_release(native->parsed);
  free(native);
  program->native = NULL;
}

char *agpu_null_program_kernel_names(const agpu_program *program) {
  const agpu_null_program *native = program->native;
  const agpu_program_signatures *s = native->signatures;
  return agpu_join_kernel_names(s->kernel_count ? s->kernels[0].name : NULL, s->kernel_count,
                                sizeof *s->kernels);
}

agpu_status agpu_null_kernel_create(agpu_kernel *kernel, const char *name) {
  const agpu_null_program *native = kernel->program->native;
  const agpu_kernel_signature *signature = agpu_signatures_find(native->signatures, name);
  if (!signature) /* the core checked the name against program_kernel_names */
    return agpu_error_set(AGPU_ERROR_NOT_FOUND, "null: no kernel '%s'", name);
  return agpu_kernel_fill_from_signature(kernel, signature);
}

void agpu_null_kernel_release(agpu_kernel *kernel) {
  (void)kernel; /* the core frees kernel->params */
}

agpu_status agpu_null_launch(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,
                             const size_t global[3], const size_t local[3], uint32_t nargs,
                             const agpu_arg args[]) {
  (void)kernel, (void)dims, (void)global, (void)local, (void)nargs, (void)args;
  agpu_null_device *device = queue->device->native;
  atomic_fetch_add(&device->launches, 1);
  return AGPU_SUCCESS;
}
