// SPDX-License-Identifier: Apache-2.0
/* Scalar and vector types of the kernel language, as the corpus names them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

static const struct {
  const char *name;
  corpus_scalar scalar;
  size_t size;
} corpus_scalars[] = {
    {"char", CORPUS_CHAR, 1},     {"uchar", CORPUS_UCHAR, 1},   {"short", CORPUS_SHORT, 2},
    {"ushort", CORPUS_USHORT, 2}, {"int", CORPUS_INT, 4},       {"uint", CORPUS_UINT, 4},
    {"long", CORPUS_LONG, 8},     {"ulong", CORPUS_ULONG, 8},   {"half", CORPUS_HALF, 2},
    {"float", CORPUS_FLOAT, 4},   {"double", CORPUS_DOUBLE, 8},
};
#define CORPUS_SCALAR_COUNT (sizeof corpus_scalars / sizeof corpus_scalars[0])

bool corpus_type_parse(const char *text, corpus_type *type) {
  size_t length = strlen(text), digits = 0;
  while (digits < length && text[length - 1 - digits] >= '0' && text[length - 1 - digits] <= '9')
    digits++;
  unsigned lanes = digits ? (unsigned)atoi(text + length - digits) : 1;
  if (digits && lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16) return false;
  for (size_t i = 0; i < CORPUS_SCALAR_COUNT; i++) {
    if (strlen(corpus_scalars[i].name) == length - digits &&
        strncmp(text, corpus_scalars[i].name, length - digits) == 0) {
      type->scalar = corpus_scalars[i].scalar;
      type->lanes = lanes;
      return true;
    }
  }
  return false;
}

void corpus_type_name(corpus_type type, char *out, size_t capacity) {
  const char *name = "?";
  for (size_t i = 0; i < CORPUS_SCALAR_COUNT; i++)
    if (corpus_scalars[i].scalar == type.scalar) name = corpus_scalars[i].name;
  if (type.lanes == 1)
    snprintf(out, capacity, "%s", name);
  else
    snprintf(out, capacity, "%s%u", name, type.lanes);
}

size_t corpus_scalar_size(corpus_scalar scalar) {
  for (size_t i = 0; i < CORPUS_SCALAR_COUNT; i++)
    if (corpus_scalars[i].scalar == scalar) return corpus_scalars[i].size;
  return 0;
}

bool corpus_scalar_is_float(corpus_scalar scalar) {
  return scalar == CORPUS_HALF || scalar == CORPUS_FLOAT || scalar == CORPUS_DOUBLE;
}

bool corpus_scalar_is_signed(corpus_scalar scalar) {
  return scalar == CORPUS_CHAR || scalar == CORPUS_SHORT || scalar == CORPUS_INT ||
         scalar == CORPUS_LONG || corpus_scalar_is_float(scalar);
}

unsigned corpus_type_stored_lanes(corpus_type type) {
  return type.lanes == 3 ? 4 : type.lanes;
}

size_t corpus_type_size(corpus_type type) {
  return corpus_scalar_size(type.scalar) * corpus_type_stored_lanes(type);
}
