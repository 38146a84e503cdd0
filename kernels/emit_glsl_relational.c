// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: OpenCL's integer and relational builtins that need code
 * (the others are tables in emit_glsl_math.c). */
#include <string.h>

#include "emit_glsl_internal.h"

/* mul_hi and mad_hi: the high half of the product, by width. */
static const char *glsl_mul_hi_template(glsl_emitter *e, const kl_node *n, const kl_type *as) {
  int bits = glsl_bits(as);
  bool sig = kl_type_is_signed(as);
  bool mul = n->builtin->id == KL_BUILTIN_MUL_HI;
  if (bits < 32) {
    const char *hi = sig ? "$T((int(a) * int(b)) >> $W)" : "$T((uint(a) * uint(b)) >> $W)";
    return mul ? kl_format(e->ctx, "$T _cl_mul_hi($T a, $T b) { return %s; }", hi)
               : kl_format(e->ctx, "$T _cl_mad_hi($T a, $T b, $T c) { return $T(%s + c); }", hi);
  }
  if (bits == 32)
    return mul ? kl_format(e->ctx,
                           "$T _cl_mul_hi($T a, $T b) { $T hi, lo; %s(a, b, hi, lo); return hi; }",
                           sig ? "imulExtended" : "umulExtended")
               : kl_format(e->ctx,
                           "$T _cl_mad_hi($T a, $T b, $T c) { $T hi, lo; %s(a, b, hi, lo); return "
                           "hi + c; }",
                           sig ? "imulExtended" : "umulExtended");
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
  return mul ? kl_format(e->ctx, "$T _cl_mul_hi($T a, $T b) { return %s; }", h)
             : kl_format(e->ctx, "$T _cl_mad_hi($T a, $T b, $T c) { return %s + c; }", h);
}

/* a * b (+ c) for mul24 and mad24: GLSL's 32-bit product is exact there. */
static void glsl_product_builtin(glsl_emitter *e, const kl_node *n) {
  const kl_node *a0 = n->args, *a1 = a0->next, *a2 = a1->next;
  klg_puts(e->out, "(");
  glsl_expr(e, a0);
  klg_puts(e->out, " * ");
  glsl_expr(e, a1);
  if (n->builtin->id == KL_BUILTIN_MAD24) {
    klg_puts(e->out, " + ");
    glsl_expr(e, a2);
  }
  klg_puts(e->out, ")");
}

glsl_builtin_result glsl_integer_builtin(glsl_emitter *e, const kl_node *n, glsl_template *t) {
  klg_buf *o = e->out;
  const kl_node *a0 = n->args, *a1 = a0 ? a0->next : NULL;
  const kl_type *rt = n->type, *rs = kl_type_scalar_of(rt);
  const kl_type *as = kl_type_scalar_of(a0->type);
  kl_location at = n->location;
  switch (n->builtin->id) {
    case KL_BUILTIN_ABS:
      if (!kl_type_is_signed(as)) {
        glsl_expr(e, a0);
        return GLSL_BUILTIN_DONE;
      }
      klg_printf(o, "%s(abs(", glsl_type(e, rt, at));
      glsl_expr(e, a0);
      klg_puts(o, "))");
      return GLSL_BUILTIN_DONE;
    case KL_BUILTIN_ABS_DIFF: {
      const char *name = "_cl_abs_diff";
      glsl_helper(e, name, a0->type, as, glsl_unsigned_of(e, as), 2, NULL,
                  "$U _cl_abs_diff($T a, $T b) { return a > b ? $U($U(a) - $U(b)) : $U($U(b) - "
                  "$U(a)); }",
                  NULL);
      glsl_call(e, name, a0);
      return GLSL_BUILTIN_DONE;
    }
    case KL_BUILTIN_MUL_HI:
    case KL_BUILTIN_MAD_HI:
      t->name = n->builtin->id == KL_BUILTIN_MUL_HI ? "_cl_mul_hi" : "_cl_mad_hi";
      t->text = glsl_mul_hi_template(e, n, as);
      return GLSL_BUILTIN_TEMPLATE;
    case KL_BUILTIN_MAD_SAT: {
      int bits = glsl_bits(as);
      if (bits == 64) {
        glsl_fail(e, at, "mad_sat on 64-bit integers");
        return GLSL_BUILTIN_DONE;
      }
      t->name = "_cl_mad_sat";
      e->caps |= KL_GLSL_NEEDS_INT64;
      t->text = kl_type_is_signed(as) || bits < 32
                    ? "$T _cl_mad_sat($T a, $T b, $T c) { int64_t r = int64_t(a) * int64_t(b) + "
                      "int64_t(c); return r < int64_t($MIN) ? $MIN : (r > int64_t($MAX) ? $MAX : "
                      "$T(r)); }"
                    : "$T _cl_mad_sat($T a, $T b, $T c) { uint64_t r = uint64_t(a) * uint64_t(b) "
                      "+ uint64_t(c); return r > uint64_t($MAX) ? $MAX : $T(r); }";
      return GLSL_BUILTIN_TEMPLATE;
    }
    case KL_BUILTIN_UPSAMPLE: {
      const char *name = "_cl_upsample";
      const kl_type *lo = kl_type_scalar_of(a1->type);
      const char *r = glsl_scalar(e, rs, at);
      const char *tmpl = kl_format(
          e->ctx, "%s _cl_upsample($T h, $U l) { return %s(%s(%s($U(h)) << %d) | %s(l)); }", r, r,
          glsl_scalar(e, glsl_unsigned_of(e, rs), at), glsl_scalar(e, glsl_unsigned_of(e, rs), at),
          glsl_bits(as), glsl_scalar(e, glsl_unsigned_of(e, rs), at));
      glsl_helper(e, name, a0->type, as, rs, 2, lo, tmpl, NULL);
      glsl_call(e, name, a0);
      return GLSL_BUILTIN_DONE;
    }
    case KL_BUILTIN_MUL24:
    case KL_BUILTIN_MAD24:
      glsl_product_builtin(e, n);
      return GLSL_BUILTIN_DONE;
    default:
      return GLSL_BUILTIN_NOT_HERE;
  }
}

