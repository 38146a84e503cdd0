// SPDX-License-Identifier: Apache-2.0
/* anygpu run: the argument specs (buf:float:N:random, uint:4096,
 * local:float:256) and the data they make. */
#ifndef ANYGPU_TOOLS_RUN_ARGS_H
#define ANYGPU_TOOLS_RUN_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anygpu.h"

typedef struct run_type {
  const char *name; /* "float" */
  uint32_t size;    /* bytes */
  bool is_float;
  bool is_signed;
} run_type;

typedef enum run_arg_kind { RUN_ARG_BUFFER, RUN_ARG_VALUE, RUN_ARG_LOCAL } run_arg_kind;

typedef enum run_init {
  RUN_INIT_POISON, /* the default: NaN bit patterns for floats, 0xA5 bytes for integers */
  RUN_INIT_RANDOM, /* random[=LO,HI] */
  RUN_INIT_FILL,   /* fill=V */
  RUN_INIT_IOTA,   /* 0, 1, 2, ... */
  RUN_INIT_FILE,   /* file=PATH: raw bytes, exactly N elements */
} run_init;

typedef struct run_arg {
  const char *spec; /* as written, for messages */
  run_arg_kind kind;
  const run_type *type;
  size_t count; /* elements of a buffer or local */
  run_init init;
  double lo, hi, fill;
  const char *path;
  agpu_arg value; /* RUN_ARG_VALUE */
} run_arg;

/* Parses one spec; on failure writes why into `error` and returns false. */
bool run_arg_parse(const char *spec, run_arg *arg, char *error, size_t capacity);

/* The bytes a buffer argument starts with (the same on every device: from
 * the seed and the argument's position). NULL with `error` on failure. */
void *run_arg_data(const run_arg *arg, uint32_t position, uint64_t seed, char *error,
                   size_t capacity);

size_t run_arg_bytes(const run_arg *arg);

/* One element as a double (integers exactly up to 2^53). */
double run_element(const run_type *type, const void *data, size_t index);
/* The raw bits of one element. */
uint64_t run_element_bits(const run_type *type, const void *data, size_t index);

#endif /* ANYGPU_TOOLS_RUN_ARGS_H */
