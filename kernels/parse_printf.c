// SPDX-License-Identifier: Apache-2.0
/* printf in kernels, with OpenCL C's format rules (%d %i %o %u %x %X %c
 * %f %F %e %E %g %G %a %A, %s of a string literal, vectors as %v4f or
 * %v4hld, flags, width and precision; no * width, %p or %n).
 *
 * A call is lowered here, once, to ordinary kernel-language code that every
 * target already translates: the arguments are evaluated into temporaries,
 * one atomic_add reserves a record in the buffer that the hidden parameter
 * `__agpu_printf` points at, and the record's words are stored (the layout
 * is in kl.h). The format itself never reaches the device: it is checked
 * here against the arguments and kept, split into pieces, in the program
 * (kl_program.printf_formats) for the host to format the records with
 * (api/printf.c). So the output is the same on every device, in the same
 * order (by work-group, then work-item). */
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

/* One argument as parsed the first time (for its type), and where its
 * tokens are, to be parsed again inside the lowered code. */
typedef struct print_arg {
  kl_type *type;
  kl_token *first, *end; /* the tokens [first, end) */
  const char *string;    /* a string literal argument: its characters */
  kl_location at;
} print_arg;

enum { MAX_PRINT_ARGS = 64 };

/* Adjacent string literals from p->tok on, escapes decoded, into *out. */
static bool read_string(parser *p, char **out, size_t *length) {
  size_t capacity = 0, n = 0;
  for (kl_token *t = p->tok; t->kind == KL_TOKEN_STRING; t = t->next) capacity += (size_t)t->length;
  char *text = kl_alloc(p->ctx, capacity + 1);
  bool any = false;
  while (p->tok->kind == KL_TOKEN_STRING) {
    kl_token *t = p->tok;
    kl_location at = kl_token_where(t);
    const char *s = t->text + 1, *end = t->text + t->length - 1;
    while (s < end) {
      if (*s != '\\') {
        text[n++] = *s++;
        continue;
      }
      s++;
      text[n++] = (char)kp_escape(p, &s, end, at);
    }
    kp_advance(p);
    any = true;
  }
  text[n] = 0;
  *out = text;
  *length = n;
  return any;
}

/* The arguments after the format, up to the closing parenthesis. */
static int read_args(parser *p, print_arg *args) {
  int count = 0;
  while (kp_accept(p, ",") && !p->panic) {
    if (count == MAX_PRINT_ARGS) {
      kl_error(p->ctx, kp_here(p), "printf takes at most %d arguments", MAX_PRINT_ARGS);
      kl_bail(p->ctx);
    }
    print_arg *a = &args[count++];
    a->at = kl_token_where(p->tok);
    a->first = p->tok;
    if (p->tok->kind == KL_TOKEN_STRING) {
      size_t n;
      char *text;
      read_string(p, &text, &n);
      a->string = text;
    } else {
      /* parsed here for its type only: its temporaries are not kept */
      kl_node *hoisted = p->hoisted;
      a->type = kp_decay(p, kp_assignment(p))->type;
      p->hoisted = hoisted;
    }
    a->end = p->tok;
  }
  return count;
}

/* ------------------------------------------------------- the format */

typedef struct format_reader {
  parser *p;
  kl_location at;
  const char *s, *end;
  print_arg *args;
  int arg_count, next_arg;
  kl_print_piece head, *tail;
  int payload_words;
} format_reader;

static void add_piece(format_reader *r, kl_print_piece *piece) {
  r->tail->next = piece;
  r->tail = piece;
}

static void add_text(format_reader *r, const char *text, size_t length) {
  if (!length) return;
  kl_print_piece *piece = kl_alloc(r->p->ctx, sizeof *piece);
  piece->value = KL_PRINT_TEXT;
  piece->text = text;
  piece->text_length = length;
  add_piece(r, piece);
}

/* The length modifier at r->s: bits, 0 for none, -1 for one OpenCL C
 * does not have. */
