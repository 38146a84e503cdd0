// SPDX-License-Identifier: Apache-2.0
#include "kl.h"

const char *kl_operator_text(kl_operator op) {
  switch (op) {
    case KL_OP_ADD:
      return "+";
    case KL_OP_SUB:
      return "-";
    case KL_OP_MUL:
      return "*";
    case KL_OP_DIV:
      return "/";
    case KL_OP_MOD:
      return "%";
    case KL_OP_SHL:
      return "<<";
    case KL_OP_SHR:
      return ">>";
    case KL_OP_BIT_AND:
      return "&";
    case KL_OP_BIT_OR:
      return "|";
    case KL_OP_BIT_XOR:
      return "^";
    case KL_OP_LOGICAL_AND:
      return "&&";
    case KL_OP_LOGICAL_OR:
      return "||";
    case KL_OP_EQ:
      return "==";
    case KL_OP_NE:
      return "!=";
    case KL_OP_LT:
      return "<";
    case KL_OP_LE:
      return "<=";
    case KL_OP_GT:
      return ">";
    case KL_OP_GE:
      return ">=";
    default:
      return "?";
  }
}
