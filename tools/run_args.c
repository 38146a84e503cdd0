// SPDX-License-Identifier: Apache-2.0
/* Parsing anygpu run's argument specs and making their data. */
#include "run_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_patterns.h"

static const run_type run_types[] = {
    {"char", 1, false, true},    {"uchar", 1, false, false}, {"short", 2, false, true},
    {"ushort", 2, false, false}, {"int", 4, false, true},    {"uint", 4, false, false},
    {"long", 8, false, true},    {"ulong", 8, false, false}, {"float", 4, true, true},
    {"double", 8, true, true},
};

static const run_type *run_type_find(const char *name, size_t length) {
  for (size_t i = 0; i < sizeof run_types / sizeof run_types[0]; i++)
    if (strlen(run_types[i].name) == length && strncmp(run_types[i].name, name, length) == 0)
      return &run_types[i];
  return NULL;
}

static bool run_number(const char *text, double *value) {
  char *end = NULL;
  errno = 0;
  *value = strtod(text, &end);
  return *text && end && *end == '\0' && errno == 0;
}

/* A value argument's bytes: integers parsed exactly (decimal or 0x hex). */
static bool run_value(const run_type *type, const char *text, agpu_arg *arg) {
  char *end = NULL;
  errno = 0;
  if (type->is_float) {
    double value;
    if (!run_number(text, &value)) return false;
    *arg = type->size == 4 ? agpu_arg_f32((float)value) : agpu_arg_f64(value);
    return true;
  }
  uint64_t bits;
  if (type->is_signed) {
    long long value = strtoll(text, &end, 0);
    unsigned width = 8 * type->size;
    if (width < 64 && (value < -(1ll << (width - 1)) || value >= (1ll << (width - 1))))
      return false;
    bits = (uint64_t)value;
  } else {
    if (text[0] == '-') return false;
    unsigned long long value = strtoull(text, &end, 0);
    if (type->size < 8 && value >> (8 * type->size)) return false;
    bits = value;
  }
  if (!*text || *end || errno) return false;
  *arg = agpu_arg_value(&bits, type->size); /* little-endian: the low bytes */
  return true;
}

static bool run_count(const char *text, size_t length, size_t *count) {
  char digits[32];
  if (length == 0 || length >= sizeof digits) return false;
  memcpy(digits, text, length);
  digits[length] = '\0';
  char *end = NULL;
  errno = 0;
  unsigned long long value = strtoull(digits, &end, 10);
  if (*end || errno || value == 0 || digits[0] == '-') return false;
  *count = (size_t)value;
  return true;
}

static bool run_init_parse(const char *text, run_arg *arg) {
  if (strcmp(text, "poison") == 0) {
    arg->init = RUN_INIT_POISON;
  } else if (strcmp(text, "iota") == 0) {
    arg->init = RUN_INIT_IOTA;
  } else if (strcmp(text, "random") == 0) {
    arg->init = RUN_INIT_RANDOM;
    arg->lo = arg->type->is_float ? -1 : 0;
    arg->hi = arg->type->is_float ? 1 : 255;
  } else if (strncmp(text, "random=", 7) == 0) {
    arg->init = RUN_INIT_RANDOM;
    char lo[64], hi[64];
    const char *comma = strchr(text + 7, ',');
    if (!comma || (size_t)(comma - text - 7) >= sizeof lo || strlen(comma + 1) >= sizeof hi)
      return false;
    snprintf(lo, sizeof lo, "%.*s", (int)(comma - text - 7), text + 7);
    snprintf(hi, sizeof hi, "%s", comma + 1);
    if (!run_number(lo, &arg->lo) || !run_number(hi, &arg->hi) || arg->hi < arg->lo) return false;
  } else if (strncmp(text, "fill=", 5) == 0) {
    arg->init = RUN_INIT_FILL;
    return run_number(text + 5, &arg->fill);
  } else if (strncmp(text, "file=", 5) == 0 && text[5]) {
    arg->init = RUN_INIT_FILE;
    arg->path = text + 5;
  } else {
    return false;
  }
  return true;
}

