// SPDX-License-Identifier: Apache-2.0
/* The preprocessor (C99 6.10, the part OpenCL C 1.2 kernels use), on
 * tokens: object- and function-like macros with # and ##, hidesets (Prosser's
 * algorithm, as chibicc does), conditional inclusion with full constant
 * expressions, #pragma OPENCL EXTENSION, #error, __LINE__ and __FILE__.
 * Macro expansions keep where they were used (kl_token.expanded_from). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kl_front.h"

typedef struct kl_hideset {
  struct kl_hideset *next;
  const char *name;
  int length;
} kl_hideset;

typedef enum { MACRO_PLAIN, MACRO_LINE, MACRO_FILE } macro_kind;

struct kl_macro {
  kl_macro *next;
  const char *name;
  int length;
  bool function_like;
  const kl_token **params;
  int param_count;
  kl_token *body; /* ends with KL_TOKEN_END */
  macro_kind kind;
};

typedef struct cond_incl {
  struct cond_incl *next;
  enum { IN_THEN, IN_ELIF, IN_ELSE } state;
  const kl_token *token;
  bool included;
} cond_incl;

typedef struct pp {
  kl_context *ctx;
  cond_incl *conds;
  int cond_depth;
  int depth; /* argument pre-expansion nesting */
  kl_token *end; /* a shared END token for sub-lists */
} pp;

/* ------------------------------------------------------------ helpers */

static unsigned hash_name(const char *name, int length) {
  unsigned h = 2166136261u;
  for (int i = 0; i < length; i++) h = (h ^ (unsigned char)name[i]) * 16777619u;
  return h;
}

static kl_macro *find_macro(kl_context *ctx, const char *name, int length) {
  if (!ctx->macros) return NULL;
  unsigned h = hash_name(name, length) % (unsigned)ctx->macro_buckets;
  for (kl_macro *m = ctx->macros[h]; m; m = m->next)
    if (m->length == length && memcmp(m->name, name, (size_t)length) == 0) return m;
  return NULL;
}

static kl_macro *add_macro(kl_context *ctx, const char *name, int length) {
  if (!ctx->macros) {
    ctx->macro_buckets = 256;
    ctx->macros = kl_alloc(ctx, sizeof(kl_macro *) * (size_t)ctx->macro_buckets);
  }
  unsigned h = hash_name(name, length) % (unsigned)ctx->macro_buckets;
  kl_macro **link = &ctx->macros[h];
  for (; *link; link = &(*link)->next)
    if ((*link)->length == length && memcmp((*link)->name, name, (size_t)length) == 0) {
      *link = (*link)->next; /* redefinition replaces */
      break;
    }
  kl_macro *m = kl_alloc(ctx, sizeof *m);
  m->name = name;
  m->length = length;
  m->next = ctx->macros[h];
  ctx->macros[h] = m;
  return m;
}

static void remove_macro(kl_context *ctx, const char *name, int length) {
  if (!ctx->macros) return;
  unsigned h = hash_name(name, length) % (unsigned)ctx->macro_buckets;
  for (kl_macro **link = &ctx->macros[h]; *link; link = &(*link)->next)
    if ((*link)->length == length && memcmp((*link)->name, name, (size_t)length) == 0) {
      *link = (*link)->next;
      return;
    }
}

static bool hideset_contains(const kl_hideset *hs, const char *name, int length) {
  for (; hs; hs = hs->next)
    if (hs->length == length && memcmp(hs->name, name, (size_t)length) == 0) return true;
  return false;
}

static kl_hideset *hideset_add(kl_context *ctx, kl_hideset *hs, const char *name, int length) {
  if (hideset_contains(hs, name, length)) return hs;
  kl_hideset *h = kl_alloc(ctx, sizeof *h);
  h->name = name;
  h->length = length;
  h->next = hs;
  return h;
}

static kl_hideset *hideset_union(kl_context *ctx, kl_hideset *a, kl_hideset *b) {
  for (; b; b = b->next) a = hideset_add(ctx, a, b->name, b->length);
  return a;
}

static kl_hideset *hideset_intersection(kl_context *ctx, kl_hideset *a, kl_hideset *b) {
  kl_hideset *result = NULL;
  for (; a; a = a->next)
    if (hideset_contains(b, a->name, a->length))
      result = hideset_add(ctx, result, a->name, a->length);
  return result;
}

static kl_token *copy_token(pp *p, const kl_token *token) {
  if (++p->ctx->token_count > KL_MAX_TOKENS) {
    kl_error(p->ctx, kl_token_where(token),
             "macro expansion produces more than %d tokens", KL_MAX_TOKENS);
    kl_bail(p->ctx);
  }
  return kl_token_copy(p->ctx, token);
}

static bool is_hash(const kl_token *token) {
  return token->at_line_start && token->kind == KL_TOKEN_PUNCTUATOR && token->length == 1 &&
         token->text[0] == '#';
}

static bool token_equals(const kl_token *token, const char *text) { return kl_token_is(token, text); }

static char *token_name(kl_context *ctx, const kl_token *token) {
  return kl_strndup(ctx, token->text, (size_t)token->length);
}

/* The rest of a directive line as a new list ending in END; *rest is the next line. */
static kl_token *copy_line(pp *p, kl_token **rest, kl_token *token) {
  kl_token head = {0}, *tail = &head;
  for (; !token->at_line_start && token->kind != KL_TOKEN_END; token = token->next) {
    tail->next = copy_token(p, token);
    tail = tail->next;
  }
  kl_token *end = kl_token_copy(p->ctx, p->end);
  end->location = token->location;
  tail->next = end;
  *rest = token;
  return head.next;
}

