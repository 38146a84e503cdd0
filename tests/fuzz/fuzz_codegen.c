// SPDX-License-Identifier: Apache-2.0
/* libFuzzer target for code generation: the input drives the generator of
 * valid kernels (kernel_gen.c), so that every input reaches the emitters
 * instead of stopping in the lexer or the parser. The first byte chooses
 * float expressions and 64-bit integers; the rest drives the generator.
 *
 * The kernel is valid by construction, so a parse error, a check error, or an
 * emitter (OpenCL C, CUDA, HIP, GLSL, host C) returning NULL is a bug (in the
 * generator or the translator): the harness prints the kernel and the
 * diagnostics and aborts. Crashes, sanitizer reports, leaks and timeouts fail
 * as in every libFuzzer target. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_gen.h"
#include "kl_front.h"
#include "translate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(kl_context *ctx, const char *kernel, const char *what) {
  fprintf(stderr, "fuzz_codegen: %s for this generated kernel:\n%s\n--- diagnostics:\n%s\n", what,
          kernel, kl_diagnostics_text(ctx));
  abort();
}

static void emit_checked(kl_context *ctx, const kl_program *program, kl_target target,
                         const char *kernel_name, const char *kernel, const char *target_name) {
  const char *text = kl_emit(ctx, program, target, kernel_name);
  if (!text) {
    char what[96];
    snprintf(what, sizeof what, "the %s emitter failed", target_name);
    fail(ctx, kernel, what);
  }
  (void)strlen(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kgen_options options = {.floats = size > 0 && (data[0] & 1), .int64 = size > 0 && (data[0] & 2)};
  char *kernel = kgen_generate(size ? data + 1 : data, size ? size - 1 : 0, &options);
  if (!kernel) return 0;
  kl_translate_options translate = {
      .source_name = "generated.cl",
      .traits = {.fp64 = true, .fp16 = false, .int64 = true},
  };
  kl_context *ctx = kl_context_create();
  if (!ctx) {
    free(kernel);
    return 0;
  }
  kl_program *program = kl_parse_program(ctx, kernel, strlen(kernel), &translate);
  if (!program) fail(ctx, kernel, "the translator rejected a valid kernel");
  emit_checked(ctx, program, KL_TARGET_OPENCL, NULL, kernel, "OpenCL C");
  emit_checked(ctx, program, KL_TARGET_CUDA, NULL, kernel, "CUDA");
  emit_checked(ctx, program, KL_TARGET_HIP, NULL, kernel, "HIP");
  emit_checked(ctx, program, KL_TARGET_C, NULL, kernel, "host C");
  emit_checked(ctx, program, KL_TARGET_GLSL, "fuzz", kernel, "GLSL");
  kl_context_destroy(ctx);
  free(kernel);
  return 0;
}
