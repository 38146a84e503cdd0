// SPDX-License-Identifier: Apache-2.0
#include "json_writer.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void json_writer_init(json_writer *writer, FILE *out, bool pretty) {
  memset(writer, 0, sizeof *writer);
  writer->out = out;
  writer->pretty = pretty;
}

static void write_newline_and_indent(json_writer *writer, int depth) {
  if (!writer->pretty) return;
  fputc('\n', writer->out);
  for (int level = 0; level < depth; level++) fputs("  ", writer->out);
}

static bool inside_object(const json_writer *writer) {
  return writer->depth > 0 && writer->is_object[writer->depth - 1];
}

/* Writes what must come before a value: a comma and a line break inside an
 * array; nothing after a key. */
static void begin_value(json_writer *writer) {
  if (writer->depth == 0) {
    if (writer->has_root) writer->misused = true;
    writer->has_root = true;
    return;
  }
  if (inside_object(writer)) {
    if (!writer->awaiting_value) writer->misused = true;
    writer->awaiting_value = false;
    return;
  }
  bool *has_members = &writer->has_members[writer->depth - 1];
  if (*has_members) fputc(',', writer->out);
  write_newline_and_indent(writer, writer->depth);
  *has_members = true;
}

static void open_container(json_writer *writer, bool is_object) {
  begin_value(writer);
  fputc(is_object ? '{' : '[', writer->out);
  if (writer->depth == JSON_WRITER_MAX_DEPTH) {
    writer->misused = true;
    return;
  }
  writer->is_object[writer->depth] = is_object;
  writer->has_members[writer->depth] = false;
  writer->depth++;
}

static void close_container(json_writer *writer, bool is_object) {
  if (writer->depth == 0 || writer->is_object[writer->depth - 1] != is_object ||
      writer->awaiting_value) {
    writer->misused = true;
    return;
  }
  writer->depth--;
  if (writer->has_members[writer->depth]) write_newline_and_indent(writer, writer->depth);
  fputc(is_object ? '}' : ']', writer->out);
}

void json_begin_object(json_writer *writer) {
  open_container(writer, true);
}
void json_end_object(json_writer *writer) {
  close_container(writer, true);
}
void json_begin_array(json_writer *writer) {
  open_container(writer, false);
}
void json_end_array(json_writer *writer) {
  close_container(writer, false);
}

/* Length of the well-formed UTF-8 sequence at `bytes` (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 if it is not one. */
static size_t utf8_sequence_length(const unsigned char *bytes, size_t available) {
  unsigned char lead = bytes[0];
  size_t length;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0; /* overlong */
    if (lead == 0xED) second_max = 0x9F; /* surrogates */
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90; /* overlong */
    if (lead == 0xF4) second_max = 0x8F; /* above U+10FFFF */
  } else {
    return 0;
  }
  if (available < length) return 0;
  if (bytes[1] < second_min || bytes[1] > second_max) return 0;
  for (size_t i = 2; i < length; i++)
    if ((bytes[i] & 0xC0) != 0x80) return 0;
  return length;
}

static void write_escaped(FILE *out, const char *text, size_t length) {
  const unsigned char *bytes = (const unsigned char *)text;
  fputc('"', out);
  size_t i = 0;
  while (i < length) {
    unsigned char c = bytes[i];
    switch (c) {
      case '"':
        fputs("\\\"", out);
        break;
      case '\\':
        fputs("\\\\", out);
        break;
      case '\b':
        fputs("\\b", out);
        break;
      case '\f':
        fputs("\\f", out);
        break;
      case '\n':
        fputs("\\n", out);
        break;
      case '\r':
        fputs("\\r", out);
        break;
      case '\t':
        fputs("\\t", out);
        break;
      default:
        if (c < 0x20) {
          fprintf(out, "\\u%04x", c);
        } else {
          size_t sequence = utf8_sequence_length(bytes + i, length - i);
          if (sequence == 0) {
            fputs("\\ufffd", out);
            i++;
            continue;
          }
          fwrite(bytes + i, 1, sequence, out);
          i += sequence;
          continue;
        }
    }
    i++;
  }
  fputc('"', out);
}

void json_key(json_writer *writer, const char *key) {
  if (!inside_object(writer) || writer->awaiting_value) {
    writer->misused = true;
    return;
  }
  bool *has_members = &writer->has_members[writer->depth - 1];
  if (*has_members) fputc(',', writer->out);
  write_newline_and_indent(writer, writer->depth);
  *has_members = true;
  write_escaped(writer->out, key, strlen(key));
  fputs(writer->pretty ? ": " : ":", writer->out);
  writer->awaiting_value = true;
}

void json_string_bytes(json_writer *writer, const char *text, size_t length) {
  begin_value(writer);
  write_escaped(writer->out, text, length);
}

void json_string(json_writer *writer, const char *text) {
  json_string_bytes(writer, text, strlen(text));
}

void json_uint(json_writer *writer, uint64_t value) {
  begin_value(writer);
  fprintf(writer->out, "%" PRIu64, value);
}

void json_double(json_writer *writer, double value) {
  if (!isfinite(value)) { /* JSON has no NaN or infinity */
    json_null(writer);
    return;
  }
  begin_value(writer);
  fprintf(writer->out, "%.17g", value);
}

void json_int(json_writer *writer, int64_t value) {
  begin_value(writer);
  fprintf(writer->out, "%" PRId64, value);
}

void json_bool(json_writer *writer, bool value) {
  begin_value(writer);
  fputs(value ? "true" : "false", writer->out);
}

void json_raw(json_writer *writer, const char *text, size_t length) {
  begin_value(writer);
  fwrite(text, 1, length, writer->out);
}

void json_null(json_writer *writer) {
  begin_value(writer);
  fputs("null", writer->out);
}

void json_key_string(json_writer *writer, const char *key, const char *text) {
  json_key(writer, key);
  json_string(writer, text);
}

void json_key_uint(json_writer *writer, const char *key, uint64_t value) {
  json_key(writer, key);
  json_uint(writer, value);
}

void json_key_bool(json_writer *writer, const char *key, bool value) {
  json_key(writer, key);
  json_bool(writer, value);
}

void json_key_null(json_writer *writer, const char *key) {
  json_key(writer, key);
  json_null(writer);
}

bool json_writer_finish(json_writer *writer) {
  if (writer->depth != 0 || writer->awaiting_value || !writer->has_root) writer->misused = true;
  fputc('\n', writer->out);
  return !writer->misused;
}

void json_key_string_or_null(json_writer *writer, const char *key, bool known, const char *text) {
  if (known)
    json_key_string(writer, key, text);
  else
    json_key_null(writer, key);
}