static kl_token *skip_line(pp *p, kl_token *token) {
  if (token->at_line_start || token->kind == KL_TOKEN_END) return token;
  kl_warning(p->ctx, kl_token_where(token), "extra tokens at the end of the directive");
  while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
  return token;
}

/* ------------------------------------------------------------ #define */

static void read_define(pp *p, kl_token **rest, kl_token *token, kl_token *hash) {
  kl_context *ctx = p->ctx;
  if (token->at_line_start || token->kind != KL_TOKEN_IDENTIFIER) {
    kl_error(ctx, kl_token_where(token), "macro name must be an identifier");
    while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
    *rest = token;
    return;
  }
  kl_token *name = token;
  if (token_equals(name, "defined"))
    kl_error(ctx, kl_token_where(name), "'defined' cannot be used as a macro name");
  token = token->next;
  kl_macro *m = add_macro(ctx, name->text, name->length);
  if (!token->at_line_start && token_equals(token, "(") && !token->space_before) {
    m->function_like = true;
    token = token->next;
    const kl_token *params[128];
    int count = 0;
    if (!token->at_line_start && token_equals(token, ")")) {
      token = token->next;
    } else {
      for (;;) {
        if (token->at_line_start || token->kind == KL_TOKEN_END) {
          kl_error(ctx, kl_token_where(hash), "expected ')' in macro parameter list (it is unterminated)");
          break;
        }
        if (token_equals(token, "...")) {
          kl_error(ctx, kl_token_where(token), "variadic macros are not supported");
          while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
          break;
        }
        if (token->kind != KL_TOKEN_IDENTIFIER) {
          kl_error(ctx, kl_token_where(hash), "expected a parameter name in macro parameter list");
          while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
          break;
        }
        for (int i = 0; i < count; i++)
          if (params[i]->length == token->length &&
              memcmp(params[i]->text, token->text, (size_t)token->length) == 0)
            kl_error(ctx, kl_token_where(token), "duplicate macro parameter '%.*s'",
                     token->length, token->text);
        if (count < 128)
          params[count++] = token;
        else
          kl_error(ctx, kl_token_where(token), "too many macro parameters");
        token = token->next;
        if (!token->at_line_start && token_equals(token, ",")) {
          token = token->next;
          continue;
        }
        if (!token->at_line_start && token_equals(token, ")")) {
          token = token->next;
          break;
        }
        kl_error(ctx, kl_token_where(hash), "expected ')' in macro parameter list, found '%.*s'", token->length,
                 token->text);
        while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
        break;
      }
    }
    m->param_count = count;
    m->params = kl_alloc(ctx, sizeof(kl_token *) * (size_t)(count + 1));
    memcpy(m->params, params, sizeof(kl_token *) * (size_t)count);
  }
  m->body = copy_line(p, rest, token);
  /* ## may not start or end the replacement list. */
  kl_token *last = NULL;
  for (kl_token *t = m->body; t->kind != KL_TOKEN_END; t = t->next) last = t;
  if (m->body->kind != KL_TOKEN_END && token_equals(m->body, "##"))
    kl_error(ctx, kl_token_where(m->body), "'##' cannot appear at either end of a macro expansion");
  else if (last && token_equals(last, "##"))
    kl_error(ctx, kl_token_where(last), "'##' cannot appear at either end of a macro expansion");
}

/* ---------------------------------------------------------- expansion */

typedef struct macro_arg {
  kl_token *tokens;   /* as written, ending in END */
  kl_token *expanded; /* fully macro-expanded, lazily */
} macro_arg;

static kl_token *preprocess2(pp *p, kl_token *token);

static int find_param(const kl_macro *m, const kl_token *token) {
  if (token->kind != KL_TOKEN_IDENTIFIER) return -1;
  for (int i = 0; i < m->param_count; i++)
    if (m->params[i]->length == token->length &&
        memcmp(m->params[i]->text, token->text, (size_t)token->length) == 0)
      return i;
  return -1;
}

static kl_token *stringize(pp *p, const kl_token *hash, const kl_token *arg) {
  kl_context *ctx = p->ctx;
  size_t size = 3;
  for (const kl_token *t = arg; t->kind != KL_TOKEN_END; t = t->next) size += (size_t)t->length * 2 + 1;
  char *text = kl_alloc(ctx, size), *out = text;
  *out++ = '"';
  for (const kl_token *t = arg; t->kind != KL_TOKEN_END; t = t->next) {
    if (t != arg && t->space_before) *out++ = ' ';
    for (int i = 0; i < t->length; i++) {
      char c = t->text[i];
      if ((t->kind == KL_TOKEN_STRING || t->kind == KL_TOKEN_CHARACTER) && (c == '"' || c == '\\'))
        *out++ = '\\';
      *out++ = c;
    }
  }
  *out++ = '"';
  *out = 0;
  kl_token *s = copy_token(p, hash);
  s->kind = KL_TOKEN_STRING;
  s->text = text;
  s->length = (int)(out - text);
  return s;
}

static kl_token *paste(pp *p, const kl_token *lhs, const kl_token *rhs) {
  kl_context *ctx = p->ctx;
  char *text = kl_format(ctx, "%.*s%.*s", lhs->length, lhs->text, rhs->length, rhs->text);
  kl_source *source = kl_new_source(ctx, "<paste>", text, strlen(text));
  /* Lexing the pasted text must give exactly one token. */
  int errors = ctx->error_count;
  kl_token *t = kl_tokenize(ctx, source);
  if (ctx->error_count != errors || t->kind == KL_TOKEN_END || t->next->kind != KL_TOKEN_END) {
    if (ctx->error_count == errors)
      kl_error(ctx, kl_token_where(lhs), "pasting \"%.*s\" and \"%.*s\" does not give a valid token",
               lhs->length, lhs->text, rhs->length, rhs->text);
    return copy_token(p, lhs);
  }
  kl_token *result = copy_token(p, lhs);
  result->kind = t->kind;
  result->text = t->text;
  result->length = t->length;
  return result;
}

