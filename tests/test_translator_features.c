// SPDX-License-Identifier: Apache-2.0
/* Front-end features for real-world OpenCL kernels (issues 18 and 31): brace
 * initialisers of vectors, image constructs refused by name, structs in
 * memory with OpenCL C's layout, implicit int parameters. What each target
 * prints is checked by the corpus (tests/kernels); here: the rules, the
 * diagnostics and the layout numbers. */
#include "agpu_test.h"
#include "kl_front.h"
#include "translate.h"

static kl_context *ctx;

static kl_program *parse(const char *source) {
  kl_context_destroy(ctx);
  ctx = kl_context_create();
  kl_translate_options o = {.source_name = "k.cl"};
  o.traits.fp64 = true;
  o.traits.int64 = true;
  return kl_parse_program(ctx, source, strlen(source), &o);
}

/* The program fails with `message` at line:column as its first error. */
static void check_error(const char *source, int line, int column, const char *message) {
  if (parse(source)) {
    printf("  FAIL %s: accepted:\n%s\n", agpu_test_g.case_name, source);
    agpu_test_g.case_failed = 1;
    return;
  }
  const kl_diagnostic *d = kl_diagnostics(ctx);
  while (d && d->severity != KL_ERROR) d = d->next;
  if (!d || d->location.line != line || d->location.column != column ||
      !strstr(d->message, message)) {
    printf("  FAIL %s: expected %d:%d %s, got:\n%s", agpu_test_g.case_name, line, column, message,
           kl_diagnostics_text(ctx));
    agpu_test_g.case_failed = 1;
  }
}

static void check_accepted(const char *source) {
  if (!parse(source)) {
    printf("  FAIL %s: rejected:\n%s\n%s", agpu_test_g.case_name, source, kl_diagnostics_text(ctx));
    agpu_test_g.case_failed = 1;
  }
}

/* Accepted, with `warning` as its first warning, at line:column. */
static kl_program *check_warned(const char *source, int line, int column, const char *warning) {
  kl_program *prog = parse(source);
  const kl_diagnostic *d = kl_diagnostics(ctx);
  while (d && d->severity != KL_WARNING) d = d->next;
  if (!prog || !d || d->location.line != line || d->location.column != column ||
      !strstr(d->message, warning)) {
    printf("  FAIL %s: expected the warning %d:%d %s for\n%s\ngot:\n%s", agpu_test_g.case_name,
           line, column, warning, source, kl_diagnostics_text(ctx));
    agpu_test_g.case_failed = 1;
  }
  return prog;
}

static void vector_brace_initialisers(void) {
  check_accepted(
      "__kernel void k(__global float4 *o) {\n"
      "  float2 h = {1, 2};\n"
      "  float4 a = {1.0f, 2, 3u, 4.5}, b = {h, h}, c = {h, 1, 2}, d = {a}, e = {};\n"
      "  float4 arr[3] = {{1, 2, 3, 4}, {h, h}, 7};\n"
      "  o[0] = a + b + c + d + e + arr[2];\n"
      "}\n");
  check_accepted(
      "typedef struct { float3 p; int2 q; } s;\n"
      "__constant float4 t[2] = {{1, 2, 3, 4}, {}};\n"
      "__kernel void k(__global float4 *o) {\n"
      "  s v[2] = {{{1, 2, 3}, {4, 5}}, {{6, 7, 8}}};\n"
      "  o[0] = t[1] + (float4)(v[0].p, v[1].q.x);\n"
      "}\n");
  check_error("__kernel void k(__global float4 *o) { float4 f = {1, 2, 3}; o[0] = f; }", 1, 50,
              "too few elements in the initializer of a 'float4': it needs 4, 3 given");
  check_error("__kernel void k(__global int2 *o) { int2 f = {1, 2, 3}; o[0] = f; }", 1, 46,
              "too many elements in the initializer of a 'int2': it needs 2, 3 given");
  check_error("__kernel void k(__global float4 *o) { float4 f = {1.0f}; o[0] = f; }", 1, 50,
              "too few elements");
  check_error("__kernel void k(__global float4 *o) { float4 f = {{1, 2, 3, 4}}; o[0] = f; }", 1, 51,
              "braces inside the initializer of a 'float4'");
  check_error(
      "__kernel void k(__global float4 *o) { int2 i = (int2)(1);\n"
      "  float4 f = {i, 1.0f, 2.0f}; o[0] = f; }",
      2, 15, "a 'int2' part in the initializer of a 'float4'");
  /* malformed lists end in an error, never a crash */
  const char *broken[] = {
      "__kernel void k() { float4 f = {1, 2, 3, 4; }",
      "__kernel void k() { float4 f = {, }; }",
      "__kernel void k() { float4 f = {1, 2, 3, 4,, }; }",
      "__kernel void k() { float4 f = {",
      "__kernel void k() { float4 f[2] = {{{{{{{{{{{{}}}}}}}}}}}}; }",
  };
  for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
    CHECK(!parse(broken[i]));
    CHECK(kl_error_count(ctx) >= 1);
  }
}