static int read_length(format_reader *r) {
  if (r->s + 1 < r->end && r->s[0] == 'h' && r->s[1] == 'h') return r->s += 2, 8;
  if (r->s + 1 < r->end && r->s[0] == 'h' && r->s[1] == 'l') return r->s += 2, 32;
  if (r->s < r->end && r->s[0] == 'h') return r->s += 1, 16;
  if (r->s + 1 < r->end && r->s[0] == 'l' && r->s[1] == 'l') return r->s += 2, -1;
  if (r->s < r->end && r->s[0] == 'l') return r->s += 1, 64;
  if (r->s < r->end && strchr("Lzjtq", r->s[0])) return r->s += 1, -1;
  return 0;
}

/* Whether the argument suits the conversion; the piece learns how the
 * argument is stored. */
static bool check_arg(format_reader *r, kl_print_piece *piece, const print_arg *arg,
                      const char *spec) {
  kl_context *ctx = r->p->ctx;
  char c = piece->conversion;
  if (c == 's') {
    if (arg->string) return true;
    kl_error(ctx, arg->at,
             "printf's '%s' takes a string literal (no other strings exist in kernels)", spec);
    return false;
  }
  const kl_type *t = arg->type;
  bool vector = t && t->kind == KL_TYPE_VECTOR;
  const kl_type *element = t ? kl_type_scalar_of(t) : NULL;
  bool floating = element && kl_type_is_floating(element);
  bool integer = element && (kl_type_is_integer(element) || element->kind == KL_TYPE_BOOL);
  bool wants_float = strchr("fFeEgGaA", c) != NULL;
  const char *wanted = wants_float ? "a floating-point" : "an integer";
  if (arg->string || !(wants_float ? floating : integer) ||
      (t && vector != (piece->components > 1))) {
    const char *got = arg->string ? "a string literal"
                                  : kl_type_name(ctx, kl_type_unqualified(ctx, (kl_type *)t));
    if (piece->components > 1)
      kl_error(ctx, arg->at, "printf's '%s' takes %s vector of %d components, got '%s'", spec,
               wants_float ? "a floating-point" : "an integer", piece->components, got);
    else
      kl_error(ctx, arg->at, "printf's '%s' takes %s argument, got '%s'", spec, wanted, got);
    return false;
  }
  if (vector && t->length != piece->components) {
    kl_error(ctx, arg->at, "printf's '%s' takes a vector of %d components, got '%s'", spec,
             piece->components, kl_type_name(ctx, kl_type_unqualified(ctx, (kl_type *)t)));
    return false;
  }
  piece->value = floating                                                      ? KL_PRINT_FLOAT
                 : kl_type_is_signed(element) || element->kind == KL_TYPE_BOOL ? KL_PRINT_SIGNED
                                                                               : KL_PRINT_UNSIGNED;
  piece->arg_bits = element->size == 8 ? 64 : 32;
  return true;
}

