// SPDX-License-Identifier: Apache-2.0
/* The translator's entry points, used by the runtime's backends, the
 * `anygpu compile` command and the tests. */
#ifndef AGPU_TRANSLATE_H
#define AGPU_TRANSLATE_H

#include "glsl_layout.h"
#include "kl.h"

/* Part of every kernel-cache key: a release number and a hash of the
 * translator's sources, generated at build time (cmake/translator_version.cmake). */
extern const char kl_translator_version[];
#define KL_TRANSLATOR_VERSION kl_translator_version

typedef enum kl_target {
  KL_TARGET_OPENCL, /* normalised OpenCL C 1.2 */
  KL_TARGET_CUDA,   /* CUDA C++ for NVRTC */
  KL_TARGET_HIP,    /* HIP C++ for hiprtc */
  KL_TARGET_GLSL,   /* GLSL 4.50 compute, one kernel per shader */
  KL_TARGET_C,      /* host C11 for the CPU backend */
} kl_target;

/* What the device supports: decides the predefined macros (cl_khr_fp64 ...)
 * and which features a kernel may use. */
typedef struct kl_device_traits {
  bool fp64;
  bool fp16;
  bool int64;
  /* The device's float fma() is fused (one rounding), so GLSL's fma() is
   * correctly rounded there; false: the GLSL target emulates it in software
   * (about 30 operations). Vulkan's GPUs fuse; lavapipe does not. */
  bool fused_fma_float;
  /* The device's double floor, ceil, trunc and roundEven are exact (probed
   * by the Vulkan backend); false: the GLSL target computes them from the
   * bits (kernels/glsl_fp64_math.c). lavapipe without AVX-512 gets trunc and
   * roundEven wrong. */
  bool f64_rounding_exact;
  /* The bytes of shared memory one work-group may have (0: unknown): the
   * HIP target refuses a kernel whose static __local arrays need more; the
   * CUDA target stops at 48 KiB, its limit for static shared memory. */
  uint32_t local_memory_limit;
} kl_device_traits;

typedef struct kl_translate_options {
  const char *source_name;   /* shown in diagnostics; NULL: "<source>" */
  const char *build_options; /* "-DN=4 -DTILE=16"; -cl-* options are accepted and kept */
  kl_device_traits traits;
  /* Where #include "file" looks after the including file's directory, in
   * order (then the -I options of build_options). A source_name of the form
   * "<...>" is not a file: its includes are looked for here only. */
  const char *const *include_dirs;
  int include_dir_count;
} kl_translate_options;

/* NULL only when out of memory. */
kl_context *kl_context_create(void);
void kl_context_destroy(kl_context *ctx);

/* Preprocesses, parses and checks. NULL when there were errors; the
 * diagnostics are then in kl_diagnostics_text. */
kl_program *kl_parse_program(kl_context *ctx, const char *source, size_t length,
                             const kl_translate_options *options);

/* The traits of the device the last kl_parse_program was for: the emitters
 * consult them (e.g. whether float fma is fused). */
kl_device_traits kl_context_traits(const kl_context *ctx);

/* "file:line:col: error: message\n  source line\n  ^\n" for every diagnostic,
 * "" when there were none. */
const char *kl_diagnostics_text(kl_context *ctx);
/* How many diagnostics there are so far, and the text of those from the
 * `first`th on (what one step added). */
int kl_diagnostic_count(const kl_context *ctx);
const char *kl_diagnostics_text_from(kl_context *ctx, int first);
const kl_diagnostic *kl_diagnostics(const kl_context *ctx);

/* The source after preprocessing, as one normalised text (a cache key part). */
const char *kl_preprocessed_text(kl_context *ctx);

/* The program for one target; for GLSL, `kernel` names the kernel (one
 * shader per kernel), elsewhere NULL means every kernel. NULL on error, with
 * a diagnostic. */
