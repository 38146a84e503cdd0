// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: OpenCL builtins as GLSL functions and helpers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emit_glsl_internal.h"
/* ------------------------------------------------------------ helpers */

/* A template: $T the scalar type, $U its unsigned type, $W its bits, $MAX
 * and $MIN its limits, $1 the extra text. */
const char *glsl_fill(glsl_emitter *e, const char *tmpl, const kl_type *s, const char *extra) {
  klg_buf b;
  klg_init(&b, e->ctx);
  const kl_type *u = glsl_unsigned_of(e, s);
  int bits = glsl_bits(s);
  for (const char *p = tmpl; *p; p++) {
    if (*p != '$') {
      klg_putn(&b, p, 1);
      continue;
    }
    if (p[1] == 'T') {
      klg_puts(&b, glsl_scalar(e, s, (kl_location){0}));
      p++;
    } else if (p[1] == 'U') {
      klg_puts(&b, glsl_scalar(e, u, (kl_location){0}));
      p++;
    } else if (p[1] == 'W') {
      klg_printf(&b, "%d", bits);
      p++;
    } else if (p[1] == '1') {
      klg_puts(&b, extra ? extra : "");
      p++;
    } else if (strncmp(p + 1, "MAX", 3) == 0 || strncmp(p + 1, "MIN", 3) == 0) {
      bool is_max = p[2] == 'A';
      const char *ts = glsl_scalar(e, s, (kl_location){0});
      if (kl_type_is_floating(s))
        klg_puts(&b, "0");
      else if (!kl_type_is_signed(s)) {
        if (!is_max)
          klg_printf(&b, "%s(0)", ts);
        else if (bits == 64)
          klg_puts(&b, "18446744073709551615ul");
        else
          klg_printf(&b, "%s(%lluu)", ts, (unsigned long long)((1ull << bits) - 1));
      } else {
        if (bits == 64)
          klg_puts(&b, is_max ? "9223372036854775807l" : "(-9223372036854775807l - 1l)");
        else if (bits == 32)
          klg_puts(&b, is_max ? "2147483647" : "(-2147483647 - 1)");
        else
          klg_printf(
              &b, "%s(%lld)", ts,
              is_max ? (long long)((1ll << (bits - 1)) - 1) : -(long long)(1ll << (bits - 1)));
      }
      p += 3;
    } else {
      klg_putn(&b, p, 1);
    }
  }
  return klg_text(&b);
}

/* Defines the scalar helper `name` for s (from tmpl) once, and its vector
 * overload for `vec` (component-wise) when vec is a vector. nargs: the
 * arguments, all of the same shape; result: the result element type;
 * arg2: the element type of the second argument when it differs. */
void glsl_helper(glsl_emitter *e, const char *name, const kl_type *vec, const kl_type *s,
                 const kl_type *result, int nargs, const kl_type *arg2, const char *tmpl,
                 const char *extra) {
  const char *key = kl_format(e->ctx, "%s/%d/%d/%d", name, (int)s->kind,
                              arg2 ? (int)arg2->kind : -1, extra ? (int)strlen(extra) : 0);
  if (glsl_need(e, key)) {
    klg_puts(&e->helpers, glsl_fill(e, tmpl, s, extra));
    klg_puts(&e->helpers, "\n");
  }
  if (!klg_is_vector(vec)) return;
  int n = vec->length;
  key = kl_format(e->ctx, "%s/%d/%d/v%d", name, (int)s->kind, arg2 ? (int)arg2->kind : -1, n);
  if (!glsl_need(e, key)) return;
  kl_location at = {0};
  const char *vt = glsl_with_element(e, vec, s, at);
  const char *rt = glsl_with_element(e, vec, result, at);
  const char *a2 = arg2 ? glsl_with_element(e, vec, arg2, at) : vt;
  klg_buf *h = &e->helpers;
  klg_printf(h, "%s %s(%s a", rt, name, vt);
  if (nargs > 1) klg_printf(h, ", %s b", a2);
  if (nargs > 2) klg_printf(h, ", %s c", vt);
  klg_printf(h, ") { %s r; for (int i = 0; i < %d; i++) r[i] = %s(a[i]%s%s); return r; }\n", rt, n,
             name, nargs > 1 ? ", b[i]" : "", nargs > 2 ? ", c[i]" : "");
}

void glsl_call_args(glsl_emitter *e, const kl_node *args) {
  for (const kl_node *a = args; a; a = a->next) {
    glsl_expr(e, a);
    if (a->next) klg_puts(e->out, ", ");
  }
}

void glsl_call(glsl_emitter *e, const char *name, const kl_node *args) {
  klg_printf(e->out, "%s(", name);
  glsl_call_args(e, args);
  klg_puts(e->out, ")");
}

/* ------------------------------------------------------------ builtins */

bool glsl_const_dim(const kl_node *n, int *dim) {
  n = klg_strip_convert(n);
  if (n && n->kind == KL_EXPR_INT_LITERAL && n->int_value < 3) {
    *dim = (int)n->int_value;
    return true;
  }
  return false;
}

/* A 32-bit work-item value widened to 64 bits through a function:
 * uint64_t(gl_WorkGroupSize.x) would be a specialisation-constant UConvert,
 * which SPIR-V before 1.4 allows only in kernels (spirv-val refuses it). */
static void glsl_widen_helper(glsl_emitter *e) {
  if (glsl_need(e, "_cl_u64"))
    klg_puts(&e->helpers, "uint64_t _cl_u64(uint v) { return uint64_t(v); }\n");
}

/* get_global_id and get_global_size in 64 bits: the group id and the
 * count of groups fit 32 bits (max_work_groups), their products with the
 * group size do not. */
static void glsl_work_item_wide(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  static const char xyz[] = "xyz";
  int d = 0;
  bool constant = n->args && glsl_const_dim(n->args, &d);
  bool id = n->builtin->id == KL_BUILTIN_GET_GLOBAL_ID;
  glsl_widen_helper(e);
  if (constant) {
    if (id)
      klg_printf(o,
                 "(_cl_u64(gl_WorkGroupID.%c + _cl_p._cl_group_offset.%c) * "
                 "_cl_u64(gl_WorkGroupSize.%c) + _cl_u64(gl_LocalInvocationID.%c))",
                 xyz[d], xyz[d], xyz[d], xyz[d]);
    else
      klg_printf(o, "(_cl_u64(_cl_p._cl_num_groups.%c) * _cl_u64(gl_WorkGroupSize.%c))", xyz[d],
                 xyz[d]);
    return;
  }
  const char *name = id ? "_cl_global_id64" : "_cl_global_size64";
  if (glsl_need(e, name))
    klg_puts(&e->helpers,
             id ? "uint64_t _cl_global_id64(uint d) { uvec3 s = gl_WorkGroupSize; return d < 3u ? "
                  "_cl_u64(gl_WorkGroupID[d] + _cl_p._cl_group_offset[d]) * _cl_u64(s[d]) + "
                  "_cl_u64(gl_LocalInvocationID[d]) : 0ul; }\n"
                : "uint64_t _cl_global_size64(uint d) { uvec3 s = gl_WorkGroupSize; return d < "
                  "3u ? _cl_u64(_cl_p._cl_num_groups[d]) * _cl_u64(s[d]) : 1ul; }\n");
  klg_printf(o, "%s(uint(", name);
  glsl_expr(e, n->args);
  klg_puts(o, "))");
}

/* An integer expression of which only the low 32 bits are used (an index,
 * inside uint()): a work-item function, also through conversions to
 * integer types of 32 bits or more, is computed in 32 bits. */
void glsl_low32(glsl_emitter *e, const kl_node *n) {
  const kl_node *m = n;
  while ((m->kind == KL_EXPR_CONVERT || m->kind == KL_EXPR_CAST) && kl_type_is_integer(m->type) &&
         kl_type_is_scalar(m->type) && m->type->size >= 4)
    m = m->lhs;
  if (m->kind == KL_EXPR_BUILTIN && m->builtin && m->builtin->category == KL_BUILTIN_WORK_ITEM)
    glsl_work_item(e, m, false);
  else
    glsl_expr(e, n);
}

/* A work-item function. `wide`: as OpenCL C types it, size_t (uint64_t);
 * else in 32 bits, for a caller that converts the result to a type of 32
 * bits or fewer (the same low bits: `uint i = get_global_id(0)` needs no
 * 64-bit arithmetic). */
void glsl_work_item(glsl_emitter *e, const kl_node *n, bool wide) {
  klg_buf *o = e->out;
  const kl_builtin *b = n->builtin;
  if (wide && b->id != KL_BUILTIN_GET_WORK_DIM) {
    e->caps |= KL_GLSL_NEEDS_INT64 | KL_GLSL_NEEDS_SIZE64;
    if (b->id == KL_BUILTIN_GET_GLOBAL_ID || b->id == KL_BUILTIN_GET_GLOBAL_SIZE) {
      glsl_work_item_wide(e, n);
    } else if (b->id == KL_BUILTIN_GET_GLOBAL_OFFSET) {
      klg_puts(o, "0ul");
    } else { /* local id and size, group id and count: 32-bit values */
      glsl_widen_helper(e);
      klg_puts(o, "_cl_u64(");
      glsl_work_item(e, n, false);
      klg_puts(o, ")");
    }
    return;
  }
  static const char xyz[] = "xyz";
  int d = 0;
  bool constant = n->args && glsl_const_dim(n->args, &d);
  const char *key = NULL, *body = NULL, *name = NULL;
  switch (b->id) {
    case KL_BUILTIN_GET_WORK_DIM:
      klg_puts(o, "_cl_p._cl_work_dim");
      return;
    case KL_BUILTIN_GET_GLOBAL_OFFSET:
      klg_puts(o, "0u");
      return;
    case KL_BUILTIN_GET_LOCAL_ID:
      if (constant) {
        klg_printf(o, "gl_LocalInvocationID.%c", xyz[d]);
        return;
      }
      name = "_cl_local_id";
      key = name;
      body = "uint _cl_local_id(uint d) { return d < 3u ? gl_LocalInvocationID[d] : 0u; }\n";
      break;
    case KL_BUILTIN_GET_LOCAL_SIZE:
      if (constant) {
        klg_printf(o, "gl_WorkGroupSize.%c", xyz[d]);
        return;
      }
      name = "_cl_local_size";
      key = name;
      body =
          "uint _cl_local_size(uint d) { uvec3 s = gl_WorkGroupSize; return d < 3u ? s[d] : 1u; "
          "}\n";
      break;
    case KL_BUILTIN_GET_GROUP_ID:
      if (constant) {
        klg_printf(o, "(gl_WorkGroupID.%c + _cl_p._cl_group_offset.%c)", xyz[d], xyz[d]);
        return;
      }
      name = "_cl_group_id";
      key = name;
      body =
          "uint _cl_group_id(uint d) { return d < 3u ? gl_WorkGroupID[d] + "
          "_cl_p._cl_group_offset[d] : 0u; }\n";
      break;
    case KL_BUILTIN_GET_NUM_GROUPS:
      if (constant) {
        klg_printf(o, "_cl_p._cl_num_groups.%c", xyz[d]);
        return;
      }
      name = "_cl_num_groups";
      key = name;
      body = "uint _cl_num_groups(uint d) { return d < 3u ? _cl_p._cl_num_groups[d] : 1u; }\n";
      break;
    case KL_BUILTIN_GET_GLOBAL_SIZE:
      if (constant) {
        klg_printf(o, "(_cl_p._cl_num_groups.%c * gl_WorkGroupSize.%c)", xyz[d], xyz[d]);
        return;
      }
      name = "_cl_global_size";
      key = name;
      body =
          "uint _cl_global_size(uint d) { uvec3 s = gl_WorkGroupSize; return d < 3u ? "
          "_cl_p._cl_num_groups[d] * s[d] : 1u; }\n";
      break;
    default: /* GET_GLOBAL_ID */
      if (constant) {
        klg_printf(o,
                   "((gl_WorkGroupID.%c + _cl_p._cl_group_offset.%c) * gl_WorkGroupSize.%c + "
                   "gl_LocalInvocationID.%c)",
                   xyz[d], xyz[d], xyz[d], xyz[d]);
        return;
      }
      name = "_cl_global_id";
      key = name;
      body =
          "uint _cl_global_id(uint d) { uvec3 s = gl_WorkGroupSize; return d < 3u ? "
          "(gl_WorkGroupID[d] + _cl_p._cl_group_offset[d]) * s[d] + gl_LocalInvocationID[d] : 0u; "
          "}\n";
      break;
  }
  if (glsl_need(e, key)) klg_puts(&e->helpers, body);
  klg_printf(o, "%s(uint(", name);
  glsl_expr(e, n->args);
  klg_puts(o, "))");
}

