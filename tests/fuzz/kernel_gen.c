// SPDX-License-Identifier: Apache-2.0
/* The byte-driven generator of valid kernels: see kernel_gen.h. Each choice
 * takes one byte (0 once the bytes run out, which always picks the simplest
 * form, so every input ends in a finite kernel); nesting, statement counts
 * and loop trip counts are bounded. */
#include "kernel_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum kgen_type {
  T_UINT,
  T_INT,
  T_ULONG,
  T_UINT4,
  T_UCHAR4, /* 8-bit lanes: wrapping, saturating and bit-counting in 8 bits */
  T_UINT8,  /* wider than any GLSL vector */
  T_FLOAT,
  T_COUNT
} kgen_type;

static const char *const type_names[T_COUNT] = {"uint",   "int",   "ulong", "uint4",
                                                "uchar4", "uint8", "float"};

enum { MAX_VARS = 96, MAX_DEPTH = 4, MAX_STMT_DEPTH = 3, MAX_STATEMENTS = 48 };

typedef struct kgen_var {
  char name[16];
  kgen_type type;
  bool read_only; /* loop counters */
  bool array;     /* uint name[4] */
} kgen_var;

typedef struct kgen {
  const uint8_t *data;
  size_t size, pos;
  kgen_options options;
  char *text;
  size_t length, capacity;
  bool failed;
  kgen_var vars[MAX_VARS];
  int var_count, next_id, statements, indent;
  bool in_helper, have_value_helper, have_pointer_helper;
} kgen;

static unsigned take(kgen *g, unsigned n) {
  if (n <= 1) return 0;
  if (g->pos >= g->size) return 0;
  return g->data[g->pos++] % n;
}

static bool exhausted(const kgen *g) {
  return g->pos >= g->size;
}

