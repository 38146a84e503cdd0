// SPDX-License-Identifier: Apache-2.0
/* One launch's printf records as text: sorted by work-group, then
 * work-item, then the order each work-item printed in; each formatted with
 * its format's pieces (the C library does each conversion, with the length
 * that the argument's stored width needs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_printf.h"
#include "translate.h"

typedef struct agpu_text {
  char *data;
  size_t length, capacity;
  bool failed;
} agpu_text;

static void agpu_text_put(agpu_text *t, const char *bytes, size_t n) {
  if (t->failed) return;
  if (t->length + n + 1 > t->capacity) {
    size_t capacity = t->capacity ? t->capacity : 256;
    while (capacity < t->length + n + 1) capacity *= 2;
    char *grown = realloc(t->data, capacity);
    if (!grown) {
      t->failed = true;
      return;
    }
    t->data = grown;
    t->capacity = capacity;
  }
  memcpy(t->data + t->length, bytes, n);
  t->length += n;
  t->data[t->length] = 0;
}

/* snprintf of one conversion: `spec` is the piece's text with the length
 * and conversion the host uses appended. */
#define AGPU_TEXT_PRINTF(t, spec, value)                                                         \
  do {                                                                                           \
    char out_[512];                                                                              \
    int n_ = snprintf(out_, sizeof out_, spec, value);                                           \
    if (n_ >= 0 && (size_t)n_ < sizeof out_) {                                                   \
      agpu_text_put(t, out_, (size_t)n_);                                                        \
    } else if (n_ > 0) {                                                                         \
      char *big_ = malloc((size_t)n_ + 1);                                                       \
      if (big_) snprintf(big_, (size_t)n_ + 1, spec, value), agpu_text_put(t, big_, (size_t)n_); \
      free(big_);                                                                                \
    }                                                                                            \
  } while (0)

/* An integer conversion of a component's bits: truncated to the length
 * modifier's width (or the argument's: 32 bits, or 64 for a 64-bit
 * argument), then signed or not as the conversion says. */
static void agpu_put_integer(agpu_text *t, const agpu_print_piece *piece, uint64_t bits) {
  unsigned width = piece->length_bits ? piece->length_bits : piece->arg_bits == 64 ? 64u : 32u;
  if (piece->value == KL_PRINT_SIGNED && piece->arg_bits == 32)
    bits = (uint64_t)(int64_t)(int32_t)bits;
  uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
  uint64_t u = bits & mask;
  char spec[64];
  char c = piece->conversion;
  if (c == 'c') {
    snprintf(spec, sizeof spec, "%.*sc", (int)piece->text_length, piece->text);
    AGPU_TEXT_PRINTF(t, spec, (int)(unsigned char)bits);
  } else if (c == 'd' || c == 'i') {
    int64_t s = width == 64 || !(u >> (width - 1)) ? (int64_t)u : (int64_t)(u | ~mask);
    snprintf(spec, sizeof spec, "%.*slld", (int)piece->text_length, piece->text);
    AGPU_TEXT_PRINTF(t, spec, (long long)s);
  } else {
    snprintf(spec, sizeof spec, "%.*sll%c", (int)piece->text_length, piece->text, c);
    AGPU_TEXT_PRINTF(t, spec, (unsigned long long)u);
  }
}

static void agpu_put_float(agpu_text *t, const agpu_print_piece *piece, uint64_t bits) {
  double value;
  if (piece->arg_bits == 64) {
    memcpy(&value, &bits, sizeof value);
  } else {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, sizeof f);
    value = f;
  }
  char spec[64];
  snprintf(spec, sizeof spec, "%.*s%c", (int)piece->text_length, piece->text, piece->conversion);
  AGPU_TEXT_PRINTF(t, spec, value);
}

