// SPDX-License-Identifier: Apache-2.0
/* The public face of the kernel translator (kernels/translate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_core.h"
#include "translate.h"
#ifdef AGPU_HAVE_GLSLANG
#include "spirv.h"
#endif

struct agpu_translation {
  agpu_object object;
  kl_context *context; /* owns every string below */
  const char *output;
  const char *signature_json;
  const char *diagnostics;
  const uint32_t *binary; /* SPIR-V words */
  size_t binary_size;     /* bytes */
};

static const char *const agpu_target_names[AGPU_TARGET_COUNT_] = {
    [AGPU_TARGET_OPENCL] = "opencl", [AGPU_TARGET_CUDA] = "cuda", [AGPU_TARGET_HIP] = "hip",
    [AGPU_TARGET_GLSL] = "glsl",     [AGPU_TARGET_C] = "c",       [AGPU_TARGET_SPIRV] = "spirv",
};

static const kl_target agpu_kl_targets[AGPU_TARGET_COUNT_] = {
    [AGPU_TARGET_OPENCL] = KL_TARGET_OPENCL, [AGPU_TARGET_CUDA] = KL_TARGET_CUDA,
    [AGPU_TARGET_HIP] = KL_TARGET_HIP,       [AGPU_TARGET_GLSL] = KL_TARGET_GLSL,
    [AGPU_TARGET_C] = KL_TARGET_C,           [AGPU_TARGET_SPIRV] = KL_TARGET_GLSL,
};

static void agpu_translation_free(agpu_translation *translation) {
  kl_context_destroy(translation->context);
  free(translation);
}

AGPU_API const char *agpu_target_name(agpu_target target) {
  return (unsigned)target < AGPU_TARGET_COUNT_ ? agpu_target_names[target] : NULL;
}

/* GLSL makes one shader per kernel: the one named, or the only one. */
static agpu_status agpu_pick_glsl_kernel(const kl_program *program, const char *name,
                                         const char **picked) {
  if (name) {
    if (!kl_find_kernel(program, name))
      return agpu_error_set(AGPU_ERROR_NOT_FOUND, "agpu_translate: no kernel named '%s'", name);
    *picked = name;
    return AGPU_SUCCESS;
  }
  int kernels = 0;
  for (const kl_function *f = program->functions; f; f = f->next) {
    if (!f->is_kernel) continue;
    if (kernels++ == 0) *picked = f->name;
  }
  if (kernels == 1) return AGPU_SUCCESS;
  agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                 "agpu_translate: GLSL makes one shader per kernel; name one in "
                 "agpu_translate_desc.kernel:");
  int listed = 0;
  for (const kl_function *f = program->functions; f; f = f->next)
    if (f->is_kernel) agpu_error_append("%s %s", listed++ ? "," : "", f->name);
  if (kernels == 0) agpu_error_append(" (the source has no kernel)");
  return AGPU_ERROR_INVALID_ARGUMENT;
}

/* The GLSL in result->output to SPIR-V words; output becomes "". */
static agpu_status agpu_compile_spirv(agpu_translation *result, const char *kernel) {
#ifdef AGPU_HAVE_GLSLANG
  size_t words = 0;
  const char *log = NULL;
  const uint32_t *spirv = kl_compile_glsl_to_spirv(result->context, result->output, &words, &log);
  if (!spirv && log && !strncmp(log, KL_GLSLANG_NO_MEMORY, strlen(KL_GLSLANG_NO_MEMORY)))
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "agpu_translate: out of host memory compiling kernel '%s' to SPIR-V: %s",
                          kernel, log);
  if (!spirv)
    return agpu_error_set(AGPU_ERROR_INTERNAL,
                          "agpu_translate: internal error: glslang rejects the GLSL the "
                          "translator made for kernel '%s' (please report it):\n%s",
                          kernel, log ? log : "");
  result->binary = spirv;
  result->binary_size = words * sizeof *spirv;
  result->output = "";
  return AGPU_SUCCESS;
#else
  (void)result;
  (void)kernel;
  return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                        "agpu_translate: the spirv target is unavailable: anygpu was built "
                        "without glslang (install glslang-dev and reconfigure)");
#endif
}

/* Whether the emitter left out every kernel (nothing to translate). */
static bool agpu_refused_every_kernel(const kl_program *program, const kl_refused_kernel *refused) {
  if (!refused) return false;
  int kernels = 0, left_out = 0;
  for (const kl_function *f = program->functions; f; f = f->next)
    if (f->is_kernel && f->body) kernels++;
  for (; refused; refused = refused->next) left_out++;
  return left_out >= kernels;
}

/* The diagnostics, then a line for each kernel left out of the output. */
static const char *agpu_refusal_notes(kl_context *ctx, agpu_target target,
                                      const kl_refused_kernel *refused) {
  const char *text = kl_diagnostics_text(ctx);
  for (; refused; refused = refused->next)
    text = kl_format(ctx,
                     "%swarning: kernel '%s' is left out of the %s output (the other kernels "
                     "are in it): the %s target cannot express it (the errors above)\n",
                     text, refused->name, agpu_target_names[target], agpu_target_names[target]);
  return text;
}

/* A bounds-checked program's proofs at launch (kernels/bounds_proof.c):
 * which kernels' launches may run unchecked, and why the others may not. */
