// SPDX-License-Identifier: Apache-2.0
/* Conditional inclusion (preprocess_internal.h): #if, #elif, #ifdef,
 * their constant expressions, and skipping a group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preprocess_internal.h"

/* --------------------------------------------------------------- #if */

typedef struct pp_value {
  uint64_t v;
  bool is_unsigned;
} pp_value;

typedef struct cexpr {
  pp *p;
  kl_token *t;
  bool failed;
  const kl_token *first;
} cexpr;

static pp_value ce_conditional(cexpr *e, int depth);

static void ce_fail(cexpr *e, const kl_token *at, const char *message) {
  if (!e->failed) kl_error(e->p->ctx, kl_token_where(at), "%s", message);
  e->failed = true;
}

static void ce_too_deep(cexpr *e, const kl_token *at) {
  if (!e->failed) kl_limit_error(e->p->ctx, kl_token_where(at), "expression nested too deeply");
  e->failed = true;
}

static bool ce_accept(cexpr *e, const char *op) {
  if (e->t->kind == KL_TOKEN_PUNCTUATOR && kpp_token_equals(e->t, op)) {
    e->t = e->t->next;
    return true;
  }
  return false;
}

/* Parses an integer pp-number's value and signedness; false when malformed. */
static bool parse_pp_integer(const kl_token *t, uint64_t *value, bool *is_unsigned) {
  const char *s = t->text, *end = t->text + t->length;
  int base = 10;
  if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  } else if (end - s > 1 && s[0] == '0') {
    base = 8;
    s++;
  }
  uint64_t v = 0;
  bool any = base == 8;
  bool overflow = false;
  while (s < end) {
    int d = kl_digit_value(*s);
    if (d < 0 || d >= base) break;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) overflow = true;
    v = v * (uint64_t)base + (uint64_t)d;
    any = true;
    s++;
  }
  if (!any || overflow) return false;
  bool u = false;
  int ls = 0;
  while (s < end) {
    if ((*s == 'u' || *s == 'U') && !u)
      u = true;
    else if ((*s == 'l' || *s == 'L') && ls < 2)
      ls++;
    else
      return false;
    s++;
  }
  *value = v;
  *is_unsigned = u || v > (uint64_t)INT64_MAX;
  return true;
}

static int char_literal_value(const kl_token *t) {
  const char *s = t->text + 1;
  if (t->length < 3) return 0;
  if (*s != '\\') return (unsigned char)*s;
  s++;
  switch (*s) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case '0':
      return 0;
    case 'a':
      return 7;
    case 'b':
      return 8;
    case 'f':
      return 12;
    case 'v':
      return 11;
    case 'x':
      return (int)strtol(s + 1, NULL, 16);
    default:
      return (unsigned char)*s;
  }
}

static pp_value ce_primary(cexpr *e, int depth) {
  pp_value zero = {0, false};
  kl_token *t = e->t;
  if (depth > KL_MAX_DEPTH) {
    ce_too_deep(e, t);
    return zero;
  }
  if (ce_accept(e, "(")) {
    pp_value v = ce_conditional(e, depth + 1);
    if (!ce_accept(e, ")")) ce_fail(e, e->t, "expected ')' in the #if expression");
    return v;
  }
  if (ce_accept(e, "-")) {
    pp_value v = ce_primary(e, depth + 1);
    v.v = (uint64_t)0 - v.v;
    return v;
  }
  if (ce_accept(e, "+")) return ce_primary(e, depth + 1);
  if (ce_accept(e, "!")) {
    pp_value v = ce_primary(e, depth + 1);
    return (pp_value){v.v == 0, false};
  }
  if (ce_accept(e, "~")) {
    pp_value v = ce_primary(e, depth + 1);
    v.v = ~v.v;
    return v;
  }
  if (t->kind == KL_TOKEN_NUMBER) {
    pp_value v;
    if (!parse_pp_integer(t, &v.v, &v.is_unsigned)) {
      ce_fail(e, t, "invalid integer constant in the #if expression");
      return zero;
    }
    e->t = t->next;
    return v;
  }
  if (t->kind == KL_TOKEN_CHARACTER) {
    e->t = t->next;
    return (pp_value){(uint64_t)(int64_t)char_literal_value(t), false};
  }
  if (t->kind == KL_TOKEN_IDENTIFIER) { /* not a macro: 0 */
    e->t = t->next;
    return zero;
  }
  if (t->kind == KL_TOKEN_END)
    ce_fail(e, t, "expected a value in the #if expression");
  else
    ce_fail(e, t, "unexpected token in the #if expression");
  return zero;
}

