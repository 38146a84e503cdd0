// SPDX-License-Identifier: Apache-2.0
#include "kl.h"

const char *kl_operator_text(kl_operator op) {
  static const char *const text[] = {
      [KL_OP_ADD] = "+",     [KL_OP_SUB] = "-",          [KL_OP_MUL] = "*",
      [KL_OP_DIV] = "/",     [KL_OP_MOD] = "%",          [KL_OP_SHL] = "<<",
      [KL_OP_SHR] = ">>",    [KL_OP_BIT_AND] = "&",      [KL_OP_BIT_OR] = "|",
      [KL_OP_BIT_XOR] = "^", [KL_OP_LOGICAL_AND] = "&&", [KL_OP_LOGICAL_OR] = "||",
      [KL_OP_EQ] = "==",     [KL_OP_NE] = "!=",          [KL_OP_LT] = "<",
      [KL_OP_LE] = "<=",     [KL_OP_GT] = ">",           [KL_OP_GE] = ">=",
  };
  const char *result = (size_t)op < sizeof text / sizeof *text ? text[op] : NULL;
  return result ? result : "?";
}

const char *kl_unary_text(kl_operator op) {
  static const char *const text[] = {
      [KL_OP_NEGATE] = "-",          [KL_OP_PLUS] = "+",
      [KL_OP_LOGICAL_NOT] = "!",     [KL_OP_BIT_NOT] = "~",
      [KL_OP_PRE_INCREMENT] = "++",  [KL_OP_PRE_DECREMENT] = "--",
      [KL_OP_POST_INCREMENT] = "++", [KL_OP_POST_DECREMENT] = "--",
      [KL_OP_DEREFERENCE] = "*",     [KL_OP_ADDRESS_OF] = "&",
  };
  const char *result = (size_t)op < sizeof text / sizeof *text ? text[op] : NULL;
  return result ? result : "";
}
