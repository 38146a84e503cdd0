// SPDX-License-Identifier: Apache-2.0
/* The parser: preprocessed tokens -> a typed AST (kl.h), with OpenCL C
 * 1.2's type rules applied as each node is made. Implicit conversions are
 * explicit KL_EXPR_CONVERT nodes. Recursive descent, as chibicc; nesting is
 * capped so that no input can exhaust the stack. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "kl_front.h"

typedef struct sym {
  const char *name;
  int length;
  kl_variable *variable;
  kl_type *typedef_type;
  kl_function *function;
  struct sym *next;
} sym;

typedef struct tag {
  const char *name;
  int length;
  kl_type *type;
  struct tag *next;
} tag;

typedef struct scope {
  struct scope *parent;
  sym *syms;
  tag *tags;
} scope;

typedef struct parser {
  kl_context *ctx;
  kl_token *tok;
  kl_token *prev;
  scope *scope;
  kl_program *program;
  kl_function *function;
  kl_variable *locals_tail;
  kl_function *functions_tail;
  kl_variable *constants_tail;
  int depth;
  int loop_depth, switch_depth;
  kl_node *current_switch;
  bool panic;          /* after a syntax error, until the next statement boundary */
  kl_token *decl_name; /* the name being declared, where array size errors are reported */
  int struct_capacity;
  int anonymous_structs;
  uint64_t padded_scalars; /* zeros written out by pad_list, bounded by PADDING_BUDGET */
} parser;

/* ---------------------------------------------------------- utilities */

static kl_location here(parser *p) {
  return kl_token_where(p->tok);
}

static bool is(parser *p, const char *text) {
  return p->tok->kind != KL_TOKEN_STRING && p->tok->kind != KL_TOKEN_CHARACTER &&
         kl_token_is(p->tok, text);
}

static void advance(parser *p) {
  if (p->tok->kind == KL_TOKEN_END) return;
  p->prev = p->tok;
  p->tok = p->tok->next;
}

static bool accept(parser *p, const char *text) {
  if (!is(p, text)) return false;
  advance(p);
  return true;
}

static void syntax_error_at(parser *p, kl_location at, const char *message, const char *detail) {
  if (p->panic) return;
  p->panic = true;
  if (detail)
    kl_error(p->ctx, at, "%s%s", message, detail);
  else
    kl_error(p->ctx, at, "%s", message);
}

static const char *token_text(parser *p, const kl_token *t) {
  if (t->kind == KL_TOKEN_END) return "end of input";
  return kl_format(p->ctx, "'%.*s'", t->length > 40 ? 40 : t->length, t->text);
}

/* Where "expected ';'" is reported: just after the previous token, as clang
 * and GCC do (the line the user forgot it on). */
static kl_location after_prev(parser *p) {
  if (!p->prev) return here(p);
  kl_location at = kl_token_where(p->prev);
  if (!p->prev->expanded_from.source) at.column += p->prev->length;
  return at;
}

static void expect(parser *p, const char *text, const char *context) {
  if (accept(p, text)) return;
  if (p->panic) return;
  /* A missing ';' at the end of the previous token, naming the next one;
   * other missing tokens at the token that is there instead. */
  kl_location at = strcmp(text, ";") == 0 ? after_prev(p) : here(p);
  syntax_error_at(p, at,
                  kl_format(p->ctx, "expected '%s'%s%s, found %s", text, context ? " " : "",
                            context ? context : "", token_text(p, p->tok)),
                  NULL);
}

static void enter_depth(parser *p) {
  if (++p->depth > KL_MAX_DEPTH) {
    kl_error(p->ctx, here(p), "nested too deeply (more than %d levels)", KL_MAX_DEPTH);
    kl_bail(p->ctx);
  }
}
static void leave_depth(parser *p) {
  p->depth--;
}

static kl_node *new_node(parser *p, kl_node_kind kind, kl_location at) {
  kl_node *n = kl_alloc(p->ctx, sizeof *n);
  n->kind = kind;
  n->location = at;
  return n;
}

static kl_type *int_type(parser *p) {
  return kl_type_scalar(p->ctx, KL_TYPE_INT);
}

/* Where an expression starts in the source: its leftmost token. */
static kl_location expr_start(const kl_node *n) {
  for (int guard = 0; n && guard < 10000; guard++) {
    switch (n->kind) {
      case KL_EXPR_BINARY:
      case KL_EXPR_INDEX:
      case KL_EXPR_MEMBER:
      case KL_EXPR_SWIZZLE:
      case KL_EXPR_ASSIGN:
      case KL_EXPR_COMMA:
        if (!n->lhs) return n->location;
        n = n->lhs;
        break;
      case KL_EXPR_CONVERT:
        n = n->lhs;
        break;
      case KL_EXPR_UNARY:
        if (n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT) {
          n = n->lhs;
          break;
        }
        return n->location;
      case KL_EXPR_CONDITIONAL:
        n = n->condition;
        break;
      default:
        return n->location;
    }
  }
  return n ? n->location : (kl_location){0};
}

static kl_node *new_int(parser *p, uint64_t value, kl_type *type, kl_location at) {
  kl_node *n = new_node(p, KL_EXPR_INT_LITERAL, at);
  n->int_value = value;
  n->type = type ? type : int_type(p);
  return n;
}

/* An expression that stands in for an erroneous one: int, so that checking can go on. */
static kl_node *error_expr(parser *p, kl_location at) {
  return new_int(p, 0, NULL, at);
}

static const char *type_name(parser *p, const kl_type *t) {
  return kl_type_name(p->ctx, t);
}

/* ------------------------------------------------------------- scopes */

static void push_scope(parser *p) {
  scope *s = kl_alloc(p->ctx, sizeof *s);
  s->parent = p->scope;
  p->scope = s;
}
static void pop_scope(parser *p) {
  p->scope = p->scope->parent;
}

static sym *find_sym(parser *p, const char *name, int length) {
  for (scope *s = p->scope; s; s = s->parent)
    for (sym *e = s->syms; e; e = e->next)
      if (e->length == length && memcmp(e->name, name, (size_t)length) == 0) return e;
  return NULL;
}

static sym *find_sym_here(parser *p, const char *name, int length) {
  for (sym *e = p->scope->syms; e; e = e->next)
    if (e->length == length && memcmp(e->name, name, (size_t)length) == 0) return e;
  return NULL;
}

static sym *add_sym(parser *p, const char *name, int length) {
  sym *e = kl_alloc(p->ctx, sizeof *e);
  e->name = name;
  e->length = length;
  e->next = p->scope->syms;
  p->scope->syms = e;
  return e;
}

static tag *find_tag(parser *p, const char *name, int length, bool here_only) {
  for (scope *s = p->scope; s; s = s->parent) {
    for (tag *t = s->tags; t; t = t->next)
      if (t->length == length && memcmp(t->name, name, (size_t)length) == 0) return t;
    if (here_only) break;
  }
  return NULL;
}

/* ---------------------------------------------------------- constants */

static uint64_t wrap_to(const kl_type *type, uint64_t v) {
  if (!type) return v;
  if (type->kind == KL_TYPE_BOOL) return v != 0;
  int size = type->size;
  if (size >= 8 || !kl_type_is_integer(type)) return v;
  uint64_t mask = (1ull << (size * 8)) - 1;
  v &= mask;
  if (kl_type_is_signed(type) && (v >> (size * 8 - 1)) & 1) v |= ~mask;
  return v;
}

static bool eval(kl_context *ctx, const kl_node *n, int64_t *out, int depth) {
  if (!n || depth > KL_MAX_TREE_DEPTH) return false;
  int64_t a, b;
  switch (n->kind) {
    case KL_EXPR_INT_LITERAL:
      *out = (int64_t)n->int_value;
      return true;
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT:
      if (!kl_type_is_integer(n->type) && n->type->kind != KL_TYPE_BOOL) return false;
      if (n->lhs->kind == KL_EXPR_FLOAT_LITERAL) {
        double d = n->lhs->float_value;
        if (!(d > -9.2e18 && d < 9.2e18)) return false;
        *out = (int64_t)wrap_to(n->type, (uint64_t)(int64_t)d);
        return true;
      }
      if (!eval(ctx, n->lhs, &a, depth + 1)) return false;
      *out = (int64_t)wrap_to(n->type, (uint64_t)a);
      return true;
    case KL_EXPR_UNARY:
      if (!eval(ctx, n->lhs, &a, depth + 1)) return false;
      switch (n->op) {
        case KL_OP_NEGATE:
          *out = (int64_t)wrap_to(n->type, (uint64_t)0 - (uint64_t)a);
          return true;
        case KL_OP_PLUS:
          *out = a;
          return true;
        case KL_OP_BIT_NOT:
          *out = (int64_t)wrap_to(n->type, ~(uint64_t)a);
          return true;
        case KL_OP_LOGICAL_NOT:
          *out = a == 0;
          return true;
        default:
          return false;
      }
    case KL_EXPR_BINARY: {
      if (!kl_type_is_integer(n->type)) return false;
      if (!eval(ctx, n->lhs, &a, depth + 1) || !eval(ctx, n->rhs, &b, depth + 1)) return false;
      const kl_type *t = n->lhs->type;
      bool u = !kl_type_is_signed(t);
      uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
      uint64_t r;
      int bits = t->size * 8;
      switch (n->op) {
        case KL_OP_ADD:
          r = ua + ub;
          break;
        case KL_OP_SUB:
          r = ua - ub;
          break;
        case KL_OP_MUL:
          r = ua * ub;
          break;
        case KL_OP_DIV:
        case KL_OP_MOD:
          if (b == 0) return false;
          if (u)
            r = n->op == KL_OP_DIV ? ua / ub : ua % ub;
          else if (a == INT64_MIN && b == -1)
            r = n->op == KL_OP_DIV ? ua : 0;
          else
            r = (uint64_t)(n->op == KL_OP_DIV ? a / b : a % b);
          break;
        case KL_OP_SHL:
          r = ua << (ub & (uint64_t)(bits - 1));
          break;
        case KL_OP_SHR:
          if (u)
            r = (ua & (bits == 64 ? ~0ull : ((1ull << bits) - 1))) >> (ub & (uint64_t)(bits - 1));
          else
            r = (uint64_t)(a >> (ub & (uint64_t)(bits - 1)));
          break;
        case KL_OP_BIT_AND:
          r = ua & ub;
          break;
        case KL_OP_BIT_OR:
          r = ua | ub;
          break;
        case KL_OP_BIT_XOR:
          r = ua ^ ub;
          break;
        case KL_OP_LOGICAL_AND:
          r = a && b;
          break;
        case KL_OP_LOGICAL_OR:
          r = a || b;
          break;
        case KL_OP_EQ:
          r = ua == ub;
          break;
        case KL_OP_NE:
          r = ua != ub;
          break;
        case KL_OP_LT:
          r = u ? ua < ub : a < b;
          break;
        case KL_OP_LE:
          r = u ? ua <= ub : a <= b;
          break;
        case KL_OP_GT:
          r = u ? ua > ub : a > b;
          break;
        case KL_OP_GE:
          r = u ? ua >= ub : a >= b;
          break;
        default:
          return false;
      }
      *out = (int64_t)wrap_to(n->type, r);
      return true;
    }
    case KL_EXPR_CONDITIONAL:
      if (!eval(ctx, n->condition, &a, depth + 1)) return false;
      return eval(ctx, a ? n->then : n->otherwise, out, depth + 1);
    case KL_EXPR_COMMA:
      return eval(ctx, n->rhs, out, depth + 1);
    default:
      return false;
  }
}

bool kl_eval_int(kl_context *ctx, const kl_node *node, int64_t *value) {
  return eval(ctx, node, value, 0);
}

/* -------------------------------------------------------- conversions */

kl_node *kl_convert(kl_context *ctx, kl_node *node, kl_type *type) {
  if (!node || !type) return node;
  if (kl_type_equal(node->type, type)) return node;
  kl_node *n = kl_alloc(ctx, sizeof *n);
  n->kind = KL_EXPR_CONVERT;
  n->location = node->location;
  n->lhs = node;
  n->type = kl_type_unqualified(ctx, type);
  return n;
}

static bool is_null_constant(parser *p, const kl_node *n) {
  int64_t v;
  return kl_type_is_integer(n->type) && kl_eval_int(p->ctx, n, &v) && v == 0;
}

static bool is_bool_or_arith(const kl_type *t) {
  return t && (kl_type_is_arithmetic(t) || t->kind == KL_TYPE_BOOL);
}

static kl_node *decay(parser *p, kl_node *n) {
  if (n->type && n->type->kind == KL_TYPE_ARRAY) {
    kl_address_space space = KL_SPACE_PRIVATE;
    if (n->kind == KL_EXPR_VARIABLE) space = n->variable->space;
    kl_node *c = new_node(p, KL_EXPR_CONVERT, n->location);
    c->lhs = n;
    c->type = kl_type_pointer(p->ctx, n->type->element, space);
    return c;
  }
  return n;
}

/* The address space of the storage an lvalue designates. */
static kl_address_space lvalue_space(const kl_node *n) {
  for (int guard = 0; n && guard < 10000; guard++) {
    switch (n->kind) {
      case KL_EXPR_VARIABLE:
        return n->variable->space;
      case KL_EXPR_UNARY:
        if (n->op == KL_OP_DEREFERENCE) return n->lhs->type->pointee_space;
        return KL_SPACE_PRIVATE;
      case KL_EXPR_INDEX:
        if (n->lhs->type->kind == KL_TYPE_POINTER) return n->lhs->type->pointee_space;
        n = n->lhs;
        break;
      case KL_EXPR_MEMBER:
        if (n->is_arrow) return n->lhs->type->pointee_space;
        n = n->lhs;
        break;
      case KL_EXPR_SWIZZLE:
        n = n->lhs;
        break;
      case KL_EXPR_CONVERT:
        n = n->lhs;
        break;
      default:
        return KL_SPACE_PRIVATE;
    }
  }
  return KL_SPACE_PRIVATE;
}

/* An implicit conversion for assignment, initialisation, argument passing
 * and return (OpenCL C 6.2.1): reports and returns NULL when not allowed. */
static kl_node *assign_convert(parser *p, kl_node *n, kl_type *to, kl_location at,
                               const char *what) {
  n = decay(p, n);
  kl_type *from = n->type;
  if (!from || !to) return n;
  if (to->kind == KL_TYPE_VOID) return n;
  if (kl_type_is_scalar(to) && is_bool_or_arith(from) && from->kind != KL_TYPE_VECTOR)
    return kl_convert(p->ctx, n, to);
  if (to->kind == KL_TYPE_VECTOR) {
    if (kl_type_equal(from, to)) return kl_convert(p->ctx, n, to);
    if (kl_type_is_scalar(from)) return kl_convert(p->ctx, n, to);
    if (from->kind == KL_TYPE_VECTOR) {
      kl_error(p->ctx, at, "cannot convert '%s' to '%s' implicitly in %s: use convert_%s()",
               type_name(p, from), type_name(p, to), what,
               type_name(p, kl_type_unqualified(p->ctx, to)));
      return NULL;
    }
  }
  if (to->kind == KL_TYPE_POINTER) {
    if (from->kind == KL_TYPE_POINTER) {
      if (from->pointee_space != to->pointee_space) {
        kl_error(p->ctx, at, "cannot convert between address spaces ('%s' to '%s') in %s",
                 type_name(p, from), type_name(p, to), what);
        return NULL;
      }
      bool void_either = from->element->kind == KL_TYPE_VOID || to->element->kind == KL_TYPE_VOID;
      if (!void_either && !kl_type_equal(from->element, to->element)) {
        kl_error(p->ctx, at, "cannot convert '%s' to '%s' in %s", type_name(p, from),
                 type_name(p, to), what);
        return NULL;
      }
      if ((from->element->qualifiers & KL_QUALIFIER_CONST) &&
          !(to->element->qualifiers & KL_QUALIFIER_CONST)) {
        kl_error(p->ctx, at, "%s discards the const qualifier of '%s'", what, type_name(p, from));
        return NULL;
      }
      return kl_convert(p->ctx, n, to);
    }
    if (is_null_constant(p, n)) return kl_convert(p->ctx, n, to);
  }
  if (to->kind == KL_TYPE_STRUCT && kl_type_equal(from, to)) return n;
  if (to->kind == KL_TYPE_ARRAY) {
    kl_error(p->ctx, at, "arrays cannot be assigned");
    return NULL;
  }
  kl_error(p->ctx, at, "cannot convert '%s' to '%s' in %s", type_name(p, from), type_name(p, to),
           what);
  return NULL;
}