const char *glsl_fence(const kl_node *flags) {
  flags = klg_strip_convert(flags);
  if (flags && flags->kind == KL_EXPR_INT_LITERAL) {
    if (flags->int_value == 1) return "memoryBarrierShared()";
    if (flags->int_value == 2) return "memoryBarrierBuffer()";
  }
  return "memoryBarrier()";
}

void glsl_atomic(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_builtin *b = n->builtin;
  const kl_node *p = n->args, *v = p ? p->next : NULL, *w = v ? v->next : NULL;
  const kl_type *t = n->type;
  if (kl_type_is_floating(t)) {
    glsl_fail(e, n->location, "atomics on floating-point values");
    return;
  }
  if (t->size == 8) {
    e->int64_atomics = true;
    e->caps |= KL_GLSL_NEEDS_INT64 | KL_GLSL_NEEDS_INT64_ATOMICS;
  }
  const char *ts = glsl_scalar(e, t, n->location);
  const char *f;
  switch (b->id) {
    case KL_BUILTIN_ATOMIC_ADD:
    case KL_BUILTIN_ATOMIC_SUB:
    case KL_BUILTIN_ATOMIC_INC:
    case KL_BUILTIN_ATOMIC_DEC:
      f = "atomicAdd";
      break;
    case KL_BUILTIN_ATOMIC_XCHG:
      f = "atomicExchange";
      break;
    case KL_BUILTIN_ATOMIC_CMPXCHG:
      f = "atomicCompSwap";
      break;
    case KL_BUILTIN_ATOMIC_MIN:
      f = "atomicMin";
      break;
    case KL_BUILTIN_ATOMIC_MAX:
      f = "atomicMax";
      break;
    case KL_BUILTIN_ATOMIC_AND:
      f = "atomicAnd";
      break;
    case KL_BUILTIN_ATOMIC_OR:
      f = "atomicOr";
      break;
    default:
      f = "atomicXor";
      break;
  }
  klg_printf(o, "%s(", f);
  glsl_element(e, p, NULL, ACCESS_READ_WRITE, n->location);
  switch (b->id) {
    case KL_BUILTIN_ATOMIC_INC:
      klg_printf(o, ", %s(1))", ts);
      return;
    case KL_BUILTIN_ATOMIC_DEC:
      klg_printf(o, ", %s(0) - %s(1))", ts, ts);
      return;
    case KL_BUILTIN_ATOMIC_SUB:
      klg_printf(o, ", %s(0) - ", ts);
      glsl_expr_as(e, v, t);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_ATOMIC_CMPXCHG:
      klg_puts(o, ", ");
      glsl_expr_as(e, v, t);
      klg_puts(o, ", ");
      glsl_expr_as(e, w, t);
      klg_puts(o, ")");
      return;
    default:
      klg_puts(o, ", ");
      glsl_expr_as(e, v, t);
      klg_puts(o, ")");
      return;
  }
}

/* A vector from its element texts. */
static const char *vector_of(glsl_emitter *e, const kl_type *vt, const char *const *elements,
                             kl_location at) {
  if (glsl_is_wide(vt)) return glsl_wide_from_elements(e, vt, elements, at);
  klg_buf b;
  klg_init(&b, e->ctx);
  klg_printf(&b, "%s(", glsl_type(e, vt, at));
  for (int k = 0; k < vt->length; k++) klg_printf(&b, "%s%s", k ? ", " : "", elements[k]);
  klg_puts(&b, ")");
  return klg_text(&b);
}

void glsl_vload_store(glsl_emitter *e, const kl_node *n, bool store) {
  klg_buf *o = e->out;
  const kl_node *data = store ? n->args : NULL;
  const kl_node *offset = store ? n->args->next : n->args;
  const kl_node *p = offset->next;
  const kl_type *vt = store ? data->type : n->type;
  int count = vt->length;
  glsl_root *root;
  const char *base = glsl_pointer_text(e, p, &root);
  if (!root) return;
  if (root->kind == ROOT_PRIVATE || root->scalar) {
    if (root->scalar || !glsl_pure(offset) || !glsl_pure(p) || (data && !glsl_pure(data))) {
      glsl_fail(e, n->location,
                "vloadN/vstoreN on private arrays with side effects in the arguments");
      return;
    }
    const char *idx = glsl_text_of(e, offset);
    const char *elements[16];
    for (int k = 0; k < count; k++)
      elements[k] =
          kl_format(e->ctx, "%s[%s + uint(%s) * %du + %du]", root->array, base, idx, count, k);
    if (store) {
      const char *d = kl_format(e->ctx, "(%s)", glsl_text_of(e, data));
      klg_puts(o, "(");
      for (int k = 0; k < count; k++)
        klg_printf(o, "%s%s = %s", k ? ", " : "", elements[k], glsl_component(e, d, vt, k));
      klg_puts(o, ")");
    } else {
      klg_puts(o, vector_of(e, vt, elements, n->location));
    }
    return;
  }
  glsl_mark(root, store ? ACCESS_WRITE : ACCESS_READ);
  const char *type = glsl_type(e, vt, n->location);
  const char *name =
      kl_format(e->ctx, "_cl_%s%d_%s", store ? "vstore" : "vload", count, root->array);
  if (glsl_need(e, name)) {
    klg_buf *h = &e->functions;
    const char *elements[16];
    for (int k = 0; k < count; k++) elements[k] = kl_format(e->ctx, "%s[i + %du]", root->array, k);
    if (store) {
      klg_printf(h, "void %s(%s v, uint i) {", name, type);
      for (int k = 0; k < count; k++)
        klg_printf(h, " %s = %s;", elements[k], glsl_component(e, "v", vt, k));
      klg_puts(h, " }\n");
    } else {
      klg_printf(h, "%s %s(uint i) { return %s; }\n", type, name,
                 vector_of(e, vt, elements, n->location));
    }
  }
  klg_printf(o, "%s(", name);
  if (store) {
    glsl_expr(e, data);
    klg_puts(o, ", ");
  }
  klg_printf(o, "%s + uint(", base);
  glsl_expr(e, offset);
  klg_printf(o, ") * %du)", count);
}

bool glsl_float_only(glsl_emitter *e, const kl_node *n) {
  if (kl_type_scalar_of(n->type)->kind == KL_TYPE_DOUBLE ||
      (n->args && kl_type_scalar_of(n->args->type)->kind == KL_TYPE_DOUBLE)) {
    if (glsl_fp64_call(e, n)) return false; /* emitted: nothing more to print */
    glsl_fail(
        e, n->location,
        kl_format(e->ctx, "%s on double (GLSL has it for float only)", n->builtin->canonical));
    return false;
  }
  return true;
}

/* Conversions: convert_T[_sat][_rXX]. */
void glsl_convert(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_builtin *b = n->builtin;
  const kl_node *x = n->args;
  const kl_type *to = kl_type_scalar_of(n->type), *from = kl_type_scalar_of(x->type);
  const char *tt = glsl_type(e, n->type, n->location);
  kl_rounding rm = b->rounding;
  if (kl_type_is_floating(to)) {
    bool exact = (kl_type_is_floating(from) && from->size <= to->size) ||
                 (kl_type_is_integer(from) && from->size <= 2);
    if (rm != KL_ROUND_DEFAULT && rm != KL_ROUND_RTE && !exact) {
      if (to->kind != KL_TYPE_FLOAT) {
        glsl_fail(e, n->location,
                  "conversions to double or half with a rounding mode other than rte");
        return;
      }
      const char *fs = glsl_scalar(e, from, n->location);
      const char *mode = rm == KL_ROUND_RTZ ? "rtz" : rm == KL_ROUND_RTP ? "rtp" : "rtn";
      const char *name = kl_format(e->ctx, "_cl_cvtf_%s_%s", fs, mode);
      const char *away, *toward;
      if (from->kind == KL_TYPE_DOUBLE) {
        away = "abs(double(f)) > abs(x)";
        toward = "abs(double(f)) < abs(x)";
      } else if (from->size == 8) {
        away = "(abs(f) >= 18446744073709551616.0 || uint64_t(abs(f)) > m)";
        toward = "(abs(f) < 18446744073709551616.0 && uint64_t(abs(f)) < m)";
      } else {
        away = "(abs(f) >= 4294967296.0 || uint(abs(f)) > m)";
        toward = "(abs(f) < 4294967296.0 && uint(abs(f)) < m)";
      }
      const char *mag =
          from->kind == KL_TYPE_DOUBLE ? ""
          : from->size == 8
              ? (kl_type_is_signed(from)
                     ? "uint64_t m = x < $T(0) ? uint64_t(0) - uint64_t(x) : uint64_t(x); "
                     : "uint64_t m = uint64_t(x); ")
              : (kl_type_is_signed(from) ? "uint m = x < $T(0) ? 0u - uint(x) : uint(x); "
                                         : "uint m = uint(x); ");
      const char *fix_away = rm == KL_ROUND_RTZ ? "true" : rm == KL_ROUND_RTP ? "neg" : "!neg";
      const char *fix_toward = rm == KL_ROUND_RTZ ? "false" : rm == KL_ROUND_RTP ? "!neg" : "neg";
      const char *tmpl = kl_format(
          e->ctx,
          "float %s($T x) { precise float f = float(x); if (isinf(f) || isnan(f) || f == 0.0) "
          "return f; %sbool neg = x < $T(0); "
          "if (%s && %s) f = uintBitsToFloat(floatBitsToUint(f) - 1u); "
          "else if (%s && %s) f = uintBitsToFloat(floatBitsToUint(f) + 1u); return f; }",
          name, mag, fix_away, away, fix_toward, toward);
      if (from->kind != KL_TYPE_DOUBLE && from->size == 4) {
        /* From the bits, so that no compiler fold of uint(float(m)) to m
         * can hide the rounding: the magnitude truncated to 24 significant
         * bits converts exactly, then one ulp up where the mode rounds the
         * magnitude up and bits were lost. */
        const char *up = rm == KL_ROUND_RTZ ? "false" : rm == KL_ROUND_RTP ? "!neg" : "neg";
        tmpl = kl_format(e->ctx,
                         "float %s($T x) { %sbool neg = x < $T(0); int s = findMSB(m) - 23; "
                         "if (s <= 0) return float(x); uint t = (m >> uint(s)) << uint(s); "
                         "float f = float(t); if (t != m && %s) f = "
                         "uintBitsToFloat(floatBitsToUint(f) + 1u); return neg ? -f : f; }",
                         name, mag, up);
      }
      glsl_helper(e, name, x->type, from, to, 1, NULL, tmpl, NULL);
      glsl_call(e, name, x);
      return;
    }
    klg_printf(o, "%s(", tt);
    glsl_expr(e, x);
    klg_puts(o, ")");
    return;
  }
  if (kl_type_is_floating(from)) {
    const char *round = rm == KL_ROUND_RTE   ? "roundEven"
                        : rm == KL_ROUND_RTP ? "ceil"
                        : rm == KL_ROUND_RTN ? "floor"
                                             : "";
    if (from->kind == KL_TYPE_DOUBLE && (round[0] || b->saturate)) /* exact on every device */
      round = glsl_fp64_rounding(e,
                                 rm == KL_ROUND_RTE   ? "rint"
                                 : rm == KL_ROUND_RTP ? "ceil"
                                 : rm == KL_ROUND_RTN ? "floor"
                                                      : "trunc",
                                 b->saturate ? from : x->type, n->location);
    if (!b->saturate) {
      klg_printf(o, "%s(%s(", tt, round);
      glsl_expr(e, x);
      klg_puts(o, "))");
      return;
    }
    /* saturate: NaN -> 0, clamp to the range */
    const char *fs = glsl_scalar(e, from, n->location);
    const char *name = kl_format(e->ctx, "_cl_sat_%s_%s%s", fs, glsl_scalar(e, to, n->location),
                                 round[0] ? round : "trunc");
    const char *tmpl = kl_format(
        e->ctx,
        "$T %s(%s x) { %s r = %s(x); if (isnan(x)) return $T(0); if (r <= %s($MIN)) return $MIN; "
        "if (r >= %s($MAX)) return $MAX; return $T(r); }",
        name, fs, fs, round[0] ? round : "trunc", fs, fs);
    glsl_helper(e, name, n->type, to, to, 1, NULL, tmpl, NULL);
    if (klg_is_vector(n->type)) {
      /* the vector overload takes the source vector type */
      const char *key = kl_format(e->ctx, "%s/vsrc%d", name, n->type->length);
      if (glsl_need(e, key)) {
        const char *st = glsl_type(e, x->type, n->location);
        klg_printf(
            &e->helpers,
            "%s %s(%s a) { %s r; for (int i = 0; i < %d; i++) r[i] = %s(a[i]); return r; }\n", tt,
            name, st, tt, n->type->length, name);
      }
    }
    klg_printf(o, "%s(", name);
    glsl_expr(e, x);
    klg_puts(o, ")");
    return;
  }
  /* integer -> integer */
  if (!b->saturate) {
    klg_printf(o, "%s(", tt);
    glsl_expr(e, x);
    klg_puts(o, ")");
    return;
  }
  const char *fs = glsl_scalar(e, from, n->location), *ts = glsl_scalar(e, to, n->location);
  const char *name = kl_format(e->ctx, "_cl_sat_%s_%s", fs, ts);
  const char *body;
  bool fsig = kl_type_is_signed(from), tsig = kl_type_is_signed(to);
  int fb = glsl_bits(from), tb = glsl_bits(to);
  /* compare in a type that holds both: the wider, signed if either is */
  if (fsig && !tsig) {
    body = fb > tb ? "if (x < %1$s(0)) return $T(0); if (x > %1$s($MAX)) return $MAX; return $T(x);"
                   : "if (x < %1$s(0)) return $T(0); return $T(x);";
  } else if (!fsig && tsig) {
    body = fb >= tb ? "if (x > %1$s($MAX)) return $MAX; return $T(x);" : "return $T(x);";
  } else {
    body = fb > tb
               ? "if (x < %1$s($MIN)) return $MIN; if (x > %1$s($MAX)) return $MAX; return $T(x);"
               : "return $T(x);";
  }
  char filled[512];
  snprintf(filled, sizeof filled, body, fs);
  const char *tmpl = kl_format(e->ctx, "$T %s(%s x) { %s }", name, fs, filled);
  glsl_helper(e, name, n->type, to, to, 1, NULL, tmpl, NULL);
  if (klg_is_vector(n->type)) {
    const char *key = kl_format(e->ctx, "%s/vsrc%d", name, n->type->length);
    if (glsl_need(e, key)) {
      const char *st = glsl_type(e, x->type, n->location);
      klg_printf(&e->helpers,
                 "%s %s(%s a) { %s r; for (int i = 0; i < %d; i++) r[i] = %s(a[i]); return r; }\n",
                 tt, name, st, tt, n->type->length, name);
    }
  }
  klg_printf(o, "%s(", name);
  glsl_expr(e, x);
  klg_puts(o, ")");
}