static int ce_precedence(const kl_token *t) {
  static const struct {
    const char *op;
    int precedence;
  } ops[] = {{"*", 10}, {"/", 10}, {"%", 10}, {"+", 9}, {"-", 9},  {"<<", 8},
             {">>", 8}, {"<", 7},  {"<=", 7}, {">", 7}, {">=", 7}, {"==", 6},
             {"!=", 6}, {"&", 5},  {"^", 4},  {"|", 3}, {"&&", 2}, {"||", 1}};
  if (t->kind != KL_TOKEN_PUNCTUATOR) return 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (kpp_token_equals(t, ops[i].op)) return ops[i].precedence;
  return 0;
}

static pp_value ce_binary(cexpr *e, int min_precedence, int depth) {
  pp_value lhs = ce_primary(e, depth + 1);
  for (;;) {
    kl_token *op = e->t;
    int precedence = ce_precedence(op);
    if (!precedence || precedence < min_precedence || e->failed) return lhs;
    e->t = op->next;
    pp_value rhs = ce_binary(e, precedence + 1, depth + 1);
    bool u = lhs.is_unsigned || rhs.is_unsigned;
    uint64_t a = lhs.v, b = rhs.v;
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    pp_value r = {0, u};
    char c0 = op->text[0], c1 = op->length > 1 ? op->text[1] : 0;
    switch (c0) {
      case '*':
        r.v = a * b;
        break;
      case '/':
      case '%':
        if (b == 0) {
          ce_fail(e, op, "division by zero in the #if expression");
          return r;
        }
        if (u)
          r.v = c0 == '/' ? a / b : a % b;
        else if (sa == INT64_MIN && sb == -1)
          r.v = c0 == '/' ? a : 0;
        else
          r.v = (uint64_t)(c0 == '/' ? sa / sb : sa % sb);
        break;
      case '+':
        r.v = a + b;
        break;
      case '-':
        r.v = a - b;
        break;
      case '<':
        if (c1 == '<') {
          r.v = b >= 64 ? 0 : a << b;
          r.is_unsigned = lhs.is_unsigned;
        } else {
          bool lt = u ? a < b : sa < sb, eq = a == b;
          r = (pp_value){c1 == '=' ? (lt || eq) : lt, false};
        }
        break;
      case '>':
        if (c1 == '>') {
          r.is_unsigned = lhs.is_unsigned;
          if (b >= 64)
            r.v = lhs.is_unsigned || sa >= 0 ? 0 : (uint64_t)-1;
          else
            r.v = lhs.is_unsigned ? a >> b : (uint64_t)(sa >> b);
        } else {
          bool gt = u ? a > b : sa > sb, eq = a == b;
          r = (pp_value){c1 == '=' ? (gt || eq) : gt, false};
        }
        break;
      case '=':
        r = (pp_value){a == b, false};
        break;
      case '!':
        r = (pp_value){a != b, false};
        break;
      case '&':
        r = c1 == '&' ? (pp_value){a && b, false} : (pp_value){a & b, u};
        break;
      case '|':
        r = c1 == '|' ? (pp_value){a || b, false} : (pp_value){a | b, u};
        break;
      case '^':
        r.v = a ^ b;
        break;
      default:
        break;
    }
    lhs = r;
  }
}

static pp_value ce_conditional(cexpr *e, int depth) {
  if (depth > KL_MAX_DEPTH) {
    ce_too_deep(e, e->t);
    return (pp_value){0, false};
  }
  pp_value condition = ce_binary(e, 1, depth + 1);
  if (!ce_accept(e, "?")) return condition;
  pp_value a = ce_conditional(e, depth + 1);
  if (!ce_accept(e, ":")) {
    ce_fail(e, e->t, "expected ':' in the #if expression");
    return a;
  }
  pp_value b = ce_conditional(e, depth + 1);
  pp_value r = condition.v ? a : b;
  r.is_unsigned = a.is_unsigned || b.is_unsigned;
  return r;
}