/* ------------------------------------------------- type construction */

typedef struct decl_spec {
  kl_type *type;
  unsigned qualifiers;
  bool has_space;
  kl_address_space space;
  bool is_typedef, is_kernel, is_inline, is_static;
  bool has_reqd;
  uint32_t reqd[3];
  kl_location reqd_at;
  kl_location at;
} decl_spec;

static kl_node *assignment(parser *p);
static kl_node *expression(parser *p);
static kl_node *conditional(parser *p);
static kl_node *cast_expr(parser *p);
static kl_node *statement(parser *p);
static kl_node *compound(parser *p, bool new_scope);
static bool is_type_start(parser *p, const kl_token *t);
static void declspec(parser *p, decl_spec *spec, bool allow_storage);

static bool tok_is(const kl_token *t, const char *text) {
  return t->kind == KL_TOKEN_IDENTIFIER && kl_token_is(t, text);
}

static const char *const image_types[] = {
    "image1d_t", "image1d_array_t", "image1d_buffer_t", "image2d_t",       "image2d_array_t",
    "image3d_t", "sampler_t",       "event_t",          "image2d_depth_t", "image2d_msaa_t",
    NULL,
};

static bool is_image_type(const kl_token *t) {
  for (int i = 0; image_types[i]; i++)
    if (tok_is(t, image_types[i])) return true;
  return tok_is(t, "__read_only") || tok_is(t, "read_only") || tok_is(t, "__write_only") ||
         tok_is(t, "write_only") || tok_is(t, "__read_write") || tok_is(t, "read_write");
}

/* "images" or "samplers" for OpenCL C's image builtins and constants
 * (read_imagef, get_image_width, CLK_ADDRESS_CLAMP, CLK_RGBA), else NULL. */
