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

/* The enqueued work-group size in dimension 0 (get_enqueued_local_size(0)):
 * a specialisation constant (KL_GLSL_ENQUEUED_SPEC_ID), the same as the
 * work-group size but in the dispatch of a smaller last group (OpenCL 2.0's
 * non-uniform work-groups), whose pipeline is specialised for that group's
 * size (gl_WorkGroupSize.x, get_local_size) and told the size asked for
 * here; get_global_id(0) and get_global_size(0) use it, so whole groups pay
 * nothing. get_global_size(0) also subtracts the block's _cl_last_short,
 * what the last group lacks (0 when every group is whole;
 * kernels/glsl_layout.h). Dimensions 1 and 2 are always whole. */
static void glsl_enqueued_helper(glsl_emitter *e) {
  if (glsl_need(e, "_cl_enq_x")) {
    uint32_t x = 1; /* the default, as local_size_x's */
    if (e->kernel && e->kernel->has_required_work_group_size &&
        e->kernel->required_work_group_size[0])
      x = e->kernel->required_work_group_size[0];
    klg_printf(&e->helpers, "layout(constant_id = %u) const uint _cl_enq_x = %uu;\n",
               KL_GLSL_ENQUEUED_SPEC_ID, x);
  }
}

/* _cl_last_short is declared in the block only where it is read. */
static void glsl_last_short(glsl_emitter *e) {
  glsl_need(e, "_cl_last_short");
}

/* The same for a dimension only known at run time (uvec3 s = _cl_enq()). */
static void glsl_enqueued3_helper(glsl_emitter *e) {
  glsl_enqueued_helper(e);
  if (glsl_need(e, "_cl_enq"))
    klg_puts(&e->helpers,
             "uvec3 _cl_enq() { return uvec3(_cl_enq_x, gl_WorkGroupSize.y, gl_WorkGroupSize.z); "
             "}\n");
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
    /* dimension 0: the enqueued size, which a smaller last group lacks */
    const char *size = d == 0 ? "_cl_enq_x" : d == 1 ? "gl_WorkGroupSize.y" : "gl_WorkGroupSize.z";
    if (d == 0) glsl_enqueued_helper(e);
    if (d == 0 && !id) glsl_last_short(e);
    if (id)
      klg_printf(o,
                 "(_cl_u64(gl_WorkGroupID.%c + _cl_p._cl_group_offset.%c) * "
                 "_cl_u64(%s) + _cl_u64(gl_LocalInvocationID.%c))",
                 xyz[d], xyz[d], size, xyz[d]);
    else
      klg_printf(o, "(_cl_u64(_cl_p._cl_num_groups.%c) * _cl_u64(%s)%s)", xyz[d], size,
                 d == 0 ? " - _cl_u64(_cl_p._cl_last_short)" : "");
    return;
  }
  const char *name = id ? "_cl_global_id64" : "_cl_global_size64";
  glsl_enqueued3_helper(e);
  if (!id) glsl_last_short(e);
  if (glsl_need(e, name))
    klg_puts(&e->helpers,
             id ? "uint64_t _cl_global_id64(uint d) { uvec3 s = _cl_enq(); return d < 3u ? "
                  "_cl_u64(gl_WorkGroupID[d] + _cl_p._cl_group_offset[d]) * _cl_u64(s[d]) + "
                  "_cl_u64(gl_LocalInvocationID[d]) : 0ul; }\n"
                : "uint64_t _cl_global_size64(uint d) { uvec3 s = _cl_enq(); return d < "
                  "3u ? _cl_u64(_cl_p._cl_num_groups[d]) * _cl_u64(s[d]) - "
                  "_cl_u64(d == 0u ? _cl_p._cl_last_short : 0u) : 1ul; }\n");
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
    case KL_BUILTIN_GET_ENQUEUED_LOCAL_SIZE:
      if (constant && d == 0) {
        glsl_enqueued_helper(e);
        klg_puts(o, "_cl_enq_x");
        return;
      }
      if (constant) {
        klg_printf(o, "gl_WorkGroupSize.%c", xyz[d]);
        return;
      }
      glsl_enqueued3_helper(e);
      name = "_cl_enqueued_local_size";
      key = name;
      body =
          "uint _cl_enqueued_local_size(uint d) { uvec3 s = _cl_enq(); return d < 3u ? s[d] : 1u; "
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
      if (constant && d == 0) {
        glsl_enqueued_helper(e);
        glsl_last_short(e);
        klg_puts(o, "(_cl_p._cl_num_groups.x * _cl_enq_x - _cl_p._cl_last_short)");
        return;
      }
      if (constant) {
        klg_printf(o, "(_cl_p._cl_num_groups.%c * gl_WorkGroupSize.%c)", xyz[d], xyz[d]);
        return;
      }
      glsl_enqueued3_helper(e);
      glsl_last_short(e);
      name = "_cl_global_size";
      key = name;
      body =
          "uint _cl_global_size(uint d) { uvec3 s = _cl_enq(); return d < 3u ? "
          "_cl_p._cl_num_groups[d] * s[d] - (d == 0u ? _cl_p._cl_last_short : 0u) : 1u; }\n";
      break;
    default: /* GET_GLOBAL_ID */
      if (constant && d == 0) {
        glsl_enqueued_helper(e);
        klg_puts(o,
                 "((gl_WorkGroupID.x + _cl_p._cl_group_offset.x) * _cl_enq_x + "
                 "gl_LocalInvocationID.x)");
        return;
      }
      if (constant) {
        klg_printf(o,
                   "((gl_WorkGroupID.%c + _cl_p._cl_group_offset.%c) * gl_WorkGroupSize.%c + "
                   "gl_LocalInvocationID.%c)",
                   xyz[d], xyz[d], xyz[d], xyz[d]);
        return;
      }
      glsl_enqueued3_helper(e);
      name = "_cl_global_id";
      key = name;
      body =
          "uint _cl_global_id(uint d) { uvec3 s = _cl_enq(); return d < 3u ? "
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
    if (store && root->packed) {
      glsl_fail(e, n->location,
                "writing through a pointer cast from a private array to wider elements");
      return;
    }
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
/* A conversion to float with rtz, rtp or rtn where it can be inexact: a
 * helper that converts, then steps one ulp toward the mode's direction. */