const char *kl_emit(kl_context *ctx, const kl_program *program, kl_target target,
                    const char *kernel);

/* Each emitter, called by kl_emit. */
const char *kl_emit_opencl(kl_context *ctx, const kl_program *program);
const char *kl_emit_cuda(kl_context *ctx, const kl_program *program, bool hip);
/* KL_CUDA_FP_CONTRACT_OFF_MARK: cuda_abi.h */
const char *kl_emit_glsl(kl_context *ctx, const kl_program *program, const kl_function *kernel);
/* The GLSL for one kernel and its layout (either may be wanted alone).
 * NULL on error, with a diagnostic. */
const char *kl_emit_glsl_with_layout(kl_context *ctx, const kl_program *program,
                                     const kl_function *kernel, const kl_glsl_layout **layout);

/* The same with the buffer parameters whose bit is set in by_address (bit
 * i: parameter i, of the first 64) reached by address: each one's
 * VkDeviceAddress goes in 8 bytes of the block after the values (so the
 * block may grow past KL_GLSL_PUSH_LIMIT and move to a buffer), and the
 * kernel sees all of the buffer whatever maxStorageBufferRange says. The
 * device needs bufferDeviceAddress. Mask 0 is kl_emit_glsl_with_layout. */
const char *kl_emit_glsl_variant(kl_context *ctx, const kl_program *program,
                                 const kl_function *kernel, uint64_t by_address,
                                 const kl_glsl_layout **layout);

/* The layout alone; NULL on error. */
const kl_glsl_layout *kl_glsl_layout_of(kl_context *ctx, const kl_program *program,
                                        const kl_function *kernel);

const char *kl_emit_c(kl_context *ctx, const kl_program *program);
/* kl_emit_c, except that a kernel the C target cannot express is left out
 * and listed in *refused (in the context's arena, *refused NULL on entry)
 * instead of failing the program, and so is a kernel that calls a helper
 * the target cannot translate (the helper is left out too; emit_isolate.h);
 * NULL when something every kernel may use fails (a struct, a constant). */
typedef struct kl_refused_kernel {
  const char *name;
  const char *diagnostics; /* what the emitter said of it */
  struct kl_refused_kernel *next;
} kl_refused_kernel;
const char *kl_emit_c_kernels(kl_context *ctx, const kl_program *program,
                              kl_refused_kernel **refused);
/* kl_emit_cuda with kernels refused one by one, as kl_emit_c_kernels does;
 * also a kernel whose static __local arrays are past the target's shared
 * memory (kl_device_traits.local_memory_limit). */
const char *kl_emit_cuda_kernels(kl_context *ctx, const kl_program *program, bool hip,
                                 kl_refused_kernel **refused);
/* kl_emit where the C, CUDA and HIP targets refuse kernels one by one into
 * *refused (NULL: as kl_emit); the other targets ignore it. */
const char *kl_emit_kernels(kl_context *ctx, const kl_program *program, kl_target target,
                            const char *kernel, kl_refused_kernel **refused);

/* Runs `work(data)` with the translation's way out set: an emitter called
 * directly (not through kl_emit) stops there when it runs out of memory or
 * reports too many errors. Returns false when it stopped so (the errors are
 * in the diagnostics); `work`'s results are then not to be used. */
bool kl_guarded(kl_context *ctx, void (*work)(void *data), void *data);

const kl_function *kl_find_kernel(const kl_program *program, const char *name);

/* Every kernel's signature as JSON (signature.c): parameters (kind global,
 * constant, local or value; type; address space; const/volatile/restrict;
 * size), features, required work-group size, static local memory bytes,
 * vector widths. Never NULL. */
const char *kl_signature_json(kl_context *ctx, const kl_program *program);
/* The feature bits as names: "fp64", "int64", ... joined by `separator`. */
const char *kl_feature_names(kl_context *ctx, unsigned features, const char *separator);

#endif /* AGPU_TRANSLATE_H */
