// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the CLI's JSON writer and text formatting. */
#include <stdint.h>

#include "agpu_test.h"
#include "format.h"
#include "json_writer.h"

/* What `write` produced, as a NUL-terminated string in `buffer`. */
static void capture(void (*write)(FILE *out), char *buffer, size_t capacity) {
  FILE *file = tmpfile();
  buffer[0] = '\0';
  if (!file) return;
  write(file);
  rewind(file);
  size_t length = fread(buffer, 1, capacity - 1, file);
  buffer[length] = '\0';
  fclose(file);
}

static void check_text(const char *actual, const char *expected) {
  if (strcmp(actual, expected) == 0) return;
  printf("  FAIL %s: got\n%s\n  expected\n%s\n", agpu_test_g.case_name, actual, expected);
  agpu_test_g.case_failed = 1;
}

static void write_nested_compact(FILE *out) {
  json_writer writer;
  json_writer_init(&writer, out, false);
  json_begin_object(&writer);
  json_key_uint(&writer, "max", UINT64_MAX);
  json_key(&writer, "min");
  json_int(&writer, INT64_MIN);
  json_key(&writer, "list");
  json_begin_array(&writer);
  json_bool(&writer, true);
  json_null(&writer);
  json_begin_object(&writer);
  json_end_object(&writer);
  json_begin_array(&writer);
  json_end_array(&writer);
  json_end_array(&writer);
  json_key_string(&writer, "s", "x");
  json_end_object(&writer);
  CHECK(json_writer_finish(&writer));
}

static void json_nesting_commas_and_exact_integers(void) {
  char text[512];
  capture(write_nested_compact, text, sizeof text);
  check_text(text,
             "{\"max\":18446744073709551615,\"min\":-9223372036854775808,"
             "\"list\":[true,null,{},[]],\"s\":\"x\"}\n");
}

static void write_raw_values(FILE *out) {
  json_writer writer;
  json_writer_init(&writer, out, false);
  json_begin_object(&writer);
  json_key(&writer, "report");
  json_raw(&writer, "{\"a\": [1, 2]}", 13);
  json_key(&writer, "list");
  json_begin_array(&writer);
  json_raw(&writer, "1", 1);
  json_raw(&writer, "[]", 2);
  json_end_array(&writer);
  json_end_object(&writer);
  CHECK(json_writer_finish(&writer));
}

/* json_raw (the --mpi report embeds each rank's JSON): commas as any value. */
static void json_raw_values_take_their_place(void) {
  char text[256];
  capture(write_raw_values, text, sizeof text);
  check_text(text, "{\"report\":{\"a\": [1, 2]},\"list\":[1,[]]}\n");
}

static void write_pretty(FILE *out) {
  json_writer writer;
  json_writer_init(&writer, out, true);
  json_begin_object(&writer);
  json_key(&writer, "a");
  json_begin_array(&writer);
  json_uint(&writer, 1);
  json_uint(&writer, 2);
  json_end_array(&writer);
  json_key(&writer, "empty");
  json_begin_array(&writer);
  json_end_array(&writer);
  json_end_object(&writer);
  CHECK(json_writer_finish(&writer));
}

static void json_pretty_layout(void) {
  char text[512];
  capture(write_pretty, text, sizeof text);
  check_text(text, "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"empty\": []\n}\n");
}

static void write_escapes(FILE *out) {
  json_writer writer;
  json_writer_init(&writer, out, false);
  json_begin_array(&writer);
  json_string(&writer, "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f");
  json_string(&writer, "caf\xc3\xa9 \xe2\x84\xa2 \xf0\x9f\x98\x80");            /* valid UTF-8 */
  json_string(&writer, "bad\xff\xc3(\xed\xa0\x80\xe0\x80\xaf\xf4\x90\x80\x80"); /* invalid */
  json_string(&writer, "cut\xe2\x84");                                          /* truncated */
  json_string_bytes(&writer, "a\0b", 3);
  json_end_array(&writer);
  CHECK(json_writer_finish(&writer));
}