static kl_token *expand_arg(pp *p, macro_arg *arg) {
  if (arg->expanded) return arg->expanded;
  if (p->depth >= KL_MAX_EXPANSION_DEPTH) {
    kl_error(p->ctx, kl_token_where(arg->tokens), "macro arguments nested too deeply");
    kl_bail(p->ctx);
  }
  p->depth++;
  kl_token head = {0}, *tail = &head;
  for (kl_token *t = arg->tokens; t->kind != KL_TOKEN_END; t = t->next) {
    tail->next = copy_token(p, t);
    tail = tail->next;
  }
  tail->next = kl_token_copy(p->ctx, p->end);
  arg->expanded = preprocess2(p, head.next);
  p->depth--;
  return arg->expanded;
}

/* Substitutes the arguments into the body (C99 6.10.3.1-3). */
static kl_token *substitute(pp *p, const kl_macro *m, macro_arg *args, const kl_token *use) {
  kl_token head = {0}, *tail = &head;
  for (const kl_token *t = m->body; t->kind != KL_TOKEN_END; t = t->next) {
    /* # param */
    if (m->function_like && token_equals(t, "#")) {
      int i = find_param(m, t->next);
      if (i < 0) {
        kl_error(p->ctx, kl_token_where(use), "'#' is not followed by a macro parameter");
        continue;
      }
      tail->next = stringize(p, use, args[i].tokens);
      tail = tail->next;
      t = t->next;
      continue;
    }
    /* x ## y */
    if (token_equals(t, "##") && tail != &head) {
      const kl_token *rhs = t->next;
      if (rhs->kind == KL_TOKEN_END) break;
      int i = find_param(m, rhs);
      const kl_token *first = rhs;
      const kl_token *more = NULL;
      if (i >= 0) {
        first = args[i].tokens;
        if (first->kind == KL_TOKEN_END) {
          t = rhs;
          continue; /* pasting with an empty argument */
        }
        more = first->next;
      }
      kl_token *joined = paste(p, tail, first);
      /* Replace the tail with the pasted token. */
      kl_token *prev = &head;
      while (prev->next != tail) prev = prev->next;
      prev->next = joined;
      tail = joined;
      for (; more && more->kind != KL_TOKEN_END; more = more->next) {
        tail->next = copy_token(p, more);
        tail = tail->next;
      }
      t = rhs;
      continue;
    }
    int i = find_param(m, t);
    if (m->function_like && i >= 0) {
      /* An operand of ## is inserted unexpanded. */
      bool pasted = token_equals(t->next, "##");
      kl_token *arg = pasted ? args[i].tokens : expand_arg(p, &args[i]);
      if (pasted && arg->kind == KL_TOKEN_END) {
        /* an empty left operand: the right one stands alone */
        const kl_token *rhs = t->next->next;
        int j = find_param(m, rhs);
        if (j >= 0) {
          for (kl_token *a = args[j].tokens; a->kind != KL_TOKEN_END; a = a->next) {
            tail->next = copy_token(p, a);
            tail = tail->next;
          }
        } else if (rhs->kind != KL_TOKEN_END) {
          tail->next = copy_token(p, rhs);
          tail = tail->next;
        }
        t = rhs->kind == KL_TOKEN_END ? t->next : rhs;
        continue;
      }
      bool first_token = true;
      for (kl_token *a = arg; a->kind != KL_TOKEN_END; a = a->next) {
        kl_token *c = copy_token(p, a);
        if (first_token) c->space_before = t->space_before;
        first_token = false;
        tail->next = c;
        tail = c;
      }
      continue;
    }
    tail->next = copy_token(p, t);
    tail = tail->next;
  }
  tail->next = NULL;
  return head.next;
}

/* Reads the arguments of a function-like macro use; NULL when the use is
 * unterminated. *rparen gets the closing parenthesis. */
static macro_arg *read_args(pp *p, kl_token *name, kl_token *lparen, const kl_macro *m,
                            kl_token **rparen) {
  kl_context *ctx = p->ctx;
  int capacity = m->param_count > 0 ? m->param_count : 1;
  macro_arg *args = kl_alloc(ctx, sizeof(macro_arg) * (size_t)capacity);
  int count = 0;
  kl_token *t = lparen->next;
  bool empty_call = token_equals(t, ")");
  for (;;) {
    kl_token head = {0}, *tail = &head;
    int level = 0;
    for (;;) {
      if (t->kind == KL_TOKEN_END) {
        kl_error(ctx, kl_token_where(name), "unterminated call to macro '%.*s'", name->length, name->text);
        return NULL;
      }
      if (is_hash(t)) {
        kl_error(ctx, kl_token_where(t), "directives inside macro arguments are not supported");
        return NULL;
      }
      if (level == 0 && (token_equals(t, ",") || token_equals(t, ")"))) break;
      if (token_equals(t, "(")) level++;
      if (token_equals(t, ")")) level--;
      tail->next = copy_token(p, t);
      tail = tail->next;
      t = t->next;
    }
    kl_token *end = kl_token_copy(ctx, p->end);
    end->location = t->location;
    tail->next = end;
    if (count < capacity) args[count].tokens = head.next;
    count++;
    if (token_equals(t, ")")) break;
    t = t->next; /* ',' */
  }
  if (empty_call && m->param_count == 0) count = 0;
  if (count != m->param_count) {
    kl_error(ctx, kl_token_where(name), "wrong number of arguments to macro '%.*s' (%d given, %d expected)",
             name->length, name->text, count, m->param_count);
    /* Fill the missing ones with nothing so that expansion can go on. */
    for (int i = count; i < m->param_count; i++) args[i].tokens = kl_token_copy(ctx, p->end);
  }
  *rparen = t;
  return args;
}

