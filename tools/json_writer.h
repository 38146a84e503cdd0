// SPDX-License-Identifier: Apache-2.0
/* A small streaming JSON writer: values go straight to a FILE, with commas,
 * nesting and indentation handled here and strings escaped so that any byte
 * sequence comes out as valid JSON (invalid UTF-8 becomes U+FFFD). */
#ifndef ANYGPU_TOOLS_JSON_WRITER_H
#define ANYGPU_TOOLS_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_WRITER_MAX_DEPTH 32

typedef struct json_writer {
  FILE *out;
  bool pretty; /* two-space indentation, one member per line */
  int depth;
  /* Per open object or array: has it a member yet (the next needs a comma)? */
  bool has_members[JSON_WRITER_MAX_DEPTH];
  bool is_object[JSON_WRITER_MAX_DEPTH];
  bool awaiting_value; /* a key was written; its value comes next */
  bool has_root;       /* a top-level value has been written */
  bool misused;        /* unbalanced nesting, a key outside an object, too deep */
} json_writer;

void json_writer_init(json_writer *writer, FILE *out, bool pretty);

void json_begin_object(json_writer *writer);
void json_end_object(json_writer *writer);
void json_begin_array(json_writer *writer);
void json_end_array(json_writer *writer);

/* Inside an object, a key precedes each value. */
void json_key(json_writer *writer, const char *key);

void json_string(json_writer *writer, const char *text);
/* A string of `length` bytes that need not be NUL-terminated. */
void json_string_bytes(json_writer *writer, const char *text, size_t length);
void json_uint(json_writer *writer, uint64_t value);
void json_int(json_writer *writer, int64_t value);
/* Shortest exact form (%.17g); null for NaN and infinities. */
void json_double(json_writer *writer, double value);
void json_bool(json_writer *writer, bool value);
void json_null(json_writer *writer);
/* A value that is already JSON text (another writer's output), copied as it
 * is; the caller vouches that it is one whole value. */
void json_raw(json_writer *writer, const char *text, size_t length);

/* Key and value together, for the common case. */
void json_key_string(json_writer *writer, const char *key, const char *text);
void json_key_uint(json_writer *writer, const char *key, uint64_t value);
void json_key_bool(json_writer *writer, const char *key, bool value);
void json_key_null(json_writer *writer, const char *key);
/* `text` when `known`, else null. */
void json_key_string_or_null(json_writer *writer, const char *key, bool known, const char *text);

/* Ends the document with a newline. Returns false if the nesting was not
 * balanced or the writer was otherwise misused (a programming error); write
 * errors are left to the stream's ferror. */
bool json_writer_finish(json_writer *writer);

#endif /* ANYGPU_TOOLS_JSON_WRITER_H */
