// SPDX-License-Identifier: Apache-2.0
/* Literals (parse_expr.c's primaries): numbers with their suffixes and
 * types, character constants and their escapes (parse_internal.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse_expr_internal.h"

kl_node *kp_number_literal(parser *p, kl_token *t) {
  kl_location at = kl_token_where(t);
  const char *s = t->text;
  int n = t->length;
  bool is_hex = n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  bool is_float = false;
  for (int i = 0; i < n; i++) {
    char c = s[i];
    if (c == '.' || (!is_hex && (c == 'e' || c == 'E')) || (is_hex && (c == 'p' || c == 'P')))
      is_float = true;
  }
  char *text = kl_strndup(p->ctx, s, (size_t)n);
  if (is_float) {
    int end = n;
    char suffix = 0;
    if (end > 0 && strchr("fFhHlL", text[end - 1]) &&
        !(is_hex && strchr("fF", text[end - 1]) && 0)) {
      /* in a hex float the exponent is decimal, so a trailing f is a suffix */
      suffix = text[end - 1];
      end--;
    }
    char *number = kl_strndup(p->ctx, text, (size_t)end);
    char *stop = NULL;
    errno = 0;
    double value;
    kl_type *type;
    if (suffix == 'f' || suffix == 'F') {
      value = strtof(number, &stop);
      type = kl_type_scalar(p->ctx, KL_TYPE_FLOAT);
    } else if (suffix == 'h' || suffix == 'H') {
      value = strtof(number, &stop);
      type = kl_type_scalar(p->ctx, KL_TYPE_HALF);
      if (!p->ctx->options.traits.fp16)
        kl_error(p->ctx, at, "half literals need cl_khr_fp16, which this device does not support");
    } else if (suffix) {
      kl_error(p->ctx, at, "'long double' literals are not in OpenCL C");
      value = strtod(number, &stop);
      type = kl_type_scalar(p->ctx, KL_TYPE_FLOAT);
    } else {
      value = strtod(number, &stop);
      if (p->ctx->options.traits.fp64) {
        type = kl_type_scalar(p->ctx, KL_TYPE_DOUBLE);
      } else {
        /* As OpenCL C compilers do: without cl_khr_fp64 the constant is single precision. */
        kl_warning(
            p->ctx, at,
            "double precision constant '%s' without cl_khr_fp64: treated as single precision "
            "(write %sf)",
            text, text);
        value = (float)value;
        type = kl_type_scalar(p->ctx, KL_TYPE_FLOAT);
      }
    }
    if (!stop || *stop) {
      kl_error(p->ctx, at, "invalid floating-point literal '%s'", text);
      value = 0;
    }
    kl_node *node = kp_new_node(p, KL_EXPR_FLOAT_LITERAL, at);
    node->float_value = value;
    node->type = type;
    node->spelling = text;
    return node;
  }
  /* an integer literal */
  int base = 10, i = 0;
  if (is_hex) {
    base = 16;
    i = 2;
  } else if (n > 1 && s[0] == '0') {
    base = 8;
    i = 1;
  }
  uint64_t v = 0;
  bool overflow = false, digits = base == 8;
  for (; i < n; i++) {
    int c = s[i], d = kl_digit_value(c);
    if (d < 0) break;
    if (base == 10 && d >= 10) break;
    if (d >= base) {
      kl_error(p->ctx, at, "invalid digit '%c' in %s constant '%s'", c,
               base == 8 ? "octal" : "hexadecimal", text);
      return kp_new_int(p, 0, NULL, at);
    }
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) overflow = true;
    v = v * (uint64_t)base + (uint64_t)d;
    digits = true;
  }
  bool u = false, l = false;
  for (; i < n; i++) {
    if ((s[i] == 'u' || s[i] == 'U') && !u)
      u = true;
    else if ((s[i] == 'l' || s[i] == 'L') && !l)
      l = true;
    else {
      kl_error(p->ctx, at, "invalid suffix '%s' on integer literal", text + i);
      return kp_new_int(p, v, NULL, at);
    }
  }
  if (!digits) {
    kl_error(p->ctx, at, "invalid integer literal '%s'", text);
    return kp_new_int(p, 0, NULL, at);
  }
  if (overflow) {
    kl_error(p->ctx, at,
             "integer literal is too large to be represented in any integer type ('%s')", text);
    return kp_new_int(p, 0, NULL, at);
  }
  /* C99 6.4.4.1 with OpenCL's 64-bit long (there is no long long). */
  kl_type_kind k;
  if (base == 10 && !u) {
    if (!l && v <= INT32_MAX)
      k = KL_TYPE_INT;
    else if (v <= INT64_MAX)
      k = KL_TYPE_LONG;
    else {
      kl_warning(p->ctx, at, "integer literal '%s' is too large for long: treated as ulong", text);
      k = KL_TYPE_ULONG;
    }
  } else if (u) {
    k = !l && v <= UINT32_MAX ? KL_TYPE_UINT : KL_TYPE_ULONG;
  } else {
    if (!l && v <= INT32_MAX)
      k = KL_TYPE_INT;
    else if (!l && v <= UINT32_MAX)
      k = KL_TYPE_UINT;
    else if (v <= INT64_MAX)
      k = KL_TYPE_LONG;
    else
      k = KL_TYPE_ULONG;
  }
  kl_node *node = kp_new_int(p, v, kl_type_scalar(p->ctx, k), at);
  node->spelling = text;
  return node;
}