static const char *image_name_kind(const kl_token *t) {
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

static bool is_type_start(parser *p, const kl_token *t) {
  if (t->kind != KL_TOKEN_IDENTIFIER) return false;
  for (int i = 0; type_keywords[i]; i++)
    if (kl_token_is(t, type_keywords[i])) return true;
  if (is_image_type(t)) return true;
  if (kl_type_from_name(p->ctx, t->text, t->length)) return true;
  sym *s = find_sym(p, t->text, t->length);
  return s && s->typedef_type;
}

static void skip_parens(parser *p) {
  /* skips a balanced (...) group, the current token being '(' */
  int level = 0;
  do {
    if (is(p, "(")) level++;
    if (is(p, ")")) level--;
    advance(p);
  } while (level > 0 && p->tok->kind != KL_TOKEN_END);
}

static uint32_t attribute_uint(parser *p, kl_location name_at, bool *reported) {
  kl_location at = here(p);
  kl_node *n = conditional(p);
  int64_t v;
  if (!kl_eval_int(p->ctx, n, &v)) {
    kl_error(p->ctx, at, "reqd_work_group_size values must be integer constants");
    return 1;
  }
  if ((v <= 0 || v > 65536) && !*reported) {
    *reported = true;
    kl_error(p->ctx, name_at,
             "reqd_work_group_size values must be positive and at most 65536, not %lld",
             (long long)v);
  }
  return v <= 0 || v > 65536 ? 1 : (uint32_t)v;
}

/* __attribute__((a, b(args))) */
static void attribute(parser *p, decl_spec *spec) {
  advance(p); /* __attribute__ */
  expect(p, "(", "after '__attribute__'");
  expect(p, "(", "after '__attribute__('");
  while (!p->panic && !is(p, ")") && p->tok->kind != KL_TOKEN_END) {
    kl_token *name = p->tok;
    if (name->kind != KL_TOKEN_IDENTIFIER) {
      syntax_error_at(p, here(p), "expected an attribute name", NULL);
      break;
    }
    advance(p);
    if (tok_is(name, "reqd_work_group_size") || tok_is(name, "__reqd_work_group_size__")) {
      kl_location name_at = kl_token_where(name);
      expect(p, "(", "after 'reqd_work_group_size'");
      if (spec) {
        spec->has_reqd = true;
        spec->reqd_at = name_at;
      }
      int count = 0;
      bool reported = false;
      while (!p->panic && !is(p, ")") && p->tok->kind != KL_TOKEN_END) {
        uint32_t v = attribute_uint(p, name_at, &reported);
        if (spec && count < 3) spec->reqd[count] = v;
        count++;
        if (!accept(p, ",")) break;
      }
      if (count != 3 && !p->panic)
        kl_error(p->ctx, name_at, "reqd_work_group_size takes 3 arguments (X, Y, Z), %d given",
                 count);
      for (int i = count; i < 3 && spec; i++) spec->reqd[i] = 1;
      expect(p, ")", "after reqd_work_group_size(X, Y, Z");
      if (!spec)
        kl_error(p->ctx, kl_token_where(name), "reqd_work_group_size applies to kernels only");
    } else {
      kl_warning(p->ctx, kl_token_where(name), "attribute '%.*s' is ignored", name->length,
                 name->text);
      if (is(p, "(")) skip_parens(p);
    }
    if (!accept(p, ",")) break;
  }
  expect(p, ")", "to close the attribute list");
  expect(p, ")", "to close '__attribute__(('");
}

static kl_type *struct_decl(parser *p, bool is_union);
static kl_type *array_suffix(parser *p, kl_type *base, int *unsized);

static void declspec(parser *p, decl_spec *spec, bool allow_storage) {
  memset(spec, 0, sizeof *spec);
  spec->at = here(p);
  int n_unsigned = 0, n_signed = 0, n_char = 0, n_short = 0, n_int = 0, n_long = 0;
  kl_type *named = NULL;
  kl_location type_at = here(p);
  bool any = false;
  for (;;) {
    kl_token *t = p->tok;
    if (t->kind != KL_TOKEN_IDENTIFIER) break;
    if (tok_is(t, "__attribute__")) {
      attribute(p, spec);
      any = true;
      continue;
    }
    if (tok_is(t, "typedef") || tok_is(t, "__kernel") || tok_is(t, "kernel") ||
        tok_is(t, "inline") || tok_is(t, "__inline") || tok_is(t, "static") ||
        tok_is(t, "extern")) {
      if (!allow_storage) {
        kl_error(p->ctx, here(p), "'%.*s' is not allowed here", t->length, t->text);
      } else if (tok_is(t, "typedef")) {
        spec->is_typedef = true;
      } else if (tok_is(t, "__kernel") || tok_is(t, "kernel")) {
        spec->is_kernel = true;
      } else if (tok_is(t, "extern")) {
        kl_error(p->ctx, here(p), "'extern' is not supported: a kernel source is one file");
      } else if (tok_is(t, "static")) {
        spec->is_static = true;
      } else {
        spec->is_inline = true;
      }
      advance(p);
      any = true;
      continue;
    }
    if (tok_is(t, "const") || tok_is(t, "__const")) {
      spec->qualifiers |= KL_QUALIFIER_CONST;
      advance(p);
      any = true;
      continue;
    }
    if (tok_is(t, "volatile") || tok_is(t, "__volatile")) {
      spec->qualifiers |= KL_QUALIFIER_VOLATILE;
      advance(p);
      any = true;
      continue;
    }
    if (tok_is(t, "restrict") || tok_is(t, "__restrict")) {
      spec->qualifiers |= KL_QUALIFIER_RESTRICT;
      advance(p);
      any = true;
      continue;
    }
    kl_address_space space = KL_SPACE_PRIVATE;
    bool is_space = true;
    if (tok_is(t, "__global") || tok_is(t, "global"))
      space = KL_SPACE_GLOBAL;
    else if (tok_is(t, "__local") || tok_is(t, "local"))
      space = KL_SPACE_LOCAL;
    else if (tok_is(t, "__constant") || tok_is(t, "constant"))
      space = KL_SPACE_CONSTANT;
    else if (tok_is(t, "__private") || tok_is(t, "private"))
      space = KL_SPACE_PRIVATE;
    else
      is_space = false;
    if (is_space) {
      if (spec->has_space && spec->space != space)
        kl_error(p->ctx, here(p), "conflicting address spaces");
      spec->has_space = true;
      spec->space = space;
      advance(p);
      any = true;
      continue;
    }
    if (is_image_type(t)) {
      if (tok_is(t, "sampler_t"))
        kl_error(p->ctx, here(p),
                 "samplers are not in the portable subset: sampler types are not supported "
                 "('sampler_t'); index a __global buffer instead");
      else if (tok_is(t, "event_t"))
        kl_error(p->ctx, here(p),
                 "event types are not supported ('event_t'): async copies are outside the subset");
      else if (t->text[t->length - 1] == 't')
        kl_error(p->ctx, here(p),
                 "images are not in the portable subset: image types are not supported ('%.*s'); "
                 "pass the pixels in a __global buffer",
                 t->length, t->text);
      else
        named = named ? named : NULL; /* __read_only and friends: the image type reports */
      advance(p);
      if (t->text[t->length - 1] == 't') named = int_type(p);
      any = true;
      continue;
    }
    if (tok_is(t, "intptr_t") || tok_is(t, "uintptr_t")) {
      kl_error(p->ctx, here(p), "'%.*s' is not supported", t->length, t->text);
      advance(p);
      named = kl_type_scalar(p->ctx, KL_TYPE_LONG);
      any = true;
      continue;
    }
    if (tok_is(t, "struct") || tok_is(t, "union")) {
      if (named || n_int || n_char || n_short || n_long || n_unsigned || n_signed)
        kl_error(p->ctx, here(p), "two types in one declaration");
      type_at = here(p);
      named = struct_decl(p, tok_is(t, "union"));
      any = true;
      continue;
    }
    if (tok_is(t, "enum")) {
      kl_error(p->ctx, here(p), "enumerations are not supported: use #define or const int");
      advance(p);
      if (p->tok->kind == KL_TOKEN_IDENTIFIER) advance(p);
      if (is(p, "{")) {
        int level = 0;
        do {
          if (is(p, "{")) level++;
          if (is(p, "}")) level--;
          advance(p);
        } while (level > 0 && p->tok->kind != KL_TOKEN_END);
      }
      named = int_type(p);
      any = true;
      continue;
    }
    if (tok_is(t, "unsigned")) {
      n_unsigned++;
      advance(p);
      any = true;
      continue;
    }
    if (tok_is(t, "signed")) {
      n_signed++;
      advance(p);
      any = true;
      continue;
    }
    if (tok_is(t, "char")) {
      n_char++;
      type_at = here(p);
      advance(p);
      any = true;
      continue;
    }
    if (tok_is(t, "short")) {
      n_short++;
      type_at = here(p);
      advance(p);
      any = true;
      continue;
    }
    if (tok_is(t, "int")) {
      n_int++;
      type_at = here(p);
      advance(p);
      any = true;
      continue;
    }
    if (tok_is(t, "long")) {
      n_long++;
      type_at = here(p);
      advance(p);
      any = true;
      continue;
    }
    if (named || n_char || n_short || n_int || n_long || n_unsigned || n_signed) break;
    kl_type *builtin = kl_type_from_name(p->ctx, t->text, t->length);
    if (builtin) {
      named = builtin;
      type_at = here(p);
      advance(p);
      any = true;
      continue;
    }
    sym *s = find_sym(p, t->text, t->length);
    if (s && s->typedef_type) {
      named = s->typedef_type;
      type_at = here(p);
      advance(p);
      any = true;
      continue;
    }
    break;
  }
  kl_type *type = named;
  if (n_char + n_short + n_int + n_long + n_unsigned + n_signed) {
    if (named && (n_char || n_short || n_int || n_long)) {
      kl_error(p->ctx, type_at, "two types in one declaration");
    } else if (named && (n_unsigned || n_signed)) {
      if (!kl_type_is_integer(named) || named->kind == KL_TYPE_SIZE_T) {
        kl_error(p->ctx, type_at, "'%s' cannot be %s", type_name(p, named),
                 n_unsigned ? "unsigned" : "signed");
      } else {
        type = n_unsigned ? kl_type_unsigned_of(p->ctx, named) : named;
      }
    } else if (n_unsigned && n_signed) {
      kl_error(p->ctx, type_at, "both 'signed' and 'unsigned'");
      type = int_type(p);
    } else {
      kl_type_kind k;
      if (n_long > 1) {
        kl_error(p->ctx, type_at, "'long long' is not in OpenCL C: 'long' is 64 bits");
        n_long = 1;
      }
      if (n_char)
        k = n_unsigned ? KL_TYPE_UCHAR : KL_TYPE_CHAR;
      else if (n_short)
        k = n_unsigned ? KL_TYPE_USHORT : KL_TYPE_SHORT;
      else if (n_long)
        k = n_unsigned ? KL_TYPE_ULONG : KL_TYPE_LONG;
      else
        k = n_unsigned ? KL_TYPE_UINT : KL_TYPE_INT;
      if (n_char + n_short + n_long > 1)
        kl_error(p->ctx, type_at, "invalid combination of type specifiers");
      type = kl_type_scalar(p->ctx, k);
    }
  }
  if (!type) {
    if (any) {
      kl_error(p->ctx, here(p), "expected a type, found %s", token_text(p, p->tok));
    }
    type = int_type(p);
  }
  if (type->kind == KL_TYPE_DOUBLE ||
      (type->kind == KL_TYPE_VECTOR && type->element->kind == KL_TYPE_DOUBLE)) {
    if (!p->ctx->options.traits.fp64)
      kl_error(p->ctx, type_at, "type '%s' needs cl_khr_fp64, which this device does not support",
               type_name(p, type));
  }
  if (type->kind == KL_TYPE_HALF ||
      (type->kind == KL_TYPE_VECTOR && type->element->kind == KL_TYPE_HALF)) {
    if (!p->ctx->options.traits.fp16)
      kl_error(p->ctx, type_at, "type '%s' needs cl_khr_fp16, which this device does not support",
               type_name(p, type));
  }
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

static kl_type *declarator(parser *p, kl_type *base, kl_address_space pointee_space,
                           kl_token **name, bool is_param);

static kl_type *struct_decl(parser *p, bool is_union) {
  kl_location at = here(p);
  advance(p); /* struct */
  if (is_union) kl_error(p->ctx, at, "unions are not supported");
  while (is(p, "__attribute__")) attribute(p, NULL);
  kl_token *tag_token = NULL;
  if (p->tok->kind == KL_TOKEN_IDENTIFIER) {
    tag_token = p->tok;
    advance(p);
  }
  if (!is(p, "{")) {
    if (!tag_token) {
      syntax_error_at(p, here(p), "expected a struct tag or '{'", NULL);
      return int_type(p);
    }
    tag *t = find_tag(p, tag_token->text, tag_token->length, false);
    if (t) return t->type;
    /* A forward declaration: an incomplete struct. */
    kl_type *type =
        kl_type_struct(p->ctx, kl_strndup(p->ctx, tag_token->text, (size_t)tag_token->length));
    tag *nt = kl_alloc(p->ctx, sizeof *nt);
    nt->name = tag_token->text;
    nt->length = tag_token->length;
    nt->type = type;
    nt->next = p->scope->tags;
    p->scope->tags = nt;
    return type;
  }
  kl_type *type = NULL;
  if (tag_token) {
    tag *t = find_tag(p, tag_token->text, tag_token->length, true);
    if (t && t->type->members) {
      kl_error(p->ctx, kl_token_where(tag_token), "redefinition of 'struct %.*s'",
               tag_token->length, tag_token->text);
    } else if (t) {
      type = t->type;
    }
  }
  if (!type) {
    type = kl_type_struct(
        p->ctx, tag_token ? kl_strndup(p->ctx, tag_token->text, (size_t)tag_token->length) : NULL);
    if (tag_token) {
      tag *nt = kl_alloc(p->ctx, sizeof *nt);
      nt->name = tag_token->text;
      nt->length = tag_token->length;
      nt->type = type;
      nt->next = p->scope->tags;
      p->scope->tags = nt;
    }
  }
  advance(p); /* { */
  kl_member head = {0}, *tail = &head;
  int offset = 0, align = 1;
  enter_depth(p);
  while (!is(p, "}") && p->tok->kind != KL_TOKEN_END) {
    decl_spec spec;
    kl_location member_at = here(p);
    declspec(p, &spec, false);
    if (spec.has_space) kl_error(p->ctx, member_at, "struct members cannot have an address space");
    for (bool first = true; !p->panic; first = false) {
      if (!first && !accept(p, ",")) break;
      kl_token *name = NULL;
      kl_type *mt = declarator(
          p, kl_type_qualified(p->ctx, spec.type, spec.qualifiers | spec.type->qualifiers),
          KL_SPACE_PRIVATE, &name, false);
      if (!name) {
        syntax_error_at(p, here(p), "expected a member name", NULL);
        break;
      }
      mt = array_suffix(p, mt, NULL);
      if (mt->kind == KL_TYPE_STRUCT && !mt->members)
        kl_error(p->ctx, kl_token_where(name), "member '%.*s' has an incomplete type", name->length,
                 name->text);
      if (mt->kind == KL_TYPE_POINTER)
        kl_error(p->ctx, kl_token_where(name), "pointers in structs are not supported");
      for (kl_member *m = head.next; m; m = m->next)
        if ((int)strlen(m->name) == name->length &&
            memcmp(m->name, name->text, (size_t)name->length) == 0)
          kl_error(p->ctx, kl_token_where(name), "duplicate member '%.*s'", name->length,
                   name->text);
      kl_member *m = kl_alloc(p->ctx, sizeof *m);
      m->name = kl_strndup(p->ctx, name->text, (size_t)name->length);
      m->type = mt;
      m->location = kl_token_where(name);
      int a = mt->align > 0 ? mt->align : 1;
      offset = (offset + a - 1) / a * a;
      m->offset = offset;
      offset += mt->size;
      if (a > align) align = a;
      tail->next = m;
      tail = m;
    }
    while (is(p, "__attribute__")) attribute(p, NULL);
    expect(p, ";", "after a struct member");
    if (p->panic) {
      while (!is(p, ";") && !is(p, "}") && p->tok->kind != KL_TOKEN_END) advance(p);
      accept(p, ";");
      p->panic = false;
    }
  }
  leave_depth(p);
  expect(p, "}", "to close the struct");
  if (!head.next) kl_error(p->ctx, at, "a struct needs at least one member");
  type->members = head.next;
  type->align = align;
  type->size = (offset + align - 1) / align * align;
  if (type->size == 0) type->size = 1;
  if (!type->name) type->name = kl_format(p->ctx, "__anon%d", ++p->anonymous_structs);
  add_struct_to_program(p, type);
  while (is(p, "__attribute__")) attribute(p, NULL);
  return type;
}

static int64_t array_length(parser *p) {
  kl_location at = p->decl_name ? kl_token_where(p->decl_name) : here(p);
  kl_node *n = conditional(p);
  int64_t v;
  if (!kl_eval_int(p->ctx, n, &v)) {
    if (n->type && !kl_type_is_integer(n->type) && n->type->kind != KL_TYPE_BOOL)
      kl_error(p->ctx, at, "the array size must be an integer, not '%s'", type_name(p, n->type));
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

static kl_type *array_suffix(parser *p, kl_type *base, int *unsized) {
  if (!is(p, "[")) return base;
  enter_depth(p);
  kl_location at = here(p);
  advance(p);
  int64_t length = 0;
  if (is(p, "]")) {
    if (unsized)
      *unsized = 1;
    else
      kl_error(p->ctx, at, "the array needs a size");
  } else {
    length = array_length(p);
  }
  expect(p, "]", "after the array size");
  kl_type *element = array_suffix(p, base, NULL);
  leave_depth(p);
  if (element->kind == KL_TYPE_VOID) kl_error(p->ctx, at, "an array of void");
  if (element->kind == KL_TYPE_STRUCT && !element->members)
    kl_error(p->ctx, at, "an array of an incomplete struct");
  if ((int64_t)element->size * (length ? length : 1) > (1 << 28)) {
    kl_error(p->ctx, at, "the array is too large");
    length = 1;
  }
  return kl_type_array(p->ctx, element, (int)length);
}

/* pointer ::= ('*' qualifiers)*; then the name; then [N]...; function
 * types are handled by the caller (params). */
static kl_type *declarator(parser *p, kl_type *base, kl_address_space pointee_space,
                           kl_token **name, bool is_param) {
  kl_type *type = base;
  int pointers = 0;
  kl_location pointer_to_pointer = {0};
  while (is(p, "*")) {
    kl_location at = here(p);
    advance(p);
    if (++pointers == 2 || type->kind == KL_TYPE_POINTER) pointer_to_pointer = at;
    type = kl_type_pointer(p->ctx, type, pointee_space);
    unsigned q = 0;
    for (;;) {
      if (is(p, "const") || is(p, "__const"))
        q |= KL_QUALIFIER_CONST;
      else if (is(p, "restrict") || is(p, "__restrict"))
        q |= KL_QUALIFIER_RESTRICT;
      else if (is(p, "volatile") || is(p, "__volatile"))
        q |= KL_QUALIFIER_VOLATILE;
      else if (is(p, "__global") || is(p, "global") || is(p, "__local") || is(p, "local") ||
               is(p, "__constant") || is(p, "constant") || is(p, "__private") || is(p, "private")) {
        kl_error(p->ctx, here(p),
                 "an address space after '*' qualifies the pointer itself: "
                 "only private pointers are in the portable subset");
      } else
        break;
      advance(p);
    }
    if (q) type = kl_type_qualified(p->ctx, type, q);
  }
  if (is(p, "(")) {
    kl_location at = here(p);
    if (p->tok->next && kl_token_is(p->tok->next, "*"))
      kl_error(
          p->ctx,
          p->tok->next->next->kind == KL_TOKEN_IDENTIFIER ? kl_token_where(p->tok->next->next) : at,
          "function pointers are not supported");
    else
      kl_error(p->ctx, at, "parenthesised declarators are not supported");
    skip_parens(p);
    p->panic = true;
    *name = NULL;
    return type;
  }
  *name = NULL;
  p->decl_name = NULL;
  if (p->tok->kind == KL_TOKEN_IDENTIFIER && !is_type_start(p, p->tok)) {
    *name = p->tok;
    p->decl_name = p->tok;
    advance(p);
  } else if (p->tok->kind == KL_TOKEN_IDENTIFIER && !is_param) {
    /* a typedef name redeclared as a variable: allowed in an inner scope */
    sym *s = find_sym(p, p->tok->text, p->tok->length);
    if (s && s->typedef_type) {
      *name = p->tok;
      p->decl_name = p->tok;
      advance(p);
    }
  }
  if (pointer_to_pointer.source)
    kl_error(p->ctx, *name ? kl_token_where(*name) : pointer_to_pointer,
             "pointer to pointer types are not supported");
  return type;
}

/* --------------------------------------------------------- expressions */

static kl_node *new_unary(parser *p, kl_operator op, kl_node *operand, kl_location at);
static kl_node *new_binary(parser *p, kl_operator op, kl_node *lhs, kl_node *rhs, kl_location at);

static bool check_scalar_condition(parser *p, kl_node *n, const char *what) {
  if (!n || !n->type) return false;
  if (kl_type_is_scalar(n->type) || n->type->kind == KL_TYPE_POINTER) return true;
  if (n->type->kind == KL_TYPE_VECTOR)
    kl_error(p->ctx, n->location, "%s must be a scalar, not '%s' (use any() or all())", what,
             type_name(p, n->type));
  else
    kl_error(p->ctx, n->location, "%s must be a scalar, not '%s'", what, type_name(p, n->type));
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
    kl_node *node = new_node(p, KL_EXPR_FLOAT_LITERAL, at);
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
    int c = s[i], d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      break;
    if (base == 10 && d >= 10) break;
    if (d >= base) {
      kl_error(p->ctx, at, "invalid digit '%c' in %s constant '%s'", c,
               base == 8 ? "octal" : "hexadecimal", text);
      return new_int(p, 0, NULL, at);
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
      return new_int(p, v, NULL, at);
    }
  }
  if (!digits) {
    kl_error(p->ctx, at, "invalid integer literal '%s'", text);
    return new_int(p, 0, NULL, at);
  }
  if (overflow) {
    kl_error(p->ctx, at,
             "integer literal is too large to be represented in any integer type ('%s')", text);
    return new_int(p, 0, NULL, at);
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
  kl_node *node = new_int(p, v, kl_type_scalar(p->ctx, k), at);
  node->spelling = text;
  return node;
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
  }
  if (s < end) kl_error(p->ctx, at, "multi-character constants are not supported");
  kl_node *node = new_int(p, (uint64_t)value, NULL, at);
  node->spelling = kl_strndup(p->ctx, t->text, (size_t)t->length);
  return node;
}

static kl_node *variable_ref(parser *p, kl_variable *v, kl_location at) {
  kl_node *n = new_node(p, KL_EXPR_VARIABLE, at);
  n->variable = v;
  n->type = v->type;
  n->is_lvalue = true;
  return n;
}

static bool is_modifiable(parser *p, kl_node *n, const char *what) {
  kl_location at = expr_start(n);
  if (!n->is_lvalue) {
    if (n->kind == KL_EXPR_SWIZZLE && n->lhs->is_lvalue)
      kl_error(p->ctx, at, "a swizzle with repeated components ('.%s') is not assignable (%s)",
               n->spelling, what);
    else
      kl_error(p->ctx, at, "expression is not assignable (%s)", what);
    return false;
  }
  if (n->type->kind == KL_TYPE_ARRAY) {
    kl_error(p->ctx, at, "array type '%s' is not assignable", type_name(p, n->type));
    return false;
  }
  if (lvalue_space(n) == KL_SPACE_CONSTANT ||
      (n->kind == KL_EXPR_VARIABLE && n->variable->is_program_scope)) {
    kl_error(p->ctx, at, "cannot assign to __constant memory");
    return false;
  }
  if (n->type->qualifiers & KL_QUALIFIER_CONST) {
    kl_error(p->ctx, at, "cannot assign to const-qualified '%s'", type_name(p, n->type));
    return false;
  }
  return true;
}

static kl_node *call_function(parser *p, kl_function *f, kl_token *name) {
  kl_location at = kl_token_where(name);
  kl_node *n = new_node(p, KL_EXPR_CALL, at);
  n->function = f;
  n->type = f->return_type;
  n->spelling = f->name;
  advance(p); /* ( */
  kl_node head = {0}, *tail = &head;
  kl_variable *param = f->params;
  int count = 0;
  if (!is(p, ")")) {
    do {
      kl_node *arg = assignment(p);
      if (param) {
        kl_node *c = assign_convert(p, arg, param->type, arg->location,
                                    kl_format(p->ctx, "argument %d of '%s'", count + 1, f->name));
        if (c) arg = c;
        param = param->next;
      }
      tail->next = arg;
      tail = arg;
      count++;
    } while (accept(p, ",") && !p->panic);
  }
  expect(p, ")", "after the arguments");
  if (count != f->param_count)
    kl_error(p->ctx, at, "too %s arguments to function '%s' (%d given, %d expected)",
             count < f->param_count ? "few" : "many", f->name, count, f->param_count);
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
  kl_node *n = new_node(p, KL_EXPR_BUILTIN, at);
  n->builtin = b;
  n->spelling = kl_strndup(p->ctx, name->text, (size_t)name->length);
  n->type = type; /* convert_T, as_T, vloadN: the T; set by the check otherwise */
  advance(p);     /* ( */
  kl_node head = {0}, *tail = &head;
  int count = 0;
  if (!is(p, ")")) {
    do {
      kl_node *arg = decay(p, assignment(p));
      tail->next = arg;
      tail = arg;
      count++;
    } while (accept(p, ",") && !p->panic);
  }
  expect(p, ")", "after the arguments");
  n->args = head.next;
  n->arg_count = count;
  if (p->panic) {
    n->type = type ? type : int_type(p);
    return n;
  }
  if (!kl_builtin_check_call(p->ctx, n) && !n->type) n->type = int_type(p);
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
  if (tok_is(name, "lo") || tok_is(name, "hi") || tok_is(name, "even") || tok_is(name, "odd")) {
    int half = (length == 3 ? 4 : length) / 2;
    if (length == 3 && (tok_is(name, "hi") || tok_is(name, "odd"))) {
      kl_error(p->ctx, at,
               "'.%.*s' of a 3-component vector reads an undefined component: "
               "not in the portable subset",
               n, s);
      half = 1;
    }
    for (int i = 0; i < half; i++) {
      if (tok_is(name, "lo"))
        comps[i] = i;
      else if (tok_is(name, "hi"))
        comps[i] = half + i;
      else if (tok_is(name, "even"))
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
                   n, s, type_name(p, vt), length);
        else
          kl_error(p->ctx, at, "invalid vector component '%.*s' for '%s'", n, s, type_name(p, vt));
        return error_expr(p, at);
      }
      if (c >= length) {
        kl_error(p->ctx, at, "invalid vector component '%s%c' for '%s'", numeric ? "s" : "", s[i],
                 type_name(p, vt));
        return error_expr(p, at);
      }
      if (count >= 16) {
        kl_error(p->ctx, at, "too many components in '.%.*s'", n, s);
        return error_expr(p, at);
      }
      comps[count++] = c;
    }
  }
  if (count == 0 || (count > 4 && count != 8 && count != 16)) {
    kl_error(p->ctx, at, "'.%.*s' selects %d components: a vector has 2, 3, 4, 8 or 16", n, s,
             count);
    return error_expr(p, at);
  }
  kl_node *node = new_node(p, KL_EXPR_SWIZZLE, at);
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
  kl_location at = here(p);
  advance(p); /* . or -> */
  kl_token *name = p->tok;
  if (name->kind != KL_TOKEN_IDENTIFIER) {
    syntax_error_at(p, here(p), "expected a member name after ", arrow ? "'->'" : "'.'");
    return base;
  }
  advance(p);
  kl_type *t = base->type;
  if (arrow) {
    if (t->kind != KL_TYPE_POINTER || t->element->kind != KL_TYPE_STRUCT) {
      kl_error(p->ctx, at, "'->' needs a pointer to a struct, not '%s'", type_name(p, t));
      return error_expr(p, at);
    }
    t = t->element;
  } else if (t->kind == KL_TYPE_VECTOR) {
    return swizzle(p, base, name);
  } else if (t->kind != KL_TYPE_STRUCT) {
    kl_error(p->ctx, kl_token_where(name), "no member named '%.*s' in '%s'", name->length,
             name->text, t->name ? t->name : type_name(p, t));
    return error_expr(p, at);
  }
  for (kl_member *m = t->members; m; m = m->next) {
    if ((int)strlen(m->name) == name->length &&
        memcmp(m->name, name->text, (size_t)name->length) == 0) {
      kl_node *n = new_node(p, KL_EXPR_MEMBER, kl_token_where(name));
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
           t->name ? t->name : type_name(p, t));
  return error_expr(p, at);
}

static kl_node *postfix(parser *p, kl_node *n) {
  for (;;) {
    if (p->panic) return n;
    kl_location at = here(p);
    if (is(p, "[")) {
      advance(p);
      kl_node *index = expression(p);
      expect(p, "]", "after the index");
      kl_type *t = n->type;
      if (t->kind == KL_TYPE_VECTOR) {
        kl_error(p->ctx, at, "subscripting a vector ('%s') is not supported: use .s0 ... .sF",
                 type_name(p, t));
        n = error_expr(p, at);
        continue;
      }
      if (t->kind != KL_TYPE_POINTER && t->kind != KL_TYPE_ARRAY) {
        kl_error(p->ctx, at, "subscripted value of type '%s' is not an array or pointer",
                 type_name(p, t));
        n = error_expr(p, at);
        continue;
      }
      if (!kl_type_is_integer(index->type) && index->type->kind != KL_TYPE_BOOL) {
        kl_error(p->ctx, index->location, "array subscript is not an integer ('%s')",
                 type_name(p, index->type));
      }
      if (t->kind == KL_TYPE_POINTER && t->element->kind == KL_TYPE_VOID) {
        kl_error(p->ctx, at, "subscript of a pointer to void");
      }
      kl_node *x = new_node(p, KL_EXPR_INDEX, at);
      x->lhs = n;
      x->rhs = index;
      x->type = t->element;
      x->is_lvalue = true;
      n = x;
      continue;
    }
    if (is(p, ".") || is(p, "->")) {
      n = member_access(p, n, is(p, "->"));
      continue;
    }
    if (is(p, "++") || is(p, "--")) {
      bool inc = is(p, "++");
      advance(p);
      n = new_unary(p, inc ? KL_OP_POST_INCREMENT : KL_OP_POST_DECREMENT, n, at);
      continue;
    }
    return n;
  }
}

static kl_node *primary(parser *p) {
  kl_token *t = p->tok;
  kl_location at = here(p);
  if (accept(p, "(")) {
    kl_node *n = expression(p);
    expect(p, ")", "to close the parenthesis");
    return n;
  }
  if (t->kind == KL_TOKEN_NUMBER) {
    advance(p);
    return number_literal(p, t);
  }
  if (t->kind == KL_TOKEN_CHARACTER) {
    advance(p);
    return char_literal(p, t);
  }
  if (t->kind == KL_TOKEN_STRING) {
    advance(p);
    kl_error(p->ctx, at, "string literals are not supported");
    while (p->tok->kind == KL_TOKEN_STRING) advance(p);
    return error_expr(p, at);
  }
  if (t->kind == KL_TOKEN_IDENTIFIER) {
    if (tok_is(t, "__kl_infinity") || tok_is(t, "__kl_nan") || tok_is(t, "__kl_infinity_double")) {
      advance(p);
      kl_node *n = new_node(p, KL_EXPR_FLOAT_LITERAL, at);
      bool nan = tok_is(t, "__kl_nan");
      n->float_value = nan ? (double)NAN : (double)INFINITY;
      n->type = kl_type_scalar(p->ctx,
                               tok_is(t, "__kl_infinity_double") ? KL_TYPE_DOUBLE : KL_TYPE_FLOAT);
      n->spelling = nan ? "NAN" : "INFINITY";
      return n;
    }
    if (tok_is(t, "true") || tok_is(t, "false")) {
      advance(p);
      kl_node *n = new_int(p, tok_is(t, "true"), NULL, at);
      n->spelling = tok_is(t, "true") ? "true" : "false";
      return n;
    }
    if (tok_is(t, "printf")) {
      kl_error(p->ctx, at, "printf is not supported");
      advance(p);
      if (is(p, "(")) skip_parens(p);
      return error_expr(p, at);
    }
    sym *s = find_sym(p, t->text, t->length);
    if (s && s->variable) {
      advance(p);
      if (is(p, "(")) {
        kl_error(p->ctx, at, "called object '%.*s' is not a function", t->length, t->text);
        skip_parens(p);
        return error_expr(p, at);
      }
      return variable_ref(p, s->variable, at);
    }
    if (s && s->function) {
      advance(p);
      if (!is(p, "(")) {
        kl_error(p->ctx, at, "function pointers are not supported: '%.*s' must be called",
                 t->length, t->text);
        return error_expr(p, at);
      }
      return call_function(p, s->function, t);
    }
    kl_type *type = NULL;
    const kl_builtin *b = kl_builtin_lookup(p->ctx, t->text, t->length, &type);
    if (b) {
      advance(p);
      if (!is(p, "(")) {
        kl_error(p->ctx, at, "the builtin '%.*s' must be called", t->length, t->text);
        return error_expr(p, at);
      }
      return call_builtin(p, b, type, t);
    }
    advance(p);
    const char *image_what = image_name_kind(t);
    if (image_what)
      kl_error(p->ctx, at, "%s are not in the portable subset: '%.*s' is not supported", image_what,
               t->length, t->text);
    else if (is(p, "("))
      kl_error(p->ctx, at, "call to undeclared function '%.*s'", t->length, t->text);
    else
      kl_error(p->ctx, at, "use of undeclared identifier '%.*s'", t->length, t->text);
    if (is(p, "(")) skip_parens(p);
    return error_expr(p, at);
  }
  if (t->kind == KL_TOKEN_END)
    syntax_error_at(p, at, "expected expression, found end of input", NULL);
  else
    syntax_error_at(p, at, "expected expression, found ", token_text(p, t));
  return error_expr(p, at);
}

/* One part of a vector literal or of a vector's brace initializer: a
 * vector of the element type (its lanes count) or a scalar converted to
 * the element type; adds its lanes to *components. */
static kl_node *vector_part(parser *p, kl_type *type, bool in_braces, int *components) {
  kl_node *part = assignment(p);
  if (!part->type) part->type = int_type(p);
  const char *where = in_braces ? "the initializer of" : "";
  if (part->type->kind == KL_TYPE_VECTOR) {
    if (part->type->element->kind != type->element->kind)
      kl_error(p->ctx, part->location,
               "a '%s' part in %s%sa '%s'%s: vector parts must have the element type '%s' (use "
               "convert_%s%d())",
               type_name(p, part->type), where, in_braces ? " " : "", type_name(p, type),
               in_braces ? "" : " literal", type_name(p, type->element),
               type_name(p, type->element), part->type->length);
    *components += part->type->length;
  } else if (is_bool_or_arith(part->type)) {
    part = kl_convert(p->ctx, part, type->element);
    (*components)++;
  } else {
    if (in_braces)
      kl_error(p->ctx, part->location, "a '%s' cannot initialise a part of a '%s'",
               type_name(p, part->type), type_name(p, type));
    else
      kl_error(p->ctx, part->location, "a '%s' cannot be part of a vector literal",
               type_name(p, part->type));
    (*components)++;
  }
  return part;
}

/* (T)(a, b, ...) with T a vector type. */
static kl_node *vector_literal(parser *p, kl_type *type, kl_location at) {
  advance(p); /* ( */
  kl_node head = {0}, *tail = &head;
  int count = 0, components = 0;
  do {
    kl_node *part = vector_part(p, type, false, &components);
    tail->next = part;
    tail = part;
    count++;
  } while (accept(p, ",") && !p->panic);
  expect(p, ")", "to close the vector literal");
  if (count == 1 && head.next->type->kind != KL_TYPE_VECTOR) {
    /* (float4)(x): every component is x */
    kl_node *n = new_node(p, KL_EXPR_CAST, at);
    n->lhs = head.next;
    n->type = type;
    return n;
  }
  if (count == 1 && kl_type_equal(head.next->type, type)) return head.next;
  if (components != type->length && !p->panic)
    kl_error(p->ctx, at, "wrong number of components in vector literal: '%s' needs %d, %d given",
             type_name(p, type), type->length, components);
  kl_node *n = new_node(p, KL_EXPR_VECTOR_LITERAL, at);
  n->args = head.next;
  n->arg_count = count;
  n->type = type;
  return n;
}

static kl_type *type_name_parse(parser *p, kl_location *at_out) {
  decl_spec spec;
  *at_out = here(p);
  declspec(p, &spec, false);
  kl_token *name = NULL;
  kl_type *base = kl_type_qualified(p->ctx, spec.type, spec.qualifiers | spec.type->qualifiers);
  kl_type *t = declarator(p, base, spec.has_space ? spec.space : KL_SPACE_PRIVATE, &name, true);
  if (name) kl_error(p->ctx, kl_token_where(name), "unexpected name in a type");
  t = array_suffix(p, t, NULL);
  if (spec.has_space && t->kind != KL_TYPE_POINTER)
    kl_error(p->ctx, *at_out, "an address space in a cast applies to pointers only");
  return t;
}

static kl_node *cast_to(parser *p, kl_type *type, kl_node *x, kl_location at) {
  x = decay(p, x);
  kl_type *from = x->type;
  kl_node *n = new_node(p, KL_EXPR_CAST, at);
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
               type_name(p, from), type_name(p, type), type_name(p, n->type),
               type_name(p, n->type));
      return n;
    }
  }
  if (type->kind == KL_TYPE_POINTER && from->kind == KL_TYPE_POINTER) {
    if (type->pointee_space != from->pointee_space) {
      kl_error(p->ctx, at, "cannot cast between address spaces ('%s' to '%s')", type_name(p, from),
               type_name(p, type));
    }
    return n;
  }
  if (type->kind == KL_TYPE_POINTER && is_null_constant(p, x)) return n;
  if ((type->kind == KL_TYPE_POINTER && kl_type_is_scalar(from)) ||
      (from->kind == KL_TYPE_POINTER && kl_type_is_scalar(type))) {
    kl_error(p->ctx, at, "casts between pointers and integers are not supported");
    return n;
  }
  if (type->kind == KL_TYPE_STRUCT && kl_type_equal(type, from)) return n;
  kl_error(p->ctx, at, "cannot cast '%s' to '%s'", type_name(p, from), type_name(p, type));
  return n;
}

