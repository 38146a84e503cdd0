// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter: names, types and their std430 layout, the variable
 * environment, literals. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emit_glsl_internal.h"
static const char *const glsl_reserved[] = {
    "attribute", "const", "uniform", "varying", "buffer", "shared", "coherent", "volatile",
    "restrict", "readonly", "writeonly", "atomic_uint", "layout", "centroid", "flat", "smooth",
    "noperspective", "patch", "sample", "invariant", "precise", "break", "continue", "do", "for",
    "while", "switch", "case", "default", "if", "else", "subroutine", "in", "out", "inout", "int",
    "void", "bool", "true", "false", "discard", "return", "lowp", "mediump", "highp", "precision",
    "common", "partition", "active", "asm", "class", "union", "enum", "typedef", "template", "this",
    "resource", "goto", "inline", "noinline", "public", "static", "extern", "external", "interface",
    "long", "short", "half", "fixed", "unsigned", "superp", "input", "output", "filter", "sizeof",
    "cast", "namespace", "using", "struct", "main", "mat2", "mat3", "mat4", "dmat2", "dmat3",
    "dmat4", "vec2", "vec3", "vec4", "ivec2", "ivec3", "ivec4", "uvec2", "uvec3", "uvec4", "bvec2",
    "bvec3", "bvec4", "dvec2", "dvec3", "dvec4", "float", "double", "uint", "sampler", "image",
    "texture", "mod", "fract", "inversesqrt", "roundEven", "bitCount", "findMSB", "findLSB",
    "lessThan", "greaterThan", "lessThanEqual", "greaterThanEqual", "equal", "notEqual", "not",
    "any", "all", "mix", "step", "smoothstep", "clamp", "min", "max", "abs", "sign", "floor",
    "ceil", "trunc", "round", "sqrt", "pow", "exp", "exp2", "log", "log2", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "radians", "degrees",
    "fma", "ldexp", "frexp", "isnan", "isinf", "dot", "cross", "length", "distance", "normalize",
    "barrier", "memoryBarrier", "memoryBarrierShared", "memoryBarrierBuffer", "groupMemoryBarrier",
    "atomicAdd", "atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor", "atomicExchange",
    "atomicCompSwap", "floatBitsToInt", "floatBitsToUint", "intBitsToFloat", "uintBitsToFloat",
    "umulExtended", "imulExtended", "uaddCarry", "usubBorrow", "bitfieldExtract", "bitfieldInsert",
    "bitfieldReverse", "packDouble2x32", "unpackDouble2x32", "packUint2x32", "unpackUint2x32",
    "int8_t", "uint8_t", "int16_t", "uint16_t", "int64_t", "uint64_t", "float16_t", "i8vec2",
    "i8vec3", "i8vec4", "u8vec2", "u8vec3", "u8vec4", "i16vec2", "i16vec3", "i16vec4", "u16vec2",
    "u16vec3", "u16vec4", "i64vec2", "i64vec3", "i64vec4", "u64vec2", "u64vec3", "u64vec4", "modf",
    "outerProduct", "transpose", "determinant", "inverse", "faceforward", "reflect", "refract",
    "matrixCompMult", "emit", "dFdx", "dFdy", "fwidth", "noise", "pack32", "unpack32", "pack16",
    "unpack16", "pack64", "unpack8", "int64BitsToDouble", "doubleBitsToInt64", "doubleBitsToUint64",
    "uint64BitsToDouble",
    /* half (GL_EXT_shader_explicit_arithmetic_types_float16) */
    "f16vec2", "f16vec3", "f16vec4", "float16BitsToInt16", "float16BitsToUint16",
    "int16BitsToFloat16", "uint16BitsToFloat16", "packFloat2x16", "unpackFloat2x16",
    /* GL_EXT_spirv_intrinsics keywords */
    "spirv_instruction", "spirv_execution_mode", "spirv_execution_mode_id", "spirv_decorate",
    "spirv_decorate_id", "spirv_decorate_string", "spirv_type", "spirv_storage_class",
    "spirv_by_reference", "spirv_literal", NULL};

