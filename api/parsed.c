// SPDX-License-Identifier: Apache-2.0
/* A portable program parsed and checked once (agpu_parsed.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_core.h"
#include "agpu_parsed.h"
#include "translate.h"
#ifdef AGPU_HAVE_GLSLANG
#include "spirv.h"
#endif

struct agpu_parsed {
  _Atomic uint32_t references;
  pthread_mutex_t lock; /* the emitters share `context` */
  kl_context *context;  /* owns the syntax tree, the diagnostics and the layouts */
  const kl_program *program;
  agpu_program_signatures signatures;
  agpu_translate_traits traits;
  char *selector, *options, *source_name, *preprocessed;
};

static void agpu_parsed_free(agpu_parsed *parsed) {
  kl_context_destroy(parsed->context);
  agpu_signatures_free(&parsed->signatures);
  pthread_mutex_destroy(&parsed->lock);
  free(parsed->selector);
  free(parsed->options);
  free(parsed->source_name);
  free(parsed->preprocessed);
  free(parsed);
}

static agpu_status agpu_parsed_no_memory(void) {
  return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
}

/* The diagnostics so far, as a message after "agpu_program_build: <what>"
 * and, when `log` is not NULL, a malloc'd copy. */
static agpu_status agpu_parsed_fail(kl_context *ctx, agpu_status status, const char *what,
                                    const char *kernel, const char *selector, char **log) {
  const char *text = kl_diagnostics_text(ctx);
  if (!text) text = "";
  if (log) *log = agpu_strdup(text);
  return agpu_error_set(status, "agpu_program_build: %s%s%s%s for %s:\n%s", what,
                        kernel ? " (kernel '" : "", kernel ? kernel : "", kernel ? "')" : "",
                        selector, text);
}

static kl_translate_options agpu_parsed_options_of(const agpu_program_desc *desc,
                                                   const agpu_translate_traits *traits) {
  return (kl_translate_options){
      .source_name = desc->source_name,
      .build_options = desc->options ? desc->options : "",
      .include_dirs = desc->include_dirs,
      .include_dir_count = (int)desc->include_dir_count,
      .traits = {.fp64 = traits->fp64,
                 .fp16 = traits->fp16,
                 .int64 = traits->int64,
                 .fused_fma_float = traits->fused_fma_float,
                 .f64_rounding_exact = traits->f64_rounding_exact,
                 .local_memory_limit = traits->local_mem_bytes > UINT32_MAX
                                           ? UINT32_MAX
                                           : (uint32_t)traits->local_mem_bytes},
  };
}

static agpu_status agpu_parsed_keep_texts(agpu_parsed *parsed, const agpu_program_desc *desc,
                                          const char *selector) {
  const char *warnings = kl_diagnostics_text(parsed->context);
  const char *preprocessed = kl_preprocessed_text(parsed->context);
  parsed->selector = agpu_strdup(selector);
  parsed->options = agpu_strdup(desc->options ? desc->options : "");
  parsed->source_name = agpu_strdup(desc->source_name ? desc->source_name : "<source>");
  parsed->preprocessed = preprocessed ? agpu_strdup(preprocessed) : NULL;
  parsed->signatures.warnings = agpu_strdup(warnings ? warnings : "");
  if (!parsed->selector || !parsed->options || !parsed->source_name ||
      (preprocessed && !parsed->preprocessed) || !parsed->signatures.warnings)
    return agpu_parsed_no_memory();
  return AGPU_SUCCESS;
}

agpu_status agpu_parsed_create(const agpu_program_desc *desc, const agpu_translate_traits *traits,
                               const char *selector, agpu_parsed **out, char **log,
                               bool *hit_limit) {
  *out = NULL;
  if (log) *log = NULL;
  if (hit_limit) *hit_limit = false;
  agpu_parsed *parsed = calloc(1, sizeof *parsed);
  if (!parsed) return agpu_parsed_no_memory();
  atomic_init(&parsed->references, 1);
  pthread_mutex_init(&parsed->lock, NULL);
  parsed->traits = *traits;
  parsed->context = kl_context_create();
  if (!parsed->context) {
    agpu_parsed_free(parsed);
    return agpu_parsed_no_memory();
  }
  kl_translate_options options = agpu_parsed_options_of(desc, traits);
  size_t size = desc->source_size ? desc->source_size : strlen(desc->source);
  parsed->program = kl_parse_program(parsed->context, desc->source, size, &options);
  agpu_status status =
      parsed->program ? AGPU_SUCCESS
                      : agpu_parsed_fail(parsed->context, AGPU_ERROR_BUILD_FAILED,
                                         "the kernel source did not compile", NULL, selector, log);
  if (hit_limit) *hit_limit = kl_hit_limit(parsed->context);
  if (status == AGPU_SUCCESS) status = agpu_parsed_keep_texts(parsed, desc, selector);
  if (status == AGPU_SUCCESS && agpu_signatures_describe(parsed->context, parsed->program,
                                                         &parsed->signatures) != AGPU_SUCCESS)
    status = agpu_parsed_no_memory();
  if (status != AGPU_SUCCESS) {
    agpu_parsed_free(parsed);
    return status;
  }
  *out = parsed;
  return AGPU_SUCCESS;
}