static void json_string_escaping(void) {
  char text[512];
  capture(write_escapes, text, sizeof text);
  check_text(text,
             "[\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\","
             "\"caf\xc3\xa9 \xe2\x84\xa2 \xf0\x9f\x98\x80\","
             "\"bad\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
             "\\ufffd\\ufffd\","
             "\"cut\\ufffd\\ufffd\","
             "\"a\\u0000b\"]\n");
}

static void write_misuse_key_in_array(FILE *out) {
  json_writer writer;
  json_writer_init(&writer, out, false);
  json_begin_array(&writer);
  json_key(&writer, "k");
  json_end_array(&writer);
  CHECK(!json_writer_finish(&writer));
}

static void write_misuse_unbalanced(FILE *out) {
  json_writer writer;
  json_writer_init(&writer, out, false);
  json_begin_object(&writer);
  json_key(&writer, "k");
  CHECK(!json_writer_finish(&writer));
}

static void write_misuse_value_without_key(FILE *out) {
  json_writer writer;
  json_writer_init(&writer, out, false);
  json_begin_object(&writer);
  json_uint(&writer, 1);
  json_end_object(&writer);
  CHECK(!json_writer_finish(&writer));
}

static void json_misuse_is_reported(void) {
  char text[128];
  capture(write_misuse_key_in_array, text, sizeof text);
  capture(write_misuse_unbalanced, text, sizeof text);
  capture(write_misuse_value_without_key, text, sizeof text);
}

static void check_bytes(uint64_t bytes, const char *expected) {
  char text[FORMAT_BYTES_CAPACITY];
  format_bytes(bytes, text, sizeof text);
  if (strcmp(text, expected) != 0) {
    printf("  FAIL format_bytes(%llu) = \"%s\", expected \"%s\"\n", (unsigned long long)bytes, text,
           expected);
    agpu_test_g.case_failed = 1;
  }
}

static void bytes_in_binary_units(void) {
  check_bytes(0, "0 B");
  check_bytes(1023, "1023 B");
  check_bytes(1024, "1.0 KiB");
  check_bytes(32768, "32.0 KiB");
  check_bytes(1048575, "1.0 MiB"); /* not "1024.0 KiB" */
  check_bytes(3865470566ull, "3.6 GiB");
  check_bytes(3996444672ull, "3.7 GiB");
  check_bytes(UINT64_MAX, "16.0 EiB");
}

static void uuids_in_hex(void) {
  uint8_t uuid[16];
  for (int i = 0; i < 16; i++) uuid[i] = (uint8_t)(i * 17);
  char hex[FORMAT_UUID_HEX_CAPACITY];
  char dashed[FORMAT_UUID_DASHED_CAPACITY];
  format_uuid_hex(uuid, hex);
  format_uuid_dashed(uuid, dashed);
  CHECK(strcmp(hex, "00112233445566778899aabbccddeeff") == 0);
  CHECK(strcmp(dashed, "00112233-4455-6677-8899-aabbccddeeff") == 0);
}

static void write_table(FILE *out) {
  text_table table;
  CHECK(text_table_init(&table, 3));
  text_table_align_right(&table, 1);
  const char *header[] = {"NAME", "CU", "NOTE"};
  const char *first[] = {"caf\xc3\xa9", "2", "one\ttwo"};
  const char *second[] = {"longer name", "128", ""};
  CHECK(text_table_add_row(&table, header));
  CHECK(text_table_add_row(&table, first));
  CHECK(text_table_add_row(&table, second));
  text_table_print(&table, out, "> ");
  text_table_free(&table);
}

static void table_columns_fit_content(void) {
  char text[512];
  capture(write_table, text, sizeof text);
  check_text(text,
             "> NAME          CU  NOTE\n"
             "> caf\xc3\xa9           2  one two\n"
             "> longer name  128\n");
  text_table table;
  CHECK(!text_table_init(&table, 0));
  CHECK(!text_table_init(&table, TEXT_TABLE_MAX_COLUMNS + 1));
}

int main(void) {
  RUN(json_nesting_commas_and_exact_integers);
  RUN(json_raw_values_take_their_place);
  RUN(json_pretty_layout);
  RUN(json_string_escaping);
  RUN(json_misuse_is_reported);
  RUN(bytes_in_binary_units);
  RUN(uuids_in_hex);
  RUN(table_columns_fit_content);
  return agpu_test_finish();
}
