// SPDX-License-Identifier: Apache-2.0
/* The kernel generator's conditions and scalar integer expressions (uint,
 * int, ulong), and the choice of an expression by its type
 * (kernel_gen_internal.h). */
#include "kernel_gen_internal.h"

void kgen_condition(kgen *g, int depth) {
  if (depth >= MAX_DEPTH || kgen_exhausted(g)) { /* && and || nest here, not in kgen_expr() */
    kgen_put(g, "(");
    kgen_leaf(g, T_UINT);
    kgen_put(g, " < ");
    kgen_leaf(g, T_UINT);
    kgen_put(g, ")");
    return;
  }
  switch (kgen_take(g, 7)) {
    case 0:
      kgen_put(g, "("), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, " < "),
          kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 1:
      kgen_put(g, "("), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, " == "),
          kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 2:
      kgen_put(g, "("), kgen_expr(g, T_INT, depth + 1), kgen_put(g, " > "),
          kgen_expr(g, T_INT, depth + 1), kgen_put(g, ")");
      break;
    case 3:
      kgen_put(g, "(!("), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, "))");
      break;
    case 4:
      kgen_put(g, "("), kgen_condition(g, depth + 1), kgen_put(g, " && "),
          kgen_condition(g, depth + 1), kgen_put(g, ")");
      break;
    case 5:
      kgen_put(g, "("), kgen_condition(g, depth + 1), kgen_put(g, " || "),
          kgen_condition(g, depth + 1), kgen_put(g, ")");
      break;
    default:
      kgen_put(g, "("), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, " & 1u)");
      break;
  }
}

static void literal(kgen *g, kgen_type type) {
  static const char *const uints[] = {"0u",          "1u",          "7u",   "31u",
                                      "0xffffffffu", "0x80000000u", "1000u"};
  static const char *const ints[] = {"0",  "1", "(-1)", "(-7)", "2147483647", "(-2147483647 - 1)",
                                     "100"};
  static const char *const ulongs[] = {
      "0UL",          "1UL", "0xffffffffffffffffUL", "0x8000000000000000UL", "0x123456789abcdefUL",
      "4294967296UL", "3UL"};
  static const char *const floats[] = {"0.0f",  "1.0f",     "(-2.5f)", "0.125f",
                                       "1e10f", "(-3e-5f)", "3.75f"};
  unsigned i = kgen_take(g, 8);
  switch (type) {
    case T_UINT:
      if (i == 7)
        kgen_put(g, "%uu", (unsigned)kgen_take(g, 256) * 977u);
      else
        kgen_put(g, "%s", uints[i]);
      break;
    case T_INT:
      if (i == 7)
        kgen_put(g, "(%d)", (int)kgen_take(g, 256) - 128);
      else
        kgen_put(g, "%s", ints[i]);
      break;
    case T_ULONG:
      kgen_put(g, "%s", ulongs[i % 7]);
      break;
    case T_FLOAT:
      kgen_put(g, "%s", floats[i % 7]);
      break;
    case T_UINT4:
      kgen_put(g, "(uint4)(%uu, %uu, %uu, %uu)", i, i * 3u + 1u, 0xffffffffu - i, i << 20);
      break;
    case T_UCHAR4:
      kgen_put(g, "(uchar4)(%u, %u, 255, %u)", i, 128u + i, i * 37u);
      break;
    case T_UINT8:
      kgen_put(g, "(uint8)(%uu, 1u, %uu, 0xffffffffu, 7u, %uu, 0x80000000u, %uu)", i, i << 28,
               i * 999u, ~i);
      break;
    default:
      break;
  }
}

void kgen_leaf(kgen *g, kgen_type type) {
  const kgen_var *v = kgen_take(g, 4) ? kgen_pick_var(g, type, false) : NULL;
  if (v)
    kgen_put(g, "%s", v->name);
  else
    literal(g, type);
}

void kgen_binary(kgen *g, kgen_type type, int depth, const char *op) {
  kgen_put(g, "(");
  kgen_expr(g, type, depth + 1);
  kgen_put(g, " %s ", op);
  kgen_expr(g, type, depth + 1);
  kgen_put(g, ")");
}