static void put(kgen *g, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void put(kgen *g, const char *format, ...) {
  if (g->failed) return;
  for (;;) {
    va_list args;
    va_start(args, format);
    int n = vsnprintf(g->text + g->length, g->capacity - g->length, format, args);
    va_end(args);
    if (n < 0) {
      g->failed = true;
      return;
    }
    if (g->length + (size_t)n < g->capacity) {
      g->length += (size_t)n;
      return;
    }
    size_t capacity = (g->capacity + (size_t)n) * 2;
    char *grown = realloc(g->text, capacity);
    if (!grown) {
      g->failed = true;
      return;
    }
    g->text = grown;
    g->capacity = capacity;
  }
}

/* Appends text[start, end) again: an expression used twice (it has no side
 * effects). */
static void repeat(kgen *g, size_t start, size_t end) {
  if (g->failed) return;
  size_t n = end - start;
  char *copy = malloc(n + 1);
  if (!copy) {
    g->failed = true;
    return;
  }
  memcpy(copy, g->text + start, n);
  copy[n] = '\0';
  put(g, "%s", copy);
  free(copy);
}

static void indent(kgen *g) {
  put(g, "%*s", g->indent * 2, "");
}

/* A variable of `type` in scope (not an array), or NULL. */
static const kgen_var *pick_var(kgen *g, kgen_type type, bool writable) {
  int candidates[MAX_VARS], n = 0;
  for (int i = 0; i < g->var_count; i++) {
    const kgen_var *v = &g->vars[i];
    if (v->type == type && !v->array && (!writable || !v->read_only)) candidates[n++] = i;
  }
  return n ? &g->vars[candidates[take(g, (unsigned)n)]] : NULL;
}

static const kgen_var *pick_array(kgen *g) {
  int candidates[MAX_VARS], n = 0;
  for (int i = 0; i < g->var_count; i++)
    if (g->vars[i].array) candidates[n++] = i;
  return n ? &g->vars[candidates[take(g, (unsigned)n)]] : NULL;
}

static kgen_var *add_var(kgen *g, kgen_type type, const char *prefix) {
  if (g->var_count == MAX_VARS) return NULL;
  kgen_var *v = &g->vars[g->var_count++];
  snprintf(v->name, sizeof v->name, "%s%d", prefix, g->next_id++);
  v->type = type;
  v->read_only = false;
  v->array = false;
  return v;
}

static bool type_allowed(const kgen *g, kgen_type type) {
  if (type == T_ULONG) return g->options.int64;
  if (type == T_FLOAT) return g->options.floats;
  return true;
}

static void expr(kgen *g, kgen_type type, int depth);
static void leaf(kgen *g, kgen_type type);

static void condition(kgen *g, int depth) {
  if (depth >= MAX_DEPTH || exhausted(g)) { /* && and || nest here, not in expr() */
    put(g, "(");
    leaf(g, T_UINT);
    put(g, " < ");
    leaf(g, T_UINT);
    put(g, ")");
    return;
  }
  switch (take(g, 7)) {
    case 0:
      put(g, "("), expr(g, T_UINT, depth + 1), put(g, " < "), expr(g, T_UINT, depth + 1),
          put(g, ")");
      break;
    case 1:
      put(g, "("), expr(g, T_UINT, depth + 1), put(g, " == "), expr(g, T_UINT, depth + 1),
          put(g, ")");
      break;
    case 2:
      put(g, "("), expr(g, T_INT, depth + 1), put(g, " > "), expr(g, T_INT, depth + 1), put(g, ")");
      break;
    case 3:
      put(g, "(!("), expr(g, T_UINT, depth + 1), put(g, "))");
      break;
    case 4:
      put(g, "("), condition(g, depth + 1), put(g, " && "), condition(g, depth + 1), put(g, ")");
      break;
    case 5:
      put(g, "("), condition(g, depth + 1), put(g, " || "), condition(g, depth + 1), put(g, ")");
      break;
    default:
      put(g, "("), expr(g, T_UINT, depth + 1), put(g, " & 1u)");
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
  unsigned i = take(g, 8);
  switch (type) {
    case T_UINT:
      if (i == 7)
        put(g, "%uu", (unsigned)take(g, 256) * 977u);
      else
        put(g, "%s", uints[i]);
      break;
    case T_INT:
      if (i == 7)
        put(g, "(%d)", (int)take(g, 256) - 128);
      else
        put(g, "%s", ints[i]);
      break;
    case T_ULONG:
      put(g, "%s", ulongs[i % 7]);
      break;
    case T_FLOAT:
      put(g, "%s", floats[i % 7]);
      break;
    case T_UINT4:
      put(g, "(uint4)(%uu, %uu, %uu, %uu)", i, i * 3u + 1u, 0xffffffffu - i, i << 20);
      break;
    case T_UCHAR4:
      put(g, "(uchar4)(%u, %u, 255, %u)", i, 128u + i, i * 37u);
      break;
    case T_UINT8:
      put(g, "(uint8)(%uu, 1u, %uu, 0xffffffffu, 7u, %uu, 0x80000000u, %uu)", i, i << 28, i * 999u,
          ~i);
      break;
    default:
      break;
  }
}

static void leaf(kgen *g, kgen_type type) {
  const kgen_var *v = take(g, 4) ? pick_var(g, type, false) : NULL;
  if (v)
    put(g, "%s", v->name);
  else
    literal(g, type);
}

static void binary(kgen *g, kgen_type type, int depth, const char *op) {
  put(g, "(");
  expr(g, type, depth + 1);
  put(g, " %s ", op);
  expr(g, type, depth + 1);
  put(g, ")");
}

static void call(kgen *g, const char *name, kgen_type type, int args, int depth) {
  put(g, "%s(", name);
  for (int i = 0; i < args; i++) {
    if (i) put(g, ", ");
    expr(g, type, depth + 1);
  }
  put(g, ")");
}

/* clamp(x, min(a, b), max(a, b)): ordered bounds, as OpenCL requires. */
static void ordered_clamp(kgen *g, kgen_type type, int depth) {
  put(g, "clamp(");
  expr(g, type, depth + 1);
  put(g, ", min(");
  size_t a = g->length;
  expr(g, type, depth + 1);
  size_t a_end = g->length;
  put(g, ", ");
  size_t b = g->length;
  expr(g, type, depth + 1);
  size_t b_end = g->length;
  put(g, "), max(");
  repeat(g, a, a_end);
  put(g, ", ");
  repeat(g, b, b_end);
  put(g, "))");
}

static void uint_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "&", "|", "^"};
  static const char *const two[] = {"min",     "max",  "mul_hi", "rotate",  "add_sat",
                                    "sub_sat", "hadd", "rhadd",  "abs_diff"};
  static const char *const narrow[] = {"uchar", "ushort", "char", "short"};
  static const char *const lanes[] = {"x", "y", "z", "w", "s0", "s3", "hi.y", "odd.x", "lo.x"};
  switch (take(g, 28)) {
    case 0:
    case 1:
    case 2:
      leaf(g, T_UINT);
      break;
    case 3:
      binary(g, T_UINT, depth, ops[take(g, 6)]);
      break;
    case 4:
      binary(g, T_UINT, depth, ops[take(g, 6)]);
      break;
    case 5:
      put(g, "(");
      expr(g, T_UINT, depth + 1);
      put(g, take(g, 2) ? " / (" : " %% (");
      expr(g, T_UINT, depth + 1);
      put(g, " | 1u))");
      break;
    case 6:
      put(g, "(");
      expr(g, T_UINT, depth + 1);
      put(g, take(g, 2) ? " << (" : " >> (");
      expr(g, T_UINT, depth + 1);
      put(g, " & 31u))");
      break;
    case 7:
      put(g, "(");
      condition(g, depth);
      put(g, " ? ");
      expr(g, T_UINT, depth + 1);
      put(g, " : ");
      expr(g, T_UINT, depth + 1);
      put(g, ")");
      break;
    case 8:
      call(g, two[take(g, 9)], T_UINT, 2, depth);
      break;
    case 9:
      call(g, take(g, 2) ? "popcount" : "clz", T_UINT, 1, depth);
      break;
    case 10:
      put(g, "abs(");
      expr(g, T_INT, depth + 1);
      put(g, g->options.no_abs_int_min ? " | 1)" : ")");
      break;
    case 11:
      ordered_clamp(g, T_UINT, depth);
      break;
    case 12:
      put(g, "(uint)"), expr(g, T_INT, depth + 1);
      break;
    case 13:
      put(g, "(uint)(%s)", narrow[take(g, 4)]), expr(g, T_UINT, depth + 1);
      break;
    case 14:
      put(g, "as_uint("), expr(g, T_INT, depth + 1), put(g, ")");
      break;
    case 15:
      if (!g->options.int64) {
        leaf(g, T_UINT);
      } else if (take(g, 2)) {
        put(g, "(uint)"), expr(g, T_ULONG, depth + 1);
      } else {
        put(g, "(uint)("), expr(g, T_ULONG, depth + 1), put(g, " >> 32)");
      }
      break;
    case 16:
      put(g, "("), expr(g, T_UINT4, depth + 1), put(g, ").%s", lanes[take(g, 9)]);
      break;
    case 17:
      if (g->have_value_helper && !g->in_helper)
        call(g, "helper", T_UINT, 2, depth);
      else
        leaf(g, T_UINT);
      break;
    case 18: {
      const kgen_var *a = pick_array(g);
      if (a)
        put(g, "%s[", a->name), expr(g, T_UINT, depth + 1), put(g, " & 3u]");
      else
        leaf(g, T_UINT);
      break;
    }
    case 19:
      call(g, "select", T_UINT, 3, depth);
      break;
    case 20:
      if (g->options.floats) {
        put(g, take(g, 2) ? "convert_uint_sat(" : "as_uint(");
        expr(g, T_FLOAT, depth + 1);
        put(g, ")");
      } else {
        put(g, "(uint)"), condition(g, depth);
      }
      break;
    case 21:
      call(g, take(g, 2) ? "mad_sat" : "mad_hi", T_UINT, 3, depth);
      break;
    case 22:
      put(g, "upsample((ushort)"), expr(g, T_UINT, depth + 1), put(g, ", (ushort)");
      expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 24:
      put(g, "as_uint("), expr(g, T_UCHAR4, depth + 1), put(g, ")");
      break;
    case 25:
      put(g, "(uint)("), expr(g, T_UCHAR4, depth + 1), put(g, ").%s", take(g, 2) ? "x" : "s2");
      break;
    case 26:
      put(g, "("), expr(g, T_UINT8, depth + 1), put(g, ").%s", take(g, 2) ? "s7" : "s4");
      break;
    default:
      put(g, "(~"), expr(g, T_UINT, depth + 1), put(g, ")");
      break;
  }
}

