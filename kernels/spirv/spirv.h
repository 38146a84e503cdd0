// SPDX-License-Identifier: Apache-2.0
/* GLSL to SPIR-V inside the library, through glslang's C interface linked
 * from the static archives of Debian's glslang-dev (cmake/glslang.cmake).
 * Built only when AGPU_HAVE_GLSLANG is defined; otherwise the SPIR-V target
 * reports AGPU_ERROR_UNSUPPORTED. */
#ifndef AGPU_KL_SPIRV_H
#define AGPU_KL_SPIRV_H

#include <stddef.h>
#include <stdint.h>

#include "kl.h"

/* Compiles one GLSL 4.50 compute shader (as kl_emit_glsl prints it) to
 * SPIR-V 1.3 for Vulkan 1.1, with glslang's default resource limits. The
 * words live in `ctx`'s arena. NULL on failure, with glslang's log (also in
 * the arena) in *error_log; a failure on the translator's own output is an
 * internal error of the GLSL emitter.
 *
 * glslang's process initialisation is global to the process: the first call
 * runs glslang_initialize_process once (pthread_once); it is never
 * finalized, since another part of the process may be using glslang too.
 * Thread-safe after that: each call has its own shader and program. No C++
 * exception of glslang's leaves this function: one is a failure with a log
 * (KL_GLSLANG_NO_MEMORY for std::bad_alloc). */
const uint32_t *kl_compile_glsl_to_spirv(kl_context *ctx, const char *glsl, size_t *word_count,
                                         const char **error_log);

/* The start of *error_log when glslang ran out of memory (it threw
 * std::bad_alloc, caught in glslang_guard.cpp): not the GLSL's fault. */
#define KL_GLSLANG_NO_MEMORY "glslang ran out of memory"

#define KL_SPIRV_MAGIC 0x07230203u

#endif /* AGPU_KL_SPIRV_H */
