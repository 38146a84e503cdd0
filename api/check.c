// SPDX-License-Identifier: Apache-2.0
/* Bounds checking's host half (agpu_check.h): the sites copied out of the
 * translator's tree, each launch's extents, and the fault's message. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_check.h"
#include "agpu_core.h"
#include "agpu_parsed.h"
#include "translate.h"

static char *agpu_check_copy(const char *text) {
  return agpu_strdup(text ? text : "");
}

static bool agpu_check_copy_roots(agpu_check_table *table, const kl_program *program) {
  table->roots = calloc((size_t)program->check_root_count + 1, sizeof *table->roots);
  if (!table->roots) return false;
  for (const kl_check_root *r = program->check_roots; r; r = r->next) {
    agpu_check_root *to = &table->roots[table->root_count++];
    to->kernel = agpu_check_copy(r->kernel);
    to->name = agpu_check_copy(r->name);
    if (!to->kernel || !to->name) return false;
    to->param_index = r->param_index;
    to->extent = r->extent;
    to->element_bytes = (uint32_t)r->element_bytes;
  }
  return true;
}

static bool agpu_check_copy_sites(agpu_check_table *table, const kl_program *program) {
  table->sites = calloc((size_t)program->check_site_count + 1, sizeof *table->sites);
  if (!table->sites) return false;
  for (const kl_check_site *s = program->check_sites; s; s = s->next) {
    agpu_check_site *to = &table->sites[table->site_count++];
    to->function = agpu_check_copy(s->function);
    to->file = agpu_check_copy(s->location.source ? s->location.source->name : NULL);
    if (!to->function || !to->file) return false;
    to->line = s->location.line;
    to->column = s->location.column;
    to->root = s->root;
    to->bytes = (uint32_t)s->bytes;
    to->write = s->write;
  }
  return true;
}

static bool agpu_check_copy_counts(agpu_check_table *table, const kl_program *program) {
  table->counts = calloc((size_t)program->check_count_count + 1, sizeof *table->counts);
  if (!table->counts) return false;
  for (const kl_check_count *c = program->check_counts; c; c = c->next)
    table->counts[table->count_count++] =
        (agpu_check_count){c->param_index, (uint32_t)(c->stride > 0 ? c->stride : 1)};
  return true;
}

agpu_status agpu_check_table_create(const agpu_parsed *parsed, agpu_check_table **out) {
  *out = NULL;
  const kl_program *program = agpu_parsed_program(parsed);
  if (!program || !program->checks_bounds) return AGPU_SUCCESS;
  agpu_check_table *table = calloc(1, sizeof *table);
  if (table) atomic_init(&table->references, 1);
  if (!table || !agpu_check_copy_roots(table, program) || !agpu_check_copy_sites(table, program) ||
      !agpu_check_copy_counts(table, program) || !agpu_check_copy_proofs(table, program)) {
    agpu_check_table_release(table);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
  }
  *out = table;
  return AGPU_SUCCESS;
}

void agpu_check_table_retain(agpu_check_table *table) {
  atomic_fetch_add(&table->references, 1);
}

void agpu_check_table_release(agpu_check_table *table) {
  if (!table || atomic_fetch_sub(&table->references, 1) != 1) return;
  for (uint32_t i = 0; i < table->root_count; i++) {
    free(table->roots[i].kernel);
    free(table->roots[i].name);
  }
  for (uint32_t i = 0; i < table->site_count; i++) {
    free(table->sites[i].function);
    free(table->sites[i].file);
  }
  agpu_check_free_proofs(table);
  free(table->roots);
  free(table->sites);
  free(table->counts);
  free(table);
}

size_t agpu_check_words(const agpu_check_table *table, uint32_t nargs) {
  return KL_CHECK_HEADER_WORDS + 2 * (size_t)nargs + 3 * (size_t)table->count_count;
}

static void agpu_check_put64(uint32_t *words, size_t at, uint64_t value) {
  words[KL_CHECK_HEADER_WORDS + 2 * at] = (uint32_t)value;
  words[KL_CHECK_HEADER_WORDS + 2 * at + 1] = (uint32_t)(value >> 32);
}

/* Parameter i's extent, as agpu_check_put64 wrote it. */
static uint64_t agpu_check_get64(const uint32_t *words, uint32_t i) {
  return (uint64_t)words[KL_CHECK_HEADER_WORDS + 2 * i] |
         (uint64_t)words[KL_CHECK_HEADER_WORDS + 2 * i + 1] << 32;
}