static void images_are_named(void) {
  check_error("__kernel void k(__read_only image2d_t i, __global int *o) { o[0] = 0; }", 1, 29,
              "images are not in the portable subset: image types are not supported ('image2d_t')");
  check_error("__kernel void k(sampler_t s, __global int *o) { o[0] = 0; }", 1, 17,
              "samplers are not in the portable subset");
  check_error("__kernel void k(__global float4 *o) { o[0] = read_imagef(0, 0, (int2)(0)); }", 1, 46,
              "images are not in the portable subset: 'read_imagef' is not supported");
  check_error("__kernel void k(__global int *o) { o[0] = get_image_width(0); }", 1, 43,
              "images are not in the portable subset: 'get_image_width'");
  check_error("__kernel void k(__global int *o) { o[0] = CLK_FILTER_LINEAR; }", 1, 43,
              "samplers are not in the portable subset: 'CLK_FILTER_LINEAR'");
  check_error("__kernel void k(__global int *o) { o[0] = CLK_RGBA; }", 1, 43,
              "images are not in the portable subset: 'CLK_RGBA'");
  /* a function of the program's own with such a name is the program's */
  check_accepted(
      "int read_image_count(int x) { return x; }\n"
      "__kernel void k(__global int *o) { o[0] = read_image_count(2); }");
}

static const kl_member *member(const kl_type *t, const char *name) {
  for (const kl_member *m = t->members; m; m = m->next)
    if (strcmp(m->name, name) == 0) return m;
  return NULL;
}

static const kl_type *struct_named(const kl_program *program, const char *name) {
  for (int i = 0; program && i < program->struct_count; i++)
    if (program->structs[i]->name && strcmp(program->structs[i]->name, name) == 0)
      return program->structs[i];
  return NULL;
}

static const char shared_structs[] =
    "typedef struct { float3 position; float mass; uint2 cell; float weights[3]; } particle;\n"
    "typedef struct { particle p; uint tag; float4 extra; } wrapped;\n"
    "typedef struct { char c; double3 d; short s; } mixed;\n"
    "typedef struct { float scale; int offset; float2 shift; } params;\n"
    "__constant wrapped table[2] = {{{{1, 2, 3}, 4, {5, 6}, {7, 8, 9}}, 10, {}}};\n"
    "__kernel void k(__global const particle *in, __constant wrapped *w, __global mixed *m,\n"
    "                __global float4 *out, params prm) {\n"
    "  out[0] = (float4)(in[0].position, w[0].p.mass + table[1].extra.x + prm.scale);\n"
    "  m[0].s = (short)m[0].c;\n"
    "}\n";

