// SPDX-License-Identifier: Apache-2.0
/* Private to the builtins' typing (builtins_check.c, builtins_gentype.c):
 * the helpers its rules share. */
#ifndef AGPU_KL_BUILTINS_INTERNAL_H
#define AGPU_KL_BUILTINS_INTERNAL_H

#include "builtins.h"
#include "kl_front.h"

static inline const char *tn(kl_context *ctx, const kl_type *t) {
  return kl_type_name(ctx, t);
}

static inline bool is_int_like(const kl_type *t) {
  const kl_type *s = kl_type_scalar_of(t);
  return kl_type_is_integer(s) || (s && s->kind == KL_TYPE_BOOL);
}

static inline bool is_numeric(const kl_type *t) {
  return t && (kl_type_is_arithmetic(t) || t->kind == KL_TYPE_BOOL);
}

/* builtins_gentype.c: the gentype of the arguments `first` .. `last` of a
 * call (floating: of a floating builtin), NULL after an error; the call's
 * arguments relinked from `args`; the element type of a pointer argument,
 * NULL after an error that says `what` it is. */
kl_type *kl_builtin_gentype(kl_context *ctx, kl_node *call, kl_node **args, int count, int first,
                            int last, bool floating);
void kl_builtin_set_args(kl_node *call, kl_node **args, int count);
kl_type *kl_builtin_pointee_scalar(kl_context *ctx, kl_node *call, kl_node *arg, const char *what);

#endif
