// SPDX-License-Identifier: Apache-2.0
/* GNU attributes, in every position OpenCL C's grammar allows them: among
 * declaration specifiers, after 'struct' and after a struct's closing
 * brace, after a declarator (a variable, a member, a parameter, a typedef
 * name), after a '*', after a function's parameters. Honoured: aligned,
 * packed, reqd_work_group_size, work_group_size_hint, vec_type_hint,
 * max_constant_size, endian, nosvm; others are ignored with a warning. */
#include <string.h>

#include "parse_internal.h"

/* A positive integer constant argument of attribute `what`, named at
 * name_at, where a value out of range is reported (once: *reported). */
static int64_t attribute_int(parser *p, const char *what, int64_t max, kl_location name_at,
                             bool *reported) {
  kl_location at = kp_here(p);
  kl_node *n = kp_conditional(p);
  int64_t v;
  if (!kl_eval_int(p->ctx, n, &v)) {
    kl_error(p->ctx, at, "%s values must be integer constants", what);
    return 0;
  }
  if (v <= 0 || v > max) {
    if (*reported) return 0;
    *reported = true;
    kl_error(p->ctx, name_at, "%s values must be positive and at most %lld, not %lld", what,
             (long long)max, (long long)v);
    return 0;
  }
  return v;
}

/* reqd_work_group_size(X, Y, Z) and work_group_size_hint(X, Y, Z) */
static void work_group_size(parser *p, decl_spec *spec, kl_token *name, bool required) {
  const char *what = required ? "reqd_work_group_size" : "work_group_size_hint";
  kl_location name_at = kl_token_where(name);
  kp_expect(p, "(", required ? "after 'reqd_work_group_size'" : "after 'work_group_size_hint'");
  if (spec && required) {
    spec->has_reqd = true;
    spec->reqd_at = name_at;
  }
  int count = 0;
  bool reported = false;
  while (!p->panic && !kp_is(p, ")") && p->tok->kind != KL_TOKEN_END) {
    int64_t v = attribute_int(p, what, 65536, name_at, &reported);
    if (spec && required && count < 3) spec->reqd[count] = v ? (uint32_t)v : 1;
    count++;
    if (!kp_accept(p, ",")) break;
  }
  if (count != 3 && !p->panic)
    kl_error(p->ctx, name_at, "%s takes 3 arguments (X, Y, Z), %d given", what, count);
  for (int i = count; i < 3 && spec && required; i++) spec->reqd[i] = 1;
  kp_expect(p, ")", required ? "after reqd_work_group_size(X, Y, Z" : "after the size hint");
  if (!spec) kl_error(p->ctx, name_at, "%s applies to kernels only", what);
}

/* vec_type_hint(float4): a scalar or vector type */
static void vec_type_hint(parser *p) {
  kp_expect(p, "(", "after 'vec_type_hint'");
  kl_token *t = p->tok;
  kl_type *type =
      t->kind == KL_TOKEN_IDENTIFIER ? kl_type_from_name(p->ctx, t->text, t->length) : NULL;
  if (!type || (type->kind != KL_TYPE_VECTOR && !kl_type_is_scalar(type)))
    kl_error(p->ctx, kp_here(p), "vec_type_hint takes a scalar or vector type, not %s",
             kp_token_text(p, t));
  if (p->tok->kind != KL_TOKEN_END && !kp_is(p, ")")) kp_advance(p);
  kp_expect(p, ")", "after the vec_type_hint type");
}

/* aligned(N): N a power of two */
static void aligned(parser *p, decl_spec *spec, kl_token *name) {
  if (!kp_is(p, "(")) {
    kl_error(p->ctx, kl_token_where(name), "'aligned' needs its alignment: write aligned(N)");
    return;
  }
  kp_advance(p);
  bool reported = false;
  int64_t v = attribute_int(p, "aligned", 1 << 12, kl_token_where(name), &reported);
  if (v & (v - 1)) {
    kl_error(p->ctx, kl_token_where(name), "aligned(%lld): the alignment must be a power of two",
             (long long)v);
    v = 0;
  }
  kp_expect(p, ")", "after the alignment");
  if (spec && v > spec->aligned) {
    spec->aligned = (int)v;
    spec->aligned_at = kl_token_where(name);
  }
}

/* endian(host) or endian(device): both are the device's order here */
static void endian(parser *p) {
  kp_expect(p, "(", "after 'endian'");
  if (!kp_is(p, "host") && !kp_is(p, "device") && !kp_is(p, "__host__") && !kp_is(p, "__device__"))
    kl_error(p->ctx, kp_here(p), "endian takes 'host' or 'device', not %s",
             kp_token_text(p, p->tok));
  if (p->tok->kind != KL_TOKEN_END && !kp_is(p, ")")) kp_advance(p);
  kp_expect(p, ")", "after the endianness");
}

/* The name without GNU's optional underscores: __packed__ is packed. */
static bool attribute_is(const kl_token *t, const char *name) {
  size_t n = strlen(name);
  if ((size_t)t->length == n) return memcmp(t->text, name, n) == 0;
  return (size_t)t->length == n + 4 && memcmp(t->text, "__", 2) == 0 &&
         memcmp(t->text + 2, name, n) == 0 && memcmp(t->text + 2 + n, "__", 2) == 0;
}

