// SPDX-License-Identifier: Apache-2.0
/* One GLSL to SPIR-V compile by glslang, between glslang_compile.c (C, the
 * translator's side) and glslang_guard.cpp (C++, the only code that calls
 * glslang, so that none of its C++ exceptions crosses into C). */
#ifndef AGPU_KL_GLSLANG_JOB_H
#define AGPU_KL_GLSLANG_JOB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kl_glslang_job {
  const char *glsl;
  uint32_t *words; /* malloc'ed, word_count words; NULL on failure */
  size_t word_count;
  char *log;              /* malloc'ed; NULL: static_log says it */
  const char *static_log; /* a message of ours, when log is NULL */
} kl_glslang_job;

/* glslang_initialize_process; 0 when it failed or threw. */
int kl_glslang_initialize_guarded(void);

/* Compiles job->glsl, as agpu_run_on_stack's fn. An exception glslang throws
 * (std::bad_alloc when memory runs out) is caught: a failure with a log
 * that names it ("glslang ran out of memory (std::bad_alloc)"). */
void kl_glslang_run_guarded(void *job);

#ifdef __cplusplus
}
#endif

#endif /* AGPU_KL_GLSLANG_JOB_H */