uint64_t agpu_check_arg_extent(const agpu_arg *arg) {
  if (arg->kind == AGPU_ARG_BUFFER && arg->buffer) return arg->buffer->size;
  if (arg->kind == AGPU_ARG_LOCAL) return arg->size == UINT32_MAX ? arg->value.u64 : arg->size;
  return 0;
}

void agpu_check_prepare_words(const agpu_check_table *table, uint32_t *words, const agpu_arg *args,
                              uint32_t nargs) {
  memset(words, 0, agpu_check_words(table, nargs) * sizeof *words);
  for (uint32_t i = 0; i < nargs; i++) agpu_check_put64(words, i, agpu_check_arg_extent(&args[i]));
  /* a count of another kernel's parameter: whatever; this kernel reads its own */
  for (uint32_t j = 0; j < table->count_count; j++) {
    const agpu_check_count *c = &table->counts[j];
    uint64_t extent = c->param_index >= 0 && (uint32_t)c->param_index < nargs
                          ? agpu_check_get64(words, (uint32_t)c->param_index)
                          : 0;
    uint64_t count = extent / c->stride;
    size_t at = KL_CHECK_HEADER_WORDS + 2 * (size_t)nargs + 3 * (size_t)j;
    words[at] = (uint32_t)count;
    words[at + 1] = (uint32_t)(count >> 32);
    words[at + 2] = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
  }
}

/* "parameter 'out' (argument 1)" or "__local array 'tile'", and its extent. */
static uint64_t agpu_check_root_text(const agpu_check_root *root, const uint32_t *words,
                                     uint32_t nargs, char *text, size_t size) {
  if (!root) {
    snprintf(text, size, "a buffer");
    return 0;
  }
  if (root->param_index < 0) {
    snprintf(text, size, "__local array '%s'", root->name);
    return root->extent;
  }
  snprintf(text, size, "parameter '%s' (argument %d)", root->name, root->param_index);
  uint32_t i = (uint32_t)root->param_index;
  return i < nargs ? agpu_check_get64(words, i) : 0;
}

agpu_status agpu_check_report(const agpu_check_table *table, const char *kernel,
                              const uint32_t *words, uint32_t nargs) {
  uint32_t count = words[0], site_id = words[1];
  if (!count) return AGPU_SUCCESS;
  if (!site_id || site_id > table->site_count)
    return agpu_error_set(AGPU_ERROR_KERNEL_FAULT,
                          "kernel '%s' accessed memory out of bounds %" PRIu32
                          " times (the record of the first is damaged)",
                          kernel, count);
  const agpu_check_site *site = &table->sites[site_id - 1];
  uint32_t root_id = site->root >= 0 ? (uint32_t)site->root : words[10];
  const agpu_check_root *root = root_id < table->root_count ? &table->roots[root_id] : NULL;
  char root_text[160];
  uint64_t extent = agpu_check_root_text(root, words, nargs, root_text, sizeof root_text);
  int64_t byte = (int64_t)((uint64_t)words[2] | (uint64_t)words[3] << 32);
  int64_t size = root && root->element_bytes ? root->element_bytes : 1;
  int64_t element = byte / size - (byte < 0 && byte % size ? 1 : 0);
  char in_helper[160] = "";
  if (strcmp(site->function, kernel) != 0)
    snprintf(in_helper, sizeof in_helper, " (in '%s')", site->function);
  char more[96] = "";
  if (count > 1)
    snprintf(more, sizeof more, "; %" PRIu32 " more violation%s in this launch", count - 1,
             count == 2 ? "" : "s");
  return agpu_error_set(
      AGPU_ERROR_KERNEL_FAULT,
      "kernel '%s' %s out of bounds of %s at %s:%d:%d%s: element %" PRId64 " (byte offset %" PRId64
      ", %" PRIu32 " bytes) of %" PRIu64 " bytes (%" PRIu64 " elements), by work-item (%" PRIu32
      ",%" PRIu32 ",%" PRIu32 ") of work-group (%" PRIu32 ",%" PRIu32 ",%" PRIu32
      ")%s; the %s was %s",
      kernel, site->write ? "wrote" : "read", root_text, site->file, site->line, site->column,
      in_helper, element, byte, site->bytes, extent, extent / (uint64_t)size, words[4], words[5],
      words[6], words[7], words[8], words[9], more, site->write ? "store" : "load",
      site->write ? "dropped" : "given 0");
}