static void int_expr(kgen *g, int depth) {
  static const char *const two[] = {"min",     "max",  "mul_hi", "add_sat",
                                    "sub_sat", "hadd", "rhadd",  "rotate"};
  static const char *const ops[] = {"&", "|", "^"};
  switch (take(g, 14)) {
    case 0:
    case 1:
      leaf(g, T_INT);
      break;
    case 2:
      put(g, "(int)"), expr(g, T_UINT, depth + 1);
      break;
    case 3:
      put(g, "(");
      expr(g, T_INT, depth + 1);
      put(g, take(g, 2) ? " / ((" : " %% ((");
      expr(g, T_INT, depth + 1);
      put(g, " & 0x7fff) | 1))"); /* positive: never 0 or -1 */
      break;
    case 4:
      put(g, "("), expr(g, T_INT, depth + 1), put(g, " >> ("), expr(g, T_UINT, depth + 1),
          put(g, " & 31u))");
      break;
    case 5:
      call(g, two[take(g, 8)], T_INT, 2, depth);
      break;
    case 6:
      ordered_clamp(g, T_INT, depth);
      break;
    case 7:
      put(g, "("), condition(g, depth), put(g, " ? "), expr(g, T_INT, depth + 1), put(g, " : ");
      expr(g, T_INT, depth + 1), put(g, ")");
      break;
    case 8:
      binary(g, T_INT, depth, ops[take(g, 3)]);
      break;
    case 9:
      put(g, take(g, 2) ? "(int)(char)" : "(int)(short)"), expr(g, T_UINT, depth + 1);
      break;
    case 10:
      if (g->options.int64)
        put(g, "convert_int_sat("), expr(g, T_ULONG, depth + 1), put(g, ")");
      else
        leaf(g, T_INT);
      break;
    case 11:
      if (g->options.floats)
        put(g, "convert_int_sat_rte("), expr(g, T_FLOAT, depth + 1), put(g, ")");
      else
        put(g, "as_int("), expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 12:
      call(g, take(g, 2) ? "clz" : "popcount", T_INT, 1, depth);
      break;
    default:
      put(g, "(~"), expr(g, T_INT, depth + 1), put(g, ")");
      break;
  }
}

static void ulong_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "*", "^", "-", "&", "|"};
  static const char *const two[] = {"min", "max", "mul_hi", "rotate", "add_sat", "hadd"};
  switch (take(g, 11)) {
    case 0:
    case 1:
      leaf(g, T_ULONG);
      break;
    case 2:
      put(g, "(ulong)"), expr(g, T_UINT, depth + 1);
      break;
    case 3:
      call(g, "upsample", T_UINT, 2, depth);
      break;
    case 4:
      binary(g, T_ULONG, depth, ops[take(g, 6)]);
      break;
    case 5:
      put(g, "("), expr(g, T_ULONG, depth + 1), put(g, take(g, 2) ? " >> (" : " << (");
      expr(g, T_UINT, depth + 1), put(g, " & 63u))");
      break;
    case 6:
      put(g, "("), expr(g, T_ULONG, depth + 1), put(g, take(g, 2) ? " / (" : " %% (");
      expr(g, T_ULONG, depth + 1), put(g, " | 1UL))");
      break;
    case 7:
      call(g, two[take(g, 6)], T_ULONG, 2, depth);
      break;
    case 8:
      put(g, "((ulong)"), expr(g, T_UINT, depth + 1), put(g, " * (ulong)");
      expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 9:
      put(g, "("), condition(g, depth), put(g, " ? "), expr(g, T_ULONG, depth + 1), put(g, " : ");
      expr(g, T_ULONG, depth + 1), put(g, ")");
      break;
    default:
      put(g, "(ulong)popcount("), expr(g, T_ULONG, depth + 1), put(g, ")");
      break;
  }
}

