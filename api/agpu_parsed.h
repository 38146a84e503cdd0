// SPDX-License-Identifier: Apache-2.0
/* A portable program parsed and checked once, in the core (issue 17).
 *
 * agpu_program_build preprocesses, parses and checks the source here, with
 * the device's traits, before it calls the backend's program_build; the
 * backend finds the result in program->parsed and asks it for what it
 * needs: the kernels' signatures, the preprocessed text (a cache key part),
 * the program in its target language, or one kernel's GLSL and layout. The
 * backends include this header, never the translator's front end.
 *
 * Thread-safe: the emitters share the parse, so each call that emits holds
 * the program's lock; what they return is the caller's (malloc'd), except
 * GLSL layouts, which live as long as the parsed program. A backend that
 * emits after program_build (Vulkan's by-address variants, made at launch)
 * keeps it with agpu_parsed_retain. */
#ifndef AGPU_PARSED_H
#define AGPU_PARSED_H

#include "agpu_signature.h"
#include "glsl_layout.h"

/* Part of every kernel-cache key: the translator's release and a hash of
 * its sources (kernels/translate.h). */
extern const char kl_translator_version[];
#define AGPU_TRANSLATOR_VERSION kl_translator_version

typedef struct agpu_parsed agpu_parsed;

/* Parses and checks `desc` (source, source_name, options, include_dirs)
 * for a device with `traits`. A source that does not compile returns
 * AGPU_ERROR_BUILD_FAILED with "agpu_program_build: the kernel source did
 * not compile for <selector>:" and every diagnostic (file:line:col) in the
 * message, and, when `log` is not NULL, the diagnostics in *log (malloc'd);
 * when `hit_limit` is not NULL, whether the failure was one of the
 * translator's own limits (nesting depth, expansion size, source size)
 * rather than a construct outside the subset. */
agpu_status agpu_parsed_create(const agpu_program_desc *desc, const agpu_translate_traits *traits,
                               const char *selector, agpu_parsed **out, char **log,
                               bool *hit_limit);
agpu_parsed *agpu_parsed_retain(agpu_parsed *parsed);
void agpu_parsed_release(agpu_parsed *parsed); /* NULL: nothing */

const agpu_program_signatures *agpu_parsed_signatures(const agpu_parsed *parsed);
/* The front end's warnings ("" when none). */
const char *agpu_parsed_warnings(const agpu_parsed *parsed);
/* Whether a kernel prints (printf): its translation, not the source as
 * written, must run, since it writes the records the core reports. */
bool agpu_parsed_prints(const agpu_parsed *parsed);
/* Whether its kernels check their accesses (-anygpu-check=bounds). */
bool agpu_parsed_checks(const agpu_parsed *parsed);
/* The syntax tree, for the core's own readers (the printf formats). */
struct kl_program;
const struct kl_program *agpu_parsed_program(const agpu_parsed *parsed);
/* The source after preprocessing (includes expanded): NULL when unknown. */
const char *agpu_parsed_preprocessed(const agpu_parsed *parsed);
/* The build options the source was parsed with ("" when none). */
const char *agpu_parsed_options(const agpu_parsed *parsed);
const char *agpu_parsed_source_name(const agpu_parsed *parsed);
agpu_translate_traits agpu_parsed_traits(const agpu_parsed *parsed);

/* The whole program in `target` (OpenCL, CUDA, HIP or C), malloc'd in
 * *text. When the emitter refuses it: `refusal` with
 * "agpu_program_build: <what> for <selector>:" and the diagnostics, which
 * also go to *log (malloc'd) when `log` is not NULL. */
agpu_status agpu_parsed_emit(agpu_parsed *parsed, agpu_target target, agpu_status refusal,
                             const char *what, char **text, char **log);

/* The whole program in `target` (C, CUDA or HIP), in *text (malloc'd),
 * without the kernels the target cannot express: each of those is in
 * *refused (malloc'd, agpu_kernel_refusals_free; status `refusal`, message
 * "agpu_program_build: <what> (kernel 'k') for <selector>:" and what the
 * emitter said) for the backend to record (agpu_program_take_refusals). A
 * program whose every kernel is refused fails with the first refusal, and
 * *log holds the diagnostics; one where something outside the kernels fails
 * (a helper, a constant) fails as agpu_parsed_emit does. */
agpu_status agpu_parsed_emit_kernels(agpu_parsed *parsed, agpu_target target, agpu_status refusal,
                                     const char *what, char **text, agpu_kernel_refusal **refused,
                                     char **log);

/* The whole program in C (the CPU backend), in *text (malloc'd): a kernel
 * the C target cannot express is refused alone on `program`
 * (agpu_program_refuse_kernel, AGPU_ERROR_BUILD_FAILED, "agpu_program_build:
 * <what> (kernel 'k') for <selector>:" and what the emitter said); a program
 * whose every kernel is refused fails with the first refusal, and one where
 * something outside the kernels fails, as agpu_parsed_emit does. */
agpu_status agpu_parsed_emit_c(agpu_parsed *parsed, agpu_program *program, const char *what,
                               char **text, char **log);

/* One kernel in GLSL with the buffer parameters set in `by_address`
 * reached by address: the text in *glsl (malloc'd; NULL `glsl` asks for the
 * layout alone) and its layout in *layout, which lives as long as `parsed`. A kernel the GLSL
 * emitter cannot express: AGPU_ERROR_UNSUPPORTED, the message and *log as above, naming the kernel.
 */
agpu_status agpu_parsed_emit_glsl(agpu_parsed *parsed, const char *kernel, uint64_t by_address,
                                  const char *what, char **glsl, const kl_glsl_layout **layout,
                                  char **log);

/* GLSL compiled to SPIR-V 1.3 (glslang), the words in *words (malloc'd).
 * AGPU_ERROR_OUT_OF_HOST_MEMORY when glslang ran out of memory,
 * AGPU_ERROR_INTERNAL when it refuses the GLSL, AGPU_ERROR_UNSUPPORTED when
 * built without glslang; no message is set, glslang's log is in *log
 * (malloc'd, may be NULL). */
#define AGPU_SPIRV_MAGIC 0x07230203u

agpu_status agpu_glsl_to_spirv(const char *glsl, uint32_t **words, size_t *word_count, char **log);

#endif /* AGPU_PARSED_H */