static const char *agpu_proof_notes(kl_context *ctx, const kl_program *program, const char *text) {
  for (const kl_check_proof *p = program->check_proofs; p; p = p->next) {
    if (!p->never) {
      text = kl_format(ctx,
                       "%snote: kernel '%s': a launch the host proves in bounds (from its sizes, "
                       "buffers and scalar arguments) runs without checks\n",
                       text, p->kernel);
      continue;
    }
    text = kl_format(ctx, "%snote: kernel '%s': every launch runs checked: %s:%d:%d: %s\n", text,
                     p->kernel, p->where.source ? p->where.source->name : "<source>", p->where.line,
                     p->where.column, p->why);
  }
  return text;
}

AGPU_API agpu_status agpu_translate(const agpu_translate_desc *desc,
                                    agpu_translation **translation) {
  if (!translation)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_translate: translation is NULL");
  *translation = NULL;
  if (!desc || !desc->source)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_translate: no source given");
  if ((unsigned)desc->target >= AGPU_TARGET_COUNT_)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_translate: unknown target %d",
                          (int)desc->target);
  agpu_status checked =
      agpu_check_include_dirs("agpu_translate", desc->include_dirs, desc->include_dir_count);
  if (checked != AGPU_SUCCESS) return checked;
  agpu_translation *result = calloc(1, sizeof *result);
  kl_context *ctx = kl_context_create();
  if (!result || !ctx) {
    free(result);
    kl_context_destroy(ctx);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_translate: out of host memory");
  }
  result->context = ctx;
  /* The macro the backend that compiles this target predefines (see
   * agpu_program_build). */
  const agpu_backend_descriptor *backend = agpu_backend_for_target(desc->target);
  char *build_options =
      agpu_program_options_with_backend(desc->options, backend ? backend->name : "none");
  if (!build_options) {
    free(result);
    kl_context_destroy(ctx);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_translate: out of host memory");
  }
  kl_translate_options options = {
      .source_name = desc->source_name ? desc->source_name : "<source>",
      .build_options = build_options,
      .include_dirs = desc->include_dirs,
      .include_dir_count = (int)desc->include_dir_count,
      .traits = {.fp64 = !desc->no_fp64, .fp16 = desc->fp16, .int64 = true},
  };
  size_t length = desc->source_size ? desc->source_size : strlen(desc->source);
  kl_program *program = kl_parse_program(ctx, desc->source, length, &options);
  free(build_options); /* the context keeps its own copy */
  agpu_status status = AGPU_SUCCESS;
  const char *kernel = NULL;
  if (!program) {
    status = agpu_error_set(AGPU_ERROR_BUILD_FAILED, "%s", kl_diagnostics_text(ctx));
  } else if (desc->target == AGPU_TARGET_GLSL || desc->target == AGPU_TARGET_SPIRV) {
    status = agpu_pick_glsl_kernel(program, desc->kernel, &kernel);
  }
  kl_refused_kernel *refused = NULL;
  if (status == AGPU_SUCCESS) {
    /* C, CUDA and HIP leave out a kernel they cannot express (issue 18) */
    result->output = kl_emit_kernels(ctx, program, agpu_kl_targets[desc->target], kernel, &refused);
    if (!result->output || agpu_refused_every_kernel(program, refused))
      status = agpu_error_set(AGPU_ERROR_BUILD_FAILED, "%s", kl_diagnostics_text(ctx));
  }
  if (status == AGPU_SUCCESS && desc->target == AGPU_TARGET_SPIRV)
    status = agpu_compile_spirv(result, kernel);
  if (status == AGPU_SUCCESS) {
    result->signature_json = kl_signature_json(ctx, program);
    result->diagnostics =
        agpu_proof_notes(ctx, program, agpu_refusal_notes(ctx, desc->target, refused));
    status = agpu_object_publish(&result->object, AGPU_OBJECT_TRANSLATION);
  }
  if (status != AGPU_SUCCESS) {
    agpu_translation_free(result);
    return status;
  }
  *translation = result->object.handle;
  return AGPU_SUCCESS;
}

static agpu_translation *agpu_translation_of(const agpu_translation *handle, const char *function) {
  void *found = NULL;
  agpu_handle_lookup(handle, AGPU_OBJECT_TRANSLATION, function, "translation", &found);
  return found;
}

AGPU_API const char *agpu_translation_output(const agpu_translation *handle) {
  const agpu_translation *translation = agpu_translation_of(handle, "agpu_translation_output");
  return translation && translation->output ? translation->output : "";
}

AGPU_API const void *agpu_translation_binary(const agpu_translation *handle, size_t *size) {
  const agpu_translation *translation = agpu_translation_of(handle, "agpu_translation_binary");
  if (size) *size = translation && translation->binary ? translation->binary_size : 0;
  return translation ? translation->binary : NULL;
}

AGPU_API const char *agpu_translation_signature_json(const agpu_translation *handle) {
  const agpu_translation *translation =
      agpu_translation_of(handle, "agpu_translation_signature_json");
  return translation && translation->signature_json ? translation->signature_json : "";
}

AGPU_API const char *agpu_translation_diagnostics(const agpu_translation *handle) {
  const agpu_translation *translation = agpu_translation_of(handle, "agpu_translation_diagnostics");
  return translation && translation->diagnostics ? translation->diagnostics : "";
}

/* Releasing NULL is a no-op, as free(NULL) is; anything else that is not a
 * live translation sets the message and is otherwise ignored. */
AGPU_API void agpu_translation_release(agpu_translation *handle) {
  if (!handle) return;
  void *found = NULL;
  if (agpu_handle_take(handle, AGPU_OBJECT_TRANSLATION, "agpu_translation_release", "translation",
                       &found) == AGPU_SUCCESS)
    agpu_translation_free(found);
}
