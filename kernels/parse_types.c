// SPDX-License-Identifier: Apache-2.0
/* Declaration specifiers, struct declarations and declarators
 * (parse_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

bool kp_tok_is(const kl_token *t, const char *text) {
  return t->kind == KL_TOKEN_IDENTIFIER && kl_token_is(t, text);
}

static const char *const image_types[] = {
    "image1d_t", "image1d_array_t", "image1d_buffer_t", "image2d_t",       "image2d_array_t",
    "image3d_t", "sampler_t",       "event_t",          "image2d_depth_t", "image2d_msaa_t",
    NULL,
};

static bool is_image_type(const kl_token *t) {
  for (int i = 0; image_types[i]; i++)
    if (kp_tok_is(t, image_types[i])) return true;
  return kp_tok_is(t, "__read_only") || kp_tok_is(t, "read_only") || kp_tok_is(t, "__write_only") ||
         kp_tok_is(t, "write_only") || kp_tok_is(t, "__read_write") || kp_tok_is(t, "read_write");
}

/* "images" or "samplers" for OpenCL C's image builtins and constants
 * (read_imagef, get_image_width, CLK_ADDRESS_CLAMP, CLK_RGBA), else NULL. */
const char *kp_image_name_kind(const kl_token *t) {
  static const char *const image_prefixes[] = {"read_image", "write_image", "get_image_", "CLK_",
                                               NULL};
  static const char *const sampler_prefixes[] = {"CLK_NORMALIZED_COORDS_", "CLK_ADDRESS_",
                                                 "CLK_FILTER_", NULL};
  if (t->kind != KL_TOKEN_IDENTIFIER) return NULL;
  for (int i = 0; sampler_prefixes[i]; i++) {
    size_t n = strlen(sampler_prefixes[i]);
    if ((size_t)t->length > n && memcmp(t->text, sampler_prefixes[i], n) == 0) return "samplers";
  }
  for (int i = 0; image_prefixes[i]; i++) {
    size_t n = strlen(image_prefixes[i]);
    if ((size_t)t->length > n && memcmp(t->text, image_prefixes[i], n) == 0) return "images";
  }
  return NULL;
}

static const char *const type_keywords[] = {
    "void",       "bool",     "char",      "short",         "int",       "long",     "float",
    "double",     "half",     "unsigned",  "signed",        "struct",    "union",    "enum",
    "const",      "volatile", "restrict",  "__global",      "global",    "__local",  "local",
    "__constant", "constant", "__private", "private",       "typedef",   "__kernel", "kernel",
    "inline",     "static",   "extern",    "__attribute__", "uchar",     "ushort",   "uint",
    "ulong",      "size_t",   "ptrdiff_t", "intptr_t",      "uintptr_t", "__const",  "__restrict",
    "__volatile", "__inline", NULL,
};

bool kp_is_type_start(parser *p, const kl_token *t) {
  if (t->kind != KL_TOKEN_IDENTIFIER) return false;
  for (int i = 0; type_keywords[i]; i++)
    if (kl_token_is(t, type_keywords[i])) return true;
  if (is_image_type(t)) return true;
  if (kl_type_from_name(p->ctx, t->text, t->length)) return true;
  sym *s = kp_find_sym(p, t->text, t->length);
  return s && s->typedef_type;
}

void kp_skip_parens(parser *p) {
  /* skips a balanced (...) group, the current token being '(' */
  int level = 0;
  do {
    if (kp_is(p, "(")) level++;
    if (kp_is(p, ")")) level--;
    kp_advance(p);
  } while (level > 0 && p->tok->kind != KL_TOKEN_END);
}

static kl_type *struct_decl(parser *p, bool is_union);

/* What declaration specifiers have said so far about the type. */
typedef struct spec_words {
  int n_unsigned, n_signed, n_char, n_short, n_int, n_long;
  kl_type *named;      /* a struct, a typedef name, a vector or other named type */
  kl_location type_at; /* where the type was said */
  bool any;            /* a specifier was read */
} spec_words;

