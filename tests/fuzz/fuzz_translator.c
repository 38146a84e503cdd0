// SPDX-License-Identifier: Apache-2.0
/* libFuzzer target for the kernel-language translator: the input is a kernel
 * source, translated for every target.
 *
 * The last byte, XORed with '\n', chooses the device traits and an extra
 * build option (so a seed file ending in a newline runs with the defaults:
 * fp64 and int64 on, fp16 off, no extra option). A line "// @options ..."
 * in the source, as in the corpus's headers, gives the build options.
 *
 * Any crash, sanitizer report, leak, timeout, or an emitter returning NULL
 * without an error diagnostic is a bug in the translator. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kl_front.h"
#include "translate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
  OPTION_NO_FP64 = 1u << 0,
  OPTION_FP16 = 1u << 1,
  OPTION_NO_INT64 = 1u << 2,
  OPTION_EXTRA_SHIFT = 3, /* bits 3-5: one of extra_options */
  OPTION_NO_SOURCE_NAME = 1u << 6,
};

static const char *const extra_options[8] = {
    "",
    "-DN=4",
    "-DTILE=16 -DFEATURE_X",
    "-cl-fast-relaxed-math",
    "-D T=float -cl-mad-enable",
    "-DUSE_DOUBLE=1 -UN",
    "-cl-std=CL1.2 -DN=(1<<3)",
    "-D",
};

#define MAX_OPTIONS 512

/* "// @options ..." in the source, up to the end of its line. */
static size_t source_options(const char *source, size_t size, char *out, size_t capacity) {
  static const char marker[] = "// @options ";
  size_t marker_length = sizeof marker - 1;
  for (size_t i = 0; i + marker_length <= size; i++) {
    if ((i == 0 || source[i - 1] == '\n') && memcmp(source + i, marker, marker_length) == 0) {
      size_t start = i + marker_length, n = 0;
      while (start + n < size && source[start + n] != '\n' && source[start + n] != '\0' &&
             n + 1 < capacity)
        n++;
      memcpy(out, source + start, n);
      out[n] = 0;
      return n;
    }
  }
  out[0] = 0;
  return 0;
}

static int error_count(kl_context *ctx) {
  int n = 0;
  for (const kl_diagnostic *d = kl_diagnostics(ctx); d; d = d->next)
    if (d->severity == KL_ERROR) n++;
  return n;
}

static void emit_checked(kl_context *ctx, const kl_program *program, kl_target target,
                         const char *kernel) {
  int errors_before = error_count(ctx);
  const char *text = kl_emit(ctx, program, target, kernel);
  if (text) {
    (void)strlen(text); /* must be a NUL-terminated string */
  } else if (errors_before < KL_MAX_ERRORS && error_count(ctx) == errors_before) {
    abort(); /* NULL without saying why (after too many errors, nothing more is said) */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned option = 0;
  if (size > 0) {
    option = (unsigned)(data[size - 1] ^ '\n');
    size--;
  }
  /* The translator takes (text, length) without a NUL: a copy of exactly
   * `size` bytes in a block of its own lets ASan catch reads past the end. */
  char *source = malloc(size ? size : 1);
  if (!source) return 0;
  if (size) memcpy(source, data, size);

  char build_options[MAX_OPTIONS];
  size_t n = source_options(source, size, build_options, MAX_OPTIONS / 2);
  const char *extra = extra_options[(option >> OPTION_EXTRA_SHIFT) & 7];
  if (extra[0]) {
    if (n) build_options[n++] = ' ';
    memcpy(build_options + n, extra, strlen(extra) + 1);
  }

  kl_translate_options options = {
      .source_name = (option & OPTION_NO_SOURCE_NAME) ? NULL : "fuzz.cl",
      .build_options = build_options[0] ? build_options : NULL,
      .traits = {.fp64 = !(option & OPTION_NO_FP64),
                 .fp16 = (option & OPTION_FP16) != 0,
                 .int64 = !(option & OPTION_NO_INT64)},
  };
  kl_context *ctx = kl_context_create();
  if (!ctx) {
    free(source);
    return 0;
  }
  kl_program *program = kl_parse_program(ctx, source, size, &options);
  (void)strlen(kl_preprocessed_text(ctx));
  if (program) {
    (void)strlen(kl_signature_json(ctx, program));
    emit_checked(ctx, program, KL_TARGET_OPENCL, NULL);
    emit_checked(ctx, program, KL_TARGET_CUDA, NULL);
    emit_checked(ctx, program, KL_TARGET_HIP, NULL);
    emit_checked(ctx, program, KL_TARGET_C, NULL);
    for (const kl_function *f = program->functions; f; f = f->next)
      if (f->is_kernel && f->body) emit_checked(ctx, program, KL_TARGET_GLSL, f->name);
  }
  (void)strlen(kl_diagnostics_text(ctx));
  kl_context_destroy(ctx);
  free(source);
  return 0;
}