/* One conversion, r->s just past its '%'. */
static void read_conversion(format_reader *r) {
  kl_context *ctx = r->p->ctx;
  const char *start = r->s - 1;
  while (r->s < r->end && strchr("-+ #0", *r->s)) r->s++;
  while (r->s < r->end && *r->s >= '0' && *r->s <= '9') r->s++;
  if (r->s < r->end && *r->s == '.') {
    r->s++;
    while (r->s < r->end && *r->s >= '0' && *r->s <= '9') r->s++;
  }
  const char *flags_end = r->s;
  kl_print_piece *piece = kl_alloc(ctx, sizeof *piece);
  piece->components = 1;
  if (r->s < r->end && *r->s == 'v') {
    r->s++;
    int n = 0;
    while (r->s < r->end && *r->s >= '0' && *r->s <= '9') n = n * 10 + (*r->s++ - '0');
    if (n != 2 && n != 3 && n != 4 && n != 8 && n != 16) {
      kl_error(ctx, r->at, "printf: the vector width in '%.*s' must be 2, 3, 4, 8 or 16",
               (int)(r->s - start), start);
      kl_bail(ctx);
    }
    piece->components = n;
  }
  int length = read_length(r);
  char c = r->s < r->end ? *r->s++ : 0;
  const char *spec = kl_format(ctx, "%.*s", (int)(r->s - start), start);
  if (c == '*' || (start + 1 < flags_end && memchr(start, '*', (size_t)(flags_end - start)))) {
    kl_error(ctx, r->at, "printf: '*' widths and precisions are not supported ('%s')", spec);
    kl_bail(ctx);
  }
  if (!c || !strchr("diouxXcfFeEgGaAs", c) || length < 0 ||
      (length == 32 && piece->components == 1) || (piece->components > 1 && strchr("cs", c))) {
    kl_error(ctx, r->at, "printf: '%s' is not a conversion OpenCL C's printf has%s", spec,
             c == 'p' ? " in anygpu (pointers have no portable value)" : "");
    kl_bail(ctx);
  }
  piece->conversion = c;
  piece->length_bits = length;
  piece->text = kl_format(ctx, "%.*s", (int)(flags_end - start), start);
  piece->text_length = strlen(piece->text);
  if (r->next_arg == r->arg_count) {
    kl_error(ctx, r->at, "printf: '%s' has no argument (%d given)", spec, r->arg_count);
    kl_bail(ctx);
  }
  const print_arg *arg = &r->args[r->next_arg++];
  if (!check_arg(r, piece, arg, spec)) kl_bail(ctx);
  if (c == 's') {
    piece->value = KL_PRINT_STRING;
    piece->string = arg->string;
  } else {
    r->payload_words += piece->components * (piece->arg_bits / 32);
  }
  add_piece(r, piece);
}

/* The format split into pieces, checked against the arguments. */
static kl_printf_format *read_format(parser *p, kl_location at, const char *text, size_t length,
                                     print_arg *args, int arg_count) {
  format_reader r = {
      .p = p, .at = at, .s = text, .end = text + length, .args = args, .arg_count = arg_count};
  r.tail = &r.head;
  while (r.s < r.end) {
    const char *percent = memchr(r.s, '%', (size_t)(r.end - r.s));
    if (!percent) percent = r.end;
    add_text(&r, r.s, (size_t)(percent - r.s));
    r.s = percent;
    if (r.s == r.end) break;
    r.s++;
    if (r.s < r.end && *r.s == '%') {
      add_text(&r, "%", 1);
      r.s++;
      continue;
    }
    read_conversion(&r);
  }
  if (r.next_arg < arg_count) {
    kl_error(p->ctx, args[r.next_arg].at,
             "printf: %d arguments given, the format converts %d of them", arg_count, r.next_arg);
    kl_bail(p->ctx);
  }
  kl_printf_format *format = kl_alloc(p->ctx, sizeof *format);
  format->location = at;
  format->pieces = r.head.next;
  format->payload_words = r.payload_words;
  return format;
}

/* -------------------------------------------------- the lowered code */

typedef struct lowering {
  kl_context *ctx;
  char *text;
  size_t length;
} lowering;

static void put(lowering *l, const char *text) {
  size_t n = strlen(text);
  char *grown = kl_alloc(l->ctx, l->length + n + 1);
  memcpy(grown, l->text, l->length);
  memcpy(grown + l->length, text, n + 1);
  l->text = grown;
  l->length += n;
}

/* The temporary's type for an argument: the element widened to 32 or 64
 * bits with its signedness (half to float), as a vector if it is one. */
static const char *temporary_type(const kl_print_piece *piece) {
  static const char *const names[2][3] = {{"int", "uint", "float"}, {"long", "ulong", "double"}};
  int kind = piece->value == KL_PRINT_SIGNED ? 0 : piece->value == KL_PRINT_UNSIGNED ? 1 : 2;
  return names[piece->arg_bits == 64][kind];
}

