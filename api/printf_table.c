// SPDX-License-Identifier: Apache-2.0
/* A program's printf formats, copied out of the translator's tree (which
 * goes with the build) for the launches to be reported with. */
#include <stdlib.h>
#include <string.h>

#include "agpu_parsed.h"
#include "agpu_printf.h"
#include "agpu_signature.h"
#include "translate.h"

static char *agpu_copy_bytes(const char *bytes, size_t length) {
  char *copy = malloc(length + 1);
  if (!copy) return NULL;
  if (length) memcpy(copy, bytes, length);
  copy[length] = 0;
  return copy;
}

static bool agpu_copy_piece(agpu_print_piece *to, const kl_print_piece *from) {
  to->value = (uint8_t)from->value;
  to->conversion = from->conversion;
  to->length_bits = (uint8_t)from->length_bits;
  to->arg_bits = (uint8_t)from->arg_bits;
  to->components = (uint8_t)from->components;
  to->text_length = from->text_length;
  to->text = agpu_copy_bytes(from->text, from->text_length);
  if (from->string) to->string = agpu_copy_bytes(from->string, strlen(from->string));
  return to->text && (!from->string || to->string);
}

static bool agpu_copy_format(agpu_print_format *to, const kl_printf_format *from) {
  for (const kl_print_piece *p = from->pieces; p; p = p->next) to->piece_count++;
  to->pieces = calloc(to->piece_count ? to->piece_count : 1, sizeof *to->pieces);
  if (!to->pieces) return false;
  to->payload_words = (uint32_t)from->payload_words;
  uint32_t i = 0;
  for (const kl_print_piece *p = from->pieces; p; p = p->next)
    if (!agpu_copy_piece(&to->pieces[i++], p)) return false;
  return true;
}

static bool agpu_copy_kernels(agpu_printf_table *table, const agpu_program_signatures *signatures) {
  table->kernels =
      calloc(signatures->kernel_count ? signatures->kernel_count : 1, sizeof *table->kernels);
  if (!table->kernels) return false;
  for (uint32_t i = 0; i < signatures->kernel_count; i++) {
    const agpu_kernel_signature *k = &signatures->kernels[i];
    if (!k->prints) continue;
    if (!(table->kernels[table->kernel_count++] = agpu_copy_bytes(k->name, strlen(k->name))))
      return false;
  }
  return true;
}

agpu_status agpu_printf_table_create(const agpu_parsed *parsed, agpu_printf_table **out) {
  *out = NULL;
  const kl_program *program = agpu_parsed_program(parsed);
  if (!program || !program->printf_format_count) return AGPU_SUCCESS;
  agpu_printf_table *table = calloc(1, sizeof *table);
  if (!table)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
  atomic_init(&table->references, 1);
  table->formats = calloc((size_t)program->printf_format_count, sizeof *table->formats);
  bool ok = table->formats != NULL;
  for (const kl_printf_format *f = program->printf_formats; ok && f; f = f->next)
    ok = agpu_copy_format(&table->formats[table->format_count++], f);
  if (ok) ok = agpu_copy_kernels(table, agpu_parsed_signatures(parsed));
  if (!ok) {
    agpu_printf_table_release(table);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
  }
  *out = table;
  return AGPU_SUCCESS;
}

void agpu_printf_table_retain(agpu_printf_table *table) {
  atomic_fetch_add(&table->references, 1);
}

void agpu_printf_table_release(agpu_printf_table *table) {
  if (!table || atomic_fetch_sub(&table->references, 1) != 1) return;
  for (uint32_t f = 0; table->formats && f < table->format_count; f++) {
    agpu_print_format *format = &table->formats[f];
    for (uint32_t i = 0; format->pieces && i < format->piece_count; i++) {
      free(format->pieces[i].text);
      free(format->pieces[i].string);
    }
    free(format->pieces);
  }
  free(table->formats);
  for (uint32_t k = 0; table->kernels && k < table->kernel_count; k++) free(table->kernels[k]);
  free(table->kernels);
  free(table);
}

bool agpu_printf_table_prints(const agpu_printf_table *table, const char *kernel) {
  for (uint32_t k = 0; table && k < table->kernel_count; k++)
    if (strcmp(table->kernels[k], kernel) == 0) return true;
  return false;
}
