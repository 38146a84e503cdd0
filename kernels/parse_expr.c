// SPDX-License-Identifier: Apache-2.0
/* Expressions: literals, names, calls, member access and swizzles, casts,
 * sizeof and unary operators (parse_internal.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

/* --------------------------------------------------------- expressions */

bool kp_check_scalar_condition(parser *p, kl_node *n, const char *what) {
  if (!n || !n->type) return false;
  if (kl_type_is_scalar(n->type) || n->type->kind == KL_TYPE_POINTER) return true;
  if (n->type->kind == KL_TYPE_VECTOR)
    kl_error(p->ctx, n->location, "%s must be a scalar, not '%s' (use any() or all())", what,
             kp_type_name(p, n->type));
  else
    kl_error(p->ctx, n->location, "%s must be a scalar, not '%s'", what, kp_type_name(p, n->type));
  return false;
}

static kl_node *number_literal(parser *p, kl_token *t) {
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

static kl_node *char_literal(parser *p, kl_token *t) {
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

static kl_node *variable_ref(parser *p, kl_variable *v, kl_location at) {
  kl_node *n = kp_new_node(p, KL_EXPR_VARIABLE, at);
  n->variable = v;
  n->type = v->type;
  n->view = v->view;
  n->is_lvalue = true;
  return n;
}

bool kp_is_modifiable(parser *p, kl_node *n, const char *what) {
  kl_location at = kp_expr_start(n);
  if (!n->is_lvalue) {
    if (n->kind == KL_EXPR_SWIZZLE && n->lhs->is_lvalue)
      kl_error(p->ctx, at, "a swizzle with repeated components ('.%s') is not assignable (%s)",
               n->spelling, what);
    else
      kl_error(p->ctx, at, "expression is not assignable (%s)", what);
    return false;
  }
  if (n->type->kind == KL_TYPE_ARRAY) {
    kl_error(p->ctx, at, "array type '%s' is not assignable", kp_type_name(p, n->type));
    return false;
  }
  if (kp_lvalue_space(n) == KL_SPACE_CONSTANT ||
      (n->kind == KL_EXPR_VARIABLE && n->variable->is_program_scope)) {
    kl_error(p->ctx, at, "cannot assign to __constant memory");
    return false;
  }
  if (n->type->qualifiers & KL_QUALIFIER_CONST) {
    kl_error(p->ctx, at, "cannot assign to const-qualified '%s'", kp_type_name(p, n->type));
    return false;
  }
  return true;
}

static kl_node *call_function(parser *p, kl_function *f, kl_token *name) {
  kl_location at = kl_token_where(name);
  kl_node *n = kp_new_node(p, KL_EXPR_CALL, at);
  n->function = f;
  n->type = f->return_type;
  n->spelling = f->name;
  kp_advance(p); /* ( */
  kl_node head = {0}, *tail = &head;
  kl_variable *param = f->params;
  int count = 0;
  if (!kp_is(p, ")")) {
    do {
      kl_node *arg = kp_assignment(p);
      if (param) {
        kl_node *c =
            kp_assign_convert(p, arg, param->type, arg->location,
                              kl_format(p->ctx, "argument %d of '%s'", count + 1, f->name));
        if (c) arg = c;
        param = param->next;
      }
      tail->next = arg;
      tail = arg;
      count++;
    } while (kp_accept(p, ",") && !p->panic);
  }
  kp_expect(p, ")", "after the arguments");
  int expected = f->param_count - (f->printf_buffer != NULL);
  if (count != expected)
    kl_error(p->ctx, at, "too %s arguments to function '%s' (%d given, %d expected)",
             count < expected ? "few" : "many", f->name, count, expected);
  f->called = true;
  if (f->printf_buffer && p->function && count == expected) {
    /* it prints: it gets the caller's printf buffer, so the caller needs one */
    kl_node *buffer = variable_ref(p, kp_printf_buffer(p), at);
    tail->next = buffer;
    tail = buffer;
    count++;
  }
  if (f->is_kernel)
    kl_error(p->ctx, at,
             "calling a kernel ('%s') from another function is not supported: "
             "move its body into a helper function",
             f->name);
  n->args = head.next;
  n->arg_count = count;
  if (p->function) {
    /* callees are gathered by check.c */
  }
  return n;
}

static kl_node *call_builtin(parser *p, const kl_builtin *b, kl_type *type, kl_token *name) {
  kl_location at = kl_token_where(name);
  kl_node *n = kp_new_node(p, KL_EXPR_BUILTIN, at);
  n->builtin = b;
  n->spelling = kl_strndup(p->ctx, name->text, (size_t)name->length);
  n->type = type; /* convert_T, as_T, vloadN: the T; set by the check otherwise */
  kp_advance(p);  /* ( */
  kl_node head = {0}, *tail = &head;
  int count = 0;
  if (!kp_is(p, ")")) {
    do {
      kl_node *arg = kp_decay(p, kp_assignment(p));
      tail->next = arg;
      tail = arg;
      count++;
    } while (kp_accept(p, ",") && !p->panic);
  }
  kp_expect(p, ")", "after the arguments");
  n->args = head.next;
  n->arg_count = count;
  if (p->panic) {
    n->type = type ? type : kp_int_type(p);
    return n;
  }
  if (!kl_builtin_check_call(p->ctx, n) && !n->type) n->type = kp_int_type(p);
  return n;
}

static int swizzle_index(char c, bool numeric) {
  if (numeric) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  switch (c) {
    case 'x':
      return 0;
    case 'y':
      return 1;
    case 'z':
      return 2;
    case 'w':
      return 3;
    default:
      return -1;
  }
}

static kl_node *swizzle(parser *p, kl_node *base, kl_token *name) {
  kl_location at = kl_token_where(name);
  const kl_type *vt = base->type;
  int length = vt->length;
  int comps[16], count = 0;
  const char *s = name->text;
  int n = name->length;
  if (kp_tok_is(name, "lo") || kp_tok_is(name, "hi") || kp_tok_is(name, "even") ||
      kp_tok_is(name, "odd")) {
    int half = (length == 3 ? 4 : length) / 2;
    if (length == 3 && (kp_tok_is(name, "hi") || kp_tok_is(name, "odd"))) {
      kl_error(p->ctx, at,
               "'.%.*s' of a 3-component vector reads an undefined component: "
               "not in the portable subset",
               n, s);
      half = 1;
    }
    for (int i = 0; i < half; i++) {
      if (kp_tok_is(name, "lo"))
        comps[i] = i;
      else if (kp_tok_is(name, "hi"))
        comps[i] = half + i;
      else if (kp_tok_is(name, "even"))
        comps[i] = 2 * i;
      else
        comps[i] = 2 * i + 1;
      if (comps[i] >= length) comps[i] = length - 1;
    }
    count = half;
  } else {
    bool numeric = n >= 2 && (s[0] == 's' || s[0] == 'S');
    int start = numeric ? 1 : 0;
    for (int i = start; i < n; i++) {
      int c = swizzle_index(s[i], numeric);
      if (c < 0 || (!numeric && length > 4)) {
        if (!numeric && length > 4 && c >= 0)
          kl_error(p->ctx, at,
                   "'.%.*s': the .xyzw names are for vectors of up to 4 components; "
                   "'%s' has %d (use .s0 ... .sF)",
                   n, s, kp_type_name(p, vt), length);
        else
          kl_error(p->ctx, at, "invalid vector component '%.*s' for '%s'", n, s,
                   kp_type_name(p, vt));
        return kp_error_expr(p, at);
      }
      if (c >= length) {
        kl_error(p->ctx, at, "invalid vector component '%s%c' for '%s'", numeric ? "s" : "", s[i],
                 kp_type_name(p, vt));
        return kp_error_expr(p, at);
      }
      if (count >= 16) {
        kl_error(p->ctx, at, "too many components in '.%.*s'", n, s);
        return kp_error_expr(p, at);
      }
      comps[count++] = c;
    }
  }
  if (count == 0 || (count > 4 && count != 8 && count != 16)) {
    kl_error(p->ctx, at, "'.%.*s' selects %d components: a vector has 2, 3, 4, 8 or 16", n, s,
             count);
    return kp_error_expr(p, at);
  }
  kl_node *node = kp_new_node(p, KL_EXPR_SWIZZLE, at);
  node->lhs = base;
  memcpy(node->components, comps, sizeof(int) * (size_t)count);
  node->component_count = count;
  node->spelling = kl_strndup(p->ctx, s, (size_t)n);
  kl_type *element = kl_type_scalar(p->ctx, vt->element->kind);
  node->type = count == 1 ? element : kl_type_vector(p->ctx, vt->element->kind, count);
  if (base->type->qualifiers)
    node->type = kl_type_qualified(p->ctx, node->type, base->type->qualifiers);
  bool repeats = false;
  for (int i = 0; i < count; i++)
    for (int j = 0; j < i; j++)
      if (comps[i] == comps[j]) repeats = true;
  node->is_lvalue = base->is_lvalue && !repeats;
  return node;
}

static kl_node *member_access(parser *p, kl_node *base, bool arrow) {
  kl_location at = kp_here(p);
  kp_advance(p); /* . or -> */
  kl_token *name = p->tok;
  if (name->kind != KL_TOKEN_IDENTIFIER) {
    kp_syntax_error_at(p, kp_here(p), "expected a member name after ", arrow ? "'->'" : "'.'");
    return base;
  }
  kp_advance(p);
  kl_type *t = base->type;
  if (arrow && t->kind == KL_TYPE_POINTER && t->element->kind == KL_TYPE_VECTOR)
    return swizzle(p, kp_new_unary(p, KL_OP_DEREFERENCE, base, at), name); /* p->x: (*p).x */
  if (arrow) {
    if (t->kind != KL_TYPE_POINTER || t->element->kind != KL_TYPE_STRUCT) {
      kl_error(p->ctx, at, "'->' needs a pointer to a struct or vector, not '%s'",
               kp_type_name(p, t));
      return kp_error_expr(p, at);
    }
    t = t->element;
  } else if (t->kind == KL_TYPE_VECTOR) {
    return swizzle(p, base, name);
  } else if (t->kind != KL_TYPE_STRUCT) {
    kl_error(p->ctx, kl_token_where(name), "no member named '%.*s' in '%s'", name->length,
             name->text, t->name ? t->name : kp_type_name(p, t));
    return kp_error_expr(p, at);
  }
  for (kl_member *m = t->members; m; m = m->next) {
    if ((int)strlen(m->name) == name->length &&
        memcmp(m->name, name->text, (size_t)name->length) == 0) {
      kl_node *n = kp_new_node(p, KL_EXPR_MEMBER, kl_token_where(name));
      n->lhs = base;
      n->member = m;
      n->is_arrow = arrow;
      n->type = m->type;
      unsigned q = t->qualifiers & (KL_QUALIFIER_CONST | KL_QUALIFIER_VOLATILE);
      if (q) n->type = kl_type_qualified(p->ctx, n->type, n->type->qualifiers | q);
      n->is_lvalue = arrow || base->is_lvalue;
      return n;
    }
  }
  kl_error(p->ctx, kl_token_where(name), "no member named '%.*s' in '%s'", name->length, name->text,
           t->name ? t->name : kp_type_name(p, t));
  return kp_error_expr(p, at);
}

/* postfix = primary ("[" expression "]" | "(" arguments? ")" | "." identifier
 *           | "->" identifier | "++" | "--")* */
static kl_node *postfix(parser *p, kl_node *n) {
  bool must_index = n->view && n->kind == KL_EXPR_VARIABLE; /* a pointer to an array */
  for (;;) {
    if (p->panic) return n;
    kl_location at = kp_here(p);
    if (must_index && !kp_is(p, "[")) {
      kp_view_escapes(p, n);
      must_index = false;
    }
    if (kp_is(p, "[")) {
      kp_advance(p);
      kl_node *index = kp_expression(p);
      kp_expect(p, "]", "after the index");
      if (n->view) {
        n = kp_view_index(p, n, index, at);
        must_index = n->view != NULL;
        continue;
      }
      kl_type *t = n->type;
      if (t->kind == KL_TYPE_VECTOR) {
        kl_error(p->ctx, at, "subscripting a vector ('%s') is not supported: use .s0 ... .sF",
                 kp_type_name(p, t));
        n = kp_error_expr(p, at);
        continue;
      }
      if (t->kind != KL_TYPE_POINTER && t->kind != KL_TYPE_ARRAY) {
        kl_error(p->ctx, at, "subscripted value of type '%s' is not an array or pointer",
                 kp_type_name(p, t));
        n = kp_error_expr(p, at);
        continue;
      }
      if (!kl_type_is_integer(index->type) && index->type->kind != KL_TYPE_BOOL) {
        kl_error(p->ctx, index->location, "array subscript is not an integer ('%s')",
                 kp_type_name(p, index->type));
      }
      if (t->kind == KL_TYPE_POINTER && t->element->kind == KL_TYPE_VOID) {
        kl_error(p->ctx, at, "subscript of a pointer to void");
      }
      kl_node *x = kp_new_node(p, KL_EXPR_INDEX, at);
      x->lhs = n;
      x->rhs = index;
      x->type = t->element;
      x->is_lvalue = true;
      n = x;
      continue;
    }
    if (kp_is(p, ".") || kp_is(p, "->")) {
      n = member_access(p, n, kp_is(p, "->"));
      continue;
    }
    if (kp_is(p, "++") || kp_is(p, "--")) {
      bool inc = kp_is(p, "++");
      kp_advance(p);
      n = kp_new_unary(p, inc ? KL_OP_POST_INCREMENT : KL_OP_POST_DECREMENT, n, at);
      continue;
    }
    return n;
  }
}

/* primary = "(" expression ")" | "(" type ")" "(" vector-parts ")" | identifier
 *         | number | character | string | builtin-call | call */
static kl_node *primary(parser *p) {
  kl_token *t = p->tok;
  kl_location at = kp_here(p);
  if (kp_accept(p, "(")) {
    kl_node *n = kp_expression(p);
    kp_expect(p, ")", "to close the parenthesis");
    return n;
  }
  if (t->kind == KL_TOKEN_NUMBER) {
    kp_advance(p);
    return number_literal(p, t);
  }
  if (t->kind == KL_TOKEN_CHARACTER) {
    kp_advance(p);
    return char_literal(p, t);
  }
  if (t->kind == KL_TOKEN_STRING) {
    kp_advance(p);
    kl_error(p->ctx, at, "string literals are not supported");
    while (p->tok->kind == KL_TOKEN_STRING) kp_advance(p);
    return kp_error_expr(p, at);
  }
  if (t->kind == KL_TOKEN_IDENTIFIER) {
    if (kp_tok_is(t, "__kl_infinity") || kp_tok_is(t, "__kl_nan") ||
        kp_tok_is(t, "__kl_infinity_double")) {
      kp_advance(p);
      kl_node *n = kp_new_node(p, KL_EXPR_FLOAT_LITERAL, at);
      bool nan = kp_tok_is(t, "__kl_nan");
      n->float_value = nan ? (double)NAN : (double)INFINITY;
      n->type = kl_type_scalar(
          p->ctx, kp_tok_is(t, "__kl_infinity_double") ? KL_TYPE_DOUBLE : KL_TYPE_FLOAT);
      n->spelling = nan ? "NAN" : "INFINITY";
      return n;
    }
    if (kp_tok_is(t, "true") || kp_tok_is(t, "false")) {
      kp_advance(p);
      kl_node *n = kp_new_int(p, kp_tok_is(t, "true"), NULL, at);
      n->spelling = kp_tok_is(t, "true") ? "true" : "false";
      return n;
    }
    if (kp_tok_is(t, "printf")) {
      kl_error(p->ctx, at,
               "printf's result is not supported: call printf as a statement of its own");
      kp_advance(p);
      if (kp_is(p, "(")) kp_skip_parens(p);
      return kp_error_expr(p, at);
    }
    sym *s = kp_find_sym(p, t->text, t->length);
    if (s && s->is_enumerator) {
      kp_advance(p);
      return kp_new_int(p, (uint64_t)s->enumerator, NULL, at);
    }
    if (s && s->variable) {
      kp_advance(p);
      if (kp_is(p, "(")) {
        kl_error(p->ctx, at, "called object '%.*s' is not a function", t->length, t->text);
        kp_skip_parens(p);
        return kp_error_expr(p, at);
      }
      return variable_ref(p, s->variable, at);
    }
    if (s && s->function) {
      kp_advance(p);
      if (!kp_is(p, "(")) {
        kl_error(p->ctx, at, "function pointers are not supported: '%.*s' must be called",
                 t->length, t->text);
        return kp_error_expr(p, at);
      }
      return call_function(p, s->function, t);
    }
    kl_type *type = NULL;
    const kl_builtin *b = kl_builtin_lookup(p->ctx, t->text, t->length, &type);
    if (b) {
      kp_advance(p);
      if (!kp_is(p, "(")) {
        kl_error(p->ctx, at, "the builtin '%.*s' must be called", t->length, t->text);
        return kp_error_expr(p, at);
      }
      return call_builtin(p, b, type, t);
    }
    kp_advance(p);
    const char *image_what = kp_image_name_kind(t);
    if (image_what)
      kl_error(p->ctx, at, "%s are not in the portable subset: '%.*s' is not supported", image_what,
               t->length, t->text);
    else if (kp_is(p, "("))
      kl_error(p->ctx, at, "call to undeclared function '%.*s'", t->length, t->text);
    else
      kl_error(p->ctx, at, "use of undeclared identifier '%.*s'", t->length, t->text);
    if (kp_is(p, "(")) kp_skip_parens(p);
    return kp_error_expr(p, at);
  }
  if (t->kind == KL_TOKEN_END)
    kp_syntax_error_at(p, at, "expected expression, found end of input", NULL);
  else
    kp_syntax_error_at(p, at, "expected expression, found ", kp_token_text(p, t));
  return kp_error_expr(p, at);
}

/* One part of a vector literal or of a vector's brace initializer: a
 * vector of the element type (its lanes count) or a scalar converted to
 * the element type; adds its lanes to *components. */
kl_node *kp_vector_part(parser *p, kl_type *type, bool in_braces, int *components) {
  kl_node *part = kp_assignment(p);
  if (!part->type) part->type = kp_int_type(p);
  const char *where = in_braces ? "the initializer of" : "";
  if (part->type->kind == KL_TYPE_VECTOR) {
    if (part->type->element->kind != type->element->kind)
      kl_error(p->ctx, part->location,
               "a '%s' part in %s%sa '%s'%s: vector parts must have the element type '%s' (use "
               "convert_%s%d())",
               kp_type_name(p, part->type), where, in_braces ? " " : "", kp_type_name(p, type),
               in_braces ? "" : " literal", kp_type_name(p, type->element),
               kp_type_name(p, type->element), part->type->length);
    *components += part->type->length;
  } else if (kp_is_bool_or_arith(part->type)) {
    part = kl_convert(p->ctx, part, type->element);
    (*components)++;
  } else {
    if (in_braces)
      kl_error(p->ctx, part->location, "a '%s' cannot initialise a part of a '%s'",
               kp_type_name(p, part->type), kp_type_name(p, type));
    else
      kl_error(p->ctx, part->location, "a '%s' cannot be part of a vector literal",
               kp_type_name(p, part->type));
    (*components)++;
  }
  return part;
}

/* (T)(a, b, ...) with T a vector type. */
static kl_node *vector_literal(parser *p, kl_type *type, kl_location at) {
  kp_advance(p); /* ( */
  kl_node head = {0}, *tail = &head;
  int count = 0, components = 0;
  do {
    kl_node *part = kp_vector_part(p, type, false, &components);
    tail->next = part;
    tail = part;
    count++;
  } while (kp_accept(p, ",") && !p->panic);
  kp_expect(p, ")", "to close the vector literal");
  if (count == 1 && head.next->type->kind != KL_TYPE_VECTOR) {
    /* (float4)(x): every component is x */
    kl_node *n = kp_new_node(p, KL_EXPR_CAST, at);
    n->lhs = head.next;
    n->type = type;
    return n;
  }
  if (count == 1 && kl_type_equal(head.next->type, type)) return head.next;
  if (components != type->length && !p->panic)
    kl_error(p->ctx, at, "wrong number of components in vector literal: '%s' needs %d, %d given",
             kp_type_name(p, type), type->length, components);
  kl_node *n = kp_new_node(p, KL_EXPR_VECTOR_LITERAL, at);
  n->args = head.next;
  n->arg_count = count;
  n->type = type;
  return n;
}

static kl_type *type_name_parse(parser *p, kl_location *at_out) {
  decl_spec spec;
  *at_out = kp_here(p);
  kp_declspec(p, &spec, false);
  kl_token *name = NULL;
  kl_type *base = kl_type_qualified(p->ctx, spec.type, spec.qualifiers | spec.type->qualifiers);
  kl_type *t = kp_declarator(p, base, spec.has_space ? spec.space : KL_SPACE_PRIVATE, &name, true);
  kp_check_pointer_depth(p, t, *at_out);
  if (name) kl_error(p->ctx, kl_token_where(name), "unexpected name in a type");
  t = kp_array_suffix(p, t, NULL);
  if (spec.has_space && t->kind != KL_TYPE_POINTER)
    kl_error(p->ctx, *at_out, "an address space in a cast applies to pointers only");
  return t;
}

static kl_node *cast_to(parser *p, kl_type *type, kl_node *x, kl_location at) {
  if (kp_is_pointer_to_array(type)) return kp_view_cast(p, type, x, at, cast_to);
  x = kp_decay(p, x);
  kl_type *from = x->type;
  kl_node *n = kp_new_node(p, KL_EXPR_CAST, at);
  n->lhs = x;
  n->type = kl_type_unqualified(p->ctx, type);
  if (type->kind == KL_TYPE_VOID) return n;
  if (kl_type_is_scalar(type) && kl_type_is_scalar(from)) return n;
  if (type->kind == KL_TYPE_VECTOR) {
    if (kl_type_is_scalar(from)) return n;
    if (kl_type_equal(from, type)) return n;
    if (from->kind == KL_TYPE_VECTOR) {
      kl_error(p->ctx, at,
               "cannot cast '%s' to '%s': casts between vector types are not allowed in "
               "OpenCL C (use convert_%s() or as_%s())",
               kp_type_name(p, from), kp_type_name(p, type), kp_type_name(p, n->type),
               kp_type_name(p, n->type));
      return n;
    }
  }
  if (type->kind == KL_TYPE_POINTER && from->kind == KL_TYPE_POINTER) {
    if (type->pointee_space != from->pointee_space) {
      kl_error(p->ctx, at, "cannot cast between address spaces ('%s' to '%s')",
               kp_type_name(p, from), kp_type_name(p, type));
    }
    return n;
  }
  if (type->kind == KL_TYPE_POINTER && kp_is_null_constant(p, x)) return n;
  if (type->kind == KL_TYPE_POINTER && kp_is_integer_like(from)) {
    /* Parboil's `p = (__global uint *)get_global_id(0);`, assigned over
     * before use: kept; an access through it is undefined (and refused on
     * Vulkan, where a pointer is an index into one array) */
    kl_warning(p->ctx, at,
               "a pointer made from an integer ('%s' to '%s') points nowhere portable: only "
               "assign over it",
               kp_type_name(p, from), kp_type_name(p, type));
    return n;
  }
  if ((type->kind == KL_TYPE_POINTER && kl_type_is_scalar(from)) ||
      (from->kind == KL_TYPE_POINTER && kl_type_is_scalar(type))) {
    kl_error(p->ctx, at, "casts between pointers and integers are not supported");
    return n;
  }
  if (type->kind == KL_TYPE_STRUCT && kl_type_equal(type, from)) return n;
  kl_error(p->ctx, at, "cannot cast '%s' to '%s'", kp_type_name(p, from), kp_type_name(p, type));
  return n;
}

/* sizeof = ("sizeof" | "_Alignof" | "__alignof__" | "__alignof") ("(" type ")"
 *          | unary) */
static kl_node *sizeof_expr(parser *p) {
  kl_location at = kp_here(p);
  bool align = !kp_is(p, "sizeof"); /* __alignof__, _Alignof */
  kp_advance(p);
  kl_type *t;
  bool paren_string = kp_is(p, "(") && p->tok->next->kind == KL_TOKEN_STRING;
  if (p->tok->kind == KL_TOKEN_STRING || paren_string) {
    /* sizeof "text": the one use of a string literal in the subset */
    if (paren_string) kp_advance(p);
    int64_t bytes = 1;
    while (p->tok->kind == KL_TOKEN_STRING) {
      const char *s = p->tok->text + 1, *end = p->tok->text + p->tok->length - 1;
      for (; s < end; s++) {
        if (*s == '\\' && s + 1 < end) {
          s++;
          if (*s == 'x') {
            while (s + 1 < end && strchr("0123456789abcdefABCDEF", s[1])) s++;
          } else if (*s >= '0' && *s <= '7') {
            for (int k = 0; k < 2 && s + 1 < end && s[1] >= '0' && s[1] <= '7'; k++) s++;
          }
        }
        bytes++;
      }
      kp_advance(p);
    }
    if (paren_string) kp_expect(p, ")", "after the string");
    return kp_new_int(p, (uint64_t)bytes, kl_type_scalar(p->ctx, KL_TYPE_SIZE_T), at);
  }
  if (kp_is(p, "(") && kp_is_type_start(p, p->tok->next)) {
    kp_advance(p);
    kl_location type_at;
    t = type_name_parse(p, &type_at);
    kp_expect(p, ")", "after the type");
  } else {
    kl_node *x = kp_cast_expr(p);
    t = x->type;
  }
  if (t->kind == KL_TYPE_VOID || t->kind == KL_TYPE_FUNCTION ||
      (t->kind == KL_TYPE_STRUCT && !t->members))
    kl_error(p->ctx, at, "sizeof of an incomplete type '%s'", kp_type_name(p, t));
  return kp_new_int(p, (uint64_t)(align ? t->align : t->size),
                    kl_type_scalar(p->ctx, KL_TYPE_SIZE_T), at);
}

/* unary = ("+" | "-" | "!" | "~" | "*" | "&" | "++" | "--") cast | sizeof
 *       | postfix */
kl_node *kp_unary(parser *p) {
  kp_enter_depth(p);
  kl_location at = kp_here(p);
  kl_node *n;
  if (kp_is(p, "-") || kp_is(p, "+") || kp_is(p, "!") || kp_is(p, "~") || kp_is(p, "*") ||
      kp_is(p, "&")) {
    char c = p->tok->text[0];
    kp_advance(p);
    kl_node *x = kp_cast_expr(p);
    kl_operator op = c == '-'   ? KL_OP_NEGATE
                     : c == '+' ? KL_OP_PLUS
                     : c == '!' ? KL_OP_LOGICAL_NOT
                     : c == '~' ? KL_OP_BIT_NOT
                     : c == '*' ? KL_OP_DEREFERENCE
                                : KL_OP_ADDRESS_OF;
    n = kp_new_unary(p, op, x, at);
  } else if (kp_is(p, "++") || kp_is(p, "--")) {
    bool inc = kp_is(p, "++");
    kp_advance(p);
    kl_node *x = kp_unary(p);
    n = kp_new_unary(p, inc ? KL_OP_PRE_INCREMENT : KL_OP_PRE_DECREMENT, x, at);
  } else if (kp_is(p, "sizeof") || kp_is(p, "__alignof__") || kp_is(p, "__alignof") ||
             kp_is(p, "_Alignof")) {
    n = sizeof_expr(p);
  } else if (kp_is(p, "vec_step")) {
    kp_advance(p);
    kp_expect(p, "(", "after 'vec_step'");
    kl_type *t;
    if (kp_is_type_start(p, p->tok)) {
      kl_location type_at;
      t = type_name_parse(p, &type_at);
    } else {
      t = kp_expression(p)->type;
    }
    kp_expect(p, ")", "after the vec_step operand");
    int steps = t->kind == KL_TYPE_VECTOR ? (t->length == 3 ? 4 : t->length) : 1;
    n = kp_new_int(p, (uint64_t)steps, NULL, at);
  } else {
    n = postfix(p, primary(p));
  }
  kp_leave_depth(p);
  return n;
}

/* cast = "(" type ")" (cast | "{" initializer-list "}") | unary */
kl_node *kp_cast_expr(parser *p) {
  if (kp_is(p, "(") && kp_is_type_start(p, p->tok->next)) {
    kp_enter_depth(p);
    kl_location at = kp_here(p);
    kp_advance(p);
    kl_location type_at;
    kl_type *type = type_name_parse(p, &type_at);
    kp_expect(p, ")", "after the type in a cast");
    kl_node *n;
    if (type->kind == KL_TYPE_VECTOR && kp_is(p, "(")) {
      n = postfix(p, vector_literal(p, type, at));
    } else if (kp_is(p, "{")) {
      n = postfix(p, kp_compound_literal(p, type, at));
    } else {
      n = cast_to(p, type, kp_cast_expr(p), at);
    }
    kp_leave_depth(p);
    return n;
  }
  return kp_unary(p);
}