/* One record's text; `words` are its arguments' words. */
static void agpu_put_record(agpu_text *t, const agpu_print_format *format, const uint32_t *words) {
  for (uint32_t i = 0; i < format->piece_count; i++) {
    const agpu_print_piece *piece = &format->pieces[i];
    if (piece->value == KL_PRINT_TEXT) {
      agpu_text_put(t, piece->text, piece->text_length);
      continue;
    }
    if (piece->value == KL_PRINT_STRING) {
      char spec[64];
      snprintf(spec, sizeof spec, "%.*ss", (int)piece->text_length, piece->text);
      AGPU_TEXT_PRINTF(t, spec, piece->string);
      continue;
    }
    for (unsigned c = 0; c < piece->components; c++) {
      if (c) agpu_text_put(t, ",", 1); /* OpenCL C: a vector's components, comma-separated */
      uint64_t bits = *words++;
      if (piece->arg_bits == 64) bits |= (uint64_t)*words++ << 32;
      if (piece->value == KL_PRINT_FLOAT)
        agpu_put_float(t, piece, bits);
      else
        agpu_put_integer(t, piece, bits);
    }
  }
}

typedef struct agpu_record_ref {
  uint32_t group, item;
  size_t at;
} agpu_record_ref;

static int agpu_record_order(const void *a, const void *b) {
  const agpu_record_ref *x = a, *y = b;
  if (x->group != y->group) return x->group < y->group ? -1 : 1;
  if (x->item != y->item) return x->item < y->item ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}

/* The records from the end of the header up to `end`; *damaged where one
 * does not fit its format (the buffer was overwritten). */
static agpu_record_ref *agpu_collect_records(const agpu_printf_table *table, const uint32_t *words,
                                             size_t end, size_t *count, bool *damaged) {
  size_t capacity = 64, n = 0;
  agpu_record_ref *refs = malloc(capacity * sizeof *refs);
  size_t at = KL_PRINTF_HEADER_WORDS;
  while (refs && at + KL_PRINTF_RECORD_WORDS <= end) {
    uint32_t length = words[at], id = words[at + 1];
    if (id >= table->format_count ||
        length != KL_PRINTF_RECORD_WORDS + table->formats[id].payload_words || at + length > end) {
      *damaged = true;
      break;
    }
    if (n == capacity) {
      agpu_record_ref *grown = realloc(refs, (capacity *= 2) * sizeof *refs);
      if (!grown) {
        free(refs);
        return NULL;
      }
      refs = grown;
    }
    refs[n++] = (agpu_record_ref){.group = words[at + 2], .item = words[at + 3], .at = at};
    at += length;
  }
  *count = n;
  return refs;
}

agpu_status agpu_printf_format_records(const agpu_printf_table *table, const char *kernel,
                                       const uint32_t *words, size_t word_count, char **text,
                                       size_t *length) {
  *text = NULL;
  *length = 0;
  /* header: words used, capacity, records dropped, where the first record that did not fit was */
  size_t end = KL_PRINTF_HEADER_WORDS + (size_t)words[0];
  if (end > word_count) end = word_count;
  size_t cut = KL_PRINTF_HEADER_WORDS + (size_t)words[3];
  if (cut < end) end = cut;
  size_t count = 0;
  bool damaged = false;
  agpu_record_ref *refs = agpu_collect_records(table, words, end, &count, &damaged);
  if (!refs) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "printf: out of host memory");
  qsort(refs, count, sizeof *refs, agpu_record_order);
  agpu_text t = {0};
  for (size_t i = 0; i < count; i++) {
    const uint32_t *record = words + refs[i].at;
    agpu_put_record(&t, &table->formats[record[1]], record + KL_PRINTF_RECORD_WORDS);
  }
  free(refs);
  char notice[256];
  if (words[2]) {
    int n = snprintf(notice, sizeof notice,
                     "anygpu: kernel '%s': %u printf lines dropped: its launch's printf buffer "
                     "(%zu bytes; ANYGPU_PRINTF_BUFFER sets it) is full\n",
                     kernel, words[2], (size_t)words[1] * 4);
    agpu_text_put(&t, notice, (size_t)n);
  }
  if (damaged) {
    int n = snprintf(notice, sizeof notice,
                     "anygpu: kernel '%s': its printf records were overwritten; the rest is lost\n",
                     kernel);
    agpu_text_put(&t, notice, (size_t)n);
  }
  if (t.failed) {
    free(t.data);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "printf: out of host memory");
  }
  *text = t.data;
  *length = t.length;
  return AGPU_SUCCESS;
}
