// SPDX-License-Identifier: Apache-2.0
/* The translator's entry points: one translation per context. */
#include <string.h>

#include "kl_front.h"

/* The emitters live in other files; a build without one still links and
 * says so (weak references: see docs/kernel-language.md). */
extern const char *kl_emit_opencl(kl_context *ctx, const kl_program *program) __attribute__((weak));
extern const char *kl_emit_glsl(kl_context *ctx, const kl_program *program,
                                const kl_function *kernel) __attribute__((weak));
extern const char *kl_emit_c_kernels(kl_context *ctx, const kl_program *program,
                                     kl_refused_kernel **refused) __attribute__((weak));
extern const char *kl_emit_cuda_kernels(kl_context *ctx, const kl_program *program, bool hip,
                                        kl_refused_kernel **refused) __attribute__((weak));

static kl_program *parse_source(kl_context *ctx, const char *source, size_t length,
                                const kl_translate_options *options) {
  kl_translate_options defaults = {0};
  if (!options) options = &defaults;
  ctx->options = *options;
  const char *name = options->source_name ? options->source_name : "<source>";
  ctx->options.source_name = kl_strndup(ctx, name, strlen(name));
  if (options->build_options)
    ctx->options.build_options =
        kl_strndup(ctx, options->build_options, strlen(options->build_options));
  if (!source) {
    source = "";
    length = 0;
  }
  bool too_big = length > KL_MAX_SOURCE_BYTES;
  kl_source *src = kl_new_source(ctx, ctx->options.source_name, source, too_big ? 0 : length);
  size_t name_length = strlen(name);
  src->is_file = name_length > 0 && !(name[0] == '<' && name[name_length - 1] == '>');
  ctx->main_source = src;
  if (too_big) {
    kl_limit_error(ctx, (kl_location){src, 1, 1},
                   "the source is %zu bytes, more than the %u MiB a kernel source may be", length,
                   (unsigned)(KL_MAX_SOURCE_BYTES >> 20));
    return NULL;
  }
  ctx->options.include_dirs = NULL;
  for (int i = 0; options->include_dirs && i < options->include_dir_count; i++)
    if (options->include_dirs[i] && options->include_dirs[i][0])
      kl_include_add_dir(ctx, options->include_dirs[i], strlen(options->include_dirs[i]));
  kl_token *tokens = kl_tokenize(ctx, src);
  tokens = kl_preprocess(ctx, tokens);
  if (ctx->check_bounds) tokens = kl_bounds_prelude(ctx, tokens);
  kl_program *program = kl_parse(ctx, tokens);
  if (program) program->fp_contract_off = ctx->fp_contract_off;
  if (program && ctx->check_bounds && !kl_error_count(ctx)) kl_bounds_instrument(ctx, program);
  if (!kl_error_count(ctx)) kl_check_program(ctx, program);
  return program;
}

kl_program *kl_parse_program(kl_context *ctx, const char *source, size_t length,
                             const kl_translate_options *options) {
  if (!ctx) return NULL;
  jmp_buf bail;
  kl_program *volatile program = NULL;
  if (setjmp(bail) == 0) {
    ctx->bail = &bail;
    program = parse_source(ctx, source, length, options);
  }
  ctx->bail = NULL;
  return kl_error_count(ctx) ? NULL : program;
}

const char *kl_preprocessed_text(kl_context *ctx) {
  return ctx && ctx->preprocessed_text ? ctx->preprocessed_text : "";
}

const kl_function *kl_find_kernel(const kl_program *program, const char *name) {
  if (!program || !name) return NULL;
  for (const kl_function *f = program->functions; f; f = f->next)
    if (f->is_kernel && f->body && strcmp(f->name, name) == 0) return f;
  return NULL;
}

/* Whether this build links the emitter (they are weak symbols). */
static bool have_emitter(kl_context *ctx, bool linked, const char *name) {
  if (!linked)
    kl_error(ctx, (kl_location){ctx->main_source, 0, 0}, "this build has no %s emitter", name);
  return linked;
}

/* The one kernel a GLSL shader holds: `kernel`, else the program's only one. */
static const kl_function *glsl_kernel(kl_context *ctx, const kl_program *program,
                                      const char *kernel) {
  kl_location nowhere = {ctx->main_source, 0, 0};
  const kl_function *k = NULL;
  if (kernel) {
    k = kl_find_kernel(program, kernel);
    if (!k) kl_error(ctx, nowhere, "no kernel named '%s'", kernel);
    return k;
  }
  int count = 0;
  for (const kl_function *f = program->functions; f; f = f->next)
    if (f->is_kernel && f->body) {
      if (!k) k = f;
      count++;
    }
  if (count == 0) kl_error(ctx, nowhere, "the program has no kernel");
  if (count > 1)
    kl_error(ctx, nowhere, "GLSL needs one kernel per shader: name the kernel (the program has %d)",
             count);
  return count == 1 ? k : NULL;
}

static const char *emit(kl_context *ctx, const kl_program *program, kl_target target,
                        const char *kernel, kl_refused_kernel **refused) {
  bool hip = target == KL_TARGET_HIP;
  switch (target) {
    case KL_TARGET_OPENCL:
      return have_emitter(ctx, kl_emit_opencl != NULL, "OpenCL C") ? kl_emit_opencl(ctx, program)
                                                                   : NULL;
    case KL_TARGET_CUDA:
    case KL_TARGET_HIP:
      return have_emitter(ctx, kl_emit_cuda_kernels != NULL, hip ? "HIP" : "CUDA")
                 ? kl_emit_cuda_kernels(ctx, program, hip, refused)
                 : NULL;
    case KL_TARGET_GLSL: {
      const kl_function *k = glsl_kernel(ctx, program, kernel);
      return k && have_emitter(ctx, kl_emit_glsl != NULL, "GLSL") ? kl_emit_glsl(ctx, program, k)
                                                                  : NULL;
    }
    case KL_TARGET_C:
      return have_emitter(ctx, kl_emit_c_kernels != NULL, "C")
                 ? kl_emit_c_kernels(ctx, program, refused)
                 : NULL;
    default:
      kl_error(ctx, (kl_location){ctx->main_source, 0, 0}, "unknown target %d", (int)target);
      return NULL;
  }
}

bool kl_guarded(kl_context *ctx, void (*work)(void *data), void *data) {
  jmp_buf bail, *saved = ctx->bail;
  volatile bool finished = false;
  if (setjmp(bail) == 0) {
    ctx->bail = &bail;
    work(data);
    finished = true;
  }
  ctx->bail = saved;
  return finished;
}

const char *kl_emit(kl_context *ctx, const kl_program *program, kl_target target,
                    const char *kernel) {
  return kl_emit_kernels(ctx, program, target, kernel, NULL);
}

const char *kl_emit_kernels(kl_context *ctx, const kl_program *program, kl_target target,
                            const char *kernel, kl_refused_kernel **refused) {
  if (!ctx || !program) return NULL;
  jmp_buf bail;
  const char *volatile result = NULL;
  if (setjmp(bail) == 0) {
    ctx->bail = &bail;
    result = emit(ctx, program, target, kernel, refused);
  }
  ctx->bail = NULL;
  return result;
}