static void uint4_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "&", "|", "^"};
  static const char *const swizzles[] = {"wzyx", "yxwz", "xxyy", "s3210", "zwxy", "xyzw"};
  static const char *const two[] = {"min",     "max",  "rotate",  "add_sat",
                                    "sub_sat", "hadd", "abs_diff"};
  switch (take(g, 19)) {
    case 0:
    case 1:
      leaf(g, T_UINT4);
      break;
    case 2:
      put(g, "(uint4)(");
      for (int i = 0; i < 4; i++) {
        if (i) put(g, ", ");
        expr(g, T_UINT, depth + 1);
      }
      put(g, ")");
      break;
    case 3:
      put(g, "(uint4)("), expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 4:
      binary(g, T_UINT4, depth, ops[take(g, 6)]);
      break;
    case 5:
      put(g, "("), expr(g, T_UINT4, depth + 1), put(g, " %s ", ops[take(g, 6)]),
          expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 6:
      put(g, "("), expr(g, T_UINT4, depth + 1), put(g, take(g, 2) ? " << (" : " >> (");
      expr(g, T_UINT4, depth + 1), put(g, " & 31u))");
      break;
    case 7:
      put(g, "("), expr(g, T_UINT4, depth + 1), put(g, take(g, 2) ? " / (" : " %% (");
      expr(g, T_UINT4, depth + 1), put(g, " | 1u))");
      break;
    case 8:
      put(g, "("), expr(g, T_UINT4, depth + 1), put(g, ").%s", swizzles[take(g, 6)]);
      break;
    case 9:
      put(g, "(uint4)(("), expr(g, T_UINT4, depth + 1), put(g, ").xy, ("),
          expr(g, T_UINT4, depth + 1);
      put(g, ").%s)", take(g, 2) ? "zw" : "hi");
      break;
    case 10:
      call(g, two[take(g, 7)], T_UINT4, 2, depth);
      break;
    case 11:
      call(g, take(g, 2) ? "popcount" : "clz", T_UINT4, 1, depth);
      break;
    case 12:
      call(g, "select", T_UINT4, 3, depth);
      break;
    case 13:
      put(g, "as_uint4("), expr(g, T_UINT4, depth + 1), put(g, take(g, 2) ? " < " : " == ");
      expr(g, T_UINT4, depth + 1), put(g, ")");
      break;
    case 14:
      put(g, "(("), expr(g, T_UINT4, depth + 1), put(g, " > "), expr(g, T_UINT4, depth + 1);
      put(g, ") ? "), expr(g, T_UINT4, depth + 1), put(g, " : "), expr(g, T_UINT4, depth + 1),
          put(g, ")");
      break;
    case 16:
      put(g, "convert_uint4("), expr(g, T_UCHAR4, depth + 1), put(g, ")");
      break;
    case 17: {
      static const char *const halves[] = {"lo", "hi", "even", "odd"};
      put(g, "("), expr(g, T_UINT8, depth + 1), put(g, ").%s", halves[take(g, 4)]);
      break;
    }
    default:
      ordered_clamp(g, T_UINT4, depth);
      break;
  }
}

static void uchar4_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "&", "|", "^"};
  static const char *const two[] = {"min",     "max",  "mul_hi", "rotate",  "add_sat",
                                    "sub_sat", "hadd", "rhadd",  "abs_diff"};
  static const char *const swizzles[] = {"wzyx", "xxyy", "s3120", "zwxy"};
  switch (take(g, 14)) {
    case 0:
    case 1:
      leaf(g, T_UCHAR4);
      break;
    case 2:
      put(g, "convert_uchar4("), expr(g, T_UINT4, depth + 1), put(g, ")");
      break;
    case 3:
      put(g, "(uchar4)((uchar)"), expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 4:
      binary(g, T_UCHAR4, depth, ops[take(g, 6)]);
      break;
    case 5:
      put(g, "("), expr(g, T_UCHAR4, depth + 1), put(g, " %s (uchar)", ops[take(g, 6)]);
      expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 6:
      put(g, "("), expr(g, T_UCHAR4, depth + 1), put(g, take(g, 2) ? " << (" : " >> (");
      expr(g, T_UCHAR4, depth + 1), put(g, " & (uchar4)(7)))");
      break;
    case 7:
      put(g, "("), expr(g, T_UCHAR4, depth + 1), put(g, take(g, 2) ? " / (" : " %% (");
      expr(g, T_UCHAR4, depth + 1), put(g, " | (uchar4)(1)))");
      break;
    case 8:
      call(g, two[take(g, 9)], T_UCHAR4, 2, depth);
      break;
    case 9:
      call(g, take(g, 2) ? "popcount" : "clz", T_UCHAR4, 1, depth);
      break;
    case 10:
      call(g, take(g, 2) ? "select" : (take(g, 2) ? "mad_sat" : "mad_hi"), T_UCHAR4, 3, depth);
      break;
    case 11:
      put(g, "as_uchar4("), expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 12:
      put(g, "("), expr(g, T_UCHAR4, depth + 1), put(g, ").%s", swizzles[take(g, 4)]);
      break;
    default:
      ordered_clamp(g, T_UCHAR4, depth);
      break;
  }
}