agpu_parsed *agpu_parsed_retain(agpu_parsed *parsed) {
  atomic_fetch_add(&parsed->references, 1);
  return parsed;
}

void agpu_parsed_release(agpu_parsed *parsed) {
  if (parsed && atomic_fetch_sub(&parsed->references, 1) == 1) agpu_parsed_free(parsed);
}

const agpu_program_signatures *agpu_parsed_signatures(const agpu_parsed *parsed) {
  return &parsed->signatures;
}

const char *agpu_parsed_warnings(const agpu_parsed *parsed) {
  return parsed->signatures.warnings;
}

bool agpu_parsed_prints(const agpu_parsed *parsed) {
  return parsed->program && parsed->program->printf_format_count > 0;
}

bool agpu_parsed_checks(const agpu_parsed *parsed) {
  return parsed->program && parsed->program->checks_bounds;
}

const struct kl_program *agpu_parsed_program(const agpu_parsed *parsed) {
  return parsed->program;
}

const char *agpu_parsed_preprocessed(const agpu_parsed *parsed) {
  return parsed ? parsed->preprocessed : NULL; /* NULL: a source passed through unparsed */
}

const char *agpu_parsed_options(const agpu_parsed *parsed) {
  return parsed->options;
}

const char *agpu_parsed_source_name(const agpu_parsed *parsed) {
  return parsed->source_name;
}

agpu_translate_traits agpu_parsed_traits(const agpu_parsed *parsed) {
  return parsed->traits;
}

/* Each emitter is called by name, not through kl_emit: a strong reference
 * pulls only the emitters a static link uses. */
/* One emitter's call, run under kl_guarded (an emitter that reports too
 * many errors or runs out of memory stops there, not the process). */
typedef struct agpu_emit_call {
  agpu_parsed *parsed;
  agpu_target target;
  const kl_function *kernel; /* GLSL */
  uint64_t by_address;
  bool want_text;
  bool per_kernel;            /* C, CUDA, HIP: refuse kernels one by one */
  kl_refused_kernel *refused; /* per_kernel */
  const char *text;
  const kl_glsl_layout *layout;
} agpu_emit_call;

static void agpu_emit_work(void *data) {
  agpu_emit_call *call = data;
  kl_context *ctx = call->parsed->context;
  const kl_program *program = call->parsed->program;
  switch (call->target) {
    case AGPU_TARGET_OPENCL:
      call->text = kl_emit_opencl(ctx, program);
      break;
    case AGPU_TARGET_CUDA:
    case AGPU_TARGET_HIP:
      call->text = kl_emit_cuda_kernels(ctx, program, call->target == AGPU_TARGET_HIP,
                                        call->per_kernel ? &call->refused : NULL);
      break;
    case AGPU_TARGET_C:
      call->text = kl_emit_c_kernels(ctx, program, call->per_kernel ? &call->refused : NULL);
      break;
    case AGPU_TARGET_GLSL:
      if (call->want_text)
        call->text =
            kl_emit_glsl_variant(ctx, program, call->kernel, call->by_address, &call->layout);
      else
        call->layout = kl_glsl_layout_of(ctx, program, call->kernel);
      break;
    default:
      break;
  }
}

static void agpu_emit_guarded(agpu_emit_call *call) {
  if (!kl_guarded(call->parsed->context, agpu_emit_work, call)) {
    call->text = NULL;
    call->layout = NULL;
  }
}

agpu_status agpu_parsed_emit(agpu_parsed *parsed, agpu_target target, agpu_status refusal,
                             const char *what, char **text, char **log) {
  *text = NULL;
  if (log) *log = NULL;
  pthread_mutex_lock(&parsed->lock);
  agpu_emit_call call = {.parsed = parsed, .target = target};
  agpu_emit_guarded(&call);
  const char *emitted = call.text;
  agpu_status status = AGPU_SUCCESS;
  if (!emitted)
    status = agpu_parsed_fail(parsed->context, refusal, what, NULL, parsed->selector, log);
  else if (!(*text = agpu_strdup(emitted)))
    status = agpu_parsed_no_memory();
  pthread_mutex_unlock(&parsed->lock);
  return status;
}

/* Each kernel the emitter left out, as a list of refusals (malloc'd). */
static agpu_status agpu_parsed_refusals(const agpu_parsed *parsed, const kl_refused_kernel *from,
                                        agpu_status refusal, const char *what,
                                        agpu_kernel_refusal **refused) {
  agpu_kernel_refusal **tail = refused;
  for (const kl_refused_kernel *r = from; r; r = r->next) {
    agpu_kernel_refusal *item = calloc(1, sizeof *item);
    if (!item) return agpu_parsed_no_memory();
    *tail = item;
    tail = &item->next;
    item->status = refusal;
    item->kernel = agpu_strdup(r->name);
    if (!item->kernel ||
        asprintf(&item->message, "agpu_program_build: %s (kernel '%s') for %s:\n%s", what, r->name,
                 parsed->selector, r->diagnostics) < 0) {
      item->message = NULL;
      return agpu_parsed_no_memory();
    }
  }
  return AGPU_SUCCESS;
}