/* bytes:HEX, a value given byte by byte (a struct by value, laid out as
 * OpenCL C lays it out): "bytes:0000c03f07000000" is a float 1.5 and an
 * int 7. */
static bool run_bytes_parse(const char *hex, run_arg *arg, char *error, size_t capacity) {
  static const run_type bytes_type = {"bytes", 1, false, false};
  uint8_t bytes[AGPU_ARG_MAX_VALUE_SIZE];
  size_t length = strlen(hex);
  if (length == 0 || length % 2 || length / 2 > sizeof bytes) {
    snprintf(error, capacity, "'%s': bytes: takes an even number of hex digits, 1 to %d bytes",
             arg->spec, AGPU_ARG_MAX_VALUE_SIZE);
    return false;
  }
  for (size_t i = 0; i < length / 2; i++) {
    unsigned value = 0;
    for (int k = 0; k < 2; k++) {
      char c = hex[2 * i + (size_t)k];
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
      if (digit < 0) {
        snprintf(error, capacity, "'%s': '%c' is not a hex digit", arg->spec, c);
        return false;
      }
      value = value * 16 + (unsigned)digit;
    }
    bytes[i] = (uint8_t)value;
  }
  arg->type = &bytes_type;
  arg->value = agpu_arg_value(bytes, length / 2);
  return true;
}

bool run_arg_parse(const char *spec, run_arg *arg, char *error, size_t capacity) {
  memset(arg, 0, sizeof *arg);
  arg->spec = spec;
  const char *first = strchr(spec, ':');
  if (!first) {
    snprintf(error, capacity, "'%s': expected buf:TYPE:N[:INIT], local:TYPE:N or TYPE:VALUE", spec);
    return false;
  }
  size_t head = (size_t)(first - spec);
  if ((head == 3 && strncmp(spec, "buf", 3) == 0) ||
      (head == 5 && strncmp(spec, "local", 5) == 0)) {
    arg->kind = spec[0] == 'b' ? RUN_ARG_BUFFER : RUN_ARG_LOCAL;
    const char *type = first + 1, *second = strchr(type, ':');
    if (!second || !(arg->type = run_type_find(type, (size_t)(second - type)))) {
      snprintf(error, capacity,
               "'%s': expected a type (char ... ulong, float, double) after '%.*s:'", spec,
               (int)head, spec);
      return false;
    }
    const char *count = second + 1, *third = strchr(count, ':');
    size_t count_length = third ? (size_t)(third - count) : strlen(count);
    if (!run_count(count, count_length, &arg->count)) {
      snprintf(error, capacity, "'%s': expected a positive element count after the type", spec);
      return false;
    }
    /* count x element size must fit size_t: a wrapped product allocated a
     * few bytes and the fill ran to count (a heap overflow) */
    if (arg->count > SIZE_MAX / arg->type->size) {
      snprintf(error, capacity,
               "'%s': %zu elements of %s are more than 2^%u - 1 bytes (at most %zu of them)", spec,
               arg->count, arg->type->name, (unsigned)(sizeof(size_t) * 8),
               (size_t)(SIZE_MAX / arg->type->size));
      return false;
    }
    if (arg->kind == RUN_ARG_LOCAL && third) {
      snprintf(error, capacity, "'%s': local scratch takes no initial value", spec);
      return false;
    }
    if (third && !run_init_parse(third + 1, arg)) {
      snprintf(error, capacity,
               "'%s': unknown initial value '%s' (random, random=LO,HI, fill=V, iota, file=PATH, "
               "poison)",
               spec, third + 1);
      return false;
    }
    return true;
  }
  arg->kind = RUN_ARG_VALUE;
  if (head == 5 && strncmp(spec, "bytes", 5) == 0)
    return run_bytes_parse(first + 1, arg, error, capacity);
  if (!(arg->type = run_type_find(spec, head))) {
    snprintf(error, capacity, "'%s': unknown type '%.*s' (or buf:, local:)", spec, (int)head, spec);
    return false;
  }
  if (!run_value(arg->type, first + 1, &arg->value)) {
    snprintf(error, capacity, "'%s': '%s' is not a %s", spec, first + 1, arg->type->name);
    return false;
  }
  return true;
}