void glsl_as(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_node *x = n->args;
  const kl_type *to = n->type, *from = x->type;
  const kl_type *ts = kl_type_scalar_of(to), *fs = kl_type_scalar_of(from);
  int tl = klg_is_vector(to) ? to->length : 1, fl = klg_is_vector(from) ? from->length : 1;
  if (tl == 3) tl = 4;
  if (fl == 3) fl = 4;
  const char *tt = glsl_type(e, to, n->location);
  if (tl != fl || ts->size != fs->size || (klg_is_vector(to) && to->length != from->length)) {
    /* different element sizes: through pack/unpack of 32-bit words */
    if (to->size == 8 && from->size == 8 && tl * ts->size == 8 && fl * fs->size == 8) {
      const char *words;
      if (fs->kind == KL_TYPE_DOUBLE)
        words = "unpackDouble2x32(%s)";
      else if (fl == 1)
        words = "unpackUint2x32(uint64_t(%s))";
      else if (fs->size == 4)
        words = kl_type_is_floating(fs) ? "floatBitsToUint(%s)" : "uvec2(%s)";
      else
        words = NULL;
      const char *xs = glsl_text_of(e, x);
      if (words) {
        const char *w = kl_format(e->ctx, words, xs);
        if (ts->kind == KL_TYPE_DOUBLE) {
          klg_printf(o, "packDouble2x32(%s)", w);
          return;
        }
        if (tl == 1) {
          e->caps |= KL_GLSL_NEEDS_INT64;
          klg_printf(o, "%s(packUint2x32(%s))", tt, w);
          return;
        }
        if (ts->size == 4) {
          if (kl_type_is_floating(ts))
            klg_printf(o, "uintBitsToFloat(%s)", w);
          else
            klg_printf(o, "%s(%s)", tt, w);
          return;
        }
      }
    }
    if (to->size == 4 && from->size == 4) {
      const char *xs = glsl_text_of(e, x);
      const char *word;
      if (fl == 1)
        word = kl_type_is_floating(fs) ? kl_format(e->ctx, "floatBitsToUint(%s)", xs)
                                       : kl_format(e->ctx, "uint(%s)", xs);
      else if (fs->size == 1)
        word = kl_format(e->ctx, "pack32(u8vec4(%s))", xs);
      else
        word = kl_format(e->ctx, "pack32(u16vec2(%s))", xs);
      if (tl == 1) {
        if (kl_type_is_floating(ts))
          klg_printf(o, "uintBitsToFloat(%s)", word);
        else
          klg_printf(o, "%s(%s)", tt, word);
      } else if (ts->size == 1) {
        klg_printf(o, "%s(unpack8(%s))", tt, word);
      } else {
        klg_printf(o, "%s(unpack16(%s))", tt, word);
      }
      return;
    }
    glsl_fail(e, n->location, "this as_T reinterpretation");
    return;
  }
  /* same element size and count: component-wise */
  bool ff = kl_type_is_floating(fs), tf = kl_type_is_floating(ts);
  if (ff == tf) {
    klg_printf(o, "%s(", tt);
    glsl_expr(e, x);
    klg_puts(o, ")");
  } else if (ff) {
    const char *fn = fs->size == 8
                         ? (kl_type_is_signed(ts) ? "doubleBitsToInt64" : "doubleBitsToUint64")
                         : (kl_type_is_signed(ts) ? "floatBitsToInt" : "floatBitsToUint");
    if (fs->size == 2) fn = kl_type_is_signed(ts) ? "float16BitsToInt16" : "float16BitsToUint16";
    if (fs->size == 8) e->caps |= KL_GLSL_NEEDS_INT64;
    klg_printf(o, "%s(", fn);
    glsl_expr(e, x);
    klg_puts(o, ")");
  } else {
    const char *fn = ts->size == 8
                         ? (kl_type_is_signed(fs) ? "int64BitsToDouble" : "uint64BitsToDouble")
                         : (kl_type_is_signed(fs) ? "intBitsToFloat" : "uintBitsToFloat");
    if (ts->size == 2) fn = kl_type_is_signed(fs) ? "int16BitsToFloat16" : "uint16BitsToFloat16";
    if (ts->size == 8) e->caps |= KL_GLSL_NEEDS_INT64;
    if (fs->kind == KL_TYPE_SIZE_T || fs->kind == KL_TYPE_PTRDIFF_T) {
      glsl_fail(e, n->location, "as_T of size_t");
      return;
    }
    klg_printf(o, "%s(", fn);
    glsl_expr(e, x);
    klg_puts(o, ")");
  }
}

/* fmod is exact in OpenCL (x - y * trunc(x / y) is not): long division
 * of the significands, one bit per exponent step, as C libraries do. */
/* fma on float, correctly rounded without a fused operation (lavapipe does
 * not fuse): the product split exactly (Veltkamp/Dekker), two exact sums,
 * the low parts added with rounding to odd, then one rounding to nearest
 * (Boldo and Melquiond's emulation). Every step is exact within
 * |a|, |b| < 2^100, 2^-100 < |a*b| < 2^120, |c| < 2^120; outside, the
 * unfused a * b + c. */
static const char fma_float[] =
    "float _cl_fma(float a, float b, float c) {\n"
    "  precise float p = a * b;\n"
    "  if (isinf(p) || isnan(p) || isinf(c) || isnan(c) || abs(a) >= 1.0e30 || abs(b) >= 1.0e30 "
    "||\n"
    "      abs(p) <= 7.9e-31 || abs(p) >= 1.3e36 || abs(c) >= 1.3e36) {\n"
    "    precise float r = p + c;\n"
    "    return r;\n"
    "  }\n"
    "  precise float sa = 4097.0 * a, ah = sa - (sa - a), al = a - ah;\n"
    "  precise float sb = 4097.0 * b, bh = sb - (sb - b), bl = b - bh;\n"
    "  precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;\n"
    "  precise float th = c + e, tv = th - c, tl = (c - (th - tv)) + (e - tv);\n"
    "  precise float vh = p + th, vv = vh - p, vl = (p - (vh - vv)) + (th - vv);\n"
    "  precise float z = vl + tl, zv = z - vl, ze = (vl - (z - zv)) + (tl - zv);\n"
    "  uint zb = floatBitsToUint(z);\n"
    "  if (ze != 0.0 && (zb & 1u) == 0u) z = uintBitsToFloat((ze > 0.0) == (z > 0.0) ? zb + 1u : "
    "zb - 1u);\n"
    "  precise float r = vh + z;\n"
    "  return r;\n"
    "}";

/* log, log2 and log10 on float within about 2 ulp (GLSL's log is log2 * ln 2
 * with an absolute error bound: hundreds of ulp near 1 on lavapipe). x =
 * 2^k m with m in [sqrt(1/2), sqrt(2)]; ln m = 2 atanh(s), s = f / (2 + f),
 * f = m - 1, written as f - (f^2/2 - s (f^2/2 + R)) so that the rounding
 * errors scale with f^2 (R: the series to s^9, truncated below 2^-28).
 * _cl_logr gives (k, ln m) for finite x > 0. */
static const char log_reduce[] =
    "vec2 _cl_logr(float x) {\n"
    "  precise float y = x;\n"
    "  int k = 0;\n"
    "  if (y < 1.17549435e-38) { y = y * 33554432.0; k = -25; }\n"
    "  uint u = floatBitsToUint(y);\n"
    "  k += int(u >> 23) - 127;\n"
    "  precise float m = uintBitsToFloat((u & 0x7fffffu) | 0x3f800000u);\n"
    "  if (m > 1.41421354) { m = m * 0.5; k += 1; }\n"
    "  precise float f = m - 1.0, hf = 0.5 * f * f, s = f / (2.0 + f), z = s * s;\n"
    "  precise float r = z * (0.666666687 + z * (0.400000006 + z * (0.285714298 + z * "
    "0.222222224)));\n"
    "  precise float l = f - (hf - s * (hf + r));\n"
    "  return vec2(float(k), l);\n"
    "}";