agpu_status agpu_parsed_emit_kernels(agpu_parsed *parsed, agpu_target target, agpu_status refusal,
                                     const char *what, char **text, agpu_kernel_refusal **refused,
                                     char **log) {
  *text = NULL;
  *refused = NULL;
  if (log) *log = NULL;
  pthread_mutex_lock(&parsed->lock);
  agpu_emit_call call = {.parsed = parsed, .target = target, .per_kernel = true};
  agpu_emit_guarded(&call);
  agpu_status status = AGPU_SUCCESS;
  if (!call.text)
    status = agpu_parsed_fail(parsed->context, refusal, what, NULL, parsed->selector, log);
  else
    status = agpu_parsed_refusals(parsed, call.refused, refusal, what, refused);
  uint32_t count = 0;
  for (const agpu_kernel_refusal *r = *refused; r; r = r->next) count++;
  if (status == AGPU_SUCCESS && count && count >= parsed->signatures.kernel_count) {
    /* nothing left to run: the first kernel's refusal fails the build */
    status = agpu_error_set(refusal, "%s", (*refused)->message);
    if (log) *log = agpu_strdup(kl_diagnostics_text(parsed->context));
  }
  if (status == AGPU_SUCCESS && !(*text = agpu_strdup(call.text))) status = agpu_parsed_no_memory();
  if (status != AGPU_SUCCESS) {
    agpu_kernel_refusals_free(*refused);
    *refused = NULL;
  }
  pthread_mutex_unlock(&parsed->lock);
  return status;
}

agpu_status agpu_parsed_emit_c(agpu_parsed *parsed, agpu_program *program, const char *what,
                               char **text, char **log) {
  agpu_kernel_refusal *refused = NULL;
  agpu_status status = agpu_parsed_emit_kernels(parsed, AGPU_TARGET_C, AGPU_ERROR_BUILD_FAILED,
                                                what, text, &refused, log);
  if (status == AGPU_SUCCESS) status = agpu_program_take_refusals(program, refused);
  if (status != AGPU_SUCCESS) {
    free(*text);
    *text = NULL;
  }
  return status;
}

agpu_status agpu_parsed_emit_glsl(agpu_parsed *parsed, const char *kernel, uint64_t by_address,
                                  const char *what, char **glsl, const kl_glsl_layout **layout,
                                  char **log) {
  if (glsl) *glsl = NULL;
  if (log) *log = NULL;
  *layout = NULL;
  pthread_mutex_lock(&parsed->lock);
  const kl_function *fn = kl_find_kernel(parsed->program, kernel);
  /* the plain layout needs no text; a variant's is made with its text */
  agpu_emit_call call = {.parsed = parsed,
                         .target = AGPU_TARGET_GLSL,
                         .kernel = fn,
                         .by_address = by_address,
                         .want_text = glsl || by_address};
  if (fn) agpu_emit_guarded(&call);
  const char *text = call.text;
  *layout = call.layout;
  agpu_status status = AGPU_SUCCESS;
  if (!*layout || ((glsl || by_address) && !text))
    status = agpu_parsed_fail(parsed->context, AGPU_ERROR_UNSUPPORTED, what, kernel,
                              parsed->selector, log);
  else if (glsl && !(*glsl = agpu_strdup(text)))
    status = agpu_parsed_no_memory();
  pthread_mutex_unlock(&parsed->lock);
  return status;
}

agpu_status agpu_glsl_to_spirv(const char *glsl, uint32_t **words, size_t *word_count, char **log) {
  *words = NULL;
  *word_count = 0;
  if (log) *log = NULL;
#ifndef AGPU_HAVE_GLSLANG
  (void)glsl;
  return AGPU_ERROR_UNSUPPORTED;
#else
  kl_context *ctx = kl_context_create(); /* glslang's words and log live in it */
  if (!ctx) return AGPU_ERROR_OUT_OF_HOST_MEMORY;
  const char *error_log = NULL;
  size_t count = 0;
  const uint32_t *compiled = kl_compile_glsl_to_spirv(ctx, glsl, &count, &error_log);
  agpu_status status = AGPU_SUCCESS;
  if (!compiled) {
    bool no_memory =
        error_log && !strncmp(error_log, KL_GLSLANG_NO_MEMORY, strlen(KL_GLSLANG_NO_MEMORY));
    status = no_memory ? AGPU_ERROR_OUT_OF_HOST_MEMORY : AGPU_ERROR_INTERNAL;
    if (log && error_log) *log = agpu_strdup(error_log);
  } else if ((*words = malloc(count * sizeof *compiled)) != NULL) {
    memcpy(*words, compiled, count * sizeof *compiled);
    *word_count = count;
  } else {
    status = AGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
  kl_context_destroy(ctx);
  return status;
#endif
}
