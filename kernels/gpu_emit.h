// SPDX-License-Identifier: Apache-2.0
/* Shared by the emitters (emit_opencl.c, emit_cuda.c, the emit_glsl*.c
 * files and, for expressions, the host-C emitter): identifier escaping,
 * struct names, swizzle folding, type predicates, and the C-syntax
 * statement and expression printers. Private to the translator. */
#ifndef AGPU_GPU_EMIT_H
#define AGPU_GPU_EMIT_H

#include <stdarg.h>

#include "kl.h"
#include "text.h"

/* The name to print for a user identifier: itself, or an escaped form when
 * it collides with a word of the target (reserved[] ends with NULL) or with
 * the prefixes the emitters use (_cl_, _agpu, gl_, and "__" for GLSL). */
const char *klg_ident(kl_context *ctx, const char *name, const char *const *reserved,
                      bool no_double_underscore);

/* A struct type's printed name: its tag or typedef, else "_cl_struct<N>". */
const char *klg_struct_name(kl_context *ctx, const kl_program *program, const kl_type *type);
int klg_struct_index(const kl_program *program, const kl_type *type);

/* Swizzles of swizzles folded into one: returns the innermost base and
 * fills components/count. */
const kl_node *klg_fold_swizzle(const kl_node *node, int *components, int *count);

/* Strips implicit conversions. */
const kl_node *klg_strip_convert(const kl_node *node);

bool klg_is_vector(const kl_type *type);
bool klg_is_pointer(const kl_type *type);
int klg_bits(const kl_type *scalar); /* size in bits of a scalar */

/* Statements as OpenCL C and CUDA/HIP print them alike: C syntax, braces
 * around every body, a for-init that is not one declaration or expression
 * hoisted into a block of its own. The emitter prints the expressions and
 * declarations. */
typedef struct klg_c_printer {
  klg_buf *out;
  void *emitter;
  void (*expression)(void *emitter, const kl_node *expression);
  void (*declaration)(void *emitter, const kl_variable *variable);
  void (*fail)(void *emitter, kl_location at, const char *what);
  const char *case_suffix; /* the suffix of a 64-bit case label: "L", "ll" */
  /* Optional (NULL: none): a statement the emitter prints itself, called
   * first for every statement (true: printed); the condition of an if,
   * while or do (NULL: as an expression). GLSL prints its own loops,
   * switches, declarations and barriers, and its conditions as bool. */
  bool (*statement)(void *emitter, const kl_node *statement, int depth);
  void (*condition)(void *emitter, const kl_node *condition);
} klg_c_printer;

/* A printer without the optional hooks. */
klg_c_printer klg_c_printer_of(klg_buf *out, void *emitter,
                               void (*expression)(void *emitter, const kl_node *expression),
                               void (*declaration)(void *emitter, const kl_variable *variable),
                               void (*fail)(void *emitter, kl_location at, const char *what),
                               const char *case_suffix);

void klg_c_statement(const klg_c_printer *printer, const kl_node *statement, int depth);
/* A statement as a block: braces always (a compound statement as it is). */
void klg_c_block(const klg_c_printer *printer, const kl_node *statement, int depth);

/* Expressions as every C-syntax target (OpenCL C, CUDA/HIP, host C) prints
 * them alike, the operands through printer->expression: binary operators
 * and assignments "(a op b)", "(a, b)", "(c ? a : b)", "(a)[i]", "(s).m",
 * "(p)->m", "{a, b}". Returns false for any other kind, which the emitter
 * prints itself, as it does the forms it prints differently (an emitter
 * handles those before calling this). */
bool klg_c_expression(const klg_c_printer *printer, const kl_node *expression);

/* How a target spells 64-bit integer literals. */
typedef struct klg_int_spelling {
  const char *long_suffix, *ulong_suffix; /* "L" and "UL", "ll" and "ull", "l" and "ul" */
  const char *long_min;                   /* INT64_MIN, e.g. "(-9223372036854775807L - 1L)" */
  bool size_types_as_long;                /* size_t/ptrdiff_t literals spelt as (u)long's */
} klg_int_spelling;

/* A bool, int, uint, long or ulong literal as every C-syntax target spells
 * it ("true", "(-5)", "7u", "(-2147483647 - 1)", 8 bytes with the target's
 * suffixes); false for other types, which the emitter spells itself. */
bool klg_int_literal(klg_buf *out, const kl_type *type, uint64_t value,
                     const klg_int_spelling *spelling);
/* "a, b, c" */
void klg_c_arguments(const klg_c_printer *printer, const kl_node *arguments);

#endif /* AGPU_GPU_EMIT_H */