static kl_node *sizeof_expr(parser *p) {
  kl_location at = here(p);
  bool align = !is(p, "sizeof"); /* __alignof__, _Alignof */
  advance(p);
  kl_type *t;
  bool paren_string = is(p, "(") && p->tok->next->kind == KL_TOKEN_STRING;
  if (p->tok->kind == KL_TOKEN_STRING || paren_string) {
    /* sizeof "text": the one use of a string literal in the subset */
    if (paren_string) advance(p);
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
      advance(p);
    }
    if (paren_string) expect(p, ")", "after the string");
    return new_int(p, (uint64_t)bytes, kl_type_scalar(p->ctx, KL_TYPE_SIZE_T), at);
  }
  if (is(p, "(") && is_type_start(p, p->tok->next)) {
    advance(p);
    kl_location type_at;
    t = type_name_parse(p, &type_at);
    expect(p, ")", "after the type");
  } else {
    kl_node *x = cast_expr(p);
    t = x->type;
  }
  if (t->kind == KL_TYPE_VOID || t->kind == KL_TYPE_FUNCTION ||
      (t->kind == KL_TYPE_STRUCT && !t->members))
    kl_error(p->ctx, at, "sizeof of an incomplete type '%s'", type_name(p, t));
  return new_int(p, (uint64_t)(align ? t->align : t->size), kl_type_scalar(p->ctx, KL_TYPE_SIZE_T),
                 at);
}

static kl_node *unary(parser *p) {
  enter_depth(p);
  kl_location at = here(p);
  kl_node *n;
  if (is(p, "-") || is(p, "+") || is(p, "!") || is(p, "~") || is(p, "*") || is(p, "&")) {
    char c = p->tok->text[0];
    advance(p);
    kl_node *x = cast_expr(p);
    kl_operator op = c == '-'   ? KL_OP_NEGATE
                     : c == '+' ? KL_OP_PLUS
                     : c == '!' ? KL_OP_LOGICAL_NOT
                     : c == '~' ? KL_OP_BIT_NOT
                     : c == '*' ? KL_OP_DEREFERENCE
                                : KL_OP_ADDRESS_OF;
    n = new_unary(p, op, x, at);
  } else if (is(p, "++") || is(p, "--")) {
    bool inc = is(p, "++");
    advance(p);
    kl_node *x = unary(p);
    n = new_unary(p, inc ? KL_OP_PRE_INCREMENT : KL_OP_PRE_DECREMENT, x, at);
  } else if (is(p, "sizeof") || is(p, "__alignof__") || is(p, "__alignof") || is(p, "_Alignof")) {
    n = sizeof_expr(p);
  } else if (is(p, "vec_step")) {
    advance(p);
    expect(p, "(", "after 'vec_step'");
    kl_type *t;
    if (is_type_start(p, p->tok)) {
      kl_location type_at;
      t = type_name_parse(p, &type_at);
    } else {
      t = expression(p)->type;
    }
    expect(p, ")", "after the vec_step operand");
    int steps = t->kind == KL_TYPE_VECTOR ? (t->length == 3 ? 4 : t->length) : 1;
    n = new_int(p, (uint64_t)steps, NULL, at);
  } else {
    n = postfix(p, primary(p));
  }
  leave_depth(p);
  return n;
}

static kl_node *cast_expr(parser *p) {
  if (is(p, "(") && is_type_start(p, p->tok->next)) {
    enter_depth(p);
    kl_location at = here(p);
    advance(p);
    kl_location type_at;
    kl_type *type = type_name_parse(p, &type_at);
    expect(p, ")", "after the type in a cast");
    kl_node *n;
    if (type->kind == KL_TYPE_VECTOR && is(p, "(")) {
      n = postfix(p, vector_literal(p, type, at));
    } else if (is(p, "{")) {
      kl_error(p->ctx, here(p), "compound literals are not supported");
      skip_parens(p);
      n = error_expr(p, at);
    } else {
      n = cast_to(p, type, cast_expr(p), at);
    }
    leave_depth(p);
    return n;
  }
  return unary(p);
}

/* The common type of two arithmetic operands, with OpenCL's vector rules;
 * converts both. NULL (after an error) when they do not combine. */
