// SPDX-License-Identifier: Apache-2.0
/* The translator's one growable text buffer: see text.h. */
#include "text.h"

#include <stdio.h>
#include <string.h>

void klg_init(klg_buf *buf, kl_context *ctx) {
  buf->ctx = ctx;
  buf->capacity = 4096;
  buf->data = kl_alloc(ctx, buf->capacity);
  buf->length = 0;
}

static void klg_reserve(klg_buf *buf, size_t extra) {
  if (buf->length + extra + 1 <= buf->capacity) return;
  size_t capacity = buf->capacity * 2;
  while (capacity < buf->length + extra + 1) capacity *= 2;
  char *data = kl_alloc(buf->ctx, capacity);
  memcpy(data, buf->data, buf->length);
  buf->data = data;
  buf->capacity = capacity;
}

void klg_putn(klg_buf *buf, const char *text, size_t length) {
  klg_reserve(buf, length);
  memcpy(buf->data + buf->length, text, length);
  buf->length += length;
  buf->data[buf->length] = '\0';
}

void klg_puts(klg_buf *buf, const char *text) {
  klg_putn(buf, text, strlen(text));
}

void klg_printf(klg_buf *buf, const char *format, ...) {
  va_list args;
  va_start(args, format);
  char small[256];
  int n = vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    klg_putn(buf, small, (size_t)n);
    return;
  }
  klg_reserve(buf, (size_t)n);
  va_start(args, format);
  vsnprintf(buf->data + buf->length, (size_t)n + 1, format, args);
  va_end(args);
  buf->length += (size_t)n;
}

void klg_indent(klg_buf *buf, int depth) {
  for (int i = 0; i < depth; i++) klg_puts(buf, "  ");
}

const char *klg_text(klg_buf *buf) {
  klg_reserve(buf, 0);
  buf->data[buf->length] = '\0';
  return buf->data;
}