static void struct_layout_is_opencl_c(void) {
  kl_program *program = parse(shared_structs);
  CHECK(program != NULL);
  if (!program) {
    printf("%s", kl_diagnostics_text(ctx));
    return;
  }
  const kl_type *particle = struct_named(program, "particle");
  const kl_type *wrapped = struct_named(program, "wrapped");
  const kl_type *mixed = struct_named(program, "mixed");
  CHECK(particle && wrapped && mixed);
  if (!particle || !wrapped || !mixed) return;
  /* a float3 takes 16 bytes; C's alignment; the size a multiple of it */
  CHECK(particle->size == 48 && particle->align == 16);
  CHECK(member(particle, "mass")->offset == 16);
  CHECK(member(particle, "cell")->offset == 24);
  CHECK(member(particle, "weights")->offset == 32);
  CHECK(wrapped->size == 80 && member(wrapped, "tag")->offset == 48);
  CHECK(member(wrapped, "extra")->offset == 64);
  CHECK(mixed->size == 96 && mixed->align == 32);
  CHECK(member(mixed, "d")->offset == 32 && member(mixed, "s")->offset == 64);
  /* the signature reports sizes and offsets, nested structs included */
  const char *json = kl_signature_json(ctx, program);
  CHECK(strstr(json, "\"struct\": {\"name\": \"struct particle\", \"size\": 48, \"align\": 16"));
  CHECK(strstr(json,
               "{\"name\": \"weights\", \"type\": \"float[3]\", \"offset\": 32, \"size\": 12}"));
  CHECK(strstr(json, "{\"name\": \"tag\", \"type\": \"uint\", \"offset\": 48, \"size\": 4}"));
  CHECK(strstr(json, "\"kind\": \"value\", \"type\": \"struct params\""));
  /* each native target checks the numbers statically */
  const char *c = kl_emit(ctx, program, KL_TARGET_C, NULL);
  CHECK(c && strstr(c, "_Static_assert(offsetof(struct kl_s0, weights) == 32"));
  const char *cuda = kl_emit(ctx, program, KL_TARGET_CUDA, NULL);
  CHECK(cuda && strstr(cuda, "static_assert(_CL_OFFSETOF(wrapped, extra) == 64"));
  const char *ocl = kl_emit(ctx, program, KL_TARGET_OPENCL, NULL);
  CHECK(ocl && strstr(ocl, "_Static_assert(__builtin_offsetof(struct mixed, s) == 64"));
  /* GLSL: std430 with padding members keeps these offsets */
  const char *glsl = kl_emit(ctx, program, KL_TARGET_GLSL, "k");
  CHECK(glsl != NULL);
  if (!glsl) printf("%s", kl_diagnostics_text(ctx));
}

/* Unions: every member at offset 0, the size of the largest rounded to the
 * largest alignment; printed as unions by the C-family targets, refused
 * with its name by GLSL; a brace list sets the first member. */
static void union_layout(void) {
  kl_program *program = parse(
      "typedef union { char c; double d; int4 v; } big;\n"
      "typedef union { char c[5]; short s; } odd;\n"
      "typedef struct { char tag; odd o; } holder;\n"
      "__kernel void k(__global big *b, __global int *out) {\n"
      "  odd x = {{1, 2, 3, 4, 5}};\n"
      "  holder h = {7, {{1}}};\n"
      "  out[0] = x.s + h.o.c[0] + (int)b[0].d + (int)sizeof(holder);\n"
      "}\n");
  CHECK(program != NULL);
  if (!program) {
    printf("%s", kl_diagnostics_text(ctx));
    return;
  }
  const kl_type *big = struct_named(program, "big"), *odd = struct_named(program, "odd");
  const kl_type *holder = struct_named(program, "holder");
  CHECK(big && odd && holder);
  if (!big || !odd || !holder) return;
  CHECK(big->is_union && big->size == 16 && big->align == 16);
  CHECK(member(big, "d")->offset == 0 && member(big, "v")->offset == 0);
  CHECK(odd->size == 6 && odd->align == 2);
  CHECK(holder->size == 8 && member(holder, "o")->offset == 2);
  CHECK(strstr(kl_signature_json(ctx, program), "union big"));
  const char *c = kl_emit(ctx, program, KL_TARGET_C, NULL);
  CHECK(c && strstr(c, "union kl_s0 {") && strstr(c, "sizeof(union kl_s1) == 6"));
  const char *ocl = kl_emit(ctx, program, KL_TARGET_OPENCL, NULL);
  CHECK(ocl && strstr(ocl, "union odd {"));
  CHECK(kl_emit(ctx, program, KL_TARGET_GLSL, "k") == NULL);
  CHECK(strstr(kl_diagnostics_text(ctx), "union 'big' (GLSL has no unions"));
  /* a second initializer for a union is one too many */
  CHECK(
      !parse("typedef union { int a; float b; } u;\n"
             "__kernel void k(__global int *o) { u x = {1, 2}; o[0] = x.a; }\n"));
  CHECK(strstr(kl_diagnostics_text(ctx), "too many initializers"));
}