void glsl_fail(glsl_emitter *e, kl_location at, const char *what) {
  if (e->failed && e->last_failure && strcmp(e->last_failure, what) == 0)
    return; /* once is enough */
  e->last_failure = what;
  kl_error(e->ctx, at, "the GLSL target does not support %s", what);
  e->failed = true;
}

const char *glsl_name(glsl_emitter *e, const char *name) {
  return klg_ident(e->ctx, name, glsl_reserved, true);
}

/* ------------------------------------------------------------ types */

const char *glsl_scalar(glsl_emitter *e, const kl_type *t, kl_location at) {
  switch (t->kind) {
    case KL_TYPE_VOID:
      return "void";
    case KL_TYPE_BOOL:
      return "bool";
    case KL_TYPE_CHAR:
      e->caps |= KL_GLSL_NEEDS_INT8;
      return "int8_t";
    case KL_TYPE_UCHAR:
      e->caps |= KL_GLSL_NEEDS_INT8;
      return "uint8_t";
    case KL_TYPE_SHORT:
      e->caps |= KL_GLSL_NEEDS_INT16;
      return "int16_t";
    case KL_TYPE_USHORT:
      e->caps |= KL_GLSL_NEEDS_INT16;
      return "uint16_t";
    case KL_TYPE_INT:
      return "int";
    case KL_TYPE_UINT:
      return "uint";
    case KL_TYPE_PTRDIFF_T:
      e->caps |= KL_GLSL_NEEDS_INT64 | KL_GLSL_NEEDS_SIZE64;
      return "int64_t";
    case KL_TYPE_SIZE_T:
      e->caps |= KL_GLSL_NEEDS_INT64 | KL_GLSL_NEEDS_SIZE64;
      return "uint64_t";
    case KL_TYPE_LONG:
      e->caps |= KL_GLSL_NEEDS_INT64;
      return "int64_t";
    case KL_TYPE_ULONG:
      e->caps |= KL_GLSL_NEEDS_INT64;
      return "uint64_t";
    case KL_TYPE_FLOAT:
      e->caps |= KL_GLSL_NEEDS_FLOAT_CONTROLS;
      return "float";
    case KL_TYPE_DOUBLE:
      e->caps |= KL_GLSL_NEEDS_FP64 | KL_GLSL_NEEDS_FLOAT_CONTROLS;
      return "double";
    case KL_TYPE_HALF:
      e->caps |= KL_GLSL_NEEDS_FP16 | KL_GLSL_NEEDS_FLOAT_CONTROLS;
      return "float16_t";
    default:
      return "int";
  }
}

const char *glsl_vector_prefix(glsl_emitter *e, const kl_type *el, kl_location at) {
  switch (el->kind) {
    case KL_TYPE_BOOL:
      return "bvec";
    case KL_TYPE_CHAR:
      e->caps |= KL_GLSL_NEEDS_INT8;
      return "i8vec";
    case KL_TYPE_UCHAR:
      e->caps |= KL_GLSL_NEEDS_INT8;
      return "u8vec";
    case KL_TYPE_SHORT:
      e->caps |= KL_GLSL_NEEDS_INT16;
      return "i16vec";
    case KL_TYPE_USHORT:
      e->caps |= KL_GLSL_NEEDS_INT16;
      return "u16vec";
    case KL_TYPE_INT:
      return "ivec";
    case KL_TYPE_UINT:
      return "uvec";
    case KL_TYPE_PTRDIFF_T:
      e->caps |= KL_GLSL_NEEDS_INT64 | KL_GLSL_NEEDS_SIZE64;
      return "i64vec";
    case KL_TYPE_SIZE_T:
      e->caps |= KL_GLSL_NEEDS_INT64 | KL_GLSL_NEEDS_SIZE64;
      return "u64vec";
    case KL_TYPE_LONG:
      e->caps |= KL_GLSL_NEEDS_INT64;
      return "i64vec";
    case KL_TYPE_ULONG:
      e->caps |= KL_GLSL_NEEDS_INT64;
      return "u64vec";
    case KL_TYPE_FLOAT:
      e->caps |= KL_GLSL_NEEDS_FLOAT_CONTROLS;
      return "vec";
    case KL_TYPE_DOUBLE:
      e->caps |= KL_GLSL_NEEDS_FP64 | KL_GLSL_NEEDS_FLOAT_CONTROLS;
      return "dvec";
    case KL_TYPE_HALF:
      e->caps |= KL_GLSL_NEEDS_FP16 | KL_GLSL_NEEDS_FLOAT_CONTROLS;
      return "f16vec";
    default:
      glsl_fail(e, at, "vectors of this element type");
      return "vec";
  }
}

