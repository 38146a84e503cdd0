/* kl_compile_glsl_to_spirv (spirv.h) with glslang's C interface.
 *
 * glslang runs on a thread of its own with an 8 MiB stack (agpu_stack.h):
 * its passes recurse once per level of an expression's tree, and the
 * caller's thread may have a small stack (a 256 KiB thread overflowed at
 * 390 levels, under the translator's limit of 400, kernels/kl_front.h).
 * The worker touches nothing of the translator's arena (kl_alloc may
 * longjmp): it hands back malloc'ed words and log, copied into the arena
 * here. */
#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_stack.h"
#include "spirv.h"

static pthread_once_t kl_glslang_once = PTHREAD_ONCE_INIT;
static int kl_glslang_ready;

static void kl_glslang_initialize(void) {
  kl_glslang_ready = glslang_initialize_process();
}

typedef struct kl_glslang_job {
  const char *glsl;
  uint32_t *words; /* malloc'ed */
  size_t word_count;
  char *log; /* malloc'ed; NULL: see static_log */
  const char *static_log;
} kl_glslang_job;

/* "stage: log" with glslang's debug log after it, malloc'ed. */
static void kl_glslang_log(kl_glslang_job *job, const char *stage, const char *log,
                           const char *more) {
  const char *sep = more && *more ? "\n" : "";
  size_t size = strlen(stage) + (log ? strlen(log) : 0) + (more ? strlen(more) : 0) + 4;
  job->log = malloc(size);
  if (job->log)
    snprintf(job->log, size, "%s: %s%s%s", stage, log ? log : "", sep, more ? more : "");
  else
    job->static_log = stage;
}

static void kl_glslang_run(void *data) {
  kl_glslang_job *job = data;
  const glslang_input_t input = {
      .language = GLSLANG_SOURCE_GLSL,
      .stage = GLSLANG_STAGE_COMPUTE,
      .client = GLSLANG_CLIENT_VULKAN,
      .client_version = GLSLANG_TARGET_VULKAN_1_1,
      .target_language = GLSLANG_TARGET_SPV,
      .target_language_version = GLSLANG_TARGET_SPV_1_3,
      .code = job->glsl,
      .default_version = 450,
      .default_profile = GLSLANG_NO_PROFILE,
      .force_default_version_and_profile = 0,
      .forward_compatible = 0,
      .messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT,
      .resource = glslang_default_resource(),
  };
  glslang_shader_t *shader = glslang_shader_create(&input);
  glslang_program_t *program = NULL;
  if (!shader) {
    job->static_log = "glslang_shader_create failed";
  } else if (!glslang_shader_preprocess(shader, &input)) {
    kl_glslang_log(job, "glslang preprocess", glslang_shader_get_info_log(shader),
                   glslang_shader_get_info_debug_log(shader));
  } else if (!glslang_shader_parse(shader, &input)) {
    kl_glslang_log(job, "glslang parse", glslang_shader_get_info_log(shader),
                   glslang_shader_get_info_debug_log(shader));
  } else if (!(program = glslang_program_create())) {
    job->static_log = "glslang_program_create failed";
  } else {
    glslang_program_add_shader(program, shader);
    if (!glslang_program_link(program, (int)input.messages)) {
      kl_glslang_log(job, "glslang link", glslang_program_get_info_log(program),
                     glslang_program_get_info_debug_log(program));
    } else {
      glslang_program_SPIRV_generate(program, GLSLANG_STAGE_COMPUTE);
      size_t count = glslang_program_SPIRV_get_size(program);
      const char *messages = glslang_program_SPIRV_get_messages(program);
      if (count == 0) {
        kl_glslang_log(job, "glslang SPIR-V generation", "no words", messages);
      } else if (!(job->words = malloc(count * sizeof *job->words))) {
        job->static_log = "out of memory for the SPIR-V module";
      } else {
        memcpy(job->words, glslang_program_SPIRV_get_ptr(program), count * sizeof *job->words);
        job->word_count = count;
      }
    }
  }
  if (program) glslang_program_delete(program);
  if (shader) glslang_shader_delete(shader);
}

const uint32_t *kl_compile_glsl_to_spirv(kl_context *ctx, const char *glsl, size_t *word_count,
                                         const char **error_log) {
  *word_count = 0;
  *error_log = NULL;
  pthread_once(&kl_glslang_once, kl_glslang_initialize);
  if (!kl_glslang_ready) {
    *error_log = "glslang_initialize_process failed";
    return NULL;
  }
  kl_glslang_job job = {.glsl = glsl};
  agpu_run_on_stack(AGPU_COMPILER_STACK_BYTES, kl_glslang_run, &job);
  /* Into the arena. kl_alloc leaves by longjmp when memory runs out, which
   * would leak the job's buffers: rare, and bounded by one module. */
  const uint32_t *words = NULL;
  if (job.words) {
    uint32_t *copy = kl_alloc(ctx, job.word_count * sizeof *copy);
    memcpy(copy, job.words, job.word_count * sizeof *copy);
    words = copy;
    *word_count = job.word_count;
  } else if (job.log) {
    *error_log = kl_format(ctx, "%s", job.log);
  } else {
    *error_log = job.static_log ? job.static_log : "glslang failed without a log";
  }
  free(job.words);
  free(job.log);
  return words;
}
