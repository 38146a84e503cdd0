// SPDX-License-Identifier: Apache-2.0
#include "format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void format_bytes(uint64_t bytes, char *buffer, size_t capacity) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  const size_t unit_count = sizeof units / sizeof units[0];
  if (bytes < 1024) {
    snprintf(buffer, capacity, "%" PRIu64 " B", bytes);
    return;
  }
  double value = (double)bytes;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < unit_count) {
    value /= 1024.0;
    unit++;
  }
  /* 1023.96 KiB would print as "1024.0 KiB": say "1.0 MiB" instead. */
  if ((uint64_t)(value * 10.0 + 0.5) >= 10240 && unit + 1 < unit_count) {
    value /= 1024.0;
    unit++;
  }
  snprintf(buffer, capacity, "%.1f %s", value, units[unit]);
}

void format_uuid_hex(const uint8_t uuid[16], char buffer[FORMAT_UUID_HEX_CAPACITY]) {
  for (int i = 0; i < 16; i++) snprintf(buffer + 2 * i, 3, "%02x", uuid[i]);
}

void format_uuid_dashed(const uint8_t uuid[16], char buffer[FORMAT_UUID_DASHED_CAPACITY]) {
  size_t position = 0;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) buffer[position++] = '-';
    snprintf(buffer + position, 3, "%02x", uuid[i]);
    position += 2;
  }
}

static bool is_control(unsigned char c) {
  return c < 0x20 || c == 0x7F;
}

void fput_single_line(const char *text, FILE *out) {
  for (const unsigned char *c = (const unsigned char *)text; *c; c++)
    fputc(is_control(*c) ? ' ' : *c, out);
}

size_t text_display_width(const char *text) {
  size_t width = 0;
  for (const unsigned char *c = (const unsigned char *)text; *c; c++)
    if ((*c & 0xC0) != 0x80) width++; /* not a UTF-8 continuation byte */
  return width;
}

bool text_table_init(text_table *table, size_t column_count) {
  memset(table, 0, sizeof *table);
  if (column_count == 0 || column_count > TEXT_TABLE_MAX_COLUMNS) return false;
  table->column_count = column_count;
  return true;
}

void text_table_align_right(text_table *table, size_t column) {
  if (column < table->column_count) table->right_aligned[column] = true;
}

static char *copy_single_line(const char *text) {
  size_t length = strlen(text);
  char *copy = malloc(length + 1);
  if (!copy) return NULL;
  for (size_t i = 0; i < length; i++) copy[i] = is_control((unsigned char)text[i]) ? ' ' : text[i];
  copy[length] = '\0';
  return copy;
}

bool text_table_add_row(text_table *table, const char *const cells[]) {
  if (table->row_count == table->row_capacity) {
    size_t capacity = table->row_capacity ? 2 * table->row_capacity : 8;
    char **grown = realloc(table->cells, capacity * table->column_count * sizeof *grown);
    if (!grown) return false;
    table->cells = grown;
    table->row_capacity = capacity;
  }
  char **row = table->cells + table->row_count * table->column_count;
  for (size_t column = 0; column < table->column_count; column++) {
    row[column] = copy_single_line(cells[column] ? cells[column] : "");
    if (!row[column]) {
      while (column > 0) free(row[--column]);
      return false;
    }
  }
  table->row_count++;
  return true;
}

void text_table_print(const text_table *table, FILE *out, const char *indent) {
  size_t widths[TEXT_TABLE_MAX_COLUMNS] = {0};
  for (size_t row = 0; row < table->row_count; row++) {
    for (size_t column = 0; column < table->column_count; column++) {
      size_t width = text_display_width(table->cells[row * table->column_count + column]);
      if (width > widths[column]) widths[column] = width;
    }
  }
  for (size_t row = 0; row < table->row_count; row++) {
    fputs(indent, out);
    /* Padding is written only once something follows it: no trailing blanks. */
    size_t pending_spaces = 0;
    for (size_t column = 0; column < table->column_count; column++) {
      const char *cell = table->cells[row * table->column_count + column];
      size_t padding = widths[column] - text_display_width(cell);
      if (column > 0) pending_spaces += 2;
      if (table->right_aligned[column]) pending_spaces += padding;
      if (cell[0]) {
        for (; pending_spaces > 0; pending_spaces--) fputc(' ', out);
        fputs(cell, out);
      }
      if (!table->right_aligned[column]) pending_spaces += padding;
    }
    fputc('\n', out);
  }
}

void text_table_free(text_table *table) {
  for (size_t i = 0; i < table->row_count * table->column_count; i++) free(table->cells[i]);
  free(table->cells);
  memset(table, 0, sizeof *table);
}
