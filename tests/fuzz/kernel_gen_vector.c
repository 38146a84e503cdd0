// SPDX-License-Identifier: Apache-2.0
/* The kernel generator's expressions of the vector types (uint4, uchar4 and
 * uint8, wider than any GLSL vector) and of float (kernel_gen_internal.h). */
#include <string.h>

#include "kernel_gen_internal.h"

void kgen_uint4_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "&", "|", "^"};
  static const char *const swizzles[] = {"wzyx", "yxwz", "xxyy", "s3210", "zwxy", "xyzw"};
  static const char *const two[] = {"min",     "max",  "rotate",  "add_sat",
                                    "sub_sat", "hadd", "abs_diff"};
  switch (kgen_take(g, 19)) {
    case 0:
    case 1:
      kgen_leaf(g, T_UINT4);
      break;
    case 2:
      kgen_put(g, "(uint4)(");
      for (int i = 0; i < 4; i++) {
        if (i) kgen_put(g, ", ");
        kgen_expr(g, T_UINT, depth + 1);
      }
      kgen_put(g, ")");
      break;
    case 3:
      kgen_put(g, "(uint4)("), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 4:
      kgen_binary(g, T_UINT4, depth, ops[kgen_take(g, 6)]);
      break;
    case 5:
      kgen_put(g, "("), kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, " %s ", ops[kgen_take(g, 6)]),
          kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 6:
      kgen_put(g, "("), kgen_expr(g, T_UINT4, depth + 1),
          kgen_put(g, kgen_take(g, 2) ? " << (" : " >> (");
      kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, " & 31u))");
      break;
    case 7:
      kgen_put(g, "("), kgen_expr(g, T_UINT4, depth + 1),
          kgen_put(g, kgen_take(g, 2) ? " / (" : " %% (");
      kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, " | 1u))");
      break;
    case 8:
      kgen_put(g, "("), kgen_expr(g, T_UINT4, depth + 1),
          kgen_put(g, ").%s", swizzles[kgen_take(g, 6)]);
      break;
    case 9:
      kgen_put(g, "(uint4)(("), kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, ").xy, ("),
          kgen_expr(g, T_UINT4, depth + 1);
      kgen_put(g, ").%s)", kgen_take(g, 2) ? "zw" : "hi");
      break;
    case 10:
      kgen_call(g, two[kgen_take(g, 7)], T_UINT4, 2, depth);
      break;
    case 11:
      kgen_call(g, kgen_take(g, 2) ? "popcount" : "clz", T_UINT4, 1, depth);
      break;
    case 12:
      kgen_call(g, "select", T_UINT4, 3, depth);
      break;
    case 13:
      kgen_put(g, "as_uint4("), kgen_expr(g, T_UINT4, depth + 1),
          kgen_put(g, kgen_take(g, 2) ? " < " : " == ");
      kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, ")");
      break;
    case 14:
      kgen_put(g, "(("), kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, " > "),
          kgen_expr(g, T_UINT4, depth + 1);
      kgen_put(g, ") ? "), kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, " : "),
          kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, ")");
      break;
    case 16:
      kgen_put(g, "convert_uint4("), kgen_expr(g, T_UCHAR4, depth + 1), kgen_put(g, ")");
      break;
    case 17: {
      static const char *const halves[] = {"lo", "hi", "even", "odd"};
      kgen_put(g, "("), kgen_expr(g, T_UINT8, depth + 1),
          kgen_put(g, ").%s", halves[kgen_take(g, 4)]);
      break;
    }
    default:
      kgen_ordered_clamp(g, T_UINT4, depth);
      break;
  }
}

void kgen_uchar4_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "&", "|", "^"};
  static const char *const two[] = {"min",     "max",  "mul_hi", "rotate",  "add_sat",
                                    "sub_sat", "hadd", "rhadd",  "abs_diff"};
  static const char *const swizzles[] = {"wzyx", "xxyy", "s3120", "zwxy"};
  switch (kgen_take(g, 14)) {
    case 0:
    case 1:
      kgen_leaf(g, T_UCHAR4);
      break;
    case 2:
      kgen_put(g, "convert_uchar4("), kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, ")");
      break;
    case 3:
      kgen_put(g, "(uchar4)((uchar)"), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 4:
      kgen_binary(g, T_UCHAR4, depth, ops[kgen_take(g, 6)]);
      break;
    case 5:
      kgen_put(g, "("), kgen_expr(g, T_UCHAR4, depth + 1),
          kgen_put(g, " %s (uchar)", ops[kgen_take(g, 6)]);
      kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 6:
      kgen_put(g, "("), kgen_expr(g, T_UCHAR4, depth + 1),
          kgen_put(g, kgen_take(g, 2) ? " << (" : " >> (");
      kgen_expr(g, T_UCHAR4, depth + 1), kgen_put(g, " & (uchar4)(7)))");
      break;
    case 7:
      kgen_put(g, "("), kgen_expr(g, T_UCHAR4, depth + 1),
          kgen_put(g, kgen_take(g, 2) ? " / (" : " %% (");
      kgen_expr(g, T_UCHAR4, depth + 1), kgen_put(g, " | (uchar4)(1)))");
      break;
    case 8:
      kgen_call(g, two[kgen_take(g, 9)], T_UCHAR4, 2, depth);
      break;
    case 9:
      kgen_call(g, kgen_take(g, 2) ? "popcount" : "clz", T_UCHAR4, 1, depth);
      break;
    case 10:
      kgen_call(g, kgen_take(g, 2) ? "select" : (kgen_take(g, 2) ? "mad_sat" : "mad_hi"), T_UCHAR4,
                3, depth);
      break;
    case 11:
      kgen_put(g, "as_uchar4("), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 12:
      kgen_put(g, "("), kgen_expr(g, T_UCHAR4, depth + 1),
          kgen_put(g, ").%s", swizzles[kgen_take(g, 4)]);
      break;
    default:
      kgen_ordered_clamp(g, T_UCHAR4, depth);
      break;
  }
}