static bool storage_class(parser *p, decl_spec *spec, bool allow_storage) {
  kl_token *t = p->tok;
  if (!(kp_tok_is(t, "typedef") || kp_tok_is(t, "__kernel") || kp_tok_is(t, "kernel") ||
        kp_tok_is(t, "inline") || kp_tok_is(t, "__inline") || kp_tok_is(t, "static") ||
        kp_tok_is(t, "extern")))
    return false;
  if (!allow_storage) {
    kl_error(p->ctx, kp_here(p), "'%.*s' is not allowed here", t->length, t->text);
  } else if (kp_tok_is(t, "typedef")) {
    spec->is_typedef = true;
  } else if (kp_tok_is(t, "__kernel") || kp_tok_is(t, "kernel")) {
    spec->is_kernel = true;
  } else if (kp_tok_is(t, "extern")) {
    kl_error(p->ctx, kp_here(p), "'extern' is not supported: a kernel source is one file");
  } else if (kp_tok_is(t, "static")) {
    spec->is_static = true;
  } else {
    spec->is_inline = true;
  }
  kp_advance(p);
  return true;
}

/* const, volatile, restrict and the address spaces. */
static bool qualifier(parser *p, decl_spec *spec) {
  kl_token *t = p->tok;
  unsigned qualifier =
      kp_tok_is(t, "const") || kp_tok_is(t, "__const")         ? KL_QUALIFIER_CONST
      : kp_tok_is(t, "volatile") || kp_tok_is(t, "__volatile") ? KL_QUALIFIER_VOLATILE
      : kp_tok_is(t, "restrict") || kp_tok_is(t, "__restrict") ? KL_QUALIFIER_RESTRICT
                                                               : 0;
  if (qualifier) {
    spec->qualifiers |= qualifier;
    kp_advance(p);
    return true;
  }
  kl_address_space space = KL_SPACE_PRIVATE;
  if (kp_tok_is(t, "__global") || kp_tok_is(t, "global"))
    space = KL_SPACE_GLOBAL;
  else if (kp_tok_is(t, "__local") || kp_tok_is(t, "local"))
    space = KL_SPACE_LOCAL;
  else if (kp_tok_is(t, "__constant") || kp_tok_is(t, "constant"))
    space = KL_SPACE_CONSTANT;
  else if (!kp_tok_is(t, "__private") && !kp_tok_is(t, "private"))
    return false;
  if (spec->has_space && spec->space != space)
    kl_error(p->ctx, kp_here(p), "conflicting address spaces");
  spec->has_space = true;
  spec->space = space;
  kp_advance(p);
  return true;
}

/* Images, samplers and events: refused, parsed on as int. */
static void image_word(parser *p, spec_words *w) {
  kl_token *t = p->tok;
  if (kp_tok_is(t, "sampler_t"))
    kl_error(p->ctx, kp_here(p),
             "samplers are not in the portable subset: sampler types are not supported "
             "('sampler_t'); index a __global buffer instead");
  else if (kp_tok_is(t, "event_t"))
    kl_error(p->ctx, kp_here(p),
             "event types are not supported ('event_t'): async copies are outside the subset");
  else if (t->text[t->length - 1] == 't')
    kl_error(p->ctx, kp_here(p),
             "images are not in the portable subset: image types are not supported ('%.*s'); "
             "pass the pixels in a __global buffer",
             t->length, t->text);
  /* else __read_only and friends: the image type reports */
  kp_advance(p);
  if (t->text[t->length - 1] == 't') w->named = kp_int_type(p);
}

/* enum: refused, skipped, parsed on as int. */
/* One enumerator, `NAME` or `NAME = constant`: an int constant in scope,
 * one more than the previous one unless given. */
static void enumerator(parser *p, int64_t *next) {
  kl_token *name = p->tok;
  if (name->kind != KL_TOKEN_IDENTIFIER) {
    kp_syntax_error_at(p, kp_here(p), "expected an enumerator name", NULL);
    return;
  }
  kp_advance(p);
  if (kp_accept(p, "=")) {
    kl_node *value = kp_conditional(p);
    if (!kl_eval_int(p->ctx, value, next))
      kl_error(p->ctx, value->location, "the value of '%.*s' must be an integer constant",
               name->length, name->text);
  }
  if (*next < INT32_MIN || *next > INT32_MAX)
    kl_error(p->ctx, kl_token_where(name), "the value of '%.*s' does not fit an int", name->length,
             name->text);
  sym *s;
  kp_declare_name(p, name, &s);
  s->is_enumerator = true;
  s->enumerator = (*next)++;
}