static void uint8_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "&", "|", "^"};
  static const char *const two[] = {"min", "max", "rotate", "add_sat", "hadd"};
  static const char *const swizzles[] = {"s76543210", "s01234567", "s00112233", "s13570246"};
  switch (take(g, 12)) {
    case 0:
    case 1:
      leaf(g, T_UINT8);
      break;
    case 2:
      put(g, "(uint8)("), expr(g, T_UINT4, depth + 1), put(g, ", "), expr(g, T_UINT4, depth + 1);
      put(g, ")");
      break;
    case 3:
      put(g, "(uint8)("), expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 4:
      binary(g, T_UINT8, depth, ops[take(g, 6)]);
      break;
    case 5:
      put(g, "("), expr(g, T_UINT8, depth + 1), put(g, " %s ", ops[take(g, 6)]);
      expr(g, T_UINT, depth + 1), put(g, ")");
      break;
    case 6:
      put(g, "("), expr(g, T_UINT8, depth + 1), put(g, take(g, 2) ? " << (" : " >> (");
      expr(g, T_UINT8, depth + 1), put(g, " & 31u))");
      break;
    case 7:
      call(g, two[take(g, 5)], T_UINT8, 2, depth);
      break;
    case 8:
      if (take(g, 2))
        call(g, "select", T_UINT8, 3, depth);
      else
        call(g, "popcount", T_UINT8, 1, depth);
      break;
    case 9:
      put(g, "as_uint8("), expr(g, T_UINT8, depth + 1), put(g, take(g, 2) ? " < " : " != ");
      expr(g, T_UINT8, depth + 1), put(g, ")");
      break;
    case 10:
      put(g, "("), expr(g, T_UINT8, depth + 1), put(g, ").%s", swizzles[take(g, 4)]);
      break;
    default:
      ordered_clamp(g, T_UINT8, depth);
      break;
  }
}

static void float_expr(kgen *g, int depth) {
  static const char *const ops[] = {"+", "-", "*", "/"};
  static const char *const one[] = {"sqrt(fabs", "sin(",     "cos(",  "floor(",
                                    "exp(",      "log(fabs", "tanh(", "rint("};
  switch (take(g, 10)) {
    case 0:
    case 1:
      leaf(g, T_FLOAT);
      break;
    case 2:
      put(g, "(float)"), expr(g, T_UINT, depth + 1);
      break;
    case 3:
      put(g, "convert_float("), expr(g, T_INT, depth + 1), put(g, ")");
      break;
    case 4:
      binary(g, T_FLOAT, depth, ops[take(g, 4)]);
      break;
    case 5: {
      unsigned i = take(g, 8);
      put(g, "%s", one[i]);
      if (one[i][strlen(one[i]) - 1] != '(') put(g, "(");
      expr(g, T_FLOAT, depth + 1);
      put(g, one[i][strlen(one[i]) - 1] != '(' ? "))" : ")");
      break;
    }
    case 6:
      call(g, take(g, 2) ? "fma" : "mad", T_FLOAT, 3, depth);
      break;
    case 7:
      call(g, take(g, 2) ? "fmin" : "fmax", T_FLOAT, 2, depth);
      break;
    case 8:
      put(g, "("), condition(g, depth), put(g, " ? "), expr(g, T_FLOAT, depth + 1), put(g, " : ");
      expr(g, T_FLOAT, depth + 1), put(g, ")");
      break;
    default:
      put(g, "mix("), expr(g, T_FLOAT, depth + 1), put(g, ", "), expr(g, T_FLOAT, depth + 1),
          put(g, ", 0.25f)");
      break;
  }
}

static void expr(kgen *g, kgen_type type, int depth) {
  if (!type_allowed(g, type)) type = T_UINT;
  if (depth >= MAX_DEPTH || exhausted(g) || g->length > (64u << 10)) {
    leaf(g, type);
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
      uint4_expr(g, depth);
      break;
    case T_UCHAR4:
      uchar4_expr(g, depth);
      break;
    case T_UINT8:
      uint8_expr(g, depth);
      break;
    case T_FLOAT:
      float_expr(g, depth);
      break;
    default:
      leaf(g, T_UINT);
      break;
  }
}

static kgen_type pick_type(kgen *g) {
  kgen_type type = (kgen_type)take(g, T_COUNT);
  return type_allowed(g, type) ? type : T_UINT;
}

static void block(kgen *g, int depth, bool in_loop);
static void statement(kgen *g, int depth, bool in_loop, bool top);

/* A uniform loop with barriers (top level only): each round stages a value
 * in local memory between two barriers and reads a neighbour's, reads
 * through a __global pointer that advances by the group size each round,
 * advances a group-level counter, may `continue` early on a uniform
 * condition (after the second barrier, so that no round's writes can race a
 * read), then runs private statements. At most 3 rounds: the pointer stays
 * inside in[]. */