static kl_token *append(kl_token *list, kl_token *rest) {
  if (!list) return rest;
  kl_token *t = list;
  while (t->next) t = t->next;
  t->next = rest;
  return list;
}

/* Expands the macro named by `token` if there is one; *rest gets the list
 * to go on with. */
static bool expand_macro(pp *p, kl_token **rest, kl_token *token) {
  kl_context *ctx = p->ctx;
  if (token->kind != KL_TOKEN_IDENTIFIER) return false;
  if (hideset_contains(token->hideset, token->text, token->length)) return false;
  kl_macro *m = find_macro(ctx, token->text, token->length);
  if (!m) return false;
  kl_location use = kl_token_where(token);

  if (m->kind == MACRO_LINE || m->kind == MACRO_FILE) {
    kl_token *t = copy_token(p, token);
    if (m->kind == MACRO_LINE) {
      t->kind = KL_TOKEN_NUMBER;
      t->text = kl_format(ctx, "%d", use.line);
    } else {
      t->kind = KL_TOKEN_STRING;
      t->text = kl_format(ctx, "\"%s\"", use.source ? use.source->name : "<source>");
    }
    t->length = (int)strlen(t->text);
    t->hideset = hideset_add(ctx, token->hideset, token->text, token->length);
    t->expanded_from = use;
    t->next = token->next;
    *rest = t;
    return true;
  }

  kl_hideset *hs;
  kl_token *after;
  macro_arg *args = NULL;
  if (!m->function_like) {
    hs = hideset_add(ctx, token->hideset, m->name, m->length);
    after = token->next;
  } else {
    if (!token_equals(token->next, "(")) return false;
    kl_token *rparen = NULL;
    args = read_args(p, token, token->next, m, &rparen);
    if (!args) {
      /* skip to the end: the error is reported */
      kl_token *t = token;
      while (t->kind != KL_TOKEN_END) t = t->next;
      *rest = t;
      return true;
    }
    hs = hideset_intersection(ctx, token->hideset, rparen->hideset);
    hs = hideset_add(ctx, hs, m->name, m->length);
    after = rparen->next;
  }
  kl_token *body = substitute(p, m, args, token);
  bool first = true;
  for (kl_token *t = body; t; t = t->next) {
    t->hideset = hideset_union(ctx, t->hideset, hs);
    t->expanded_from = use;
    if (first) {
      t->at_line_start = token->at_line_start;
      t->space_before = token->space_before;
    } else {
      t->at_line_start = false;
    }
    first = false;
  }
  *rest = append(body, after);
  if (!body && after) {
    /* An empty expansion: keep the line-start mark for directive detection. */
    if (token->at_line_start && after->kind != KL_TOKEN_END && !after->at_line_start) {
      /* nothing: a following token on the same line is not a directive start */
    }
  }
  return true;
}

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

static bool ce_accept(cexpr *e, const char *op) {
  if (e->t->kind == KL_TOKEN_PUNCTUATOR && token_equals(e->t, op)) {
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
    int c = *s, d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      break;
    if (d >= base) break;
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
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case '0': return 0;
    case 'a': return 7;
    case 'b': return 8;
    case 'f': return 12;
    case 'v': return 11;
    case 'x': return (int)strtol(s + 1, NULL, 16);
    default: return (unsigned char)*s;
  }
}

static pp_value ce_primary(cexpr *e, int depth) {
  pp_value zero = {0, false};
  kl_token *t = e->t;
  if (depth > KL_MAX_DEPTH) {
    ce_fail(e, t, "expression nested too deeply");
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
  } ops[] = {{"*", 10}, {"/", 10}, {"%", 10}, {"+", 9},  {"-", 9}, {"<<", 8}, {">>", 8},
             {"<", 7},  {"<=", 7}, {">", 7},  {">=", 7}, {"==", 6}, {"!=", 6}, {"&", 5},
             {"^", 4},  {"|", 3},  {"&&", 2}, {"||", 1}};
  if (t->kind != KL_TOKEN_PUNCTUATOR) return 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (token_equals(t, ops[i].op)) return ops[i].precedence;
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
      case '*': r.v = a * b; break;
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
      case '+': r.v = a + b; break;
      case '-': r.v = a - b; break;
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
      case '=': r = (pp_value){a == b, false}; break;
      case '!': r = (pp_value){a != b, false}; break;
      case '&': r = c1 == '&' ? (pp_value){a && b, false} : (pp_value){a & b, u}; break;
      case '|': r = c1 == '|' ? (pp_value){a || b, false} : (pp_value){a | b, u}; break;
      case '^': r.v = a ^ b; break;
      default: break;
    }
    lhs = r;
  }
}

