// SPDX-License-Identifier: Apache-2.0
/* The byte-driven generator of valid kernels: see kernel_gen.h. Each choice
 * takes one byte (0 once the bytes run out, which always picks the simplest
 * form, so every input ends in a finite kernel); nesting, statement counts
 * and loop trip counts are bounded. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_gen_internal.h"

unsigned kgen_take(kgen *g, unsigned n) {
  if (n <= 1) return 0;
  if (g->pos >= g->size) return 0;
  return g->data[g->pos++] % n;
}

bool kgen_exhausted(const kgen *g) {
  return g->pos >= g->size;
}

void kgen_put(kgen *g, const char *format, ...) {
  if (g->failed) return;
  for (;;) {
    va_list args;
    va_start(args, format);
    int n = vsnprintf(g->text + g->length, g->capacity - g->length, format, args);
    va_end(args);
    if (n < 0) {
      g->failed = true;
      return;
    }
    if (g->length + (size_t)n < g->capacity) {
      g->length += (size_t)n;
      return;
    }
    size_t capacity = (g->capacity + (size_t)n) * 2;
    char *grown = realloc(g->text, capacity);
    if (!grown) {
      g->failed = true;
      return;
    }
    g->text = grown;
    g->capacity = capacity;
  }
}

/* Appends text[start, end) again: an expression used twice (it has no side
 * effects). */
void kgen_repeat(kgen *g, size_t start, size_t end) {
  if (g->failed) return;
  size_t n = end - start;
  char *copy = malloc(n + 1);
  if (!copy) {
    g->failed = true;
    return;
  }
  memcpy(copy, g->text + start, n);
  copy[n] = '\0';
  kgen_put(g, "%s", copy);
  free(copy);
}

void kgen_indent(kgen *g) {
  kgen_put(g, "%*s", g->indent * 2, "");
}

/* A variable of `type` in scope (not an array), or NULL. */
const kgen_var *kgen_pick_var(kgen *g, kgen_type type, bool writable) {
  int candidates[MAX_VARS], n = 0;
  for (int i = 0; i < g->var_count; i++) {
    const kgen_var *v = &g->vars[i];
    if (v->type == type && !v->array && (!writable || !v->read_only)) candidates[n++] = i;
  }
  return n ? &g->vars[candidates[kgen_take(g, (unsigned)n)]] : NULL;
}

const kgen_var *kgen_pick_array(kgen *g) {
  int candidates[MAX_VARS], n = 0;
  for (int i = 0; i < g->var_count; i++)
    if (g->vars[i].array) candidates[n++] = i;
  return n ? &g->vars[candidates[kgen_take(g, (unsigned)n)]] : NULL;
}

kgen_var *kgen_add_var(kgen *g, kgen_type type, const char *prefix) {
  if (g->var_count == MAX_VARS) return NULL;
  kgen_var *v = &g->vars[g->var_count++];
  snprintf(v->name, sizeof v->name, "%s%d", prefix, g->next_id++);
  v->type = type;
  v->read_only = false;
  v->array = false;
  return v;
}

bool kgen_type_allowed(const kgen *g, kgen_type type) {
  if (type == T_ULONG) return g->options.int64;
  if (type == T_FLOAT) return g->options.floats;
  return true;
}

static void helpers(kgen *g) {
  if (kgen_take(g, 2)) {
    g->have_value_helper = true;
    g->in_helper = true;
    kgen_put(g, "uint helper(uint a, uint b) {\n");
    g->indent = 1;
    kgen_add_var(g, T_UINT, "p"), snprintf(g->vars[g->var_count - 1].name, 16, "a");
    kgen_add_var(g, T_UINT, "p"), snprintf(g->vars[g->var_count - 1].name, 16, "b");
    for (unsigned i = kgen_take(g, 3); i > 0; i--) {
      kgen_indent(g);
      kgen_put(g, "a = ");
      kgen_expr(g, T_UINT, 0);
      kgen_put(g, ";\n");
    }
    kgen_indent(g);
    kgen_put(g, "return ");
    kgen_expr(g, T_UINT, 0);
    kgen_put(g, ";\n}\n\n");
    g->var_count = 0;
    g->indent = 0;
    g->in_helper = false;
  }
  if (kgen_take(g, 2)) {
    g->have_pointer_helper = true;
    kgen_put(g, "uint read_tile(__local const uint *t, uint i) {\n  return t[i %% %uu];\n}\n\n",
             KGEN_LOCAL_SIZE);
    kgen_put(g, "void bump(__global uint *acc, uint x) {\n  atomic_add(&acc[x & 1u], x);\n}\n\n");
  }
}