static void barrier_loop(kgen *g) {
  const kgen_var *v = pick_var(g, T_UINT, true);
  if (!v) return;
  int id = g->next_id++;
  unsigned rounds = take(g, 3) + 1, step = take(g, 5) + 1, skip = take(g, 4);
  bool do_while = take(g, 2);
  /* the for init: one declarator, or a second induction variable of some
   * type stepped by a comma expression (issue 34) */
  static const char *const induction[] = {"uint", "int", "ulong"};
  unsigned shape = take(g, 4), second_start = take(g, 50), second_step = take(g, 7) + 1;
  const char *itype = induction[take(g, 3)];
  bool carried = take(g, 2); /* a declarator list that lives across a barrier */
  indent(g), put(g, "{\n");
  g->indent++;
  indent(g), put(g, "const uint n%d = get_local_size(0);\n", id);
  indent(g), put(g, "__global const uint *p%d = in + lid;\n", id);
  indent(g), put(g, "uint t%d = 0u, e%d;\n", id, id);
  indent(g), put(g, "barrier(CLK_LOCAL_MEM_FENCE); /* earlier reads of tile[] */\n");
  if (do_while) {
    indent(g), put(g, "do {\n");
  } else if (shape == 0) {
    indent(g), put(g, "for (uint u%d = 0u; u%d < %uu; u%d++) {\n", id, id, rounds, id);
  } else {
    indent(g), put(g, "for (%s u%d = 0, w%d = (%s)(get_group_id(0) * 3u + %uu); u%d < %u; ", itype,
                   id, id, itype, second_start, id, rounds);
    put(g, "u%d++, w%d += %u) {\n", id, id, second_step);
  }
  g->indent++;
  if (carried) {
    indent(g), put(g, "uint a%d = ", id), expr(g, T_UINT, 0), put(g, ", b%d;\n", id);
    indent(g), put(g, "b%d = a%d * 3u + t%d;\n", id, id, id);
  }
  indent(g), put(g, "tile[lid] = "), expr(g, T_UINT, 0), put(g, ";\n");
  indent(g), put(g, "barrier(CLK_LOCAL_MEM_FENCE);\n");
  if (carried) indent(g), put(g, "%s += a%d ^ b%d;\n", v->name, id, id);
  if (!do_while && shape != 0) indent(g), put(g, "%s ^= (uint)w%d;\n", v->name, id);
  indent(g), put(g, "%s += tile[(lid + %uu + t%d) %% n%d] ^ *p%d;\n", v->name,
                 take(g, KGEN_LOCAL_SIZE), id, id, id);
  indent(g), put(g, "p%d += n%d;\n", id, id);
  indent(g), put(g, "t%d += %uu;\n", id, step);
  indent(g), put(g, "barrier(CLK_LOCAL_MEM_FENCE);\n");
  if (skip < 3) indent(g), put(g, "if (t%d == %uu) continue;\n", id, step * (skip + 1));
  int saved = g->var_count;
  for (unsigned i = take(g, 3); i > 0 && g->statements < MAX_STATEMENTS; i--)
    statement(g, 1, false, false); /* no break/continue of this loop: they may diverge */
  g->var_count = saved;
  g->indent--;
  if (do_while)
    indent(g), put(g, "} while (t%d < %uu);\n", id, step * rounds);
  else
    indent(g), put(g, "}\n");
  indent(g), put(g, "e%d = t%d * 5u;\n", id, id);
  indent(g), put(g, "%s ^= e%d;\n", v->name, id);
  g->indent--;
  indent(g), put(g, "}\n");
}

