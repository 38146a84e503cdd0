// SPDX-License-Identifier: Apache-2.0
/* The preprocessor's macros (preprocess_internal.h): #define, and
 * expansion with # and ## and hidesets (Prosser's algorithm). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preprocess_internal.h"

/* ------------------------------------------------------------ #define */

void kpp_read_define(pp *p, kl_token **rest, kl_token *token, kl_token *hash) {
  kl_context *ctx = p->ctx;
  if (token->at_line_start || token->kind != KL_TOKEN_IDENTIFIER) {
    kl_error(ctx, kl_token_where(token), "macro name must be an identifier");
    while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
    *rest = token;
    return;
  }
  kl_token *name = token;
  if (kpp_token_equals(name, "defined"))
    kl_error(ctx, kl_token_where(name), "'defined' cannot be used as a macro name");
  token = token->next;
  kl_macro *m = kpp_add_macro(ctx, name->text, name->length);
  if (!token->at_line_start && kpp_token_equals(token, "(") && !token->space_before) {
    m->function_like = true;
    token = token->next;
    const kl_token *params[128];
    int count = 0;
    if (!token->at_line_start && kpp_token_equals(token, ")")) {
      token = token->next;
    } else {
      for (;;) {
        if (token->at_line_start || token->kind == KL_TOKEN_END) {
          kl_error(ctx, kl_token_where(hash),
                   "expected ')' in macro parameter list (it is unterminated)");
          break;
        }
        if (kpp_token_equals(token, "...")) {
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
            kl_error(ctx, kl_token_where(token), "duplicate macro parameter '%.*s'", token->length,
                     token->text);
        if (count < 128)
          params[count++] = token;
        else
          kl_error(ctx, kl_token_where(token), "too many macro parameters");
        token = token->next;
        if (!token->at_line_start && kpp_token_equals(token, ",")) {
          token = token->next;
          continue;
        }
        if (!token->at_line_start && kpp_token_equals(token, ")")) {
          token = token->next;
          break;
        }
        kl_error(ctx, kl_token_where(hash), "expected ')' in macro parameter list, found '%.*s'",
                 token->length, token->text);
        while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
        break;
      }
    }
    m->param_count = count;
    m->params = kl_alloc(ctx, sizeof(kl_token *) * (size_t)(count + 1));
    memcpy(m->params, params, sizeof(kl_token *) * (size_t)count);
  }
  m->body = kpp_copy_line(p, rest, token);
  /* ## may not start or end the replacement list. */
  kl_token *last = NULL;
  for (kl_token *t = m->body; t->kind != KL_TOKEN_END; t = t->next) last = t;
  if (m->body->kind != KL_TOKEN_END && kpp_token_equals(m->body, "##"))
    kl_error(ctx, kl_token_where(m->body), "'##' cannot appear at either end of a macro expansion");
  else if (last && kpp_token_equals(last, "##"))
    kl_error(ctx, kl_token_where(last), "'##' cannot appear at either end of a macro expansion");
}

/* ---------------------------------------------------------- expansion */

typedef struct macro_arg {
  kl_token *tokens;   /* as written, ending in END */
  kl_token *expanded; /* fully macro-expanded, lazily */
} macro_arg;

kl_token *kpp_preprocess2(pp *p, kl_token *token);

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
  for (const kl_token *t = arg; t->kind != KL_TOKEN_END; t = t->next)
    size += (size_t)t->length * 2 + 1;
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
  kl_token *s = kpp_copy_token(p, hash);
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
      kl_error(ctx, kl_token_where(lhs),
               "pasting \"%.*s\" and \"%.*s\" does not give a valid token", lhs->length, lhs->text,
               rhs->length, rhs->text);
    return kpp_copy_token(p, lhs);
  }
  kl_token *result = kpp_copy_token(p, lhs);
  result->kind = t->kind;
  result->text = t->text;
  result->length = t->length;
  return result;
}

static kl_token *expand_arg(pp *p, macro_arg *arg) {
  if (arg->expanded) return arg->expanded;
  if (p->depth >= KL_MAX_EXPANSION_DEPTH) {
    kl_limit_error(p->ctx, kl_token_where(arg->tokens), "macro arguments nested too deeply");
    kl_bail(p->ctx);
  }
  p->depth++;
  kl_token head = {0}, *tail = &head;
  for (kl_token *t = arg->tokens; t->kind != KL_TOKEN_END; t = t->next) {
    tail->next = kpp_copy_token(p, t);
    tail = tail->next;
  }
  tail->next = kl_token_copy(p->ctx, p->end);
  arg->expanded = kpp_preprocess2(p, head.next);
  p->depth--;
  return arg->expanded;
}