/* isequal ... islessequal: the comparison, as OpenCL's int or mask. */
static void glsl_comparison_builtin(glsl_emitter *e, const kl_node *n) {
  kl_builtin_id id = n->builtin->id;
  const kl_node *a0 = n->args, *a1 = a0->next;
  kl_operator op = id == KL_BUILTIN_ISEQUAL          ? KL_OP_EQ
                   : id == KL_BUILTIN_ISNOTEQUAL     ? KL_OP_NE
                   : id == KL_BUILTIN_ISGREATER      ? KL_OP_GT
                   : id == KL_BUILTIN_ISGREATEREQUAL ? KL_OP_GE
                   : id == KL_BUILTIN_ISLESS         ? KL_OP_LT
                                                     : KL_OP_LE;
  const char *x = glsl_text_of(e, a0), *y = glsl_text_of(e, a1);
  if (klg_is_vector(n->type))
    glsl_mask_from_bvec(e, n->type, kl_format(e->ctx, "%s(%s, %s)", glsl_vector_compare(op), x, y));
  else
    klg_printf(e->out, "int(%s %s %s)", x, kl_operator_text(op), y);
}

/* The boolean (bvecN for vectors) of a classification builtin; NULL when
 * GLSL cannot say it (signbit of a double vector). */
static const char *glsl_classification(glsl_emitter *e, const kl_node *n, int len) {
  const kl_node *a0 = n->args, *a1 = a0->next;
  const char *x = glsl_text_of(e, a0), *y = a1 ? glsl_text_of(e, a1) : NULL;
  const char *vt = glsl_type(e, a0->type, n->location);
  const char *btype = len > 1 ? kl_format(e->ctx, "bvec%d", len) : "bool";
  bool dbl = kl_type_scalar_of(a0->type)->kind == KL_TYPE_DOUBLE;
  switch (n->builtin->id) {
    case KL_BUILTIN_ISLESSGREATER:
      return len > 1
                 ? kl_format(e->ctx, "%s(uvec%d(lessThan(%s, %s)) | uvec%d(greaterThan(%s, %s)))",
                             btype, len, x, y, len, x, y)
                 : kl_format(e->ctx, "(%s < %s || %s > %s)", x, y, x, y);
    case KL_BUILTIN_ISORDERED:
      return len > 1 ? kl_format(e->ctx, "not(%s(uvec%d(isnan(%s)) | uvec%d(isnan(%s))))", btype,
                                 len, x, len, y)
                     : kl_format(e->ctx, "!(isnan(%s) || isnan(%s))", x, y);
    case KL_BUILTIN_ISUNORDERED:
      return len > 1 ? kl_format(e->ctx, "%s(uvec%d(isnan(%s)) | uvec%d(isnan(%s)))", btype, len, x,
                                 len, y)
                     : kl_format(e->ctx, "(isnan(%s) || isnan(%s))", x, y);
    case KL_BUILTIN_ISFINITE:
      return len > 1 ? kl_format(e->ctx, "not(%s(uvec%d(isnan(%s)) | uvec%d(isinf(%s))))", btype,
                                 len, x, len, x)
                     : kl_format(e->ctx, "!(isnan(%s) || isinf(%s))", x, x);
    case KL_BUILTIN_ISINF:
      return kl_format(e->ctx, "isinf(%s)", x);
    case KL_BUILTIN_ISNAN:
      return kl_format(e->ctx, "isnan(%s)", x);
    case KL_BUILTIN_ISNORMAL: {
      const char *minn = dbl ? "2.2250738585072014e-308lf" : "1.17549435e-38";
      return len > 1
                 ? kl_format(e->ctx,
                             "%s(uvec%d(greaterThanEqual(abs(%s), %s(%s))) & "
                             "uvec%d(not(isinf(%s))) & uvec%d(not(isnan(%s))))",
                             btype, len, x, vt, minn, len, x, len, x)
                 : kl_format(e->ctx, "(abs(%s) >= %s && !isinf(%s) && !isnan(%s))", x, minn, x, x);
    }
    default: /* SIGNBIT */
      if (dbl)
        return len > 1 ? NULL : kl_format(e->ctx, "((unpackDouble2x32(%s).y >> 31) != 0u)", x);
      return len > 1 ? kl_format(e->ctx, "notEqual(floatBitsToUint(%s) >> 31, uvec%d(0))", x, len)
                     : kl_format(e->ctx, "((floatBitsToUint(%s) >> 31) != 0u)", x);
  }
}