static void statement(kgen *g, int depth, bool in_loop, bool top) {
  g->statements++;
  unsigned choice = take(g, top ? (g->options.barriers ? 16 : 13) : 10);
  if (choice >= 13) {
    barrier_loop(g);
    return;
  }
  if (depth >= MAX_STMT_DEPTH && choice >= 3 && choice <= 7) choice = 0;
  switch (choice) {
    case 0: { /* a declaration */
      kgen_type type = pick_type(g);
      int id = g->next_id++;
      indent(g);
      put(g, "%s v%d = ", type_names[type], id);
      expr(g, type, 0);
      put(g, ";\n");
      kgen_var *v = add_var(g, type, "v");
      if (v) snprintf(v->name, sizeof v->name, "v%d", id);
      break;
    }
    case 1: { /* an assignment */
      kgen_type type = pick_type(g);
      const kgen_var *v = pick_var(g, type, true);
      if (!v) break;
      static const char *const wrapping[] = {"=", "+=", "^=", "*=", "|=", "-="};
      static const char *const bitwise[] = {"=", "^=", "|=", "&="};
      static const char *const arithmetic[] = {"=", "+=", "*=", "-="};
      const char *op = type == T_INT     ? bitwise[take(g, 4)]
                       : type == T_FLOAT ? arithmetic[take(g, 4)]
                                         : wrapping[take(g, 6)];
      indent(g);
      put(g, "%s %s ", v->name, op);
      expr(g, type, 0);
      put(g, ";\n");
      break;
    }
    case 2: { /* a vector component */
      const kgen_var *wide = take(g, 3) == 0 ? pick_var(g, T_UINT8, true) : NULL;
      if (wide) {
        indent(g);
        if (take(g, 2)) {
          put(g, "%s.s%u = ", wide->name, take(g, 8));
          expr(g, T_UINT, 0);
        } else {
          put(g, "%s.%s = ", wide->name, take(g, 2) ? "hi" : "even");
          expr(g, T_UINT4, 0);
        }
        put(g, ";\n");
        break;
      }
      const kgen_var *v = pick_var(g, T_UINT4, true);
      if (!v) break;
      indent(g);
      if (take(g, 2)) {
        put(g, "%s.%s = ", v->name, (const char *[]){"x", "y", "z", "w"}[take(g, 4)]);
        expr(g, T_UINT, 0);
      } else {
        put(g, "%s.%s = (uint2)(", v->name, take(g, 2) ? "zw" : "lo");
        expr(g, T_UINT, 1);
        put(g, ", ");
        expr(g, T_UINT, 1);
        put(g, ")");
      }
      put(g, ";\n");
      break;
    }
    case 3: /* if / else */
      indent(g), put(g, "if "), condition(g, 0), put(g, " ");
      block(g, depth + 1, in_loop);
      if (take(g, 2)) {
        indent(g), put(g, "else ");
        block(g, depth + 1, in_loop);
      }
      break;
    case 4: { /* for */
      indent(g);
      int id = g->next_id++;
      put(g, "for (uint k%d = 0u; k%d < %uu; k%d++) ", id, id, take(g, 5) + 1, id);
      kgen_var *k = g->var_count < MAX_VARS ? &g->vars[g->var_count++] : NULL;
      if (k) {
        snprintf(k->name, sizeof k->name, "k%d", id);
        k->type = T_UINT, k->read_only = true, k->array = false;
      }
      int saved = g->var_count - (k ? 1 : 0);
      block(g, depth + 1, true);
      g->var_count = saved;
      break;
    }
    case 5: { /* while, counting down first */
      int id = g->next_id++;
      indent(g), put(g, "{\n");
      g->indent++;
      indent(g), put(g, "uint w%d = %uu;\n", id, take(g, 4) + 1);
      indent(g), put(g, "while (w%d > 0u) {\n", id);
      g->indent++;
      indent(g), put(g, "w%d--;\n", id);
      int saved = g->var_count;
      kgen_var *w = add_var(g, T_UINT, "w");
      if (w) snprintf(w->name, sizeof w->name, "w%d", id), w->read_only = true;
      for (unsigned i = take(g, 3) + 1; i > 0 && g->statements < MAX_STATEMENTS; i--)
        statement(g, depth + 1, true, false);
      g->var_count = saved;
      g->indent--;
      indent(g), put(g, "}\n");
      g->indent--;
      indent(g), put(g, "}\n");
      break;
    }
    case 6: { /* do / while, counting up first */
      int id = g->next_id++;
      indent(g), put(g, "{\n");
      g->indent++;
      indent(g), put(g, "uint d%d = 0u;\n", id);
      indent(g), put(g, "do {\n");
      g->indent++;
      indent(g), put(g, "d%d++;\n", id);
      int saved = g->var_count;
      for (unsigned i = take(g, 3) + 1; i > 0 && g->statements < MAX_STATEMENTS; i--)
        statement(g, depth + 1, true, false);
      g->var_count = saved;
      g->indent--;
      indent(g), put(g, "} while (d%d < %uu);\n", id, take(g, 4) + 1);
      g->indent--;
      indent(g), put(g, "}\n");
      break;
    }
    case 7: { /* switch, with a fall-through */
      indent(g), put(g, "switch ("), expr(g, T_UINT, 1), put(g, " & 3u) {\n");
      static const char *const labels[] = {"case 0u:", "case 1u:", "case 2u:", "default:"};
      for (int c = 0; c < 4; c++) {
        indent(g), put(g, "%s {\n", labels[c]);
        g->indent++;
        int saved = g->var_count;
        for (unsigned i = take(g, 2) + 1; i > 0 && g->statements < MAX_STATEMENTS; i--)
          statement(g, depth + 1, in_loop, false);
        g->var_count = saved;
        if (c != 1 || take(g, 2)) indent(g), put(g, "break;\n");
        g->indent--;
        indent(g), put(g, "}\n");
      }
      indent(g), put(g, "}\n");
      break;
    }
    case 8: /* break / continue */
      if (in_loop) {
        indent(g), put(g, "if "), condition(g, 1),
            put(g, " %s;\n", take(g, 2) ? "break" : "continue");
      }
      break;
    case 9: { /* an array element */
      const kgen_var *a = pick_array(g);
      if (!a) break;
      indent(g), put(g, "%s[", a->name), expr(g, T_UINT, 1),
          put(g, " & 3u] %s ", take(g, 2) ? "=" : "^=");
      expr(g, T_UINT, 0), put(g, ";\n");
      break;
    }
    case 10: { /* local memory between barriers (top level: uniform control flow) */
      const kgen_var *v = pick_var(g, T_UINT, true);
      if (!v) break;
      indent(g), put(g, "barrier(CLK_LOCAL_MEM_FENCE);\n");
      indent(g), put(g, "tile[lid] = "), expr(g, T_UINT, 0), put(g, ";\n");
      indent(g), put(g, "barrier(CLK_LOCAL_MEM_FENCE);\n");
      unsigned offset = take(g, KGEN_LOCAL_SIZE);
      if (g->have_pointer_helper && take(g, 2))
        indent(g), put(g, "%s ^= read_tile(tile, lid + %uu);\n", v->name, offset);
      else
        indent(g), put(g, "%s += tile[(lid + %uu) %% %uu];\n", v->name, offset, KGEN_LOCAL_SIZE);
      break;
    }
    case 11: { /* atomics: each shared word gets one kind of update only, so that the
                  result does not depend on the order the work-items run in */
      static const char *const ops[] = {"atomic_add", "atomic_xor", "atomic_or",
                                        "atomic_and", "atomic_min", "atomic_max"};
      indent(g);
      unsigned op = take(g, 6);
      if (g->have_pointer_helper && take(g, 2)) {
        put(g, "bump(acc, "), expr(g, T_UINT, 1), put(g, ");\n");
      } else if (op == 0) {
        put(g, "atomic_add(&acc["), expr(g, T_UINT, 1), put(g, " & 1u], ");
        expr(g, T_UINT, 1), put(g, ");\n");
      } else {
        put(g, "%s(&acc[%u], ", ops[op], op + 1), expr(g, T_UINT, 1), put(g, ");\n");
      }
      break;
    }
    default: { /* a private array */
      int id = g->next_id++;
      indent(g), put(g, "uint a%d[4] = {", id);
      for (int i = 0; i < 4; i++) {
        if (i) put(g, ", ");
        expr(g, T_UINT, 1);
      }
      put(g, "};\n");
      kgen_var *a = add_var(g, T_UINT, "a");
      if (a) snprintf(a->name, sizeof a->name, "a%d", id), a->array = true;
      break;
    }
  }
}

static void block(kgen *g, int depth, bool in_loop) {
  put(g, "{\n");
  g->indent++;
  int saved = g->var_count;
  for (unsigned i = take(g, 3) + 1; i > 0 && g->statements < MAX_STATEMENTS; i--)
    statement(g, depth, in_loop, false);
  g->var_count = saved;
  g->indent--;
  indent(g);
  put(g, "}\n");
}

