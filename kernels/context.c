// SPDX-License-Identifier: Apache-2.0
/* The translation context: an arena that owns every allocation of one
 * translation, and the diagnostics. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kl_front.h"
#include "text.h"

struct kl_chunk {
  kl_chunk *next;
  size_t size;
  max_align_t data[];
};

#define KL_CHUNK_SIZE (64 * 1024)

kl_context *kl_context_create(void) {
  kl_context *ctx = calloc(1, sizeof *ctx);
  return ctx;
}

void kl_context_destroy(kl_context *ctx) {
  if (!ctx) return;
  kl_chunk *chunk = ctx->chunks;
  while (chunk) {
    kl_chunk *next = chunk->next;
    free(chunk);
    chunk = next;
  }
  free(ctx);
}

kl_device_traits kl_context_traits(const kl_context *ctx) {
  return ctx->options.traits;
}

_Noreturn void kl_bail(kl_context *ctx) {
  if (ctx->bail) longjmp(*ctx->bail, 1);
  abort(); /* unreachable: every entry point sets ctx->bail */
}

void *kl_alloc(kl_context *ctx, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (size == 0) size = 16;
  if ((size_t)(ctx->limit - ctx->cursor) < size || !ctx->cursor) {
    size_t data_size = size > KL_CHUNK_SIZE / 4 ? size : KL_CHUNK_SIZE;
    kl_chunk *chunk = malloc(sizeof(kl_chunk) + data_size);
    if (!chunk) {
      /* Out of memory: stop the translation with what we have. */
      ctx->too_many = true;
      kl_bail(ctx);
    }
    chunk->size = data_size;
    chunk->next = ctx->chunks;
    ctx->chunks = chunk;
    if (data_size != KL_CHUNK_SIZE) {
      /* A big block of its own; keep the current small chunk's space. */
      memset(chunk->data, 0, size);
      return chunk->data;
    }
    ctx->cursor = (char *)chunk->data;
    ctx->limit = ctx->cursor + data_size;
  }
  void *result = ctx->cursor;
  ctx->cursor += size;
  memset(result, 0, size);
  return result;
}

char *kl_strndup(kl_context *ctx, const char *text, size_t length) {
  char *copy = kl_alloc(ctx, length + 1);
  if (length) memcpy(copy, text, length);
  copy[length] = 0;
  return copy;
}

static char *kl_vformat(kl_context *ctx, const char *format, va_list args) {
  char small[256];
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(small, sizeof small, format, copy);
  va_end(copy);
  if (n < 0) n = 0;
  char *text = kl_alloc(ctx, (size_t)n + 1);
  if ((size_t)n < sizeof small)
    memcpy(text, small, (size_t)n + 1);
  else
    vsnprintf(text, (size_t)n + 1, format, args);
  return text;
}

char *kl_format(kl_context *ctx, const char *format, ...) {
  va_list args;
  va_start(args, format);
  char *text = kl_vformat(ctx, format, args);
  va_end(args);
  return text;
}

kl_source *kl_new_source(kl_context *ctx, const char *name, const char *text, size_t length) {
  kl_source *source = kl_alloc(ctx, sizeof *source);
  source->name = kl_strndup(ctx, name, strlen(name));
  source->text = kl_strndup(ctx, text, length);
  source->length = length;
  return source;
}

/* ------------------------------------------------------- diagnostics */

static void kl_append_diagnostic(kl_context *ctx, kl_severity severity, kl_location at,
                                 const char *message) {
  kl_diagnostic *d = kl_alloc(ctx, sizeof *d);
  d->severity = severity;
  d->location = at;
  d->message = message;
  if (ctx->last_diagnostic)
    ctx->last_diagnostic->next = d;
  else
    ctx->diagnostics = d;
  ctx->last_diagnostic = d;
  ctx->diagnostics_text = NULL;
}

static void kl_diagnose(kl_context *ctx, kl_severity severity, kl_location at, const char *format,
                        va_list args) {
  if (ctx->too_many) return;
  if (severity == KL_ERROR && ctx->error_count >= KL_MAX_ERRORS) {
    ctx->too_many = true;
    kl_append_diagnostic(ctx, KL_ERROR, at,
                         kl_format(ctx, "too many errors (%d), stopping", KL_MAX_ERRORS));
    kl_bail(ctx);
  }
  if (severity == KL_WARNING && ctx->warning_count >= 100) return;
  kl_append_diagnostic(ctx, severity, at, kl_vformat(ctx, format, args));
  if (severity == KL_ERROR) ctx->error_count++;
  if (severity == KL_WARNING) ctx->warning_count++;
}

