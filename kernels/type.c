// SPDX-License-Identifier: Apache-2.0
/* Types as OpenCL C 1.2 has them (6.1): sizes and alignments, the
 * integer promotions and usual arithmetic conversions, names. */
#include <string.h>

#include "kl_front.h"

static const struct {
  kl_type_kind kind;
  const char *name;
  int size;
} scalar_info[] = {
    {KL_TYPE_VOID, "void", 1},   {KL_TYPE_BOOL, "bool", 1},     {KL_TYPE_CHAR, "char", 1},
    {KL_TYPE_UCHAR, "uchar", 1}, {KL_TYPE_SHORT, "short", 2},   {KL_TYPE_USHORT, "ushort", 2},
    {KL_TYPE_INT, "int", 4},     {KL_TYPE_UINT, "uint", 4},     {KL_TYPE_LONG, "long", 8},
    {KL_TYPE_ULONG, "ulong", 8}, {KL_TYPE_SIZE_T, "size_t", 8}, {KL_TYPE_PTRDIFF_T, "ptrdiff_t", 8},
    {KL_TYPE_HALF, "half", 2},   {KL_TYPE_FLOAT, "float", 4},   {KL_TYPE_DOUBLE, "double", 8},
};

const char *kl_scalar_spelling(kl_type_kind kind) {
  return (int)kind >= 0 && kind <= KL_TYPE_DOUBLE ? scalar_info[kind].name : NULL;
}

static const char *scalar_name(kl_type_kind kind) {
  const char *name = kl_scalar_spelling(kind);
  return name ? name : "?";
}

kl_type *kl_type_scalar(kl_context *ctx, kl_type_kind kind) {
  if ((int)kind < 0 || kind > KL_TYPE_DOUBLE) kind = KL_TYPE_INT;
  if (!ctx->scalars[kind]) {
    kl_type *t = kl_alloc(ctx, sizeof *t);
    t->kind = kind;
    t->size = scalar_info[kind].size;
    t->align = t->size;
    ctx->scalars[kind] = t;
  }
  return ctx->scalars[kind];
}

kl_type *kl_type_vector(kl_context *ctx, kl_type_kind element, int length) {
  if ((int)element < KL_TYPE_BOOL || element > KL_TYPE_DOUBLE || length < 0 || length > 16)
    return kl_type_scalar(ctx, element);
  if (!ctx->vectors[element][length]) {
    kl_type *t = kl_alloc(ctx, sizeof *t);
    t->kind = KL_TYPE_VECTOR;
    t->element = kl_type_scalar(ctx, element);
    t->length = length;
    t->size = t->element->size * (length == 3 ? 4 : length);
    t->align = t->size;
    ctx->vectors[element][length] = t;
  }
  return ctx->vectors[element][length];
}

static kl_type *new_type(kl_context *ctx, kl_type_kind kind, kl_type *element, int size,
                         int align) {
  kl_type *t = kl_alloc(ctx, sizeof *t);
  t->kind = kind;
  t->element = element;
  t->size = size;
  t->align = align;
  return t;
}

kl_type *kl_type_pointer(kl_context *ctx, kl_type *pointee, kl_address_space space) {
  kl_type *t = new_type(ctx, KL_TYPE_POINTER, pointee, 8, 8);
  t->pointee_space = space;
  return t;
}

kl_type *kl_type_array(kl_context *ctx, kl_type *element, int length) {
  int64_t size = (int64_t)element->size * length;
  kl_type *t = new_type(ctx, KL_TYPE_ARRAY, element, size > INT32_MAX ? INT32_MAX : (int)size,
                        element->align);
  t->length = length;
  return t;
}

kl_type *kl_type_struct(kl_context *ctx, const char *tag) {
  kl_type *t = new_type(ctx, KL_TYPE_STRUCT, NULL, 0, 1);
  t->name = tag;
  return t;
}

kl_type *kl_type_function(kl_context *ctx, kl_type *return_type, kl_type **params, int count) {
  kl_type *t = new_type(ctx, KL_TYPE_FUNCTION, NULL, 1, 1);
  t->return_type = return_type;
  t->params = params;
  t->param_count = count;
  return t;
}

kl_type *kl_type_qualified(kl_context *ctx, kl_type *type, unsigned qualifiers) {
  if (type->qualifiers == qualifiers) return type;
  kl_type *t = kl_alloc(ctx, sizeof *t);
  *t = *type;
  t->qualifiers = qualifiers;
  return t;
}

kl_type *kl_type_unqualified(kl_context *ctx, kl_type *type) {
  if (!type->qualifiers) return type;
  if (type->kind <= KL_TYPE_DOUBLE) return kl_type_scalar(ctx, type->kind);
  if (type->kind == KL_TYPE_VECTOR) return kl_type_vector(ctx, type->element->kind, type->length);
  return kl_type_qualified(ctx, type, 0);
}

bool kl_type_is_integer(const kl_type *type) {
  return type && type->kind >= KL_TYPE_CHAR && type->kind <= KL_TYPE_PTRDIFF_T;
}

