// SPDX-License-Identifier: Apache-2.0
/* The lexer: source text -> pp-tokens (C99 6.4), with 1-based line and
 * byte column of every token. Backslash-newline between tokens is skipped. */
#include <string.h>

#include "kl_front.h"

bool kl_token_is(const kl_token *token, const char *text) {
  if (token->length < 1 || token->text[0] != text[0]) return false;
  if (text[1] == 0)
    return token->length == 1 && token->kind != KL_TOKEN_END && token->kind != KL_TOKEN_STRING;
  size_t n = strlen(text);
  return token->kind != KL_TOKEN_END && token->kind != KL_TOKEN_STRING &&
         (size_t)token->length == n && memcmp(token->text, text, n) == 0;
}

kl_token *kl_token_copy(kl_context *ctx, const kl_token *token) {
  kl_token *copy = kl_alloc(ctx, sizeof *copy);
  *copy = *token;
  copy->next = NULL;
  return copy;
}

kl_location kl_token_where(const kl_token *token) {
  return token->expanded_from.source ? token->expanded_from : token->location;
}

static bool is_ident_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_ident_char(int c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}
static bool is_digit(int c) {
  return c >= '0' && c <= '9';
}

static const char *const punctuators[] = {
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
    "&&",  "||",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", NULL,
};

kl_token *kl_tokenize(kl_context *ctx, const kl_source *source) {
  const char *text = source->text, *end = text + source->length;
  const char *p = text;
  int line = 1;
  const char *line_start = text;
  bool at_line_start = true, space_before = false;
  kl_token head = {0}, *tail = &head;

  while (p < end) {
    char c = *p;
    if (c == '\n') {
      p++;
      line++;
      line_start = p;
      at_line_start = true;
      space_before = false;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      p++;
      space_before = true;
      continue;
    }
    if (c == '\\' && p + 1 < end &&
        (p[1] == '\n' || (p[1] == '\r' && p + 2 < end && p[2] == '\n'))) {
      p += p[1] == '\n' ? 2 : 3;
      line++;
      line_start = p;
      space_before = true;
      continue;
    }
    if (c == '/' && p + 1 < end && p[1] == '/') {
      while (p < end && *p != '\n') {
        if (*p == '\\' && p + 1 < end && p[1] == '\n') {
          p += 2;
          line++;
          line_start = p;
          continue;
        }
        p++;
      }
      space_before = true;
      continue;
    }
    if (c == '/' && p + 1 < end && p[1] == '*') {
      kl_location at = {source, line, (int)(p - line_start) + 1};
      p += 2;
      bool closed = false;
      while (p < end) {
        if (p[0] == '*' && p + 1 < end && p[1] == '/') {
          p += 2;
          closed = true;
          break;
        }
        if (*p == '\n') {
          line++;
          line_start = p + 1;
        }
        p++;
      }
      if (!closed) kl_error(ctx, at, "unterminated comment");
      space_before = true;
      continue;
    }

    kl_token *token = kl_alloc(ctx, sizeof *token);
    token->location = (kl_location){source, line, (int)(p - line_start) + 1};
    token->at_line_start = at_line_start;
    token->space_before = space_before;
    token->text = p;
    at_line_start = false;
    space_before = false;
    const char *start = p;

    if (is_digit(c) || (c == '.' && p + 1 < end && is_digit(p[1]))) {
      p++;
      while (p < end) {
        if ((p[0] == 'e' || p[0] == 'E' || p[0] == 'p' || p[0] == 'P') && p + 1 < end &&
            (p[1] == '+' || p[1] == '-'))
          p += 2;
        else if (is_ident_char(*p) || *p == '.')
          p++;
        else
          break;
      }
      token->kind = KL_TOKEN_NUMBER;
    } else if (is_ident_start(c)) {
      while (p < end && is_ident_char(*p)) p++;
      token->kind = KL_TOKEN_IDENTIFIER;
    } else if (c == '"' || c == '\'') {
      p++;
      while (p < end && *p != c && *p != '\n') {
        if (*p == '\\' && p + 1 < end && p[1] != '\n') p++;
        p++;
      }
      if (p >= end || *p != c) {
        kl_error(ctx, token->location, "unterminated %s",
                 c == '"' ? "string literal" : "character constant");
      } else {
        p++;
      }
      token->kind = c == '"' ? KL_TOKEN_STRING : KL_TOKEN_CHARACTER;
    } else {
      token->kind = KL_TOKEN_PUNCTUATOR;
      size_t n = 1;
      if (p + 1 < end && strchr("<>.-+&|=!*/%^#", c))
        for (int i = 0; punctuators[i]; i++) {
          if (punctuators[i][0] != c || punctuators[i][1] != p[1]) continue;
          size_t len = punctuators[i][2] ? 3 : 2;
          if ((size_t)(end - p) >= len && memcmp(p, punctuators[i], len) == 0) {
            n = len;
            break;
          }
        }
      if (n == 1 && !strchr("[](){}.&*+-~!/%<>^|?:;=,#", c)) {
        if ((unsigned char)c < 32 || (unsigned char)c >= 127)
          kl_error(ctx, token->location, "invalid character (byte 0x%02x)", (unsigned char)c);
        else
          kl_error(ctx, token->location, "invalid character '%c'", c);
        p++;
        continue; /* drop it: the arena keeps the token, unused */
      }
      p += n;
    }
    token->length = (int)(p - start);
    tail->next = token;
    tail = token;
  }
  kl_token *eof = kl_alloc(ctx, sizeof *eof);
  eof->kind = KL_TOKEN_END;
  eof->text = end;
  eof->location = (kl_location){source, line, (int)(p - line_start) + 1};
  eof->at_line_start = true;
  tail->next = eof;
  return head.next;
}

int kl_digit_value(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