void kgen_call(kgen *g, const char *name, kgen_type type, int args, int depth) {
  kgen_put(g, "%s(", name);
  for (int i = 0; i < args; i++) {
    if (i) kgen_put(g, ", ");
    kgen_expr(g, type, depth + 1);
  }
  kgen_put(g, ")");
}

/* clamp(x, min(a, b), max(a, b)): ordered bounds, as OpenCL requires. */
void kgen_ordered_clamp(kgen *g, kgen_type type, int depth) {
  kgen_put(g, "clamp(");
  kgen_expr(g, type, depth + 1);
  kgen_put(g, ", min(");
  size_t a = g->length;
  kgen_expr(g, type, depth + 1);
  size_t a_end = g->length;
  kgen_put(g, ", ");
  size_t b = g->length;
  kgen_expr(g, type, depth + 1);
  size_t b_end = g->length;
  kgen_put(g, "), max(");
  kgen_repeat(g, a, a_end);
  kgen_put(g, ", ");
  kgen_repeat(g, b, b_end);
  kgen_put(g, "))");
}

static void uint_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "&", "|", "^"};
  static const char *const two[] = {"min",     "max",  "mul_hi", "rotate",  "add_sat",
                                    "sub_sat", "hadd", "rhadd",  "abs_diff"};
  static const char *const narrow[] = {"uchar", "ushort", "char", "short"};
  static const char *const lanes[] = {"x", "y", "z", "w", "s0", "s3", "hi.y", "odd.x", "lo.x"};
  switch (kgen_take(g, 28)) {
    case 0:
    case 1:
    case 2:
      kgen_leaf(g, T_UINT);
      break;
    case 3:
      kgen_binary(g, T_UINT, depth, ops[kgen_take(g, 6)]);
      break;
    case 4:
      kgen_binary(g, T_UINT, depth, ops[kgen_take(g, 6)]);
      break;
    case 5:
      kgen_put(g, "(");
      kgen_expr(g, T_UINT, depth + 1);
      kgen_put(g, kgen_take(g, 2) ? " / (" : " %% (");
      kgen_expr(g, T_UINT, depth + 1);
      kgen_put(g, " | 1u))");
      break;
    case 6:
      kgen_put(g, "(");
      kgen_expr(g, T_UINT, depth + 1);
      kgen_put(g, kgen_take(g, 2) ? " << (" : " >> (");
      kgen_expr(g, T_UINT, depth + 1);
      kgen_put(g, " & 31u))");
      break;
    case 7:
      kgen_put(g, "(");
      kgen_condition(g, depth);
      kgen_put(g, " ? ");
      kgen_expr(g, T_UINT, depth + 1);
      kgen_put(g, " : ");
      kgen_expr(g, T_UINT, depth + 1);
      kgen_put(g, ")");
      break;
    case 8:
      kgen_call(g, two[kgen_take(g, 9)], T_UINT, 2, depth);
      break;
    case 9:
      kgen_call(g, kgen_take(g, 2) ? "popcount" : "clz", T_UINT, 1, depth);
      break;
    case 10:
      kgen_put(g, "abs(");
      kgen_expr(g, T_INT, depth + 1);
      kgen_put(g, g->options.no_abs_int_min ? " | 1)" : ")");
      break;
    case 11:
      kgen_ordered_clamp(g, T_UINT, depth);
      break;
    case 12:
      kgen_put(g, "(uint)"), kgen_expr(g, T_INT, depth + 1);
      break;
    case 13:
      kgen_put(g, "(uint)(%s)", narrow[kgen_take(g, 4)]), kgen_expr(g, T_UINT, depth + 1);
      break;
    case 14:
      kgen_put(g, "as_uint("), kgen_expr(g, T_INT, depth + 1), kgen_put(g, ")");
      break;
    case 15:
      if (!g->options.int64) {
        kgen_leaf(g, T_UINT);
      } else if (kgen_take(g, 2)) {
        kgen_put(g, "(uint)"), kgen_expr(g, T_ULONG, depth + 1);
      } else {
        kgen_put(g, "(uint)("), kgen_expr(g, T_ULONG, depth + 1), kgen_put(g, " >> 32)");
      }
      break;
    case 16:
      kgen_put(g, "("), kgen_expr(g, T_UINT4, depth + 1),
          kgen_put(g, ").%s", lanes[kgen_take(g, 9)]);
      break;
    case 17:
      if (g->have_value_helper && !g->in_helper)
        kgen_call(g, "helper", T_UINT, 2, depth);
      else
        kgen_leaf(g, T_UINT);
      break;
    case 18: {
      const kgen_var *a = kgen_pick_array(g);
      if (a)
        kgen_put(g, "%s[", a->name), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, " & 3u]");
      else
        kgen_leaf(g, T_UINT);
      break;
    }
    case 19:
      kgen_call(g, "select", T_UINT, 3, depth);
      break;
    case 20:
      if (g->options.floats) {
        kgen_put(g, kgen_take(g, 2) ? "convert_uint_sat(" : "as_uint(");
        kgen_expr(g, T_FLOAT, depth + 1);
        kgen_put(g, ")");
      } else {
        kgen_put(g, "(uint)"), kgen_condition(g, depth);
      }
      break;
    case 21:
      kgen_call(g, kgen_take(g, 2) ? "mad_sat" : "mad_hi", T_UINT, 3, depth);
      break;
    case 22:
      kgen_put(g, "upsample((ushort)"), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ", (ushort)");
      kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 24:
      kgen_put(g, "as_uint("), kgen_expr(g, T_UCHAR4, depth + 1), kgen_put(g, ")");
      break;
    case 25:
      kgen_put(g, "(uint)("), kgen_expr(g, T_UCHAR4, depth + 1),
          kgen_put(g, ").%s", kgen_take(g, 2) ? "x" : "s2");
      break;
    case 26:
      kgen_put(g, "("), kgen_expr(g, T_UINT8, depth + 1),
          kgen_put(g, ").%s", kgen_take(g, 2) ? "s7" : "s4");
      break;
    default:
      kgen_put(g, "(~"), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
  }
}

