// SPDX-License-Identifier: Apache-2.0
/* Kernel signatures as JSON (`anygpu compile --signature`,
 * agpu_translation_signature_json and the tests) and the names of kernel
 * features for messages. The runtime validates launches against the parsed
 * kl_kernel itself, not against this text. */
#include <string.h>

#include "kl_front.h"

typedef struct out {
  kl_context *ctx;
  char *data;
  size_t length, capacity;
} out;

static void put(out *o, const char *text) {
  size_t n = strlen(text);
  if (o->length + n + 1 > o->capacity) {
    size_t capacity = o->capacity ? o->capacity * 2 : 1024;
    while (capacity < o->length + n + 1) capacity *= 2;
    char *data = kl_alloc(o->ctx, capacity);
    if (o->length) memcpy(data, o->data, o->length);
    o->data = data;
    o->capacity = capacity;
  }
  memcpy(o->data + o->length, text, n + 1);
  o->length += n;
}

static void put_string(out *o, const char *text) {
  put(o, "\"");
  for (const char *s = text; *s; s++) {
    char c = *s;
    if (c == '"' || c == '\\') {
      char e[3] = {'\\', c, 0};
      put(o, e);
    } else if ((unsigned char)c < 0x20) {
      put(o, kl_format(o->ctx, "\\u%04x", (unsigned char)c));
    } else {
      char e[2] = {c, 0};
      put(o, e);
    }
  }
  put(o, "\"");
}

static const struct {
  unsigned bit;
  const char *name;
} feature_names[] = {
    {KL_FEATURE_FP64, "fp64"},
    {KL_FEATURE_FP16, "fp16"},
    {KL_FEATURE_INT64, "int64"},
    {KL_FEATURE_GLOBAL_ATOMICS, "global_atomics"},
    {KL_FEATURE_LOCAL_ATOMICS, "local_atomics"},
    {KL_FEATURE_BARRIER, "barrier"},
    {KL_FEATURE_LOCAL_MEMORY, "local_memory"},
    {KL_FEATURE_PRINTF, "printf"},
};

const char *kl_feature_names(kl_context *ctx, unsigned features, const char *separator) {
  const char *s = "";
  for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++)
    if (features & feature_names[i].bit)
      s = kl_format(ctx, "%s%s%s", s, s[0] ? separator : "", feature_names[i].name);
  return s;
}

static void put_features(out *o, unsigned features) {
  put(o, "[");
  bool first = true;
  for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++)
    if (features & feature_names[i].bit) {
      if (!first) put(o, ", ");
      put_string(o, feature_names[i].name);
      first = false;
    }
  put(o, "]");
}

static const char *space_name(kl_address_space s) {
  switch (s) {
    case KL_SPACE_GLOBAL:
      return "global";
    case KL_SPACE_LOCAL:
      return "local";
    case KL_SPACE_CONSTANT:
      return "constant";
    default:
      return "private";
  }
}

/* {"name", "size", "align", "members": [{"name", "type", "offset", "size"}]}
 * with OpenCL C's layout; a member that is a struct (or an array of them)
 * has its own "struct". */
static void put_struct(out *o, const kl_type *t, int depth) {
  put(o, "{\"name\": ");
  put_string(o, kl_type_name(o->ctx, t));
  put(o, kl_format(o->ctx, ", \"size\": %d, \"align\": %d, \"members\": [", t->size, t->align));
  for (const kl_member *m = t->members; m; m = m->next) {
    put(o, m == t->members ? "{\"name\": " : ", {\"name\": ");
    put_string(o, m->name);
    put(o, ", \"type\": ");
    put_string(o, kl_type_name(o->ctx, m->type));
    put(o, kl_format(o->ctx, ", \"offset\": %d, \"size\": %d", m->offset, m->type->size));
    const kl_type *inner = m->type;
    while (inner->kind == KL_TYPE_ARRAY) inner = inner->element;
    if (inner->kind == KL_TYPE_STRUCT && depth < KL_MAX_DEPTH) {
      put(o, ", \"struct\": ");
      put_struct(o, inner, depth + 1);
    }
    put(o, "}");
  }
  put(o, "]}");
}