static kl_type *arith_common(parser *p, kl_node **lhs, kl_node **rhs, kl_location at,
                             const char *op) {
  kl_type *a = (*lhs)->type, *b = (*rhs)->type;
  if (!is_bool_or_arith(a) || !is_bool_or_arith(b)) {
    kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", op, type_name(p, a),
             type_name(p, b));
    return NULL;
  }
  kl_type *t;
  if (a->kind == KL_TYPE_VECTOR && b->kind == KL_TYPE_VECTOR) {
    if (!kl_type_equal(a, b)) {
      kl_error(
          p->ctx, at,
          "invalid operands to binary '%s' ('%s' and '%s'): vector operands must have the same "
          "type (no implicit conversion between vector types)",
          op, type_name(p, a), type_name(p, b));
      return NULL;
    }
    t = kl_type_unqualified(p->ctx, a);
  } else if (a->kind == KL_TYPE_VECTOR) {
    t = kl_type_unqualified(p->ctx, a);
  } else if (b->kind == KL_TYPE_VECTOR) {
    t = kl_type_unqualified(p->ctx, b);
  } else {
    t = kl_type_common(p->ctx, a, b);
  }
  *lhs = kl_convert(p->ctx, *lhs, t);
  *rhs = kl_convert(p->ctx, *rhs, t);
  return t;
}

static const char *op_text(kl_operator op) {
  static const char *const texts[] = {
      [KL_OP_ADD] = "+",
      [KL_OP_SUB] = "-",
      [KL_OP_MUL] = "*",
      [KL_OP_DIV] = "/",
      [KL_OP_MOD] = "%",
      [KL_OP_SHL] = "<<",
      [KL_OP_SHR] = ">>",
      [KL_OP_BIT_AND] = "&",
      [KL_OP_BIT_OR] = "|",
      [KL_OP_BIT_XOR] = "^",
      [KL_OP_LOGICAL_AND] = "&&",
      [KL_OP_LOGICAL_OR] = "||",
      [KL_OP_EQ] = "==",
      [KL_OP_NE] = "!=",
      [KL_OP_LT] = "<",
      [KL_OP_LE] = "<=",
      [KL_OP_GT] = ">",
      [KL_OP_GE] = ">=",
      [KL_OP_NEGATE] = "-",
      [KL_OP_PLUS] = "+",
      [KL_OP_LOGICAL_NOT] = "!",
      [KL_OP_BIT_NOT] = "~",
      [KL_OP_PRE_INCREMENT] = "++",
      [KL_OP_PRE_DECREMENT] = "--",
      [KL_OP_POST_INCREMENT] = "++",
      [KL_OP_POST_DECREMENT] = "--",
      [KL_OP_DEREFERENCE] = "*",
      [KL_OP_ADDRESS_OF] = "&",
  };
  if ((int)op < 0 || (size_t)op >= sizeof texts / sizeof texts[0] || !texts[op]) return "?";
  return texts[op];
}

static bool is_integer_like(const kl_type *t) {
  const kl_type *s = kl_type_scalar_of(t);
  return kl_type_is_integer(s) || (s && s->kind == KL_TYPE_BOOL);
}

static kl_node *new_binary(parser *p, kl_operator op, kl_node *lhs, kl_node *rhs, kl_location at) {
  lhs = decay(p, lhs);
  rhs = decay(p, rhs);
  kl_node *n = new_node(p, KL_EXPR_BINARY, at);
  n->op = op;
  kl_type *a = lhs->type, *b = rhs->type;
  const char *text = op_text(op);
  switch (op) {
    case KL_OP_ADD:
    case KL_OP_SUB:
      if (a->kind == KL_TYPE_POINTER || b->kind == KL_TYPE_POINTER) {
        if (a->kind == KL_TYPE_POINTER && b->kind == KL_TYPE_POINTER && op == KL_OP_SUB) {
          if (!kl_type_equal(a, b))
            kl_error(p->ctx, at, "subtracting pointers of different types ('%s' and '%s')",
                     type_name(p, a), type_name(p, b));
          n->type = kl_type_scalar(p->ctx, KL_TYPE_PTRDIFF_T);
        } else if (a->kind == KL_TYPE_POINTER && is_integer_like(b) && b->kind != KL_TYPE_VECTOR) {
          n->type = kl_type_unqualified(p->ctx, a);
        } else if (op == KL_OP_ADD && b->kind == KL_TYPE_POINTER && is_integer_like(a) &&
                   a->kind != KL_TYPE_VECTOR) {
          /* i + p: canonical order p + i */
          kl_node *t = lhs;
          lhs = rhs;
          rhs = t;
          n->type = kl_type_unqualified(p->ctx, lhs->type);
        } else {
          kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", text,
                   type_name(p, a), type_name(p, b));
          n->type = int_type(p);
        }
        if (n->type->kind == KL_TYPE_POINTER && n->type->element->kind == KL_TYPE_VOID)
          kl_error(p->ctx, at, "arithmetic on a pointer to void");
        break;
      }
      /* fallthrough */
    case KL_OP_MUL:
    case KL_OP_DIV: {
      kl_type *t = arith_common(p, &lhs, &rhs, at, text);
      n->type = t ? t : int_type(p);
      break;
    }
    case KL_OP_MOD:
    case KL_OP_BIT_AND:
    case KL_OP_BIT_OR:
    case KL_OP_BIT_XOR: {
      if (!is_integer_like(a) || !is_integer_like(b)) {
        if (op == KL_OP_MOD && is_bool_or_arith(a) && is_bool_or_arith(b))
          kl_error(p->ctx, at,
                   "invalid operands to binary '%%' ('%s' and '%s'): use fmod() for floating point",
                   type_name(p, a), type_name(p, b));
        else
          kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s'): integers needed",
                   text, type_name(p, a), type_name(p, b));
        n->type = int_type(p);
        break;
      }
      kl_type *t = arith_common(p, &lhs, &rhs, at, text);
      n->type = t ? t : int_type(p);
      break;
    }
    case KL_OP_SHL:
    case KL_OP_SHR: {
      if (!is_integer_like(a) || !is_integer_like(b)) {
        kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s'): integers needed",
                 text, type_name(p, a), type_name(p, b));
        n->type = int_type(p);
        break;
      }
      if (a->kind != KL_TYPE_VECTOR && b->kind == KL_TYPE_VECTOR) {
        kl_error(p->ctx, at,
                 "invalid operands to binary '%s' ('%s' and '%s'): a scalar shifted by a vector",
                 text, type_name(p, a), type_name(p, b));
        n->type = int_type(p);
        break;
      }
      kl_type *t =
          a->kind == KL_TYPE_VECTOR ? kl_type_unqualified(p->ctx, a) : kl_type_promote(p->ctx, a);
      if (a->kind == KL_TYPE_VECTOR && b->kind == KL_TYPE_VECTOR && a->length != b->length) {
        kl_error(p->ctx, at,
                 "invalid operands to binary '%s' ('%s' and '%s'): vectors of different lengths",
                 text, type_name(p, a), type_name(p, b));
      }
      lhs = kl_convert(p->ctx, lhs, t);
      rhs = kl_convert(p->ctx, rhs, t); /* the count, masked to the width by every target */
      n->type = t;
      break;
    }
    case KL_OP_EQ:
    case KL_OP_NE:
    case KL_OP_LT:
    case KL_OP_LE:
    case KL_OP_GT:
    case KL_OP_GE: {
      if (a->kind == KL_TYPE_POINTER || b->kind == KL_TYPE_POINTER) {
        bool ok = (a->kind == KL_TYPE_POINTER && b->kind == KL_TYPE_POINTER &&
                   a->pointee_space == b->pointee_space) ||
                  (a->kind == KL_TYPE_POINTER && is_null_constant(p, rhs)) ||
                  (b->kind == KL_TYPE_POINTER && is_null_constant(p, lhs));
        if (!ok)
          kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", text,
                   type_name(p, a), type_name(p, b));
        if (a->kind != KL_TYPE_POINTER) lhs = kl_convert(p->ctx, lhs, b);
        if (b->kind != KL_TYPE_POINTER) rhs = kl_convert(p->ctx, rhs, a);
        n->type = int_type(p);
        break;
      }
      kl_type *t = arith_common(p, &lhs, &rhs, at, text);
      n->type = t ? kl_type_signed_int_like(p->ctx, t) : int_type(p);
      break;
    }
    case KL_OP_LOGICAL_AND:
    case KL_OP_LOGICAL_OR: {
      if (a->kind == KL_TYPE_VECTOR || b->kind == KL_TYPE_VECTOR) {
        if (!is_integer_like(a) || !is_integer_like(b)) {
          kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", text,
                   type_name(p, a), type_name(p, b));
          n->type = int_type(p);
          break;
        }
        kl_type *t = arith_common(p, &lhs, &rhs, at, text);
        n->type = t ? kl_type_signed_int_like(p->ctx, t) : int_type(p);
        break;
      }
      if (!(kl_type_is_scalar(a) || a->kind == KL_TYPE_POINTER) ||
          !(kl_type_is_scalar(b) || b->kind == KL_TYPE_POINTER))
        kl_error(p->ctx, at, "invalid operands to binary '%s' ('%s' and '%s')", text,
                 type_name(p, a), type_name(p, b));
      n->type = int_type(p);
      break;
    }
    default:
      n->type = int_type(p);
      break;
  }
  n->lhs = lhs;
  n->rhs = rhs;
  return n;
}

static kl_node *new_unary(parser *p, kl_operator op, kl_node *x, kl_location at) {
  kl_node *n = new_node(p, KL_EXPR_UNARY, at);
  n->op = op;
  kl_type *t = x->type;
  switch (op) {
    case KL_OP_NEGATE:
    case KL_OP_PLUS:
      if (!is_bool_or_arith(t)) {
        kl_error(p->ctx, at, "invalid operand to unary '%s' ('%s')", op_text(op), type_name(p, t));
        n->type = int_type(p);
        break;
      }
      n->type =
          t->kind == KL_TYPE_VECTOR ? kl_type_unqualified(p->ctx, t) : kl_type_promote(p->ctx, t);
      x = kl_convert(p->ctx, x, n->type);
      break;
    case KL_OP_BIT_NOT:
      if (!is_integer_like(t)) {
        kl_error(p->ctx, at, "invalid operand to unary '~' ('%s'): an integer needed",
                 type_name(p, t));
        n->type = int_type(p);
        break;
      }
      n->type =
          t->kind == KL_TYPE_VECTOR ? kl_type_unqualified(p->ctx, t) : kl_type_promote(p->ctx, t);
      x = kl_convert(p->ctx, x, n->type);
      break;
    case KL_OP_LOGICAL_NOT:
      x = decay(p, x);
      t = x->type;
      if (t->kind == KL_TYPE_VECTOR) {
        if (!is_integer_like(t))
          kl_error(p->ctx, at, "invalid operand to unary '!' ('%s')", type_name(p, t));
        n->type = kl_type_signed_int_like(p->ctx, t);
      } else {
        if (!kl_type_is_scalar(t) && t->kind != KL_TYPE_POINTER)
          kl_error(p->ctx, at, "invalid operand to unary '!' ('%s')", type_name(p, t));
        n->type = int_type(p);
      }
      break;
    case KL_OP_PRE_INCREMENT:
    case KL_OP_PRE_DECREMENT:
    case KL_OP_POST_INCREMENT:
    case KL_OP_POST_DECREMENT:
      if (!(is_bool_or_arith(t) || t->kind == KL_TYPE_POINTER) || t->kind == KL_TYPE_BOOL) {
        kl_error(p->ctx, at, "invalid operand to '%s' ('%s')", op_text(op), type_name(p, t));
      } else {
        is_modifiable(p, x, kl_format(p->ctx, "'%s'", op_text(op)));
      }
      n->type = kl_type_unqualified(p->ctx, t);
      break;
    case KL_OP_DEREFERENCE:
      x = decay(p, x);
      t = x->type;
      if (t->kind != KL_TYPE_POINTER) {
        kl_error(p->ctx, at, "invalid operand to unary '*' ('%s'): not a pointer", type_name(p, t));
        n->type = int_type(p);
        break;
      }
      if (t->element->kind == KL_TYPE_VOID)
        kl_error(p->ctx, at, "dereference of a pointer to void");
      n->type = t->element;
      n->is_lvalue = true;
      break;
    case KL_OP_ADDRESS_OF:
      if (!x->is_lvalue) {
        kl_error(p->ctx, at, "cannot take the address of an rvalue");
        n->type = kl_type_pointer(p->ctx, t, KL_SPACE_PRIVATE);
        break;
      }
      if (x->kind == KL_EXPR_SWIZZLE || (x->kind == KL_EXPR_MEMBER && false)) {
        kl_error(p->ctx, at, "cannot take the address of a vector component");
      }
      if (x->kind == KL_EXPR_VARIABLE) x->variable->address_taken = true;
      {
        /* the variable whose storage this is, if any */
        kl_node *base = x;
        for (int guard = 0; base && guard < 10000; guard++) {
          if (base->kind == KL_EXPR_INDEX && base->lhs->type->kind == KL_TYPE_ARRAY)
            base = base->lhs;
          else if (base->kind == KL_EXPR_MEMBER && !base->is_arrow)
            base = base->lhs;
          else
            break;
        }
        if (base && base->kind == KL_EXPR_VARIABLE) base->variable->address_taken = true;
      }
      n->type = kl_type_pointer(p->ctx, t, lvalue_space(x));
      break;
    default:
      n->type = int_type(p);
      break;
  }
  n->lhs = x;
  return n;
}

static int binary_precedence(parser *p, kl_operator *op) {
  static const struct {
    const char *text;
    kl_operator op;
    int precedence;
  } ops[] = {
      {"*", KL_OP_MUL, 10},   {"/", KL_OP_DIV, 10},         {"%", KL_OP_MOD, 10},
      {"+", KL_OP_ADD, 9},    {"-", KL_OP_SUB, 9},          {"<<", KL_OP_SHL, 8},
      {">>", KL_OP_SHR, 8},   {"<", KL_OP_LT, 7},           {"<=", KL_OP_LE, 7},
      {">", KL_OP_GT, 7},     {">=", KL_OP_GE, 7},          {"==", KL_OP_EQ, 6},
      {"!=", KL_OP_NE, 6},    {"&", KL_OP_BIT_AND, 5},      {"^", KL_OP_BIT_XOR, 4},
      {"|", KL_OP_BIT_OR, 3}, {"&&", KL_OP_LOGICAL_AND, 2}, {"||", KL_OP_LOGICAL_OR, 1},
  };
  if (p->tok->kind != KL_TOKEN_PUNCTUATOR) return 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (kl_token_is(p->tok, ops[i].text)) {
      *op = ops[i].op;
      return ops[i].precedence;
    }
  return 0;
}

static kl_node *binary(parser *p, int min_precedence) {
  enter_depth(p);
  kl_node *lhs = cast_expr(p);
  for (;;) {
    kl_operator op;
    int precedence = binary_precedence(p, &op);
    if (!precedence || precedence < min_precedence || p->panic) break;
    kl_location at = here(p);
    advance(p);
    kl_node *rhs = binary(p, precedence + 1);
    lhs = new_binary(p, op, lhs, rhs, at);
  }
  leave_depth(p);
  return lhs;
}