static void helpers(kgen *g) {
  if (take(g, 2)) {
    g->have_value_helper = true;
    g->in_helper = true;
    put(g, "uint helper(uint a, uint b) {\n");
    g->indent = 1;
    add_var(g, T_UINT, "p"), snprintf(g->vars[g->var_count - 1].name, 16, "a");
    add_var(g, T_UINT, "p"), snprintf(g->vars[g->var_count - 1].name, 16, "b");
    for (unsigned i = take(g, 3); i > 0; i--) {
      indent(g);
      put(g, "a = ");
      expr(g, T_UINT, 0);
      put(g, ";\n");
    }
    indent(g);
    put(g, "return ");
    expr(g, T_UINT, 0);
    put(g, ";\n}\n\n");
    g->var_count = 0;
    g->indent = 0;
    g->in_helper = false;
  }
  if (take(g, 2)) {
    g->have_pointer_helper = true;
    put(g, "uint read_tile(__local const uint *t, uint i) {\n  return t[i %% %uu];\n}\n\n",
        KGEN_LOCAL_SIZE);
    put(g, "void bump(__global uint *acc, uint x) {\n  atomic_add(&acc[x & 1u], x);\n}\n\n");
  }
}

char *kgen_generate(const uint8_t *data, size_t size, const kgen_options *options) {
  kgen g;
  memset(&g, 0, sizeof g);
  g.data = data;
  g.size = size;
  g.options = *options;
  g.capacity = 4096;
  g.text = malloc(g.capacity);
  if (!g.text) return NULL;
  g.text[0] = '\0';
  helpers(&g);
  put(&g,
      "__kernel __attribute__((reqd_work_group_size(%d, 1, 1)))\n"
      "void fuzz(__global const uint *in, __global uint *out, __global uint *acc) {\n"
      "  __local uint tile[%d];\n"
      "  uint gid = (uint)get_global_id(0);\n"
      "  uint lid = (uint)get_local_id(0);\n"
      "  uint x = in[gid];\n"
      "  uint y = in[(gid + 1u) %% %uu];\n"
      "  int i = (int)in[(gid * 7u) %% %uu];\n"
      "  uint4 v = (uint4)(x, y, gid, lid);\n",
      KGEN_LOCAL_SIZE, KGEN_LOCAL_SIZE, KGEN_GLOBAL_SIZE, KGEN_GLOBAL_SIZE);
  static const struct {
    const char *name;
    kgen_type type;
  } inputs[] = {{"gid", T_UINT}, {"lid", T_UINT}, {"x", T_UINT},
                {"y", T_UINT},   {"i", T_INT},    {"v", T_UINT4}};
  for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
    kgen_var *var = &g.vars[g.var_count++];
    snprintf(var->name, sizeof var->name, "%s", inputs[k].name);
    var->type = inputs[k].type;
    var->read_only = k < 2; /* gid and lid index memory */
    var->array = false;
  }
  if (g.options.int64)
    put(&g, "  ulong l = upsample(x, y);\n"), add_var(&g, T_ULONG, "l"),
        snprintf(g.vars[g.var_count - 1].name, 16, "l");
  if (g.options.floats)
    put(&g, "  float f = (float)x * 0.5f;\n"), add_var(&g, T_FLOAT, "f"),
        snprintf(g.vars[g.var_count - 1].name, 16, "f");
  put(&g, "  uchar4 c = as_uchar4(x ^ y);\n  uint8 w = (uint8)(v, v.wzyx + y);\n");
  kgen_var *c = add_var(&g, T_UCHAR4, "c"), *w = add_var(&g, T_UINT8, "w");
  snprintf(c->name, sizeof c->name, "c");
  snprintf(w->name, sizeof w->name, "w");
  g.indent = 1;
  while (!exhausted(&g) && g.statements < MAX_STATEMENTS && g.length < (48u << 10))
    statement(&g, 0, false, true);
  /* every top-level value goes into the result */
  put(&g, "  uint result = 0u;\n");
  for (int k = 0; k < g.var_count; k++) {
    const kgen_var *var = &g.vars[k];
    if (var->array) {
      put(&g, "  result = result * 31u + (%s[0] ^ %s[1] ^ %s[2] ^ %s[3]);\n", var->name, var->name,
          var->name, var->name);
      continue;
    }
    switch (var->type) {
      case T_UINT:
        put(&g, "  result = result * 31u + %s;\n", var->name);
        break;
      case T_INT:
        put(&g, "  result = result * 31u + (uint)%s;\n", var->name);
        break;
      case T_ULONG:
        put(&g, "  result = result * 31u + (uint)%s + (uint)(%s >> 32);\n", var->name, var->name);
        break;
      case T_UINT4:
        put(&g, "  result = result * 31u + (%s.x ^ %s.y ^ %s.z ^ %s.w);\n", var->name, var->name,
            var->name, var->name);
        break;
      case T_UCHAR4:
        put(&g, "  result = result * 31u + as_uint(%s);\n", var->name);
        break;
      case T_UINT8:
        put(&g,
            "  result = result * 31u + (%s.s0 ^ %s.s1 ^ %s.s2 ^ %s.s3 ^ %s.s4 ^ %s.s5 ^ %s.s6 ^ "
            "%s.s7);\n",
            var->name, var->name, var->name, var->name, var->name, var->name, var->name, var->name);
        break;
      case T_FLOAT:
        put(&g, "  result = result * 31u + convert_uint_sat(%s);\n", var->name);
        break;
      default:
        break;
    }
  }
  put(&g, "  out[gid] = result;\n}\n");
  if (g.failed) {
    free(g.text);
    return NULL;
  }
  return g.text;
}