bool kl_type_is_floating(const kl_type *type) {
  return type && type->kind >= KL_TYPE_HALF && type->kind <= KL_TYPE_DOUBLE;
}

bool kl_type_is_signed(const kl_type *type) {
  if (!type) return false;
  if (type->kind == KL_TYPE_VECTOR) type = type->element;
  switch (type->kind) {
    case KL_TYPE_CHAR:
    case KL_TYPE_SHORT:
    case KL_TYPE_INT:
    case KL_TYPE_LONG:
    case KL_TYPE_PTRDIFF_T:
    case KL_TYPE_HALF:
    case KL_TYPE_FLOAT:
    case KL_TYPE_DOUBLE:
      return true;
    default:
      return false;
  }
}

bool kl_type_is_scalar(const kl_type *type) {
  return type && type->kind >= KL_TYPE_BOOL && type->kind <= KL_TYPE_DOUBLE;
}

bool kl_type_is_arithmetic(const kl_type *type) {
  if (!type) return false;
  if (type->kind == KL_TYPE_VECTOR) return true;
  return type->kind >= KL_TYPE_CHAR && type->kind <= KL_TYPE_DOUBLE;
}

bool kl_type_is_vector(const kl_type *type) {
  return type && type->kind == KL_TYPE_VECTOR;
}
bool kl_type_is_pointer(const kl_type *type) {
  return type && type->kind == KL_TYPE_POINTER;
}

const kl_type *kl_type_scalar_of(const kl_type *type) {
  return type && type->kind == KL_TYPE_VECTOR ? type->element : type;
}

bool kl_type_equal(const kl_type *a, const kl_type *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case KL_TYPE_VECTOR:
      return a->length == b->length && a->element->kind == b->element->kind;
    case KL_TYPE_POINTER:
      return a->pointee_space == b->pointee_space && kl_type_equal(a->element, b->element);
    case KL_TYPE_ARRAY:
      return a->length == b->length && kl_type_equal(a->element, b->element);
    case KL_TYPE_STRUCT:
      return a->members == b->members && a->name == b->name;
    case KL_TYPE_FUNCTION:
      if (a->param_count != b->param_count || !kl_type_equal(a->return_type, b->return_type))
        return false;
      for (int i = 0; i < a->param_count; i++)
        if (!kl_type_equal(a->params[i], b->params[i])) return false;
      return true;
    default:
      return true;
  }
}

int kl_type_rank(const kl_type *type) {
  switch (type->kind) {
    case KL_TYPE_BOOL:
      return 0;
    case KL_TYPE_CHAR:
    case KL_TYPE_UCHAR:
      return 1;
    case KL_TYPE_SHORT:
    case KL_TYPE_USHORT:
      return 2;
    case KL_TYPE_INT:
    case KL_TYPE_UINT:
      return 3;
    case KL_TYPE_LONG:
    case KL_TYPE_ULONG:
    case KL_TYPE_SIZE_T:
    case KL_TYPE_PTRDIFF_T:
      return 4;
    case KL_TYPE_HALF:
      return 10;
    case KL_TYPE_FLOAT:
      return 11;
    case KL_TYPE_DOUBLE:
      return 12;
    default:
      return -1;
  }
}

kl_type *kl_type_unsigned_of(kl_context *ctx, const kl_type *type) {
  const kl_type *s = kl_type_scalar_of(type);
  kl_type_kind k;
  switch (s->kind) {
    case KL_TYPE_CHAR:
    case KL_TYPE_UCHAR:
      k = KL_TYPE_UCHAR;
      break;
    case KL_TYPE_SHORT:
    case KL_TYPE_USHORT:
      k = KL_TYPE_USHORT;
      break;
    case KL_TYPE_INT:
    case KL_TYPE_UINT:
      k = KL_TYPE_UINT;
      break;
    case KL_TYPE_PTRDIFF_T:
    case KL_TYPE_SIZE_T:
      k = KL_TYPE_SIZE_T;
      break;
    default:
      k = KL_TYPE_ULONG;
      break;
  }
  if (type->kind == KL_TYPE_VECTOR) return kl_type_vector(ctx, k, type->length);
  return kl_type_scalar(ctx, k);
}

kl_type *kl_type_signed_int_like(kl_context *ctx, const kl_type *type) {
  if (type->kind != KL_TYPE_VECTOR) return kl_type_scalar(ctx, KL_TYPE_INT);
  kl_type_kind k;
  switch (type->element->size) {
    case 1:
      k = KL_TYPE_CHAR;
      break;
    case 2:
      k = KL_TYPE_SHORT;
      break;
    case 8:
      k = KL_TYPE_LONG;
      break;
    default:
      k = KL_TYPE_INT;
      break;
  }
  return kl_type_vector(ctx, k, type->length);
}