/* enum [tag] { A, B = 3, C } or enum tag: the type is int (OpenCL C's
 * enumerations, whose constants fit an int), the enumerators int constants. */
static void enum_word(parser *p, spec_words *w) {
  decl_spec ignored;
  memset(&ignored, 0, sizeof ignored);
  kp_advance(p); /* enum */
  kp_attributes(p, &ignored);
  if (p->tok->kind == KL_TOKEN_IDENTIFIER) kp_advance(p); /* the tag names int */
  w->named = kp_int_type(p);
  if (!kp_accept(p, "{")) return;
  int64_t next = 0;
  while (!kp_is(p, "}") && p->tok->kind != KL_TOKEN_END && !p->panic) {
    enumerator(p, &next);
    if (!kp_accept(p, ",")) break;
  }
  kp_expect(p, "}", "to close the enumeration");
  kp_attributes(p, &ignored);
}

static bool has_type_words(const spec_words *w) {
  return w->named || w->n_int || w->n_char || w->n_short || w->n_long || w->n_unsigned ||
         w->n_signed;
}

/* Types that take a word or a declaration of their own. */
static bool special_type(parser *p, spec_words *w) {
  kl_token *t = p->tok;
  if (is_image_type(t)) {
    image_word(p, w);
  } else if (kp_tok_is(t, "intptr_t") || kp_tok_is(t, "uintptr_t")) {
    /* 64-bit on every target, as ptrdiff_t and size_t are (issue 33) */
    if (has_type_words(w)) kl_error(p->ctx, kp_here(p), "two types in one declaration");
    w->type_at = kp_here(p);
    w->named =
        kl_type_scalar(p->ctx, kp_tok_is(t, "intptr_t") ? KL_TYPE_PTRDIFF_T : KL_TYPE_SIZE_T);
    kp_advance(p);
  } else if (kp_tok_is(t, "struct") || kp_tok_is(t, "union")) {
    if (has_type_words(w)) kl_error(p->ctx, kp_here(p), "two types in one declaration");
    w->type_at = kp_here(p);
    w->named = struct_decl(p, kp_tok_is(t, "union"));
  } else if (kp_tok_is(t, "enum")) {
    enum_word(p, w);
  } else {
    return false;
  }
  return true;
}

/* unsigned, signed, char, short, int, long: counted, combined after. */
static bool integer_word(parser *p, spec_words *w) {
  kl_token *t = p->tok;
  int *count = kp_tok_is(t, "unsigned") ? &w->n_unsigned
               : kp_tok_is(t, "signed") ? &w->n_signed
               : kp_tok_is(t, "char")   ? &w->n_char
               : kp_tok_is(t, "short")  ? &w->n_short
               : kp_tok_is(t, "int")    ? &w->n_int
               : kp_tok_is(t, "long")   ? &w->n_long
                                        : NULL;
  if (!count) return false;
  (*count)++;
  if (count != &w->n_unsigned && count != &w->n_signed) w->type_at = kp_here(p);
  kp_advance(p);
  return true;
}

/* A builtin type's name (float4, size_t...) or a typedef name. */
static bool named_type(parser *p, spec_words *w) {
  kl_token *t = p->tok;
  kl_type *type = kl_type_from_name(p->ctx, t->text, t->length);
  if (!type) {
    sym *s = kp_find_sym(p, t->text, t->length);
    type = s ? s->typedef_type : NULL;
  }
  if (!type) return false;
  w->named = type;
  w->type_at = kp_here(p);
  kp_advance(p);
  return true;
}