const char *kl_signature_json(kl_context *ctx, const kl_program *program) {
  jmp_buf bail, *saved = ctx->bail;
  if (setjmp(bail)) {
    ctx->bail = saved;
    return "{\"error\": \"out of memory\"}";
  }
  ctx->bail = &bail;
  out o = {.ctx = ctx};
  put(&o, "{\n  \"kernels\": [");
  bool first_kernel = true;
  for (const kl_function *f = program ? program->functions : NULL; f; f = f->next) {
    if (!f->is_kernel || !f->body) continue;
    put(&o, first_kernel ? "\n    {" : ",\n    {");
    first_kernel = false;
    put(&o, "\n      \"name\": ");
    put_string(&o, f->name);
    put(&o, ",\n      \"params\": [");
    int index = 0;
    for (const kl_variable *v = f->params; v && v != f->printf_buffer && v != f->check_buffer;
         v = v->next, index++) {
      /* (the printf and check buffers are the runtime's to pass) */
      const kl_type *t = v->type;
      bool pointer = t->kind == KL_TYPE_POINTER;
      const char *kind = pointer ? space_name(t->pointee_space) : "value";
      const kl_type *element = pointer ? t->element : t;
      put(&o, index ? ",\n        {" : "\n        {");
      put(&o, kl_format(ctx, "\"index\": %d, \"name\": ", index));
      put_string(&o, v->name);
      put(&o, ", \"kind\": ");
      put_string(&o, kind);
      put(&o, ", \"type\": ");
      put_string(&o, kl_type_name(ctx, t));
      put(&o, ", \"element_type\": ");
      put_string(&o, kl_type_name(ctx, kl_type_unqualified(ctx, (kl_type *)element)));
      put(&o, kl_format(ctx, ", \"element_size\": %d", element->size));
      put(&o, ", \"address_space\": ");
      put_string(&o, pointer ? space_name(t->pointee_space) : "private");
      unsigned q = pointer ? element->qualifiers : t->qualifiers;
      put(&o,
          kl_format(ctx, ", \"const\": %s, \"volatile\": %s, \"restrict\": %s",
                    (q & KL_QUALIFIER_CONST) || (pointer && t->pointee_space == KL_SPACE_CONSTANT)
                        ? "true"
                        : "false",
                    q & KL_QUALIFIER_VOLATILE ? "true" : "false",
                    pointer && (t->qualifiers & KL_QUALIFIER_RESTRICT) ? "true" : "false"));
      /* the bytes the host passes: a value's size; a buffer handle for pointers;
       * __local pointers get their size at launch */
      put(&o, kl_format(ctx, ", \"size\": %d", pointer ? (int)sizeof(void *) : t->size));
      if (element->kind == KL_TYPE_STRUCT) {
        put(&o, ", \"struct\": ");
        put_struct(&o, element, 0);
      }
      put(&o, "}");
    }
    put(&o, index ? "\n      ],\n" : "],\n");
    put(&o, "      \"features\": ");
    put_features(&o, f->features);
    if (f->has_required_work_group_size)
      put(&o, kl_format(ctx, ",\n      \"reqd_work_group_size\": [%u, %u, %u]",
                        f->required_work_group_size[0], f->required_work_group_size[1],
                        f->required_work_group_size[2]));
    else
      put(&o, ",\n      \"reqd_work_group_size\": null");
    put(&o, kl_format(ctx, ",\n      \"local_memory_bytes\": %u", f->local_memory_bytes));
    put(&o, ",\n      \"vector_widths\": [");
    bool first = true;
    for (int w = 2; w <= 16; w++)
      if (f->vector_widths & (1u << w)) {
        put(&o, kl_format(ctx, first ? "%d" : ", %d", w));
        first = false;
      }
    put(&o, "]\n    }");
  }
  put(&o, first_kernel ? "],\n" : "\n  ],\n");
  put(&o, "  \"features\": ");
  put_features(&o, program ? program->features : 0);
  put(&o, "\n}\n");
  ctx->bail = saved;
  return o.data;
}