static void glsl_convert_rounded_float(glsl_emitter *e, const kl_node *n) {
  const kl_node *x = n->args;
  const kl_type *to = kl_type_scalar_of(n->type), *from = kl_type_scalar_of(x->type);
  kl_rounding rm = n->builtin->rounding;
  if (to->kind != KL_TYPE_FLOAT) {
    glsl_fail(e, n->location, "conversions to double or half with a rounding mode other than rte");
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
}

/* A saturating helper of scalar `name` called on a vector: the overload that
 * takes the source vector type, element by element. */
static void glsl_vector_source_overload(glsl_emitter *e, const kl_node *n, const char *name,
                                        const char *tt) {
  if (!klg_is_vector(n->type)) return;
  const kl_node *x = n->args;
  const char *key = kl_format(e->ctx, "%s/vsrc%d", name, n->type->length);
  if (glsl_need(e, key)) {
    const char *st = glsl_type(e, x->type, n->location);
    klg_printf(&e->helpers,
               "%s %s(%s a) { %s r; for (int i = 0; i < %d; i++) r[i] = %s(a[i]); return r; }\n",
               tt, name, st, tt, n->type->length, name);
  }
}

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
      glsl_convert_rounded_float(e, n);
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
    glsl_vector_source_overload(e, n, name, tt);
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
  glsl_vector_source_overload(e, n, name, tt);
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

/* One builtin call: the categories with their own emitters, half through
 * float, double math from the project's library, then the math, integer
 * and relational builtins that need code, then the tables (a GLSL function
 * of the same meaning, or a helper made from a template). */
void glsl_builtin(glsl_emitter *e, const kl_node *n) {
  const kl_builtin *b = n->builtin;
  const kl_node *a0 = n->args, *a1 = a0 ? a0->next : NULL;
  const kl_type *rs = kl_type_scalar_of(n->type);
  const kl_type *as = a0 ? kl_type_scalar_of(a0->type) : rs;
  kl_location at = n->location;
  switch (b->category) {
    case KL_BUILTIN_WORK_ITEM:
      glsl_work_item(e, n, true);
      return;
    case KL_BUILTIN_SYNC:
      if (b->id == KL_BUILTIN_BARRIER) {
        glsl_fail(e, at, "barrier inside an expression");
        return;
      }
      klg_puts(e->out, glsl_fence(a0));
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
  glsl_template t = {0};
  glsl_builtin_result result = a0 ? glsl_math_builtin(e, n, &t) : GLSL_BUILTIN_NOT_HERE;
  if (a0 && result == GLSL_BUILTIN_NOT_HERE) result = glsl_integer_builtin(e, n, &t);
  if (a0 && result == GLSL_BUILTIN_NOT_HERE && glsl_relational_builtin(e, n))
    result = GLSL_BUILTIN_DONE;
  if (a0 && result == GLSL_BUILTIN_NOT_HERE) result = glsl_table_builtin(e, n, &t);
  if (result == GLSL_BUILTIN_DONE) return;
  if (result == GLSL_BUILTIN_NOT_HERE || !t.name || !t.text) {
    glsl_fail(e, at, kl_format(e->ctx, "the builtin %s", b->canonical));
    return;
  }
  const kl_type *second = t.second;
  if (n->arg_count > 1 && !second && a1 && !kl_type_equal(kl_type_scalar_of(a1->type), as))
    second = kl_type_scalar_of(a1->type);
  glsl_helper(e, t.name, a0->type, as, rs, n->arg_count, second, t.text, NULL);
  glsl_call(e, t.name, a0);
}