/* the special cases, then %s: the result from k and l */
static const char log_float[] =
    "float %s(float x) {\n"
    "  if (isnan(x) || (isinf(x) && x > 0.0)) return x;\n"
    "  if (x == 0.0) return uintBitsToFloat(0xff800000u);\n"
    "  if (x < 0.0) return uintBitsToFloat(0x7fc00000u);\n"
    "  vec2 kl = _cl_logr(x);\n"
    "  precise float k = kl.x, l = kl.y, r = %s;\n"
    "  return r;\n"
    "}";

/* atan and atan2 on float within about 2 ulp (lavapipe's atan has an
 * absolute error near 1e-6: hundreds of ulp). _cl_atanr: atan(t) for
 * t >= 0 (inf included): 1/t above 1 (pi/2 minus), t' = (t sqrt3 - 1) /
 * (sqrt3 + t) above tan(pi/12) (pi/6 plus), then the odd series to t^15
 * (truncated below 2^-30 for |t| <= tan(pi/12)); constants with low parts. */
static const char atan_reduce[] =
    "float _cl_atanr(float t) {\n"
    "  precise float a = t;\n"
    "  bool inv = a > 1.0;\n"
    "  if (inv) a = 1.0 / a;\n"
    "  bool mid = a > 0.267949194;\n"
    "  if (mid) a = (a * 1.73205078 - 1.0) / (1.73205078 + a);\n"
    "  precise float z = a * a;\n"
    "  precise float p = a + a * z * (-0.333333343 + z * (0.200000003 + z * (-0.142857149 + z * "
    "(0.111111112 + z * (-0.0909090936 + z * (0.0769230798 + z * -0.0666666701))))));\n"
    "  if (mid) p = 0.52359879 + (p + -1.45704631e-08);\n"
    "  if (inv) p = 1.57079637 + (-4.37113883e-08 - p);\n"
    "  return p;\n"
    "}";
static const char atan_float[] =
    "float _cl_atan(float x) {\n"
    "  return uintBitsToFloat(floatBitsToUint(_cl_atanr(abs(x))) | (floatBitsToUint(x) & "
    "0x80000000u));\n"
    "}";
static const char atan2_float[] =
    "float _cl_atan2(float y, float x) {\n"
    "  if (isnan(x) || isnan(y)) return x + y;\n"
    "  float ax = abs(x), ay = abs(y);\n"
    "  precise float r;\n"
    "  if (isinf(ax) && isinf(ay)) r = 0.785398185;\n"
    "  else if (ay <= ax) r = ax == 0.0 ? 0.0 : _cl_atanr(ay / ax);\n"
    "  else r = 1.57079637 + (-4.37113883e-08 - _cl_atanr(ax / ay));\n"
    "  if (floatBitsToUint(x) >= 0x80000000u) r = 3.14159274 + (-8.74227766e-08 - r);\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(y) & 0x80000000u));\n"
    "}";

static const char asin_float[] =
    "float _cl_asin(float x) { return _cl_atan2(x, sqrt((1.0 - x) * (1.0 + x))); }";
static const char acos_float[] =
    "float _cl_acos(float x) { return _cl_atan2(sqrt((1.0 - x) * (1.0 + x)), x); }";

/* Defines _cl_atanr and, when two, _cl_atan2 (scalars) for the helpers
 * that call them. */
static void atan_helpers(glsl_emitter *e, const kl_type *f, bool two) {
  glsl_helper(e, "_cl_atanr", f, f, f, 1, NULL, atan_reduce, NULL);
  if (two) glsl_helper(e, "_cl_atan2", f, f, f, 2, NULL, atan2_float, NULL);
}

/* Defines the float atan, atan2, asin or acos helper for type t (a float
 * scalar or vector) with what it calls; gives its name. */
static const char *inverse_trig(glsl_emitter *e, kl_builtin_id id, const kl_type *t) {
  const kl_type *f = kl_type_scalar_of(t);
  atan_helpers(e, f, id != KL_BUILTIN_ATAN);
  if (id == KL_BUILTIN_ATAN) {
    glsl_helper(e, "_cl_atan", t, f, f, 1, NULL, atan_float, NULL);
    return "_cl_atan";
  }
  if (id == KL_BUILTIN_ATAN2) {
    glsl_helper(e, "_cl_atan2", t, f, f, 2, NULL, atan2_float, NULL);
    return "_cl_atan2";
  }
  bool is_asin = id == KL_BUILTIN_ASIN;
  const char *name = is_asin ? "_cl_asin" : "_cl_acos";
  glsl_helper(e, name, t, f, f, 1, NULL, is_asin ? asin_float : acos_float, NULL);
  return name;
}

/* exp on float within about 1 ulp (lavapipe's is exp2(x * log2 e): 9 ulp):
 * x = k ln 2 + r, |r| <= ln(2)/2, with ln 2 split so that k ln2_hi is exact
 * and x - k ln2_hi too; e^r by its series to r^7 (truncated below 2^-27);
 * 2^k in two exact factors so that a subnormal result rounds once. */
static const char exp_float[] =
    "float _cl_exp(float x) {\n"
    "  if (isnan(x)) return x;\n"
    "  if (x > 89.0) return uintBitsToFloat(0x7f800000u);\n"
    "  if (x < -104.0) return 0.0;\n"
    "  precise float k = floor(x * 1.44269502 + 0.5);\n"
    "  precise float r = (x - k * 0.693145752) - k * 1.42860677e-06;\n"
    "  precise float p = 1.0 + r * (1.0 + r * (0.5 + r * (0.166666672 + r * (0.0416666679 + r * "
    "(0.00833333377 + r * (0.00138888892 + r * 0.000198412701))))));\n"
    "  int k1 = int(k) / 2, k2 = int(k) - k1;\n"
    "  precise float y = p * uintBitsToFloat(uint(k1 + 127) << 23) * uintBitsToFloat(uint(k2 + "
    "127) << 23);\n"
    "  return y;\n"
    "}";

/* log1p and expm1 from the accurate log and exp: the rounding of u = 1 + x
 * (u = e^x) is undone by the factor x / (u - 1) (log u / (u - 1)), exact in
 * the subtraction (Kahan's way). */
static const char log1p_float[] =
    "float _cl_log1p(float x) {\n"
    "  precise float u = 1.0 + x;\n"
    "  if (u == 1.0 || isnan(x) || (isinf(x) && x > 0.0)) return x;\n"
    "  if (x <= -1.0) return _cl_log(u + 0.0 * x);\n"
    "  precise float r = _cl_log(u) * (x / (u - 1.0));\n"
    "  return r;\n"
    "}";
static const char expm1_float[] =
    "float _cl_expm1(float x) {\n"
    "  if (isnan(x) || abs(x) < 5.96046448e-08) return x;\n"
    "  if (x > 88.0) return _cl_exp(x);\n"
    "  if (x < -18.0) return -1.0;\n"
    "  precise float u = _cl_exp(x);\n"
    "  if (u == 1.0) return x;\n"
    "  precise float um = u - 1.0;\n"
    "  if (um == -1.0) return -1.0;\n"
    "  precise float r = um * (x / _cl_log(u));\n"
    "  return r;\n"
    "}";

/* sinh, cosh and tanh on float within about 3 ulp (lavapipe's are hundreds
 * to thousands of ulp off near 0): from expm1 below 9 (no cancellation),
 * from exp(|x| / 2) squared above (so that e^|x| / 2 does not overflow
 * first). */
static const char sinh_float[] =
    "float _cl_sinh(float x) {\n"
    "  precise float a = abs(x), r;\n"
    "  if (isnan(x) || a < 2.44140625e-04) return x;\n"
    "  if (a < 9.0) { precise float m = _cl_expm1(a); r = 0.5 * (m + m / (m + 1.0)); }\n"
    "  else { precise float h = _cl_exp(0.5 * a); r = (0.5 * h) * h; }\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));\n"
    "}";
static const char cosh_float[] =
    "float _cl_cosh(float x) {\n"
    "  precise float a = abs(x), r;\n"
    "  if (isnan(x)) return x;\n"
    "  if (a < 9.0) { precise float u = _cl_exp(a); r = 0.5 * (u + 1.0 / u); }\n"
    "  else { precise float h = _cl_exp(0.5 * a); r = (0.5 * h) * h; }\n"
    "  return r;\n"
    "}";
static const char tanh_float[] =
    "float _cl_tanh(float x) {\n"
    "  precise float a = abs(x), r;\n"
    "  if (isnan(x) || a < 2.44140625e-04) return x;\n"
    "  if (a > 9.1) r = 1.0;\n"
    "  else { precise float m = _cl_expm1(2.0 * a); r = m / (m + 2.0); }\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));\n"
    "}";

/* asinh, acosh and atanh on float from the accurate log1p (lavapipe's are
 * up to 31944 ulp off near 0): no cancellation below 4096, log x + ln 2
 * above (where x^2 would overflow first). */
static const char asinh_float[] =
    "float _cl_asinh(float x) {\n"
    "  precise float a = abs(x), r;\n"
    "  if (isnan(x) || isinf(x) || a < 2.44140625e-04) return x;\n"
    "  if (a > 4096.0) r = _cl_log(a) + 0.693147182;\n"
    "  else r = _cl_log1p(a + a * a / (1.0 + sqrt(1.0 + a * a)));\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));\n"
    "}";
static const char acosh_float[] =
    "float _cl_acosh(float x) {\n"
    "  if (isnan(x) || x < 1.0) return isnan(x) ? x : uintBitsToFloat(0x7fc00000u);\n"
    "  if (isinf(x)) return x;\n"
    "  if (x > 4096.0) { precise float r = _cl_log(x) + 0.693147182; return r; }\n"
    "  precise float t = x - 1.0, r = _cl_log1p(t + sqrt(2.0 * t + t * t));\n"
    "  return r;\n"
    "}";
static const char atanh_float[] =
    "float _cl_atanh(float x) {\n"
    "  precise float a = abs(x);\n"
    "  if (isnan(x) || a < 2.44140625e-04) return x;\n"
    "  if (a > 1.0) return uintBitsToFloat(0x7fc00000u);\n"
    "  precise float r = 0.5 * _cl_log1p(2.0 * a / (1.0 - a));\n"
    "  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));\n"
    "}";

/* The text of _cl_log, _cl_log2 or _cl_log10 (float). */
static const char *log_function(glsl_emitter *e, kl_builtin_id id) {
  const char *name = id == KL_BUILTIN_LOG    ? "_cl_log"
                     : id == KL_BUILTIN_LOG2 ? "_cl_log2"
                                             : "_cl_log10";
  /* k times a constant split so that its high part times k is exact */
  const char *combine = id == KL_BUILTIN_LOG ? "k * 0.693145752 + (l + k * 1.42860677e-06)"
                        : id == KL_BUILTIN_LOG2
                            ? "k + l * 1.44269502"
                            : "k * 0.30102539 + (l * 0.434294492 + k * 4.60503907e-06)";
  return kl_format(e->ctx, log_float, name, combine);
}

/* The float-math helpers above, with the helpers each calls: defining one
 * defines its callees first (GLSL wants a function before its first call). */
typedef struct float_math_helper {
  kl_builtin_id builtin; /* KL_BUILTIN_COUNT: internal to the others */
  const char *name;
  const char *text; /* NULL: the log family, printed by log_function() */
  const char *calls[2];
} float_math_helper;

