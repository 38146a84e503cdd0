// SPDX-License-Identifier: Apache-2.0
/* Kernel signatures from the translator's AST (agpu_signature.h). */
#include <stdlib.h>
#include <string.h>

#include "agpu_signature.h"
#include "kl_front.h"
#include "translate.h"

void agpu_param_from_variable(kl_context *ctx, const kl_variable *variable,
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
  for (const kl_variable *p = fn->params; p; p = p->next) signature->param_count++;
  signature->params =
      calloc(signature->param_count ? signature->param_count : 1, sizeof *signature->params);
  if (!signature->params) return AGPU_ERROR_OUT_OF_HOST_MEMORY;
  uint32_t i = 0;
  for (const kl_variable *p = fn->params; p; p = p->next)
    agpu_param_from_variable(ctx, p, &signature->params[i++]);
  return AGPU_SUCCESS;
}

static agpu_status agpu_describe_program(kl_context *ctx, const kl_program *parsed,
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

agpu_status agpu_signatures_parse(const agpu_program_desc *desc, const agpu_device *device,
                                  const char *backend, agpu_program_signatures *out) {
  memset(out, 0, sizeof *out);
  kl_context *ctx = kl_context_create();
  if (!ctx) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", backend);
  kl_translate_options options = {
      .source_name = desc->source_name,
      .build_options = desc->options ? desc->options : "",
      .include_dirs = desc->include_dirs,
      .include_dir_count = (int)desc->include_dir_count,
  };
  options.traits.fp64 = device->info.fp64;
  options.traits.int64 = device->info.int64;
  options.traits.fp16 = device->info.fp16;
  agpu_status status = AGPU_SUCCESS;
  kl_program *parsed = kl_parse_program(ctx, desc->source, desc->source_size, &options);
  if (!parsed) {
    status = agpu_error_set(AGPU_ERROR_BUILD_FAILED, "%s: the kernel source did not compile:\n%s",
                            backend, kl_diagnostics_text(ctx));
  } else {
    const char *warnings = kl_diagnostics_text(ctx);
    if (warnings && *warnings) out->warnings = agpu_strdup(warnings);
    status = agpu_describe_program(ctx, parsed, out);
    if (status == AGPU_ERROR_OUT_OF_HOST_MEMORY)
      agpu_error_set(status, "%s: out of host memory", backend);
  }
  kl_context_destroy(ctx);
  if (status != AGPU_SUCCESS) agpu_signatures_free(out);
  return status;
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