/* The integer words combined, with a named type or alone. */
static kl_type *combined_type(parser *p, spec_words *w) {
  kl_type *named = w->named;
  if (!(w->n_char + w->n_short + w->n_int + w->n_long + w->n_unsigned + w->n_signed)) return named;
  if (named && (w->n_char || w->n_short || w->n_int || w->n_long)) {
    kl_error(p->ctx, w->type_at, "two types in one declaration");
    return named;
  }
  if (named) {
    if (!kl_type_is_integer(named) || named->kind == KL_TYPE_SIZE_T) {
      kl_error(p->ctx, w->type_at, "'%s' cannot be %s", kp_type_name(p, named),
               w->n_unsigned ? "unsigned" : "signed");
      return named;
    }
    return w->n_unsigned ? kl_type_unsigned_of(p->ctx, named) : named;
  }
  if (w->n_unsigned && w->n_signed) {
    kl_error(p->ctx, w->type_at, "both 'signed' and 'unsigned'");
    return kp_int_type(p);
  }
  if (w->n_long > 1) {
    kl_error(p->ctx, w->type_at, "'long long' is not in OpenCL C: 'long' is 64 bits");
    w->n_long = 1;
  }
  kl_type_kind k;
  if (w->n_char)
    k = w->n_unsigned ? KL_TYPE_UCHAR : KL_TYPE_CHAR;
  else if (w->n_short)
    k = w->n_unsigned ? KL_TYPE_USHORT : KL_TYPE_SHORT;
  else if (w->n_long)
    k = w->n_unsigned ? KL_TYPE_ULONG : KL_TYPE_LONG;
  else
    k = w->n_unsigned ? KL_TYPE_UINT : KL_TYPE_INT;
  if (w->n_char + w->n_short + w->n_long > 1)
    kl_error(p->ctx, w->type_at, "invalid combination of type specifiers");
  return kl_type_scalar(p->ctx, k);
}

/* double and half need the device's extension. */
static void check_extension_types(parser *p, kl_type *type, kl_location at) {
  if (type->kind == KL_TYPE_DOUBLE ||
      (type->kind == KL_TYPE_VECTOR && type->element->kind == KL_TYPE_DOUBLE)) {
    if (!p->ctx->options.traits.fp64)
      kl_error(p->ctx, at, "type '%s' needs cl_khr_fp64, which this device does not support",
               kp_type_name(p, type));
  }
  if (type->kind == KL_TYPE_HALF ||
      (type->kind == KL_TYPE_VECTOR && type->element->kind == KL_TYPE_HALF)) {
    if (!p->ctx->options.traits.fp16)
      kl_error(p->ctx, at, "type '%s' needs cl_khr_fp16, which this device does not support",
               kp_type_name(p, type));
  }
}

/* declaration-specifiers = (storage-class | qualifier | address-space |
 *                           attribute | type-specifier)+ */
void kp_declspec(parser *p, decl_spec *spec, bool allow_storage) {
  memset(spec, 0, sizeof *spec);
  spec->at = kp_here(p);
  spec_words w = {.type_at = kp_here(p)};
  for (;;) {
    kl_token *t = p->tok;
    if (t->kind != KL_TOKEN_IDENTIFIER) break;
    if (kp_tok_is(t, "__attribute__")) {
      kp_attribute(p, spec);
    } else if (!storage_class(p, spec, allow_storage) && !qualifier(p, spec) &&
               !special_type(p, &w) && !integer_word(p, &w)) {
      if (w.named || w.n_char || w.n_short || w.n_int || w.n_long || w.n_unsigned || w.n_signed)
        break;
      if (!named_type(p, &w)) break;
    }
    w.any = true;
  }
  kl_type *type = combined_type(p, &w);
  if (!type) {
    if (w.any && p->in_parameter) {
      spec->implicit_int = true; /* the caller warns, naming the parameter */
    } else if (w.any) {
      kl_error(p->ctx, kp_here(p), "expected a type, found %s", kp_token_text(p, p->tok));
    }
    type = kp_int_type(p);
  }
  check_extension_types(p, type, w.type_at);
  spec->type = type;
}

static void add_struct_to_program(parser *p, kl_type *t) {
  kl_program *prog = p->program;
  if (prog->struct_count == p->struct_capacity) {
    int capacity = p->struct_capacity ? p->struct_capacity * 2 : 8;
    kl_type **list = kl_alloc(p->ctx, sizeof(kl_type *) * (size_t)capacity);
    if (prog->struct_count)
      memcpy(list, prog->structs, sizeof(kl_type *) * (size_t)prog->struct_count);
    prog->structs = list;
    p->struct_capacity = capacity;
  }
  prog->structs[prog->struct_count++] = t;
}