static const float_math_helper float_math_helpers[] = {
    {KL_BUILTIN_COUNT, "_cl_logr", log_reduce, {NULL, NULL}},
    {KL_BUILTIN_LOG, "_cl_log", NULL, {"_cl_logr", NULL}},
    {KL_BUILTIN_LOG2, "_cl_log2", NULL, {"_cl_logr", NULL}},
    {KL_BUILTIN_LOG10, "_cl_log10", NULL, {"_cl_logr", NULL}},
    {KL_BUILTIN_EXP, "_cl_exp", exp_float, {NULL, NULL}},
    {KL_BUILTIN_LOG1P, "_cl_log1p", log1p_float, {"_cl_log", NULL}},
    {KL_BUILTIN_EXPM1, "_cl_expm1", expm1_float, {"_cl_exp", "_cl_log"}},
    {KL_BUILTIN_SINH, "_cl_sinh", sinh_float, {"_cl_exp", "_cl_expm1"}},
    {KL_BUILTIN_COSH, "_cl_cosh", cosh_float, {"_cl_exp", NULL}},
    {KL_BUILTIN_TANH, "_cl_tanh", tanh_float, {"_cl_expm1", NULL}},
    {KL_BUILTIN_ASINH, "_cl_asinh", asinh_float, {"_cl_log", "_cl_log1p"}},
    {KL_BUILTIN_ACOSH, "_cl_acosh", acosh_float, {"_cl_log", "_cl_log1p"}},
    {KL_BUILTIN_ATANH, "_cl_atanh", atanh_float, {"_cl_log1p", NULL}},
};

static const float_math_helper *float_math_find(const char *name, kl_builtin_id builtin) {
  for (size_t i = 0; i < sizeof float_math_helpers / sizeof float_math_helpers[0]; i++) {
    const float_math_helper *h = &float_math_helpers[i];
    if (name ? strcmp(h->name, name) == 0 : h->builtin == builtin) return h;
  }
  return NULL;
}

static const char *float_math_text(glsl_emitter *e, const float_math_helper *h) {
  return h->text ? h->text : log_function(e, h->builtin);
}

/* Defines, as scalar float functions, everything `h` calls. */
static void float_math_define_callees(glsl_emitter *e, const float_math_helper *h) {
  const kl_type *f = kl_type_scalar(e->ctx, KL_TYPE_FLOAT);
  for (int i = 0; i < 2 && h->calls[i]; i++) {
    const float_math_helper *callee = float_math_find(h->calls[i], KL_BUILTIN_COUNT);
    float_math_define_callees(e, callee);
    glsl_helper(e, callee->name, f, f, f, 1, NULL, float_math_text(e, callee), NULL);
  }
}

/* The helper behind a float builtin, its callees defined; the caller
 * defines the helper itself for the argument's shape. */
static const float_math_helper *float_math_prepare(glsl_emitter *e, kl_builtin_id builtin) {
  const float_math_helper *h = float_math_find(NULL, builtin);
  float_math_define_callees(e, h);
  return h;
}

static const char fmod_float[] =
    "float _cl_fmod(float x, float y) { uint ux = floatBitsToUint(x), uy = floatBitsToUint(y); "
    "uint sign = ux & 0x80000000u; ux &= 0x7fffffffu; uy &= 0x7fffffffu; "
    "if (uy == 0u || ux >= 0x7f800000u || uy > 0x7f800000u) return uintBitsToFloat(0x7fc00000u); "
    "if (ux < uy) return x; if (ux == uy) return uintBitsToFloat(sign); "
    "int ex = int(ux >> 23), ey = int(uy >> 23); uint mx, my; "
    "if (ex == 0) { mx = ux; ex = 1; while (mx < 0x800000u) { mx <<= 1; ex--; } } "
    "else mx = (ux & 0x7fffffu) | 0x800000u; "
    "if (ey == 0) { my = uy; ey = 1; while (my < 0x800000u) { my <<= 1; ey--; } } "
    "else my = (uy & 0x7fffffu) | 0x800000u; "
    "for (; ex > ey; ex--) { if (mx >= my) mx -= my; mx <<= 1; } "
    "if (mx >= my) mx -= my; if (mx == 0u) return uintBitsToFloat(sign); "
    "while (mx < 0x800000u) { mx <<= 1; ex--; } "
    "uint r = ex > 0 ? (mx - 0x800000u) | (uint(ex) << 23) : mx >> uint(1 - ex); "
    "return uintBitsToFloat(r | sign); }";
static const char fmod_double[] =
    "double _cl_fmod(double x, double y) { uint64_t ux = doubleBitsToUint64(x), uy = "
    "doubleBitsToUint64(y); uint64_t sign = ux & 0x8000000000000000ul; ux &= "
    "0x7ffffffffffffffful; uy &= 0x7ffffffffffffffful; const uint64_t top = 0x10000000000000ul; "
    "if (uy == 0ul || ux >= 0x7ff0000000000000ul || uy > 0x7ff0000000000000ul) return "
    "uint64BitsToDouble(0x7ff8000000000000ul); "
    "if (ux < uy) return x; if (ux == uy) return uint64BitsToDouble(sign); "
    "int ex = int(ux >> 52), ey = int(uy >> 52); uint64_t mx, my; "
    "if (ex == 0) { mx = ux; ex = 1; while (mx < top) { mx <<= 1; ex--; } } "
    "else mx = (ux & (top - 1ul)) | top; "
    "if (ey == 0) { my = uy; ey = 1; while (my < top) { my <<= 1; ey--; } } "
    "else my = (uy & (top - 1ul)) | top; "
    "for (; ex > ey; ex--) { if (mx >= my) mx -= my; mx <<= 1; } "
    "if (mx >= my) mx -= my; if (mx == 0ul) return uint64BitsToDouble(sign); "
    "while (mx < top) { mx <<= 1; ex--; } "
    "uint64_t r = ex > 0 ? (mx - top) | (uint64_t(ex) << 52) : mx >> uint(1 - ex); "
    "return uint64BitsToDouble(r | sign); }";

/* remquo on float, exact (x - y * roundEven(x / y) is not): the remainder
 * of |x| by 2|y| (exact fmod) is brought to the nearest multiple of |y|,
 * ties to the even quotient, with exact subtractions (Sterbenz); the low
 * three bits of the quotient come from fmod by 2, 4 and 8 times |y|
 * (scaled down by 2^-32 first when |y| is so large that 8|y| overflows);
 * a non-zero quotient whose three low bits are 0 gives 8, to keep its
 * sign. */
static const char remquo_float[] =
    "float _cl_remquo(float x, float y, out int q) { q = 0; "
    "if (isnan(x) || isnan(y) || isinf(x) || y == 0.0) return uintBitsToFloat(0x7fc00000u); "
    "if (isinf(y)) return x; "
    "float ax = abs(x), ay = abs(y), sx = ax, sy = ay; "
    "if (ay > 4.0e37) { sx = ax * 2.3283064e-10; sy = ay * 2.3283064e-10; } "
    "int low = (_cl_fmod(sx, sy * 8.0) >= sy * 4.0 ? 4 : 0) | (_cl_fmod(sx, sy * 4.0) >= sy * 2.0 "
    "? 2 "
    ": 0); "
    "float r = ay <= 1.7014117e38 ? _cl_fmod(ax, ay + ay) : ax; int m = 0; "
    "if (r + r > ay) { r -= ay; m = 1; if (r + r >= ay) { r -= ay; m = 2; } } "
    "int n = (low + m) & 7; "
    "if (n == 0 && (m > 0 || (ay <= 1.7014117e38 && ax >= ay + ay))) n = 8; /* keeps the sign */ "
    "q = (x < 0.0) != (y < 0.0) ? -n : n; "
    "return x < 0.0 ? -r : r; }";

static void exact_remainder(glsl_emitter *e) {
  const kl_type *f = kl_type_scalar(e->ctx, KL_TYPE_FLOAT);
  glsl_helper(e, "_cl_fmod", f, f, f, 2, NULL, fmod_float, NULL);
  if (glsl_need(e, "_cl_remquo/float")) {
    klg_puts(&e->helpers, remquo_float);
    klg_puts(&e->helpers, "\n");
  }
}

/* The object an out-pointer argument names, as a GLSL lvalue. */
const char *glsl_out_lvalue(glsl_emitter *e, const kl_node *p) {
  klg_buf *saved = e->out;
  klg_buf tmp;
  klg_init(&tmp, e->ctx);
  e->out = &tmp;
  const kl_node *s = klg_strip_convert(p);
  if (s->kind == KL_EXPR_UNARY && s->op == KL_OP_ADDRESS_OF && !klg_is_pointer(s->lhs->type))
    glsl_expr_mode(e, s->lhs, ACCESS_WRITE);
  else
    glsl_element(e, p, NULL, ACCESS_WRITE, p->location);
  e->out = saved;
  return klg_text(&tmp);
}

/* fract, modf, sincos, frexp, remquo: a result and an out-pointer. */
void glsl_out_builtin(glsl_emitter *e, const kl_node *n) {
  const kl_builtin *b = n->builtin;
  const kl_node *x = n->args, *y = x->next;
  const char *t = glsl_type(e, n->type, n->location);
  const char *xs = glsl_text_of(e, x);
  if (kl_type_scalar_of(n->type)->kind == KL_TYPE_DOUBLE &&
      (b->id == KL_BUILTIN_SINCOS || b->id == KL_BUILTIN_REMQUO || b->id == KL_BUILTIN_LGAMMA_R ||
       b->id == KL_BUILTIN_MODF || b->id == KL_BUILTIN_FRACT)) {
    if (!glsl_fp64_out_call(e, n))
      glsl_fail(e, n->location,
                kl_format(e->ctx, "%s on double (GLSL has it for float only)", b->canonical));
    return;
  }
  switch (b->id) {
    case KL_BUILTIN_MODF:
      klg_printf(e->out, "modf(%s, %s)", xs, glsl_out_lvalue(e, y));
      return;
    case KL_BUILTIN_FREXP:
      klg_printf(e->out, "frexp(%s, %s)", xs, glsl_out_lvalue(e, y));
      return;
    case KL_BUILTIN_FRACT: {
      const char *name = "_cl_fract";
      if (glsl_need(e, kl_format(e->ctx, "_cl_fract/%s", t))) {
        const char *limit = kl_type_scalar_of(n->type)->kind == KL_TYPE_DOUBLE
                                ? "0.99999999999999989lf"
                                : "0.99999994";
        klg_printf(&e->helpers,
                   "%s _cl_fract(%s x, out %s i) { i = floor(x); return min(x - i, %s(%s)); }\n", t,
                   t, t, t, limit);
      }
      klg_printf(e->out, "%s(%s, %s)", name, xs, glsl_out_lvalue(e, y));
      return;
    }
    case KL_BUILTIN_SINCOS:
      if (glsl_need(e, kl_format(e->ctx, "_cl_sincos/%s", t)))
        klg_printf(&e->helpers, "%s _cl_sincos(%s x, out %s c) { c = cos(x); return sin(x); }\n", t,
                   t, t);
      klg_printf(e->out, "_cl_sincos(%s, %s)", xs, glsl_out_lvalue(e, y));
      return;
    case KL_BUILTIN_REMQUO: {
      const kl_node *q = y->next;
      const char *qt = glsl_type(e, q->type->element, n->location);
      if (kl_type_scalar_of(n->type)->kind != KL_TYPE_FLOAT) {
        glsl_fail(e, n->location, "remquo on this type");
        return;
      }
      exact_remainder(e);
      if (klg_is_vector(n->type) && glsl_need(e, kl_format(e->ctx, "_cl_remquo/%s", t)))
        klg_printf(
            &e->helpers,
            "%s _cl_remquo(%s x, %s y, out %s q) { %s r; for (int i = 0; i < %d; i++) { int k; "
            "r[i] = _cl_remquo(x[i], y[i], k); q[i] = k; } return r; }\n",
            t, t, t, qt, t, n->type->length);
      klg_printf(e->out, "_cl_remquo(%s, %s, %s)", xs, glsl_text_of(e, y), glsl_out_lvalue(e, q));
      return;
    }
    default:
      glsl_fail(e, n->location, kl_format(e->ctx, "%s (GLSL has no such function)", b->canonical));
      return;
  }
}