static kl_node *conditional(parser *p) {
  enter_depth(p);
  kl_node *condition = binary(p, 1);
  if (!is(p, "?")) {
    leave_depth(p);
    return condition;
  }
  kl_location at = here(p);
  advance(p);
  kl_node *a = decay(p, expression(p));
  expect(p, ":", "in the conditional expression");
  kl_node *b = decay(p, conditional(p));
  kl_node *n = new_node(p, KL_EXPR_CONDITIONAL, at);
  condition = decay(p, condition);
  kl_type *ta = a->type, *tb = b->type;
  if (condition->type->kind == KL_TYPE_VECTOR) {
    /* c ? a : b with a vector c: component-wise, as select(b, a, c) */
    kl_type *ct = condition->type;
    kl_type *t =
        is_bool_or_arith(ta) && is_bool_or_arith(tb) ? arith_common(p, &a, &b, at, "?:") : NULL;
    if (!is_integer_like(ct)) {
      kl_error(p->ctx, condition->location,
               "a vector condition must have integer components, not '%s'", type_name(p, ct));
    } else if (t && t->kind != KL_TYPE_VECTOR) {
      t = kl_type_vector(p->ctx, t->kind, ct->length);
      a = kl_convert(p->ctx, a, t);
      b = kl_convert(p->ctx, b, t);
    } else if (t && (t->length != ct->length || t->element->size != ct->element->size)) {
      kl_error(p->ctx, condition->location,
               "the vector condition '%s' does not match the operands' type '%s' (same length and "
               "element size needed)",
               type_name(p, ct), type_name(p, t));
    } else if (!t && !(is_bool_or_arith(ta) && is_bool_or_arith(tb))) {
      kl_error(p->ctx, at, "the operands of a vector '?:' must be numbers ('%s' and '%s')",
               type_name(p, ta), type_name(p, tb));
    }
    n->type = t ? t : int_type(p);
    n->condition = condition;
    n->then = a;
    n->otherwise = b;
    leave_depth(p);
    return n;
  }
  check_scalar_condition(p, condition, "the condition of '?:'");
  if (is_bool_or_arith(ta) && is_bool_or_arith(tb)) {
    kl_type *t = arith_common(p, &a, &b, at, "?:");
    n->type = t ? t : int_type(p);
  } else if (ta->kind == KL_TYPE_POINTER || tb->kind == KL_TYPE_POINTER) {
    if (ta->kind == KL_TYPE_POINTER && tb->kind == KL_TYPE_POINTER && kl_type_equal(ta, tb))
      n->type = kl_type_unqualified(p->ctx, ta);
    else if (ta->kind == KL_TYPE_POINTER && is_null_constant(p, b)) {
      n->type = kl_type_unqualified(p->ctx, ta);
      b = kl_convert(p->ctx, b, ta);
    } else if (tb->kind == KL_TYPE_POINTER && is_null_constant(p, a)) {
      n->type = kl_type_unqualified(p->ctx, tb);
      a = kl_convert(p->ctx, a, tb);
    } else {
      kl_error(p->ctx, at, "incompatible operand types ('%s' and '%s') in '?:'", type_name(p, ta),
               type_name(p, tb));
      n->type = kl_type_unqualified(p->ctx, ta);
    }
  } else if (kl_type_equal(ta, tb)) {
    n->type = kl_type_unqualified(p->ctx, ta);
  } else {
    kl_error(p->ctx, at, "incompatible operand types ('%s' and '%s') in '?:'", type_name(p, ta),
             type_name(p, tb));
    n->type = ta;
  }
  n->condition = condition;
  n->then = a;
  n->otherwise = b;
  leave_depth(p);
  return n;
}

static kl_node *assignment(parser *p) {
  enter_depth(p);
  kl_node *lhs = conditional(p);
  static const struct {
    const char *text;
    kl_operator op;
  } ops[] = {{"=", KL_OP_NONE},     {"+=", KL_OP_ADD},    {"-=", KL_OP_SUB},    {"*=", KL_OP_MUL},
             {"/=", KL_OP_DIV},     {"%=", KL_OP_MOD},    {"<<=", KL_OP_SHL},   {">>=", KL_OP_SHR},
             {"&=", KL_OP_BIT_AND}, {"|=", KL_OP_BIT_OR}, {"^=", KL_OP_BIT_XOR}};
  if (p->tok->kind == KL_TOKEN_PUNCTUATOR && !p->panic) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
      if (!kl_token_is(p->tok, ops[i].text)) continue;
      kl_location at = here(p);
      advance(p);
      kl_node *rhs = assignment(p);
      kl_node *n = new_node(p, KL_EXPR_ASSIGN, at);
      n->op = ops[i].op;
      n->type = kl_type_unqualified(p->ctx, lhs->type);
      bool ok = is_modifiable(p, lhs, "assignment");
      if (ops[i].op == KL_OP_NONE) {
        if (ok) {
          kl_node *c = assign_convert(p, rhs, lhs->type, at, "assignment");
          if (c) rhs = c;
        }
      } else if (ok) {
        /* lhs op= rhs: rhs is converted to the operation's type (rhs->type
         * afterwards), the result back to lhs's type. */
        kl_node probe = *lhs;
        kl_node *op_node = new_binary(p, ops[i].op, &probe, rhs, at);
        if (lhs->type->kind == KL_TYPE_POINTER) {
          rhs = op_node->rhs;
        } else {
          kl_type *op_type = op_node->type;
          if (ops[i].op == KL_OP_SHL || ops[i].op == KL_OP_SHR) op_type = op_node->rhs->type;
          rhs = kl_convert(p->ctx, rhs, op_node->rhs->type);
          if (lhs->type->kind != KL_TYPE_VECTOR && op_type->kind == KL_TYPE_VECTOR)
            kl_error(p->ctx, at, "cannot assign a vector result to a scalar ('%s')",
                     type_name(p, lhs->type));
        }
      }
      n->lhs = lhs;
      n->rhs = rhs;
      leave_depth(p);
      return n;
    }
  }
  leave_depth(p);
  return lhs;
}

static kl_node *expression(parser *p) {
  enter_depth(p);
  kl_node *n = assignment(p);
  while (is(p, ",") && !p->panic) {
    kl_location at = here(p);
    advance(p);
    kl_node *rhs = assignment(p);
    kl_node *c = new_node(p, KL_EXPR_COMMA, at);
    c->lhs = n;
    c->rhs = rhs;
    c->type = rhs->type;
    n = c;
  }
  leave_depth(p);
  return n;
}

/* -------------------------------------------------------- declarations */

static kl_variable *new_variable(parser *p, kl_token *name, kl_type *type, kl_address_space space) {
  kl_variable *v = kl_alloc(p->ctx, sizeof *v);
  v->name = kl_strndup(p->ctx, name->text, (size_t)name->length);
  v->type = type;
  v->space = space;
  v->location = kl_token_where(name);
  v->id = p->ctx->next_variable_id++;
  return v;
}

static void declare_name(parser *p, kl_token *name, sym **out) {
  sym *old = find_sym_here(p, name->text, name->length);
  if (old) {
    kl_error(p->ctx, kl_token_where(name), "redefinition of '%.*s'", name->length, name->text);
  }
  *out = add_sym(p, name->text, name->length);
}

static kl_node *initializer(parser *p, kl_type *type, int depth);

static kl_node *init_list(parser *p, kl_type *type, int depth) {
  kl_location at = here(p);
  if (depth > 32) {
    kl_error(p->ctx, at, "initializer nested too deeply");
    kl_bail(p->ctx);
  }
  advance(p); /* { */
  kl_node *list = new_node(p, KL_EXPR_INIT_LIST, at);
  list->type = type;
  kl_node head = {0}, *tail = &head;
  int count = 0;
  if (type->kind == KL_TYPE_ARRAY) {
    while (!is(p, "}") && !p->panic && p->tok->kind != KL_TOKEN_END) {
      kl_node *e = initializer(p, type->element, depth + 1);
      if (type->length && count >= type->length) {
        if (count == type->length)
          kl_error(p->ctx, e->location, "too many initializers for '%s'", type_name(p, type));
      } else {
        tail->next = e;
        tail = e;
      }
      count++;
      if (!accept(p, ",")) break;
    }
  } else if (type->kind == KL_TYPE_STRUCT) {
    kl_member *m = type->members;
    while (!is(p, "}") && !p->panic && p->tok->kind != KL_TOKEN_END) {
      if (!m) {
        kl_error(p->ctx, here(p), "too many initializers for '%s'", type_name(p, type));
        while (!is(p, "}") && p->tok->kind != KL_TOKEN_END) {
          if (is(p, "{"))
            skip_parens(p);
          else
            advance(p);
        }
        break;
      }
      kl_node *e = initializer(p, m->type, depth + 1);
      tail->next = e;
      tail = e;
      count++;
      m = m->next;
      if (!accept(p, ",")) break;
    }
  } else {
    kl_error(p->ctx, at, "braces around a scalar initializer");
    while (!is(p, "}") && p->tok->kind != KL_TOKEN_END) advance(p);
  }
  expect(p, "}", "to close the initializer");
  list->args = head.next;
  list->arg_count = count;
  return list;
}

/* Pads a brace list to the full aggregate with zeros, so that emitters see
 * one element per array element or member. */
static kl_node *zero_value(parser *p, kl_type *type, kl_location at, int depth);

/* Zeros are written out (one node each) up to these many scalars per brace
 * list and per translation; GLSL, which cannot express an implicit tail of
 * arrays or structs, refuses what is left implicit beyond them. */
enum { PADDING_PER_LIST = 65536, PADDING_BUDGET = 1 << 20 };

/* How many scalars an object of TYPE holds, saturating far above any limit. */
static uint64_t scalar_count(const kl_type *type) {
  if (type->kind == KL_TYPE_ARRAY) {
    uint64_t inner = scalar_count(type->element),
             length = type->length > 0 ? (uint64_t)type->length : 0;
    return inner && length > (UINT64_C(1) << 40) / inner ? UINT64_C(1) << 40 : inner * length;
  }
  if (type->kind == KL_TYPE_STRUCT) {
    uint64_t sum = 0;
    for (const kl_member *m = type->members; m && sum < (UINT64_C(1) << 40); m = m->next)
      sum += scalar_count(m->type);
    return sum;
  }
  return 1;
}

static void pad_list(parser *p, kl_node *list, int depth) {
  kl_type *type = list->type;
  if (depth > 32) return;
  int wanted = 0;
  if (type->kind == KL_TYPE_ARRAY)
    wanted = type->length;
  else if (type->kind == KL_TYPE_STRUCT)
    for (kl_member *m = type->members; m; m = m->next) wanted++;
  kl_node *tail = NULL;
  int count = 0;
  for (kl_node *e = list->args; e; e = e->next) {
    tail = e;
    count++;
  }
  kl_member *m = type->kind == KL_TYPE_STRUCT ? type->members : NULL;
  for (int i = 0; i < count && m; i++) m = m->next;
  uint64_t tail_scalars =
      type->kind == KL_TYPE_ARRAY ? (uint64_t)(wanted - count) * scalar_count(type->element) : 0;
  if (type->kind == KL_TYPE_ARRAY &&
      (tail_scalars > PADDING_PER_LIST || p->padded_scalars + tail_scalars > PADDING_BUDGET)) {
    /* large zero tails stay implicit: arg_count < length means "the rest are
     * zero" (counted in scalars, so that int g[4096][4096] = {{1}} does not
     * become millions of nodes) */
    list->arg_count = count;
    return;
  }
  p->padded_scalars += tail_scalars;
  for (; count < wanted; count++) {
    kl_type *et = type->kind == KL_TYPE_ARRAY ? type->element : m->type;
    if (m) m = m->next;
    kl_node *z = zero_value(p, et, list->location, depth + 1);
    if (tail)
      tail->next = z;
    else
      list->args = z;
    tail = z;
  }
  list->arg_count = count;
}

static kl_node *zero_value(parser *p, kl_type *type, kl_location at, int depth) {
  if (type->kind == KL_TYPE_ARRAY || type->kind == KL_TYPE_STRUCT) {
    kl_node *list = new_node(p, KL_EXPR_INIT_LIST, at);
    list->type = type;
    pad_list(p, list, depth);
    return list;
  }
  return kl_convert(p->ctx, new_int(p, 0, NULL, at), type);
}

/* {a, b, ...} for a vector, as OpenCL C takes it: the parts are scalars
 * (converted to the element type) and vectors of the element type whose
 * components add up to the length, exactly as in a vector literal; {} is
 * zero. The result is the vector literal, so every emitter prints it. */
static kl_node *vector_init_list(parser *p, kl_type *type) {
  kl_location at = here(p);
  advance(p); /* { */
  if (accept(p, "}")) {
    /* {}: a literal of zeros (which a __constant__ table in CUDA can hold) */
    kl_node *n = new_node(p, KL_EXPR_VECTOR_LITERAL, at);
    kl_node head = {0}, *tail = &head;
    for (int i = 0; i < type->length; i++) {
      tail->next = zero_value(p, type->element, at, 0);
      tail = tail->next;
    }
    n->args = head.next;
    n->arg_count = type->length;
    n->type = type;
    return n;
  }
  kl_node head = {0}, *tail = &head;
  int count = 0, components = 0;
  while (!is(p, "}") && !p->panic && p->tok->kind != KL_TOKEN_END) {
    if (is(p, "{")) {
      kl_error(p->ctx, here(p),
               "braces inside the initializer of a '%s': its parts are scalars "
               "and vectors",
               type_name(p, type));
      skip_parens(p);
      if (!accept(p, ",")) break;
      continue;
    }
    kl_node *part = vector_part(p, type, true, &components);
    tail->next = part;
    tail = part;
    count++;
    if (!accept(p, ",")) break;
  }
  expect(p, "}", "to close the initializer");
  if (count == 1 && kl_type_equal(head.next->type, type)) return head.next;
  if (components != type->length && !p->panic)
    kl_error(p->ctx, at, "%s elements in the initializer of a '%s': it needs %d, %d given",
             components < type->length ? "too few" : "too many", type_name(p, type), type->length,
             components);
  kl_node *n = new_node(p, KL_EXPR_VECTOR_LITERAL, at);
  n->args = head.next;
  n->arg_count = count;
  n->type = type;
  return n;
}

static kl_node *initializer(parser *p, kl_type *type, int depth) {
  if (is(p, "{") && type->kind == KL_TYPE_VECTOR) return vector_init_list(p, type);
  if (is(p, "{")) {
    kl_node *list = init_list(p, type, depth);
    if (type->kind == KL_TYPE_ARRAY || type->kind == KL_TYPE_STRUCT) pad_list(p, list, depth);
    return list;
  }
  kl_location at = here(p);
  kl_node *e = assignment(p);
  if (type->kind == KL_TYPE_ARRAY) {
    kl_error(p->ctx, at, "an array needs a brace-enclosed initializer");
    return e;
  }
  kl_node *c = assign_convert(p, e, type, at, "initialization");
  return c ? c : e;
}

static void check_variable_type(parser *p, kl_type *type, kl_location at, kl_token *name) {
  if (type->kind == KL_TYPE_VOID)
    kl_error(p->ctx, at, "variable '%.*s' has type 'void'", name->length, name->text);
  if (type->kind == KL_TYPE_STRUCT && !type->members)
    kl_error(p->ctx, at, "variable '%.*s' has an incomplete type '%s'", name->length, name->text,
             type_name(p, type));
}

/* A declaration statement inside a function: returns a list of
 * KL_STMT_DECLARATION (through next). */