void kgen_uint8_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "&", "|", "^"};
  static const char *const two[] = {"min", "max", "rotate", "add_sat", "hadd"};
  static const char *const swizzles[] = {"s76543210", "s01234567", "s00112233", "s13570246"};
  switch (kgen_take(g, 12)) {
    case 0:
    case 1:
      kgen_leaf(g, T_UINT8);
      break;
    case 2:
      kgen_put(g, "(uint8)("), kgen_expr(g, T_UINT4, depth + 1), kgen_put(g, ", "),
          kgen_expr(g, T_UINT4, depth + 1);
      kgen_put(g, ")");
      break;
    case 3:
      kgen_put(g, "(uint8)("), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 4:
      kgen_binary(g, T_UINT8, depth, ops[kgen_take(g, 6)]);
      break;
    case 5:
      kgen_put(g, "("), kgen_expr(g, T_UINT8, depth + 1), kgen_put(g, " %s ", ops[kgen_take(g, 6)]);
      kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 6:
      kgen_put(g, "("), kgen_expr(g, T_UINT8, depth + 1),
          kgen_put(g, kgen_take(g, 2) ? " << (" : " >> (");
      kgen_expr(g, T_UINT8, depth + 1), kgen_put(g, " & 31u))");
      break;
    case 7:
      kgen_call(g, two[kgen_take(g, 5)], T_UINT8, 2, depth);
      break;
    case 8:
      if (kgen_take(g, 2))
        kgen_call(g, "select", T_UINT8, 3, depth);
      else
        kgen_call(g, "popcount", T_UINT8, 1, depth);
      break;
    case 9:
      kgen_put(g, "as_uint8("), kgen_expr(g, T_UINT8, depth + 1),
          kgen_put(g, kgen_take(g, 2) ? " < " : " != ");
      kgen_expr(g, T_UINT8, depth + 1), kgen_put(g, ")");
      break;
    case 10:
      kgen_put(g, "("), kgen_expr(g, T_UINT8, depth + 1),
          kgen_put(g, ").%s", swizzles[kgen_take(g, 4)]);
      break;
    default:
      kgen_ordered_clamp(g, T_UINT8, depth);
      break;
  }
}

void kgen_float_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "/"};
  static const char *const one[] = {"sqrt(fabs", "sin(",     "cos(",  "floor(",
                                    "exp(",      "log(fabs", "tanh(", "rint("};
  switch (kgen_take(g, 10)) {
    case 0:
    case 1:
      kgen_leaf(g, T_FLOAT);
      break;
    case 2:
      kgen_put(g, "(float)"), kgen_expr(g, T_UINT, depth + 1);
      break;
    case 3:
      kgen_put(g, "convert_float("), kgen_expr(g, T_INT, depth + 1), kgen_put(g, ")");
      break;
    case 4:
      kgen_binary(g, T_FLOAT, depth, ops[kgen_take(g, 4)]);
      break;
    case 5: {
      unsigned i = kgen_take(g, 8);
      kgen_put(g, "%s", one[i]);
      if (one[i][strlen(one[i]) - 1] != '(') kgen_put(g, "(");
      kgen_expr(g, T_FLOAT, depth + 1);
      kgen_put(g, one[i][strlen(one[i]) - 1] != '(' ? "))" : ")");
      break;
    }
    case 6:
      kgen_call(g, kgen_take(g, 2) ? "fma" : "mad", T_FLOAT, 3, depth);
      break;
    case 7:
      kgen_call(g, kgen_take(g, 2) ? "fmin" : "fmax", T_FLOAT, 2, depth);
      break;
    case 8:
      kgen_put(g, "("), kgen_condition(g, depth), kgen_put(g, " ? "),
          kgen_expr(g, T_FLOAT, depth + 1), kgen_put(g, " : ");
      kgen_expr(g, T_FLOAT, depth + 1), kgen_put(g, ")");
      break;
    default:
      kgen_put(g, "mix("), kgen_expr(g, T_FLOAT, depth + 1), kgen_put(g, ", "),
          kgen_expr(g, T_FLOAT, depth + 1), kgen_put(g, ", 0.25f)");
      break;
  }
}