static void int_expr(kgen *g, int depth) {
  static const char *const two[] = {"min",     "max",  "mul_hi", "add_sat",
                                    "sub_sat", "hadd", "rhadd",  "rotate"};
  static const char *const ops[] = {"&", "|", "^"};
  switch (kgen_take(g, 14)) {
    case 0:
    case 1:
      kgen_leaf(g, T_INT);
      break;
    case 2:
      kgen_put(g, "(int)"), kgen_expr(g, T_UINT, depth + 1);
      break;
    case 3:
      kgen_put(g, "(");
      kgen_expr(g, T_INT, depth + 1);
      kgen_put(g, kgen_take(g, 2) ? " / ((" : " %% ((");
      kgen_expr(g, T_INT, depth + 1);
      kgen_put(g, " & 0x7fff) | 1))"); /* positive: never 0 or -1 */
      break;
    case 4:
      kgen_put(g, "("), kgen_expr(g, T_INT, depth + 1), kgen_put(g, " >> ("),
          kgen_expr(g, T_UINT, depth + 1), kgen_put(g, " & 31u))");
      break;
    case 5:
      kgen_call(g, two[kgen_take(g, 8)], T_INT, 2, depth);
      break;
    case 6:
      kgen_ordered_clamp(g, T_INT, depth);
      break;
    case 7:
      kgen_put(g, "("), kgen_condition(g, depth), kgen_put(g, " ? "),
          kgen_expr(g, T_INT, depth + 1), kgen_put(g, " : ");
      kgen_expr(g, T_INT, depth + 1), kgen_put(g, ")");
      break;
    case 8:
      kgen_binary(g, T_INT, depth, ops[kgen_take(g, 3)]);
      break;
    case 9:
      kgen_put(g, kgen_take(g, 2) ? "(int)(char)" : "(int)(short)"),
          kgen_expr(g, T_UINT, depth + 1);
      break;
    case 10:
      if (g->options.int64)
        kgen_put(g, "convert_int_sat("), kgen_expr(g, T_ULONG, depth + 1), kgen_put(g, ")");
      else
        kgen_leaf(g, T_INT);
      break;
    case 11:
      if (g->options.floats)
        kgen_put(g, "convert_int_sat_rte("), kgen_expr(g, T_FLOAT, depth + 1), kgen_put(g, ")");
      else
        kgen_put(g, "as_int("), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 12:
      kgen_call(g, kgen_take(g, 2) ? "clz" : "popcount", T_INT, 1, depth);
      break;
    default:
      kgen_put(g, "(~"), kgen_expr(g, T_INT, depth + 1), kgen_put(g, ")");
      break;
  }
}

