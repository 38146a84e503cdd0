// SPDX-License-Identifier: Apache-2.0
/* Private to the GLSL emitter (kernels/emit_glsl*.c): the emitter state and
 * the functions its files share. */
#ifndef AGPU_EMIT_GLSL_INTERNAL_H
#define AGPU_EMIT_GLSL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "builtins.h"
#include "glsl_layout.h"
#include "gpu_emit.h"
#include "translate.h"

typedef enum glsl_root_kind {
  ROOT_BUFFER,
  ROOT_SHARED,
  ROOT_CONSTANT,
  ROOT_PRIVATE,
  ROOT_ADDRESS /* a buffer device address (emit_glsl_address.c) */
} glsl_root_kind;

typedef struct glsl_root {
  glsl_root_kind kind;
  const kl_variable *var; /* the parameter or array variable */
  const char *array;      /* GLSL name of the array */
  int buffer;             /* ROOT_BUFFER: index into the layout's params */
  bool scalar;            /* a scalar variable: the only valid offset is 0 */
  bool read, written;
  /* ROOT_BUFFER: the array's element type; a view of the same buffer with
   * another element type (a pointer cast, emit_glsl_views.c) has its base's
   * root as `base` and is on the base's list of views */
  const kl_type *element;
  struct glsl_root *base, *views, *next_view;
  bool flat;   /* a __local array of arrays declared flat (glsl_flat_local) */
  bool packed; /* a private array packed into wider elements: read only */
  /* A pointer made from an integer (NULL included): no array; it may only
   * be assigned over (glsl_null_root) */
  bool null;
  /* An array of arrays T a[R][C] reached through pointers to its elements:
   * C (offsets count elements in row-major order; an access is a[o/C][o%C]) */
  int columns;
  /* A private pointer variable assigned from several kernel buffers of one
   * element type (Rodinia's heartwall: `row = cond ? endo : epi` in two
   * branches): those buffers' roots, which `selector` (the variable's
   * companion, set with every assignment) picks among; read only
   * (emit_glsl_choice.c). */
  struct glsl_root **choices;
  int choice_count;
  const char *selector;
  /* A read-only view of a shared array as 32-bit words of another type
   * (emit_glsl_local_views.c): words per source element (1 or 2), and the
   * source's element type */
  int words;
  const kl_type *word_source;
} glsl_root;

typedef struct glsl_binding {
  const kl_variable *var;
  const char *name; /* GLSL name */
  glsl_root *root;  /* pointer variables */
} glsl_binding;

typedef struct glsl_spec {
  const kl_function *function;
  glsl_root **roots; /* per parameter; NULL for non-pointers */
  const char *name;
  struct glsl_spec *next;
} glsl_spec;

typedef struct glsl_key {
  const char *key;
  struct glsl_key *next;
} glsl_key;

typedef struct glsl_emitter {
  kl_context *ctx;
  const kl_program *program;
  const kl_function *kernel;
  klg_buf *out;
  klg_buf helpers, functions, globals;
  klg_buf wide_types;       /* struct definitions of 8- and 16-vectors */
  struct wide_fn *wide_fns; /* helpers on them (emit_glsl_wide.c) */
  glsl_binding *env;
  int env_count, env_capacity;
  glsl_spec *specs;
  int spec_count;
  glsl_key *keys;
  kl_glsl_param *params;
  glsl_root **param_roots;
  unsigned caps;
  bool int64_atomics;
  const char **fp64_names; /* builtins the shader takes from the double library */
  int fp64_count, fp64_capacity;
  bool failed;
  const char *last_failure;
  bool aliased; /* a buffer has views: the blocks are decorated Aliased */
  /* The kernel stores pointers in structs: __global and __constant
   * pointers that meet them are buffer device addresses (emit_glsl_address.c) */
  bool addresses;
  glsl_root *address_roots; /* one per element type, chained by next_view */
  klg_buf address_types;    /* their buffer reference types */
} glsl_emitter;

typedef enum glsl_access { ACCESS_READ, ACCESS_WRITE, ACCESS_READ_WRITE } glsl_access;

void glsl_fail(glsl_emitter *e, kl_location at, const char *what);
const char *glsl_name(glsl_emitter *e, const char *name);
const char *glsl_scalar(glsl_emitter *e, const kl_type *t, kl_location at);
const char *glsl_vector_prefix(glsl_emitter *e, const kl_type *el, kl_location at);
const char *glsl_type(glsl_emitter *e, const kl_type *t, kl_location at);
const char *glsl_decl(glsl_emitter *e, const kl_type *t, const char *name, kl_location at);
const char *glsl_with_element(glsl_emitter *e, const kl_type *shape, const kl_type *el,
                              kl_location at);
const kl_type *glsl_unsigned_of(glsl_emitter *e, const kl_type *s);
int glsl_bits(const kl_type *s);
void glsl_std430(const kl_type *t, int *size, int *align);
void glsl_struct(glsl_emitter *e, const kl_type *t, klg_buf *o);