/* A pointer converted to another element type without a cast: a warning,
 * and the cast the user left out (as C does); GLSL takes it as a written
 * one: a view of the buffer with the new element type, at the same binding,
 * the offset in its elements. */
static void implicit_pointer_conversion(void) {
  kl_program *program = parse(
      "__kernel void k(__global uint2 *pairs, __global uint *out) {\n"
      "  __global uint *flat = pairs;\n"
      "  out[0] = flat[1];\n"
      "}\n");
  CHECK(program != NULL);
  CHECK(strstr(kl_diagnostics_text(ctx),
               "2:25: warning: incompatible pointer types: '__global "
               "uint2*' converted to '__global uint*'"));
  const char *ocl = program ? kl_emit(ctx, program, KL_TARGET_OPENCL, NULL) : NULL;
  CHECK(ocl && strstr(ocl, "(__global uint*)"));
  const char *glsl = program ? kl_emit(ctx, program, KL_TARGET_GLSL, "k") : NULL;
  CHECK(glsl && strstr(glsl,
                       "binding = 0) spirv_decorate(20) readonly buffer _cl_Buffer0_uint { "
                       "uint _cl_buf0_uint[]; };"));
  CHECK(glsl && strstr(glsl, "uint kl_flat = (pairs * 2u);"));
  CHECK(glsl && strstr(glsl, "_cl_buf0_uint[kl_flat + uint(1)]"));
}

static void shared_struct_rules(void) {
  check_error(
      "typedef struct { float v; bool alive; } cell;\n"
      "__kernel void k(cell c, __global float *out) { out[0] = c.v; }",
      2, 22,
      "a struct kernel parameter ('c'): member 'alive' of 'struct cell' has type 'bool'");
  /* in a buffer a bool is one byte, as clang, CUDA and C lay it out: a warning */
  check_accepted(
      "typedef struct { float v; bool alive; } cell;\n"
      "__kernel void k(__global cell *c) { c[0].v = 1.0f; c[0].alive = true; }");
  check_error(
      "typedef struct { float v; size_t n[2]; } cell;\n"
      "typedef struct { cell inner; } outer;\n"
      "__kernel void k(outer o, __global float *out) { out[0] = o.inner.v; }",
      3, 23, "a struct kernel parameter ('o'): member 'n' of 'struct cell'");
  check_error(
      "typedef struct { ptrdiff_t d; } cell;\n"
      "__constant cell t = {1};\n"
      "__kernel void k(__global float *out) { out[0] = t.d; }",
      2, 17, "a struct in __constant memory ('t')");
  check_error(
      "typedef struct { float v; } cell;\n"
      "__kernel void k(__local cell *c) { c[0].v = 1.0f; }",
      2, 31, "structs in __local memory are not supported");
  /* a bool in a private struct is fine */
  check_accepted(
      "typedef struct { float v; bool b; } cell;\n"
      "__kernel void k(__global float *out) { cell c = {1.0f, true}; out[0] = c.b ? c.v : 0; }");
}