const char *glsl_type(glsl_emitter *e, const kl_type *t, kl_location at) {
  if (!t) return "void";
  switch (t->kind) {
    case KL_TYPE_VECTOR:
      if (t->length > 4) return glsl_wide_type(e, t, at);
      return kl_format(e->ctx, "%s%d", glsl_vector_prefix(e, t->element, at), t->length);
    case KL_TYPE_STRUCT:
      /* a union is refused where a kernel uses it: the program's other
       * kernels still translate */
      if (t->is_union && !glsl_union_words(t))
        glsl_fail(e, at,
                  kl_format(e->ctx,
                            "union '%s' (GLSL has no unions: the Vulkan target overlays only "
                            "members that are 32-bit scalars, as uint words)",
                            t->name ? t->name : "anonymous"));
      return glsl_name(e, klg_struct_name(e->ctx, e->program, t));
    case KL_TYPE_POINTER:
      return "uint"; /* an offset; the root is tracked */
    case KL_TYPE_ARRAY: {
      const char *dims = "";
      while (t->kind == KL_TYPE_ARRAY) {
        dims = kl_format(e->ctx, "%s[%d]", dims, t->length);
        t = t->element;
      }
      return kl_format(e->ctx, "%s%s", glsl_type(e, t, at), dims);
    }
    case KL_TYPE_FUNCTION:
      glsl_fail(e, at, "function types");
      return "void";
    default:
      return glsl_scalar(e, t, at);
  }
}

const char *glsl_decl(glsl_emitter *e, const kl_type *t, const char *name, kl_location at) {
  const char *dims = "";
  while (t->kind == KL_TYPE_ARRAY) {
    dims = kl_format(e->ctx, "%s[%d]", dims, t->length);
    t = t->element;
  }
  return kl_format(e->ctx, "%s %s%s", glsl_type(e, t, at), name, dims);
}

/* The type of a same-shape type with another element. */
const char *glsl_with_element(glsl_emitter *e, const kl_type *shape, const kl_type *el,
                              kl_location at) {
  if (glsl_is_wide(shape)) return glsl_type(e, kl_type_vector(e->ctx, el->kind, shape->length), at);
  if (klg_is_vector(shape))
    return kl_format(e->ctx, "%s%d", glsl_vector_prefix(e, el, at), shape->length);
  return glsl_scalar(e, el, at);
}

const kl_type *glsl_unsigned_of(glsl_emitter *e, const kl_type *s) {
  switch (s->kind) {
    case KL_TYPE_CHAR:
      return kl_type_scalar(e->ctx, KL_TYPE_UCHAR);
    case KL_TYPE_SHORT:
      return kl_type_scalar(e->ctx, KL_TYPE_USHORT);
    case KL_TYPE_INT:
      return kl_type_scalar(e->ctx, KL_TYPE_UINT);
    case KL_TYPE_LONG:
      return kl_type_scalar(e->ctx, KL_TYPE_ULONG);
    case KL_TYPE_PTRDIFF_T:
      return kl_type_scalar(e->ctx, KL_TYPE_SIZE_T);
    default:
      return s;
  }
}

int glsl_bits(const kl_type *s) {
  return s->size * 8;
}