/* kl_error, kl_warning, kl_note, kl_limit_error: one diagnostic each. */
#define KL_DIAGNOSTIC_FUNCTION(name, severity, is_limit)                \
  void name(kl_context *ctx, kl_location at, const char *format, ...) { \
    if (is_limit) ctx->hit_limit = true;                                \
    va_list args;                                                       \
    va_start(args, format);                                             \
    kl_diagnose(ctx, severity, at, format, args);                       \
    va_end(args);                                                       \
  }
KL_DIAGNOSTIC_FUNCTION(kl_error, KL_ERROR, false)
KL_DIAGNOSTIC_FUNCTION(kl_warning, KL_WARNING, false)
KL_DIAGNOSTIC_FUNCTION(kl_note, KL_NOTE, false)
KL_DIAGNOSTIC_FUNCTION(kl_limit_error, KL_ERROR, true)

bool kl_hit_limit(const kl_context *ctx) {
  return ctx->hit_limit;
}

int kl_error_count(const kl_context *ctx) {
  return ctx->error_count + (ctx->too_many ? 1 : 0);
}

const kl_diagnostic *kl_diagnostics(const kl_context *ctx) {
  return ctx->diagnostics;
}

/* The source line and a caret under the column; a line longer than
 * KL_SHOWN_LINE (generated code, a minified kernel) is shown as the window
 * around the column, with "..." where it was cut. */
enum { KL_SHOWN_LINE = 160 };

static void append_source_line(klg_buf *b, const kl_source *source, int line_number, int column) {
  const char *p = source->text, *end = source->text + source->length;
  for (int line = 1; line < line_number && p < end; p++)
    if (*p == '\n') line++;
  const char *line_end = p;
  while (line_end < end && *line_end != '\n' && *line_end != '\r') line_end++;
  const char *at =
      column > 1 && (size_t)(column - 1) <= (size_t)(line_end - p) ? p + column - 1 : p;
  const char *from = p, *to = line_end;
  if (to - from > KL_SHOWN_LINE) {
    from = at - p > KL_SHOWN_LINE / 2 ? at - KL_SHOWN_LINE / 2 : p;
    to = line_end - from > KL_SHOWN_LINE ? from + KL_SHOWN_LINE : line_end;
  }
  klg_puts(b, from > p ? "  ..." : "  ");
  klg_putn(b, from, (size_t)(to - from));
  klg_puts(b, to < line_end ? "...\n  " : "\n  ");
  if (from > p) klg_puts(b, "   ");
  for (const char *q = from; q < at; q++) klg_putn(b, *q == '\t' ? "\t" : " ", 1);
  klg_puts(b, "^\n");
}

/* One diagnostic as text: "file:line:col: severity: message", the source
 * line with a caret, and where its header was included. */
static void append_diagnostic(klg_buf *b, const kl_diagnostic *d) {
  const char *severity = d->severity == KL_ERROR     ? "error"
                         : d->severity == KL_WARNING ? "warning"
                                                     : "note";
  const kl_source *source = d->location.source;
  klg_printf(b, "%s:%d:%d: %s: %s\n", source ? source->name : "<source>", d->location.line,
             d->location.column, severity, d->message);
  if (!source || d->location.line < 1) return;
  append_source_line(b, source, d->location.line, d->location.column);
  /* Where a header was included, innermost first. */
  int shown = 0;
  for (const kl_source *s = source; s->included_from; s = s->included_from, shown++) {
    if (shown == 4 && s->include_depth > 1) {
      klg_printf(b, "  ... (%d more #include levels)\n", s->include_depth - 1);
      s = s->included_from;
      while (s->included_from && s->include_depth > 1) s = s->included_from;
    }
    klg_printf(b, "  in the file included from %s:%d\n", s->included_from->name,
               s->included_at_line);
  }
}

int kl_diagnostic_count(const kl_context *ctx) {
  int count = 0;
  for (const kl_diagnostic *d = ctx->diagnostics; d; d = d->next) count++;
  return count;
}

const char *kl_diagnostics_text_from(kl_context *ctx, int first) {
  if (first == 0 && ctx->diagnostics_text) return ctx->diagnostics_text;
  jmp_buf here, *saved = ctx->bail;
  if (setjmp(here)) {
    ctx->bail = saved;
    return "out of memory while formatting diagnostics\n";
  }
  ctx->bail = &here;
  klg_buf b;
  klg_init(&b, ctx);
  int index = 0;
  for (const kl_diagnostic *d = ctx->diagnostics; d; d = d->next)
    if (index++ >= first) append_diagnostic(&b, d);
  ctx->bail = saved;
  if (first > 0) return klg_text(&b);
  ctx->diagnostics_text = (char *)klg_text(&b);
  return ctx->diagnostics_text;
}

const char *kl_diagnostics_text(kl_context *ctx) {
  return kl_diagnostics_text_from(ctx, 0);
}