/* select(a, b, c) on vectors: b where c's most significant bit is set. */
static void glsl_vector_select(glsl_emitter *e, const kl_node *n, const char *x, const char *y,
                               const char *z) {
  const kl_type *rt = n->type, *ct = n->args->next->next->type;
  kl_location at = n->location;
  const char *key =
      kl_format(e->ctx, "_cl_select/%s/%s", glsl_type(e, rt, at), glsl_type(e, ct, at));
  if (glsl_need(e, key)) {
    const char *t = glsl_type(e, rt, at), *cts = glsl_type(e, ct, at);
    const kl_type *element = kl_type_scalar_of(ct);
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
               t, t, t, cts, t, rt->length, msb_set);
  }
  klg_printf(e->out, "_cl_select(%s, %s, %s)", x, y, z);
}

/* bitselect and select. */
static void glsl_selection_builtin(glsl_emitter *e, const kl_node *n) {
  const kl_node *a0 = n->args, *a1 = a0->next, *a2 = a1->next;
  const kl_type *as = kl_type_scalar_of(a0->type);
  const char *x = glsl_text_of(e, a0), *y = glsl_text_of(e, a1), *z = glsl_text_of(e, a2);
  if (n->builtin->id == KL_BUILTIN_SELECT) {
    if (klg_is_vector(n->type))
      glsl_vector_select(e, n, x, y, z);
    else
      klg_printf(e->out, "((%s) != %s ? %s : %s)", z, glsl_zero(e, a2->type, n->location), y, x);
    return;
  }
  if (!kl_type_is_floating(as)) {
    klg_printf(e->out, "((%s & ~%s) | (%s & %s))", x, z, y, z);
  } else if (as->kind == KL_TYPE_DOUBLE) {
    glsl_fail(e, n->location, "bitselect on double");
  } else {
    klg_printf(e->out,
               "uintBitsToFloat((floatBitsToUint(%s) & ~floatBitsToUint(%s)) | "
               "(floatBitsToUint(%s) & floatBitsToUint(%s)))",
               x, z, y, z);
  }
}

bool glsl_relational_builtin(glsl_emitter *e, const kl_node *n) {
  const kl_node *a0 = n->args;
  switch (n->builtin->id) {
    case KL_BUILTIN_ISEQUAL:
    case KL_BUILTIN_ISNOTEQUAL:
    case KL_BUILTIN_ISGREATER:
    case KL_BUILTIN_ISGREATEREQUAL:
    case KL_BUILTIN_ISLESS:
    case KL_BUILTIN_ISLESSEQUAL:
      glsl_comparison_builtin(e, n);
      return true;
    case KL_BUILTIN_ISLESSGREATER:
    case KL_BUILTIN_ISORDERED:
    case KL_BUILTIN_ISUNORDERED:
    case KL_BUILTIN_ISFINITE:
    case KL_BUILTIN_ISINF:
    case KL_BUILTIN_ISNAN:
    case KL_BUILTIN_ISNORMAL:
    case KL_BUILTIN_SIGNBIT: {
      int len = klg_is_vector(a0->type) ? a0->type->length : 1;
      const char *bv = glsl_classification(e, n, len);
      if (!bv)
        glsl_fail(e, n->location, "signbit on double vectors");
      else if (len > 1)
        glsl_mask_from_bvec(e, n->type, bv);
      else
        klg_printf(e->out, "int(%s)", bv);
      return true;
    }
    case KL_BUILTIN_ANY:
    case KL_BUILTIN_ALL: {
      const char *x = glsl_text_of(e, a0);
      kl_location at = n->location;
      if (klg_is_vector(a0->type))
        klg_printf(e->out, "int(%s(lessThan(%s, %s)))",
                   n->builtin->id == KL_BUILTIN_ANY ? "any" : "all", x, glsl_zero(e, a0->type, at));
      else
        klg_printf(e->out, "int(%s < %s)", x, glsl_zero(e, a0->type, at));
      return true;
    }
    case KL_BUILTIN_BITSELECT:
    case KL_BUILTIN_SELECT:
      glsl_selection_builtin(e, n);
      return true;
    default:
      return false;
  }
}