/* std430 size and alignment of the GLSL type that represents t. */
void glsl_std430(const kl_type *t, int *size, int *align) {
  switch (t->kind) {
    case KL_TYPE_VECTOR: {
      int es = t->element->size;
      *size = es * t->length;
      *align = es * (t->length >= 3 ? 4 : t->length); /* 8, 16: a struct of 4-vectors */
      return;
    }
    case KL_TYPE_ARRAY: {
      int es, ea;
      glsl_std430(t->element, &es, &ea);
      int stride = (es + ea - 1) / ea * ea;
      *size = stride * t->length;
      *align = ea;
      return;
    }
    case KL_TYPE_STRUCT: {
      int offset = 0, max_align = 1;
      for (const kl_member *m = t->members; m; m = m->next) {
        int ms, ma;
        glsl_std430(m->type, &ms, &ma);
        if (m->offset > offset) offset = m->offset; /* padding members keep OpenCL's offsets */
        offset = (offset + ma - 1) / ma * ma;
        offset += ms;
        if (ma > max_align) max_align = ma;
      }
      if (t->align > max_align) max_align = t->align;
      *size = (offset + max_align - 1) / max_align * max_align;
      *align = max_align;
      return;
    }
    default:
      *size = t->size;
      *align = t->align ? t->align : 1;
      return;
  }
}

/* The std430 alignment of the GLSL type for t, as a driver lays it out
 * (glsl_std430 gives a struct OpenCL's alignment instead). */
static int std430_real_align(const kl_type *t) {
  while (t->kind == KL_TYPE_ARRAY) t = t->element;
  if (t->kind != KL_TYPE_STRUCT) {
    int size, align;
    glsl_std430(t, &size, &align);
    return align;
  }
  int align = 1;
  for (const kl_member *m = t->members; m; m = m->next) {
    int a = std430_real_align(m->type);
    if (a > align) align = a;
  }
  return align;
}

void glsl_check_shared_struct(glsl_emitter *e, const kl_type *t, kl_location at) {
  while (t->kind == KL_TYPE_ARRAY) t = t->element;
  if (t->kind != KL_TYPE_STRUCT) return;
  /* Members keep OpenCL's offsets (glsl_struct pads before them); what can
   * differ is the size: std430 rounds a struct to its members' std430
   * alignment, which is below OpenCL's for 8- and 16-vectors. */
  int align = std430_real_align(t);
  int end = 0;
  const kl_member *last = NULL;
  for (const kl_member *m = t->members; m; m = m->next) {
    int ms, ma;
    glsl_std430(m->type, &ms, &ma);
    if (m->offset % ma)
      glsl_fail(e, m->location,
                kl_format(e->ctx,
                          "the layout of struct '%s' in memory: member '%s' is at offset %d of "
                          "a packed struct, where std430 needs a multiple of %d",
                          t->name ? t->name : "struct", m->name, m->offset, ma));
    end = m->offset + ms;
    last = m;
    glsl_check_shared_struct(e, m->type, at);
  }
  int size = (end + align - 1) / align * align;
  if (size != t->size && last) {
    const char *name = t->name ? t->name : "struct";
    glsl_fail(e, at,
              kl_format(e->ctx,
                        "the layout of struct '%s' in memory: std430 makes it %d bytes where "
                        "OpenCL C makes it %d (its members are %d-byte aligned in std430; add "
                        "a member after '%s' to pad it to %d bytes)",
                        name, size, t->size, align, last->name, t->size));
  }
}

static const kl_type *innermost(const kl_type *t) {
  while (t->kind == KL_TYPE_ARRAY) t = t->element;
  return t;
}

static bool innermost_is_bool(const kl_type *t) {
  return innermost(t)->kind == KL_TYPE_BOOL;
}

/* A union GLSL can overlay: every member a 32-bit scalar (int, uint,
 * float: `union { float f; uint i; }`, mcxcl's nextafter): its words, else
 * 0. It is declared as `uint _cl_u[N]`; a member is read and written
 * through bit casts of word 0 (glsl_union_member). */
