// SPDX-License-Identifier: Apache-2.0
/* Private to the parser's expressions, split in three files: parse_expr.c
 * (primaries, casts, sizeof, unary operators) calls these. */
#ifndef AGPU_KL_PARSE_EXPR_INTERNAL_H
#define AGPU_KL_PARSE_EXPR_INTERNAL_H

#include "parse_internal.h"

/* parse_literals.c: a number or character literal token as a node. */
kl_node *kp_number_literal(parser *p, kl_token *t);
kl_node *kp_char_literal(parser *p, kl_token *t);
/* parse_postfix.c: a variable's use, a call of a function or of a builtin
 * (`type`: what the builtin's name says, as convert_T's T), and the postfix
 * operators after the primary `n`. */
kl_node *kp_variable_ref(parser *p, kl_variable *v, kl_location at);
kl_node *kp_call_function(parser *p, kl_function *f, kl_token *name);
kl_node *kp_call_builtin(parser *p, const kl_builtin *b, kl_type *type, kl_token *name);
kl_node *kp_postfix(parser *p, kl_node *n);

#endif