static void glsl_refuses_a_layout_std430_cannot_give(void) {
  /* an 8-vector is 32-byte aligned in OpenCL C and 16 in std430: the struct
   * would be 48 bytes in GLSL and 64 in OpenCL C */
  kl_program *program = parse(
      "typedef struct { float8 v; float w; } wide;\n"
      "typedef struct { float8 v; float w; float pad[7]; } padded;\n"
      "__kernel void k(__global wide *a) { a[0].w = 1.0f; }\n"
      "__kernel void j(__global padded *a) { a[0].w = 1.0f; }\n");
  CHECK(program != NULL);
  if (!program) return;
  CHECK(kl_emit(ctx, program, KL_TARGET_GLSL, "j") != NULL);
  CHECK(kl_emit(ctx, program, KL_TARGET_GLSL, "k") == NULL);
  CHECK(strstr(kl_diagnostics_text(ctx),
               "the GLSL target does not support the layout of struct 'wide' in memory: std430 "
               "makes it 48 bytes where OpenCL C makes it 64"));
  /* the other targets take it */
  CHECK(kl_emit(ctx, program, KL_TARGET_C, NULL) != NULL);
  CHECK(kl_emit(ctx, program, KL_TARGET_CUDA, NULL) != NULL);
}

/* Issue 34: every declarator of a for init with a barrier inside is
 * emitted for the C target, with its start; a start that may differ
 * between work-items is refused on that target (it would be one group-level
 * value) and still taken by the others. */
static void c_target_keeps_every_for_declarator(void) {
  kl_program *program = parse(
      "__kernel void k(__global int *o, __local int *t, int w) {\n"
      "  int lid = get_local_id(0);\n"
      "  int sum = 0;\n"
      "  for (int a = 3 * w, b = w + 7, c; a < 4 * w; a += 1, b += 2) {\n"
      "    t[lid] = a + b;\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "    sum += t[(lid + 1) % get_local_size(0)];\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n"
      "  o[get_global_id(0)] = sum;\n"
      "}\n");
  CHECK(program != NULL);
  if (!program) return;
  const char *c = kl_emit(ctx, program, KL_TARGET_C, NULL);
  CHECK(c != NULL);
  if (!c) return;
  CHECK(strstr(c, "_a = (((int)3ll) * v") != NULL);
  CHECK(strstr(c, "_b = (v") != NULL);
  CHECK(strstr(c, "_c = {0};") != NULL);
  program = parse(
      "__kernel void k(__global int *o, __local int *t) {\n"
      "  int lid = get_local_id(0);\n"
      "  for (int a = 0, b = lid; a < 4; a++, b++) {\n"
      "    t[lid] = b;\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n"
      "  o[lid] = t[0];\n"
      "}\n");
  CHECK(program != NULL);
  if (!program) return;
  CHECK(kl_emit(ctx, program, KL_TARGET_C, NULL) == NULL);
  CHECK(strstr(kl_diagnostics_text(ctx),
               "k.cl:3:19: error: the start of this loop, which "
               "contains a barrier, may differ between the work-items") != NULL);
  CHECK(kl_emit(ctx, program, KL_TARGET_OPENCL, NULL) != NULL);
}

/* issue 31: `__global * buffer` is an int pointer, with a warning */
static void implicit_int_parameters(void) {
  kl_program *prog = check_warned("__kernel void k(__global * buffer) { buffer[0] = 1; }", 1, 28,
                                  "parameter 'buffer' has no type: 'int' is assumed");
  if (prog) {
    const kl_type *t = prog->functions->params->type;
    CHECK(t->kind == KL_TYPE_POINTER && t->element->kind == KL_TYPE_INT);
  }
  check_warned("__kernel void k(__global int *o, const n) { o[0] = n; }", 1, 40,
               "parameter 'n' has no type");
  /* only parameters: a variable still needs its type */
  check_error("__kernel void k(__global int *o) { const x = 1; o[0] = x; }", 1, 42,
              "expected a type");
}

/* issue 31: attributes wherever the grammar puts them; aligned and packed
 * give GCC's and clang's layout, the hints are checked and kept quiet */
