// SPDX-License-Identifier: Apache-2.0
/* Private to the front end (context, lexer, preprocessor, parser, types,
 * builtins, checks): the context's insides and the passes' entry points.
 * Emitters use kl.h, builtins.h and translate.h only. */
#ifndef AGPU_KL_FRONT_H
#define AGPU_KL_FRONT_H

#include <setjmp.h>

#include "kl.h"
#include "translate.h"

#define KL_MAX_ERRORS 20 /* then "too many errors" and the translation stops */
#define KL_MAX_DEPTH 200 /* nesting of expressions, statements, declarators */
/* The syntax tree's depth, statements and expressions together: a chain
 * a + b + c + ... is a level per operator although it nests nothing. Every
 * recursive walker of the tree (check.c, the emitters) relies on it. */
#define KL_MAX_TREE_DEPTH 400
#define KL_MAX_EXPANSION_DEPTH 64              /* nested function-like macro argument expansions */
#define KL_MAX_TOKENS 500000                   /* tokens after preprocessing */
#define KL_MAX_IF_DEPTH 64                     /* nested #if */
#define KL_MAX_INCLUDE_DEPTH 64                /* nested #include */
#define KL_MAX_INCLUDE_BYTES (16u << 20)       /* all the files one translation includes */
#define KL_MAX_SOURCE_BYTES ((size_t)64 << 20) /* the main source (docs/kernel-language.md) */

typedef struct kl_chunk kl_chunk;

typedef struct kl_macro kl_macro;
typedef struct kl_included kl_included;

typedef struct kl_extension {
  const char *name;
  bool enabled;
  struct kl_extension *next;
} kl_extension;

struct kl_context {
  kl_chunk *chunks;
  char *cursor, *limit;

  kl_diagnostic *diagnostics, *last_diagnostic;
  int error_count, warning_count;
  bool too_many;
  bool hit_limit; /* kl_limit_error was called */
  char *diagnostics_text;

  /* Where to go when the translation must stop (too many errors, no memory). */
  jmp_buf *bail;

  /* Options of the current translation. */
  kl_translate_options options;
  bool fast_relaxed_math;
  const kl_source *main_source;

  /* Preprocessor state. */
  kl_macro **macros; /* hash table */
  int macro_buckets;
  kl_extension *extensions;
  bool fp_contract_off; /* a #pragma OPENCL FP_CONTRACT OFF was seen */
  bool check_bounds;    /* the -anygpu-check=bounds build option */
  const char *preprocessed_text;
  long token_count;

  /* #include (include.c): the directories searched after the including
   * file's own (the options' include_dirs, then -I of the build options),
   * and the files read, for #pragma once. */
  const char **include_dirs;
  int include_dir_count, include_dir_capacity;
  kl_included *included;
  size_t included_bytes;

  /* Shared types. */
  kl_type *scalars[KL_TYPE_DOUBLE + 1];
  kl_type *vectors[KL_TYPE_DOUBLE + 1][17];

  int next_variable_id;
};

/* Stops the translation: longjmp to ctx->bail (set by the entry points). */
_Noreturn void kl_bail(kl_context *ctx);

kl_source *kl_new_source(kl_context *ctx, const char *name, const char *text, size_t length);

/* lex.c: the whole source as tokens ending in KL_TOKEN_END. */
kl_token *kl_tokenize(kl_context *ctx, const kl_source *source);
bool kl_token_is(const kl_token *token, const char *text);
kl_token *kl_token_copy(kl_context *ctx, const kl_token *token);
/* The location to report for a token: the macro use site when it came from one. */
kl_location kl_token_where(const kl_token *token);

/* preprocess.c */
kl_token *kl_preprocess(kl_context *ctx, kl_token *tokens);
bool kl_extension_enabled(const kl_context *ctx, const char *name);

/* include.c: the tokens of the file `name` names (`angled`: #include <name>),
 * spliced before `rest`; `rest` itself when nothing is included (a #pragma once
 * file seen before, an OpenCL built-in header, an error, reported at `hash`). */
kl_token *kl_include(kl_context *ctx, const kl_token *hash, const char *name, bool angled,
                     kl_token *rest);
/* #pragma once in `source`: later #includes of its file include nothing. */
void kl_include_once(kl_context *ctx, const kl_source *source);
/* Adds a directory to search (the -I build option). */
void kl_include_add_dir(kl_context *ctx, const char *dir, size_t length);

/* parse.c */
kl_program *kl_parse(kl_context *ctx, kl_token *tokens);

/* bounds.c: the functions checked accesses call, as tokens spliced before
 * `rest`; and the pass that guards every access of the program's kernels
 * (after parsing, before check.c). */
kl_token *kl_bounds_prelude(kl_context *ctx, kl_token *rest);
void kl_bounds_instrument(kl_context *ctx, kl_program *program);

/* type.c (beyond kl.h) */
kl_type *kl_type_struct(kl_context *ctx, const char *tag);
kl_type *kl_type_function(kl_context *ctx, kl_type *return_type, kl_type **params, int count);
int kl_type_rank(const kl_type *type);                              /* integer conversion rank */
kl_type *kl_type_unsigned_of(kl_context *ctx, const kl_type *type); /* same size, unsigned */
kl_type *kl_type_signed_int_like(kl_context *ctx, const kl_type *type); /* comparison result */
kl_type *kl_type_promote(kl_context *ctx, kl_type *type);               /* integer promotion */
kl_type *kl_type_common(kl_context *ctx, kl_type *a,
                        kl_type *b); /* usual arithmetic conversions (scalars) */
kl_type *kl_type_unqualified(kl_context *ctx, kl_type *type);
/* "float4" -> the type; NULL when the name is not a scalar or vector type name. */
kl_type *kl_type_from_name(kl_context *ctx, const char *name, int length);
bool kl_type_is_vector(const kl_type *type);
bool kl_type_is_pointer(const kl_type *type);

/* parse.c helpers shared with the builtins' type rules (builtins_check.c) */
kl_node *kl_convert(kl_context *ctx, kl_node *node, kl_type *type); /* implicit; no-op when equal */
bool kl_eval_int(kl_context *ctx, const kl_node *node,
                 int64_t *value); /* integer constant expression */

/* lex.c: a character's value as a hexadecimal digit, -1 if it is none. */
int kl_digit_value(int c);

/* check.c */
void kl_check_program(kl_context *ctx, kl_program *program);

#endif /* AGPU_KL_FRONT_H */