/* The escape sequence after a backslash at *s (a character or string
 * literal's), as a char's value; *s moves past it. */
int kp_escape(parser *p, const char **cursor, const char *end, kl_location at) {
  const char *s = *cursor;
  int64_t value = 0;
  char c = s < end ? *s++ : 0;
  switch (c) {
    case 'n':
      value = '\n';
      break;
    case 't':
      value = '\t';
      break;
    case 'r':
      value = '\r';
      break;
    case 'a':
      value = 7;
      break;
    case 'b':
      value = 8;
      break;
    case 'f':
      value = 12;
      break;
    case 'v':
      value = 11;
      break;
    case '\\':
      value = '\\';
      break;
    case '\'':
      value = '\'';
      break;
    case '"':
      value = '"';
      break;
    case '?':
      value = '?';
      break;
    case 'x': {
      int digits = 0;
      while (s < end && strchr("0123456789abcdefABCDEF", *s) && *s) {
        int d = *s <= '9' ? *s - '0' : (*s | 32) - 'a' + 10;
        value = (value * 16 + d) & 0xff;
        s++;
        digits++;
      }
      if (!digits) kl_error(p->ctx, at, "\\x needs hexadecimal digits");
      value = (signed char)value;
      break;
    }
    default:
      if (c >= '0' && c <= '7') {
        value = c - '0';
        for (int k = 0; k < 2 && s < end && *s >= '0' && *s <= '7'; k++)
          value = value * 8 + (*s++ - '0');
        value = (signed char)(value & 0xff);
      } else {
        kl_error(p->ctx, at, "unknown escape sequence '\\%c'", c);
      }
  }
  *cursor = s;
  return (int)value;
}

kl_node *kp_char_literal(parser *p, kl_token *t) {
  kl_location at = kl_token_where(t);
  const char *s = t->text + 1, *end = t->text + t->length - 1;
  int64_t value = 0;
  if (s >= end) {
    kl_error(p->ctx, at, "empty character literal");
  } else if (*s != '\\') {
    value = (signed char)*s;
    s++;
  } else {
    s++;
    value = kp_escape(p, &s, end, at);
  }
  if (s < end) kl_error(p->ctx, at, "multi-character constants are not supported");
  kl_node *node = kp_new_int(p, (uint64_t)value, NULL, at);
  node->spelling = kl_strndup(p->ctx, t->text, (size_t)t->length);
  return node;
}