static void attribute_positions_and_layout(void) {
  kl_program *prog = parse(
      "typedef struct __attribute__((packed)) { uchar t; uint v; } __attribute__((aligned(4))) "
      "pk;\n"
      "struct w { uint a; uint b __attribute__((aligned(8))); } __attribute__((aligned(16)));\n"
      "typedef struct { uint x, y; } pr __attribute__((aligned(16)));\n"
      "struct o { uint a; pr p; };\n"
      "__kernel __attribute__((vec_type_hint(float4), work_group_size_hint(8, 1, 1))) void\n"
      "k(__global uint *__attribute__((nosvm)) out, __constant uint *c\n"
      "  __attribute__((max_constant_size(64), endian(host)))) __attribute__((nosvm)) {\n"
      "  pk p = {1, 2}; struct w v = {3, 4}; pr q __attribute__((aligned(16))) = {5, 6};\n"
      "  struct o r = {7, q};\n"
      "  out[0] = p.v + v.b + q.y + r.p.x + c[0];\n"
      "}\n");
  CHECK(prog && !kl_diagnostics(ctx));
  if (!prog) {
    printf("%s", kl_diagnostics_text(ctx));
    return;
  }
  const kl_type *pk = struct_named(prog, "pk"), *w = struct_named(prog, "w");
  const kl_type *pr = struct_named(prog, "pr"), *o = struct_named(prog, "o");
  CHECK(pk && w && pr && o);
  if (!pk || !w || !pr || !o) return;
  CHECK(pk->packed && pk->size == 8 && pk->align == 4 && member(pk, "v")->offset == 1);
  CHECK(w->size == 16 && w->align == 16 && member(w, "b")->offset == 8);
  CHECK(member(w, "b")->aligned == 8);
  /* a typedef's aligned(16): the alignment, not the size (as GCC and clang) */
  CHECK(pr->size == 8 && member(o, "p")->offset == 16 && o->size == 32);
  CHECK(member(o, "p")->aligned == 16);
  static const struct {
    const char *source;
    int line, column;
    const char *message;
  } errors[] = {
      {"typedef struct { uint x, y; } pr __attribute__((aligned(16)));\n"
       "__kernel void k(__global uint *o) { pr a[2]; a[0].x = 1; o[0] = a[0].x; }",
       2, 41, "whose alignment 16 (a typedef's aligned) exceeds its size 8"},
      {"__kernel void k(__global uint *o __attribute__((max_constant_size(4)))) {}", 1, 49,
       "max_constant_size applies to __constant pointers"},
      {"struct s { int a; } __attribute__((aligned(3)));", 1, 36,
       "the alignment must be a power of two"},
      {"__kernel __attribute__((work_group_size_hint(0, 1, 1))) void k() {}", 1, 25,
       "work_group_size_hint values must be positive"},
      {"__kernel __attribute__((vec_type_hint(banana))) void k() {}", 1, 39,
       "vec_type_hint takes a scalar or vector type"},
      {"__kernel void k(__constant int *c __attribute__((endian(little)))) {}", 1, 57,
       "endian takes 'host' or 'device'"},
      {"typedef float f16 __attribute__((aligned(16)));", 1, 34,
       "only structs can be over-aligned"},
  };
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    check_error(errors[i].source, errors[i].line, errors[i].column, errors[i].message);
  check_warned(
      "__kernel void k(__global int *o) { int x __attribute__((frobnicate)) = 1; o[0] = x; }", 1,
      57, "attribute 'frobnicate' is ignored");
}

