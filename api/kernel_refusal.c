// SPDX-License-Identifier: Apache-2.0
/* Kernels refused one by one (agpu_backend.h, agpu_program_refuse_kernel):
 * a kernel that one target cannot express no longer takes the program's
 * other kernels down with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_core.h"

static agpu_status agpu_refusal_no_memory(void) {
  return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
}

/* "warning: kernel 'k' is not built for vulkan:0 (...): message" */
static agpu_status agpu_refusal_log(agpu_program *program, const agpu_kernel_refusal *refusal) {
  char *log = NULL;
  if (asprintf(&log,
               "%swarning: kernel '%s' is not built for %s (the program's other kernels are): "
               "%s\n",
               program->build_log ? program->build_log : "", refusal->kernel,
               program->device->info.selector, refusal->message) < 0)
    return agpu_refusal_no_memory();
  free(program->build_log);
  program->build_log = log;
  return AGPU_SUCCESS;
}

agpu_status agpu_program_refuse_kernel(agpu_program *program, const char *kernel,
                                       agpu_status status, const char *message) {
  if (agpu_program_refusal(program, kernel)) return AGPU_SUCCESS; /* said once */
  agpu_kernel_refusal *refusal = calloc(1, sizeof *refusal);
  if (!refusal) return agpu_refusal_no_memory();
  refusal->kernel = agpu_strdup(kernel);
  refusal->message = agpu_strdup(message);
  refusal->status = status;
  if (!refusal->kernel || !refusal->message) {
    free(refusal->kernel);
    free(refusal->message);
    free(refusal);
    return agpu_refusal_no_memory();
  }
  agpu_kernel_refusal **tail = &program->refusals;
  while (*tail) tail = &(*tail)->next;
  *tail = refusal;
  return agpu_refusal_log(program, refusal);
}

agpu_status agpu_program_refused_all(agpu_program *program) {
  const agpu_kernel_refusal *first = program->refusals;
  if (!first) return agpu_error_set(AGPU_ERROR_INTERNAL, "agpu_program_build: no kernel built");
  return agpu_error_set(first->status, "%s", first->message);
}

const agpu_kernel_refusal *agpu_program_refusal(const agpu_program *program, const char *kernel) {
  for (const agpu_kernel_refusal *r = program->refusals; r; r = r->next)
    if (strcmp(r->kernel, kernel) == 0) return r;
  return NULL;
}

void agpu_kernel_refusals_free(agpu_kernel_refusal *refused) {
  while (refused) {
    agpu_kernel_refusal *next = refused->next;
    free(refused->kernel);
    free(refused->message);
    free(refused);
    refused = next;
  }
}

void agpu_program_free_refusals(agpu_program *program) {
  agpu_kernel_refusals_free(program->refusals);
  program->refusals = NULL;
}

agpu_status agpu_program_take_refusals(agpu_program *program, agpu_kernel_refusal *refused) {
  agpu_status status = AGPU_SUCCESS;
  for (const agpu_kernel_refusal *r = refused; r && status == AGPU_SUCCESS; r = r->next)
    status = agpu_program_refuse_kernel(program, r->kernel, r->status, r->message);
  agpu_kernel_refusals_free(refused);
  return status;
}