static kl_node *local_declaration(parser *p) {
  decl_spec spec;
  kl_location at = here(p);
  declspec(p, &spec, true);
  if (spec.is_kernel) kl_error(p->ctx, at, "a kernel cannot be declared inside a function");
  if (spec.has_reqd) kl_error(p->ctx, spec.reqd_at, "reqd_work_group_size applies to kernels only");
  kl_node head = {0}, *tail = &head;
  if (accept(p, ";")) return new_node(p, KL_STMT_EMPTY, at); /* struct declaration */
  kl_address_space space = spec.has_space ? spec.space : KL_SPACE_PRIVATE;
  for (bool first = true; !p->panic; first = false) {
    if (!first && !accept(p, ",")) break;
    kl_token *name = NULL;
    kl_type *base = kl_type_qualified(p->ctx, spec.type, spec.qualifiers | spec.type->qualifiers);
    kl_type *type = declarator(p, base, space, &name, false);
    if (!name) {
      syntax_error_at(p, here(p), "expected a variable name, found ", token_text(p, p->tok));
      break;
    }
    int unsized = 0;
    type = array_suffix(p, type, &unsized);
    if (is(p, "(")) {
      kl_error(p->ctx, here(p), "functions cannot be declared inside a function");
      skip_parens(p);
      continue;
    }
    if (spec.is_typedef) {
      sym *s;
      declare_name(p, name, &s);
      s->typedef_type = type;
      if (unsized) kl_error(p->ctx, kl_token_where(name), "the array needs a size");
      continue;
    }
    kl_address_space var_space = type->kind == KL_TYPE_POINTER ? KL_SPACE_PRIVATE : space;
    if (var_space == KL_SPACE_GLOBAL)
      kl_error(p->ctx, kl_token_where(name),
               "variables in a function cannot be __global: "
               "pass a __global pointer instead");
    if (var_space == KL_SPACE_CONSTANT)
      kl_error(p->ctx, kl_token_where(name),
               "__constant variables must be declared at program scope");
    if (var_space == KL_SPACE_LOCAL && p->function && !p->function->is_kernel)
      kl_error(p->ctx, kl_token_where(name),
               "__local variables can only be declared in kernel functions, "
               "not in '%s'",
               p->function->name);
    check_variable_type(p, type, kl_token_where(name), name);
    if (var_space == KL_SPACE_LOCAL && type->kind == KL_TYPE_STRUCT)
      kl_error(p->ctx, kl_token_where(name), "structs in __local memory are not supported");
    if (spec.is_static) kl_error(p->ctx, at, "'static' variables are not supported");
    kl_variable *v = new_variable(p, name, type, var_space);
    sym *s;
    declare_name(p, name, &s);
    kl_node *decl = new_node(p, KL_STMT_DECLARATION, kl_token_where(name));
    decl->variable = v;
    if (accept(p, "=")) {
      if (var_space == KL_SPACE_LOCAL)
        kl_error(p->ctx, kl_token_where(name), "__local variables cannot be initialized");
      if (unsized && is(p, "{")) {
        /* float a[] = {...}: the length from the list */
        kl_type *open = kl_type_array(p->ctx, type->element, 0);
        kl_node *list = init_list(p, open, 0);
        int n = list->arg_count > 0 ? list->arg_count : 1;
        type = kl_type_array(p->ctx, type->element, n);
        list->type = type;
        pad_list(p, list, 0);
        v->type = type;
        v->initializer = list;
      } else {
        v->initializer = initializer(p, type, 0);
      }
    } else if (unsized) {
      kl_error(p->ctx, kl_token_where(name), "the array '%.*s' needs a size or an initializer",
               name->length, name->text);
    } else if (type->qualifiers & KL_QUALIFIER_CONST && type->kind != KL_TYPE_POINTER &&
               var_space == KL_SPACE_PRIVATE) {
      kl_warning(p->ctx, kl_token_where(name), "const variable '%.*s' is not initialised",
                 name->length, name->text);
    }
    s->variable = v; /* visible from here on (after its initializer) */
    if (p->function) {
      if (p->locals_tail)
        p->locals_tail->next = v;
      else
        p->function->locals = v;
      p->locals_tail = v;
    }
    tail->next = decl;
    tail = decl;
  }
  expect(p, ";", "after the declaration");
  if (!head.next) return new_node(p, KL_STMT_EMPTY, at);
  return head.next;
}

/* ---------------------------------------------------------- statements */

static void synchronize(parser *p) {
  /* after a syntax error: skip to the end of the statement */
  int level = 0;
  while (p->tok->kind != KL_TOKEN_END) {
    if (is(p, "{")) level++;
    if (is(p, "}")) {
      if (level == 0) break;
      level--;
      if (level == 0) {
        advance(p);
        break;
      }
    }
    if (level == 0 && is(p, ";")) {
      advance(p);
      break;
    }
    advance(p);
  }
  p->panic = false;
}

static kl_node *condition_in_parens(parser *p, const char *what) {
  expect(p, "(", kl_format(p->ctx, "after '%s'", what));
  kl_node *c = decay(p, expression(p));
  expect(p, ")", kl_format(p->ctx, "after the %s condition", what));
  check_scalar_condition(p, c, kl_format(p->ctx, "the condition of '%s'", what));
  return c;
}

static kl_node *statement(parser *p) {
  enter_depth(p);
  kl_location at = here(p);
  kl_node *n;
  kl_token *t = p->tok;
  if (is(p, "{")) {
    n = compound(p, true);
  } else if (tok_is(t, "if")) {
    advance(p);
    n = new_node(p, KL_STMT_IF, at);
    n->condition = condition_in_parens(p, "if");
    n->then = statement(p);
    if (tok_is(p->tok, "else")) {
      advance(p);
      n->otherwise = statement(p);
    }
  } else if (tok_is(t, "while")) {
    advance(p);
    n = new_node(p, KL_STMT_WHILE, at);
    n->condition = condition_in_parens(p, "while");
    p->loop_depth++;
    n->body = statement(p);
    p->loop_depth--;
  } else if (tok_is(t, "do")) {
    advance(p);
    n = new_node(p, KL_STMT_DO, at);
    p->loop_depth++;
    n->body = statement(p);
    p->loop_depth--;
    if (!tok_is(p->tok, "while"))
      syntax_error_at(p, here(p), "expected 'while' after the do body, found ",
                      token_text(p, p->tok));
    else
      advance(p);
    n->condition = condition_in_parens(p, "do-while");
    expect(p, ";", "after do-while");
  } else if (tok_is(t, "for")) {
    advance(p);
    n = new_node(p, KL_STMT_FOR, at);
    push_scope(p);
    expect(p, "(", "after 'for'");
    if (accept(p, ";")) {
      n->init = NULL;
    } else if (is_type_start(p, p->tok)) {
      n->init = local_declaration(p);
    } else {
      kl_node *e = new_node(p, KL_STMT_EXPRESSION, here(p));
      e->lhs = expression(p);
      n->init = e;
      expect(p, ";", "after the for initialisation");
    }
    if (!is(p, ";")) {
      n->condition = decay(p, expression(p));
      check_scalar_condition(p, n->condition, "the condition of 'for'");
    }
    expect(p, ";", "after the for condition");
    if (!is(p, ")")) n->increment = expression(p);
    expect(p, ")", "after the for clauses");
    p->loop_depth++;
    n->body = statement(p);
    p->loop_depth--;
    pop_scope(p);
  } else if (tok_is(t, "switch")) {
    advance(p);
    n = new_node(p, KL_STMT_SWITCH, at);
    expect(p, "(", "after 'switch'");
    kl_node *c = expression(p);
    expect(p, ")", "after the switch value");
    if (!is_integer_like(c->type) || c->type->kind == KL_TYPE_VECTOR) {
      kl_error(p->ctx, c->location, "the switch value must be an integer, not '%s'",
               type_name(p, c->type));
    } else {
      c = kl_convert(p->ctx, c, kl_type_promote(p->ctx, c->type));
    }
    n->condition = c;
    kl_node *saved = p->current_switch;
    p->current_switch = n;
    p->switch_depth++;
    n->body = statement(p);
    p->switch_depth--;
    p->current_switch = saved;
  } else if (tok_is(t, "case") || tok_is(t, "default")) {
    bool is_default = tok_is(t, "default");
    advance(p);
    n = new_node(p, KL_STMT_CASE, at);
    n->is_default = is_default;
    kl_location value_at = at;
    if (!is_default) {
      value_at = here(p);
      kl_node *v = conditional(p);
      int64_t value = 0;
      if (!kl_eval_int(p->ctx, v, &value))
        kl_error(p->ctx, value_at, "case label is not an integer constant expression");
      if (p->current_switch)
        value = (int64_t)wrap_to(p->current_switch->condition->type, (uint64_t)value);
      n->case_value = value;
    }
    expect(p, ":", is_default ? "after 'default'" : "after the case value");
    if (!p->current_switch) {
      kl_error(p->ctx, at, "'%s' outside of a switch", is_default ? "default" : "case");
    } else {
      kl_node *sw = p->current_switch;
      kl_node **link = &sw->cases;
      for (kl_node *c = sw->cases; c; c = c->next_case) {
        if (c->is_default && is_default) kl_error(p->ctx, at, "more than one default in a switch");
        if (!c->is_default && !is_default && c->case_value == n->case_value)
          kl_error(p->ctx, value_at, "duplicate case value %lld", (long long)n->case_value);
        link = &c->next_case;
      }
      *link = n;
    }
    if (is(p, "}"))
      n->body = new_node(p, KL_STMT_EMPTY, here(p));
    else
      n->body = statement(p);
  } else if (tok_is(t, "break")) {
    advance(p);
    n = new_node(p, KL_STMT_BREAK, at);
    if (!p->loop_depth && !p->switch_depth)
      kl_error(p->ctx, at, "'break' outside a loop or switch");
    expect(p, ";", "after 'break'");
  } else if (tok_is(t, "continue")) {
    advance(p);
    n = new_node(p, KL_STMT_CONTINUE, at);
    if (!p->loop_depth) kl_error(p->ctx, at, "'continue' outside a loop");
    expect(p, ";", "after 'continue'");
  } else if (tok_is(t, "return")) {
    advance(p);
    n = new_node(p, KL_STMT_RETURN, at);
    kl_type *rt = p->function ? p->function->return_type : int_type(p);
    if (!is(p, ";")) {
      kl_node *e = expression(p);
      if (rt->kind == KL_TYPE_VOID) {
        if (e->type->kind != KL_TYPE_VOID)
          kl_error(p->ctx, at, "void function '%s' cannot return a value",
                   p->function ? p->function->name : "");
        n->lhs = e;
      } else {
        kl_node *c = assign_convert(p, e, rt, e->location, "return");
        n->lhs = c ? c : e;
      }
    } else if (rt->kind != KL_TYPE_VOID) {
      kl_error(p->ctx, at, "non-void function '%s' must return a value of type '%s'",
               p->function ? p->function->name : "", type_name(p, rt));
    }
    expect(p, ";", "after the return statement");
  } else if (tok_is(t, "goto")) {
    kl_error(p->ctx, at, "goto is not supported (structured control flow only)");
    advance(p);
    while (!is(p, ";") && p->tok->kind != KL_TOKEN_END && !is(p, "}")) advance(p);
    accept(p, ";");
    n = new_node(p, KL_STMT_EMPTY, at);
  } else if (accept(p, ";")) {
    n = new_node(p, KL_STMT_EMPTY, at);
  } else if (t->kind == KL_TOKEN_IDENTIFIER && kl_token_is(t->next, ":") && !is_type_start(p, t) &&
             !find_sym(p, t->text, t->length)) {
    kl_warning(p->ctx, at, "label '%.*s' is ignored: goto is not supported", t->length, t->text);
    advance(p);
    advance(p);
    n = new_node(p, KL_STMT_EMPTY, at);
  } else if (is_type_start(p, t)) {
    n = local_declaration(p);
  } else if (t->kind == KL_TOKEN_IDENTIFIER && t->next->kind == KL_TOKEN_IDENTIFIER &&
             !find_sym(p, t->text, t->length) &&
             !kl_builtin_lookup(p->ctx, t->text, t->length, NULL)) {
    syntax_error_at(p, at, kl_format(p->ctx, "unknown type name '%.*s'", t->length, t->text), NULL);
    n = new_node(p, KL_STMT_EMPTY, at);
  } else {
    n = new_node(p, KL_STMT_EXPRESSION, at);
    n->lhs = expression(p);
    expect(p, ";", "after the expression");
  }
  if (p->panic) synchronize(p);
  leave_depth(p);
  return n;
}

static kl_node *compound(parser *p, bool new_scope) {
  kl_location at = here(p);
  kl_node *n = new_node(p, KL_STMT_COMPOUND, at);
  if (!accept(p, "{")) {
    syntax_error_at(p, at, "expected '{', found ", token_text(p, p->tok));
    return n;
  }
  if (new_scope) push_scope(p);
  kl_node head = {0}, *tail = &head;
  while (!is(p, "}") && p->tok->kind != KL_TOKEN_END) {
    kl_node *s = statement(p);
    tail->next = s;
    while (tail->next) tail = tail->next;
  }
  if (p->tok->kind == KL_TOKEN_END)
    kl_error(p->ctx, at, "expected '}' to close this block, found end of input");
  accept(p, "}");
  if (new_scope) pop_scope(p);
  n->body = head.next;
  return n;
}

/* ------------------------------------------------------- program scope */

/* The first member (nested structs and arrays included) whose size OpenCL
 * C leaves to the implementation, so that a struct holding it cannot be
 * shared with the host: bool, size_t, ptrdiff_t. NULL when there is none;
 * *owner is the struct that holds it. */
static const kl_member *unportable_member(const kl_type *t, const kl_type **owner, int depth) {
  while (t->kind == KL_TYPE_ARRAY) t = t->element;
  if (t->kind != KL_TYPE_STRUCT || depth > KL_MAX_DEPTH) return NULL;
  for (const kl_member *m = t->members; m; m = m->next) {
    const kl_type *mt = m->type;
    while (mt->kind == KL_TYPE_ARRAY) mt = mt->element;
    const kl_type *scalar = kl_type_scalar_of(mt);
    if (scalar->kind == KL_TYPE_BOOL || scalar->kind == KL_TYPE_SIZE_T ||
        scalar->kind == KL_TYPE_PTRDIFF_T) {
      *owner = t;
      return m;
    }
    const kl_member *inner = unportable_member(mt, owner, depth + 1);
    if (inner) return inner;
  }
  return NULL;
}

/* A struct shared with the host (a kernel parameter, __global or __constant
 * data) must have a layout every device agrees on. */
static void check_shared_struct(parser *p, const kl_type *t, kl_location at, const char *where) {
  const kl_type *owner = NULL;
  const kl_member *m = unportable_member(t, &owner, 0);
  if (m)
    kl_error(p->ctx, at,
             "%s: member '%s' of '%s' has type '%s', whose size is not portable (use a "
             "fixed-size type such as int or uint)",
             where, m->name, type_name(p, kl_type_unqualified(p->ctx, (kl_type *)owner)),
             type_name(p, kl_type_unqualified(p->ctx, m->type)));
}

