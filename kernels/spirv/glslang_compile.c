/* kl_compile_glsl_to_spirv (spirv.h) with glslang's C interface. */
#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>
#include <pthread.h>
#include <string.h>

#include "spirv.h"

static pthread_once_t kl_glslang_once = PTHREAD_ONCE_INIT;
static int kl_glslang_ready;

static void kl_glslang_initialize(void) {
  kl_glslang_ready = glslang_initialize_process();
}

/* "stage: log" with glslang's debug log after it, in the arena. */
static const char *kl_glslang_log(kl_context *ctx, const char *stage, const char *log,
                                  const char *more) {
  return kl_format(ctx, "%s: %s%s%s", stage, log ? log : "", more && *more ? "\n" : "",
                   more ? more : "");
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
  const glslang_input_t input = {
      .language = GLSLANG_SOURCE_GLSL,
      .stage = GLSLANG_STAGE_COMPUTE,
      .client = GLSLANG_CLIENT_VULKAN,
      .client_version = GLSLANG_TARGET_VULKAN_1_1,
      .target_language = GLSLANG_TARGET_SPV,
      .target_language_version = GLSLANG_TARGET_SPV_1_3,
      .code = glsl,
      .default_version = 450,
      .default_profile = GLSLANG_NO_PROFILE,
      .force_default_version_and_profile = 0,
      .forward_compatible = 0,
      .messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT,
      .resource = glslang_default_resource(),
  };
  const uint32_t *words = NULL;
  glslang_shader_t *shader = glslang_shader_create(&input);
  glslang_program_t *program = NULL;
  if (!shader) {
    *error_log = "glslang_shader_create failed";
  } else if (!glslang_shader_preprocess(shader, &input)) {
    *error_log = kl_glslang_log(ctx, "glslang preprocess", glslang_shader_get_info_log(shader),
                                glslang_shader_get_info_debug_log(shader));
  } else if (!glslang_shader_parse(shader, &input)) {
    *error_log = kl_glslang_log(ctx, "glslang parse", glslang_shader_get_info_log(shader),
                                glslang_shader_get_info_debug_log(shader));
  } else if (!(program = glslang_program_create())) {
    *error_log = "glslang_program_create failed";
  } else {
    glslang_program_add_shader(program, shader);
    if (!glslang_program_link(program, (int)input.messages)) {
      *error_log = kl_glslang_log(ctx, "glslang link", glslang_program_get_info_log(program),
                                  glslang_program_get_info_debug_log(program));
    } else {
      glslang_program_SPIRV_generate(program, GLSLANG_STAGE_COMPUTE);
      size_t count = glslang_program_SPIRV_get_size(program);
      const char *messages = glslang_program_SPIRV_get_messages(program);
      if (count == 0) {
        *error_log = kl_glslang_log(ctx, "glslang SPIR-V generation", "no words", messages);
      } else {
        uint32_t *copy = kl_alloc(ctx, count * sizeof *copy);
        memcpy(copy, glslang_program_SPIRV_get_ptr(program), count * sizeof *copy);
        words = copy;
        *word_count = count;
      }
    }
  }
  if (program) glslang_program_delete(program);
  if (shader) glslang_shader_delete(shader);
  return words;
}
