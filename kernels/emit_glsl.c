/* The GLSL 4.50 compute emitter (Vulkan): one shader per kernel.
 *
 * GLSL has no pointers. Every pointer is a (root, offset) pair: the root is
 * an array known when the shader is written (the storage buffer of a kernel
 * parameter, a shared array, a program-scope __constant array) and the
 * offset a uint count of elements. A pointer variable becomes a uint offset
 * variable whose root is fixed (every assignment must agree); a helper
 * function that takes pointers is specialised for each combination of roots
 * it is called with. Buffer bindings, the parameter block, specialisation
 * constants and what the runtime must fill are in kernels/glsl_layout.h.
 *
 * OpenCL semantics kept: scalar comparisons give int 0/1 and vector ones
 * -1/0 masks; signed % takes the sign of the dividend (GLSL's % does not
 * for negative operands); shift counts are masked to the width; abs returns
 * unsigned; conversions are explicit constructors; convert_T_sat and the
 * rounding modes; 8/16/64-bit integer types are the explicit arithmetic
 * types. Rejected with a diagnostic: half, 8- and 16-component vectors,
 * pointers whose root is not known, pointers to private scalars, pointer
 * casts to another element type, double-precision transcendental
 * functions (GLSL has them for float only), erf/erfc/lgamma/tgamma.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "builtins.h"
#include "glsl_layout.h"
#include "gpu_emit.h"
#include "translate.h"

typedef enum glsl_root_kind { ROOT_BUFFER, ROOT_SHARED, ROOT_CONSTANT, ROOT_PRIVATE } glsl_root_kind;

typedef struct glsl_root {
  glsl_root_kind kind;
  const kl_variable *var; /* the parameter or array variable */
  const char *array;      /* GLSL name of the array */
  int buffer;             /* ROOT_BUFFER: index into the layout's params */
  bool scalar;            /* a scalar variable: the only valid offset is 0 */
  bool read, written;
} glsl_root;

typedef struct glsl_binding {
  const kl_variable *var;
  const char *name;  /* GLSL name */
  glsl_root *root;   /* pointer variables */
} glsl_binding;

typedef struct glsl_spec {
  const kl_function *function;
  glsl_root **roots; /* per parameter; NULL for non-pointers */
  const char *name;
  struct glsl_spec *next;
} glsl_spec;

typedef struct glsl_key {
  const char *key;
  struct glsl_key *next;
} glsl_key;

typedef struct glsl_emitter {
  kl_context *ctx;
  const kl_program *program;
  const kl_function *kernel;
  klg_buf *out;
  klg_buf helpers, functions, globals;
  glsl_binding *env;
  int env_count, env_capacity;
  glsl_spec *specs;
  int spec_count;
  glsl_key *keys;
  kl_glsl_param *params;
  glsl_root **param_roots;
  unsigned caps;
  bool int64_atomics;
  bool failed;
  const char *last_failure;
} glsl_emitter;

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
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "radians",
    "degrees", "fma", "ldexp", "frexp", "isnan", "isinf", "dot", "cross", "length", "distance",
    "normalize", "barrier", "memoryBarrier", "memoryBarrierShared", "memoryBarrierBuffer",
    "groupMemoryBarrier", "atomicAdd", "atomicMin", "atomicMax", "atomicAnd", "atomicOr",
    "atomicXor", "atomicExchange", "atomicCompSwap", "floatBitsToInt", "floatBitsToUint",
    "intBitsToFloat", "uintBitsToFloat", "umulExtended", "imulExtended", "uaddCarry",
    "usubBorrow", "bitfieldExtract", "bitfieldInsert", "bitfieldReverse", "packDouble2x32",
    "unpackDouble2x32", "packUint2x32", "unpackUint2x32", "int8_t", "uint8_t", "int16_t",
    "uint16_t", "int64_t", "uint64_t", "float16_t", "i8vec2", "i8vec3", "i8vec4", "u8vec2",
    "u8vec3", "u8vec4", "i16vec2", "i16vec3", "i16vec4", "u16vec2", "u16vec3", "u16vec4",
    "i64vec2", "i64vec3", "i64vec4", "u64vec2", "u64vec3", "u64vec4", "modf", "outerProduct",
    "transpose", "determinant", "inverse", "faceforward", "reflect", "refract", "matrixCompMult",
    "emit", "dFdx", "dFdy", "fwidth", "noise", "pack32", "unpack32", "pack16", "unpack16",
    "pack64", "unpack8", "int64BitsToDouble", "doubleBitsToInt64", "doubleBitsToUint64",
    "uint64BitsToDouble", NULL};

static void glsl_fail(glsl_emitter *e, kl_location at, const char *what) {
  if (e->failed && e->last_failure && strcmp(e->last_failure, what) == 0) return; /* once is enough */
  e->last_failure = what;
  kl_error(e->ctx, at, "the GLSL target does not support %s", what);
  e->failed = true;
}

static const char *glsl_name(glsl_emitter *e, const char *name) {
  return klg_ident(e->ctx, name, glsl_reserved, true);
}

/* ------------------------------------------------------------ types */

static const char *glsl_scalar(glsl_emitter *e, const kl_type *t, kl_location at) {
  switch (t->kind) {
    case KL_TYPE_VOID: return "void";
    case KL_TYPE_BOOL: return "bool";
    case KL_TYPE_CHAR: e->caps |= KL_GLSL_NEEDS_INT8; return "int8_t";
    case KL_TYPE_UCHAR: e->caps |= KL_GLSL_NEEDS_INT8; return "uint8_t";
    case KL_TYPE_SHORT: e->caps |= KL_GLSL_NEEDS_INT16; return "int16_t";
    case KL_TYPE_USHORT: e->caps |= KL_GLSL_NEEDS_INT16; return "uint16_t";
    case KL_TYPE_INT: case KL_TYPE_PTRDIFF_T: return "int";
    case KL_TYPE_UINT: case KL_TYPE_SIZE_T: return "uint";
    case KL_TYPE_LONG: e->caps |= KL_GLSL_NEEDS_INT64; return "int64_t";
    case KL_TYPE_ULONG: e->caps |= KL_GLSL_NEEDS_INT64; return "uint64_t";
    case KL_TYPE_FLOAT: return "float";
    case KL_TYPE_DOUBLE: e->caps |= KL_GLSL_NEEDS_FP64; return "double";
    case KL_TYPE_HALF: glsl_fail(e, at, "half"); return "float";
    default: return "int";
  }
}

static const char *glsl_vector_prefix(glsl_emitter *e, const kl_type *el, kl_location at) {
  switch (el->kind) {
    case KL_TYPE_BOOL: return "bvec";
    case KL_TYPE_CHAR: e->caps |= KL_GLSL_NEEDS_INT8; return "i8vec";
    case KL_TYPE_UCHAR: e->caps |= KL_GLSL_NEEDS_INT8; return "u8vec";
    case KL_TYPE_SHORT: e->caps |= KL_GLSL_NEEDS_INT16; return "i16vec";
    case KL_TYPE_USHORT: e->caps |= KL_GLSL_NEEDS_INT16; return "u16vec";
    case KL_TYPE_INT: case KL_TYPE_PTRDIFF_T: return "ivec";
    case KL_TYPE_UINT: case KL_TYPE_SIZE_T: return "uvec";
    case KL_TYPE_LONG: e->caps |= KL_GLSL_NEEDS_INT64; return "i64vec";
    case KL_TYPE_ULONG: e->caps |= KL_GLSL_NEEDS_INT64; return "u64vec";
    case KL_TYPE_FLOAT: return "vec";
    case KL_TYPE_DOUBLE: e->caps |= KL_GLSL_NEEDS_FP64; return "dvec";
    default: glsl_fail(e, at, "vectors of this element type"); return "vec";
  }
}

static const char *glsl_type(glsl_emitter *e, const kl_type *t, kl_location at) {
  if (!t) return "void";
  switch (t->kind) {
    case KL_TYPE_VECTOR:
      if (t->length > 4) {
        glsl_fail(e, at, "vectors of 8 or 16 components");
        return "vec4";
      }
      return kl_format(e->ctx, "%s%d", glsl_vector_prefix(e, t->element, at), t->length);
    case KL_TYPE_STRUCT: return glsl_name(e, klg_struct_name(e->ctx, e->program, t));
    case KL_TYPE_POINTER: return "uint"; /* an offset; the root is tracked */
    case KL_TYPE_ARRAY: {
      const char *dims = "";
      while (t->kind == KL_TYPE_ARRAY) {
        dims = kl_format(e->ctx, "%s[%d]", dims, t->length);
        t = t->element;
      }
      return kl_format(e->ctx, "%s%s", glsl_type(e, t, at), dims);
    }
    case KL_TYPE_FUNCTION: glsl_fail(e, at, "function types"); return "void";
    default: return glsl_scalar(e, t, at);
  }
}

static const char *glsl_decl(glsl_emitter *e, const kl_type *t, const char *name, kl_location at) {
  const char *dims = "";
  while (t->kind == KL_TYPE_ARRAY) {
    dims = kl_format(e->ctx, "%s[%d]", dims, t->length);
    t = t->element;
  }
  return kl_format(e->ctx, "%s %s%s", glsl_type(e, t, at), name, dims);
}

/* The type of a same-shape type with another element. */
static const char *glsl_with_element(glsl_emitter *e, const kl_type *shape, const kl_type *el,
                                     kl_location at) {
  if (klg_is_vector(shape)) return kl_format(e->ctx, "%s%d", glsl_vector_prefix(e, el, at), shape->length);
  return glsl_scalar(e, el, at);
}

static const kl_type *glsl_unsigned_of(glsl_emitter *e, const kl_type *s) {
  switch (s->kind) {
    case KL_TYPE_CHAR: return kl_type_scalar(e->ctx, KL_TYPE_UCHAR);
    case KL_TYPE_SHORT: return kl_type_scalar(e->ctx, KL_TYPE_USHORT);
    case KL_TYPE_INT: return kl_type_scalar(e->ctx, KL_TYPE_UINT);
    case KL_TYPE_LONG: return kl_type_scalar(e->ctx, KL_TYPE_ULONG);
    case KL_TYPE_PTRDIFF_T: return kl_type_scalar(e->ctx, KL_TYPE_SIZE_T);
    default: return s;
  }
}

static int glsl_bits(const kl_type *s) {
  if (s->kind == KL_TYPE_SIZE_T || s->kind == KL_TYPE_PTRDIFF_T) return 32;
  return s->size * 8;
}

/* std430 size and alignment of the GLSL type that represents t. */
static void glsl_std430(const kl_type *t, int *size, int *align) {
  switch (t->kind) {
    case KL_TYPE_VECTOR: {
      int es = t->element->size;
      if (t->element->kind == KL_TYPE_SIZE_T || t->element->kind == KL_TYPE_PTRDIFF_T) es = 4;
      *size = es * t->length;
      *align = es * (t->length == 3 ? 4 : t->length);
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
    case KL_TYPE_SIZE_T: case KL_TYPE_PTRDIFF_T: *size = 4; *align = 4; return;
    default: *size = t->size; *align = t->align ? t->align : 1; return;
  }
}

static void glsl_struct(glsl_emitter *e, const kl_type *t, klg_buf *o) {
  klg_printf(o, "struct %s {\n", glsl_type(e, t, t->members ? t->members->location : (kl_location){0}));
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
    if (natural > m->offset) glsl_fail(e, m->location, "this struct layout");
    klg_printf(o, "  %s;\n", glsl_decl(e, m->type, glsl_name(e, m->name), m->location));
    offset = m->offset + ms;
  }
  klg_puts(o, "};\n");
}

/* --------------------------------------------------------------- env */

static glsl_binding *glsl_lookup(glsl_emitter *e, const kl_variable *v) {
  for (int i = e->env_count - 1; i >= 0; i--)
    if (e->env[i].var == v) return &e->env[i];
  return NULL;
}

