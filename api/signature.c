// SPDX-License-Identifier: Apache-2.0
/* Kernel signatures from the translator's AST (agpu_signature.h). */
#include <stdlib.h>
#include <string.h>

#include "agpu_signature.h"
#include "kl_front.h"
#include "translate.h"

static void agpu_param_from_variable(kl_context *ctx, const kl_variable *variable,
                                     agpu_kernel_param *param) {
  agpu_copy_text(param->name, sizeof param->name, variable->name);
  agpu_copy_text(param->type_name, sizeof param->type_name, kl_type_name(ctx, variable->type));
  const kl_type *type = variable->type;
  if (type->kind != KL_TYPE_POINTER) {
    param->kind = AGPU_PARAM_SCALAR;
    param->size = (uint32_t)type->size;
    return;
  }
  param->kind = type->pointee_space == KL_SPACE_LOCAL      ? AGPU_PARAM_LOCAL
                : type->pointee_space == KL_SPACE_CONSTANT ? AGPU_PARAM_CONSTANT_BUFFER
                                                           : AGPU_PARAM_GLOBAL_BUFFER;
  param->is_const = type->element && (type->element->qualifiers & KL_QUALIFIER_CONST);
}

static agpu_status agpu_describe_kernel(kl_context *ctx, const kl_function *fn,
                                        agpu_kernel_signature *signature) {
  agpu_copy_text(signature->name, sizeof signature->name, fn->name);
  signature->has_required_work_group_size = fn->has_required_work_group_size;
  for (int d = 0; d < 3; d++)
    signature->required_work_group_size[d] = (uint32_t)fn->required_work_group_size[d];
  signature->local_memory_bytes = fn->local_memory_bytes;
  signature->prints = fn->printf_buffer != NULL;
  for (const kl_variable *p = fn->params; p; p = p->next) signature->param_count++;
  signature->params =
      calloc(signature->param_count ? signature->param_count : 1, sizeof *signature->params);
  if (!signature->params) return AGPU_ERROR_OUT_OF_HOST_MEMORY;
  uint32_t i = 0;
  for (const kl_variable *p = fn->params; p; p = p->next)
    agpu_param_from_variable(ctx, p, &signature->params[i++]);
  return AGPU_SUCCESS;
}

agpu_status agpu_signatures_describe(kl_context *ctx, const kl_program *parsed,
                                     agpu_program_signatures *out) {
  uint32_t count = 0;
  for (const kl_function *fn = parsed->functions; fn; fn = fn->next)
    if (fn->is_kernel && fn->body) count++;
  out->kernels = calloc(count ? count : 1, sizeof *out->kernels);
  if (!out->kernels) return AGPU_ERROR_OUT_OF_HOST_MEMORY;
  for (const kl_function *fn = parsed->functions; fn; fn = fn->next) {
    if (!fn->is_kernel || !fn->body) continue;
    agpu_status status = agpu_describe_kernel(ctx, fn, &out->kernels[out->kernel_count++]);
    if (status != AGPU_SUCCESS) return status;
  }
  return AGPU_SUCCESS;
}

void agpu_signatures_free(agpu_program_signatures *signatures) {
  for (uint32_t i = 0; i < signatures->kernel_count; i++) free(signatures->kernels[i].params);
  free(signatures->kernels);
  free(signatures->warnings);
  memset(signatures, 0, sizeof *signatures);
}

const agpu_kernel_signature *agpu_signatures_find(const agpu_program_signatures *signatures,
                                                  const char *name) {
  for (uint32_t i = 0; i < signatures->kernel_count; i++)
    if (strcmp(signatures->kernels[i].name, name) == 0) return &signatures->kernels[i];
  return NULL;
}

agpu_status agpu_kernel_fill_from_signature(agpu_kernel *kernel,
                                            const agpu_kernel_signature *signature) {
  uint32_t count = signature->param_count;
  kernel->params = calloc(count ? count : 1, sizeof *kernel->params);
  if (!kernel->params)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_kernel_create: out of host memory");
  if (count) memcpy(kernel->params, signature->params, count * sizeof *kernel->params);
  kernel->info.param_count = count;
  kernel->info.has_required_work_group_size = signature->has_required_work_group_size;
  memcpy(kernel->info.required_work_group_size, signature->required_work_group_size,
         sizeof signature->required_work_group_size);
  kernel->info.max_work_group_size = kernel->program->device->info.max_work_group_size;
  return AGPU_SUCCESS;
}

agpu_status agpu_signature_copy(agpu_kernel_signature *to, const agpu_kernel_signature *from) {
  *to = *from;
  to->params = calloc(from->param_count ? from->param_count : 1, sizeof *to->params);
  if (!to->params) return AGPU_ERROR_OUT_OF_HOST_MEMORY;
  if (from->param_count) memcpy(to->params, from->params, from->param_count * sizeof *to->params);
  return AGPU_SUCCESS;
}

agpu_status agpu_signatures_copy_into(const agpu_program_signatures *from, size_t entry_size,
                                      void **entries, uint32_t *count) {
  *count = 0;
  char *array = calloc(from->kernel_count ? from->kernel_count : 1, entry_size);
  *entries = array;
  if (!array) return AGPU_ERROR_OUT_OF_HOST_MEMORY;
  for (; *count < from->kernel_count; (*count)++) {
    agpu_kernel_signature *to = (agpu_kernel_signature *)(array + *count * entry_size);
    if (agpu_signature_copy(to, &from->kernels[*count]) != AGPU_SUCCESS)
      return AGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
  return AGPU_SUCCESS;
}