static pp_value ce_conditional(cexpr *e, int depth) {
  if (depth > KL_MAX_DEPTH) {
    ce_fail(e, e->t, "expression nested too deeply");
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
static bool eval_if(pp *p, kl_token **rest, kl_token *directive, kl_token *token) {
  kl_context *ctx = p->ctx;
  kl_token *line = copy_line(p, rest, token);
  /* defined X / defined(X) -> 1 or 0, before macro expansion. */
  kl_token head = {0}, *tail = &head;
  for (kl_token *t = line; t->kind != KL_TOKEN_END;) {
    if (token_equals(t, "defined")) {
      kl_token *start = t;
      t = t->next;
      bool paren = token_equals(t, "(");
      if (paren) t = t->next;
      if (t->kind != KL_TOKEN_IDENTIFIER) {
        kl_error(ctx, kl_token_where(start), "'defined' needs a macro name");
        *rest = skip_line(p, *rest);
        return false;
      }
      bool defined = find_macro(ctx, t->text, t->length) != NULL;
      t = t->next;
      if (paren) {
        if (!token_equals(t, ")")) {
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
  kl_token *expanded = preprocess2(p, head.next);
  cexpr e = {.p = p, .t = expanded, .first = expanded};
  if (expanded->kind == KL_TOKEN_END) {
    kl_error(ctx, kl_token_where(directive), "#%.*s expression is empty after macro expansion",
             directive->length, directive->text);
    return false;
  }
  pp_value v = ce_conditional(&e, 0);
  if (!e.failed && e.t->kind != KL_TOKEN_END) ce_fail(&e, e.t, "extra tokens in the #if expression");
  return !e.failed && v.v != 0;
}

/* Skips a group to its #elif/#else/#endif (not consumed). */
static kl_token *skip_group(pp *p, kl_token *token) {
  int level = 0;
  while (token->kind != KL_TOKEN_END) {
    if (is_hash(token) && token->next->kind == KL_TOKEN_IDENTIFIER && !token->next->at_line_start) {
      kl_token *d = token->next;
      if (token_equals(d, "if") || token_equals(d, "ifdef") || token_equals(d, "ifndef")) {
        level++;
      } else if (token_equals(d, "endif")) {
        if (level == 0) return token;
        level--;
      } else if (level == 0 && (token_equals(d, "elif") || token_equals(d, "else"))) {
        return token;
      }
    }
    token = token->next;
  }
  (void)p;
  return token;
}

static void push_cond(pp *p, const kl_token *token, bool included) {
  if (p->cond_depth >= KL_MAX_IF_DEPTH) {
    kl_error(p->ctx, kl_token_where(token), "#if nested too deeply");
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

/* ------------------------------------------------------------ #pragma */

static const char *const known_extensions[] = {
    "cl_khr_fp64", "cl_khr_fp16", "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics", "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics", "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics", "cl_khr_byte_addressable_store", "all", NULL,
};

bool kl_extension_enabled(const kl_context *ctx, const char *name) {
  for (const kl_extension *e = ctx->extensions; e; e = e->next)
    if (strcmp(e->name, name) == 0 || strcmp(e->name, "all") == 0) return e->enabled;
  return false;
}

static void read_pragma(pp *p, kl_token *pragma, kl_token *t) {
  kl_context *ctx = p->ctx;
  if (t->at_line_start || t->kind == KL_TOKEN_END) return; /* empty pragma */
  if (token_equals(t, "OPENCL") && !t->next->at_line_start) {
    kl_token *what = t->next;
    if (token_equals(what, "EXTENSION")) {
      /* The directive may be the source's last line: stop at its end. */
      kl_token *name = what->next;
      kl_token *colon = name->kind == KL_TOKEN_END ? name : name->next;
      kl_token *state = colon->kind == KL_TOKEN_END ? colon : colon->next;
      if (name->at_line_start || name->kind != KL_TOKEN_IDENTIFIER || colon->at_line_start ||
          !token_equals(colon, ":") || state->at_line_start ||
          !(token_equals(state, "enable") || token_equals(state, "disable"))) {
        kl_error(ctx, kl_token_where(what),
                 "expected '#pragma OPENCL EXTENSION name : enable' or ': disable'");
        return;
      }
      char *ext = token_name(ctx, name);
      bool known = false;
      for (int i = 0; known_extensions[i]; i++)
        if (strcmp(known_extensions[i], ext) == 0) known = true;
      if (!known)
        kl_warning(ctx, kl_token_where(name), "unknown OpenCL extension '%s' ignored", ext);
      if (strcmp(ext, "cl_khr_fp64") == 0 && token_equals(state, "enable") &&
          !ctx->options.traits.fp64)
        kl_error(ctx, kl_token_where(name), "extension 'cl_khr_fp64' is not supported by this device");
      if (strcmp(ext, "cl_khr_fp16") == 0 && token_equals(state, "enable") &&
          !ctx->options.traits.fp16)
        kl_error(ctx, kl_token_where(name), "extension 'cl_khr_fp16' is not supported by this device");
      kl_extension *e = kl_alloc(ctx, sizeof *e);
      e->name = ext;
      e->enabled = token_equals(state, "enable");
      e->next = ctx->extensions;
      ctx->extensions = e;
      return;
    }
    if (token_equals(what, "FP_CONTRACT")) {
      /* ON, OFF or DEFAULT; an OFF anywhere turns contraction off in the
       * whole program (the scope rules are not kept). */
      kl_token *state = what->next;
      if (state->at_line_start || state->kind == KL_TOKEN_END ||
          !(token_equals(state, "ON") || token_equals(state, "OFF") ||
            token_equals(state, "DEFAULT")))
        kl_error(ctx, kl_token_where(what),
                 "expected '#pragma OPENCL FP_CONTRACT ON', 'OFF' or 'DEFAULT'");
      else if (token_equals(state, "OFF"))
        ctx->fp_contract_off = true;
      return;
    }
    kl_warning(ctx, kl_token_where(what), "unknown '#pragma OPENCL' ignored");
    return;
  }
  if (token_equals(t, "unroll") || token_equals(t, "nounroll")) return; /* a hint; not kept */
  if (token_equals(t, "once")) {
    kl_include_once(ctx, pragma->location.source);
    return;
  }
  kl_warning(ctx, kl_token_where(pragma), "unknown pragma '%.*s' ignored", t->length, t->text);
}

/* ----------------------------------------------------------- #include */

/* #include "name", #include <name>, or a line whose macros expand to one of
 * them; the included file's tokens come before the next line. */
static kl_token *read_include(pp *p, kl_token *hash, kl_token *token) {
  kl_context *ctx = p->ctx;
  kl_token *rest;
  kl_token *line = copy_line(p, &rest, token);
  if (line->kind != KL_TOKEN_STRING && !token_equals(line, "<")) line = preprocess2(p, line);
  const char *name = NULL;
  bool angled = false;
  kl_token *after = line;
  if (line->kind == KL_TOKEN_STRING && line->length >= 2 && line->text[0] == '"') {
    name = kl_strndup(ctx, line->text + 1, (size_t)line->length - 2);
    after = line->next;
  } else if (token_equals(line, "<")) {
    /* The name is the spelling of the tokens up to '>'. */
    const char *text = "";
    kl_token *t = line->next;
    for (; t->kind != KL_TOKEN_END && !token_equals(t, ">"); t = t->next)
      text = kl_format(ctx, "%s%s%.*s", text, t != line->next && t->space_before ? " " : "",
                       t->length, t->text);
    if (t->kind != KL_TOKEN_END) {
      name = text;
      angled = true;
      after = t->next;
    }
  }
  if (!name) {
    kl_error(ctx, kl_token_where(hash), "#include expects \"FILENAME\" or <FILENAME>");
    return rest;
  }
  if (after->kind != KL_TOKEN_END)
    kl_warning(ctx, kl_token_where(after), "extra tokens at the end of the directive");
  return kl_include(ctx, hash, name, angled, rest);
}

/* ---------------------------------------------------------- the pass */

static kl_token *preprocess2(pp *p, kl_token *token) {
  kl_context *ctx = p->ctx;
  kl_token head = {0}, *tail = &head;

  while (token->kind != KL_TOKEN_END) {
    if (expand_macro(p, &token, token)) continue;
    if (!is_hash(token)) {
      tail->next = token;
      tail = token;
      token = token->next;
      continue;
    }
    kl_token *hash = token;
    token = token->next;
    if (token->at_line_start || token->kind == KL_TOKEN_END) continue; /* null directive */
    kl_token *d = token;
    token = token->next;

    if (token_equals(d, "define")) {
      read_define(p, &token, token, hash);
      continue;
    }
    if (token_equals(d, "undef")) {
      if (token->at_line_start || token->kind != KL_TOKEN_IDENTIFIER) {
        kl_error(ctx, kl_token_where(d), "#undef needs a macro name");
      } else {
        remove_macro(ctx, token->text, token->length);
        token = token->next;
      }
      token = skip_line(p, token);
      continue;
    }
    if (token_equals(d, "ifdef") || token_equals(d, "ifndef")) {
      bool defined = false;
      if (token->at_line_start || token->kind != KL_TOKEN_IDENTIFIER) {
        kl_error(ctx, kl_token_where(d), "#%.*s needs a macro name", d->length, d->text);
      } else {
        defined = find_macro(ctx, token->text, token->length) != NULL;
        token = token->next;
      }
      token = skip_line(p, token);
      bool included = token_equals(d, "ifdef") ? defined : !defined;
      push_cond(p, hash, included);
      if (!included) token = skip_group(p, token);
      continue;
    }
    if (token_equals(d, "if")) {
      bool value = eval_if(p, &token, d, token);
      push_cond(p, hash, value);
      if (!value) token = skip_group(p, token);
      continue;
    }
    if (token_equals(d, "elif")) {
      if (!p->conds || p->conds->state == IN_ELSE) {
        kl_error(ctx, kl_token_where(hash), p->conds ? "#elif after #else" : "#elif without #if");
        token = skip_line(p, token);
        while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
        continue;
      }
      p->conds->state = IN_ELIF;
      if (!p->conds->included && eval_if(p, &token, d, token)) {
        p->conds->included = true;
      } else {
        while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
        token = skip_group(p, token);
      }
      continue;
    }
    if (token_equals(d, "else")) {
      token = skip_line(p, token);
      if (!p->conds || p->conds->state == IN_ELSE) {
        kl_error(ctx, kl_token_where(hash), p->conds ? "#else after #else" : "#else without #if");
        continue;
      }
      p->conds->state = IN_ELSE;
      if (p->conds->included) token = skip_group(p, token);
      p->conds->included = true;
      continue;
    }
    if (token_equals(d, "endif")) {
      token = skip_line(p, token);
      if (!p->conds) {
        kl_error(ctx, kl_token_where(hash), "unbalanced #endif (no #if is open)");
        continue;
      }
      p->conds = p->conds->next;
      p->cond_depth--;
      continue;
    }
    if (token_equals(d, "pragma")) {
      read_pragma(p, d, token);
      while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
      continue;
    }
    if (token_equals(d, "error") || token_equals(d, "warning")) {
      const char *start = token->at_line_start || token->kind == KL_TOKEN_END ? NULL : token->text;
      const kl_token *last = NULL;
      while (!token->at_line_start && token->kind != KL_TOKEN_END) {
        last = token;
        token = token->next;
      }
      int length = start && last && last->location.source == d->location.source
                       ? (int)(last->text + last->length - start)
                       : 0;
      if (length < 0 || length > 1000) length = 0;
      if (token_equals(d, "error"))
        kl_error(ctx, kl_token_where(hash), "#error %.*s", length, start ? start : "");
      else
        kl_warning(ctx, kl_token_where(hash), "#warning %.*s", length, start ? start : "");
      continue;
    }
    if (token_equals(d, "line")) {
      kl_warning(ctx, kl_token_where(d), "#line is ignored: diagnostics keep the real lines");
      while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
      continue;
    }
    if (token_equals(d, "include")) {
      token = read_include(p, hash, token);
      continue;
    }
    kl_error(ctx, kl_token_where(hash), "unknown preprocessor directive '#%.*s'", d->length, d->text);
    while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
  }
  tail->next = token;
  return head.next;
}

/* ------------------------------------------------- predefined macros */

static const char predefined[] =
    "#define __OPENCL_VERSION__ 120\n"
    "#define __OPENCL_C_VERSION__ 120\n"
    "#define CL_VERSION_1_0 100\n"
    "#define CL_VERSION_1_1 110\n"
    "#define CL_VERSION_1_2 120\n"
    "#define __ENDIAN_LITTLE__ 1\n"
    "#define __ANYGPU__ 1\n"
    "#define __kernel_exec(X, typen) __kernel __attribute__((work_group_size_hint(X, 1, 1))) "
    "__attribute__((vec_type_hint(typen)))\n"
    "#define kernel_exec(X, typen) __kernel_exec(X, typen)\n"
    "#define cl_khr_global_int32_base_atomics 1\n"
    "#define cl_khr_global_int32_extended_atomics 1\n"
    "#define cl_khr_local_int32_base_atomics 1\n"
    "#define cl_khr_local_int32_extended_atomics 1\n"
    "#define cl_khr_byte_addressable_store 1\n"
    "#define CLK_LOCAL_MEM_FENCE 1\n"
    "#define CLK_GLOBAL_MEM_FENCE 2\n"
    "#define CHAR_BIT 8\n"
    "#define SCHAR_MAX 127\n"
    "#define SCHAR_MIN (-127-1)\n"
    "#define CHAR_MAX SCHAR_MAX\n"
    "#define CHAR_MIN SCHAR_MIN\n"
    "#define UCHAR_MAX 255\n"
    "#define SHRT_MAX 32767\n"
    "#define SHRT_MIN (-32767-1)\n"
    "#define USHRT_MAX 65535\n"
    "#define INT_MAX 2147483647\n"
    "#define INT_MIN (-2147483647-1)\n"
    "#define UINT_MAX 0xffffffffU\n"
    "#define LONG_MAX 0x7fffffffffffffffL\n"
    "#define LONG_MIN (-0x7fffffffffffffffL-1)\n"
    "#define ULONG_MAX 0xffffffffffffffffUL\n"
    "#define FLT_DIG 6\n"
    "#define FLT_MANT_DIG 24\n"
    "#define FLT_MAX_10_EXP +38\n"
    "#define FLT_MAX_EXP +128\n"
    "#define FLT_MIN_10_EXP -37\n"
    "#define FLT_MIN_EXP -125\n"
    "#define FLT_RADIX 2\n"
    "#define FLT_MAX 0x1.fffffep127f\n"
    "#define FLT_MIN 0x1.0p-126f\n"
    "#define FLT_EPSILON 0x1.0p-23f\n"
    "#define MAXFLOAT 0x1.fffffep127f\n"
    "#define HUGE_VALF __kl_infinity\n"
    "#define INFINITY __kl_infinity\n"
    "#define NAN __kl_nan\n"
    "#define M_E_F 2.71828174591064f\n"
    "#define M_LOG2E_F 1.44269502162933f\n"
    "#define M_LOG10E_F 0.43429449200630f\n"
    "#define M_LN2_F 0.69314718246460f\n"
    "#define M_LN10_F 2.30258512496948f\n"
    "#define M_PI_F 3.14159274101257f\n"
    "#define M_PI_2_F 1.57079637050629f\n"
    "#define M_PI_4_F 0.78539818525314f\n"
    "#define M_1_PI_F 0.31830987334251f\n"
    "#define M_2_PI_F 0.63661974668503f\n"
    "#define M_2_SQRTPI_F 1.12837922573090f\n"
    "#define M_SQRT2_F 1.41421353816986f\n"
    "#define M_SQRT1_2_F 0.70710676908493f\n";

static const char predefined_fp64[] =
    "#define cl_khr_fp64 1\n"
    "#define DBL_DIG 15\n"
    "#define DBL_MANT_DIG 53\n"
    "#define DBL_MAX 0x1.fffffffffffffp1023\n"
    "#define DBL_MIN 0x1.0p-1022\n"
    "#define DBL_EPSILON 0x1.0p-52\n"
    "#define HUGE_VAL __kl_infinity_double\n"
    "#define M_E 2.718281828459045090796\n"
    "#define M_LOG2E 1.442695040888963387005\n"
    "#define M_LOG10E 0.434294481903251816668\n"
    "#define M_LN2 0.693147180559945286227\n"
    "#define M_LN10 2.302585092994045901094\n"
    "#define M_PI 3.141592653589793115998\n"
    "#define M_PI_2 1.570796326794896557999\n"
    "#define M_PI_4 0.785398163397448278999\n"
    "#define M_1_PI 0.318309886183790691216\n"
    "#define M_2_PI 0.636619772367581382433\n"
    "#define M_2_SQRTPI 1.128379167095512558561\n"
    "#define M_SQRT2 1.414213562373095145475\n"
    "#define M_SQRT1_2 0.707106781186547572737\n";

/* OpenCL C 1.2's -cl-* build options (and -cl-std= with a version). */
static bool is_opencl_option(const char *word, size_t n) {
  static const char *const known[] = {
      "-cl-single-precision-constant", "-cl-denorms-are-zero",
      "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-opt-disable", "-cl-mad-enable",
      "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
      "-cl-fast-relaxed-math", "-cl-kernel-arg-info", "-cl-uniform-work-group-size",
      "-cl-no-subgroup-ifp", "-cl-std=CL1.1", "-cl-std=CL1.2", "-cl-std=CL2.0",
      "-cl-std=CL3.0", "-cl-std=CL1.0"};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strlen(known[i]) == n && memcmp(word, known[i], n) == 0) return true;
  return false;
}

/* Turns the build options into #define/#undef lines; reports options it does not know. */
static char *options_to_directives(kl_context *ctx, const char *options) {
  size_t capacity = strlen(options) * 2 + 64;
  char *out = kl_alloc(ctx, capacity), *o = out;
  const char *s = options;
  kl_source *where = kl_new_source(ctx, "<build options>", options, strlen(options));
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    if (!*s) break;
    const char *word = s;
    while (*s && *s != ' ' && *s != '\t' && *s != '\n') s++;
    size_t n = (size_t)(s - word);
    kl_location at = {where, 1, (int)(word - options) + 1};
    if (n >= 2 && (word[1] == 'D' || word[1] == 'U') && word[0] == '-') {
      bool define = word[1] == 'D';
      const char *arg = word + 2;
      size_t arg_n = n - 2;
      if (arg_n == 0) { /* "-D NAME" */
        while (*s == ' ' || *s == '\t') s++;
        arg = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\n') s++;
        arg_n = (size_t)(s - arg);
      }
      if (arg_n == 0) {
        kl_error(ctx, at, "option '-%c' needs a macro name", word[1]);
        continue;
      }
      const char *eq = memchr(arg, '=', arg_n);
      size_t name_n = eq ? (size_t)(eq - arg) : arg_n;
      bool valid = name_n > 0;
      for (size_t i = 0; i < name_n; i++) {
        char c = arg[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (i > 0 && c >= '0' && c <= '9')))
          valid = false;
      }
      if (!valid) {
        kl_error(ctx, at, "invalid macro name in option '%.*s'", (int)(s - word), word);
        continue;
      }
      if (!define) {
        o += sprintf(o, "#undef %.*s\n", (int)name_n, arg);
      } else if (eq) {
        o += sprintf(o, "#define %.*s %.*s\n", (int)name_n, arg, (int)(arg_n - name_n - 1), eq + 1);
      } else {
        o += sprintf(o, "#define %.*s 1\n", (int)name_n, arg);
      }
      continue;
    }
    if (n >= 2 && word[0] == '-' && word[1] == 'I') { /* "-I DIR" or "-IDIR" */
      const char *dir = word + 2;
      size_t dir_n = n - 2;
      if (dir_n == 0) {
        while (*s == ' ' || *s == '\t') s++;
        dir = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\n') s++;
        dir_n = (size_t)(s - dir);
      }
      if (dir_n == 0)
        kl_error(ctx, at, "option '-I' needs a directory");
      else
        kl_include_add_dir(ctx, dir, dir_n);
      continue;
    }
    if (n > 4 && memcmp(word, "-cl-", 4) == 0 && is_opencl_option(word, n)) {
      if (n == 21 && memcmp(word, "-cl-fast-relaxed-math", 21) == 0) {
        ctx->fast_relaxed_math = true;
        o += sprintf(o, "#define __FAST_RELAXED_MATH__ 1\n");
      }
      continue; /* kept: the OpenCL backend passes them on */
    }
    if ((n == 2 && memcmp(word, "-w", 2) == 0) || (n == 7 && memcmp(word, "-Werror", 7) == 0))
      continue;
    /* One rule on every backend: an error, as OpenCL drivers make it. */
    kl_error(ctx, at,
             "unknown build option '%.*s' (the options are -D, -U, -I, -w, -Werror and "
             "OpenCL C 1.2's -cl-*)",
             (int)n, word);
  }
  *o = 0;
  return out;
}

static kl_token *run_directives(pp *p, const char *name, const char *text) {
  kl_source *source = kl_new_source(p->ctx, name, text, strlen(text));
  kl_token *tokens = kl_tokenize(p->ctx, source);
  return preprocess2(p, tokens);
}

kl_token *kl_preprocess(kl_context *ctx, kl_token *tokens) {
  pp p = {.ctx = ctx};
  p.end = kl_alloc(ctx, sizeof *p.end);
  p.end->kind = KL_TOKEN_END;
  p.end->text = "";
  p.end->at_line_start = true;

  kl_source *built_in = kl_new_source(ctx, "<built-in>", "", 0);
  kl_macro *line = add_macro(ctx, "__LINE__", 8);
  line->kind = MACRO_LINE;
  line->body = p.end;
  kl_macro *file = add_macro(ctx, "__FILE__", 8);
  file->kind = MACRO_FILE;
  file->body = p.end;
  (void)built_in;
  run_directives(&p, "<built-in>", predefined);
  if (ctx->options.traits.fp64) run_directives(&p, "<built-in>", predefined_fp64);
  if (ctx->options.traits.fp16) run_directives(&p, "<built-in>", "#define cl_khr_fp16 1\n");
  if (ctx->options.build_options && ctx->options.build_options[0])
    run_directives(&p, "<build options>", options_to_directives(ctx, ctx->options.build_options));

  kl_token *result = preprocess2(&p, tokens);
  for (cond_incl *c = p.conds; c; c = c->next)
    kl_error(ctx, kl_token_where(c->token), "unterminated #if (no #endif)");

  /* The normalised text: one space between tokens where there was space, a
   * newline where a line started. */
  size_t size = 1;
  for (kl_token *t = result; t->kind != KL_TOKEN_END; t = t->next) size += (size_t)t->length + 1;
  char *text = kl_alloc(ctx, size), *o = text;
  for (kl_token *t = result; t->kind != KL_TOKEN_END; t = t->next) {
    if (t != result && (t->at_line_start || t->space_before)) *o++ = t->at_line_start ? '\n' : ' ';
    memcpy(o, t->text, (size_t)t->length);
    o += t->length;
  }
  *o = 0;
  ctx->preprocessed_text = text;
  return result;
}