/* issue 31: pointers to arrays, kept as pointers to their element */
static void pointers_to_arrays(void) {
  kl_program *prog = parse(
      "__kernel void k(__global float *o, __global const float (*w)[4]) {\n"
      "  __global float (*u)[3][4] = (__global float (*)[3][4])o;\n"
      "  u[1][2][3] = w[2][1];\n"
      "}\n");
  CHECK(prog && !kl_diagnostics(ctx));
  if (!prog) {
    printf("%s", kl_diagnostics_text(ctx));
    return;
  }
  const kl_variable *w = prog->functions->params->next, *u = prog->functions->locals;
  CHECK(w->type->kind == KL_TYPE_POINTER && w->type->element->kind == KL_TYPE_FLOAT);
  CHECK(w->view && w->view->element->kind == KL_TYPE_ARRAY && w->view->element->length == 4);
  CHECK(u && u->type->kind == KL_TYPE_POINTER && u->type->element->kind == KL_TYPE_FLOAT);
  CHECK(u && u->view && u->view->element->length == 3 && u->view->element->element->length == 4);
  static const struct {
    const char *source;
    int line, column;
    const char *message;
  } errors[] = {
      {"__kernel void k(__global float *o) {\n"
       "  __global float (*u)[4] = (__global float (*)[5])o; u[0][0] = 1; }",
       2, 20, "'u' is a pointer to an array ('__global float (*)[4]'): initialise it"},
      {"__kernel void k(__global float (*u)[4]) { u[0][0] = *(u + 1)[0]; }", 1, 55,
       "a pointer to an array ('__global float (*)[4]') can only be subscripted here"},
      {"void f(__global float *p) { p[0] = 1; }\n"
       "__kernel void k(__global float (*u)[4][2]) { f(u[1]); }",
       2, 48, "can only be subscripted here"},
      {"__kernel void k(__global float *o) { __global float *(*u)[4]; }", 1, 56,
       "pointer to pointer types are not supported"},
      {"__kernel void k(__global int *o) { int (*fp)(int); }", 1, 42,
       "function pointers are not supported"},
  };
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    check_error(errors[i].source, errors[i].line, errors[i].column, errors[i].message);
}

/* issue 31: compound literals, hoisted into temporaries where that keeps
 * what is evaluated */
static void compound_literals(void) {
  kl_program *prog = parse(
      "typedef struct { float re, im; } cx;\n"
      "__kernel void k(__global float *o) {\n"
      "  cx a = (cx){1, 2}, b = a;\n"
      "  o[0] = b.re + ((cx){3, 4}).im;\n"
      "}\n");
  CHECK(prog && !kl_diagnostics(ctx));
  if (!prog) {
    printf("%s", kl_diagnostics_text(ctx));
    return;
  }
  /* the temporaries are the function's locals, declared before their statements */
  const kl_variable *v = prog->functions->locals;
  CHECK(v && strcmp(v->name, "compound_literal_1") == 0 && v->initializer);
  CHECK(v && v->next && strcmp(v->next->name, "a") == 0);
  const kl_node *body = prog->functions->body->body;
  CHECK(body && body->kind == KL_STMT_DECLARATION && body->variable == v);
  static const struct {
    const char *source;
    int line, column;
    const char *message;
  } errors[] = {
      {"typedef struct { int a; } s;\n"
       "__kernel void k(__global int *o) { if (((s){1}).a) o[0] = 1; }",
       2, 41, "a compound literal here is not supported"},
      {"typedef struct { int a; } s;\n"
       "__kernel void k(__global int *o) { o[0] = o[1] && ((s){1}).a; }",
       2, 52, "a compound literal in an operand of &&, || or ?:"},
      {"typedef struct { int a; } s;\n"
       "__kernel void k(__global int *o) { o[0] = o[1] ? ((s){1}).a : 0; }",
       2, 51, "a compound literal in an operand of &&, || or ?:"},
      {"__kernel void k(__global int *o) { o[0] = (int){1}; }", 1, 43,
       "compound literals of 'int' are not supported"},
  };
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    check_error(errors[i].source, errors[i].line, errors[i].column, errors[i].message);
}

int main(void) {
  RUN(vector_brace_initialisers);
  RUN(images_are_named);
  RUN(struct_layout_is_opencl_c);
  RUN(union_layout);
  RUN(implicit_pointer_conversion);
  RUN(shared_struct_rules);
  RUN(glsl_refuses_a_layout_std430_cannot_give);
  RUN(c_target_keeps_every_for_declarator);
  RUN(implicit_int_parameters);
  RUN(attribute_positions_and_layout);
  RUN(pointers_to_arrays);
  RUN(compound_literals);
  kl_context_destroy(ctx);
  return agpu_test_finish();
}