static void ulong_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "*", "^", "-", "&", "|"};
  static const char *const two[] = {"min", "max", "mul_hi", "rotate", "add_sat", "hadd"};
  switch (kgen_take(g, 11)) {
    case 0:
    case 1:
      kgen_leaf(g, T_ULONG);
      break;
    case 2:
      kgen_put(g, "(ulong)"), kgen_expr(g, T_UINT, depth + 1);
      break;
    case 3:
      kgen_call(g, "upsample", T_UINT, 2, depth);
      break;
    case 4:
      kgen_binary(g, T_ULONG, depth, ops[kgen_take(g, 6)]);
      break;
    case 5:
      kgen_put(g, "("), kgen_expr(g, T_ULONG, depth + 1),
          kgen_put(g, kgen_take(g, 2) ? " >> (" : " << (");
      kgen_expr(g, T_UINT, depth + 1), kgen_put(g, " & 63u))");
      break;
    case 6:
      kgen_put(g, "("), kgen_expr(g, T_ULONG, depth + 1),
          kgen_put(g, kgen_take(g, 2) ? " / (" : " %% (");
      kgen_expr(g, T_ULONG, depth + 1), kgen_put(g, " | 1UL))");
      break;
    case 7:
      kgen_call(g, two[kgen_take(g, 6)], T_ULONG, 2, depth);
      break;
    case 8:
      kgen_put(g, "((ulong)"), kgen_expr(g, T_UINT, depth + 1), kgen_put(g, " * (ulong)");
      kgen_expr(g, T_UINT, depth + 1), kgen_put(g, ")");
      break;
    case 9:
      kgen_put(g, "("), kgen_condition(g, depth), kgen_put(g, " ? "),
          kgen_expr(g, T_ULONG, depth + 1), kgen_put(g, " : ");
      kgen_expr(g, T_ULONG, depth + 1), kgen_put(g, ")");
      break;
    default:
      kgen_put(g, "(ulong)popcount("), kgen_expr(g, T_ULONG, depth + 1), kgen_put(g, ")");
      break;
  }
}

void kgen_expr(kgen *g, kgen_type type, int depth) {
  if (!kgen_type_allowed(g, type)) type = T_UINT;
  if (depth >= MAX_DEPTH || kgen_exhausted(g) || g->length > (64u << 10)) {
    kgen_leaf(g, type);
    return;
  }
  switch (type) {
    case T_UINT:
      uint_expr(g, depth);
      break;
    case T_INT:
      int_expr(g, depth);
      break;
    case T_ULONG:
      ulong_expr(g, depth);
      break;
    case T_UINT4:
      kgen_uint4_expr(g, depth);
      break;
    case T_UCHAR4:
      kgen_uchar4_expr(g, depth);
      break;
    case T_UINT8:
      kgen_uint8_expr(g, depth);
      break;
    case T_FLOAT:
      kgen_float_expr(g, depth);
      break;
    default:
      kgen_leaf(g, T_UINT);
      break;
  }
}

kgen_type kgen_pick_type(kgen *g) {
  kgen_type type = (kgen_type)kgen_take(g, T_COUNT);
  return kgen_type_allowed(g, type) ? type : T_UINT;
}