/* emit_glsl_address.c: pointers stored in structs, as buffer device addresses */
bool glsl_kernel_uses_addresses(const kl_function *kernel);
bool glsl_is_address(glsl_emitter *e, const kl_node *n);
glsl_root *glsl_address_pointer(glsl_emitter *e, const kl_node *n);
const char *glsl_to_address(glsl_emitter *e, const kl_node *n);
bool glsl_address_declaration(glsl_emitter *e, const kl_variable *v, const char *name);
void glsl_address_element(glsl_emitter *e, const glsl_root *root, const char *address,
                          const kl_node *index, kl_location at);
bool glsl_address_cond(glsl_emitter *e, const kl_node *n);
bool glsl_address_difference(glsl_emitter *e, const kl_node *n);

/* emit_glsl_local_views.c: __local arrays read as other 32-bit scalars */
glsl_root *glsl_shared_word_view(glsl_emitter *e, glsl_root *root, const kl_type *el);
void glsl_word_element(glsl_emitter *e, const glsl_root *root, const char *offset,
                       const kl_node *index, glsl_access mode, kl_location at);
void glsl_member_base(glsl_emitter *e, const kl_node *n, glsl_access mode);
/* A struct the host shares (a buffer's element, a by-value parameter): fails
 * unless the GLSL struct glsl_struct prints has OpenCL C's size and offsets
 * in std430, nested structs included. */
void glsl_check_shared_struct(glsl_emitter *e, const kl_type *t, kl_location at);
glsl_binding *glsl_lookup(glsl_emitter *e, const kl_variable *v);
glsl_binding *glsl_bind(glsl_emitter *e, const kl_variable *v, const char *name, glsl_root *root);
bool glsl_need(glsl_emitter *e, const char *key);
void glsl_int_literal(glsl_emitter *e, const kl_type *t, uint64_t v);
void glsl_float_value(glsl_emitter *e, double v, bool is_double);
const char *glsl_zero(glsl_emitter *e, const kl_type *t, kl_location at);
bool glsl_is_signed_int(const kl_type *t);
void glsl_mask_from_bvec(glsl_emitter *e, const kl_type *result, const char *bvec_text);
void glsl_mark(glsl_root *root, glsl_access mode);
void glsl_element(glsl_emitter *e, const kl_node *pointer, const kl_node *index, glsl_access mode,
                  kl_location at);
glsl_root *glsl_new_root(glsl_emitter *e, glsl_root_kind kind, const kl_variable *var,
                         const char *array);
glsl_root *glsl_array_root(glsl_emitter *e, const kl_variable *v, kl_location at);
const char *glsl_var_name(glsl_emitter *e, const kl_variable *v);
glsl_root *glsl_pointer(glsl_emitter *e, const kl_node *n);
glsl_root *glsl_null_root(glsl_emitter *e);
int glsl_union_words(const kl_type *t);
/* emit_glsl_choice.c */
glsl_root *glsl_choice_root(glsl_emitter *e, const kl_variable *v, const char *name);
int glsl_choice_index(const glsl_root *choice, const glsl_root *root);
void glsl_choice_element(glsl_emitter *e, glsl_root *root, const char *offset, const kl_node *index,
                         glsl_access mode, kl_location at);
bool glsl_choice_assign(glsl_emitter *e, const kl_node *n);
/* emit_glsl_views.c: a pointer cast between element types, and the
 * declarations of a buffer's views */
glsl_root *glsl_cast_view(glsl_emitter *e, const kl_node *n);
void glsl_view_declarations(glsl_emitter *e, const glsl_root *base, const char *qualifiers,
                            klg_buf *buffers, klg_buf *references);
const char *glsl_flat_local(glsl_emitter *e, const kl_variable *v, const char *name);
glsl_root *glsl_flat_cast(glsl_emitter *e, const kl_node *n);
bool glsl_split_pointer_choice(glsl_emitter *e, const kl_node *n);
const char *glsl_fill(glsl_emitter *e, const char *tmpl, const kl_type *s, const char *extra);
void glsl_helper(glsl_emitter *e, const char *name, const kl_type *vec, const kl_type *s,
                 const kl_type *result, int nargs, const kl_type *arg2, const char *tmpl,
                 const char *extra);
void glsl_call_args(glsl_emitter *e, const kl_node *args);
void glsl_call(glsl_emitter *e, const char *name, const kl_node *args);
bool glsl_const_dim(const kl_node *n, int *dim);
void glsl_work_item(glsl_emitter *e, const kl_node *n, bool wide);
void glsl_low32(glsl_emitter *e, const kl_node *n);
const char *glsl_fence(const kl_node *flags);
void glsl_atomic(glsl_emitter *e, const kl_node *n);
void glsl_vload_store(glsl_emitter *e, const kl_node *n, bool store);
bool glsl_float_only(glsl_emitter *e, const kl_node *n);
void glsl_convert(glsl_emitter *e, const kl_node *n);
void glsl_as(glsl_emitter *e, const kl_node *n);
const char *glsl_out_lvalue(glsl_emitter *e, const kl_node *p);
void glsl_out_builtin(glsl_emitter *e, const kl_node *n);
void glsl_builtin(glsl_emitter *e, const kl_node *n);