int glsl_union_words(const kl_type *t) {
  if (!t->is_union || t->size % 4 || !t->members) return 0;
  for (const kl_member *m = t->members; m; m = m->next) {
    kl_type_kind k = m->type->kind;
    if (k != KL_TYPE_INT && k != KL_TYPE_UINT && k != KL_TYPE_FLOAT) return 0;
  }
  return t->size / 4;
}

void glsl_struct(glsl_emitter *e, const kl_type *t, klg_buf *o) {
  if (t->is_union) {
    int words = glsl_union_words(t);
    if (words) /* else refused where a kernel uses it (glsl_type) */
      klg_printf(o, "struct %s {\n  uint _cl_u[%d];\n};\n",
                 glsl_name(e, klg_struct_name(e->ctx, e->program, t)), words);
    return;
  }
  klg_printf(o, "struct %s {\n",
             glsl_type(e, t, t->members ? t->members->location : (kl_location){0}));
  int offset = 0, pad = 0;
  for (const kl_member *m = t->members; m; m = m->next) {
    int ms, ma;
    glsl_std430(m->type, &ms, &ma);
    int natural = (offset + ma - 1) / ma * ma;
    while (natural < m->offset) {
      if ((natural % 4) == 0 && m->offset - natural >= 4) {
        klg_printf(o, "  uint _cl_pad%d;\n", pad++);
        natural += 4;
      } else {
        e->caps |= KL_GLSL_NEEDS_INT8;
        klg_printf(o, "  uint8_t _cl_pad%d;\n", pad++);
        natural += 1;
      }
    }
    if (natural > m->offset && !t->packed) /* packed: glsl_check_shared_struct */
      glsl_fail(e, m->location,
                kl_format(e->ctx,
                          "the layout of struct '%s': std430 places member '%s' after "
                          "OpenCL C's offset %d",
                          t->name ? t->name : "struct", m->name, m->offset));
    if (klg_is_pointer(m->type)) {
      /* a buffer device address where the kernel uses it (emit_glsl_address.c),
       * else 8 bytes, 8-aligned, as in OpenCL C */
      klg_printf(o, "  %s %s;\n", e->addresses ? "uint64_t" : "uvec2", glsl_name(e, m->name));
    } else if (m->type->kind == KL_TYPE_BOOL) {
      /* one byte, as OpenCL C lays it out (a GLSL bool takes four): member
       * reads compare with 0, writes store 0 or 1 (glsl_expr_mode, glsl_assign) */
      e->caps |= KL_GLSL_NEEDS_INT8;
      klg_printf(o, "  uint8_t %s;\n", glsl_name(e, m->name));
    } else {
      if (m->type->kind == KL_TYPE_ARRAY && innermost_is_bool(m->type))
        glsl_fail(
            e, m->location,
            kl_format(e->ctx, "an array of bools as a struct member ('%s'): use uchar", m->name));
      if (m->type->kind == KL_TYPE_ARRAY && klg_is_pointer(innermost(m->type)))
        glsl_fail(e, m->location,
                  kl_format(e->ctx, "an array of pointers as a struct member ('%s')", m->name));
      klg_printf(o, "  %s;\n", glsl_decl(e, m->type, glsl_name(e, m->name), m->location));
    }
    offset = m->offset + ms;
  }
  klg_puts(o, "};\n");
}

/* --------------------------------------------------------------- env */

glsl_binding *glsl_lookup(glsl_emitter *e, const kl_variable *v) {
  for (int i = e->env_count - 1; i >= 0; i--)
    if (e->env[i].var == v) return &e->env[i];
  return NULL;
}