/* `T __agpu_aK = convert(@K);` for each converted argument. */
static void put_temporaries(lowering *l, const kl_printf_format *format) {
  int k = 0;
  for (const kl_print_piece *piece = format->pieces; piece; piece = piece->next) {
    if (piece->value == KL_PRINT_TEXT) continue;
    if (piece->value != KL_PRINT_STRING) {
      const char *type = temporary_type(piece);
      if (piece->components > 1)
        put(l, kl_format(l->ctx, "%s%d __agpu_a%d = convert_%s%d(__agpu_arg%d);\n", type,
                         piece->components, k, type, piece->components, k));
      else
        put(l, kl_format(l->ctx, "%s __agpu_a%d = (%s)(__agpu_arg%d);\n", type, k, type, k));
    }
    k++;
  }
}

/* The stores of the argument words, from word `at` of the record on. */
static void put_argument_words(lowering *l, const kl_printf_format *format) {
  int k = 0, word = KL_PRINTF_RECORD_WORDS;
  for (const kl_print_piece *piece = format->pieces; piece; piece = piece->next) {
    if (piece->value == KL_PRINT_TEXT) continue;
    for (int c = 0; piece->value != KL_PRINT_STRING && c < piece->components; c++) {
      const char *value = piece->components > 1 ? kl_format(l->ctx, "__agpu_a%d.s%x", k, c)
                                                : kl_format(l->ctx, "__agpu_a%d", k);
      const char *bits = value;
      if (piece->value == KL_PRINT_FLOAT)
        bits = kl_format(l->ctx, piece->arg_bits == 64 ? "as_ulong(%s)" : "as_uint(%s)", value);
      put(l, kl_format(l->ctx, "__agpu_printf[__agpu_o + %du] = (uint)(%s);\n", word++, bits));
      if (piece->arg_bits == 64)
        put(l, kl_format(l->ctx, "__agpu_printf[__agpu_o + %du] = (uint)((ulong)(%s) >> 32);\n",
                         word++, bits));
    }
    k++;
  }
}

static const char *lowered_text(kl_context *ctx, const kl_printf_format *format) {
  lowering l = {.ctx = ctx, .text = ""};
  unsigned words = KL_PRINTF_RECORD_WORDS + (unsigned)format->payload_words;
  put(&l, "{\n");
  put_temporaries(&l, format);
  put(&l,
      kl_format(ctx,
                "uint __agpu_at = __agpu_printf[0] < __agpu_printf[1] ? "
                "atomic_add(__agpu_printf, %uu) : __agpu_printf[1];\n"
                "if (__agpu_at <= __agpu_printf[1] - %uu) {\n"
                "uint __agpu_o = __agpu_at + %uu;\n"
                "__agpu_printf[__agpu_o] = %uu;\n"
                "__agpu_printf[__agpu_o + 1u] = %du;\n"
                "__agpu_printf[__agpu_o + 2u] = (uint)get_group_id(0) + (uint)get_num_groups(0) * "
                "((uint)get_group_id(1) + (uint)get_num_groups(1) * (uint)get_group_id(2));\n"
                "__agpu_printf[__agpu_o + 3u] = (uint)get_local_id(0) + (uint)get_local_size(0) * "
                "((uint)get_local_id(1) + (uint)get_local_size(1) * (uint)get_local_id(2));\n",
                words, words, (unsigned)KL_PRINTF_HEADER_WORDS, words, format->id));
  put_argument_words(&l, format);
  /* a record that does not fit: counted, and where it would have started
   * kept (the host reads up to there: the words after are not written) */
  put(&l,
      "} else {\natomic_inc(__agpu_printf + 2);\natomic_min(__agpu_printf + 3, "
      "__agpu_at);\n}\n}\n");
  return l.text;
}

/* The lowered code as tokens, each `__agpu_argK` replaced by argument K's
 * own tokens in parentheses, followed by `rest`. */