/* A new struct type in the current scope, under its tag when it has one. */
static kl_type *kp_new_struct_tag(parser *p, const kl_token *tag_token) {
  kl_type *type = kl_type_struct(
      p->ctx, tag_token ? kl_strndup(p->ctx, tag_token->text, (size_t)tag_token->length) : NULL);
  if (!tag_token) return type;
  tag *nt = kl_alloc(p->ctx, sizeof *nt);
  nt->name = tag_token->text;
  nt->length = tag_token->length;
  nt->type = type;
  nt->next = p->scope->tags;
  p->scope->tags = nt;
  return type;
}

kl_type *kp_declarator(parser *p, kl_type *base, kl_address_space pointee_space, kl_token **name,
                       bool is_param);

static kl_type *struct_decl(parser *p, bool is_union) {
  kl_location at = kp_here(p);
  kp_advance(p);        /* struct or union */
  decl_spec attributes; /* after 'struct' and after the closing brace */
  memset(&attributes, 0, sizeof attributes);
  kp_attributes(p, &attributes);
  kl_token *tag_token = NULL;
  if (p->tok->kind == KL_TOKEN_IDENTIFIER) {
    tag_token = p->tok;
    kp_advance(p);
  }
  if (!kp_is(p, "{")) {
    if (!tag_token) {
      kp_syntax_error_at(p, kp_here(p), "expected a struct tag or '{'", NULL);
      return kp_int_type(p);
    }
    tag *t = kp_find_tag(p, tag_token->text, tag_token->length, false);
    if (t) return t->type;
    return kp_new_struct_tag(p, tag_token); /* a forward declaration: incomplete */
  }
  kl_type *type = NULL;
  if (tag_token) {
    tag *t = kp_find_tag(p, tag_token->text, tag_token->length, true);
    if (t && t->type->members) {
      kl_error(p->ctx, kl_token_where(tag_token), "redefinition of 'struct %.*s'",
               tag_token->length, tag_token->text);
    } else if (t) {
      type = t->type;
    }
  }
  if (!type) type = kp_new_struct_tag(p, tag_token);
  kp_advance(p); /* { */
  kl_member head = {0}, *tail = &head;
  kp_enter_depth(p);
  while (!kp_is(p, "}") && p->tok->kind != KL_TOKEN_END) {
    decl_spec spec;
    kl_location member_at = kp_here(p);
    kp_declspec(p, &spec, false);
    for (bool first = true; !p->panic; first = false) {
      if (!first && !kp_accept(p, ",")) break;
      kl_token *name = NULL;
      kl_type *mt = kp_declarator(
          p, kl_type_qualified(p->ctx, spec.type, spec.qualifiers | spec.type->qualifiers),
          spec.has_space ? spec.space : KL_SPACE_PRIVATE, &name, false);
      if (!name) {
        kp_syntax_error_at(p, kp_here(p), "expected a member name", NULL);
        break;
      }
      mt = kp_array_suffix(p, mt, NULL);
      decl_spec member_attributes;
      memset(&member_attributes, 0, sizeof member_attributes);
      kp_declarator_attributes(p, &member_attributes, mt, name);
      if (mt->kind == KL_TYPE_STRUCT && !mt->members)
        kl_error(p->ctx, kl_token_where(name), "member '%.*s' has an incomplete type", name->length,
                 name->text);
      const kl_type *inner = mt;
      while (inner->kind == KL_TYPE_ARRAY) inner = inner->element;
      if (spec.has_space && inner->kind != KL_TYPE_POINTER) /* the pointee's space */
        kl_error(p->ctx, member_at, "struct members cannot have an address space");
      for (kl_member *m = head.next; m; m = m->next)
        if ((int)strlen(m->name) == name->length &&
            memcmp(m->name, name->text, (size_t)name->length) == 0)
          kl_error(p->ctx, kl_token_where(name), "duplicate member '%.*s'", name->length,
                   name->text);
      kl_member *m = kl_alloc(p->ctx, sizeof *m);
      m->name = kl_strndup(p->ctx, name->text, (size_t)name->length);
      m->type = mt;
      m->location = kl_token_where(name);
      m->aligned = member_attributes.aligned;
      tail->next = m;
      tail = m;
    }
    kp_expect(p, ";", "after a struct member");
    if (p->panic) {
      while (!kp_is(p, ";") && !kp_is(p, "}") && p->tok->kind != KL_TOKEN_END) kp_advance(p);
      kp_accept(p, ";");
      p->panic = false;
    }
  }
  kp_leave_depth(p);
  kp_expect(p, "}", "to close the struct");
  if (!head.next) kl_error(p->ctx, at, "a struct needs at least one member");
  type->members = head.next;
  type->is_union = is_union;
  kp_attributes(p, &attributes);
  kp_layout_struct(p, type, &attributes);
  if (!type->name) type->name = kl_format(p->ctx, "__anon%d", ++p->anonymous_structs);
  add_struct_to_program(p, type);
  return type;
}

