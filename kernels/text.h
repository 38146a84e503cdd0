// SPDX-License-Identifier: Apache-2.0
/* The translator's one growable text buffer, in the context's arena: every
 * emitter's output and the diagnostics text are built in it. Growing never
 * fails: out of memory, kl_alloc stops the translation (kl_bail), and the
 * arena frees everything with the context. Private to the translator. */
#ifndef AGPU_KL_TEXT_H
#define AGPU_KL_TEXT_H

#include <stdarg.h>
#include <stddef.h>

#include "kl.h"

typedef struct klg_buf {
  kl_context *ctx;
  char *data;
  size_t length, capacity;
} klg_buf;

void klg_init(klg_buf *buf, kl_context *ctx);
void klg_puts(klg_buf *buf, const char *text);
void klg_putn(klg_buf *buf, const char *text, size_t length);
void klg_printf(klg_buf *buf, const char *format, ...) __attribute__((format(printf, 2, 3)));
void klg_indent(klg_buf *buf, int depth);
/* The text so far, NUL-terminated, in the arena. */
const char *klg_text(klg_buf *buf);

#endif /* AGPU_KL_TEXT_H */
