// SPDX-License-Identifier: Apache-2.0
/* Private to the kernel generator (kernel_gen.h), in four files:
 * kernel_gen.c (the bytes, the text, the variables in scope, the kernel
 * around the statements), kernel_gen_expr.c (conditions and the scalar
 * integer expressions), kernel_gen_vector.c (the vector and float
 * expressions) and kernel_gen_stmt.c (statements and blocks). */
#ifndef KERNEL_GEN_INTERNAL_H
#define KERNEL_GEN_INTERNAL_H

#include "kernel_gen.h"

typedef enum kgen_type {
  T_UINT,
  T_INT,
  T_ULONG,
  T_UINT4,
  T_UCHAR4, /* 8-bit lanes: wrapping, saturating and bit-counting in 8 bits */
  T_UINT8,  /* wider than any GLSL vector */
  T_FLOAT,
  T_COUNT
} kgen_type;

enum { MAX_VARS = 96, MAX_DEPTH = 4, MAX_STMT_DEPTH = 3, MAX_STATEMENTS = 48 };

typedef struct kgen_var {
  char name[16];
  kgen_type type;
  bool read_only; /* loop counters */
  bool array;     /* uint name[4] */
} kgen_var;

typedef struct kgen {
  const uint8_t *data;
  size_t size, pos;
  kgen_options options;
  char *text;
  size_t length, capacity;
  bool failed;
  kgen_var vars[MAX_VARS];
  int var_count, next_id, statements, indent;
  bool in_helper, have_value_helper, have_pointer_helper;
} kgen;

/* kernel_gen.c: the next choice among n (0 once the bytes run out), whether
 * they have; text appended (printf-like), text[start, end) appended again
 * (an expression used twice: it has no side effects), the current
 * indentation; a variable of `type` in scope (not an array) or NULL, an
 * array or NULL, a new variable; whether the options allow `type`. */
unsigned kgen_take(kgen *g, unsigned n);
bool kgen_exhausted(const kgen *g);
void kgen_put(kgen *g, const char *format, ...) __attribute__((format(printf, 2, 3)));
void kgen_repeat(kgen *g, size_t start, size_t end);
void kgen_indent(kgen *g);
const kgen_var *kgen_pick_var(kgen *g, kgen_type type, bool writable);
const kgen_var *kgen_pick_array(kgen *g);
kgen_var *kgen_add_var(kgen *g, kgen_type type, const char *prefix);
bool kgen_type_allowed(const kgen *g, kgen_type type);

/* kernel_gen_expr.c: a condition; a variable or a literal; `(a op b)`;
 * `name(args...)`; a clamp with ordered bounds; an expression of `type`
 * (nested at most MAX_DEPTH deep); a type the options allow. */
void kgen_condition(kgen *g, int depth);
void kgen_leaf(kgen *g, kgen_type type);
void kgen_binary(kgen *g, kgen_type type, int depth, const char *op);
void kgen_call(kgen *g, const char *name, kgen_type type, int args, int depth);
void kgen_ordered_clamp(kgen *g, kgen_type type, int depth);
void kgen_expr(kgen *g, kgen_type type, int depth);
kgen_type kgen_pick_type(kgen *g);

/* kernel_gen_vector.c: an expression of each vector type and of float. */
void kgen_uint4_expr(kgen *g, int depth);
void kgen_uchar4_expr(kgen *g, int depth);
void kgen_uint8_expr(kgen *g, int depth);
void kgen_float_expr(kgen *g, int depth);

/* kernel_gen_stmt.c: a statement (`top`: at the kernel's top level, where
 * control flow is uniform). */
void kgen_statement(kgen *g, int depth, bool in_loop, bool top);

#endif
