// SPDX-License-Identifier: Apache-2.0
/* Just enough JSON to read a Vulkan driver manifest: the string at
 * {"ICD": {"library_path": "..."}}. Anything malformed is "not found". */
#include <string.h>

#include "doctor_manifest.h"

typedef struct json_cursor {
  const char *at;
  const char *end;
} json_cursor;

static void skip_space(json_cursor *c) {
  while (c->at < c->end && (*c->at == ' ' || *c->at == '\t' || *c->at == '\n' || *c->at == '\r'))
    c->at++;
}

/* Reads a string into out (escapes decoded for ASCII; \u kept as '?'). */
static bool read_string(json_cursor *c, char *out, size_t capacity) {
  skip_space(c);
  if (c->at >= c->end || *c->at != '"') return false;
  c->at++;
  size_t length = 0;
  while (c->at < c->end && *c->at != '"') {
    char ch = *c->at++;
    if (ch == '\\') {
      if (c->at >= c->end) return false;
      char escape = *c->at++;
      switch (escape) {
        case 'n':
          ch = '\n';
          break;
        case 't':
          ch = '\t';
          break;
        case 'r':
          ch = '\r';
          break;
        case 'b':
          ch = '\b';
          break;
        case 'f':
          ch = '\f';
          break;
        case 'u':
          if (c->end - c->at < 4) return false;
          c->at += 4;
          ch = '?';
          break;
        default:
          ch = escape; /* \" \\ \/ */
      }
    }
    if (out && length + 1 < capacity) out[length++] = ch;
  }
  if (c->at >= c->end) return false;
  c->at++;
  if (out && capacity) out[length] = '\0';
  return true;
}

static bool skip_value(json_cursor *c, int depth);

static bool skip_container(json_cursor *c, char close, int depth) {
  c->at++;
  skip_space(c);
  if (c->at < c->end && *c->at == close) {
    c->at++;
    return true;
  }
  for (;;) {
    if (close == '}') {
      if (!read_string(c, NULL, 0)) return false;
      skip_space(c);
      if (c->at >= c->end || *c->at++ != ':') return false;
    }
    if (!skip_value(c, depth + 1)) return false;
    skip_space(c);
    if (c->at >= c->end) return false;
    if (*c->at == ',') {
      c->at++;
      continue;
    }
    if (*c->at++ == close) return true;
    return false;
  }
}

static bool skip_value(json_cursor *c, int depth) {
  skip_space(c);
  if (c->at >= c->end || depth > 32) return false;
  if (*c->at == '"') return read_string(c, NULL, 0);
  if (*c->at == '{') return skip_container(c, '}', depth);
  if (*c->at == '[') return skip_container(c, ']', depth);
  const char *start = c->at; /* a number, true, false or null */
  while (c->at < c->end && !strchr(",}] \t\r\n", *c->at)) c->at++;
  return c->at > start;
}

/* Positions the cursor on the value of `key` in the object at the cursor. */
static bool find_member(json_cursor *c, const char *key) {
  skip_space(c);
  if (c->at >= c->end || *c->at != '{') return false;
  c->at++;
  for (;;) {
    char name[128];
    skip_space(c);
    if (c->at < c->end && *c->at == '}') return false;
    if (!read_string(c, name, sizeof name)) return false;
    skip_space(c);
    if (c->at >= c->end || *c->at++ != ':') return false;
    if (strcmp(name, key) == 0) {
      skip_space(c);
      return true;
    }
    if (!skip_value(c, 1)) return false;
    skip_space(c);
    if (c->at >= c->end || *c->at != ',') return false;
    c->at++;
  }
}

bool manifest_icd_string(const char *json, const char *member, char *out, size_t capacity) {
  json_cursor c = {json, json + strlen(json)};
  if (!find_member(&c, "ICD") || !find_member(&c, member)) return false;
  return read_string(&c, out, capacity);
}