/* Reads and evaluates an #if/#elif line; *rest gets the next line. */
bool kpp_eval_if(pp *p, kl_token **rest, kl_token *directive, kl_token *token) {
  kl_context *ctx = p->ctx;
  kl_token *line = kpp_copy_line(p, rest, token);
  /* defined X / defined(X) -> 1 or 0, before macro expansion. */
  kl_token head = {0}, *tail = &head;
  for (kl_token *t = line; t->kind != KL_TOKEN_END;) {
    if (kpp_token_equals(t, "defined")) {
      kl_token *start = t;
      t = t->next;
      bool paren = kpp_token_equals(t, "(");
      if (paren) t = t->next;
      if (t->kind != KL_TOKEN_IDENTIFIER) {
        kl_error(ctx, kl_token_where(start), "'defined' needs a macro name");
        *rest = kpp_skip_line(p, *rest);
        return false;
      }
      bool defined = kpp_find_macro(ctx, t->text, t->length) != NULL;
      t = t->next;
      if (paren) {
        if (!kpp_token_equals(t, ")")) {
          kl_error(ctx, kl_token_where(t), "expected ')' after 'defined(NAME'");
          return false;
        }
        t = t->next;
      }
      kl_token *n = kl_token_copy(ctx, start);
      n->kind = KL_TOKEN_NUMBER;
      n->text = defined ? "1" : "0";
      n->length = 1;
      tail->next = n;
      tail = n;
      continue;
    }
    kl_token *next = t->next;
    tail->next = t;
    tail = t;
    t = next;
  }
  kl_token *end = kl_token_copy(ctx, p->end);
  tail->next = end;
  if (!head.next || head.next == end) {
    kl_error(ctx, kl_token_where(directive), "#%.*s with no expression", directive->length,
             directive->text);
    return false;
  }
  kl_token *expanded = kpp_preprocess2(p, head.next);
  cexpr e = {.p = p, .t = expanded, .first = expanded};
  if (expanded->kind == KL_TOKEN_END) {
    kl_error(ctx, kl_token_where(directive), "#%.*s expression is empty after macro expansion",
             directive->length, directive->text);
    return false;
  }
  pp_value v = ce_conditional(&e, 0);
  if (!e.failed && e.t->kind != KL_TOKEN_END)
    ce_fail(&e, e.t, "extra tokens in the #if expression");
  return !e.failed && v.v != 0;
}

/* Skips a group to its #elif/#else/#endif (not consumed). */
kl_token *kpp_skip_group(pp *p, kl_token *token) {
  int level = 0;
  while (token->kind != KL_TOKEN_END) {
    if (kpp_is_hash(token) && token->next->kind == KL_TOKEN_IDENTIFIER &&
        !token->next->at_line_start) {
      kl_token *d = token->next;
      if (kpp_token_equals(d, "if") || kpp_token_equals(d, "ifdef") ||
          kpp_token_equals(d, "ifndef")) {
        level++;
      } else if (kpp_token_equals(d, "endif")) {
        if (level == 0) return token;
        level--;
      } else if (level == 0 && (kpp_token_equals(d, "elif") || kpp_token_equals(d, "else"))) {
        return token;
      }
    }
    token = token->next;
  }
  (void)p;
  return token;
}

void kpp_push_cond(pp *p, const kl_token *token, bool included) {
  if (p->cond_depth >= KL_MAX_IF_DEPTH) {
    kl_limit_error(p->ctx, kl_token_where(token), "#if nested too deeply");
    kl_bail(p->ctx);
  }
  cond_incl *c = kl_alloc(p->ctx, sizeof *c);
  c->next = p->conds;
  c->state = IN_THEN;
  c->token = token;
  c->included = included;
  p->conds = c;
  p->cond_depth++;
}