size_t run_arg_bytes(const run_arg *arg) {
  return arg->count * arg->type->size;
}

/* ---------------------------------------------------------------- data */

static void run_store(const run_type *type, void *data, size_t index, double value) {
  unsigned char *at = (unsigned char *)data + index * type->size;
  if (type->is_float) {
    if (type->size == 4) {
      float narrow = (float)value;
      memcpy(at, &narrow, 4);
    } else {
      memcpy(at, &value, 8);
    }
    return;
  }
  uint64_t bits = type->is_signed ? (uint64_t)(int64_t)value : (uint64_t)value;
  memcpy(at, &bits, type->size); /* little-endian host and devices */
}

static bool run_read_file(const run_arg *arg, void *data, char *error, size_t capacity) {
  FILE *file = fopen(arg->path, "rb");
  if (!file) {
    snprintf(error, capacity, "cannot read %s: %s", arg->path, strerror(errno));
    return false;
  }
  size_t bytes = run_arg_bytes(arg);
  size_t got = fread(data, 1, bytes, file);
  bool more = fgetc(file) != EOF;
  fclose(file);
  if (got != bytes || more) {
    snprintf(error, capacity, "%s: expected exactly %zu bytes (%zu %s), the file has %s%zu",
             arg->path, bytes, arg->count, arg->type->name, more ? "more than " : "", got);
    return false;
  }
  return true;
}

void *run_arg_data(const run_arg *arg, uint32_t position, uint64_t seed, char *error,
                   size_t capacity) {
  size_t bytes = run_arg_bytes(arg);
  void *data = malloc(bytes);
  if (!data) {
    snprintf(error, capacity, "out of host memory (%zu bytes for '%s')", bytes, arg->spec);
    return NULL;
  }
  uint64_t state = seed ^ ((uint64_t)(position + 1) << 48);
  splitmix64_next(&state);
  for (size_t i = 0; i < arg->count && arg->init != RUN_INIT_FILE; i++) {
    switch (arg->init) {
      case RUN_INIT_POISON: {
        uint64_t poison = arg->type->is_float
                              ? (arg->type->size == 4 ? POISON_FLOAT_BITS : POISON_DOUBLE_BITS)
                              : POISON_INTEGER_BYTE * UINT64_C(0x0101010101010101);
        memcpy((unsigned char *)data + i * arg->type->size, &poison, arg->type->size);
        break;
      }
      case RUN_INIT_RANDOM: {
        double unit = splitmix64_unit(&state);
        /* Floats in [lo, hi); integers in [lo, hi], both ends included. */
        double span = arg->hi - arg->lo + (arg->type->is_float ? 0 : 1);
        double value = arg->lo + span * unit;
        run_store(arg->type, data, i, arg->type->is_float ? value : floor(value));
        break;
      }
      case RUN_INIT_FILL:
        run_store(arg->type, data, i, arg->fill);
        break;
      case RUN_INIT_IOTA:
        run_store(arg->type, data, i, (double)i);
        break;
      case RUN_INIT_FILE:
        break;
    }
  }
  if (arg->init == RUN_INIT_FILE && !run_read_file(arg, data, error, capacity)) {
    free(data);
    return NULL;
  }
  return data;
}

uint64_t run_element_bits(const run_type *type, const void *data, size_t index) {
  uint64_t bits = 0;
  memcpy(&bits, (const unsigned char *)data + index * type->size, type->size);
  return bits;
}

double run_element(const run_type *type, const void *data, size_t index) {
  uint64_t bits = run_element_bits(type, data, index);
  if (type->is_float) {
    if (type->size == 4) {
      float value;
      uint32_t narrow = (uint32_t)bits;
      memcpy(&value, &narrow, 4);
      return value;
    }
    double value;
    memcpy(&value, &bits, 8);
    return value;
  }
  if (!type->is_signed) return (double)bits;
  unsigned shift = 64 - 8 * type->size;
  return (double)((int64_t)(bits << shift) >> shift);
}
