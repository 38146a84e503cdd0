// SPDX-License-Identifier: Apache-2.0
/* kl_compile_glsl_to_spirv (spirv.h) with glslang's C interface, called
 * from glslang_guard.cpp only, which catches glslang's C++ exceptions.
 *
 * glslang runs on a thread of its own with an 8 MiB stack (agpu_stack.h):
 * its passes recurse once per level of an expression's tree, and the
 * caller's thread may have a small stack (a 256 KiB thread overflowed at
 * 390 levels, under the translator's limit of 400, kernels/kl_front.h).
 * The worker touches nothing of the translator's arena (kl_alloc may
 * longjmp): it hands back malloc'ed words and log, copied into the arena
 * here. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_stack.h"
#include "glslang_job.h"
#include "spirv.h"

static pthread_once_t kl_glslang_once = PTHREAD_ONCE_INIT;
static int kl_glslang_ready;

static void kl_glslang_initialize(void) {
  kl_glslang_ready = kl_glslang_initialize_guarded();
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
  agpu_run_on_stack(AGPU_COMPILER_STACK_BYTES, kl_glslang_run_guarded, &job);
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