static int64_t array_length(parser *p) {
  kl_location at = p->decl_name ? kl_token_where(p->decl_name) : kp_here(p);
  kl_node *n = kp_conditional(p);
  int64_t v;
  if (!kl_eval_int(p->ctx, n, &v)) {
    if (n->type && !kl_type_is_integer(n->type) && n->type->kind != KL_TYPE_BOOL)
      kl_error(p->ctx, at, "the array size must be an integer, not '%s'", kp_type_name(p, n->type));
    else
      kl_error(p->ctx, at,
               "variable-length arrays are not supported: the size must be a constant expression");
    return 1;
  }
  if (v <= 0) {
    kl_error(p->ctx, at, "array size must be positive, not %lld", (long long)v);
    return 1;
  }
  if (v > (1 << 26)) {
    kl_error(p->ctx, at, "the array is too large (%lld elements)", (long long)v);
    return 1;
  }
  return v;
}

kl_type *kp_array_suffix(parser *p, kl_type *base, int *unsized) {
  if (!kp_is(p, "[")) return base;
  kp_enter_depth(p);
  kl_location at = kp_here(p);
  kp_advance(p);
  int64_t length = 0;
  if (kp_is(p, "]")) {
    if (unsized)
      *unsized = 1;
    else
      kl_error(p->ctx, at, "the array needs a size");
  } else {
    length = array_length(p);
  }
  kp_expect(p, "]", "after the array size");
  kl_type *element = kp_array_suffix(p, base, NULL);
  kp_leave_depth(p);
  if (element->kind == KL_TYPE_VOID) kl_error(p->ctx, at, "an array of void");
  if (element->kind == KL_TYPE_STRUCT && !element->members)
    kl_error(p->ctx, at, "an array of an incomplete struct");
  else if (element->align > 0 && element->size % element->align)
    kl_error(p->ctx, at,
             "an array of '%s', whose alignment %d (a typedef's aligned) exceeds its size %d",
             kp_type_name(p, element), element->align, element->size);
  if ((int64_t)element->size * (length ? length : 1) > (1 << 28)) {
    kl_error(p->ctx, at, "the array is too large");
    length = 1;
  }
  return kl_type_array(p->ctx, element, (int)length);
}

static bool is_pointer_qualifier(const kl_token *t) {
  return kp_tok_is(t, "const") || kp_tok_is(t, "__const") || kp_tok_is(t, "restrict") ||
         kp_tok_is(t, "__restrict") || kp_tok_is(t, "volatile") || kp_tok_is(t, "__volatile");
}

/* '(' '*' qualifiers [name] ')' '[': a pointer to an array */
static bool is_pointer_to_array(const kl_token *t) {
  t = t->next;
  if (!t || !kl_token_is(t, "*")) return false;
  for (t = t->next; t && is_pointer_qualifier(t);) t = t->next;
  if (t && t->kind == KL_TOKEN_IDENTIFIER) t = t->next;
  return t && kl_token_is(t, ")") && t->next && kl_token_is(t->next, "[");
}

/* (*name)[N][M]: a pointer to an array of N arrays of M base elements */
static kl_type *pointer_to_array(parser *p, kl_type *base, kl_address_space pointee_space,
                                 kl_token **name) {
  kp_advance(p); /* ( */
  kp_advance(p); /* * */
  unsigned q = 0;
  for (; is_pointer_qualifier(p->tok); kp_advance(p))
    q |= kp_is(p, "const") || kp_is(p, "__const")         ? KL_QUALIFIER_CONST
         : kp_is(p, "volatile") || kp_is(p, "__volatile") ? KL_QUALIFIER_VOLATILE
                                                          : KL_QUALIFIER_RESTRICT;
  *name = NULL;
  p->decl_name = NULL;
  if (p->tok->kind == KL_TOKEN_IDENTIFIER) {
    *name = p->tok;
    p->decl_name = p->tok;
    kp_advance(p);
  }
  kl_location at = kp_here(p);
  kp_advance(p); /* ) */
  if (base->kind == KL_TYPE_POINTER && !p->in_typedef)
    kl_error(p->ctx, *name ? kl_token_where(*name) : at,
             "pointer to pointer types are not supported");
  kl_type *array = kp_array_suffix(p, base, NULL);
  kl_type *type = kl_type_pointer(p->ctx, array, pointee_space);
  return q ? kl_type_qualified(p->ctx, type, q) : type;
}

