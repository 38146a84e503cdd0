// SPDX-License-Identifier: Apache-2.0
// The only code that calls glslang (glslang_job.h). glslang is C++ and
// throws: std::bad_alloc when memory runs out (under a memory limit, a
// large shader), which through its C interface would cross
// agpu_program_build and abort the process ("terminate called after
// throwing an instance of 'std::bad_alloc'"). Every call is made inside a
// try; an exception becomes a failed compile with a log that names it.
#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

#include "glslang_job.h"
#include "spirv.h"

namespace {

// "stage: log" with glslang's debug log after it, malloc'ed.
void set_log(kl_glslang_job *job, const char *stage, const char *log, const char *more) {
  const char *sep = more && *more ? "\n" : "";
  size_t size =
      std::strlen(stage) + (log ? std::strlen(log) : 0) + (more ? std::strlen(more) : 0) + 4;
  job->log = static_cast<char *>(std::malloc(size));
  if (job->log)
    std::snprintf(job->log, size, "%s: %s%s%s", stage, log ? log : "", sep, more ? more : "");
  else
    job->static_log = stage;
}

struct compile {
  glslang_shader_t *shader = nullptr;
  glslang_program_t *program = nullptr;

  void run(kl_glslang_job *job) {
    glslang_input_t input;
    std::memset(&input, 0, sizeof input);
    input.language = GLSLANG_SOURCE_GLSL;
    input.stage = GLSLANG_STAGE_COMPUTE;
    input.client = GLSLANG_CLIENT_VULKAN;
    input.client_version = GLSLANG_TARGET_VULKAN_1_1;
    input.target_language = GLSLANG_TARGET_SPV;
    input.target_language_version = GLSLANG_TARGET_SPV_1_3;
    input.code = job->glsl;
    input.default_version = 450;
    input.default_profile = GLSLANG_NO_PROFILE;
    input.force_default_version_and_profile = 0;
    input.forward_compatible = 0;
    input.messages =
        static_cast<glslang_messages_t>(GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT);
    input.resource = glslang_default_resource();
    shader = glslang_shader_create(&input);
    if (!shader) {
      job->static_log = "glslang_shader_create failed";
    } else if (!glslang_shader_preprocess(shader, &input)) {
      set_log(job, "glslang preprocess", glslang_shader_get_info_log(shader),
              glslang_shader_get_info_debug_log(shader));
    } else if (!glslang_shader_parse(shader, &input)) {
      set_log(job, "glslang parse", glslang_shader_get_info_log(shader),
              glslang_shader_get_info_debug_log(shader));
    } else if (!(program = glslang_program_create())) {
      job->static_log = "glslang_program_create failed";
    } else {
      glslang_program_add_shader(program, shader);
      if (!glslang_program_link(program, static_cast<int>(input.messages))) {
        set_log(job, "glslang link", glslang_program_get_info_log(program),
                glslang_program_get_info_debug_log(program));
      } else {
        glslang_program_SPIRV_generate(program, GLSLANG_STAGE_COMPUTE);
        size_t count = glslang_program_SPIRV_get_size(program);
        const char *messages = glslang_program_SPIRV_get_messages(program);
        if (count == 0) {
          set_log(job, "glslang SPIR-V generation", "no words", messages);
        } else if (!(job->words = static_cast<uint32_t *>(std::malloc(count * sizeof(uint32_t))))) {
          job->static_log = "glslang: out of memory for the SPIR-V module";
        } else {
          std::memcpy(job->words, glslang_program_SPIRV_get_ptr(program), count * sizeof(uint32_t));
          job->word_count = count;
        }
      }
    }
  }

  // Deleting may throw too (it runs destructors that free pools): swallowed,
  // at worst a leak after an out-of-memory.
  ~compile() {
    try {
      if (program) glslang_program_delete(program);
    } catch (...) {
    }
    try {
      if (shader) glslang_shader_delete(shader);
    } catch (...) {
    }
  }
};

void fail(kl_glslang_job *job, const char *stage, const char *what) {
  std::free(job->words);
  job->words = nullptr;
  job->word_count = 0;
  std::free(job->log);
  job->log = nullptr;
  job->static_log = stage;
  if (what) set_log(job, stage, what, nullptr);
}

}  // namespace

extern "C" int kl_glslang_initialize_guarded(void) {
  try {
    return glslang_initialize_process();
  } catch (...) {
    return 0;
  }
}

extern "C" void kl_glslang_run_guarded(void *data) {
  kl_glslang_job *job = static_cast<kl_glslang_job *>(data);
  try {
    compile c;
    c.run(job);
  } catch (const std::bad_alloc &) {
    fail(job, KL_GLSLANG_NO_MEMORY " (std::bad_alloc)", nullptr);
  } catch (const std::exception &e) {
    fail(job, "glslang threw a C++ exception", e.what());
  } catch (...) {
    fail(job, "glslang threw a C++ exception", nullptr);
  }
}