glsl_binding *glsl_bind(glsl_emitter *e, const kl_variable *v, const char *name, glsl_root *root) {
  if (e->env_count == e->env_capacity) {
    int capacity = e->env_capacity ? e->env_capacity * 2 : 32;
    glsl_binding *env = kl_alloc(e->ctx, sizeof *env * (size_t)capacity);
    if (e->env_count) memcpy(env, e->env, sizeof *env * (size_t)e->env_count);
    e->env = env;
    e->env_capacity = capacity;
  }
  glsl_binding *b = &e->env[e->env_count++];
  b->var = v;
  b->name = name;
  b->root = root;
  return b;
}

bool glsl_need(glsl_emitter *e, const char *key) {
  for (glsl_key *k = e->keys; k; k = k->next)
    if (strcmp(k->key, key) == 0) return false;
  glsl_key *k = kl_alloc(e->ctx, sizeof *k);
  k->key = kl_format(e->ctx, "%s", key);
  k->next = e->keys;
  e->keys = k;
  return true;
}

void glsl_int_literal(glsl_emitter *e, const kl_type *t, uint64_t v) {
  static const klg_int_spelling spelling = {"l", "ul", "(-9223372036854775807l - 1l)", true};
  klg_buf *o = e->out;
  if (t->kind == KL_TYPE_SIZE_T || t->kind == KL_TYPE_PTRDIFF_T) e->caps |= KL_GLSL_NEEDS_SIZE64;
  if (t->size == 8 && kl_type_is_integer(t)) e->caps |= KL_GLSL_NEEDS_INT64;
  if (klg_int_literal(o, t, v, &spelling)) return;
  switch (t->kind) {
    case KL_TYPE_FLOAT:
      klg_printf(o, "%lld.0", (long long)(int64_t)v);
      return;
    case KL_TYPE_DOUBLE:
      e->caps |= KL_GLSL_NEEDS_FP64 | KL_GLSL_NEEDS_FLOAT_CONTROLS;
      klg_printf(o, "%lld.0lf", (long long)(int64_t)v);
      return;
    default:
      klg_printf(o, "%s(%lld)", glsl_scalar(e, t, (kl_location){0}), (long long)(int64_t)v);
      return;
  }
}

void glsl_float_value(glsl_emitter *e, double v, bool is_double) {
  klg_buf *o = e->out;
  if (is_double) e->caps |= KL_GLSL_NEEDS_FP64;
  if (v != v) {
    klg_puts(o,
             is_double ? "packDouble2x32(uvec2(0u, 0x7ff80000u))" : "uintBitsToFloat(0x7fc00000u)");
    return;
  }
  if (isinf(v)) {
    if (is_double)
      klg_puts(o, v > 0 ? "packDouble2x32(uvec2(0u, 0x7ff00000u))"
                        : "packDouble2x32(uvec2(0u, 0xfff00000u))");
    else
      klg_puts(o, v > 0 ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)");
    return;
  }
  char text[64];
  if (is_double)
    snprintf(text, sizeof text, "%.17g", v);
  else
    snprintf(text, sizeof text, "%.9g", (double)(float)v);
  bool has_dot = strchr(text, '.') || strchr(text, 'e') || strchr(text, 'n') || strchr(text, 'i');
  if (text[0] == '-') klg_puts(o, "(");
  klg_puts(o, text);
  if (!has_dot) klg_puts(o, ".0");
  if (is_double) klg_puts(o, "lf");
  if (text[0] == '-') klg_puts(o, ")");
}

/* The zero of a scalar or vector type, as GLSL. */
const char *glsl_zero(glsl_emitter *e, const kl_type *t, kl_location at) {
  if (glsl_is_wide(t)) return glsl_zero_wide(e, t, at);
  return kl_format(e->ctx, "%s(0)", glsl_type(e, t, at));
}

bool glsl_is_signed_int(const kl_type *t) {
  const kl_type *s = kl_type_scalar_of(t);
  return kl_type_is_integer(s) && kl_type_is_signed(s);
}

/* The signed mask type of a vector comparison result. */
void glsl_mask_from_bvec(glsl_emitter *e, const kl_type *result, const char *bvec_text) {
  klg_printf(e->out, "(-%s(%s))", glsl_type(e, result, (kl_location){0}), bvec_text);
}