kl_type *kl_type_promote(kl_context *ctx, kl_type *type) {
  if (type->kind >= KL_TYPE_BOOL && type->kind <= KL_TYPE_USHORT)
    return kl_type_scalar(ctx, KL_TYPE_INT);
  return kl_type_unqualified(ctx, type);
}

kl_type *kl_type_common(kl_context *ctx, kl_type *a, kl_type *b) {
  if (kl_type_is_floating(a) || kl_type_is_floating(b)) {
    int ra = kl_type_is_floating(a) ? kl_type_rank(a) : 0;
    int rb = kl_type_is_floating(b) ? kl_type_rank(b) : 0;
    return kl_type_unqualified(ctx, ra >= rb ? a : b);
  }
  a = kl_type_promote(ctx, a);
  b = kl_type_promote(ctx, b);
  if (a->kind == b->kind) return a;
  bool sa = kl_type_is_signed(a), sb = kl_type_is_signed(b);
  int ra = kl_type_rank(a), rb = kl_type_rank(b);
  if (sa == sb) return ra >= rb ? a : b;
  kl_type *u = sa ? b : a, *s = sa ? a : b;
  if (kl_type_rank(u) >= kl_type_rank(s)) return u;
  return s; /* a signed type of greater rank holds every value of the unsigned one */
}

kl_type *kl_type_from_name(kl_context *ctx, const char *name, int length) {
  for (int k = KL_TYPE_VOID; k <= KL_TYPE_DOUBLE; k++) {
    const char *s = scalar_info[k].name;
    int n = (int)strlen(s);
    if (length < n || memcmp(name, s, (size_t)n) != 0) continue;
    if (length == n) return kl_type_scalar(ctx, (kl_type_kind)k);
    if (k == KL_TYPE_VOID || k == KL_TYPE_BOOL || k == KL_TYPE_SIZE_T || k == KL_TYPE_PTRDIFF_T)
      continue;
    const char *rest = name + n;
    int rest_n = length - n;
    int width = 0;
    if (rest_n == 1 && (rest[0] == '2' || rest[0] == '3' || rest[0] == '4' || rest[0] == '8'))
      width = rest[0] - '0';
    else if (rest_n == 2 && rest[0] == '1' && rest[1] == '6')
      width = 16;
    if (width) return kl_type_vector(ctx, (kl_type_kind)k, width);
  }
  return NULL;
}

static const char *space_prefix(kl_address_space space) {
  static const char *const prefix[] = {[KL_SPACE_GLOBAL] = "__global ",
                                       [KL_SPACE_LOCAL] = "__local ",
                                       [KL_SPACE_CONSTANT] = "__constant "};
  const char *result = (size_t)space < sizeof prefix / sizeof *prefix ? prefix[space] : NULL;
  return result ? result : "";
}

const char *kl_type_name(kl_context *ctx, const kl_type *type) {
  if (!type) return "?";
  const char *q = "";
  if (type->qualifiers & KL_QUALIFIER_CONST) q = "const ";
  if (type->qualifiers & KL_QUALIFIER_VOLATILE) q = kl_format(ctx, "%svolatile ", q);
  switch (type->kind) {
    case KL_TYPE_VECTOR:
      return kl_format(ctx, "%s%s%d", q, scalar_name(type->element->kind), type->length);
    case KL_TYPE_POINTER: {
      const char *pointee = kl_type_name(ctx, type->element);
      const char *r = type->qualifiers & KL_QUALIFIER_RESTRICT ? " restrict" : "";
      const char *c = type->qualifiers & KL_QUALIFIER_CONST ? " const" : "";
      return kl_format(ctx, "%s%s*%s%s", space_prefix(type->pointee_space), pointee, c, r);
    }
    case KL_TYPE_ARRAY:
      return kl_format(ctx, "%s[%d]", kl_type_name(ctx, type->element), type->length);
    case KL_TYPE_STRUCT:
      return kl_format(ctx, "%s%s %s", q, type->is_union ? "union" : "struct",
                       type->name ? type->name : "<anonymous>");
    case KL_TYPE_FUNCTION: {
      const char *s = kl_format(ctx, "%s(", kl_type_name(ctx, type->return_type));
      for (int i = 0; i < type->param_count; i++)
        s = kl_format(ctx, "%s%s%s", s, i ? ", " : "", kl_type_name(ctx, type->params[i]));
      return kl_format(ctx, "%s)", s);
    }
    default:
      return kl_format(ctx, "%s%s", q, scalar_name(type->kind));
  }
}

const char *kl_struct_gnu_attributes(kl_context *ctx, const kl_type *type) {
  if (type->packed && type->aligned)
    return kl_format(ctx, " __attribute__((packed, aligned(%d)))", type->aligned);
  if (type->packed) return " __attribute__((packed))";
  if (type->aligned) return kl_format(ctx, " __attribute__((aligned(%d)))", type->aligned);
  return "";
}

const char *kl_member_gnu_attributes(kl_context *ctx, const kl_member *member) {
  return member->aligned ? kl_format(ctx, " __attribute__((aligned(%d)))", member->aligned) : "";
}