/* The type t with float in place of half. */
static const kl_type *float_for_half(glsl_emitter *e, const kl_type *t) {
  if (kl_type_scalar_of(t)->kind != KL_TYPE_HALF) return t;
  return klg_is_vector(t) ? kl_type_vector(e->ctx, KL_TYPE_FLOAT, t->length)
                          : kl_type_scalar(e->ctx, KL_TYPE_FLOAT);
}

/* A math builtin on half: computed in float and rounded back, which meets
 * OpenCL's accuracy for half (the float result is within its ulp bound). */
static void half_through_float(glsl_emitter *e, const kl_node *n) {
  if (n->builtin->rule == KL_RULE_FLOAT_PTR || n->builtin->rule == KL_RULE_FLOAT_INTPTR) {
    glsl_fail(e, n->location, kl_format(e->ctx, "%s on half", n->builtin->canonical));
    return;
  }
  kl_node *copy = kl_alloc(e->ctx, sizeof *copy);
  *copy = *n;
  copy->type = (kl_type *)float_for_half(e, n->type);
  kl_node **link = &copy->args;
  for (const kl_node *a = n->args; a; a = a->next) {
    kl_node *arg = kl_alloc(e->ctx, sizeof *arg);
    if (float_for_half(e, a->type) != a->type) {
      arg->kind = KL_EXPR_CONVERT;
      arg->location = a->location;
      arg->type = (kl_type *)float_for_half(e, a->type);
      arg->lhs = (kl_node *)a;
    } else {
      *arg = *a;
    }
    arg->next = NULL;
    *link = arg;
    link = &arg->next;
  }
  if (copy->type == n->type) {
    glsl_builtin(e, copy);
    return;
  }
  klg_printf(e->out, "%s(", glsl_type(e, n->type, n->location));
  glsl_builtin(e, copy);
  klg_puts(e->out, ")");
}