char *kgen_generate(const uint8_t *data, size_t size, const kgen_options *options) {
  kgen g;
  memset(&g, 0, sizeof g);
  g.data = data;
  g.size = size;
  g.options = *options;
  g.capacity = 4096;
  g.text = malloc(g.capacity);
  if (!g.text) return NULL;
  g.text[0] = '\0';
  helpers(&g);
  kgen_put(&g,
           "__kernel __attribute__((reqd_work_group_size(%d, 1, 1)))\n"
           "void fuzz(__global const uint *in, __global uint *out, __global uint *acc) {\n"
           "  __local uint tile[%d];\n"
           "  uint gid = (uint)get_global_id(0);\n"
           "  uint lid = (uint)get_local_id(0);\n"
           "  uint x = in[gid];\n"
           "  uint y = in[(gid + 1u) %% %uu];\n"
           "  int i = (int)in[(gid * 7u) %% %uu];\n"
           "  uint4 v = (uint4)(x, y, gid, lid);\n",
           KGEN_LOCAL_SIZE, KGEN_LOCAL_SIZE, KGEN_GLOBAL_SIZE, KGEN_GLOBAL_SIZE);
  static const struct {
    const char *name;
    kgen_type type;
  } inputs[] = {{"gid", T_UINT}, {"lid", T_UINT}, {"x", T_UINT},
                {"y", T_UINT},   {"i", T_INT},    {"v", T_UINT4}};
  for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
    kgen_var *var = &g.vars[g.var_count++];
    snprintf(var->name, sizeof var->name, "%s", inputs[k].name);
    var->type = inputs[k].type;
    var->read_only = k < 2; /* gid and lid index memory */
    var->array = false;
  }
  if (g.options.int64)
    kgen_put(&g, "  ulong l = upsample(x, y);\n"), kgen_add_var(&g, T_ULONG, "l"),
        snprintf(g.vars[g.var_count - 1].name, 16, "l");
  if (g.options.floats)
    kgen_put(&g, "  float f = (float)x * 0.5f;\n"), kgen_add_var(&g, T_FLOAT, "f"),
        snprintf(g.vars[g.var_count - 1].name, 16, "f");
  kgen_put(&g, "  uchar4 c = as_uchar4(x ^ y);\n  uint8 w = (uint8)(v, v.wzyx + y);\n");
  kgen_var *c = kgen_add_var(&g, T_UCHAR4, "c"), *w = kgen_add_var(&g, T_UINT8, "w");
  snprintf(c->name, sizeof c->name, "c");
  snprintf(w->name, sizeof w->name, "w");
  g.indent = 1;
  while (!kgen_exhausted(&g) && g.statements < MAX_STATEMENTS && g.length < (48u << 10))
    kgen_statement(&g, 0, false, true);
  /* every top-level value goes into the result */
  kgen_put(&g, "  uint result = 0u;\n");
  for (int k = 0; k < g.var_count; k++) {
    const kgen_var *var = &g.vars[k];
    if (var->array) {
      kgen_put(&g, "  result = result * 31u + (%s[0] ^ %s[1] ^ %s[2] ^ %s[3]);\n", var->name,
               var->name, var->name, var->name);
      continue;
    }
    switch (var->type) {
      case T_UINT:
        kgen_put(&g, "  result = result * 31u + %s;\n", var->name);
        break;
      case T_INT:
        kgen_put(&g, "  result = result * 31u + (uint)%s;\n", var->name);
        break;
      case T_ULONG:
        kgen_put(&g, "  result = result * 31u + (uint)%s + (uint)(%s >> 32);\n", var->name,
                 var->name);
        break;
      case T_UINT4:
        kgen_put(&g, "  result = result * 31u + (%s.x ^ %s.y ^ %s.z ^ %s.w);\n", var->name,
                 var->name, var->name, var->name);
        break;
      case T_UCHAR4:
        kgen_put(&g, "  result = result * 31u + as_uint(%s);\n", var->name);
        break;
      case T_UINT8:
        kgen_put(
            &g,
            "  result = result * 31u + (%s.s0 ^ %s.s1 ^ %s.s2 ^ %s.s3 ^ %s.s4 ^ %s.s5 ^ %s.s6 ^ "
            "%s.s7);\n",
            var->name, var->name, var->name, var->name, var->name, var->name, var->name, var->name);
        break;
      case T_FLOAT:
        kgen_put(&g, "  result = result * 31u + convert_uint_sat(%s);\n", var->name);
        break;
      default:
        break;
    }
  }
  kgen_put(&g, "  out[gid] = result;\n}\n");
  if (g.failed) {
    free(g.text);
    return NULL;
  }
  return g.text;
}
