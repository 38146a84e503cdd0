// SPDX-License-Identifier: Apache-2.0
/* Private to the preprocessor's files: preprocess.c (the pass, directives,
 * #pragma, #include, predefined macros and options), preprocess_macros.c
 * (#define and macro expansion) and preprocess_if.c (#if and its constant
 * expressions). */
#ifndef AGPU_PREPROCESS_INTERNAL_H
#define AGPU_PREPROCESS_INTERNAL_H

#include "kl_front.h"

typedef struct kl_hideset {
  struct kl_hideset *next;
  const char *name;
  int length;
} kl_hideset;

typedef enum { MACRO_PLAIN, MACRO_LINE, MACRO_FILE } macro_kind;

struct kl_macro {
  kl_macro *next;
  const char *name;
  int length;
  bool function_like;
  const kl_token **params;
  int param_count;
  kl_token *body; /* ends with KL_TOKEN_END */
  macro_kind kind;
};

typedef struct cond_incl {
  struct cond_incl *next;
  enum { IN_THEN, IN_ELIF, IN_ELSE } state;
  const kl_token *token;
  bool included;
} cond_incl;

typedef struct pp {
  kl_context *ctx;
  cond_incl *conds;
  int cond_depth;
  int depth;     /* argument pre-expansion nesting */
  kl_token *end; /* a shared END token for sub-lists */
} pp;

kl_macro *kpp_find_macro(kl_context *ctx, const char *name, int length);
kl_macro *kpp_add_macro(kl_context *ctx, const char *name, int length);
void kpp_remove_macro(kl_context *ctx, const char *name, int length);
bool kpp_hideset_contains(const kl_hideset *hs, const char *name, int length);
kl_hideset *kpp_hideset_add(kl_context *ctx, kl_hideset *hs, const char *name, int length);
kl_hideset *kpp_hideset_union(kl_context *ctx, kl_hideset *a, kl_hideset *b);
kl_hideset *kpp_hideset_intersection(kl_context *ctx, kl_hideset *a, kl_hideset *b);
kl_token *kpp_copy_token(pp *p, const kl_token *token);
bool kpp_is_hash(const kl_token *token);
bool kpp_token_equals(const kl_token *token, const char *text);
kl_token *kpp_copy_line(pp *p, kl_token **rest, kl_token *token);
kl_token *kpp_skip_line(pp *p, kl_token *token);
void kpp_read_define(pp *p, kl_token **rest, kl_token *token, kl_token *hash);
bool kpp_expand_macro(pp *p, kl_token **rest, kl_token *token);
bool kpp_eval_if(pp *p, kl_token **rest, kl_token *directive, kl_token *token);
kl_token *kpp_skip_group(pp *p, kl_token *token);
void kpp_push_cond(pp *p, const kl_token *token, bool included);
kl_token *kpp_preprocess2(pp *p, kl_token *token);

#endif /* AGPU_PREPROCESS_INTERNAL_H */
