// SPDX-License-Identifier: Apache-2.0
/* Text formatting for the CLI: byte sizes, UUIDs, one-line messages and
 * tables whose columns are sized to their content. */
#ifndef ANYGPU_TOOLS_FORMAT_H
#define ANYGPU_TOOLS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Room for any format_bytes result ("1023.9 KiB", "16.0 EiB"). */
#define FORMAT_BYTES_CAPACITY 16

/* "512 B", "32.0 KiB", "3.6 GiB": binary units, one decimal. */
void format_bytes(uint64_t bytes, char *buffer, size_t capacity);

/* 32 lowercase hex digits, as in the JSON output. */
#define FORMAT_UUID_HEX_CAPACITY 33
void format_uuid_hex(const uint8_t uuid[16], char buffer[FORMAT_UUID_HEX_CAPACITY]);

/* 8-4-4-4-12 groups, as in the text output. */
#define FORMAT_UUID_DASHED_CAPACITY 37
void format_uuid_dashed(const uint8_t uuid[16], char buffer[FORMAT_UUID_DASHED_CAPACITY]);

/* Writes `text` with every control character (newline, tab...) turned into
 * a space, so that a message from a driver stays on one line. */
void fput_single_line(const char *text, FILE *out);

/* Display width: the number of UTF-8 code points. */
size_t text_display_width(const char *text);

#define TEXT_TABLE_MAX_COLUMNS 16

/* Rows of cells, printed with every column as wide as its widest cell and two
 * spaces between columns. Cells are copied, with control characters turned
 * into spaces. */
typedef struct text_table {
  size_t column_count;
  bool right_aligned[TEXT_TABLE_MAX_COLUMNS];
  size_t row_count;
  size_t row_capacity;
  char **cells; /* row_count * column_count, row-major */
} text_table;

/* False if column_count is 0 or above TEXT_TABLE_MAX_COLUMNS. */
bool text_table_init(text_table *table, size_t column_count);
void text_table_align_right(text_table *table, size_t column);
/* `cells` holds column_count strings. False when out of memory. */
bool text_table_add_row(text_table *table, const char *const cells[]);
/* Each line starts with `indent`. */
void text_table_print(const text_table *table, FILE *out, const char *indent);
void text_table_free(text_table *table);

#endif /* ANYGPU_TOOLS_FORMAT_H */