/* What a builtin's emitter did: emitted the call (or failed with a
 * diagnostic), filled a helper template for glsl_builtin to define and
 * call, or left the builtin to the next emitter. */
typedef enum glsl_builtin_result {
  GLSL_BUILTIN_DONE,
  GLSL_BUILTIN_TEMPLATE,
  GLSL_BUILTIN_NOT_HERE,
} glsl_builtin_result;

/* A helper over the scalar type (glsl_fill's template), and its second
 * argument's scalar type where it differs from the first's. */
typedef struct glsl_template {
  const char *name, *text;
  const kl_type *second;
} glsl_template;

/* emit_glsl_math.c: math builtins with code, and the tables. */
glsl_builtin_result glsl_math_builtin(glsl_emitter *e, const kl_node *n, glsl_template *t);
glsl_builtin_result glsl_table_builtin(glsl_emitter *e, const kl_node *n, glsl_template *t);
/* emit_glsl_relational.c: integer builtins with code; comparisons,
 * classification, any/all, bitselect and select (false: not one). */
glsl_builtin_result glsl_integer_builtin(glsl_emitter *e, const kl_node *n, glsl_template *t);
bool glsl_relational_builtin(glsl_emitter *e, const kl_node *n);
const char *glsl_text_of(glsl_emitter *e, const kl_node *n);
/* Expressions printed into a string rather than the output: the emitter's
 * output is redirected into a fresh buffer, then restored. */
typedef struct glsl_capture {
  klg_buf *saved;
  klg_buf text;
} glsl_capture;
void glsl_capture_begin(glsl_emitter *e, glsl_capture *capture);
const char *glsl_capture_end(glsl_emitter *e, glsl_capture *capture);
const char *glsl_cond_text(glsl_emitter *e, const kl_node *n);
const char *glsl_pointer_text(glsl_emitter *e, const kl_node *n, glsl_root **root);
void glsl_expr_as(glsl_emitter *e, const kl_node *n, const kl_type *to);
bool glsl_is_comparison(kl_operator op);
const char *glsl_vector_compare(kl_operator op);
void glsl_cond(glsl_emitter *e, const kl_node *n);
void glsl_user_call(glsl_emitter *e, const kl_node *n);
bool glsl_pure(const kl_node *n);
void glsl_swizzle_letters(glsl_emitter *e, const int *c, int count);
void glsl_assign(glsl_emitter *e, const kl_node *n);
void glsl_expr(glsl_emitter *e, const kl_node *n);
void glsl_expr_mode(glsl_emitter *e, const kl_node *n, glsl_access mode);
void glsl_initializer(glsl_emitter *e, const kl_type *t, const kl_node *init);
const char *glsl_precise(glsl_emitter *e, const kl_type *t);
void glsl_declaration(glsl_emitter *e, const kl_variable *v, bool in_for);
void glsl_block(glsl_emitter *e, const kl_node *n, int depth);
/* The C-syntax statement printer (gpu_emit.h) with GLSL's own statements. */
klg_c_printer glsl_printer(glsl_emitter *e);
void glsl_stmt(glsl_emitter *e, const kl_node *n, int depth);
void glsl_function(glsl_emitter *e, const kl_function *f, glsl_spec *spec);

/* double math builtins from kernels/glsl_fp64_math.h (emit_glsl_fp64.c):
 * emits the call and returns true, or false when there is no double
 * version; the library text the shader needs, or NULL */
bool glsl_fp64_call(glsl_emitter *e, const kl_node *n);
bool glsl_fp64_out_call(glsl_emitter *e, const kl_node *n);
const char *glsl_fp64_library(glsl_emitter *e);
/* the library's floor, ceil, trunc, rint or round for double, marked used */
const char *glsl_fp64_rounding(glsl_emitter *e, const char *builtin, const kl_type *type,
                               kl_location at);

/* 8- and 16-vectors (emit_glsl_wide.c) */
bool glsl_is_wide(const kl_type *t);
const char *glsl_wide_type(glsl_emitter *e, const kl_type *t, kl_location at);
const char *glsl_wide_copy(glsl_emitter *e, const kl_type *t, kl_location at);
const char *glsl_component(glsl_emitter *e, const char *value, const kl_type *t, int k);
const char *glsl_zero_wide(glsl_emitter *e, const kl_type *t, kl_location at);
const char *glsl_wide_from_elements(glsl_emitter *e, const kl_type *t, const char *const *elements,
                                    kl_location at);
bool glsl_wide_expr(glsl_emitter *e, const kl_node *n, glsl_access mode);
bool glsl_wide_assign(glsl_emitter *e, const kl_node *n);
uint32_t glsl_align_up(uint32_t v, uint32_t a);

#endif /* AGPU_EMIT_GLSL_INTERNAL_H */