static void one_attribute(parser *p, decl_spec *spec, kl_token *name) {
  if (attribute_is(name, "reqd_work_group_size")) {
    work_group_size(p, spec, name, true);
  } else if (attribute_is(name, "work_group_size_hint")) {
    work_group_size(p, spec, name, false);
  } else if (attribute_is(name, "vec_type_hint")) {
    vec_type_hint(p);
  } else if (attribute_is(name, "aligned")) {
    aligned(p, spec, name);
  } else if (attribute_is(name, "packed")) {
    if (spec) spec->packed = true;
  } else if (attribute_is(name, "max_constant_size")) {
    kp_expect(p, "(", "after 'max_constant_size'");
    bool reported = false;
    int64_t v =
        attribute_int(p, "max_constant_size", INT64_C(1) << 40, kl_token_where(name), &reported);
    kp_expect(p, ")", "after the size");
    if (spec) {
      spec->max_constant_size = v;
      spec->max_constant_at = kl_token_where(name);
    }
  } else if (attribute_is(name, "endian")) {
    endian(p);
  } else if (attribute_is(name, "nosvm")) {
    /* OpenCL C 2.0's hint that a pointer is no SVM pointer: true of every pointer here */
  } else {
    kl_warning(p->ctx, kl_token_where(name), "attribute '%.*s' is ignored", name->length,
               name->text);
    if (kp_is(p, "(")) kp_skip_parens(p);
  }
}

/* __attribute__((a, b(args))) */
void kp_attribute(parser *p, decl_spec *spec) {
  kp_advance(p); /* __attribute__ */
  kp_expect(p, "(", "after '__attribute__'");
  kp_expect(p, "(", "after '__attribute__('");
  while (!p->panic && !kp_is(p, ")") && p->tok->kind != KL_TOKEN_END) {
    kl_token *name = p->tok;
    if (name->kind != KL_TOKEN_IDENTIFIER) {
      kp_syntax_error_at(p, kp_here(p), "expected an attribute name", NULL);
      break;
    }
    kp_advance(p);
    one_attribute(p, spec, name);
    if (!kp_accept(p, ",")) break;
  }
  kp_expect(p, ")", "to close the attribute list");
  kp_expect(p, ")", "to close '__attribute__(('");
}

void kp_attributes(parser *p, decl_spec *spec) {
  while (kp_is(p, "__attribute__") && !p->panic) kp_attribute(p, spec);
}

/* Attributes after a declarator (`int x[4] __attribute__((aligned(16)))`,
 * `} params __attribute__((aligned(32)));`, `__constant float *c
 * __attribute__((max_constant_size(256)))`): merged into spec; aligned on a
 * typedef of a struct raises the struct's alignment. */
kl_type *kp_declarator_attributes(parser *p, decl_spec *spec, kl_type *type, kl_token *name) {
  if (!kp_is(p, "__attribute__")) return type;
  decl_spec here;
  memset(&here, 0, sizeof here);
  kp_attributes(p, &here);
  if (here.has_reqd)
    kl_error(p->ctx, here.reqd_at, "reqd_work_group_size applies to kernels, before the name");
  if (here.max_constant_size) {
    spec->max_constant_size = here.max_constant_size;
    spec->max_constant_at = here.max_constant_at;
  }
  if (spec->is_typedef && here.aligned > type->align) {
    if (type->kind == KL_TYPE_STRUCT && type->members) {
      /* As GCC and clang: the typedef's alignment, not its size, changes
       * (an array of it is an error); kp_layout_struct aligns a member of
       * this type with a member attribute the targets print. */
      kl_type *t = kl_alloc(p->ctx, sizeof *t);
      *t = *type;
      t->aligned = here.aligned;
      t->align = here.aligned;
      type = t;
    } else {
      kl_error(p->ctx, here.aligned_at,
               "aligned(%d) on the typedef '%.*s' of '%s': only structs can be over-aligned",
               here.aligned, name ? name->length : 0, name ? name->text : "",
               kp_type_name(p, type));
    }
  }
  if (here.aligned > spec->aligned) {
    spec->aligned = here.aligned;
    spec->aligned_at = here.aligned_at;
  }
  if (here.packed) spec->packed = true;
  return type;
}

/* OpenCL C's layout, as GCC gives it with the attributes: each member at
 * the next multiple of its alignment (1 in a packed struct, at least its
 * own aligned(N)); the struct aligned to its largest member alignment or
 * its own aligned(N), its size a multiple of that. */
void kp_layout_struct(parser *p, kl_type *type, const decl_spec *attributes) {
  (void)p;
  int offset = 0, align = 1;
  type->packed = attributes->packed;
  type->aligned = attributes->aligned;
  for (kl_member *m = type->members; m; m = m->next) {
    int a = attributes->packed ? 1 : (m->type->align > 0 ? m->type->align : 1);
    if (m->type->kind == KL_TYPE_STRUCT && m->type->aligned > m->aligned)
      m->aligned = m->type->aligned; /* a typedef's aligned(N) */
    if (m->aligned > a) a = m->aligned;
    if (type->is_union) {
      m->offset = 0; /* the size is the largest member's */
      if (m->type->size > offset) offset = m->type->size;
    } else {
      offset = (offset + a - 1) / a * a;
      m->offset = offset;
      offset += m->type->size;
    }
    if (a > align) align = a;
  }
  if (attributes->aligned > align) align = attributes->aligned;
  type->align = align;
  type->size = (offset + align - 1) / align * align;
  if (type->size == 0) type->size = 1;
}