static void check_kernel_param(parser *p, kl_function *f, kl_variable *v) {
  kl_type *t = v->type;
  if (t->kind == KL_TYPE_POINTER) {
    kl_address_space s = t->pointee_space;
    if (s == KL_SPACE_PRIVATE)
      kl_error(p->ctx, v->location,
               "kernel pointer parameter '%s' must be __global, __constant or __local", v->name);
    if (t->element->kind == KL_TYPE_STRUCT && s == KL_SPACE_LOCAL)
      kl_error(p->ctx, v->location, "structs in __local memory are not supported (parameter '%s')",
               v->name);
    else if (t->element->kind == KL_TYPE_STRUCT)
      check_shared_struct(p, t->element, v->location,
                          kl_format(p->ctx, "a struct in %s memory (parameter '%s')",
                                    s == KL_SPACE_CONSTANT ? "__constant" : "__global", v->name));
    if (t->element->kind == KL_TYPE_BOOL)
      kl_error(p->ctx, v->location,
               "kernel parameter '%s' cannot point to bool (its size is not portable)", v->name);
    if (t->element->kind == KL_TYPE_SIZE_T || t->element->kind == KL_TYPE_PTRDIFF_T)
      kl_error(p->ctx, v->location,
               "kernel parameter '%s' cannot point to '%s' (its size is not portable)", v->name,
               type_name(p, t->element));
    return;
  }
  if (t->kind == KL_TYPE_BOOL || t->kind == KL_TYPE_SIZE_T || t->kind == KL_TYPE_PTRDIFF_T ||
      t->kind == KL_TYPE_HALF)
    kl_error(p->ctx, v->location, "kernel parameter '%s' cannot have type '%s' in OpenCL C",
             v->name, type_name(p, t));
  if (t->kind == KL_TYPE_STRUCT)
    check_shared_struct(p, t, v->location,
                        kl_format(p->ctx, "a struct kernel parameter ('%s')", v->name));
  (void)f;
}

static bool same_signature(kl_function *a, kl_type *rt, kl_variable *params, int count) {
  if (!kl_type_equal(a->return_type, rt) || a->param_count != count) return false;
  kl_variable *x = a->params, *y = params;
  for (; x && y; x = x->next, y = y->next)
    if (!kl_type_equal(x->type, y->type)) return false;
  return true;
}

static void function_declaration(parser *p, decl_spec *spec, kl_type *rt, kl_token *name) {
  kl_context *ctx = p->ctx;
  kl_location at = kl_token_where(name);
  char *fname = kl_strndup(ctx, name->text, (size_t)name->length);
  if (kl_builtin_lookup(ctx, name->text, name->length, NULL))
    kl_error(ctx, at, "'%s' is a builtin function: it cannot be redefined", fname);
  advance(p); /* ( */
  push_scope(p);
  kl_variable head = {0}, *tail = &head;
  int count = 0;
  if (is(p, "void") && kl_token_is(p->tok->next, ")")) {
    advance(p);
  } else if (!is(p, ")")) {
    do {
      decl_spec ps;
      kl_location param_at = here(p);
      if (!is_type_start(p, p->tok)) {
        syntax_error_at(p, here(p), "expected a parameter type, found ", token_text(p, p->tok));
        break;
      }
      declspec(p, &ps, false);
      kl_token *pname = NULL;
      kl_type *base = kl_type_qualified(ctx, ps.type, ps.qualifiers | ps.type->qualifiers);
      kl_type *pt = declarator(p, base, ps.has_space ? ps.space : KL_SPACE_PRIVATE, &pname, true);
      int unsized = 0;
      pt = array_suffix(p, pt, &unsized);
      if (pt->kind == KL_TYPE_ARRAY)
        pt = kl_type_pointer(ctx, pt->element, ps.has_space ? ps.space : KL_SPACE_PRIVATE);
      if (ps.has_space && pt->kind != KL_TYPE_POINTER && ps.space != KL_SPACE_PRIVATE)
        kl_error(ctx, param_at, "a parameter that is not a pointer cannot be in %s memory",
                 ps.space == KL_SPACE_GLOBAL  ? "__global"
                 : ps.space == KL_SPACE_LOCAL ? "__local"
                                              : "__constant");
      if (pt->kind == KL_TYPE_VOID) {
        kl_error(ctx, param_at, "a parameter cannot have type void");
      }
      if (pt->kind == KL_TYPE_STRUCT && !pt->members)
        kl_error(ctx, param_at, "a parameter of an incomplete type");
      kl_token fake = *p->tok;
      if (!pname) {
        fake.text = "";
        fake.length = 0;
        fake.location = param_at;
        fake.expanded_from = (kl_location){0};
        pname = &fake;
      }
      kl_variable *v = new_variable(p, pname, pt, KL_SPACE_PRIVATE);
      v->is_parameter = true;
      if (pname != &fake) {
        sym *s;
        declare_name(p, pname, &s);
        s->variable = v;
      }
      tail->next = v;
      tail = v;
      count++;
      if (count > 128) {
        kl_error(ctx, param_at, "too many parameters");
        kl_bail(ctx);
      }
    } while (accept(p, ",") && !p->panic);
  }
  expect(p, ")", "after the parameters");
  while (is(p, "__attribute__")) attribute(p, spec);

  /* the function itself, in the program scope (so the body can see it for recursion checks) */
  scope *inner = p->scope;
  p->scope = inner->parent;
  sym *s = find_sym_here(p, name->text, name->length);
  kl_function *f = NULL;
  if (s && s->function) {
    f = s->function;
    if (!same_signature(f, rt, head.next, count))
      kl_error(ctx, at, "conflicting types for '%s'", fname);
    if (f->is_kernel != spec->is_kernel)
      kl_error(ctx, at, "'%s' declared both as a kernel and as a function", fname);
  } else if (s) {
    kl_error(ctx, at, "redefinition of '%s' as a function", fname);
  }
  bool new_function = !f;
  if (!f) {
    f = kl_alloc(ctx, sizeof *f);
    f->name = fname;
    f->location = at;
    f->return_type = rt;
    f->is_kernel = spec->is_kernel;
    s = add_sym(p, name->text, name->length);
    s->function = f;
  }
  p->scope = inner;
  if (spec->has_reqd) {
    if (!spec->is_kernel)
      kl_error(ctx, spec->reqd_at, "reqd_work_group_size applies to kernels only");
    f->has_required_work_group_size = true;
    memcpy(f->required_work_group_size, spec->reqd, sizeof spec->reqd);
  }
  if (spec->is_kernel && rt->kind != KL_TYPE_VOID)
    kl_error(ctx, at, "kernel function '%s' must return void, not '%s'", fname, type_name(p, rt));
  if (rt->kind == KL_TYPE_ARRAY) kl_error(ctx, at, "a function cannot return an array");
  if (spec->has_space) kl_error(ctx, at, "a function cannot have an address space");
  if (spec->is_typedef) kl_error(ctx, at, "function typedefs are not supported");

  if (is(p, "{")) {
    if (f->body) kl_error(ctx, at, "redefinition of '%s'", fname);
    f->params = head.next; /* the definition's names */
    f->param_count = count;
    f->location = at;
    if (spec->is_kernel)
      for (kl_variable *v = f->params; v; v = v->next) check_kernel_param(p, f, v);
    for (kl_variable *v = f->params; v; v = v->next)
      if (!v->name[0])
        kl_error(ctx, v->location, "a parameter of a function definition needs a name");
    p->function = f;
    p->locals_tail = NULL;
    f->locals = NULL;
    p->loop_depth = p->switch_depth = 0;
    p->current_switch = NULL;
    kl_node *body = compound(p, false);
    f->body = body ? body : new_node(p, KL_STMT_COMPOUND, at);
    p->function = NULL;
  } else {
    if (new_function) {
      f->params = head.next;
      f->param_count = count;
    }
    expect(p, ";", "after the function declaration");
  }
  pop_scope(p);
  if (new_function) {
    if (p->functions_tail)
      p->functions_tail->next = f;
    else
      p->program->functions = f;
    p->functions_tail = f;
  }
}

static void program_variable(parser *p, decl_spec *spec, kl_type *type, kl_token *name) {
  kl_context *ctx = p->ctx;
  int unsized = 0;
  type = array_suffix(p, type, &unsized);
  if (spec->is_typedef) {
    sym *s;
    declare_name(p, name, &s);
    s->typedef_type = type;
    if (type->kind == KL_TYPE_STRUCT && type->name && strncmp(type->name, "__anon", 6) == 0)
      type->name = kl_strndup(ctx, name->text, (size_t)name->length);
    return;
  }
  kl_location at = kl_token_where(name);
  bool is_constant = spec->has_space && spec->space == KL_SPACE_CONSTANT;
  if (type->kind == KL_TYPE_POINTER) {
    kl_error(ctx, at, "program-scope pointers are not supported");
  } else if (!is_constant) {
    kl_error(ctx, at, "program-scope variables must be __constant in OpenCL C 1.2 ('%.*s')",
             name->length, name->text);
  }
  check_variable_type(p, type, at, name);
  if (type->kind == KL_TYPE_STRUCT || type->kind == KL_TYPE_ARRAY)
    check_shared_struct(
        p, type, at,
        kl_format(ctx, "a struct in __constant memory ('%.*s')", name->length, name->text));
  type = kl_type_qualified(ctx, type, type->qualifiers | KL_QUALIFIER_CONST);
  kl_variable *v = new_variable(p, name, type, KL_SPACE_CONSTANT);
  v->is_program_scope = true;
  sym *s;
  declare_name(p, name, &s);
  if (accept(p, "=")) {
    kl_location init_at = here(p);
    if (unsized && is(p, "{")) {
      kl_type *open = kl_type_array(ctx, type->element, 0);
      kl_node *list = init_list(p, open, 0);
      int n = list->arg_count > 0 ? list->arg_count : 1;
      type = kl_type_qualified(ctx, kl_type_array(ctx, type->element, n), KL_QUALIFIER_CONST);
      list->type = type;
      pad_list(p, list, 0);
      v->type = type;
      v->initializer = list;
    } else {
      v->initializer = initializer(p, type, 0);
    }
    (void)init_at;
  } else {
    if (is_constant)
      kl_error(ctx, at, "__constant variable '%.*s' needs an initializer", name->length,
               name->text);
    if (unsized) kl_error(ctx, at, "the array needs a size");
  }
  s->variable = v;
  if (p->constants_tail)
    p->constants_tail->next = v;
  else
    p->program->constants = v;
  p->constants_tail = v;
}

static void external_declaration(parser *p) {
  decl_spec spec;
  kl_location at = here(p);
  if (!is_type_start(p, p->tok)) {
    if (p->tok->kind == KL_TOKEN_IDENTIFIER && p->tok->next->kind == KL_TOKEN_IDENTIFIER)
      syntax_error_at(
          p, at, kl_format(p->ctx, "unknown type name '%.*s'", p->tok->length, p->tok->text), NULL);
    else
      syntax_error_at(p, at, "expected a declaration, found ", token_text(p, p->tok));
    advance(p);
    return;
  }
  declspec(p, &spec, true);
  if (accept(p, ";")) return; /* struct declaration */
  for (bool first = true; !p->panic; first = false) {
    if (!first && !accept(p, ",")) break;
    kl_token *name = NULL;
    kl_type *base = kl_type_qualified(p->ctx, spec.type, spec.qualifiers | spec.type->qualifiers);
    kl_type *type =
        declarator(p, base, spec.has_space ? spec.space : KL_SPACE_PRIVATE, &name, false);
    if (!name) {
      syntax_error_at(p, here(p), "expected a name, found ", token_text(p, p->tok));
      return;
    }
    if (is(p, "(")) {
      /* An address space in the specifiers belongs to a returned pointer's pointee. */
      spec.has_space = spec.has_space && type->kind != KL_TYPE_POINTER;
      function_declaration(p, &spec, type, name);
      return;
    }
    if (spec.is_kernel)
      kl_error(p->ctx, kl_token_where(name), "'__kernel' applies to functions only");
    program_variable(p, &spec, type, name);
  }
  expect(p, ";", "after the declaration");
}

/* The depth of every tree the parser built, measured without recursion
 * before any recursive walker (check.c, the emitters, eval) sees it. The
 * parser's own nesting cap counts its recursion, not the tree: a chain
 * such as a + b + c + ... or v.xyzw.xyzw... is parsed by a loop but is a
 * tree one level deeper per operator. Deeper than KL_MAX_TREE_DEPTH is an
 * error at the statement holding it. */
typedef struct {
  const kl_node *node;
  int depth;
  const kl_node *statement; /* the nearest statement above, for the message */
} tree_item;

typedef struct {
  kl_context *ctx;
  tree_item *items;
  size_t count, capacity;
} tree_walk;

static void tree_push(tree_walk *w, const kl_node *n, int depth, const kl_node *statement,
                      bool list) {
  for (; n; n = list ? n->next : NULL) {
    if (w->count == w->capacity) {
      size_t capacity = w->capacity ? 2 * w->capacity : 256;
      tree_item *bigger = kl_alloc(w->ctx, capacity * sizeof *bigger);
      if (w->count) memcpy(bigger, w->items, w->count * sizeof *bigger);
      w->items = bigger;
      w->capacity = capacity;
    }
    w->items[w->count++] = (tree_item){n, depth, statement};
  }
}

/* False (after the error) when a tree under `root` is too deep. */
static bool check_tree_depth(tree_walk *w, const kl_node *root, kl_location fallback) {
  w->count = 0;
  tree_push(w, root, 0, NULL, false);
  while (w->count) {
    tree_item it = w->items[--w->count];
    const kl_node *n = it.node;
    bool statement = n->kind >= KL_STMT_COMPOUND && n->kind <= KL_STMT_EMPTY;
    if (statement) it.statement = n;
    if (it.depth > KL_MAX_TREE_DEPTH) {
      kl_error(w->ctx, it.statement ? it.statement->location : fallback,
               "expression nested too deeply (more than %d levels, each operator of a chain "
               "such as a + b + c or v.xyzw.xyzw one level): split it into several statements",
               KL_MAX_TREE_DEPTH);
      return false;
    }
    int d = it.depth + 1;
    tree_push(w, n->lhs, d, it.statement, false);
    tree_push(w, n->rhs, d, it.statement, false);
    tree_push(w, n->condition, d, it.statement, false);
    tree_push(w, n->then, d, it.statement, true);
    tree_push(w, n->otherwise, d, it.statement, true);
    tree_push(w, n->init, d, it.statement, true);
    tree_push(w, n->increment, d, it.statement, false);
    tree_push(w, n->body, d, it.statement, true);
    tree_push(w, n->args, d, it.statement, true);
    if (n->kind == KL_STMT_DECLARATION && n->variable)
      tree_push(w, n->variable->initializer, d, it.statement, false);
  }
  return true;
}

static void check_tree_depths(kl_context *ctx, kl_program *program) {
  tree_walk w = {.ctx = ctx};
  for (kl_variable *v = program->constants; v; v = v->next)
    if (v->initializer) check_tree_depth(&w, v->initializer, v->location);
  for (kl_function *f = program->functions; f; f = f->next)
    if (f->body) check_tree_depth(&w, f->body, f->location);
}

kl_program *kl_parse(kl_context *ctx, kl_token *tokens) {
  parser p = {.ctx = ctx, .tok = tokens};
  p.program = kl_alloc(ctx, sizeof *p.program);
  push_scope(&p);
  while (p.tok->kind != KL_TOKEN_END) {
    external_declaration(&p);
    if (p.panic) {
      /* skip to a likely start of the next declaration */
      int level = 0;
      while (p.tok->kind != KL_TOKEN_END) {
        if (is(&p, "{"))
          level++;
        else if (is(&p, "}")) {
          level--;
          if (level <= 0) {
            advance(&p);
            accept(&p, ";");
            break;
          }
        } else if (level == 0 && is(&p, ";")) {
          advance(&p);
          break;
        }
        advance(&p);
      }
      p.panic = false;
    }
  }
  for (kl_function *f = p.program->functions; f; f = f->next)
    if (!f->body && f->is_kernel)
      kl_error(ctx, f->location, "kernel '%s' is declared but not defined", f->name);
  check_tree_depths(ctx, p.program);
  return p.program;
}