static kl_token *lowered_tokens(parser *p, const char *text, kl_location at, print_arg *args,
                                kl_token *rest) {
  kl_context *ctx = p->ctx;
  kl_source *source = kl_new_source(ctx, "<printf>", text, strlen(text));
  kl_token head = {0}, *tail = &head;
  for (kl_token *t = kl_tokenize(ctx, source); t->kind != KL_TOKEN_END; t = t->next) {
    int k;
    if (t->kind == KL_TOKEN_IDENTIFIER && t->length > 10 &&
        strncmp(t->text, "__agpu_arg", 10) == 0 && (k = atoi(t->text + 10)) >= 0) {
      kl_token *open = kl_token_copy(ctx, t), *close = kl_token_copy(ctx, t);
      open->kind = close->kind = KL_TOKEN_PUNCTUATOR;
      open->text = "(";
      close->text = ")";
      open->length = close->length = 1;
      open->location = close->location = args[k].at;
      tail = tail->next = open;
      for (kl_token *a = args[k].first; a != args[k].end; a = a->next)
        tail = tail->next = kl_token_copy(ctx, a);
      tail = tail->next = close;
      continue;
    }
    kl_token *copy = kl_token_copy(ctx, t);
    copy->location = at; /* what goes wrong in it is the printf's */
    tail = tail->next = copy;
  }
  tail->next = rest;
  return head.next;
}

/* printf-statement = "printf" "(" string-literal+ ("," argument)* ")" ";" */
kl_node *kp_printf_statement(parser *p) {
  kl_location at = kp_here(p);
  kp_advance(p); /* printf */
  kp_advance(p); /* ( */
  char *text;
  size_t length;
  if (!read_string(p, &text, &length)) {
    kl_error(p->ctx, kp_here(p), "printf's format must be a string literal");
    kl_bail(p->ctx);
  }
  print_arg args[MAX_PRINT_ARGS];
  memset(args, 0, sizeof args);
  int errors = kl_error_count(p->ctx);
  int count = read_args(p, args);
  kp_expect(p, ")", "after printf's arguments");
  kp_expect(p, ";", "after printf(...)");
  if (kl_error_count(p->ctx) != errors || p->panic) return kp_new_node(p, KL_STMT_EMPTY, at);
  kl_printf_format *format = read_format(p, at, text, length, args, count);
  format->id = p->program->printf_format_count++;
  if (p->printf_tail)
    p->printf_tail->next = format;
  else
    p->program->printf_formats = format;
  p->printf_tail = format;
  kp_printf_buffer(p);
  /* the conversions take the arguments in order: __agpu_argK is args[K] */
  p->tok = lowered_tokens(p, lowered_text(p->ctx, format), at, args, p->tok);
  return kp_statement(p);
}

kl_variable *kp_printf_buffer(parser *p) {
  kl_function *f = p->function;
  if (f->printf_buffer) return f->printf_buffer;
  if (f->called)
    kl_error(p->ctx, f->location,
             "'%s' prints (printf, or a call of a function that does) but is called before "
             "its definition: define it before the functions that call it",
             f->name);
  kl_token name = {
      .kind = KL_TOKEN_IDENTIFIER, .text = "__agpu_printf", .length = 13, .location = f->location};
  kl_type *type = kl_type_pointer(p->ctx, kl_type_scalar(p->ctx, KL_TYPE_UINT), KL_SPACE_GLOBAL);
  kl_variable *v = kp_new_variable(p, &name, type, KL_SPACE_PRIVATE);
  v->is_parameter = true;
  kl_variable **last = &f->params;
  while (*last) last = &(*last)->next;
  *last = v;
  f->param_count++;
  scope *saved = p->scope;
  p->scope = p->parameter_scope;
  kp_add_sym(p, name.text, name.length)->variable = v;
  p->scope = saved;
  f->printf_buffer = v;
  return v;
}
