// SPDX-License-Identifier: Apache-2.0
/* The preprocessor (C99 6.10, the part OpenCL C 1.2 kernels use), on
 * tokens: object- and function-like macros with # and ##, hidesets (Prosser's
 * algorithm, as chibicc does), conditional inclusion with full constant
 * expressions, #pragma OPENCL EXTENSION, #error, __LINE__ and __FILE__.
 * Macro expansions keep where they were used (kl_token.expanded_from). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preprocess_internal.h"

/* ------------------------------------------------------------ helpers */

static unsigned hash_name(const char *name, int length) {
  unsigned h = 2166136261u;
  for (int i = 0; i < length; i++) h = (h ^ (unsigned char)name[i]) * 16777619u;
  return h;
}

kl_macro *kpp_find_macro(kl_context *ctx, const char *name, int length) {
  if (!ctx->macros) return NULL;
  unsigned h = hash_name(name, length) % (unsigned)ctx->macro_buckets;
  for (kl_macro *m = ctx->macros[h]; m; m = m->next)
    if (m->length == length && memcmp(m->name, name, (size_t)length) == 0) return m;
  return NULL;
}

kl_macro *kpp_add_macro(kl_context *ctx, const char *name, int length) {
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

void kpp_remove_macro(kl_context *ctx, const char *name, int length) {
  if (!ctx->macros) return;
  unsigned h = hash_name(name, length) % (unsigned)ctx->macro_buckets;
  for (kl_macro **link = &ctx->macros[h]; *link; link = &(*link)->next)
    if ((*link)->length == length && memcmp((*link)->name, name, (size_t)length) == 0) {
      *link = (*link)->next;
      return;
    }
}

bool kpp_hideset_contains(const kl_hideset *hs, const char *name, int length) {
  for (; hs; hs = hs->next)
    if (hs->length == length && memcmp(hs->name, name, (size_t)length) == 0) return true;
  return false;
}

kl_hideset *kpp_hideset_add(kl_context *ctx, kl_hideset *hs, const char *name, int length) {
  if (kpp_hideset_contains(hs, name, length)) return hs;
  kl_hideset *h = kl_alloc(ctx, sizeof *h);
  h->name = name;
  h->length = length;
  h->next = hs;
  return h;
}

kl_hideset *kpp_hideset_union(kl_context *ctx, kl_hideset *a, kl_hideset *b) {
  for (; b; b = b->next) a = kpp_hideset_add(ctx, a, b->name, b->length);
  return a;
}

kl_hideset *kpp_hideset_intersection(kl_context *ctx, kl_hideset *a, kl_hideset *b) {
  kl_hideset *result = NULL;
  for (; a; a = a->next)
    if (kpp_hideset_contains(b, a->name, a->length))
      result = kpp_hideset_add(ctx, result, a->name, a->length);
  return result;
}

kl_token *kpp_copy_token(pp *p, const kl_token *token) {
  if (++p->ctx->token_count > KL_MAX_TOKENS) {
    kl_limit_error(p->ctx, kl_token_where(token), "macro expansion produces more than %d tokens",
                   KL_MAX_TOKENS);
    kl_bail(p->ctx);
  }
  return kl_token_copy(p->ctx, token);
}

bool kpp_is_hash(const kl_token *token) {
  return token->at_line_start && token->kind == KL_TOKEN_PUNCTUATOR && token->length == 1 &&
         token->text[0] == '#';
}

bool kpp_token_equals(const kl_token *token, const char *text) {
  return kl_token_is(token, text);
}

static char *token_name(kl_context *ctx, const kl_token *token) {
  return kl_strndup(ctx, token->text, (size_t)token->length);
}

/* The rest of a directive line as a new list ending in END; *rest is the next line. */
kl_token *kpp_copy_line(pp *p, kl_token **rest, kl_token *token) {
  kl_token head = {0}, *tail = &head;
  for (; !token->at_line_start && token->kind != KL_TOKEN_END; token = token->next) {
    tail->next = kpp_copy_token(p, token);
    tail = tail->next;
  }
  kl_token *end = kl_token_copy(p->ctx, p->end);
  end->location = token->location;
  tail->next = end;
  *rest = token;
  return head.next;
}

kl_token *kpp_skip_line(pp *p, kl_token *token) {
  if (token->at_line_start || token->kind == KL_TOKEN_END) return token;
  kl_warning(p->ctx, kl_token_where(token), "extra tokens at the end of the directive");
  while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
  return token;
}

/* ------------------------------------------------------------ #pragma */

static const char *const known_extensions[] = {
    "cl_khr_fp64",
    "cl_khr_fp16",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_byte_addressable_store",
    "all",
    NULL,
};

bool kl_extension_enabled(const kl_context *ctx, const char *name) {
  for (const kl_extension *e = ctx->extensions; e; e = e->next)
    if (strcmp(e->name, name) == 0 || strcmp(e->name, "all") == 0) return e->enabled;
  return false;
}

static void read_pragma(pp *p, kl_token *pragma, kl_token *t) {
  kl_context *ctx = p->ctx;
  if (t->at_line_start || t->kind == KL_TOKEN_END) return; /* empty pragma */
  if (kpp_token_equals(t, "OPENCL") && !t->next->at_line_start) {
    kl_token *what = t->next;
    if (kpp_token_equals(what, "EXTENSION")) {
      /* The directive may be the source's last line: stop at its end. */
      kl_token *name = what->next;
      kl_token *colon = name->kind == KL_TOKEN_END ? name : name->next;
      kl_token *state = colon->kind == KL_TOKEN_END ? colon : colon->next;
      if (name->at_line_start || name->kind != KL_TOKEN_IDENTIFIER || colon->at_line_start ||
          !kpp_token_equals(colon, ":") || state->at_line_start ||
          !(kpp_token_equals(state, "enable") || kpp_token_equals(state, "disable"))) {
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
      if (strcmp(ext, "cl_khr_fp64") == 0 && kpp_token_equals(state, "enable") &&
          !ctx->options.traits.fp64)
        kl_error(ctx, kl_token_where(name),
                 "extension 'cl_khr_fp64' is not supported by this device");
      if (strcmp(ext, "cl_khr_fp16") == 0 && kpp_token_equals(state, "enable") &&
          !ctx->options.traits.fp16)
        kl_error(ctx, kl_token_where(name),
                 "extension 'cl_khr_fp16' is not supported by this device");
      kl_extension *e = kl_alloc(ctx, sizeof *e);
      e->name = ext;
      e->enabled = kpp_token_equals(state, "enable");
      e->next = ctx->extensions;
      ctx->extensions = e;
      return;
    }
    if (kpp_token_equals(what, "FP_CONTRACT")) {
      /* ON, OFF or DEFAULT; an OFF anywhere turns contraction off in the
       * whole program (the scope rules are not kept). */
      kl_token *state = what->next;
      if (state->at_line_start || state->kind == KL_TOKEN_END ||
          !(kpp_token_equals(state, "ON") || kpp_token_equals(state, "OFF") ||
            kpp_token_equals(state, "DEFAULT")))
        kl_error(ctx, kl_token_where(what),
                 "expected '#pragma OPENCL FP_CONTRACT ON', 'OFF' or 'DEFAULT'");
      else if (kpp_token_equals(state, "OFF"))
        ctx->fp_contract_off = true;
      return;
    }
    kl_warning(ctx, kl_token_where(what), "unknown '#pragma OPENCL' ignored");
    return;
  }
  if (kpp_token_equals(t, "unroll") || kpp_token_equals(t, "nounroll"))
    return; /* a hint; not kept */
  if (kpp_token_equals(t, "once")) {
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
  kl_token *line = kpp_copy_line(p, &rest, token);
  if (line->kind != KL_TOKEN_STRING && !kpp_token_equals(line, "<"))
    line = kpp_preprocess2(p, line);
  const char *name = NULL;
  bool angled = false;
  kl_token *after = line;
  if (line->kind == KL_TOKEN_STRING && line->length >= 2 && line->text[0] == '"') {
    name = kl_strndup(ctx, line->text + 1, (size_t)line->length - 2);
    after = line->next;
  } else if (kpp_token_equals(line, "<")) {
    /* The name is the spelling of the tokens up to '>'. */
    const char *text = "";
    kl_token *t = line->next;
    for (; t->kind != KL_TOKEN_END && !kpp_token_equals(t, ">"); t = t->next)
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

kl_token *kpp_preprocess2(pp *p, kl_token *token) {
  kl_context *ctx = p->ctx;
  kl_token head = {0}, *tail = &head;

  while (token->kind != KL_TOKEN_END) {
    if (kpp_expand_macro(p, &token, token)) continue;
    if (!kpp_is_hash(token)) {
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

    if (kpp_token_equals(d, "define")) {
      kpp_read_define(p, &token, token, hash);
      continue;
    }
    if (kpp_token_equals(d, "undef")) {
      if (token->at_line_start || token->kind != KL_TOKEN_IDENTIFIER) {
        kl_error(ctx, kl_token_where(d), "#undef needs a macro name");
      } else {
        kpp_remove_macro(ctx, token->text, token->length);
        token = token->next;
      }
      token = kpp_skip_line(p, token);
      continue;
    }
    if (kpp_token_equals(d, "ifdef") || kpp_token_equals(d, "ifndef")) {
      bool defined = false;
      if (token->at_line_start || token->kind != KL_TOKEN_IDENTIFIER) {
        kl_error(ctx, kl_token_where(d), "#%.*s needs a macro name", d->length, d->text);
      } else {
        defined = kpp_find_macro(ctx, token->text, token->length) != NULL;
        token = token->next;
      }
      token = kpp_skip_line(p, token);
      bool included = kpp_token_equals(d, "ifdef") ? defined : !defined;
      kpp_push_cond(p, hash, included);
      if (!included) token = kpp_skip_group(p, token);
      continue;
    }
    if (kpp_token_equals(d, "if")) {
      bool value = kpp_eval_if(p, &token, d, token);
      kpp_push_cond(p, hash, value);
      if (!value) token = kpp_skip_group(p, token);
      continue;
    }
    if (kpp_token_equals(d, "elif")) {
      if (!p->conds || p->conds->state == IN_ELSE) {
        kl_error(ctx, kl_token_where(hash), p->conds ? "#elif after #else" : "#elif without #if");
        token = kpp_skip_line(p, token);
        while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
        continue;
      }
      p->conds->state = IN_ELIF;
      if (!p->conds->included && kpp_eval_if(p, &token, d, token)) {
        p->conds->included = true;
      } else {
        while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
        token = kpp_skip_group(p, token);
      }
      continue;
    }
    if (kpp_token_equals(d, "else")) {
      token = kpp_skip_line(p, token);
      if (!p->conds || p->conds->state == IN_ELSE) {
        kl_error(ctx, kl_token_where(hash), p->conds ? "#else after #else" : "#else without #if");
        continue;
      }
      p->conds->state = IN_ELSE;
      if (p->conds->included) token = kpp_skip_group(p, token);
      p->conds->included = true;
      continue;
    }
    if (kpp_token_equals(d, "endif")) {
      token = kpp_skip_line(p, token);
      if (!p->conds) {
        kl_error(ctx, kl_token_where(hash), "unbalanced #endif (no #if is open)");
        continue;
      }
      p->conds = p->conds->next;
      p->cond_depth--;
      continue;
    }
    if (kpp_token_equals(d, "pragma")) {
      read_pragma(p, d, token);
      while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
      continue;
    }
    if (kpp_token_equals(d, "error") || kpp_token_equals(d, "warning")) {
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
      if (kpp_token_equals(d, "error"))
        kl_error(ctx, kl_token_where(hash), "#error %.*s", length, start ? start : "");
      else
        kl_warning(ctx, kl_token_where(hash), "#warning %.*s", length, start ? start : "");
      continue;
    }
    if (d->kind == KL_TOKEN_NUMBER) {
      /* a line marker of preprocessed output, `# 12 "file.cl" 2`: like
       * #line, ignored, but silently (such files hold hundreds) */
      while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
      continue;
    }
    if (kpp_token_equals(d, "line")) {
      kl_warning(ctx, kl_token_where(d), "#line is ignored: diagnostics keep the real lines");
      while (!token->at_line_start && token->kind != KL_TOKEN_END) token = token->next;
      continue;
    }
    if (kpp_token_equals(d, "include")) {
      token = read_include(p, hash, token);
      continue;
    }
    kl_error(ctx, kl_token_where(hash), "unknown preprocessor directive '#%.*s'", d->length,
             d->text);
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
  static const char *const known[] = {"-cl-single-precision-constant",
                                      "-cl-denorms-are-zero",
                                      "-cl-fp32-correctly-rounded-divide-sqrt",
                                      "-cl-opt-disable",
                                      "-cl-mad-enable",
                                      "-cl-no-signed-zeros",
                                      "-cl-unsafe-math-optimizations",
                                      "-cl-finite-math-only",
                                      "-cl-fast-relaxed-math",
                                      "-cl-kernel-arg-info",
                                      "-cl-uniform-work-group-size",
                                      "-cl-no-subgroup-ifp",
                                      "-cl-std=CL1.1",
                                      "-cl-std=CL1.2",
                                      "-cl-std=CL2.0",
                                      "-cl-std=CL3.0",
                                      "-cl-std=CL1.0"};
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
    if (n == 20 && memcmp(word, "-anygpu-check=bounds", 20) == 0) {
      ctx->check_bounds = true; /* kernels/bounds.c; the core strips it for drivers */
      continue;
    }
    if ((n == 2 && memcmp(word, "-w", 2) == 0) || (n == 7 && memcmp(word, "-Werror", 7) == 0) ||
        (n == 16 && memcmp(word, "-Werror=portable", 16) == 0)) /* the translator is strict */
      continue;
    /* One rule on every backend: an error, as OpenCL drivers make it. */
    kl_error(ctx, at,
             "unknown build option '%.*s' (the options are -D, -U, -I, -w, -Werror, "
             "-Werror=portable, -anygpu-check=bounds and OpenCL C 1.2's -cl-*)",
             (int)n, word);
  }
  *o = 0;
  return out;
}

static kl_token *run_directives(pp *p, const char *name, const char *text) {
  kl_source *source = kl_new_source(p->ctx, name, text, strlen(text));
  kl_token *tokens = kl_tokenize(p->ctx, source);
  return kpp_preprocess2(p, tokens);
}

kl_token *kl_preprocess(kl_context *ctx, kl_token *tokens) {
  pp p = {.ctx = ctx};
  p.end = kl_alloc(ctx, sizeof *p.end);
  p.end->kind = KL_TOKEN_END;
  p.end->text = "";
  p.end->at_line_start = true;

  kl_source *built_in = kl_new_source(ctx, "<built-in>", "", 0);
  kl_macro *line = kpp_add_macro(ctx, "__LINE__", 8);
  line->kind = MACRO_LINE;
  line->body = p.end;
  kl_macro *file = kpp_add_macro(ctx, "__FILE__", 8);
  file->kind = MACRO_FILE;
  file->body = p.end;
  (void)built_in;
  run_directives(&p, "<built-in>", predefined);
  if (ctx->options.traits.fp64) run_directives(&p, "<built-in>", predefined_fp64);
  if (ctx->options.traits.fp16) run_directives(&p, "<built-in>", "#define cl_khr_fp16 1\n");
  if (ctx->options.build_options && ctx->options.build_options[0])
    run_directives(&p, "<build options>", options_to_directives(ctx, ctx->options.build_options));

  kl_token *result = kpp_preprocess2(&p, tokens);
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