static glsl_binding *glsl_bind(glsl_emitter *e, const kl_variable *v, const char *name, glsl_root *root) {
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

static bool glsl_need(glsl_emitter *e, const char *key) {
  for (glsl_key *k = e->keys; k; k = k->next)
    if (strcmp(k->key, key) == 0) return false;
  glsl_key *k = kl_alloc(e->ctx, sizeof *k);
  k->key = kl_format(e->ctx, "%s", key);
  k->next = e->keys;
  e->keys = k;
  return true;
}

/* -------------------------------------------------------- expressions */

typedef enum glsl_access { ACCESS_READ, ACCESS_WRITE, ACCESS_READ_WRITE } glsl_access;

static void glsl_expr(glsl_emitter *e, const kl_node *n);
static void glsl_expr_mode(glsl_emitter *e, const kl_node *n, glsl_access mode);
static void glsl_cond(glsl_emitter *e, const kl_node *n);
static glsl_root *glsl_pointer(glsl_emitter *e, const kl_node *n);
static void glsl_stmt(glsl_emitter *e, const kl_node *n, int depth);
static bool glsl_pure(const kl_node *n);

static void glsl_int_literal(glsl_emitter *e, const kl_type *t, uint64_t v) {
  klg_buf *o = e->out;
  switch (t->kind) {
    case KL_TYPE_BOOL: klg_puts(o, v ? "true" : "false"); return;
    case KL_TYPE_INT: case KL_TYPE_PTRDIFF_T:
      if ((int32_t)v == INT32_MIN) klg_puts(o, "(-2147483647 - 1)");
      else klg_printf(o, (int32_t)v < 0 ? "(%d)" : "%d", (int32_t)v);
      return;
    case KL_TYPE_UINT: case KL_TYPE_SIZE_T: klg_printf(o, "%uu", (uint32_t)v); return;
    case KL_TYPE_LONG:
      e->caps |= KL_GLSL_NEEDS_INT64;
      if ((int64_t)v == INT64_MIN) klg_puts(o, "(-9223372036854775807l - 1l)");
      else klg_printf(o, (int64_t)v < 0 ? "(%lldl)" : "%lldl", (long long)(int64_t)v);
      return;
    case KL_TYPE_ULONG: e->caps |= KL_GLSL_NEEDS_INT64; klg_printf(o, "%lluul", (unsigned long long)v); return;
    case KL_TYPE_FLOAT: klg_printf(o, "%lld.0", (long long)(int64_t)v); return;
    case KL_TYPE_DOUBLE: e->caps |= KL_GLSL_NEEDS_FP64; klg_printf(o, "%lld.0lf", (long long)(int64_t)v); return;
    default: klg_printf(o, "%s(%lld)", glsl_scalar(e, t, (kl_location){0}), (long long)(int64_t)v); return;
  }
}

static void glsl_float_value(glsl_emitter *e, double v, bool is_double) {
  klg_buf *o = e->out;
  if (is_double) e->caps |= KL_GLSL_NEEDS_FP64;
  if (v != v) {
    klg_puts(o, is_double ? "packDouble2x32(uvec2(0u, 0x7ff80000u))" : "uintBitsToFloat(0x7fc00000u)");
    return;
  }
  if (isinf(v)) {
    if (is_double) klg_puts(o, v > 0 ? "packDouble2x32(uvec2(0u, 0x7ff00000u))" : "packDouble2x32(uvec2(0u, 0xfff00000u))");
    else klg_puts(o, v > 0 ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)");
    return;
  }
  char text[64];
  if (is_double) snprintf(text, sizeof text, "%.17g", v);
  else snprintf(text, sizeof text, "%.9g", (double)(float)v);
  bool has_dot = strchr(text, '.') || strchr(text, 'e') || strchr(text, 'n') || strchr(text, 'i');
  if (text[0] == '-') klg_puts(o, "(");
  klg_puts(o, text);
  if (!has_dot) klg_puts(o, ".0");
  if (is_double) klg_puts(o, "lf");
  if (text[0] == '-') klg_puts(o, ")");
}

/* The zero of a scalar or vector type, as GLSL. */
static const char *glsl_zero(glsl_emitter *e, const kl_type *t, kl_location at) {
  return kl_format(e->ctx, "%s(0)", glsl_type(e, t, at));
}

static bool glsl_is_signed_int(const kl_type *t) {
  const kl_type *s = kl_type_scalar_of(t);
  return kl_type_is_integer(s) && kl_type_is_signed(s);
}

/* The signed mask type of a vector comparison result. */
static void glsl_mask_from_bvec(glsl_emitter *e, const kl_type *result, const char *bvec_text) {
  klg_printf(e->out, "(-%s(%s))", glsl_type(e, result, (kl_location){0}), bvec_text);
}

/* Text of an expression emitted into a scratch buffer. */
static const char *glsl_text_of(glsl_emitter *e, const kl_node *n) {
  klg_buf *saved = e->out;
  klg_buf tmp;
  klg_init(&tmp, e->ctx);
  e->out = &tmp;
  glsl_expr(e, n);
  e->out = saved;
  return klg_text(&tmp);
}

static const char *glsl_cond_text(glsl_emitter *e, const kl_node *n) {
  klg_buf *saved = e->out;
  klg_buf tmp;
  klg_init(&tmp, e->ctx);
  e->out = &tmp;
  glsl_cond(e, n);
  e->out = saved;
  return klg_text(&tmp);
}

static const char *glsl_pointer_text(glsl_emitter *e, const kl_node *n, glsl_root **root) {
  klg_buf *saved = e->out;
  klg_buf tmp;
  klg_init(&tmp, e->ctx);
  e->out = &tmp;
  *root = glsl_pointer(e, n);
  e->out = saved;
  return klg_text(&tmp);
}

/* An expression converted to `to` with a constructor where the types differ. */
static void glsl_expr_as(glsl_emitter *e, const kl_node *n, const kl_type *to) {
  if (!to || kl_type_equal(n->type, to) || to->kind == KL_TYPE_STRUCT || to->kind == KL_TYPE_ARRAY ||
      to->kind == KL_TYPE_POINTER || to->kind == KL_TYPE_VOID) {
    glsl_expr(e, n);
    return;
  }
  klg_printf(e->out, "%s(", glsl_type(e, to, n->location));
  glsl_expr(e, n);
  klg_puts(e->out, ")");
}

static bool glsl_is_comparison(kl_operator op) {
  return op == KL_OP_EQ || op == KL_OP_NE || op == KL_OP_LT || op == KL_OP_LE || op == KL_OP_GT ||
         op == KL_OP_GE;
}

static const char *glsl_vector_compare(kl_operator op) {
  switch (op) {
    case KL_OP_EQ: return "equal";
    case KL_OP_NE: return "notEqual";
    case KL_OP_LT: return "lessThan";
    case KL_OP_LE: return "lessThanEqual";
    case KL_OP_GT: return "greaterThan";
    default: return "greaterThanEqual";
  }
}

/* A condition: a GLSL bool. */
static void glsl_cond(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  if (n->kind == KL_EXPR_CONVERT && kl_type_is_scalar(n->type) && kl_type_is_scalar(n->lhs->type) &&
      (n->type->kind == KL_TYPE_BOOL || kl_type_is_integer(n->type)) &&
      (n->type->kind == KL_TYPE_BOOL || n->lhs->type->kind == KL_TYPE_BOOL)) {
    glsl_cond(e, n->lhs);
    return;
  }
  if (klg_is_pointer(n->type)) {
    glsl_fail(e, n->location, "pointers as conditions (there are no null pointers)");
    return;
  }
  if (n->kind == KL_EXPR_BINARY && !klg_is_vector(n->type) && !klg_is_vector(n->lhs->type)) {
    if (glsl_is_comparison(n->op)) {
      if (klg_is_pointer(n->lhs->type)) {
        glsl_root *ra, *rb;
        const char *a = glsl_pointer_text(e, n->lhs, &ra), *b = glsl_pointer_text(e, n->rhs, &rb);
        if (ra && rb && ra != rb) glsl_fail(e, n->location, "comparing pointers into different arrays");
        klg_printf(o, "(%s %s %s)", a, kl_operator_text(n->op), b);
        return;
      }
      klg_puts(o, "(");
      glsl_expr(e, n->lhs);
      klg_printf(o, " %s ", kl_operator_text(n->op));
      glsl_expr(e, n->rhs);
      klg_puts(o, ")");
      return;
    }
    if (n->op == KL_OP_LOGICAL_AND || n->op == KL_OP_LOGICAL_OR) {
      klg_puts(o, "(");
      glsl_cond(e, n->lhs);
      klg_printf(o, " %s ", kl_operator_text(n->op));
      glsl_cond(e, n->rhs);
      klg_puts(o, ")");
      return;
    }
  }
  if (n->kind == KL_EXPR_UNARY && n->op == KL_OP_LOGICAL_NOT && !klg_is_vector(n->type)) {
    klg_puts(o, "(!");
    glsl_cond(e, n->lhs);
    klg_puts(o, ")");
    return;
  }
  if (n->type->kind == KL_TYPE_BOOL) {
    glsl_expr(e, n);
    return;
  }
  if (klg_is_vector(n->type)) {
    glsl_fail(e, n->location, "vectors as conditions");
    return;
  }
  klg_puts(o, "(");
  glsl_expr(e, n);
  klg_printf(o, " != %s)", glsl_zero(e, n->type, n->location));
}

/* ------------------------------------------------------------ helpers */

/* A template: $T the scalar type, $U its unsigned type, $W its bits, $MAX
 * and $MIN its limits, $1 the extra text. */
static const char *glsl_fill(glsl_emitter *e, const char *tmpl, const kl_type *s, const char *extra) {
  klg_buf b;
  klg_init(&b, e->ctx);
  const kl_type *u = glsl_unsigned_of(e, s);
  int bits = glsl_bits(s);
  for (const char *p = tmpl; *p; p++) {
    if (*p != '$') {
      klg_putn(&b, p, 1);
      continue;
    }
    if (p[1] == 'T') { klg_puts(&b, glsl_scalar(e, s, (kl_location){0})); p++; }
    else if (p[1] == 'U') { klg_puts(&b, glsl_scalar(e, u, (kl_location){0})); p++; }
    else if (p[1] == 'W') { klg_printf(&b, "%d", bits); p++; }
    else if (p[1] == '1') { klg_puts(&b, extra ? extra : ""); p++; }
    else if (strncmp(p + 1, "MAX", 3) == 0 || strncmp(p + 1, "MIN", 3) == 0) {
      bool is_max = p[2] == 'A';
      const char *ts = glsl_scalar(e, s, (kl_location){0});
      if (kl_type_is_floating(s)) klg_puts(&b, "0");
      else if (!kl_type_is_signed(s)) {
        if (!is_max) klg_printf(&b, "%s(0)", ts);
        else if (bits == 64) klg_puts(&b, "18446744073709551615ul");
        else klg_printf(&b, "%s(%lluu)", ts, (unsigned long long)((1ull << bits) - 1));
      } else {
        if (bits == 64) klg_puts(&b, is_max ? "9223372036854775807l" : "(-9223372036854775807l - 1l)");
        else if (bits == 32) klg_puts(&b, is_max ? "2147483647" : "(-2147483647 - 1)");
        else klg_printf(&b, "%s(%lld)", ts, is_max ? (long long)((1ll << (bits - 1)) - 1) : -(long long)(1ll << (bits - 1)));
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
static void glsl_helper(glsl_emitter *e, const char *name, const kl_type *vec, const kl_type *s,
                        const kl_type *result, int nargs, const kl_type *arg2, const char *tmpl,
                        const char *extra) {
  const char *key = kl_format(e->ctx, "%s/%d/%d/%d", name, (int)s->kind, arg2 ? (int)arg2->kind : -1,
                              extra ? (int)strlen(extra) : 0);
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
  klg_printf(h, ") { %s r; for (int i = 0; i < %d; i++) r[i] = %s(a[i]%s%s); return r; }\n", rt, n, name,
             nargs > 1 ? ", b[i]" : "", nargs > 2 ? ", c[i]" : "");
}

static void glsl_call_args(glsl_emitter *e, const kl_node *args) {
  for (const kl_node *a = args; a; a = a->next) {
    glsl_expr(e, a);
    if (a->next) klg_puts(e->out, ", ");
  }
}

static void glsl_call(glsl_emitter *e, const char *name, const kl_node *args) {
  klg_printf(e->out, "%s(", name);
  glsl_call_args(e, args);
  klg_puts(e->out, ")");
}

/* -------------------------------------------------------- root access */

static void glsl_mark(glsl_root *root, glsl_access mode) {
  if (!root) return;
  if (mode != ACCESS_WRITE) root->read = true;
  if (mode != ACCESS_READ) root->written = true;
}

/* ROOT[offset + index] */
static void glsl_element(glsl_emitter *e, const kl_node *pointer, const kl_node *index, glsl_access mode,
                         kl_location at) {
  glsl_root *root;
  const char *offset = glsl_pointer_text(e, pointer, &root);
  if (!root) return;
  glsl_mark(root, mode);
  if (root->scalar) {
    klg_puts(e->out, root->array);
    return;
  }
  klg_printf(e->out, "%s[%s", root->array, offset);
  if (index) {
    klg_puts(e->out, " + uint(");
    glsl_expr(e, index);
    klg_puts(e->out, ")");
  }
  klg_puts(e->out, "]");
  (void)at;
}

static glsl_root *glsl_new_root(glsl_emitter *e, glsl_root_kind kind, const kl_variable *var,
                                const char *array) {
  glsl_root *r = kl_alloc(e->ctx, sizeof *r);
  r->kind = kind;
  r->var = var;
  r->array = array;
  r->buffer = -1;
  return r;
}

/* A root for an array variable (shared, constant or private). */
static glsl_root *glsl_array_root(glsl_emitter *e, const kl_variable *v, kl_location at) {
  glsl_binding *b = glsl_lookup(e, v);
  if (b && b->root) return b->root;
  if (v->type->kind == KL_TYPE_ARRAY && v->type->element->kind == KL_TYPE_ARRAY) {
    glsl_fail(e, at, "pointers into arrays of arrays");
    return NULL;
  }
  glsl_root_kind kind = v->space == KL_SPACE_LOCAL ? ROOT_SHARED
                        : (v->is_program_scope || v->space == KL_SPACE_CONSTANT) ? ROOT_CONSTANT
                                                                                 : ROOT_PRIVATE;
  const char *array = b ? b->name : glsl_name(e, v->name);
  glsl_root *r = glsl_new_root(e, kind, v, array);
  if (b) b->root = r;
  else glsl_bind(e, v, array, r);
  return r;
}

static const char *glsl_var_name(glsl_emitter *e, const kl_variable *v) {
  glsl_binding *b = glsl_lookup(e, v);
  if (b) return b->name;
  return glsl_name(e, v->name);
}

/* Emits a pointer's offset (a uint expression); returns its root. */
static glsl_root *glsl_pointer(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  switch (n->kind) {
    case KL_EXPR_VARIABLE: {
      if (n->variable->type->kind == KL_TYPE_ARRAY) {
        glsl_root *r = glsl_array_root(e, n->variable, n->location);
        klg_puts(o, "0u");
        return r;
      }
      glsl_binding *b = glsl_lookup(e, n->variable);
      if (!b || !b->root) {
        glsl_fail(e, n->location, kl_format(e->ctx, "pointer '%s' whose array is not known here (assign it before use, from one array only)", n->variable->name));
        return NULL;
      }
      klg_puts(o, b->name);
      return b->root;
    }
    case KL_EXPR_CONVERT:
    case KL_EXPR_CAST: {
      const kl_type *from = n->lhs->type;
      if (from->kind == KL_TYPE_ARRAY) {
        if (n->lhs->kind == KL_EXPR_VARIABLE) return glsl_pointer(e, n->lhs);
        glsl_fail(e, n->location, "pointers into this array");
        return NULL;
      }
      if (!klg_is_pointer(from) || !kl_type_equal(from->element, n->type->element)) {
        if (klg_is_pointer(from) && from->element->kind != KL_TYPE_STRUCT && n->type->element->kind != KL_TYPE_STRUCT &&
            from->element->size == n->type->element->size && kl_type_scalar_of(from->element) == from->element &&
            kl_type_scalar_of(n->type->element) == n->type->element && kl_type_is_integer(from->element) &&
            kl_type_is_integer(n->type->element)) {
          glsl_fail(e, n->location, "pointer casts between element types");
          return NULL;
        }
        if (klg_is_pointer(from) && kl_type_equal(kl_type_scalar_of(from->element), kl_type_scalar_of(n->type->element)) &&
            from->element->kind == n->type->element->kind)
          return glsl_pointer(e, n->lhs);
        glsl_fail(e, n->location, "pointer casts between element types");
        return NULL;
      }
      return glsl_pointer(e, n->lhs);
    }
    case KL_EXPR_BINARY:
      if (n->op == KL_OP_ADD || n->op == KL_OP_SUB) {
        const kl_node *p = klg_is_pointer(n->lhs->type) || n->lhs->type->kind == KL_TYPE_ARRAY ? n->lhs : n->rhs;
        const kl_node *i = p == n->lhs ? n->rhs : n->lhs;
        klg_puts(o, "(");
        glsl_root *r = glsl_pointer(e, p);
        klg_printf(o, " %s uint(", n->op == KL_OP_ADD ? "+" : "-");
        glsl_expr(e, i);
        klg_puts(o, "))");
        return r;
      }
      break;
    case KL_EXPR_UNARY:
      if (n->op == KL_OP_ADDRESS_OF) {
        const kl_node *t = n->lhs;
        if (t->kind == KL_EXPR_INDEX) {
          const kl_node *base = t->lhs;
          while (base->kind == KL_EXPR_CONVERT && base->lhs->type->kind == KL_TYPE_ARRAY) base = base->lhs;
          klg_puts(o, "(");
          glsl_root *r = glsl_pointer(e, base);
          klg_puts(o, " + uint(");
          glsl_expr(e, t->rhs);
          klg_puts(o, "))");
          return r;
        }
        if (t->kind == KL_EXPR_UNARY && t->op == KL_OP_DEREFERENCE) return glsl_pointer(e, t->lhs);
        if (t->kind == KL_EXPR_VARIABLE && t->variable->type->kind == KL_TYPE_ARRAY) return glsl_pointer(e, t);
        if (t->kind == KL_EXPR_VARIABLE && !t->variable->is_parameter &&
            (kl_type_is_scalar(t->variable->type) || klg_is_vector(t->variable->type))) {
          glsl_binding *b = glsl_lookup(e, t->variable);
          if (b && !b->root) {
            b->root = glsl_new_root(e, t->variable->space == KL_SPACE_LOCAL ? ROOT_SHARED : ROOT_PRIVATE, t->variable, b->name);
            b->root->scalar = true;
          }
          if (b && b->root && b->root->scalar) {
            klg_puts(o, "0u");
            return b->root;
          }
        }
        glsl_fail(e, n->location, "pointers to variables or members (only to array and buffer elements)");
        return NULL;
      }
      if (n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT || n->op == KL_OP_PRE_INCREMENT ||
          n->op == KL_OP_PRE_DECREMENT) {
        if (n->lhs->kind != KL_EXPR_VARIABLE) break;
        glsl_binding *b = glsl_lookup(e, n->lhs->variable);
        if (!b || !b->root) break;
        const char *op = (n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_PRE_INCREMENT) ? "++" : "--";
        bool post = n->op == KL_OP_POST_INCREMENT || n->op == KL_OP_POST_DECREMENT;
        if (post) klg_printf(o, "(%s%s)", b->name, op);
        else klg_printf(o, "(%s%s)", op, b->name);
        return b->root;
      }
      break;
    case KL_EXPR_CONDITIONAL: {
      glsl_root *ra, *rb;
      const char *c = glsl_cond_text(e, n->condition);
      const char *a = glsl_pointer_text(e, n->then, &ra), *b = glsl_pointer_text(e, n->otherwise, &rb);
      if (ra && rb && ra != rb) {
        glsl_fail(e, n->location, "a pointer that may point into different arrays");
        return NULL;
      }
      klg_printf(o, "(%s ? %s : %s)", c, a, b);
      return ra;
    }
    case KL_EXPR_COMMA:
      klg_puts(o, "(");
      glsl_expr(e, n->lhs);
      klg_puts(o, ", ");
      {
        glsl_root *r = glsl_pointer(e, n->rhs);
        klg_puts(o, ")");
        return r;
      }
    case KL_EXPR_ASSIGN: {
      if (n->lhs->kind != KL_EXPR_VARIABLE) break;
      glsl_binding *b = glsl_lookup(e, n->lhs->variable);
      if (!b) break;
      if (n->op == KL_OP_NONE) {
        glsl_root *r;
        const char *v = glsl_pointer_text(e, n->rhs, &r);
        if (!r) return NULL;
        if (b->root && b->root != r) {
          glsl_fail(e, n->location, kl_format(e->ctx, "pointer '%s' pointing into different arrays", n->lhs->variable->name));
          return NULL;
        }
        b->root = r;
        klg_printf(o, "(%s = %s)", b->name, v);
        return r;
      }
      if (!b->root) break;
      klg_printf(o, "(%s %s= uint(", b->name, n->op == KL_OP_ADD ? "+" : "-");
      glsl_expr(e, n->rhs);
      klg_puts(o, "))");
      return b->root;
    }
    default: break;
  }
  glsl_fail(e, n->location, "this pointer expression");
  return NULL;
}

/* ------------------------------------------------------------ builtins */

static bool glsl_const_dim(const kl_node *n, int *dim) {
  n = klg_strip_convert(n);
  if (n && n->kind == KL_EXPR_INT_LITERAL && n->int_value < 3) {
    *dim = (int)n->int_value;
    return true;
  }
  return false;
}

static void glsl_work_item(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_builtin *b = n->builtin;
  static const char xyz[] = "xyz";
  int d = 0;
  bool constant = n->args && glsl_const_dim(n->args, &d);
  const char *key = NULL, *body = NULL, *name = NULL;
  switch (b->id) {
    case KL_BUILTIN_GET_WORK_DIM: klg_puts(o, "_cl_p._cl_work_dim"); return;
    case KL_BUILTIN_GET_GLOBAL_OFFSET: klg_puts(o, "0u"); return;
    case KL_BUILTIN_GET_LOCAL_ID:
      if (constant) { klg_printf(o, "gl_LocalInvocationID.%c", xyz[d]); return; }
      name = "_cl_local_id"; key = name;
      body = "uint _cl_local_id(uint d) { return d < 3u ? gl_LocalInvocationID[d] : 0u; }\n";
      break;
    case KL_BUILTIN_GET_LOCAL_SIZE:
      if (constant) { klg_printf(o, "gl_WorkGroupSize.%c", xyz[d]); return; }
      name = "_cl_local_size"; key = name;
      body = "uint _cl_local_size(uint d) { uvec3 s = gl_WorkGroupSize; return d < 3u ? s[d] : 1u; }\n";
      break;
    case KL_BUILTIN_GET_GROUP_ID:
      if (constant) { klg_printf(o, "(gl_WorkGroupID.%c + _cl_p._cl_group_offset.%c)", xyz[d], xyz[d]); return; }
      name = "_cl_group_id"; key = name;
      body = "uint _cl_group_id(uint d) { return d < 3u ? gl_WorkGroupID[d] + _cl_p._cl_group_offset[d] : 0u; }\n";
      break;
    case KL_BUILTIN_GET_NUM_GROUPS:
      if (constant) { klg_printf(o, "_cl_p._cl_num_groups.%c", xyz[d]); return; }
      name = "_cl_num_groups"; key = name;
      body = "uint _cl_num_groups(uint d) { return d < 3u ? _cl_p._cl_num_groups[d] : 1u; }\n";
      break;
    case KL_BUILTIN_GET_GLOBAL_SIZE:
      if (constant) { klg_printf(o, "(_cl_p._cl_num_groups.%c * gl_WorkGroupSize.%c)", xyz[d], xyz[d]); return; }
      name = "_cl_global_size"; key = name;
      body = "uint _cl_global_size(uint d) { uvec3 s = gl_WorkGroupSize; return d < 3u ? _cl_p._cl_num_groups[d] * s[d] : 1u; }\n";
      break;
    default: /* GET_GLOBAL_ID */
      if (constant) {
        klg_printf(o, "((gl_WorkGroupID.%c + _cl_p._cl_group_offset.%c) * gl_WorkGroupSize.%c + gl_LocalInvocationID.%c)",
                   xyz[d], xyz[d], xyz[d], xyz[d]);
        return;
      }
      name = "_cl_global_id"; key = name;
      body = "uint _cl_global_id(uint d) { uvec3 s = gl_WorkGroupSize; return d < 3u ? (gl_WorkGroupID[d] + _cl_p._cl_group_offset[d]) * s[d] + gl_LocalInvocationID[d] : 0u; }\n";
      break;
  }
  if (glsl_need(e, key)) klg_puts(&e->helpers, body);
  klg_printf(o, "%s(uint(", name);
  glsl_expr(e, n->args);
  klg_puts(o, "))");
}

static const char *glsl_fence(const kl_node *flags) {
  flags = klg_strip_convert(flags);
  if (flags && flags->kind == KL_EXPR_INT_LITERAL) {
    if (flags->int_value == 1) return "memoryBarrierShared()";
    if (flags->int_value == 2) return "memoryBarrierBuffer()";
  }
  return "memoryBarrier()";
}

static void glsl_atomic(glsl_emitter *e, const kl_node *n) {
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
    case KL_BUILTIN_ATOMIC_ADD: case KL_BUILTIN_ATOMIC_SUB: case KL_BUILTIN_ATOMIC_INC:
    case KL_BUILTIN_ATOMIC_DEC: f = "atomicAdd"; break;
    case KL_BUILTIN_ATOMIC_XCHG: f = "atomicExchange"; break;
    case KL_BUILTIN_ATOMIC_CMPXCHG: f = "atomicCompSwap"; break;
    case KL_BUILTIN_ATOMIC_MIN: f = "atomicMin"; break;
    case KL_BUILTIN_ATOMIC_MAX: f = "atomicMax"; break;
    case KL_BUILTIN_ATOMIC_AND: f = "atomicAnd"; break;
    case KL_BUILTIN_ATOMIC_OR: f = "atomicOr"; break;
    default: f = "atomicXor"; break;
  }
  klg_printf(o, "%s(", f);
  glsl_element(e, p, NULL, ACCESS_READ_WRITE, n->location);
  switch (b->id) {
    case KL_BUILTIN_ATOMIC_INC: klg_printf(o, ", %s(1))", ts); return;
    case KL_BUILTIN_ATOMIC_DEC: klg_printf(o, ", %s(0) - %s(1))", ts, ts); return;
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

static void glsl_vload_store(glsl_emitter *e, const kl_node *n, bool store) {
  klg_buf *o = e->out;
  const kl_node *data = store ? n->args : NULL;
  const kl_node *offset = store ? n->args->next : n->args;
  const kl_node *p = offset->next;
  const kl_type *vt = store ? data->type : n->type;
  if (kl_type_scalar_of(vt)->kind == KL_TYPE_HALF) {
    glsl_fail(e, n->location, "half loads and stores");
    return;
  }
  int count = vt->length;
  glsl_root *root;
  const char *base = glsl_pointer_text(e, p, &root);
  if (!root) return;
  if (root->kind == ROOT_PRIVATE || root->scalar) {
    if (root->scalar || !glsl_pure(offset) || !glsl_pure(p) || (data && !glsl_pure(data))) {
      glsl_fail(e, n->location, "vloadN/vstoreN on private arrays with side effects in the arguments");
      return;
    }
    const char *idx = glsl_text_of(e, offset);
    if (store) {
      const char *d = glsl_text_of(e, data);
      klg_puts(o, "(");
      for (int k = 0; k < count; k++)
        klg_printf(o, "%s%s[%s + uint(%s) * %du + %du] = (%s)[%d]", k ? ", " : "", root->array, base, idx, count, k, d, k);
      klg_puts(o, ")");
    } else {
      klg_printf(o, "%s(", glsl_type(e, vt, n->location));
      for (int k = 0; k < count; k++)
        klg_printf(o, "%s%s[%s + uint(%s) * %du + %du]", k ? ", " : "", root->array, base, idx, count, k);
      klg_puts(o, ")");
    }
    return;
  }
  glsl_mark(root, store ? ACCESS_WRITE : ACCESS_READ);
  const char *type = glsl_type(e, vt, n->location);
  const char *name = kl_format(e->ctx, "_cl_%s%d_%s", store ? "vstore" : "vload", count, root->array);
  if (glsl_need(e, name)) {
    klg_buf *h = &e->functions;
    if (store) {
      klg_printf(h, "void %s(%s v, uint i) {", name, type);
      for (int k = 0; k < count; k++) klg_printf(h, " %s[i + %du] = v[%d];", root->array, k, k);
      klg_puts(h, " }\n");
    } else {
      klg_printf(h, "%s %s(uint i) { return %s(", type, name, type);
      for (int k = 0; k < count; k++) klg_printf(h, "%s%s[i + %du]", k ? ", " : "", root->array, k);
      klg_puts(h, "); }\n");
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

static bool glsl_float_only(glsl_emitter *e, const kl_node *n) {
  if (kl_type_scalar_of(n->type)->kind == KL_TYPE_DOUBLE ||
      (n->args && kl_type_scalar_of(n->args->type)->kind == KL_TYPE_DOUBLE)) {
    glsl_fail(e, n->location, kl_format(e->ctx, "%s on double (GLSL has it for float only)", n->builtin->canonical));
    return false;
  }
  return true;
}

/* Conversions: convert_T[_sat][_rXX]. */
static void glsl_convert(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_builtin *b = n->builtin;
  const kl_node *x = n->args;
  const kl_type *to = kl_type_scalar_of(n->type), *from = kl_type_scalar_of(x->type);
  const char *tt = glsl_type(e, n->type, n->location);
  kl_rounding rm = b->rounding;
  if (kl_type_is_floating(to)) {
    bool exact = (kl_type_is_floating(from) && from->size <= to->size) || (kl_type_is_integer(from) && from->size <= 2);
    if (rm != KL_ROUND_DEFAULT && rm != KL_ROUND_RTE && !exact) {
      if (to->kind != KL_TYPE_FLOAT) {
        glsl_fail(e, n->location, "conversions to double with a rounding mode other than rte");
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
      const char *mag = from->kind == KL_TYPE_DOUBLE ? ""
                        : from->size == 8 ? (kl_type_is_signed(from) ? "uint64_t m = x < $T(0) ? uint64_t(0) - uint64_t(x) : uint64_t(x); " : "uint64_t m = uint64_t(x); ")
                                          : (kl_type_is_signed(from) ? "uint m = x < $T(0) ? 0u - uint(x) : uint(x); " : "uint m = uint(x); ");
      const char *fix_away = rm == KL_ROUND_RTZ ? "true" : rm == KL_ROUND_RTP ? "neg" : "!neg";
      const char *fix_toward = rm == KL_ROUND_RTZ ? "false" : rm == KL_ROUND_RTP ? "!neg" : "neg";
      const char *tmpl = kl_format(e->ctx,
                                   "float %s($T x) { float f = float(x); if (isinf(f) || isnan(f) || f == 0.0) return f; %sbool neg = x < $T(0); "
                                   "if (%s && %s) f = uintBitsToFloat(floatBitsToUint(f) - 1u); "
                                   "else if (%s && %s) f = uintBitsToFloat(floatBitsToUint(f) + 1u); return f; }",
                                   name, mag, fix_away, away, fix_toward, toward);
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
    const char *round = rm == KL_ROUND_RTE ? "roundEven" : rm == KL_ROUND_RTP ? "ceil" : rm == KL_ROUND_RTN ? "floor" : "";
    if (!b->saturate) {
      klg_printf(o, "%s(%s(", tt, round);
      glsl_expr(e, x);
      klg_puts(o, "))");
      return;
    }
    /* saturate: NaN -> 0, clamp to the range */
    const char *fs = glsl_scalar(e, from, n->location);
    const char *name = kl_format(e->ctx, "_cl_sat_%s_%s%s", fs, glsl_scalar(e, to, n->location), round[0] ? round : "trunc");
    const char *tmpl = kl_format(e->ctx,
                                 "$T %s(%s x) { %s r = %s(x); if (isnan(x)) return $T(0); if (r <= %s($MIN)) return $MIN; "
                                 "if (r >= %s($MAX)) return $MAX; return $T(r); }",
                                 name, fs, fs, round[0] ? round : "trunc", fs, fs);
    glsl_helper(e, name, n->type, to, to, 1, NULL, tmpl, NULL);
    if (klg_is_vector(n->type)) {
      /* the vector overload takes the source vector type */
      const char *key = kl_format(e->ctx, "%s/vsrc%d", name, n->type->length);
      if (glsl_need(e, key)) {
        const char *st = glsl_type(e, x->type, n->location);
        klg_printf(&e->helpers, "%s %s(%s a) { %s r; for (int i = 0; i < %d; i++) r[i] = %s(a[i]); return r; }\n", tt,
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
    body = fb > tb ? "if (x < %1$s($MIN)) return $MIN; if (x > %1$s($MAX)) return $MAX; return $T(x);" : "return $T(x);";
  }
  char filled[512];
  snprintf(filled, sizeof filled, body, fs);
  const char *tmpl = kl_format(e->ctx, "$T %s(%s x) { %s }", name, fs, filled);
  glsl_helper(e, name, n->type, to, to, 1, NULL, tmpl, NULL);
  if (klg_is_vector(n->type)) {
    const char *key = kl_format(e->ctx, "%s/vsrc%d", name, n->type->length);
    if (glsl_need(e, key)) {
      const char *st = glsl_type(e, x->type, n->location);
      klg_printf(&e->helpers, "%s %s(%s a) { %s r; for (int i = 0; i < %d; i++) r[i] = %s(a[i]); return r; }\n", tt, name,
                 st, tt, n->type->length, name);
    }
  }
  klg_printf(o, "%s(", name);
  glsl_expr(e, x);
  klg_puts(o, ")");
}

static void glsl_as(glsl_emitter *e, const kl_node *n) {
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
      if (fs->kind == KL_TYPE_DOUBLE) words = "unpackDouble2x32(%s)";
      else if (fl == 1) words = "unpackUint2x32(uint64_t(%s))";
      else if (fs->size == 4) words = kl_type_is_floating(fs) ? "floatBitsToUint(%s)" : "uvec2(%s)";
      else words = NULL;
      const char *xs = glsl_text_of(e, x);
      if (words) {
        const char *w = kl_format(e->ctx, words, xs);
        if (ts->kind == KL_TYPE_DOUBLE) { klg_printf(o, "packDouble2x32(%s)", w); return; }
        if (tl == 1) { e->caps |= KL_GLSL_NEEDS_INT64; klg_printf(o, "%s(packUint2x32(%s))", tt, w); return; }
        if (ts->size == 4) {
          if (kl_type_is_floating(ts)) klg_printf(o, "uintBitsToFloat(%s)", w);
          else klg_printf(o, "%s(%s)", tt, w);
          return;
        }
      }
    }
    if (to->size == 4 && from->size == 4) {
      const char *xs = glsl_text_of(e, x);
      const char *word;
      if (fl == 1) word = kl_type_is_floating(fs) ? kl_format(e->ctx, "floatBitsToUint(%s)", xs) : kl_format(e->ctx, "uint(%s)", xs);
      else if (fs->size == 1) word = kl_format(e->ctx, "pack32(u8vec4(%s))", xs);
      else word = kl_format(e->ctx, "pack32(u16vec2(%s))", xs);
      if (tl == 1) {
        if (kl_type_is_floating(ts)) klg_printf(o, "uintBitsToFloat(%s)", word);
        else klg_printf(o, "%s(%s)", tt, word);
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
    const char *fn = fs->size == 8 ? (kl_type_is_signed(ts) ? "doubleBitsToInt64" : "doubleBitsToUint64")
                                   : (kl_type_is_signed(ts) ? "floatBitsToInt" : "floatBitsToUint");
    if (fs->size == 8) e->caps |= KL_GLSL_NEEDS_INT64;
    klg_printf(o, "%s(", fn);
    glsl_expr(e, x);
    klg_puts(o, ")");
  } else {
    const char *fn = ts->size == 8 ? (kl_type_is_signed(fs) ? "int64BitsToDouble" : "uint64BitsToDouble")
                                   : (kl_type_is_signed(fs) ? "intBitsToFloat" : "uintBitsToFloat");
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

/* The object an out-pointer argument names, as a GLSL lvalue. */
static const char *glsl_out_lvalue(glsl_emitter *e, const kl_node *p) {
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
static void glsl_out_builtin(glsl_emitter *e, const kl_node *n) {
  const kl_builtin *b = n->builtin;
  const kl_node *x = n->args, *y = x->next;
  const char *t = glsl_type(e, n->type, n->location);
  const char *xs = glsl_text_of(e, x);
  if (kl_type_scalar_of(n->type)->kind == KL_TYPE_DOUBLE && (b->id == KL_BUILTIN_SINCOS)) {
    glsl_fail(e, n->location, "sincos on double (GLSL has it for float only)");
    return;
  }
  switch (b->id) {
    case KL_BUILTIN_MODF: klg_printf(e->out, "modf(%s, %s)", xs, glsl_out_lvalue(e, y)); return;
    case KL_BUILTIN_FREXP: klg_printf(e->out, "frexp(%s, %s)", xs, glsl_out_lvalue(e, y)); return;
    case KL_BUILTIN_FRACT: {
      const char *name = "_cl_fract";
      if (glsl_need(e, kl_format(e->ctx, "_cl_fract/%s", t))) {
        const char *limit = kl_type_scalar_of(n->type)->kind == KL_TYPE_DOUBLE ? "0.99999999999999989lf" : "0.99999994";
        klg_printf(&e->helpers, "%s _cl_fract(%s x, out %s i) { i = floor(x); return min(x - i, %s(%s)); }\n", t, t, t, t, limit);
      }
      klg_printf(e->out, "%s(%s, %s)", name, xs, glsl_out_lvalue(e, y));
      return;
    }
    case KL_BUILTIN_SINCOS:
      if (glsl_need(e, kl_format(e->ctx, "_cl_sincos/%s", t)))
        klg_printf(&e->helpers, "%s _cl_sincos(%s x, out %s c) { c = cos(x); return sin(x); }\n", t, t, t);
      klg_printf(e->out, "_cl_sincos(%s, %s)", xs, glsl_out_lvalue(e, y));
      return;
    case KL_BUILTIN_REMQUO: {
      const kl_node *q = y->next;
      const char *qt = glsl_type(e, q->type->element, n->location);
      if (glsl_need(e, kl_format(e->ctx, "_cl_remquo/%s", t)))
        klg_printf(&e->helpers, "%s _cl_remquo(%s x, %s y, out %s q) { %s k = roundEven(x / y); q = %s(k); return x - k * y; }\n", t, t,
                   t, qt, t, qt);
      klg_printf(e->out, "_cl_remquo(%s, %s, %s)", xs, glsl_text_of(e, y), glsl_out_lvalue(e, q));
      return;
    }
    default: glsl_fail(e, n->location, kl_format(e->ctx, "%s (GLSL has no such function)", b->canonical)); return;
  }
}

/* The scalar-helper templates of builtins GLSL lacks or defines otherwise. */
static void glsl_builtin(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_builtin *b = n->builtin;
  const kl_node *a0 = n->args, *a1 = a0 ? a0->next : NULL, *a2 = a1 ? a1->next : NULL;
  const kl_type *rt = n->type;
  const kl_type *rs = kl_type_scalar_of(rt);
  const kl_type *as = a0 ? kl_type_scalar_of(a0->type) : rs;
  kl_location at = n->location;
  const char *tmpl = NULL, *name = NULL;
  int nargs = n->arg_count;
  const kl_type *arg2 = NULL;
  switch (b->category) {
    case KL_BUILTIN_WORK_ITEM: glsl_work_item(e, n); return;
    case KL_BUILTIN_SYNC:
      if (b->id == KL_BUILTIN_BARRIER) {
        glsl_fail(e, at, "barrier inside an expression");
        return;
      }
      klg_puts(o, glsl_fence(a0));
      return;
    case KL_BUILTIN_ATOMIC: glsl_atomic(e, n); return;
    case KL_BUILTIN_CONVERSION:
      if (b->id == KL_BUILTIN_CONVERT) glsl_convert(e, n);
      else glsl_as(e, n);
      return;
    case KL_BUILTIN_MEMORY: glsl_vload_store(e, n, b->id == KL_BUILTIN_VSTORE); return;
    default: break;
  }
  if (rs->kind == KL_TYPE_HALF || as->kind == KL_TYPE_HALF) {
    glsl_fail(e, at, "half");
    return;
  }
  switch (b->id) {
    /* GLSL functions with the same meaning */
    case KL_BUILTIN_ACOS: case KL_BUILTIN_ACOSH: case KL_BUILTIN_ASIN: case KL_BUILTIN_ASINH:
    case KL_BUILTIN_ATAN: case KL_BUILTIN_ATANH: case KL_BUILTIN_COS: case KL_BUILTIN_COSH:
    case KL_BUILTIN_EXP: case KL_BUILTIN_EXP2: case KL_BUILTIN_LOG: case KL_BUILTIN_LOG2:
    case KL_BUILTIN_SIN: case KL_BUILTIN_SINH: case KL_BUILTIN_TAN: case KL_BUILTIN_TANH:
    case KL_BUILTIN_DEGREES: case KL_BUILTIN_RADIANS:
      if (!glsl_float_only(e, n)) return;
      glsl_call(e, b->canonical, a0);
      return;
    case KL_BUILTIN_CEIL: case KL_BUILTIN_FLOOR: case KL_BUILTIN_SQRT: case KL_BUILTIN_TRUNC:
    case KL_BUILTIN_FMA: case KL_BUILTIN_SIGN: case KL_BUILTIN_STEP: case KL_BUILTIN_SMOOTHSTEP:
    case KL_BUILTIN_CROSS: case KL_BUILTIN_DOT: case KL_BUILTIN_DISTANCE: case KL_BUILTIN_LENGTH:
    case KL_BUILTIN_NORMALIZE: case KL_BUILTIN_LDEXP:
      if (b->id == KL_BUILTIN_CROSS && rt->length == 4) {
        const char *t = glsl_type(e, rt, at);
        klg_printf(o, "%s(cross((%s).xyz, (%s).xyz), 0)", t, glsl_text_of(e, a0), glsl_text_of(e, a1));
        return;
      }
      glsl_call(e, b->canonical, a0);
      return;
    case KL_BUILTIN_FAST_DISTANCE: glsl_call(e, "distance", a0); return;
    case KL_BUILTIN_FAST_LENGTH: glsl_call(e, "length", a0); return;
    case KL_BUILTIN_FAST_NORMALIZE: glsl_call(e, "normalize", a0); return;
    case KL_BUILTIN_ATAN2: if (!glsl_float_only(e, n)) return; glsl_call(e, "atan", a0); return;
    case KL_BUILTIN_FABS: glsl_call(e, "abs", a0); return;
    case KL_BUILTIN_FMAX: glsl_call(e, "max", a0); return;
    case KL_BUILTIN_FMIN: glsl_call(e, "min", a0); return;
    case KL_BUILTIN_MAX: case KL_BUILTIN_MIN: case KL_BUILTIN_CLAMP: case KL_BUILTIN_MIX:
      glsl_call(e, b->canonical, a0);
      return;
    case KL_BUILTIN_RINT: glsl_call(e, "roundEven", a0); return;
    case KL_BUILTIN_RSQRT: glsl_call(e, "inversesqrt", a0); return;
    case KL_BUILTIN_POWR: if (!glsl_float_only(e, n)) return; glsl_call(e, "pow", a0); return;
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
    case KL_BUILTIN_EXP10: case KL_BUILTIN_LOG10: case KL_BUILTIN_EXPM1: case KL_BUILTIN_LOG1P:
    case KL_BUILTIN_SINPI: case KL_BUILTIN_COSPI: case KL_BUILTIN_TANPI: case KL_BUILTIN_ACOSPI:
    case KL_BUILTIN_ASINPI: case KL_BUILTIN_ATANPI: case KL_BUILTIN_CBRT: case KL_BUILTIN_HYPOT:
    case KL_BUILTIN_ATAN2PI: {
      if (!glsl_float_only(e, n)) return;
      const char *x = glsl_text_of(e, a0);
      const char *t = glsl_type(e, rt, at);
      switch (b->id) {
        case KL_BUILTIN_EXP10: klg_printf(o, "exp2((%s) * 3.32192809)", x); return;
        case KL_BUILTIN_LOG10: klg_printf(o, "(log2(%s) * 0.301029996)", x); return;
        case KL_BUILTIN_EXPM1: klg_printf(o, "(exp(%s) - %s(1))", x, t); return;
        case KL_BUILTIN_LOG1P: klg_printf(o, "log(%s(1) + (%s))", t, x); return;
        case KL_BUILTIN_SINPI: klg_printf(o, "sin((%s) * 3.14159265)", x); return;
        case KL_BUILTIN_COSPI: klg_printf(o, "cos((%s) * 3.14159265)", x); return;
        case KL_BUILTIN_TANPI: klg_printf(o, "tan((%s) * 3.14159265)", x); return;
        case KL_BUILTIN_ACOSPI: klg_printf(o, "(acos(%s) * 0.318309886)", x); return;
        case KL_BUILTIN_ASINPI: klg_printf(o, "(asin(%s) * 0.318309886)", x); return;
        case KL_BUILTIN_ATANPI: klg_printf(o, "(atan(%s) * 0.318309886)", x); return;
        case KL_BUILTIN_CBRT: klg_printf(o, "(sign(%s) * pow(abs(%s), %s(1.0 / 3.0)))", x, x, t); return;
        case KL_BUILTIN_HYPOT: {
          const char *y = glsl_text_of(e, a1);
          if (!klg_is_vector(rt)) { klg_printf(o, "length(vec2(%s, %s))", x, y); return; }
          name = "_cl_hypot";
          tmpl = "$T _cl_hypot($T x, $T y) { return length(vec2(x, y)); }";
          break;
        }
        default: { /* ATAN2PI */
          klg_printf(o, "(atan(%s, %s) * 0.318309886)", x, glsl_text_of(e, a1));
          return;
        }
      }
      break;
    }
    case KL_BUILTIN_FMOD: name = "_cl_fmod"; tmpl = "$T _cl_fmod($T x, $T y) { return x - y * trunc(x / y); }"; break;
    case KL_BUILTIN_REMAINDER: name = "_cl_remainder"; tmpl = "$T _cl_remainder($T x, $T y) { return x - y * roundEven(x / y); }"; break;
    case KL_BUILTIN_FDIM: name = "_cl_fdim"; tmpl = "$T _cl_fdim($T x, $T y) { return x > y ? x - y : (isnan(x) || isnan(y) ? x + y : $T(0)); }"; break;
    case KL_BUILTIN_ROUND: name = "_cl_round"; tmpl = "$T _cl_round($T x) { $T t = trunc(x); return abs(x - t) >= $T(0.5) ? t + sign(x) : t; }"; break;
    case KL_BUILTIN_COPYSIGN:
      name = "_cl_copysign";
      tmpl = as->kind == KL_TYPE_DOUBLE
                 ? "$T _cl_copysign($T x, $T y) { uvec2 a = unpackDouble2x32(x), b = unpackDouble2x32(y); a.y = (a.y & 0x7fffffffu) | (b.y & 0x80000000u); return packDouble2x32(a); }"
                 : "$T _cl_copysign($T x, $T y) { return uintBitsToFloat((floatBitsToUint(x) & 0x7fffffffu) | (floatBitsToUint(y) & 0x80000000u)); }";
      break;
    case KL_BUILTIN_MAXMAG: name = "_cl_maxmag"; tmpl = "$T _cl_maxmag($T x, $T y) { $T a = abs(x), b = abs(y); return a > b ? x : (b > a ? y : max(x, y)); }"; break;
    case KL_BUILTIN_MINMAG: name = "_cl_minmag"; tmpl = "$T _cl_minmag($T x, $T y) { $T a = abs(x), b = abs(y); return a < b ? x : (b < a ? y : min(x, y)); }"; break;
    case KL_BUILTIN_POW:
      if (!glsl_float_only(e, n)) return;
      name = "_cl_pow";
      tmpl = "$T _cl_pow($T x, $T y) { if (y == $T(0)) return $T(1); if (x > $T(0)) return pow(x, y); if (x == $T(0)) return y > $T(0) ? $T(0) : uintBitsToFloat(0x7f800000u); "
             "if (y != trunc(y)) return uintBitsToFloat(0x7fc00000u); $T r = pow(-x, y); return mod(y, $T(2)) != $T(0) ? -r : r; }";
      break;
    case KL_BUILTIN_POWN:
      if (!glsl_float_only(e, n)) return;
      name = "_cl_pown";
      arg2 = kl_type_scalar(e->ctx, KL_TYPE_INT);
      tmpl = "$T _cl_pown($T x, int n) { if (n == 0) return $T(1); $T r = x == $T(0) ? (n > 0 ? $T(0) : uintBitsToFloat(0x7f800000u)) : pow(abs(x), $T(n)); "
             "return ((n & 1) != 0 && x < $T(0)) ? -r : r; }";
      break;
    case KL_BUILTIN_ROOTN:
      if (!glsl_float_only(e, n)) return;
      name = "_cl_rootn";
      arg2 = kl_type_scalar(e->ctx, KL_TYPE_INT);
      tmpl = "$T _cl_rootn($T x, int n) { if (x < $T(0) && (n & 1) == 0) return uintBitsToFloat(0x7fc00000u); $T r = pow(abs(x), $T(1) / $T(n)); return x < $T(0) ? -r : r; }";
      break;
    case KL_BUILTIN_LOGB: name = "_cl_logb"; tmpl = "$T _cl_logb($T x) { int e; frexp(x, e); return $T(e - 1); }"; break;
    case KL_BUILTIN_ILOGB:
      name = "_cl_ilogb";
      tmpl = "int _cl_ilogb($T x) { int e; frexp(x, e); return e - 1; }";
      glsl_helper(e, name, a0->type, as, kl_type_scalar(e->ctx, KL_TYPE_INT), 1, NULL, tmpl, NULL);
      glsl_call(e, name, a0);
      return;
    case KL_BUILTIN_NEXTAFTER:
      if (!glsl_float_only(e, n)) return;
      name = "_cl_nextafter";
      tmpl = "$T _cl_nextafter($T x, $T y) { if (isnan(x) || isnan(y)) return x + y; if (x == y) return y; "
             "if (x == $T(0)) return y > $T(0) ? uintBitsToFloat(1u) : uintBitsToFloat(0x80000001u); "
             "uint b = floatBitsToUint(x); b = ((x < y) == (x > $T(0))) ? b + 1u : b - 1u; return uintBitsToFloat(b); }";
      break;
    case KL_BUILTIN_FRACT: case KL_BUILTIN_MODF: case KL_BUILTIN_SINCOS: case KL_BUILTIN_FREXP:
    case KL_BUILTIN_REMQUO: case KL_BUILTIN_LGAMMA_R:
      glsl_out_builtin(e, n);
      return;
    case KL_BUILTIN_ERF: case KL_BUILTIN_ERFC: case KL_BUILTIN_LGAMMA: case KL_BUILTIN_TGAMMA:
      glsl_fail(e, at, kl_format(e->ctx, "%s (GLSL has no such function)", b->canonical));
      return;
    /* integer */
    case KL_BUILTIN_ABS:
      if (!kl_type_is_signed(as)) { glsl_expr(e, a0); return; }
      klg_printf(o, "%s(abs(", glsl_type(e, rt, at));
      glsl_expr(e, a0);
      klg_puts(o, "))");
      return;
    case KL_BUILTIN_ABS_DIFF:
      name = "_cl_abs_diff";
      tmpl = "$U _cl_abs_diff($T a, $T b) { return a > b ? $U($U(a) - $U(b)) : $U($U(b) - $U(a)); }";
      glsl_helper(e, name, a0->type, as, glsl_unsigned_of(e, as), 2, NULL, tmpl, NULL);
      glsl_call(e, name, a0);
      return;
    case KL_BUILTIN_ADD_SAT:
      name = "_cl_add_sat";
      tmpl = kl_type_is_signed(as) ? "$T _cl_add_sat($T a, $T b) { $T r = $T(a + b); if (b > $T(0) && r < a) return $MAX; if (b < $T(0) && r > a) return $MIN; return r; }"
                                   : "$T _cl_add_sat($T a, $T b) { $T r = $T(a + b); return r < a ? $MAX : r; }";
      break;
    case KL_BUILTIN_SUB_SAT:
      name = "_cl_sub_sat";
      tmpl = kl_type_is_signed(as) ? "$T _cl_sub_sat($T a, $T b) { $T r = $T(a - b); if (b < $T(0) && r < a) return $MAX; if (b > $T(0) && r > a) return $MIN; return r; }"
                                   : "$T _cl_sub_sat($T a, $T b) { return a < b ? $T(0) : $T(a - b); }";
      break;
    case KL_BUILTIN_HADD: name = "_cl_hadd"; tmpl = "$T _cl_hadd($T a, $T b) { return $T((a >> $T(1)) + (b >> $T(1)) + (a & b & $T(1))); }"; break;
    case KL_BUILTIN_RHADD: name = "_cl_rhadd"; tmpl = "$T _cl_rhadd($T a, $T b) { return $T((a >> $T(1)) + (b >> $T(1)) + ((a | b) & $T(1))); }"; break;
    case KL_BUILTIN_CLZ:
      name = "_cl_clz";
      tmpl = glsl_bits(as) == 64 ? "$T _cl_clz($T x) { uvec2 h = unpackUint2x32(uint64_t(x)); return $T(h.y != 0u ? 31 - findMSB(h.y) : (h.x != 0u ? 63 - findMSB(h.x) : 64)); }"
                                 : "$T _cl_clz($T x) { uint u = uint($U(x)); return $T(u == 0u ? $W : $W - 1 - findMSB(u)); }";
      break;
    case KL_BUILTIN_POPCOUNT:
      name = "_cl_popcount";
      tmpl = glsl_bits(as) == 64 ? "$T _cl_popcount($T x) { uvec2 h = unpackUint2x32(uint64_t(x)); return $T(bitCount(h.x) + bitCount(h.y)); }"
                                 : "$T _cl_popcount($T x) { return $T(bitCount(uint($U(x)))); }";
      break;
    case KL_BUILTIN_MUL_HI:
    case KL_BUILTIN_MAD_HI: {
      int bits = glsl_bits(as);
      bool sig = kl_type_is_signed(as);
      name = b->id == KL_BUILTIN_MUL_HI ? "_cl_mul_hi" : "_cl_mad_hi";
      const char *hi;
      if (bits < 32) hi = sig ? "$T((int(a) * int(b)) >> $W)" : "$T((uint(a) * uint(b)) >> $W)";
      else if (bits == 32) hi = NULL;
      else hi = NULL;
      if (bits < 32) {
        tmpl = b->id == KL_BUILTIN_MUL_HI ? kl_format(e->ctx, "$T _cl_mul_hi($T a, $T b) { return %s; }", hi)
                                          : kl_format(e->ctx, "$T _cl_mad_hi($T a, $T b, $T c) { return $T(%s + c); }", hi);
      } else if (bits == 32) {
        tmpl = b->id == KL_BUILTIN_MUL_HI
                   ? kl_format(e->ctx, "$T _cl_mul_hi($T a, $T b) { $T hi, lo; %s(a, b, hi, lo); return hi; }", sig ? "imulExtended" : "umulExtended")
                   : kl_format(e->ctx, "$T _cl_mad_hi($T a, $T b, $T c) { $T hi, lo; %s(a, b, hi, lo); return hi + c; }", sig ? "imulExtended" : "umulExtended");
      } else {
        if (glsl_need(e, "_cl_umulhi64"))
          klg_puts(&e->helpers, "uint64_t _cl_umulhi64(uint64_t a, uint64_t b) { uint64_t a0 = a & 0xfffffffful, a1 = a >> 32, b0 = b & 0xfffffffful, b1 = b >> 32; "
                                "uint64_t p01 = a0 * b1, p10 = a1 * b0, mid = ((a0 * b0) >> 32) + (p01 & 0xfffffffful) + (p10 & 0xfffffffful); "
                                "return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32); }\n");
        const char *h = sig ? "int64_t(_cl_umulhi64(uint64_t(a), uint64_t(b))) - (a < 0l ? b : 0l) - (b < 0l ? a : 0l)" : "_cl_umulhi64(a, b)";
        tmpl = b->id == KL_BUILTIN_MUL_HI ? kl_format(e->ctx, "$T _cl_mul_hi($T a, $T b) { return %s; }", h)
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
                 ? "$T _cl_mad_sat($T a, $T b, $T c) { int64_t r = int64_t(a) * int64_t(b) + int64_t(c); return r < int64_t($MIN) ? $MIN : (r > int64_t($MAX) ? $MAX : $T(r)); }"
                 : "$T _cl_mad_sat($T a, $T b, $T c) { uint64_t r = uint64_t(a) * uint64_t(b) + uint64_t(c); return r > uint64_t($MAX) ? $MAX : $T(r); }";
      break;
    }
    case KL_BUILTIN_ROTATE:
      name = "_cl_rotate";
      tmpl = glsl_bits(as) == 64
                 ? "$T _cl_rotate($T v, $T n) { uint64_t u = uint64_t(v); uint k = uint(uint64_t(n) & 63ul); return k == 0u ? v : $T((u << k) | (u >> (64u - k))); }"
                 : "$T _cl_rotate($T v, $T n) { uint u = uint($U(v)); uint k = uint($U(n)) & uint($W - 1); return k == 0u ? v : $T($U((u << k) | (u >> (uint($W) - k)))); }";
      break;
    case KL_BUILTIN_UPSAMPLE: {
      name = "_cl_upsample";
      const kl_type *lo = kl_type_scalar_of(a1->type);
      arg2 = lo;
      const char *r = glsl_scalar(e, rs, at);
      tmpl = kl_format(e->ctx, "%s _cl_upsample($T h, $U l) { return %s(%s(%s($U(h)) << %d) | %s(l)); }", r, r,
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
    case KL_BUILTIN_ISEQUAL: case KL_BUILTIN_ISNOTEQUAL: case KL_BUILTIN_ISGREATER:
    case KL_BUILTIN_ISGREATEREQUAL: case KL_BUILTIN_ISLESS: case KL_BUILTIN_ISLESSEQUAL: {
      kl_operator op = b->id == KL_BUILTIN_ISEQUAL ? KL_OP_EQ : b->id == KL_BUILTIN_ISNOTEQUAL ? KL_OP_NE
                       : b->id == KL_BUILTIN_ISGREATER ? KL_OP_GT : b->id == KL_BUILTIN_ISGREATEREQUAL ? KL_OP_GE
                       : b->id == KL_BUILTIN_ISLESS ? KL_OP_LT : KL_OP_LE;
      const char *x = glsl_text_of(e, a0), *y = glsl_text_of(e, a1);
      if (klg_is_vector(rt)) glsl_mask_from_bvec(e, rt, kl_format(e->ctx, "%s(%s, %s)", glsl_vector_compare(op), x, y));
      else klg_printf(o, "int(%s %s %s)", x, kl_operator_text(op), y);
      return;
    }
    case KL_BUILTIN_ISLESSGREATER: case KL_BUILTIN_ISORDERED: case KL_BUILTIN_ISUNORDERED:
    case KL_BUILTIN_ISFINITE: case KL_BUILTIN_ISINF: case KL_BUILTIN_ISNAN: case KL_BUILTIN_ISNORMAL:
    case KL_BUILTIN_SIGNBIT: {
      const char *x = glsl_text_of(e, a0), *y = a1 ? glsl_text_of(e, a1) : NULL;
      const char *bv;
      int len = klg_is_vector(a0->type) ? a0->type->length : 1;
      const char *vt = glsl_type(e, a0->type, at);
      const char *btype = len > 1 ? kl_format(e->ctx, "bvec%d", len) : "bool";
      bool dbl = as->kind == KL_TYPE_DOUBLE;
      switch (b->id) {
        case KL_BUILTIN_ISLESSGREATER:
          bv = len > 1 ? kl_format(e->ctx, "%s(uvec%d(lessThan(%s, %s)) | uvec%d(greaterThan(%s, %s)))", btype, len, x, y, len, x, y)
                       : kl_format(e->ctx, "(%s < %s || %s > %s)", x, y, x, y);
          break;
        case KL_BUILTIN_ISORDERED:
          bv = len > 1 ? kl_format(e->ctx, "not(%s(uvec%d(isnan(%s)) | uvec%d(isnan(%s))))", btype, len, x, len, y)
                       : kl_format(e->ctx, "!(isnan(%s) || isnan(%s))", x, y);
          break;
        case KL_BUILTIN_ISUNORDERED:
          bv = len > 1 ? kl_format(e->ctx, "%s(uvec%d(isnan(%s)) | uvec%d(isnan(%s)))", btype, len, x, len, y)
                       : kl_format(e->ctx, "(isnan(%s) || isnan(%s))", x, y);
          break;
        case KL_BUILTIN_ISFINITE:
          bv = len > 1 ? kl_format(e->ctx, "not(%s(uvec%d(isnan(%s)) | uvec%d(isinf(%s))))", btype, len, x, len, x)
                       : kl_format(e->ctx, "!(isnan(%s) || isinf(%s))", x, x);
          break;
        case KL_BUILTIN_ISINF: bv = kl_format(e->ctx, "isinf(%s)", x); break;
        case KL_BUILTIN_ISNAN: bv = kl_format(e->ctx, "isnan(%s)", x); break;
        case KL_BUILTIN_ISNORMAL: {
          const char *minn = dbl ? "2.2250738585072014e-308lf" : "1.17549435e-38";
          bv = len > 1 ? kl_format(e->ctx, "%s(uvec%d(greaterThanEqual(abs(%s), %s(%s))) & uvec%d(not(isinf(%s))) & uvec%d(not(isnan(%s))))",
                                   btype, len, x, vt, minn, len, x, len, x)
                       : kl_format(e->ctx, "(abs(%s) >= %s && !isinf(%s) && !isnan(%s))", x, minn, x, x);
          break;
        }
        default: /* SIGNBIT */
          if (dbl) bv = len > 1 ? NULL : kl_format(e->ctx, "((unpackDouble2x32(%s).y >> 31) != 0u)", x);
          else bv = len > 1 ? kl_format(e->ctx, "notEqual(floatBitsToUint(%s) >> 31, uvec%d(0))", x, len)
                            : kl_format(e->ctx, "((floatBitsToUint(%s) >> 31) != 0u)", x);
          if (!bv) {
            glsl_fail(e, at, "signbit on double vectors");
            return;
          }
          break;
      }
      if (len > 1) glsl_mask_from_bvec(e, rt, bv);
      else klg_printf(o, "int(%s)", bv);
      return;
    }
    case KL_BUILTIN_ANY: case KL_BUILTIN_ALL: {
      const char *x = glsl_text_of(e, a0);
      if (klg_is_vector(a0->type))
        klg_printf(o, "int(%s(lessThan(%s, %s)))", b->id == KL_BUILTIN_ANY ? "any" : "all", x, glsl_zero(e, a0->type, at));
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
        klg_printf(o, "uintBitsToFloat((floatBitsToUint(%s) & ~floatBitsToUint(%s)) | (floatBitsToUint(%s) & floatBitsToUint(%s)))", x, z, y, z);
      } else {
        klg_printf(o, "((%s & ~%s) | (%s & %s))", x, z, y, z);
      }
      return;
    }
    case KL_BUILTIN_SELECT: {
      const char *x = glsl_text_of(e, a0), *y = glsl_text_of(e, a1), *z = glsl_text_of(e, a2);
      if (klg_is_vector(rt)) {
        name = "_cl_select";
        const char *key = kl_format(e->ctx, "_cl_select/%s/%s", glsl_type(e, rt, at), glsl_type(e, a2->type, at));
        if (glsl_need(e, key)) {
          const char *t = glsl_type(e, rt, at), *ct = glsl_type(e, a2->type, at);
          klg_printf(&e->helpers, "%s _cl_select(%s a, %s b, %s c) { %s r; for (int i = 0; i < %d; i++) r[i] = c[i] < %s(0) ? b[i] : a[i]; return r; }\n",
                     t, t, t, ct, t, rt->length, glsl_scalar(e, kl_type_scalar_of(a2->type), at));
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
  if (nargs > 1 && !arg2 && a1 && !kl_type_equal(kl_type_scalar_of(a1->type), as)) arg2 = kl_type_scalar_of(a1->type);
  glsl_helper(e, name, a0->type, as, rs, nargs, arg2, tmpl, NULL);
  glsl_call(e, name, a0);
}

/* ----------------------------------------------------- calls of helpers */

static void glsl_function(glsl_emitter *e, const kl_function *f, glsl_spec *spec);

static void glsl_user_call(glsl_emitter *e, const kl_node *n) {
  const kl_function *f = n->function;
  int count = f->param_count;
  glsl_root **roots = kl_alloc(e->ctx, sizeof *roots * (size_t)(count + 1));
  const char **texts = kl_alloc(e->ctx, sizeof *texts * (size_t)(count + 1));
  const kl_node *a = n->args;
  const kl_variable *p = f->params;
  for (int i = 0; i < count && a && p; i++, a = a->next, p = p->next) {
    if (klg_is_pointer(p->type)) {
      texts[i] = glsl_pointer_text(e, a, &roots[i]);
      if (!roots[i]) return;
      if (roots[i]->kind == ROOT_PRIVATE) {
        glsl_fail(e, a->location, "passing pointers to private arrays to functions");
        return;
      }
    } else {
      klg_buf *saved = e->out;
      klg_buf tmp;
      klg_init(&tmp, e->ctx);
      e->out = &tmp;
      glsl_expr_as(e, a, p->type);
      e->out = saved;
      texts[i] = klg_text(&tmp);
    }
  }
  glsl_spec *spec = NULL;
  for (glsl_spec *s = e->specs; s; s = s->next) {
    if (s->function != f) continue;
    bool same = true;
    for (int i = 0; i < count; i++)
      if (s->roots[i] != roots[i]) same = false;
    if (same) {
      spec = s;
      break;
    }
  }
  if (!spec) {
    spec = kl_alloc(e->ctx, sizeof *spec);
    spec->function = f;
    spec->roots = roots;
    bool has_pointers = false;
    for (int i = 0; i < count; i++)
      if (roots[i]) has_pointers = true;
    spec->name = has_pointers ? kl_format(e->ctx, "%s_%d", glsl_name(e, f->name), e->spec_count)
                              : glsl_name(e, f->name);
    e->spec_count++;
    spec->next = e->specs;
    e->specs = spec;
    glsl_function(e, f, spec);
  }
  klg_printf(e->out, "%s(", spec->name);
  for (int i = 0; i < count; i++) klg_printf(e->out, "%s%s", i ? ", " : "", texts[i] ? texts[i] : "");
  klg_puts(e->out, ")");
}

/* ------------------------------------------------------- expressions */

static bool glsl_pure(const kl_node *n) {
  switch (n->kind) {
    case KL_EXPR_VARIABLE: case KL_EXPR_INT_LITERAL: case KL_EXPR_FLOAT_LITERAL: return true;
    case KL_EXPR_INDEX: return glsl_pure(n->lhs) && glsl_pure(n->rhs);
    case KL_EXPR_MEMBER: case KL_EXPR_SWIZZLE: case KL_EXPR_CONVERT: case KL_EXPR_CAST: return glsl_pure(n->lhs);
    case KL_EXPR_UNARY:
      return (n->op == KL_OP_DEREFERENCE || n->op == KL_OP_NEGATE || n->op == KL_OP_BIT_NOT || n->op == KL_OP_PLUS) &&
             glsl_pure(n->lhs);
    case KL_EXPR_BINARY: return glsl_pure(n->lhs) && glsl_pure(n->rhs);
    default: return false;
  }
}

static void glsl_swizzle_letters(glsl_emitter *e, const int *c, int count) {
  for (int i = 0; i < count; i++) klg_putn(e->out, &"xyzw"[c[i] & 3], 1);
}

/* Promoted type of a shift's left operand (scalars). */
static const kl_type *glsl_promoted(glsl_emitter *e, const kl_type *t) {
  if (klg_is_vector(t)) return t;
  if (kl_type_is_integer(t) && t->size < 4) return kl_type_scalar(e->ctx, KL_TYPE_INT);
  if (t->kind == KL_TYPE_BOOL) return kl_type_scalar(e->ctx, KL_TYPE_INT);
  return t;
}

/* The usual arithmetic conversions (scalars), for compound assignments. */
static const kl_type *glsl_common(glsl_emitter *e, const kl_type *a, const kl_type *b) {
  if (klg_is_vector(a)) return a;
  if (klg_is_vector(b)) return b;
  if (kl_type_is_floating(a) || kl_type_is_floating(b)) {
    if (a->kind == KL_TYPE_DOUBLE || b->kind == KL_TYPE_DOUBLE) return kl_type_scalar(e->ctx, KL_TYPE_DOUBLE);
    return kl_type_scalar(e->ctx, KL_TYPE_FLOAT);
  }
  a = glsl_promoted(e, a);
  b = glsl_promoted(e, b);
  if (kl_type_equal(a, b)) return a;
  if (a->size != b->size) {
    const kl_type *w = a->size > b->size ? a : b, *nw = w == a ? b : a;
    if (kl_type_is_signed(w) && !kl_type_is_signed(nw) && nw->size == w->size) return glsl_unsigned_of(e, w);
    return w;
  }
  return kl_type_is_signed(a) ? b : a;
}

static void glsl_assign(glsl_emitter *e, const kl_node *n) {
  klg_buf *o = e->out;
  const kl_node *l = n->lhs, *r = n->rhs;
  const kl_type *lt = l->type;
  if (klg_is_pointer(lt)) {
    glsl_pointer(e, n);
    return;
  }
  if (n->op == KL_OP_NONE) {
    klg_puts(o, "(");
    glsl_expr_mode(e, l, ACCESS_WRITE);
    klg_puts(o, " = ");
    glsl_expr_as(e, r, lt);
    klg_puts(o, ")");
    return;
  }
  bool shift = n->op == KL_OP_SHL || n->op == KL_OP_SHR;
  const kl_type *op_type = shift ? glsl_promoted(e, lt) : glsl_common(e, lt, r->type);
  bool srem = n->op == KL_OP_MOD && glsl_is_signed_int(op_type);
  bool native = kl_type_equal(op_type, lt) && !srem &&
                (shift || kl_type_equal(r->type, lt) || (klg_is_vector(lt) && !klg_is_vector(r->type) &&
                                                       kl_type_equal(kl_type_scalar_of(lt), r->type)));
  if (native) {
    klg_puts(o, "(");
    glsl_expr_mode(e, l, ACCESS_READ_WRITE);
    klg_printf(o, " %s= ", kl_operator_text(n->op));
    if (shift) {
      const kl_type *rs = kl_type_scalar_of(r->type);
      klg_printf(o, "(%s & ", glsl_text_of(e, r));
      glsl_int_literal(e, rs, (uint64_t)(glsl_bits(kl_type_scalar_of(lt)) - 1));
      klg_puts(o, ")");
    } else {
      glsl_expr(e, r);
    }
    klg_puts(o, ")");
    return;
  }
  if (!glsl_pure(l)) {
    glsl_fail(e, n->location, "this compound assignment to an lvalue with side effects");
    return;
  }
  /* l = LT(OT(l) op r) */
  const char *ltext = glsl_text_of(e, l);
  klg_buf *saved = e->out;
  klg_buf tmp;
  klg_init(&tmp, e->ctx);
  e->out = &tmp;
  glsl_expr_mode(e, l, ACCESS_READ_WRITE);
  e->out = saved;
  const char *ot = glsl_type(e, op_type, n->location);
  const char *rtext = kl_type_equal(r->type, op_type) || klg_is_vector(op_type) ? glsl_text_of(e, r)
                          : kl_format(e->ctx, "%s(%s)", ot, glsl_text_of(e, r));
  const char *value;
  if (srem) {
    const kl_type *s = kl_type_scalar_of(op_type);
    glsl_helper(e, "_cl_srem", op_type, s, s, 2, NULL, "$T _cl_srem($T a, $T b) { return $T(a - b * (a / b)); }", NULL);
    value = kl_format(e->ctx, "_cl_srem(%s(%s), %s)", ot, ltext, rtext);
  } else if (shift) {
    const kl_type *rs = kl_type_scalar_of(r->type);
    klg_buf m;
    klg_init(&m, e->ctx);
    klg_buf *sv = e->out;
    e->out = &m;
    glsl_int_literal(e, rs, (uint64_t)(glsl_bits(kl_type_scalar_of(op_type)) - 1));
    e->out = sv;
    value = kl_format(e->ctx, "(%s(%s) %s (%s & %s))", ot, ltext, kl_operator_text(n->op), glsl_text_of(e, r), klg_text(&m));
  } else {
    value = kl_format(e->ctx, "(%s(%s) %s %s)", ot, ltext, kl_operator_text(n->op), rtext);
  }
  klg_printf(o, "(%s = %s(%s))", klg_text(&tmp), glsl_type(e, lt, n->location), value);
}

static void glsl_expr(glsl_emitter *e, const kl_node *n) {
  glsl_expr_mode(e, n, ACCESS_READ);
}

static void glsl_expr_mode(glsl_emitter *e, const kl_node *n, glsl_access mode) {
  klg_buf *o = e->out;
  if (!n) return;
  if (klg_is_pointer(n->type) && n->kind != KL_EXPR_ASSIGN) {
    glsl_pointer(e, n);
    return;
  }
  switch (n->kind) {
    case KL_EXPR_INT_LITERAL: glsl_int_literal(e, n->type, n->int_value); return;
    case KL_EXPR_FLOAT_LITERAL:
      if (n->type->kind == KL_TYPE_HALF) {
        glsl_fail(e, n->location, "half");
        return;
      }
      glsl_float_value(e, n->float_value, n->type->kind == KL_TYPE_DOUBLE);
      return;
    case KL_EXPR_VARIABLE: klg_puts(o, glsl_var_name(e, n->variable)); return;
    case KL_EXPR_VECTOR_LITERAL:
      klg_printf(o, "%s(", glsl_type(e, n->type, n->location));
      glsl_call_args(e, n->args);
      klg_puts(o, ")");
      return;
    case KL_EXPR_UNARY:
      switch (n->op) {
        case KL_OP_POST_INCREMENT: case KL_OP_POST_DECREMENT:
          klg_puts(o, "(");
          glsl_expr_mode(e, n->lhs, ACCESS_READ_WRITE);
          klg_puts(o, n->op == KL_OP_POST_INCREMENT ? "++)" : "--)");
          return;
        case KL_OP_PRE_INCREMENT: case KL_OP_PRE_DECREMENT:
          klg_puts(o, n->op == KL_OP_PRE_INCREMENT ? "(++" : "(--");
          glsl_expr_mode(e, n->lhs, ACCESS_READ_WRITE);
          klg_puts(o, ")");
          return;
        case KL_OP_LOGICAL_NOT:
          if (klg_is_vector(n->lhs->type)) {
            glsl_mask_from_bvec(e, n->type, kl_format(e->ctx, "equal(%s, %s)", glsl_text_of(e, n->lhs), glsl_zero(e, n->lhs->type, n->location)));
            return;
          }
          klg_printf(o, "%s(!%s)", glsl_type(e, n->type, n->location), glsl_cond_text(e, n->lhs));
          return;
        case KL_OP_DEREFERENCE: glsl_element(e, n->lhs, NULL, mode, n->location); return;
        case KL_OP_ADDRESS_OF: glsl_fail(e, n->location, "this use of a pointer"); return;
        default:
          klg_puts(o, n->op == KL_OP_NEGATE ? "(-" : n->op == KL_OP_PLUS ? "(+" : "(~");
          glsl_expr(e, n->lhs);
          klg_puts(o, ")");
          return;
      }
    case KL_EXPR_BINARY: {
      const kl_type *t = n->type;
      if (klg_is_pointer(n->lhs->type) && klg_is_pointer(n->rhs->type)) {
        glsl_root *ra, *rb;
        const char *a = glsl_pointer_text(e, n->lhs, &ra), *b = glsl_pointer_text(e, n->rhs, &rb);
        if (ra && rb && ra != rb) glsl_fail(e, n->location, "pointers into different arrays");
        if (n->op == KL_OP_SUB) klg_printf(o, "%s(%s - %s)", glsl_type(e, t, n->location), a, b);
        else klg_printf(o, "int(%s %s %s)", a, kl_operator_text(n->op), b);
        return;
      }
      if (glsl_is_comparison(n->op) || n->op == KL_OP_LOGICAL_AND || n->op == KL_OP_LOGICAL_OR) {
        if (klg_is_vector(n->lhs->type)) {
          const char *a = glsl_text_of(e, n->lhs), *b = glsl_text_of(e, n->rhs);
          if (glsl_is_comparison(n->op)) {
            glsl_mask_from_bvec(e, t, kl_format(e->ctx, "%s(%s, %s)", glsl_vector_compare(n->op), a, b));
          } else {
            const char *z = glsl_zero(e, n->lhs->type, n->location);
            const char *mt = glsl_type(e, t, n->location);
            klg_printf(o, "(-%s(%s(%s(notEqual(%s, %s)) %s %s(notEqual(%s, %s)))))", mt,
                       kl_format(e->ctx, "bvec%d", t->length), kl_format(e->ctx, "uvec%d", t->length), a, z,
                       n->op == KL_OP_LOGICAL_AND ? "&" : "|", kl_format(e->ctx, "uvec%d", t->length), b, z);
          }
          return;
        }
        klg_printf(o, "%s(%s)", glsl_type(e, t, n->location), glsl_cond_text(e, n));
        return;
      }
      if (n->op == KL_OP_MOD && glsl_is_signed_int(t)) {
        const kl_type *s = kl_type_scalar_of(t);
        glsl_helper(e, "_cl_srem", t, s, s, 2, NULL, "$T _cl_srem($T a, $T b) { return $T(a - b * (a / b)); }", NULL);
        klg_puts(o, "_cl_srem(");
        glsl_expr(e, n->lhs);
        klg_puts(o, ", ");
        glsl_expr_as(e, n->rhs, t);
        klg_puts(o, ")");
        return;
      }
      if (n->op == KL_OP_SHL || n->op == KL_OP_SHR) {
        const kl_type *rs = kl_type_scalar_of(n->rhs->type);
        klg_puts(o, "(");
        glsl_expr(e, n->lhs);
        klg_printf(o, " %s (", kl_operator_text(n->op));
        glsl_expr(e, n->rhs);
        klg_puts(o, " & ");
        glsl_int_literal(e, rs, (uint64_t)(glsl_bits(kl_type_scalar_of(t)) - 1));
        klg_puts(o, "))");
        return;
      }
      klg_puts(o, "(");
      glsl_expr(e, n->lhs);
      klg_printf(o, " %s ", kl_operator_text(n->op));
      glsl_expr(e, n->rhs);
      klg_puts(o, ")");
      return;
    }
    case KL_EXPR_ASSIGN: glsl_assign(e, n); return;
    case KL_EXPR_CONDITIONAL:
      if (klg_is_vector(n->condition->type)) {
        const char *c = glsl_text_of(e, n->condition);
        klg_printf(o, "mix(%s, %s, lessThan(%s, %s))", glsl_text_of(e, n->otherwise), glsl_text_of(e, n->then), c,
                   glsl_zero(e, n->condition->type, n->location));
        return;
      }
      klg_printf(o, "(%s ? ", glsl_cond_text(e, n->condition));
      glsl_expr_as(e, n->then, n->type);
      klg_puts(o, " : ");
      glsl_expr_as(e, n->otherwise, n->type);
      klg_puts(o, ")");
      return;
    case KL_EXPR_COMMA:
      klg_puts(o, "(");
      glsl_expr(e, n->lhs);
      klg_puts(o, ", ");
      glsl_expr(e, n->rhs);
      klg_puts(o, ")");
      return;
    case KL_EXPR_CALL: glsl_user_call(e, n); return;
    case KL_EXPR_BUILTIN: glsl_builtin(e, n); return;
    case KL_EXPR_CAST:
    case KL_EXPR_CONVERT: {
      const kl_type *to = n->type, *from = n->lhs->type;
      if (kl_type_equal(to, from) || to->kind == KL_TYPE_STRUCT) {
        glsl_expr_mode(e, n->lhs, mode);
        return;
      }
      if (to->kind == KL_TYPE_VOID) {
        glsl_expr(e, n->lhs);
        return;
      }
      const kl_node *inner = n->lhs;
      if (inner->kind == KL_EXPR_INT_LITERAL && kl_type_is_scalar(to) && to->kind != KL_TYPE_BOOL) {
        uint64_t v = inner->int_value;
        if (kl_type_is_floating(to)) {
          double d = kl_type_is_signed(inner->type) ? (double)(int64_t)v : (double)v;
          glsl_float_value(e, to->kind == KL_TYPE_FLOAT ? (double)(float)d : d, to->kind == KL_TYPE_DOUBLE);
          return;
        }
        if (to->kind == KL_TYPE_INT || to->kind == KL_TYPE_UINT || to->kind == KL_TYPE_SIZE_T ||
            to->kind == KL_TYPE_PTRDIFF_T || to->kind == KL_TYPE_LONG || to->kind == KL_TYPE_ULONG) {
          glsl_int_literal(e, to, v);
          return;
        }
      }
      if (to->kind == KL_TYPE_BOOL && !klg_is_vector(from)) {
        klg_puts(o, glsl_cond_text(e, n->lhs));
        return;
      }
      klg_printf(o, "%s(", glsl_type(e, to, n->location));
      if (!klg_is_vector(from) && (from->kind == KL_TYPE_BOOL || glsl_is_comparison(inner->op)) && inner->kind == KL_EXPR_BINARY &&
          klg_is_vector(to)) {
        glsl_expr(e, inner);
      } else {
        glsl_expr(e, inner);
      }
      klg_puts(o, ")");
      return;
    }
    case KL_EXPR_INDEX: {
      const kl_node *base = n->lhs;
      while ((base->kind == KL_EXPR_CONVERT || base->kind == KL_EXPR_CAST) && base->lhs->type->kind == KL_TYPE_ARRAY) base = base->lhs;
      if (klg_is_pointer(base->type)) {
        glsl_element(e, base, n->rhs, mode, n->location);
        return;
      }
      klg_puts(o, "(");
      glsl_expr_mode(e, base, mode);
      klg_puts(o, ")[");
      const kl_type *it = kl_type_scalar_of(n->rhs->type);
      if (it->kind == KL_TYPE_INT || it->kind == KL_TYPE_UINT || it->kind == KL_TYPE_SIZE_T || it->kind == KL_TYPE_PTRDIFF_T) {
        glsl_expr(e, n->rhs);
      } else {
        klg_puts(o, "int(");
        glsl_expr(e, n->rhs);
        klg_puts(o, ")");
      }
      klg_puts(o, "]");
      return;
    }
    case KL_EXPR_MEMBER:
      if (n->is_arrow) {
        glsl_element(e, n->lhs, NULL, mode, n->location);
      } else {
        klg_puts(o, "(");
        glsl_expr_mode(e, n->lhs, mode);
        klg_puts(o, ")");
      }
      klg_printf(o, ".%s", glsl_name(e, n->member->name));
      return;
    case KL_EXPR_SWIZZLE: {
      int c[16], count;
      const kl_node *base = klg_fold_swizzle(n, c, &count);
      if (klg_is_vector(base->type) && base->type->length > 4) {
        glsl_fail(e, n->location, "vectors of 8 or 16 components");
        return;
      }
      klg_puts(o, "(");
      glsl_expr_mode(e, base, mode);
      klg_puts(o, ").");
      glsl_swizzle_letters(e, c, count);
      return;
    }
    default: glsl_fail(e, n->location, "this expression"); return;
  }
}

/* --------------------------------------------------------- statements */

static void glsl_initializer(glsl_emitter *e, const kl_type *t, const kl_node *init) {
  klg_buf *o = e->out;
  if (init->kind == KL_EXPR_INIT_LIST) {
    const kl_node *item = init->args;
    if (t->kind == KL_TYPE_ARRAY) {
      klg_printf(o, "%s(", glsl_type(e, t, init->location));
      for (int i = 0; i < t->length; i++) {
        if (i) klg_puts(o, ", ");
        if (item) {
          glsl_initializer(e, t->element, item);
          item = item->next;
        } else {
          klg_printf(o, "%s(0)", glsl_type(e, t->element, init->location));
          if (t->element->kind == KL_TYPE_STRUCT || t->element->kind == KL_TYPE_ARRAY)
            glsl_fail(e, init->location, "partial initializers of arrays of structs or arrays");
        }
      }
      klg_puts(o, ")");
      return;
    }
    if (t->kind == KL_TYPE_STRUCT) {
      int index = klg_struct_index(e->program, t);
      const kl_type *st = index >= 0 ? e->program->structs[index] : t;
      klg_printf(o, "%s(", glsl_type(e, t, init->location));
      int natural = 0, pad = 0;
      bool first = true;
      for (const kl_member *m = st->members; m; m = m->next) {
        int ms, ma;
        glsl_std430(m->type, &ms, &ma);
        natural = (natural + ma - 1) / ma * ma;
        while (natural < m->offset) {
          klg_puts(o, first ? "" : ", ");
          if ((natural % 4) == 0 && m->offset - natural >= 4) { klg_puts(o, "0u"); natural += 4; }
          else { klg_puts(o, "uint8_t(0)"); natural += 1; }
          first = false;
          pad++;
        }
        klg_puts(o, first ? "" : ", ");
        first = false;
        if (item) {
          glsl_initializer(e, m->type, item);
          item = item->next;
        } else if (kl_type_is_scalar(m->type) || klg_is_vector(m->type)) {
          klg_printf(o, "%s(0)", glsl_type(e, m->type, init->location));
        } else {
          glsl_fail(e, init->location, "partial initializers of nested aggregates");
        }
        natural = m->offset + ms;
      }
      klg_puts(o, ")");
      return;
    }
    if (item) glsl_initializer(e, t, item);
    return;
  }
  glsl_expr_as(e, init, t);
}

static void glsl_declaration(glsl_emitter *e, const kl_variable *v, bool in_for) {
  klg_buf *o = e->out;
  if (v->space == KL_SPACE_LOCAL) {
    const char *name = kl_format(e->ctx, "_cl_s%d_%s", v->id, glsl_name(e, v->name));
    klg_printf(&e->globals, "shared %s;\n", glsl_decl(e, v->type, name, v->location));
    glsl_bind(e, v, name, NULL);
    if (v->initializer) glsl_fail(e, v->location, "initialised __local variables");
    if (!in_for) klg_printf(o, "/* __local %s: hoisted */", v->name);
    return;
  }
  const char *name = glsl_name(e, v->name);
  if (klg_is_pointer(v->type)) {
    glsl_binding *b = glsl_bind(e, v, name, NULL);
    klg_printf(o, "uint %s", name);
    if (v->initializer) {
      glsl_root *r;
      const char *text = glsl_pointer_text(e, v->initializer, &r);
      b->root = r;
      klg_printf(o, " = %s", text);
    }
    return;
  }
  glsl_bind(e, v, name, NULL);
  const char *cq = (v->type->qualifiers & KL_QUALIFIER_CONST) && v->initializer && v->space != KL_SPACE_CONSTANT ? "" : "";
  klg_printf(o, "%s%s", cq, glsl_decl(e, v->type, name, v->location));
  if (v->initializer) {
    klg_puts(o, " = ");
    glsl_initializer(e, v->type, v->initializer);
  }
}

static void glsl_block(glsl_emitter *e, const kl_node *n, int depth) {
  if (n && n->kind == KL_STMT_COMPOUND) {
    glsl_stmt(e, n, depth);
    return;
  }
  klg_indent(e->out, depth);
  klg_puts(e->out, "{\n");
  if (n) glsl_stmt(e, n, depth + 1);
  klg_indent(e->out, depth);
  klg_puts(e->out, "}\n");
}

static void glsl_stmt(glsl_emitter *e, const kl_node *n, int depth) {
  klg_buf *o = e->out;
  switch (n->kind) {
    case KL_STMT_COMPOUND: {
      int saved = e->env_count;
      klg_indent(o, depth);
      klg_puts(o, "{\n");
      for (const kl_node *s = n->body; s; s = s->next) glsl_stmt(e, s, depth + 1);
      klg_indent(o, depth);
      klg_puts(o, "}\n");
      (void)saved; /* bindings stay: roots of pointers must hold across the function */
      return;
    }
    case KL_STMT_EXPRESSION: {
      const kl_node *x = n->lhs;
      klg_indent(o, depth);
      if (x->kind == KL_EXPR_BUILTIN && x->builtin->id == KL_BUILTIN_BARRIER) {
        klg_printf(o, "%s; barrier();\n", glsl_fence(x->args));
        return;
      }
      while (x->kind == KL_EXPR_CAST && x->type->kind == KL_TYPE_VOID) x = x->lhs;
      glsl_expr(e, x);
      klg_puts(o, ";\n");
      return;
    }
    case KL_STMT_DECLARATION:
      klg_indent(o, depth);
      glsl_declaration(e, n->variable, false);
      klg_puts(o, n->variable->space == KL_SPACE_LOCAL ? "\n" : ";\n");
      return;
    case KL_STMT_IF:
      klg_indent(o, depth);
      klg_printf(o, "if (%s)\n", glsl_cond_text(e, n->condition));
      glsl_block(e, n->then, depth);
      if (n->otherwise) {
        klg_indent(o, depth);
        klg_puts(o, "else\n");
        glsl_block(e, n->otherwise, depth);
      }
      return;
    case KL_STMT_FOR: {
      bool simple = !n->init || (!n->init->next && (n->init->kind == KL_STMT_EXPRESSION || n->init->kind == KL_STMT_EMPTY ||
                    (n->init->kind == KL_STMT_DECLARATION && n->init->variable->space != KL_SPACE_LOCAL)));
      int d = depth;
      if (!simple) {
        klg_indent(o, depth);
        klg_puts(o, "{\n");
        for (const kl_node *s = n->init; s; s = s->next) glsl_stmt(e, s, depth + 1);
        d = depth + 1;
      }
      klg_indent(o, d);
      klg_puts(o, "for (");
      if (simple && n->init && n->init->kind == KL_STMT_DECLARATION) glsl_declaration(e, n->init->variable, true);
      else if (simple && n->init && n->init->kind == KL_STMT_EXPRESSION) glsl_expr(e, n->init->lhs);
      klg_puts(o, "; ");
      if (n->condition) klg_puts(o, glsl_cond_text(e, n->condition));
      klg_puts(o, "; ");
      if (n->increment) glsl_expr(e, n->increment);
      klg_puts(o, ")\n");
      glsl_block(e, n->body, d);
      if (!simple) {
        klg_indent(o, depth);
        klg_puts(o, "}\n");
      }
      return;
    }
    case KL_STMT_WHILE:
      klg_indent(o, depth);
      klg_printf(o, "while (%s)\n", glsl_cond_text(e, n->condition));
      glsl_block(e, n->body, depth);
      return;
    case KL_STMT_DO:
      klg_indent(o, depth);
      klg_puts(o, "do\n");
      glsl_block(e, n->body, depth);
      klg_indent(o, depth);
      klg_printf(o, "while (%s);\n", glsl_cond_text(e, n->condition));
      return;
    case KL_STMT_SWITCH: {
      const kl_type *ct = n->condition->type;
      klg_indent(o, depth);
      if (ct->size == 8 && ct->kind != KL_TYPE_SIZE_T && ct->kind != KL_TYPE_PTRDIFF_T) {
        glsl_fail(e, n->location, "switch on 64-bit values");
        return;
      }
      bool is_unsigned = !kl_type_is_signed(ct) || ct->kind == KL_TYPE_SIZE_T;
      klg_printf(o, "switch (%s(", is_unsigned ? "uint" : "int");
      glsl_expr(e, n->condition);
      klg_puts(o, "))\n");
      klg_indent(o, depth);
      klg_puts(o, "{\n");
      const kl_node *body = n->body;
      if (body && body->kind == KL_STMT_COMPOUND) {
        for (const kl_node *s = body->body; s; s = s->next) glsl_stmt(e, s, depth + 1);
      } else if (body) {
        glsl_stmt(e, body, depth + 1);
      }
      klg_indent(o, depth + 1);
      klg_puts(o, "break;\n");
      klg_indent(o, depth);
      klg_puts(o, "}\n");
      (void)is_unsigned;
      return;
    }
    case KL_STMT_CASE: {
      klg_indent(o, depth > 0 ? depth - 1 : 0);
      if (n->is_default) klg_puts(o, "default:\n");
      else klg_printf(o, "case %lld:\n", (long long)n->case_value);
      if (n->body) glsl_stmt(e, n->body, depth);
      return;
    }
    case KL_STMT_BREAK: klg_indent(o, depth); klg_puts(o, "break;\n"); return;
    case KL_STMT_CONTINUE: klg_indent(o, depth); klg_puts(o, "continue;\n"); return;
    case KL_STMT_RETURN:
      klg_indent(o, depth);
      if (n->lhs) {
        if (klg_is_pointer(n->lhs->type)) {
          glsl_fail(e, n->location, "returning pointers");
          return;
        }
        klg_puts(o, "return ");
        glsl_expr_as(e, n->lhs, e->kernel ? NULL : NULL);
        klg_puts(o, ";\n");
      } else {
        klg_puts(o, "return;\n");
      }
      return;
    case KL_STMT_EMPTY: klg_indent(o, depth); klg_puts(o, ";\n"); return;
    default: glsl_fail(e, n->location, "this statement"); return;
  }
}

/* A helper function specialised for its pointer arguments' roots. */
static void glsl_function(glsl_emitter *e, const kl_function *f, glsl_spec *spec) {
  klg_buf *saved_out = e->out;
  glsl_binding *saved_env = e->env;
  int saved_count = e->env_count, saved_capacity = e->env_capacity;
  klg_buf body;
  klg_init(&body, e->ctx);
  e->out = &body;
  e->env = NULL;
  e->env_count = e->env_capacity = 0;
  /* program-scope constants stay visible */
  if (!f->body) {
    glsl_fail(e, f->location, kl_format(e->ctx, "calling '%s', which is declared but not defined", f->name));
  }
  if (f->return_type && klg_is_pointer(f->return_type)) glsl_fail(e, f->location, "functions returning pointers");
  klg_printf(&body, "%s %s(", glsl_type(e, f->return_type, f->location), spec->name);
  int i = 0;
  for (const kl_variable *p = f->params; p; p = p->next, i++) {
    const char *name = glsl_name(e, p->name);
    if (i) klg_puts(&body, ", ");
    if (klg_is_pointer(p->type)) {
      klg_printf(&body, "uint %s", name);
      glsl_bind(e, p, name, spec->roots[i]);
    } else {
      klg_puts(&body, glsl_decl(e, p->type, name, p->location));
      glsl_bind(e, p, name, NULL);
    }
  }
  klg_puts(&body, ") {\n");
  if (f->body && f->body->kind == KL_STMT_COMPOUND)
    for (const kl_node *s = f->body->body; s; s = s->next) glsl_stmt(e, s, 1);
  else if (f->body)
    glsl_stmt(e, f->body, 1);
  klg_puts(&body, "}\n\n");
  klg_puts(&e->functions, klg_text(&body));
  e->out = saved_out;
  e->env = saved_env;
  e->env_count = saved_count;
  e->env_capacity = saved_capacity;
}

static uint32_t glsl_align_up(uint32_t v, uint32_t a) {
  return a ? (v + a - 1) / a * a : v;
}

const char *kl_emit_glsl_with_layout(kl_context *ctx, const kl_program *program, const kl_function *kernel,
                                     const kl_glsl_layout **layout_out) {
  if (layout_out) *layout_out = NULL;
  if (!kernel || !kernel->is_kernel) {
    kl_error(ctx, kernel ? kernel->location : (kl_location){0}, "GLSL: no kernel given");
    return NULL;
  }
  glsl_emitter e = {.ctx = ctx, .program = program, .kernel = kernel};
  klg_init(&e.helpers, ctx);
  klg_init(&e.functions, ctx);
  klg_init(&e.globals, ctx);
  klg_buf main_body;
  klg_init(&main_body, ctx);
  e.out = &main_body;
  int count = kernel->param_count;
  e.params = kl_alloc(ctx, sizeof *e.params * (size_t)(count + 1));
  e.param_roots = kl_alloc(ctx, sizeof *e.param_roots * (size_t)(count + 1));

  /* parameters: buffers, the block, shared arrays */
  klg_buf block, copies;
  klg_init(&block, ctx);
  klg_init(&copies, ctx);
  uint32_t binding = 0, offset = KL_GLSL_HEADER_SIZE, local_index = 0;
  int i = 0;
  for (const kl_variable *p = kernel->params; p; p = p->next, i++) {
    kl_glsl_param *lp = &e.params[i];
    const char *name = glsl_name(&e, p->name);
    lp->name = p->name;
    if (klg_is_pointer(p->type)) {
      const kl_type *el = p->type->element;
      if (el->kind == KL_TYPE_VOID) {
        glsl_fail(&e, p->location, "void pointer parameters");
        continue;
      }
      int es, ea;
      glsl_std430(el, &es, &ea);
      lp->element_size = (uint32_t)el->size;
      if (p->type->pointee_space == KL_SPACE_LOCAL) {
        lp->kind = KL_GLSL_PARAM_LOCAL;
        lp->spec_id = KL_GLSL_FIRST_LOCAL_SPEC_ID + local_index;
        const char *array = kl_format(ctx, "_cl_local%u", local_index);
        klg_printf(&e.globals, "layout(constant_id = %u) const uint _cl_local%u_count = 1u;\n", lp->spec_id, local_index);
        klg_printf(&e.globals, "shared %s %s[_cl_local%u_count];\n", glsl_type(&e, el, p->location), array, local_index);
        local_index++;
        glsl_root *r = glsl_new_root(&e, ROOT_SHARED, p, array);
        glsl_bind(&e, p, name, r);
        klg_printf(&copies, "  uint %s = 0u;\n", name);
      } else {
        lp->kind = KL_GLSL_PARAM_BUFFER;
        lp->binding = binding++;
        const char *array = kl_format(ctx, "_cl_buf%u", lp->binding);
        glsl_root *r = glsl_new_root(&e, ROOT_BUFFER, p, array);
        r->buffer = i;
        e.param_roots[i] = r;
        glsl_bind(&e, p, name, r);
        klg_printf(&copies, "  uint %s = 0u;\n", name);
        if (el->size != (es + ea - 1) / ea * ea && el->kind != KL_TYPE_STRUCT)
          glsl_fail(&e, p->location, "buffers of this element type");
      }
      continue;
    }
    lp->kind = KL_GLSL_PARAM_VALUE;
    const kl_type *t = p->type;
    uint32_t align = (uint32_t)(t->align ? t->align : 1);
    offset = glsl_align_up(offset, align);
    lp->offset = offset;
    lp->size = (uint32_t)t->size;
    if (t->kind == KL_TYPE_SIZE_T || t->kind == KL_TYPE_PTRDIFF_T) {
      klg_printf(&block, "  layout(offset = %u) uvec2 %s;\n", offset, name);
      klg_printf(&copies, "  %s %s = %s(_cl_p.%s.x);\n", glsl_type(&e, t, p->location), name, glsl_type(&e, t, p->location), name);
    } else {
      klg_printf(&block, "  layout(offset = %u) %s;\n", offset, glsl_decl(&e, t, name, p->location));
      klg_printf(&copies, "  %s = _cl_p.%s;\n", glsl_decl(&e, t, name, p->location), name);
    }
    glsl_bind(&e, p, name, NULL);
    offset += (uint32_t)t->size;
  }
  uint32_t block_size = glsl_align_up(offset, 16);
  bool in_buffer = block_size > KL_GLSL_PUSH_LIMIT;
  uint32_t block_binding = in_buffer ? binding : 0;

  /* program-scope constants */
  klg_buf constants;
  klg_init(&constants, ctx);
  for (const kl_variable *v = program->constants; v; v = v->next) {
    klg_buf *saved = e.out;
    e.out = &constants;
    klg_printf(&constants, "const %s = ", glsl_decl(&e, v->type, glsl_name(&e, v->name), v->location));
    if (v->initializer) glsl_initializer(&e, v->type, v->initializer);
    else klg_printf(&constants, "%s(0)", glsl_type(&e, v->type, v->location));
    klg_puts(&constants, ";\n");
    e.out = saved;
  }

  /* the kernel body */
  klg_puts(&main_body, "void main() {\n");
  klg_puts(&main_body, klg_text(&copies));
  if (kernel->body && kernel->body->kind == KL_STMT_COMPOUND)
    for (const kl_node *s = kernel->body->body; s; s = s->next) glsl_stmt(&e, s, 1);
  else if (kernel->body)
    glsl_stmt(&e, kernel->body, 1);
  klg_puts(&main_body, "}\n");

  /* structs (after the body: types used there set the capabilities) */
  klg_buf structs;
  klg_init(&structs, ctx);
  for (int s = 0; s < program->struct_count; s++) glsl_struct(&e, program->structs[s], &structs);

  /* buffers, now that reads and writes are known */
  klg_buf buffers;
  klg_init(&buffers, ctx);
  i = 0;
  for (const kl_variable *p = kernel->params; p; p = p->next, i++) {
    kl_glsl_param *lp = &e.params[i];
    if (lp->kind != KL_GLSL_PARAM_BUFFER) continue;
    glsl_root *r = e.param_roots[i];
    if (!r) continue;
    bool is_const = p->type->pointee_space == KL_SPACE_CONSTANT || (p->type->element->qualifiers & KL_QUALIFIER_CONST);
    lp->readonly = is_const || !r->written;
    lp->writeonly = !lp->readonly && !r->read;
    const char *q = lp->readonly ? "readonly " : lp->writeonly ? "writeonly " : "";
    const char *restrict_q = (p->type->qualifiers & KL_QUALIFIER_RESTRICT) ? "restrict " : "";
    const char *vol = (p->type->element->qualifiers & KL_QUALIFIER_VOLATILE) ? "coherent volatile " : "";
    klg_printf(&buffers, "layout(std430, set = 0, binding = %u) %s%s%sbuffer _cl_Buffer%u { %s %s[]; };\n", lp->binding,
               restrict_q, vol, q, lp->binding, glsl_type(&e, p->type->element, p->location), r->array);
  }

  kl_glsl_layout *layout = kl_alloc(ctx, sizeof *layout);
  layout->kernel = kernel->name;
  layout->param_count = count;
  layout->params = e.params;
  layout->buffer_count = binding;
  layout->block_size = block_size;
  layout->block_in_buffer = in_buffer;
  layout->block_binding = block_binding;
  layout->local_param_count = local_index;
  layout->capabilities = e.caps;
  if (e.failed) return NULL;

  klg_buf out;
  klg_init(&out, ctx);
  klg_printf(&out, "#version 450\n/* kernel %s, translated by anygpu */\n", kernel->name);
  if (e.caps & KL_GLSL_NEEDS_INT8)
    klg_puts(&out, "#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require\n#extension GL_EXT_shader_8bit_storage : require\n");
  if (e.caps & KL_GLSL_NEEDS_INT16)
    klg_puts(&out, "#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require\n#extension GL_EXT_shader_16bit_storage : require\n");
  if (e.caps & KL_GLSL_NEEDS_INT64) klg_puts(&out, "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n");
  if (e.int64_atomics) klg_puts(&out, "#extension GL_EXT_shader_atomic_int64 : require\n");
  uint32_t wg[3] = {1, 1, 1};
  if (kernel->has_required_work_group_size)
    for (int d = 0; d < 3; d++) wg[d] = kernel->required_work_group_size[d] ? kernel->required_work_group_size[d] : 1;
  klg_printf(&out, "layout(local_size_x = %u, local_size_y = %u, local_size_z = %u, local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n",
             wg[0], wg[1], wg[2]);
  klg_puts(&out, klg_text(&structs));
  if (in_buffer) klg_printf(&out, "layout(std430, set = 0, binding = %u) readonly buffer _cl_Block {\n", block_binding);
  else klg_puts(&out, "layout(push_constant, std430) uniform _cl_Block {\n");
  klg_puts(&out, "  layout(offset = 0) uvec3 _cl_group_offset;\n  layout(offset = 12) uint _cl_work_dim;\n"
                 "  layout(offset = 16) uvec3 _cl_num_groups;\n");
  klg_puts(&out, klg_text(&block));
  klg_puts(&out, "} _cl_p;\n");
  klg_puts(&out, klg_text(&buffers));
  klg_puts(&out, klg_text(&e.globals));
  klg_puts(&out, klg_text(&constants));
  klg_puts(&out, klg_text(&e.helpers));
  klg_puts(&out, klg_text(&e.functions));
  klg_puts(&out, klg_text(&main_body));
  if (layout_out) *layout_out = layout;
  return klg_text(&out);
}

const char *kl_emit_glsl(kl_context *ctx, const kl_program *program, const kl_function *kernel) {
  return kl_emit_glsl_with_layout(ctx, program, kernel, NULL);
}

const kl_glsl_layout *kl_glsl_layout_of(kl_context *ctx, const kl_program *program, const kl_function *kernel) {
  const kl_glsl_layout *layout = NULL;
  if (!kl_emit_glsl_with_layout(ctx, program, kernel, &layout)) return NULL;
  return layout;
}