/* Substitutes the arguments into the body (C99 6.10.3.1-3). */
static kl_token *substitute(pp *p, const kl_macro *m, macro_arg *args, const kl_token *use) {
  kl_token head = {0}, *tail = &head;
  for (const kl_token *t = m->body; t->kind != KL_TOKEN_END; t = t->next) {
    /* # param */
    if (m->function_like && kpp_token_equals(t, "#")) {
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
    if (kpp_token_equals(t, "##") && tail != &head) {
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
        tail->next = kpp_copy_token(p, more);
        tail = tail->next;
      }
      t = rhs;
      continue;
    }
    int i = find_param(m, t);
    if (m->function_like && i >= 0) {
      /* An operand of ## is inserted unexpanded. */
      bool pasted = kpp_token_equals(t->next, "##");
      kl_token *arg = pasted ? args[i].tokens : expand_arg(p, &args[i]);
      if (pasted && arg->kind == KL_TOKEN_END) {
        /* an empty left operand: the right one stands alone */
        const kl_token *rhs = t->next->next;
        int j = find_param(m, rhs);
        if (j >= 0) {
          for (kl_token *a = args[j].tokens; a->kind != KL_TOKEN_END; a = a->next) {
            tail->next = kpp_copy_token(p, a);
            tail = tail->next;
          }
        } else if (rhs->kind != KL_TOKEN_END) {
          tail->next = kpp_copy_token(p, rhs);
          tail = tail->next;
        }
        t = rhs->kind == KL_TOKEN_END ? t->next : rhs;
        continue;
      }
      bool first_token = true;
      for (kl_token *a = arg; a->kind != KL_TOKEN_END; a = a->next) {
        kl_token *c = kpp_copy_token(p, a);
        if (first_token) c->space_before = t->space_before;
        first_token = false;
        tail->next = c;
        tail = c;
      }
      continue;
    }
    tail->next = kpp_copy_token(p, t);
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
  bool empty_call = kpp_token_equals(t, ")");
  for (;;) {
    kl_token head = {0}, *tail = &head;
    int level = 0;
    for (;;) {
      if (t->kind == KL_TOKEN_END) {
        kl_error(ctx, kl_token_where(name), "unterminated call to macro '%.*s'", name->length,
                 name->text);
        return NULL;
      }
      if (kpp_is_hash(t)) {
        kl_error(ctx, kl_token_where(t), "directives inside macro arguments are not supported");
        return NULL;
      }
      if (level == 0 && (kpp_token_equals(t, ",") || kpp_token_equals(t, ")"))) break;
      if (kpp_token_equals(t, "(")) level++;
      if (kpp_token_equals(t, ")")) level--;
      tail->next = kpp_copy_token(p, t);
      tail = tail->next;
      t = t->next;
    }
    kl_token *end = kl_token_copy(ctx, p->end);
    end->location = t->location;
    tail->next = end;
    if (count < capacity) args[count].tokens = head.next;
    count++;
    if (kpp_token_equals(t, ")")) break;
    t = t->next; /* ',' */
  }
  if (empty_call && m->param_count == 0) count = 0;
  if (count != m->param_count) {
    kl_error(ctx, kl_token_where(name),
             "wrong number of arguments to macro '%.*s' (%d given, %d expected)", name->length,
             name->text, count, m->param_count);
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
bool kpp_expand_macro(pp *p, kl_token **rest, kl_token *token) {
  kl_context *ctx = p->ctx;
  if (token->kind != KL_TOKEN_IDENTIFIER) return false;
  if (kpp_hideset_contains(token->hideset, token->text, token->length)) return false;
  kl_macro *m = kpp_find_macro(ctx, token->text, token->length);
  if (!m) return false;
  kl_location use = kl_token_where(token);

  if (m->kind == MACRO_LINE || m->kind == MACRO_FILE) {
    kl_token *t = kpp_copy_token(p, token);
    if (m->kind == MACRO_LINE) {
      t->kind = KL_TOKEN_NUMBER;
      t->text = kl_format(ctx, "%d", use.line);
    } else {
      t->kind = KL_TOKEN_STRING;
      t->text = kl_format(ctx, "\"%s\"", use.source ? use.source->name : "<source>");
    }
    t->length = (int)strlen(t->text);
    t->hideset = kpp_hideset_add(ctx, token->hideset, token->text, token->length);
    t->expanded_from = use;
    t->next = token->next;
    *rest = t;
    return true;
  }

  kl_hideset *hs;
  kl_token *after;
  macro_arg *args = NULL;
  if (!m->function_like) {
    hs = kpp_hideset_add(ctx, token->hideset, m->name, m->length);
    after = token->next;
  } else {
    if (!kpp_token_equals(token->next, "(")) return false;
    kl_token *rparen = NULL;
    args = read_args(p, token, token->next, m, &rparen);
    if (!args) {
      /* skip to the end: the error is reported */
      kl_token *t = token;
      while (t->kind != KL_TOKEN_END) t = t->next;
      *rest = t;
      return true;
    }
    hs = kpp_hideset_intersection(ctx, token->hideset, rparen->hideset);
    hs = kpp_hideset_add(ctx, hs, m->name, m->length);
    after = rparen->next;
  }
  kl_token *body = substitute(p, m, args, token);
  bool first = true;
  for (kl_token *t = body; t; t = t->next) {
    t->hideset = kpp_hideset_union(ctx, t->hideset, hs);
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