/* pointer ::= ('*' qualifiers)*; then the name; then [N]...; function
 * types are handled by the caller (params). */
kl_type *kp_declarator(parser *p, kl_type *base, kl_address_space pointee_space, kl_token **name,
                       bool is_param) {
  kl_type *type = base;
  int pointers = 0;
  kl_location pointer_to_pointer = {0};
  p->declared_space = KL_SPACE_PRIVATE;
  while (kp_is(p, "*")) {
    kl_location at = kp_here(p);
    kp_advance(p);
    if (++pointers == 2 || type->kind == KL_TYPE_POINTER) pointer_to_pointer = at;
    type = kl_type_pointer(p->ctx, type, pointee_space);
    unsigned q = 0;
    for (;;) {
      if (kp_is(p, "const") || kp_is(p, "__const"))
        q |= KL_QUALIFIER_CONST;
      else if (kp_is(p, "restrict") || kp_is(p, "__restrict"))
        q |= KL_QUALIFIER_RESTRICT;
      else if (kp_is(p, "volatile") || kp_is(p, "__volatile"))
        q |= KL_QUALIFIER_VOLATILE;
      else if (kp_is(p, "__attribute__")) {
        decl_spec ignored;
        memset(&ignored, 0, sizeof ignored);
        kp_attribute(p, &ignored); /* nosvm and the like: nothing to keep for a pointer */
        continue;
      } else if (kp_is(p, "__local") || kp_is(p, "local")) {
        /* `__global float * __local p`: the pointer itself lives in __local
         * memory (one for the group); the caller declares it there */
        p->declared_space = KL_SPACE_LOCAL;
      } else if (kp_is(p, "__private") || kp_is(p, "private")) {
        p->declared_space = KL_SPACE_PRIVATE;
      } else if (kp_is(p, "__global") || kp_is(p, "global") || kp_is(p, "__constant") ||
                 kp_is(p, "constant")) {
        kl_error(p->ctx, kp_here(p),
                 "an address space after '*' qualifies the pointer itself: a pointer variable "
                 "may live in private or __local memory only");
      } else
        break;
      kp_advance(p);
    }
    if (q) type = kl_type_qualified(p->ctx, type, q);
  }
  if (kp_is(p, "(") && is_pointer_to_array(p->tok))
    return pointer_to_array(p, type, pointee_space, name);
  if (kp_is(p, "(")) {
    kl_location at = kp_here(p);
    if (p->tok->next && kl_token_is(p->tok->next, "*"))
      kl_error(
          p->ctx,
          p->tok->next->next->kind == KL_TOKEN_IDENTIFIER ? kl_token_where(p->tok->next->next) : at,
          "function pointers are not supported");
    else
      kl_error(p->ctx, at, "parenthesised declarators are not supported");
    kp_skip_parens(p);
    p->panic = true;
    *name = NULL;
    return type;
  }
  *name = NULL;
  p->decl_name = NULL;
  if (p->tok->kind == KL_TOKEN_IDENTIFIER && !kp_is_type_start(p, p->tok)) {
    *name = p->tok;
    p->decl_name = p->tok;
    kp_advance(p);
  } else if (p->tok->kind == KL_TOKEN_IDENTIFIER && !is_param) {
    /* a typedef name redeclared as a variable: allowed in an inner scope */
    sym *s = kp_find_sym(p, p->tok->text, p->tok->length);
    if (s && s->typedef_type) {
      *name = p->tok;
      p->decl_name = p->tok;
      kp_advance(p);
    }
  }
  if (pointer_to_pointer.source && !p->in_typedef)
    kl_error(p->ctx, *name ? kl_token_where(*name) : pointer_to_pointer,
             "pointer to pointer types are not supported");
  return type;
}