/* The scalar-helper templates of builtins GLSL lacks or defines otherwise. */
void glsl_builtin(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_builtin *b = n->builtin;
  const kl_node *a0 = n->args, *a1 = a0 ? a0->next : NULL, *a2 = a1 ? a1->next : NULL;
  const kl_type *rt = n->type;
  const kl_type *rs = kl_type_scalar_of(rt);
  const kl_type *as = a0 ? kl_type_scalar_of(a0->type) : rs;
  kl_location at = n->location;
  const char *tmpl = NULL, *name = NULL;
  const float_math_helper *helper = NULL;
  int nargs = n->arg_count;
  const kl_type *arg2 = NULL;
  switch (b->category) {
    case KL_BUILTIN_WORK_ITEM:
      glsl_work_item(e, n, true);
      return;
    case KL_BUILTIN_SYNC:
      if (b->id == KL_BUILTIN_BARRIER) {
        glsl_fail(e, at, "barrier inside an expression");
        return;
      }
      klg_puts(o, glsl_fence(a0));
      return;
    case KL_BUILTIN_ATOMIC:
      glsl_atomic(e, n);
      return;
    case KL_BUILTIN_CONVERSION:
      if (b->id == KL_BUILTIN_CONVERT)
        glsl_convert(e, n);
      else
        glsl_as(e, n);
      return;
    case KL_BUILTIN_MEMORY:
      glsl_vload_store(e, n, b->id == KL_BUILTIN_VSTORE);
      return;
    default:
      break;
  }
  if (rs->kind == KL_TYPE_HALF || as->kind == KL_TYPE_HALF) {
    half_through_float(e, n);
    return;
  }
  /* double math GLSL lacks or defines otherwise: the library's version */
  if (as->kind == KL_TYPE_DOUBLE && b->category == KL_BUILTIN_MATH && glsl_fp64_call(e, n)) return;
  switch (b->id) {
    /* GLSL functions with the same meaning */
    case KL_BUILTIN_ASIN:
    case KL_BUILTIN_ACOS:
    /* own atan with asin and acos from it (some drivers' asin and acos are
     * far less precise than OpenCL's 4 ulp, their atan hundreds of ulp) */
    case KL_BUILTIN_ATAN:
    case KL_BUILTIN_ATAN2:
      if (!glsl_float_only(e, n)) return;
      glsl_call(e, inverse_trig(e, b->id, a0->type), a0);
      return;
    /* float helpers more accurate than the drivers' (see float_math_helpers) */
    case KL_BUILTIN_EXP:
    case KL_BUILTIN_ASINH:
    case KL_BUILTIN_ACOSH:
    case KL_BUILTIN_ATANH:
    case KL_BUILTIN_SINH:
    case KL_BUILTIN_COSH:
    case KL_BUILTIN_TANH:
      if (!glsl_float_only(e, n)) return;
      helper = float_math_prepare(e, b->id);
      name = helper->name;
      tmpl = float_math_text(e, helper);
      break;
    case KL_BUILTIN_COS:
    case KL_BUILTIN_EXP2:
    case KL_BUILTIN_SIN:
    case KL_BUILTIN_TAN:
    case KL_BUILTIN_DEGREES:
    case KL_BUILTIN_RADIANS:
      if (!glsl_float_only(e, n)) return;
      glsl_call(e, b->canonical, a0);
      return;
    case KL_BUILTIN_CEIL:
    case KL_BUILTIN_FLOOR:
    case KL_BUILTIN_SQRT:
    case KL_BUILTIN_TRUNC:
    case KL_BUILTIN_SIGN:
    case KL_BUILTIN_STEP:
    case KL_BUILTIN_SMOOTHSTEP:
    case KL_BUILTIN_CROSS:
    case KL_BUILTIN_DOT:
    case KL_BUILTIN_DISTANCE:
    case KL_BUILTIN_LENGTH:
    case KL_BUILTIN_NORMALIZE:
    case KL_BUILTIN_LDEXP:
      if (b->id == KL_BUILTIN_CROSS && rt->length == 4) {
        const char *t = glsl_type(e, rt, at);
        klg_printf(o, "%s(cross((%s).xyz, (%s).xyz), 0)", t, glsl_text_of(e, a0),
                   glsl_text_of(e, a1));
        return;
      }
      glsl_call(e, b->canonical, a0);
      return;
    case KL_BUILTIN_FAST_DISTANCE:
      glsl_call(e, "distance", a0);
      return;
    case KL_BUILTIN_FAST_LENGTH:
      glsl_call(e, "length", a0);
      return;
    case KL_BUILTIN_FAST_NORMALIZE:
      glsl_call(e, "normalize", a0);
      return;
    case KL_BUILTIN_FABS:
      glsl_call(e, "abs", a0);
      return;
    case KL_BUILTIN_FMAX:
      glsl_call(e, "max", a0);
      return;
    case KL_BUILTIN_FMIN:
      glsl_call(e, "min", a0);
      return;
    case KL_BUILTIN_MAX:
    case KL_BUILTIN_MIN:
    case KL_BUILTIN_CLAMP:
    case KL_BUILTIN_MIX:
      glsl_call(e, b->canonical, a0);
      return;
    case KL_BUILTIN_RINT:
      glsl_call(e, "roundEven", a0);
      return;
    case KL_BUILTIN_RSQRT:
      glsl_call(e, "inversesqrt", a0);
      return;
    case KL_BUILTIN_POWR:
      if (!glsl_float_only(e, n)) return;
      glsl_call(e, "pow", a0);
      return;
    case KL_BUILTIN_MAD:
      klg_puts(o, "(");
      glsl_expr(e, a0);
      klg_puts(o, " * ");
      glsl_expr(e, a1);
      klg_puts(o, " + ");
      glsl_expr(e, a2);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_DIVIDE:
      klg_puts(o, "(");
      glsl_expr(e, a0);
      klg_puts(o, " / ");
      glsl_expr(e, a1);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_RECIP:
      klg_printf(o, "(%s(1) / ", glsl_type(e, rt, at));
      glsl_expr(e, a0);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_LOG:
    case KL_BUILTIN_LOG2:
    case KL_BUILTIN_LOG10:
      if (as->kind == KL_TYPE_FLOAT) {
        helper = float_math_prepare(e, b->id);
        name = helper->name;
        tmpl = float_math_text(e, helper);
        break;
      }
      if (b->id != KL_BUILTIN_LOG10) {
        if (!glsl_float_only(e, n)) return;
        glsl_call(e, b->canonical, a0);
        return;
      }
      /* fall through */
    case KL_BUILTIN_EXP10:
    case KL_BUILTIN_EXPM1:
    case KL_BUILTIN_LOG1P:
    case KL_BUILTIN_SINPI:
    case KL_BUILTIN_COSPI:
    case KL_BUILTIN_TANPI:
    case KL_BUILTIN_ACOSPI:
    case KL_BUILTIN_ASINPI:
    case KL_BUILTIN_ATANPI:
    case KL_BUILTIN_CBRT:
    case KL_BUILTIN_HYPOT:
    case KL_BUILTIN_ATAN2PI: {
      if (!glsl_float_only(e, n)) return;
      const char *x = glsl_text_of(e, a0);
      const char *t = glsl_type(e, rt, at);
      switch (b->id) {
        case KL_BUILTIN_EXP10:
          klg_printf(o, "exp2((%s) * 3.32192809)", x);
          return;
        case KL_BUILTIN_LOG10:
          klg_printf(o, "(log2(%s) * 0.301029996)", x);
          return;
        case KL_BUILTIN_EXPM1:
        case KL_BUILTIN_LOG1P: {
          const kl_type *f = kl_type_scalar_of(rt);
          helper = float_math_prepare(e, b->id);
          glsl_helper(e, helper->name, rt, f, f, 1, NULL, float_math_text(e, helper), NULL);
          klg_printf(o, "%s(%s)", helper->name, x);
          return;
        }
        case KL_BUILTIN_SINPI:
          klg_printf(o, "sin((%s) * 3.14159265)", x);
          return;
        case KL_BUILTIN_COSPI:
          klg_printf(o, "cos((%s) * 3.14159265)", x);
          return;
        case KL_BUILTIN_TANPI:
          klg_printf(o, "tan((%s) * 3.14159265)", x);
          return;
        case KL_BUILTIN_ACOSPI:
          klg_printf(o, "(%s(%s) * 0.318309886)", inverse_trig(e, KL_BUILTIN_ACOS, rt), x);
          return;
        case KL_BUILTIN_ASINPI:
          klg_printf(o, "(%s(%s) * 0.318309886)", inverse_trig(e, KL_BUILTIN_ASIN, rt), x);
          return;
        case KL_BUILTIN_ATANPI:
          klg_printf(o, "(%s(%s) * 0.318309886)", inverse_trig(e, KL_BUILTIN_ATAN, rt), x);
          return;
        case KL_BUILTIN_CBRT:
          klg_printf(o, "(sign(%s) * pow(abs(%s), %s(1.0 / 3.0)))", x, x, t);
          return;
        case KL_BUILTIN_HYPOT: {
          const char *y = glsl_text_of(e, a1);
          if (!klg_is_vector(rt)) {
            klg_printf(o, "length(vec2(%s, %s))", x, y);
            return;
          }
          name = "_cl_hypot";
          tmpl = "$T _cl_hypot($T x, $T y) { return length(vec2(x, y)); }";
          break;
        }
        default: { /* ATAN2PI */
          klg_printf(o, "(%s(%s, %s) * 0.318309886)", inverse_trig(e, KL_BUILTIN_ATAN2, rt), x,
                     glsl_text_of(e, a1));
          return;
        }
      }
      break;
    }
    case KL_BUILTIN_FMOD:
      name = "_cl_fmod";
      tmpl = as->kind == KL_TYPE_DOUBLE ? fmod_double : fmod_float;
      if (as->kind == KL_TYPE_DOUBLE) e->caps |= KL_GLSL_NEEDS_INT64;
      break;
    case KL_BUILTIN_FMA:
      /* double: correctly rounded where the driver fuses it */
      if (as->kind != KL_TYPE_FLOAT || kl_context_traits(e->ctx).fused_fma_float) {
        glsl_call(e, b->canonical, a0);
        return;
      }
      name = "_cl_fma";
      tmpl = fma_float;
      break;
    case KL_BUILTIN_REMAINDER:
      if (as->kind != KL_TYPE_FLOAT) {
        glsl_fail(e, at, kl_format(e->ctx, "remainder on %s", glsl_scalar(e, as, at)));
        return;
      }
      exact_remainder(e);
      name = "_cl_remainder";
      tmpl = "float _cl_remainder(float x, float y) { int q; return _cl_remquo(x, y, q); }";
      break;
    case KL_BUILTIN_FDIM:
      name = "_cl_fdim";
      tmpl =
          "$T _cl_fdim($T x, $T y) { return x > y ? x - y : (isnan(x) || isnan(y) ? x + y : "
          "$T(0)); }";
      break;
    case KL_BUILTIN_ROUND:
      name = "_cl_round";
      tmpl =
          "$T _cl_round($T x) { $T t = trunc(x); return abs(x - t) >= $T(0.5) ? t + sign(x) : t; }";
      break;
    case KL_BUILTIN_COPYSIGN:
      name = "_cl_copysign";
      tmpl = as->kind == KL_TYPE_DOUBLE
                 ? "$T _cl_copysign($T x, $T y) { uvec2 a = unpackDouble2x32(x), b = "
                   "unpackDouble2x32(y); a.y = (a.y & 0x7fffffffu) | (b.y & 0x80000000u); return "
                   "packDouble2x32(a); }"
                 : "$T _cl_copysign($T x, $T y) { return uintBitsToFloat((floatBitsToUint(x) & "
                   "0x7fffffffu) | (floatBitsToUint(y) & 0x80000000u)); }";
      break;
    case KL_BUILTIN_MAXMAG:
      name = "_cl_maxmag";
      tmpl =
          "$T _cl_maxmag($T x, $T y) { $T a = abs(x), b = abs(y); return a > b ? x : (b > a ? y : "
          "max(x, y)); }";
      break;
    case KL_BUILTIN_MINMAG:
      name = "_cl_minmag";
      tmpl =
          "$T _cl_minmag($T x, $T y) { $T a = abs(x), b = abs(y); return a < b ? x : (b < a ? y : "
          "min(x, y)); }";
      break;
    case KL_BUILTIN_POW:
      if (!glsl_float_only(e, n)) return;
      name = "_cl_pow";
      tmpl =
          "$T _cl_pow($T x, $T y) { if (y == $T(0)) return $T(1); if (x > $T(0)) return pow(x, y); "
          "if (x == $T(0)) return y > $T(0) ? $T(0) : uintBitsToFloat(0x7f800000u); "
          "if (y != trunc(y)) return uintBitsToFloat(0x7fc00000u); $T r = pow(-x, y); return "
          "mod(y, $T(2)) != $T(0) ? -r : r; }";
      break;
    case KL_BUILTIN_POWN:
      if (!glsl_float_only(e, n)) return;
      name = "_cl_pown";
      arg2 = kl_type_scalar(e->ctx, KL_TYPE_INT);
      tmpl =
          "$T _cl_pown($T x, int n) { if (n == 0) return $T(1); $T r = x == $T(0) ? (n > 0 ? $T(0) "
          ": uintBitsToFloat(0x7f800000u)) : pow(abs(x), $T(n)); "
          "return ((n & 1) != 0 && x < $T(0)) ? -r : r; }";
      break;
    case KL_BUILTIN_ROOTN:
      if (!glsl_float_only(e, n)) return;
      name = "_cl_rootn";
      arg2 = kl_type_scalar(e->ctx, KL_TYPE_INT);
      tmpl =
          "$T _cl_rootn($T x, int n) { if (x < $T(0) && (n & 1) == 0) return "
          "uintBitsToFloat(0x7fc00000u); $T r = pow(abs(x), $T(1) / $T(n)); return x < $T(0) ? -r "
          ": r; }";
      break;
    case KL_BUILTIN_LOGB:
      name = "_cl_logb";
      tmpl = "$T _cl_logb($T x) { int e; frexp(x, e); return $T(e - 1); }";
      break;
    case KL_BUILTIN_ILOGB:
      name = "_cl_ilogb";
      tmpl = "int _cl_ilogb($T x) { int e; frexp(x, e); return e - 1; }";
      glsl_helper(e, name, a0->type, as, kl_type_scalar(e->ctx, KL_TYPE_INT), 1, NULL, tmpl, NULL);
      glsl_call(e, name, a0);
      return;
    case KL_BUILTIN_NEXTAFTER:
      if (!glsl_float_only(e, n)) return;
      name = "_cl_nextafter";
      tmpl =
          "$T _cl_nextafter($T x, $T y) { if (isnan(x) || isnan(y)) return x + y; if (x == y) "
          "return y; "
          "if (x == $T(0)) return y > $T(0) ? uintBitsToFloat(1u) : uintBitsToFloat(0x80000001u); "
          "uint b = floatBitsToUint(x); b = ((x < y) == (x > $T(0))) ? b + 1u : b - 1u; return "
          "uintBitsToFloat(b); }";
      break;
    case KL_BUILTIN_FRACT:
    case KL_BUILTIN_MODF:
    case KL_BUILTIN_SINCOS:
    case KL_BUILTIN_FREXP:
    case KL_BUILTIN_REMQUO:
    case KL_BUILTIN_LGAMMA_R:
      glsl_out_builtin(e, n);
      return;
    case KL_BUILTIN_ERF:
    case KL_BUILTIN_ERFC:
    case KL_BUILTIN_LGAMMA:
    case KL_BUILTIN_TGAMMA:
      if (as->kind == KL_TYPE_DOUBLE && glsl_fp64_call(e, n)) return;
      glsl_fail(e, at, kl_format(e->ctx, "%s (GLSL has no such function)", b->canonical));
      return;
    /* integer */
    case KL_BUILTIN_ABS:
      if (!kl_type_is_signed(as)) {
        glsl_expr(e, a0);
        return;
      }
      klg_printf(o, "%s(abs(", glsl_type(e, rt, at));
      glsl_expr(e, a0);
      klg_puts(o, "))");
      return;
    case KL_BUILTIN_ABS_DIFF:
      name = "_cl_abs_diff";
      tmpl =
          "$U _cl_abs_diff($T a, $T b) { return a > b ? $U($U(a) - $U(b)) : $U($U(b) - $U(a)); }";
      glsl_helper(e, name, a0->type, as, glsl_unsigned_of(e, as), 2, NULL, tmpl, NULL);
      glsl_call(e, name, a0);
      return;
    case KL_BUILTIN_ADD_SAT:
      name = "_cl_add_sat";
      tmpl = kl_type_is_signed(as)
                 ? "$T _cl_add_sat($T a, $T b) { $T r = $T(a + b); if (b > $T(0) && r < a) return "
                   "$MAX; if (b < $T(0) && r > a) return $MIN; return r; }"
                 : "$T _cl_add_sat($T a, $T b) { $T r = $T(a + b); return r < a ? $MAX : r; }";
      break;
    case KL_BUILTIN_SUB_SAT:
      name = "_cl_sub_sat";
      tmpl = kl_type_is_signed(as)
                 ? "$T _cl_sub_sat($T a, $T b) { $T r = $T(a - b); if (b < $T(0) && r < a) return "
                   "$MAX; if (b > $T(0) && r > a) return $MIN; return r; }"
                 : "$T _cl_sub_sat($T a, $T b) { return a < b ? $T(0) : $T(a - b); }";
      break;
    case KL_BUILTIN_HADD:
      name = "_cl_hadd";
      tmpl =
          "$T _cl_hadd($T a, $T b) { return $T((a >> $T(1)) + (b >> $T(1)) + (a & b & $T(1))); }";
      break;
    case KL_BUILTIN_RHADD:
      name = "_cl_rhadd";
      tmpl =
          "$T _cl_rhadd($T a, $T b) { return $T((a >> $T(1)) + (b >> $T(1)) + ((a | b) & $T(1))); "
          "}";
      break;
    case KL_BUILTIN_CLZ:
      name = "_cl_clz";
      tmpl = glsl_bits(as) == 64
                 ? "$T _cl_clz($T x) { uvec2 h = unpackUint2x32(uint64_t(x)); return $T(h.y != 0u "
                   "? 31 - findMSB(h.y) : (h.x != 0u ? 63 - findMSB(h.x) : 64)); }"
                 : "$T _cl_clz($T x) { uint u = uint($U(x)); return $T(u == 0u ? $W : $W - 1 - "
                   "findMSB(u)); }";
      break;
    case KL_BUILTIN_POPCOUNT:
      name = "_cl_popcount";
      tmpl = glsl_bits(as) == 64 ? "$T _cl_popcount($T x) { uvec2 h = unpackUint2x32(uint64_t(x)); "
                                   "return $T(bitCount(h.x) + bitCount(h.y)); }"
                                 : "$T _cl_popcount($T x) { return $T(bitCount(uint($U(x)))); }";
      break;
    case KL_BUILTIN_MUL_HI:
    case KL_BUILTIN_MAD_HI: {
      int bits = glsl_bits(as);
      bool sig = kl_type_is_signed(as);
      name = b->id == KL_BUILTIN_MUL_HI ? "_cl_mul_hi" : "_cl_mad_hi";
      const char *hi;
      if (bits < 32)
        hi = sig ? "$T((int(a) * int(b)) >> $W)" : "$T((uint(a) * uint(b)) >> $W)";
      else if (bits == 32)
        hi = NULL;
      else
        hi = NULL;
      if (bits < 32) {
        tmpl =
            b->id == KL_BUILTIN_MUL_HI
                ? kl_format(e->ctx, "$T _cl_mul_hi($T a, $T b) { return %s; }", hi)
                : kl_format(e->ctx, "$T _cl_mad_hi($T a, $T b, $T c) { return $T(%s + c); }", hi);
      } else if (bits == 32) {
        tmpl =
            b->id == KL_BUILTIN_MUL_HI
                ? kl_format(e->ctx,
                            "$T _cl_mul_hi($T a, $T b) { $T hi, lo; %s(a, b, hi, lo); return hi; }",
                            sig ? "imulExtended" : "umulExtended")
                : kl_format(e->ctx,
                            "$T _cl_mad_hi($T a, $T b, $T c) { $T hi, lo; %s(a, b, hi, lo); return "
                            "hi + c; }",
                            sig ? "imulExtended" : "umulExtended");
      } else {
        if (glsl_need(e, "_cl_umulhi64"))
          klg_puts(&e->helpers,
                   "uint64_t _cl_umulhi64(uint64_t a, uint64_t b) { uint64_t a0 = a & "
                   "0xfffffffful, a1 = a >> 32, b0 = b & 0xfffffffful, b1 = b >> 32; "
                   "uint64_t p01 = a0 * b1, p10 = a1 * b0, mid = ((a0 * b0) >> 32) + (p01 & "
                   "0xfffffffful) + (p10 & 0xfffffffful); "
                   "return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32); }\n");
        const char *h = sig ? "int64_t(_cl_umulhi64(uint64_t(a), uint64_t(b))) - (a < 0l ? b : 0l) "
                              "- (b < 0l ? a : 0l)"
                            : "_cl_umulhi64(a, b)";
        tmpl = b->id == KL_BUILTIN_MUL_HI
                   ? kl_format(e->ctx, "$T _cl_mul_hi($T a, $T b) { return %s; }", h)
                   : kl_format(e->ctx, "$T _cl_mad_hi($T a, $T b, $T c) { return %s + c; }", h);
      }
      break;
    }
    case KL_BUILTIN_MAD_SAT: {
      int bits = glsl_bits(as);
      if (bits == 64) {
        glsl_fail(e, at, "mad_sat on 64-bit integers");
        return;
      }
      name = "_cl_mad_sat";
      e->caps |= KL_GLSL_NEEDS_INT64;
      tmpl = kl_type_is_signed(as) || bits < 32
                 ? "$T _cl_mad_sat($T a, $T b, $T c) { int64_t r = int64_t(a) * int64_t(b) + "
                   "int64_t(c); return r < int64_t($MIN) ? $MIN : (r > int64_t($MAX) ? $MAX : "
                   "$T(r)); }"
                 : "$T _cl_mad_sat($T a, $T b, $T c) { uint64_t r = uint64_t(a) * uint64_t(b) + "
                   "uint64_t(c); return r > uint64_t($MAX) ? $MAX : $T(r); }";
      break;
    }
    case KL_BUILTIN_ROTATE:
      name = "_cl_rotate";
      tmpl =
          glsl_bits(as) == 64
              ? "$T _cl_rotate($T v, $T n) { uint64_t u = uint64_t(v); uint k = uint(uint64_t(n) & "
                "63ul); return k == 0u ? v : $T((u << k) | (u >> (64u - k))); }"
              : "$T _cl_rotate($T v, $T n) { uint u = uint($U(v)); uint k = uint($U(n)) & uint($W "
                "- 1); return k == 0u ? v : $T($U((u << k) | (u >> (uint($W) - k)))); }";
      break;
    case KL_BUILTIN_UPSAMPLE: {
      name = "_cl_upsample";
      const kl_type *lo = kl_type_scalar_of(a1->type);
      arg2 = lo;
      const char *r = glsl_scalar(e, rs, at);
      tmpl = kl_format(
          e->ctx, "%s _cl_upsample($T h, $U l) { return %s(%s(%s($U(h)) << %d) | %s(l)); }", r, r,
          glsl_scalar(e, glsl_unsigned_of(e, rs), at), glsl_scalar(e, glsl_unsigned_of(e, rs), at),
          glsl_bits(as), glsl_scalar(e, glsl_unsigned_of(e, rs), at));
      glsl_helper(e, name, a0->type, as, rs, 2, arg2, tmpl, NULL);
      glsl_call(e, name, a0);
      return;
    }
    case KL_BUILTIN_MUL24:
      klg_puts(o, "(");
      glsl_expr(e, a0);
      klg_puts(o, " * ");
      glsl_expr(e, a1);
      klg_puts(o, ")");
      return;
    case KL_BUILTIN_MAD24:
      klg_puts(o, "(");
      glsl_expr(e, a0);
      klg_puts(o, " * ");
      glsl_expr(e, a1);
      klg_puts(o, " + ");
      glsl_expr(e, a2);
      klg_puts(o, ")");
      return;
    /* relational */
    case KL_BUILTIN_ISEQUAL:
    case KL_BUILTIN_ISNOTEQUAL:
    case KL_BUILTIN_ISGREATER:
    case KL_BUILTIN_ISGREATEREQUAL:
    case KL_BUILTIN_ISLESS:
    case KL_BUILTIN_ISLESSEQUAL: {
      kl_operator op = b->id == KL_BUILTIN_ISEQUAL          ? KL_OP_EQ
                       : b->id == KL_BUILTIN_ISNOTEQUAL     ? KL_OP_NE
                       : b->id == KL_BUILTIN_ISGREATER      ? KL_OP_GT
                       : b->id == KL_BUILTIN_ISGREATEREQUAL ? KL_OP_GE
                       : b->id == KL_BUILTIN_ISLESS         ? KL_OP_LT
                                                            : KL_OP_LE;
      const char *x = glsl_text_of(e, a0), *y = glsl_text_of(e, a1);
      if (klg_is_vector(rt))
        glsl_mask_from_bvec(e, rt, kl_format(e->ctx, "%s(%s, %s)", glsl_vector_compare(op), x, y));
      else
        klg_printf(o, "int(%s %s %s)", x, kl_operator_text(op), y);
      return;
    }
    case KL_BUILTIN_ISLESSGREATER:
    case KL_BUILTIN_ISORDERED:
    case KL_BUILTIN_ISUNORDERED:
    case KL_BUILTIN_ISFINITE:
    case KL_BUILTIN_ISINF:
    case KL_BUILTIN_ISNAN:
    case KL_BUILTIN_ISNORMAL:
    case KL_BUILTIN_SIGNBIT: {
      const char *x = glsl_text_of(e, a0), *y = a1 ? glsl_text_of(e, a1) : NULL;
      const char *bv;
      int len = klg_is_vector(a0->type) ? a0->type->length : 1;
      const char *vt = glsl_type(e, a0->type, at);
      const char *btype = len > 1 ? kl_format(e->ctx, "bvec%d", len) : "bool";
      bool dbl = as->kind == KL_TYPE_DOUBLE;
      switch (b->id) {
        case KL_BUILTIN_ISLESSGREATER:
          bv = len > 1
                   ? kl_format(e->ctx, "%s(uvec%d(lessThan(%s, %s)) | uvec%d(greaterThan(%s, %s)))",
                               btype, len, x, y, len, x, y)
                   : kl_format(e->ctx, "(%s < %s || %s > %s)", x, y, x, y);
          break;
        case KL_BUILTIN_ISORDERED:
          bv = len > 1 ? kl_format(e->ctx, "not(%s(uvec%d(isnan(%s)) | uvec%d(isnan(%s))))", btype,
                                   len, x, len, y)
                       : kl_format(e->ctx, "!(isnan(%s) || isnan(%s))", x, y);
          break;
        case KL_BUILTIN_ISUNORDERED:
          bv = len > 1 ? kl_format(e->ctx, "%s(uvec%d(isnan(%s)) | uvec%d(isnan(%s)))", btype, len,
                                   x, len, y)
                       : kl_format(e->ctx, "(isnan(%s) || isnan(%s))", x, y);
          break;
        case KL_BUILTIN_ISFINITE:
          bv = len > 1 ? kl_format(e->ctx, "not(%s(uvec%d(isnan(%s)) | uvec%d(isinf(%s))))", btype,
                                   len, x, len, x)
                       : kl_format(e->ctx, "!(isnan(%s) || isinf(%s))", x, x);
          break;
        case KL_BUILTIN_ISINF:
          bv = kl_format(e->ctx, "isinf(%s)", x);
          break;
        case KL_BUILTIN_ISNAN:
          bv = kl_format(e->ctx, "isnan(%s)", x);
          break;
        case KL_BUILTIN_ISNORMAL: {
          const char *minn = dbl ? "2.2250738585072014e-308lf" : "1.17549435e-38";
          bv = len > 1 ? kl_format(e->ctx,
                                   "%s(uvec%d(greaterThanEqual(abs(%s), %s(%s))) & "
                                   "uvec%d(not(isinf(%s))) & uvec%d(not(isnan(%s))))",
                                   btype, len, x, vt, minn, len, x, len, x)
                       : kl_format(e->ctx, "(abs(%s) >= %s && !isinf(%s) && !isnan(%s))", x, minn,
                                   x, x);
          break;
        }
        default: /* SIGNBIT */
          if (dbl)
            bv = len > 1 ? NULL : kl_format(e->ctx, "((unpackDouble2x32(%s).y >> 31) != 0u)", x);
          else
            bv = len > 1
                     ? kl_format(e->ctx, "notEqual(floatBitsToUint(%s) >> 31, uvec%d(0))", x, len)
                     : kl_format(e->ctx, "((floatBitsToUint(%s) >> 31) != 0u)", x);
          if (!bv) {
            glsl_fail(e, at, "signbit on double vectors");
            return;
          }
          break;
      }
      if (len > 1)
        glsl_mask_from_bvec(e, rt, bv);
      else
        klg_printf(o, "int(%s)", bv);
      return;
    }
    case KL_BUILTIN_ANY:
    case KL_BUILTIN_ALL: {
      const char *x = glsl_text_of(e, a0);
      if (klg_is_vector(a0->type))
        klg_printf(o, "int(%s(lessThan(%s, %s)))", b->id == KL_BUILTIN_ANY ? "any" : "all", x,
                   glsl_zero(e, a0->type, at));
      else
        klg_printf(o, "int(%s < %s)", x, glsl_zero(e, a0->type, at));
      return;
    }
    case KL_BUILTIN_BITSELECT: {
      const char *x = glsl_text_of(e, a0), *y = glsl_text_of(e, a1), *z = glsl_text_of(e, a2);
      if (kl_type_is_floating(as)) {
        if (as->kind == KL_TYPE_DOUBLE) {
          glsl_fail(e, at, "bitselect on double");
          return;
        }
        klg_printf(o,
                   "uintBitsToFloat((floatBitsToUint(%s) & ~floatBitsToUint(%s)) | "
                   "(floatBitsToUint(%s) & floatBitsToUint(%s)))",
                   x, z, y, z);
      } else {
        klg_printf(o, "((%s & ~%s) | (%s & %s))", x, z, y, z);
      }
      return;
    }
    case KL_BUILTIN_SELECT: {
      const char *x = glsl_text_of(e, a0), *y = glsl_text_of(e, a1), *z = glsl_text_of(e, a2);
      if (klg_is_vector(rt)) {
        name = "_cl_select";
        const char *key =
            kl_format(e->ctx, "_cl_select/%s/%s", glsl_type(e, rt, at), glsl_type(e, a2->type, at));
        if (glsl_need(e, key)) {
          const char *t = glsl_type(e, rt, at), *ct = glsl_type(e, a2->type, at);
          const kl_type *element = kl_type_scalar_of(a2->type);
          /* OpenCL picks b where c's most significant bit is set: c < 0 for
           * signed elements, c >= 2^(bits-1) for unsigned ones (c < 0 is
           * never true for those: fuzz_differential seed 1059) */
          const char *msb_set =
              kl_type_is_signed(element)
                  ? kl_format(e->ctx, "c[i] < %s(0)", glsl_scalar(e, element, at))
                  : kl_format(e->ctx, "c[i] >= %s(%llu%s)", glsl_scalar(e, element, at),
                              1ull << (element->size * 8 - 1), element->size == 8 ? "ul" : "u");
          klg_printf(&e->helpers,
                     "%s _cl_select(%s a, %s b, %s c) { %s r; for (int i = 0; i < %d; i++) r[i] = "
                     "%s ? b[i] : a[i]; return r; }\n",
                     t, t, t, ct, t, rt->length, msb_set);
        }
        klg_printf(o, "_cl_select(%s, %s, %s)", x, y, z);
      } else {
        klg_printf(o, "((%s) != %s ? %s : %s)", z, glsl_zero(e, a2->type, at), y, x);
      }
      return;
    }
    default:
      glsl_fail(e, at, kl_format(e->ctx, "the builtin %s", b->canonical));
      return;
  }
  if (!name || !tmpl) {
    glsl_fail(e, at, kl_format(e->ctx, "the builtin %s", b->canonical));
    return;
  }
  if (nargs > 1 && !arg2 && a1 && !kl_type_equal(kl_type_scalar_of(a1->type), as))
    arg2 = kl_type_scalar_of(a1->type);
  glsl_helper(e, name, a0->type, as, rs, nargs, arg2, tmpl, NULL);
  glsl_call(e, name, a0);
}
