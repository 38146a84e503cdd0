// SPDX-License-Identifier: Apache-2.0
/* The kernel-language front end: preprocessor, type rules, diagnostics,
 * signatures, the checks' facts, robustness on hostile input, and speed. */
#include <time.h>

#include "agpu_test.h"
#include "builtins.h"
#include "kl_front.h"
#include "translate.h"

static kl_context *ctx; /* the current case's context */

static void reset(void) {
  kl_context_destroy(ctx);
  ctx = kl_context_create();
}

static kl_program *parse_with(const char *source, const char *options, bool fp64) {
  reset();
  kl_translate_options o = {.source_name = "k.cl", .build_options = options};
  o.traits.fp64 = fp64;
  o.traits.int64 = true;
  return kl_parse_program(ctx, source, strlen(source), &o);
}

static kl_program *parse(const char *source) {
  return parse_with(source, NULL, true);
}

static bool has_diagnostic(kl_severity severity, const char *needle) {
  for (const kl_diagnostic *d = kl_diagnostics(ctx); d; d = d->next)
    if (d->severity == severity && strstr(d->message, needle)) return true;
  return false;
}

#define CHECK_TEXT(actual, expected)                                                \
  do {                                                                              \
    const char *a_ = (actual), *e_ = (expected);                                    \
    if (!a_ || strcmp(a_, e_) != 0) {                                               \
      printf("  FAIL %s:%d: %s: got \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
             agpu_test_g.case_name, a_ ? a_ : "(null)", e_);                        \
      agpu_test_g.case_failed = 1;                                                  \
    }                                                                               \
  } while (0)

/* ------------------------------------------------------- preprocessor */

static const char *preprocess(const char *source, const char *options) {
  parse_with(source, options, true);
  return kl_preprocessed_text(ctx);
}

static void preprocessor_macros(void) {
  CHECK_TEXT(preprocess("#define N 4\nint x = N;", NULL), "int x = 4;");
  CHECK_TEXT(preprocess("#define SQ(x) ((x) * (x))\nint y = SQ(1 + 2);", NULL),
             "int y = ((1 + 2) * (1 + 2));");
  CHECK_TEXT(preprocess("#define STR(x) #x\nSTR(a  +  \"b\")", NULL), "\"a + \\\"b\\\"\"");
  CHECK_TEXT(preprocess("#define CAT(a, b) a ## b\nint CAT(va, lue) = CAT(1, 2);", NULL),
             "int value = 12;");
  CHECK_TEXT(preprocess("#define foo foo + 1\nfoo", NULL), "foo + 1");
  CHECK_TEXT(preprocess("#define f(x) g(x)\n#define g(x) x * 2\nf(f(3))", NULL), "3 * 2 * 2");
  CHECK_TEXT(preprocess("#define A 1\n#undef A\nA", NULL), "A");
  CHECK_TEXT(preprocess("#define EMPTY\nint EMPTY z;", NULL), "int z;");
  CHECK_TEXT(preprocess("#define F() 7\nF()", NULL), "7");
  CHECK_TEXT(preprocess("int l = __LINE__;\n\nint m = __LINE__;", NULL), "int l = 1;\nint m = 3;");
  CHECK_TEXT(preprocess("__FILE__", NULL), "\"k.cl\"");
  /* line markers of preprocessed output are skipped without a word */
  CHECK_TEXT(preprocess("# 1 \"../k.cl\"\n# 7 \"<built-in>\" 2\n__constant int q = 1;", NULL),
             "__constant int q = 1;");
  CHECK(!kl_diagnostics(ctx));
  CHECK_TEXT(
      preprocess(
          "__OPENCL_VERSION__ __OPENCL_C_VERSION__ CL_VERSION_1_2 __ENDIAN_LITTLE__ __ANYGPU__",
          NULL),
      "120 120 120 1 1");
}

static void preprocessor_conditionals(void) {
  CHECK_TEXT(preprocess("#if 1 + 2 * 3 == 7 && (10 / 3) == 3 && -1 < 0 && (1 ? 5 : 6) == "
                        "5\nyes\n#else\nno\n#endif",
                        NULL),
             "yes");
  CHECK_TEXT(preprocess("#if -1 < 0u\nsigned\n#else\nunsigned\n#endif", NULL), "unsigned");
  CHECK_TEXT(
      preprocess("#define X 2\n#if X == 1\none\n#elif X == 2\ntwo\n#else\nother\n#endif", NULL),
      "two");
  CHECK_TEXT(preprocess("#if defined(X) || defined Y\nd\n#elif !defined(Z)\nnz\n#endif", NULL),
             "nz");
  CHECK_TEXT(preprocess("#ifdef UNDEFINED\na\n#ifndef B\nb\n#endif\n#else\nc\n#endif", NULL), "c");
  CHECK_TEXT(preprocess("#if UNDEFINED_NAME\na\n#else\nb\n#endif", NULL), "b");
  CHECK_TEXT(preprocess("#if 0\n#error not me\n#bogus\n#endif\nok", NULL), "ok");
  /* -D, -U and the traits' macros */
  CHECK_TEXT(preprocess("N FLAG V", "-DN=4 -D FLAG -DV=a+b"), "4 1 a+b");
  CHECK_TEXT(preprocess("#ifdef __ANYGPU__\nx\n#endif", "-U __ANYGPU__"), "");
  CHECK_TEXT(preprocess("#ifdef cl_khr_fp64\nfp64\n#endif", NULL), "fp64");
  parse_with("#ifdef cl_khr_fp64\nfp64\n#endif", NULL, false);
  CHECK_TEXT(kl_preprocessed_text(ctx), "");
  CHECK(preprocess("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nx", NULL) != NULL);
  CHECK(kl_extension_enabled(ctx, "cl_khr_fp64"));
  CHECK(!has_diagnostic(KL_WARNING, "pragma"));
  preprocess("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n", NULL);
  parse_with("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n", NULL, false);
  CHECK(has_diagnostic(KL_ERROR, "not supported by this device"));
  preprocess("#error stop here\n", NULL);
  CHECK(has_diagnostic(KL_ERROR, "#error stop here"));
}

static void macro_locations(void) {
  /* An error inside a macro expansion is reported where the macro is used. */
  CHECK(
      !parse("#define BAD(x) (x + undefined_thing)\n__kernel void k(__global int *o) {\n  o[0] = "
             "BAD(1);\n}"));
  const kl_diagnostic *d = kl_diagnostics(ctx);
  CHECK(d && d->location.line == 3 && d->location.column == 10);
  CHECK(d && strstr(d->message, "undefined_thing"));
}

/* ---------------------------------------------------------- types */

static const kl_node *first_expression(kl_program *program) {
  if (!program) return NULL;
  for (const kl_function *f = program->functions; f; f = f->next)
    if (f->body)
      for (const kl_node *s = f->body->body; s; s = s->next)
        if (s->kind == KL_STMT_EXPRESSION) return s->lhs;
  return NULL;
}

static const kl_node *expression_with(const char *expression, bool fp64) {
  char source[2048];
  snprintf(source, sizeof source,
           "__kernel void k(__global int *o, int n, uint u, float f, float4 v, int4 iv, char c, "
           "uchar uc) {\n"
           "  %s;\n}\n",
           expression);
  return first_expression(parse_with(source, NULL, fp64));
}

static const char *type_of(const char *expression) {
  const kl_node *n = expression_with(expression, true);
  return n ? kl_type_name(ctx, n->type) : kl_format(ctx, "error: %s", kl_diagnostics_text(ctx));
}

static int64_t value_of(const char *expression) {
  const kl_node *n = expression_with(expression, true);
  int64_t v = -999999;
  if (!n || !kl_eval_int(ctx, n, &v)) return -999999;
  return v;
}

static void literal_and_arithmetic_types(void) {
  CHECK_TEXT(type_of("1 + 1u"), "uint");
  CHECK_TEXT(type_of("'a' + 1"), "int");
  CHECK_TEXT(type_of("'a'"), "int");
  CHECK_TEXT(type_of("(char)1 + (char)2"), "int");
  CHECK_TEXT(type_of("c + uc"), "int");
  CHECK_TEXT(type_of("5 / 2"), "int");
  CHECK(value_of("5 / 2") == 2);
  CHECK(value_of("-7 % 3") == -1); /* C99: truncation towards zero */
  CHECK(value_of("-7 / 2") == -3);
  CHECK_TEXT(type_of("1 << 33"), "int");
  CHECK(value_of("1 << 33") == 2); /* OpenCL masks the count to the width */
  CHECK(value_of("1u << 32") == 1);
  CHECK(value_of("-1 >> 40") == -1);
  CHECK_TEXT(type_of("0x7fffffff"), "int");
  CHECK_TEXT(type_of("0x80000000"), "uint");
  CHECK_TEXT(type_of("2147483648"), "long");
  CHECK_TEXT(type_of("4294967296u"), "ulong");
  CHECK_TEXT(type_of("1l"), "long");
  CHECK_TEXT(type_of("1ul"), "ulong");
  CHECK_TEXT(type_of("1.5f"), "float");
  CHECK_TEXT(type_of("1.5"), "double");
  CHECK_TEXT(type_of("n + u"), "uint");
  CHECK_TEXT(type_of("n + 1l"), "long");
  CHECK_TEXT(type_of("u + 1l"), "long");
  CHECK_TEXT(type_of("f + n"), "float");
  CHECK_TEXT(type_of("f * 2.0"), "double");
  CHECK_TEXT(type_of("sizeof(float4)"), "size_t");
  CHECK(value_of("sizeof(float3)") == 16);
  CHECK_TEXT(type_of("n < u"), "int");
  CHECK(value_of("-1 < 0u") == 0);
  CHECK_TEXT(type_of("get_global_id(0)"), "size_t");
  /* without cl_khr_fp64 an unsuffixed literal is single precision, with a warning */
  const kl_node *single = expression_with("1.5", false);
  CHECK(single && single->type->kind == KL_TYPE_FLOAT);
  CHECK(has_diagnostic(KL_WARNING, "single precision"));
}

static void implicit_conversions_are_explicit(void) {
  const kl_node *n = expression_with("f + n", true);
  CHECK(n && n->kind == KL_EXPR_BINARY && n->lhs->kind == KL_EXPR_VARIABLE);
  CHECK(n && n->rhs->kind == KL_EXPR_CONVERT && n->rhs->type->kind == KL_TYPE_FLOAT);
  n = expression_with("c + c", true);
  CHECK(n && n->lhs->kind == KL_EXPR_CONVERT && n->lhs->type->kind == KL_TYPE_INT);
  n = expression_with("v * 2.0f", true);
  CHECK(n && n->rhs->kind == KL_EXPR_CONVERT &&
        n->rhs->type->kind == KL_TYPE_VECTOR); /* scalar widened */
  n = expression_with("f = n", true);
  CHECK(n && n->kind == KL_EXPR_ASSIGN && n->rhs->kind == KL_EXPR_CONVERT);
}

static void vector_types(void) {
  CHECK_TEXT(type_of("v < v"), "int4");
  CHECK_TEXT(type_of("iv == iv"), "int4");
  CHECK_TEXT(type_of("(uchar4)(uc) < (uchar4)(1)"), "char4");
  CHECK_TEXT(type_of("(double2)(1.0) < (double2)(2.0)"), "long2");
  CHECK_TEXT(type_of("v * 2.0f"), "float4");
  CHECK_TEXT(type_of("iv + 1"), "int4");
  CHECK_TEXT(type_of("v.xy"), "float2");
  CHECK_TEXT(type_of("v.s3"), "float");
  CHECK_TEXT(type_of("v.lo"), "float2");
  CHECK_TEXT(type_of("v.odd"), "float2");
  CHECK_TEXT(type_of("v.wzyx"), "float4");
  CHECK_TEXT(type_of("(float8)(v, v).s01234567"), "float8");
  CHECK_TEXT(type_of("(float8)(v, v).hi"), "float4");
  CHECK_TEXT(type_of("(float4)(1.0f, v.xy, f)"), "float4");
  CHECK_TEXT(type_of("(float4)(f)"), "float4");
  CHECK_TEXT(type_of("iv ? v : v"), "float4");
  const kl_node *n = expression_with("(float4)(1.0f, v.xy, n)", true);
  CHECK(n && n->kind == KL_EXPR_VECTOR_LITERAL && n->arg_count == 3);
  n = expression_with("v.zx", true);
  CHECK(n && n->kind == KL_EXPR_SWIZZLE && n->component_count == 2 && n->components[0] == 2 &&
        n->components[1] == 0);
  /* no implicit conversions between vector types, no vector casts */
  CHECK(!expression_with("v + iv", true));
  CHECK(has_diagnostic(KL_ERROR, "invalid operands to binary '+'"));
  CHECK(!expression_with("(float4)iv", true));
  CHECK(has_diagnostic(KL_ERROR, "convert_float4"));
  CHECK(!expression_with("v.xyzw.s9", true));
  CHECK(!expression_with("n = v", true));
}

static void builtin_types(void) {
  CHECK_TEXT(type_of("abs(-3)"), "uint");
  CHECK_TEXT(type_of("abs(iv)"), "uint4");
  CHECK_TEXT(type_of("abs_diff(n, n)"), "uint");
  CHECK_TEXT(type_of("dot(v, v)"), "float");
  CHECK_TEXT(type_of("length(v.xyz)"), "float");
  CHECK_TEXT(type_of("cross(v, v)"), "float4");
  CHECK_TEXT(type_of("isequal(v, v)"), "int4");
  CHECK_TEXT(type_of("isnan(f)"), "int");
  CHECK_TEXT(type_of("isnan(1.0)"), "int");
  CHECK_TEXT(type_of("isnan((double4)(1.0))"), "long4");
  CHECK_TEXT(type_of("any(iv)"), "int");
  CHECK_TEXT(type_of("select(v, v, iv)"), "float4");
  CHECK_TEXT(type_of("fmax(v, 0.0f)"), "float4");
  CHECK_TEXT(type_of("fmax(f, 0)"), "float");
  CHECK_TEXT(type_of("max(n, 3)"), "int");
  CHECK_TEXT(type_of("clamp(v, 0.0f, 1.0f)"), "float4");
  CHECK_TEXT(type_of("mix(v, v, 0.5f)"), "float4");
  CHECK_TEXT(type_of("sqrt(f)"), "float");
  CHECK_TEXT(type_of("native_sin(v)"), "float4");
  CHECK_TEXT(type_of("pown(f, 2)"), "float");
  CHECK_TEXT(type_of("ilogb(v)"), "int4");
  CHECK_TEXT(type_of("upsample((char)1, (uchar)2)"), "short");
  CHECK_TEXT(type_of("popcount(u)"), "uint");
  CHECK_TEXT(type_of("mad24(n, n, n)"), "int");
  /* integer builtins are overloaded on gentype: char and short arguments are
   * not promoted (sub_sat((short)30000, (short)-30000) saturates at 32767) */
  CHECK_TEXT(type_of("sub_sat((short)30000, (short)-30000)"), "short");
  CHECK_TEXT(type_of("add_sat(c, c)"), "char");
  CHECK_TEXT(type_of("add_sat(uc, uc)"), "uchar");
  CHECK_TEXT(type_of("mad_sat((short)n, (short)n, (short)n)"), "short");
  CHECK_TEXT(type_of("hadd(c, c)"), "char");
  CHECK_TEXT(type_of("rhadd((ushort)u, (ushort)u)"), "ushort");
  CHECK_TEXT(type_of("mul_hi(c, c)"), "char");
  CHECK_TEXT(type_of("mad_hi(uc, uc, uc)"), "uchar");
  CHECK_TEXT(type_of("abs_diff(c, c)"), "uchar");
  CHECK_TEXT(type_of("abs_diff((short)n, (short)n)"), "ushort");
  CHECK_TEXT(type_of("clz((short)n)"), "short");
  CHECK_TEXT(type_of("popcount(uc)"), "uchar");
  CHECK_TEXT(type_of("rotate(c, c)"), "char");
  CHECK_TEXT(type_of("max(c, c)"), "char");
  CHECK_TEXT(type_of("clamp((short)n, (short)0, (short)9)"), "short");
  CHECK_TEXT(type_of("upsample((short)n, (ushort)u)"), "int");
  CHECK_TEXT(type_of("add_sat((size_t)u, (ulong)u)"), "size_t"); /* size_t is ulong */
  CHECK_TEXT(type_of("add_sat(n, n == 1)"), "int");              /* bool promotes to int */
  CHECK_TEXT(type_of("add_sat((char4)(1), c)"), "char4");        /* a scalar widens to the vector */
  const kl_node *sat = expression_with("sub_sat((short)30000, (short)-30000)", true);
  CHECK(sat && sat->args && sat->args->type->kind == KL_TYPE_SHORT && sat->args->next &&
        sat->args->next->type->kind == KL_TYPE_SHORT);
  /* mixed types with no best overload are ambiguous, as OpenCL C compilers say */
  CHECK(!expression_with("add_sat((short)n, 1)", true));
  CHECK(has_diagnostic(KL_ERROR, "call to 'add_sat' is ambiguous"));
  CHECK(!expression_with("min(u, 3)", true));
  CHECK(has_diagnostic(KL_ERROR, "'uint' and 'int'"));
  CHECK(!expression_with("max(f, 1)", true));
  CHECK(!expression_with("max(f, 1.0)",
                         true)); /* float -> double is a promotion, double -> float not */
  CHECK(!expression_with("mad_sat(c, c, n)", true));
  CHECK_TEXT(type_of("convert_int4_sat_rte(v)"), "int4");
  CHECK_TEXT(type_of("convert_uchar(f)"), "uchar");
  CHECK_TEXT(type_of("as_uint(f)"), "uint");
  CHECK_TEXT(type_of("as_float4(iv)"), "float4");
  CHECK_TEXT(type_of("vload4(0, o)"), "int4");
  CHECK_TEXT(type_of("vstore4(iv, 1, o)"), "void");
  CHECK_TEXT(type_of("atomic_add(o, 1)"), "int");
  CHECK_TEXT(type_of("atom_inc(o)"), "int");
  CHECK_TEXT(type_of("get_work_dim()"), "uint");
  const kl_node *n = expression_with("atom_add(o, 1)", true);
  CHECK(n && n->kind == KL_EXPR_BUILTIN && n->builtin->id == KL_BUILTIN_ATOMIC_ADD &&
        strcmp(n->spelling, "atom_add") == 0);
  n = expression_with("convert_int_sat_rtz(f)", true);
  CHECK(n && n->builtin->id == KL_BUILTIN_CONVERT && n->builtin->saturate &&
        n->builtin->rounding == KL_ROUND_RTZ);
  n = expression_with("native_exp(f)", true);
  CHECK(n && n->builtin->id == KL_BUILTIN_EXP && n->builtin->relaxed);
  CHECK(!expression_with("sqrt(2)", true));              /* ambiguous in OpenCL C */
  CHECK(!expression_with("convert_float_sat(n)", true)); /* _sat needs an integer destination */
  CHECK(!expression_with("as_uint(v)", true));           /* sizes differ */
  CHECK(!expression_with("atomic_add(&n, 1)", true));    /* private memory */
  CHECK(kl_builtin_get(KL_BUILTIN_GET_GLOBAL_ID) &&
        strcmp(kl_builtin_id_name(KL_BUILTIN_ATOMIC_ADD), "atomic_add") == 0);
}

/* -------------------------------------------------------- diagnostics */

static void diagnostics_format(void) {
  CHECK(!parse("__kernel void k(__global int *o) {\n  int x = y;\n}\n"));
  CHECK_TEXT(kl_diagnostics_text(ctx),
             "k.cl:2:11: error: use of undeclared identifier 'y'\n    int x = y;\n            ^\n");
  /* several errors in one run */
  CHECK(!parse(
      "__kernel void k(__global int *o) {\n  o[0] = a;\n  o[1] = b;\n  o[2] = 1.0f % 2.0f;\n}\n"));
  int errors = 0;
  for (const kl_diagnostic *d = kl_diagnostics(ctx); d; d = d->next)
    errors += d->severity == KL_ERROR;
  CHECK(errors == 3);
  /* a cap on the count */
  char source[8192] = "__kernel void k(__global int *o) {\n";
  for (int i = 0; i < 100; i++) strcat(source, "  o[0] = zz;\n");
  strcat(source, "}\n");
  CHECK(!parse(source));
  CHECK(kl_error_count(ctx) <= KL_MAX_ERRORS + 1);
  CHECK(has_diagnostic(KL_ERROR, "too many errors"));
  /* a clean program has no text */
  CHECK(parse("__kernel void k(__global int *o) { o[0] = 1; }"));
  CHECK_TEXT(kl_diagnostics_text(ctx), "");
  /* warnings do not fail a program */
  CHECK(parse("__kernel __attribute__((frobnicate(4))) void k(__global int *o) { o[0] = 1; }"));
  CHECK(has_diagnostic(KL_WARNING, "ignored"));
  /* a long line (generated code) is shown as the window around the column */
  char *wide = malloc(20000);
  strcpy(wide, "__kernel void k(__global int *o) {");
  for (int i = 0; i < 600; i++) strcat(wide, "o[0]+=1;");
  strcat(wide, "o[1]=zz;");
  for (int i = 0; i < 600; i++) strcat(wide, "o[0]+=1;");
  strcat(wide, "}\n");
  CHECK(!parse(wide));
  const char *text = kl_diagnostics_text(ctx), *shown = strchr(text, '\n') + 1;
  const char *caret_line = strchr(shown, '\n') + 1, *zz = strstr(shown, "zz;");
  CHECK(strlen(text) < 600 && strstr(shown, "  ...") == shown && zz && zz < caret_line);
  CHECK(strstr(shown, "...\n") && strchr(caret_line, '^') - caret_line == zz - shown);
  free(wide);
}

/* Enumerations: int constants, counted on from the last given value; the
 * type names int. */
static void enumerations(void) {
  kl_program *program = parse(
      "typedef enum { C = 0, N, S, E = 7, W, NEG = -3, AFTER, LAST = N + W * 2 } dir;\n"
      "enum flags { F_A = 1 << 0, F_B = 1 << 3 };\n"
      "__kernel void k(__global int *o, dir d) {\n"
      "  o[0] = C + 10 * N + 100 * S + 1000 * E + 10000 * W + 100000 * NEG + 1000000 * AFTER "
      "+ LAST;\n"
      "  enum flags f = F_B;\n"
      "}\n");
  CHECK(program != NULL);
  const kl_node *sum = first_expression(program);
  int64_t value = 0;
  CHECK(sum && sum->kind == KL_EXPR_ASSIGN && kl_eval_int(ctx, sum->rhs, &value));
  CHECK(value == 0 + 10 * 1 + 100 * 2 + 1000 * 7 + 10000 * 8 + 100000 * -3 + 1000000 * -2 + 17);
  CHECK(!parse("enum e { A = 1.5f };\n__kernel void k(__global int *o) { o[0] = A; }\n"));
  CHECK(has_diagnostic(KL_ERROR, "must be an integer constant"));
  CHECK(!parse("enum e { A = 4294967296 };\n__kernel void k(__global int *o) { o[0] = A; }\n"));
  CHECK(has_diagnostic(KL_ERROR, "does not fit an int"));
  CHECK(!parse("enum e { A, A };\n__kernel void k(__global int *o) { o[0] = A; }\n"));
  CHECK(has_diagnostic(KL_ERROR, "redefinition of 'A'"));
}

static void rejected_constructs(void) {
  /* an unused typedef of a pointer to a pointer (host headers have them) */
  CHECK(parse("typedef float *g;\ntypedef g *gp;\n__kernel void k(__global int *o) { o[0] = 1; }"));
  static const struct {
    const char *source, *message;
  } cases[] = {
      {"__kernel void k(image2d_t i) {}", "image types are not supported"},
      {"__kernel void k(__global int **p) {}", "pointer to pointer"},
      {"__kernel void k(__global int *o) { __global int * __global p = o; }",
       "a pointer variable may live in private or __local memory only"},
      {"void f(__global int *o) { __global int * __local p; }\n__kernel void k(__global int *o) {}",
       "__local variables can only be declared in kernel functions"},
      /* a typedef of one is declared freely, refused where used */
      {"typedef float *g;\ntypedef g *gp;\n__kernel void k(__global int *o) { gp x; }",
       "pointer to pointer"},
      {"typedef float *g;\ntypedef g *gp;\nvoid f(gp x) {}\n__kernel void k(__global int *o) {}",
       "pointer to pointer"},
      {"typedef float *g;\ntypedef g *gp;\n__kernel void k(__global int *o) { o[0] = (gp)0 != 0; }",
       "pointer to pointer"},
      {"int f(int x) { return f(x); }\n__kernel void k(__global int *o) { o[0] = f(1); }",
       "recursion"},
      {"__kernel void k(__global int *o) { again: goto again; }", "goto"},
      {"__kernel void k(__global int *o, int n) { int a[n]; }", "variable-length arrays"},
      {"__kernel void k(__global int *o, __local int *l) { o = (__global int *)l; }",
       "between address spaces"},
      {"__kernel void k(__global int *o) { int (*fp)(int); }", "function pointers"},
      {"float g = 1.0f;\n__kernel void k(__global int *o) {}", "must be __constant"},
      {"__kernel void k(__global int *o) { o[0] = \"text\"[0]; }", "string literals"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bool ok = !parse(cases[i].source) && has_diagnostic(KL_ERROR, cases[i].message);
    if (!ok) {
      printf("  case %zu (%s) gave:\n%s", i, cases[i].message, kl_diagnostics_text(ctx));
      agpu_test_g.case_failed = 1;
    }
  }
}

/* --------------------------------------------- signatures and facts */

static const char reduce_source[] =
    "#define WG 64\n"
    "__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
    "void reduce(__global const float *restrict in, __global float *out, __local float *scratch, "
    "uint n) {\n"
    "  __local float tile[WG];\n"
    "  uint lid = get_local_id(0);\n"
    "  size_t gid = get_global_id(0);\n"
    "  float x = gid < n ? in[gid] : 0.0f;\n"
    "  tile[lid] = x;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (lid < s) tile[lid] += tile[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = tile[0] + scratch[0];\n"
    "}\n";

static const kl_variable *local_named(const kl_function *f, const char *name) {
  for (const kl_variable *v = f->locals; v; v = v->next)
    if (strcmp(v->name, name) == 0) return v;
  for (const kl_variable *v = f->params; v; v = v->next)
    if (strcmp(v->name, name) == 0) return v;
  return NULL;
}

static void kernel_facts(void) {
  kl_program *program = parse(reduce_source);
  CHECK(program);
  if (!program) {
    printf("%s", kl_diagnostics_text(ctx));
    return;
  }
  const kl_function *f = kl_find_kernel(program, "reduce");
  CHECK(f && f->has_required_work_group_size && f->required_work_group_size[0] == 64 &&
        f->required_work_group_size[1] == 1);
  CHECK(f && f->local_memory_bytes == 64 * 4);
  CHECK(f && (f->features & KL_FEATURE_BARRIER) && (f->features & KL_FEATURE_LOCAL_MEMORY));
  CHECK(f && !(f->features & KL_FEATURE_FP64));
  CHECK(f && f->body->contains_barrier);
  /* the loop: uniform control flow with a barrier inside */
  const kl_node *loop = NULL;
  for (const kl_node *s = f->body->body; s; s = s->next)
    if (s->kind == KL_STMT_FOR) loop = s;
  CHECK(loop && loop->contains_barrier && loop->is_uniform && loop->condition->is_uniform);
  const kl_variable *lid = local_named(f, "lid"), *s = NULL, *nv = local_named(f, "n");
  for (const kl_variable *v = f->locals; v; v = v->next)
    if (strcmp(v->name, "s") == 0) s = v;
  CHECK(lid && !lid->is_uniform);
  CHECK(s && s->is_uniform);
  CHECK(nv && nv->is_uniform && nv->is_parameter);
  const char *json = kl_signature_json(ctx, program);
  CHECK(strstr(json, "\"name\": \"reduce\""));
  CHECK(strstr(json, "\"kind\": \"local\""));
  CHECK(strstr(json, "\"kind\": \"value\", \"type\": \"uint\""));
  CHECK(strstr(json, "\"restrict\": true"));
  CHECK(strstr(json, "\"reqd_work_group_size\": [64, 1, 1]"));
  CHECK(strstr(json, "\"local_memory_bytes\": 256"));
  CHECK(strstr(json, "\"barrier\""));

  /* a barrier under a condition that depends on the work-item */
  CHECK(
      parse("__kernel void k(__global int *o) {\n  if (get_local_id(0) < 4) "
            "barrier(CLK_LOCAL_MEM_FENCE);\n}"));
  CHECK(has_diagnostic(KL_WARNING, "not provably uniform"));
  /* a variable assigned a uniform value under a varying condition is varying */
  program = parse(
      "__kernel void k(__global int *o, int n) {\n  int a = n * 2, b = 0;\n"
      "  if (get_global_id(0) == 0) b = n;\n  o[0] = a + b;\n}");
  f = program ? kl_find_kernel(program, "k") : NULL;
  CHECK(f && local_named(f, "a")->is_uniform && !local_named(f, "b")->is_uniform);
  /* features and callees */
  program = parse(
      "double twice(double x) { return 2.0 * x; }\nlong wide(long x) { return x; }\n"
      "__kernel void k(__global double *o, __local int *l) {\n"
      "  o[0] = twice(1.0) + (double)wide(2);\n  atomic_add(l, 1);\n  atom_inc((__global int "
      "*)0);\n}");
  f = program ? kl_find_kernel(program, "k") : NULL;
  CHECK(f && f->callee_count == 2 && strcmp(f->callees[0]->name, "twice") == 0);
  CHECK(f && (f->features & KL_FEATURE_FP64) && (f->features & KL_FEATURE_INT64) &&
        (f->features & KL_FEATURE_LOCAL_ATOMICS) && (f->features & KL_FEATURE_GLOBAL_ATOMICS));
  if (!program) printf("%s", kl_diagnostics_text(ctx));
}

/* --------------------------------------------------------- robustness */

static void hostile_inputs(void) {
  uint64_t seed = 12345;
  static const char *const vocabulary[] = {
      "__kernel", "void",     "k",        "(",
      ")",        "{",        "}",        "[",
      "]",        ";",        ",",        "int",
      "float4",   "*",        "+",        "=",
      "#define",  "#if",      "#endif",   "\n",
      "x",        "1",        "0x",       "1.5f",
      ".",        "->",       "struct",   "?",
      ":",        "for",      "if",       "while",
      "return",   "__global", "barrier",  "get_global_id",
      "'",        "\"",       "/*",       "##",
      "#",        "\\",       "(float4)", "sizeof",
      "switch",   "case",     "default",  "break",
      "..",       "<<=",      "typedef",  "__attribute__",
  };
  char buffer[4096];
  for (int round = 0; round < 3000; round++) {
    size_t n = 0;
    if (round % 2) {
      size_t length = agpu_test_rand(&seed) % 300;
      for (size_t i = 0; i < length; i++) buffer[n++] = (char)(agpu_test_rand(&seed) & 0xff);
    } else {
      int tokens = (int)(agpu_test_rand(&seed) % 120);
      for (int i = 0; i < tokens; i++) {
        const char *t =
            vocabulary[agpu_test_rand(&seed) % (sizeof vocabulary / sizeof vocabulary[0])];
        size_t len = strlen(t);
        if (n + len + 2 >= sizeof buffer) break;
        memcpy(buffer + n, t, len);
        n += len;
        buffer[n++] = agpu_test_rand(&seed) % 4 ? ' ' : '\n';
      }
    }
    reset();
    kl_translate_options o = {.source_name = "fuzz.cl"};
    kl_parse_program(ctx, buffer, n, &o);
    (void)kl_diagnostics_text(ctx);
  }
  /* deep nesting, long macro chains, exponential expansion */
  size_t big = 200000;
  char *deep = malloc(big + 64);
  strcpy(deep, "__kernel void k(__global int *o) { o[0] = ");
  size_t at = strlen(deep);
  for (size_t i = 0; i < 50000; i++) deep[at++] = '(';
  deep[at] = 0;
  CHECK(!parse(deep));
  CHECK(has_diagnostic(KL_ERROR, "nested too deeply"));
  at = 0;
  for (size_t i = 0; i < 50000; i++) deep[at++] = '{';
  deep[at] = 0;
  CHECK(!parse(deep));
  at = 0;
  for (int i = 0; i < 40; i++)
    at += (size_t)sprintf(deep + at, "#define M%d M%d M%d\n", i, i + 1, i + 1);
  strcpy(deep + at, "M0\n");
  CHECK(!parse(deep));
  CHECK(has_diagnostic(KL_ERROR, "more than"));
  CHECK(!parse("#define f(x) f(x) f(x)\n#define g f(f(f(f(1))))\ng g g"));
  at = 0;
  for (int i = 0; i < 100; i++) at += (size_t)sprintf(deep + at, "#if 1\n");
  CHECK(!parse(deep));
  free(deep);
  CHECK(!parse("#define a(x) a(x\na(1)"));
  CHECK(!parse("\"unterminated"));
  CHECK(!parse("/* unterminated"));
  CHECK(!parse_with("x", "-D -U = -DA=1 -D9=2 -Q", true) || true);
  CHECK(kl_parse_program(ctx, NULL, 0, NULL) == NULL || true);
}

/* ------------------------------------------------------------- speed */

static const char typical_kernel[] =
    "// a typical kernel: about 50 lines\n"
    "#define TILE 16\n"
    "typedef struct { float4 pos; float mass; } body;\n"
    "float4 interaction(float4 a, float4 b, float softening) {\n"
    "  float4 d = b - a;\n"
    "  float dist2 = dot(d.xyz, d.xyz) + softening;\n"
    "  float inv = rsqrt(dist2);\n"
    "  float inv3 = inv * inv * inv;\n"
    "  return d * (b.w * inv3);\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))\n"
    "void nbody_step(__global const float4 *restrict pos, __global float4 *restrict vel,\n"
    "          __global float4 *out, __local float4 *cache, uint n, float dt) {\n"
    "  __local float tile[TILE][TILE];\n"
    "  size_t gid = get_global_id(0);\n"
    "  uint lid = get_local_id(0), size = get_local_size(0);\n"
    "  float4 p = gid < n ? pos[gid] : (float4)(0.0f);\n"
    "  float4 acc = (float4)(0.0f, 0.0f, 0.0f, 0.0f);\n"
    "  for (uint base = 0; base < n; base += size) {\n"
    "    cache[lid] = base + lid < n ? pos[base + lid] : (float4)(0.0f);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (uint j = 0; j < size; j++) {\n"
    "      acc += interaction(p, cache[j], 0.01f);\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  tile[lid % TILE][lid / TILE] = acc.x;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  float total = 0.0f;\n"
    "  for (int k = 0; k < TILE; k++) total += tile[k][lid % TILE];\n"
    "  if (gid < n) {\n"
    "    float4 v = vel[gid] + acc * dt;\n"
    "    switch (lid & 3) {\n"
    "      case 0: v.x += total * 0.0f; break;\n"
    "      case 1: v.y = fmax(v.y, -1.0f); break;\n"
    "      default: break;\n"
    "    }\n"
    "    int4 mask = isgreater(v, (float4)(100.0f));\n"
    "    v = select(v, (float4)(100.0f), mask);\n"
    "    vel[gid] = v;\n"
    "    out[gid] = p + v * dt;\n"
    "    uint bits = as_uint(v.x) >> 3;\n"
    "    int q = convert_int_sat_rte(v.y * 1000.0f);\n"
    "    if (bits == 7u && q < -5) out[gid].w = (float)abs(q);\n"
    "  }\n"
    "}\n";

static void translate_time(void) {
  CHECK(parse(typical_kernel));
  if (kl_error_count(ctx)) printf("%s", kl_diagnostics_text(ctx));
  /* CPU time, best of 20 batches: the build machines are shared and noisy */
  double us = 1e9;
  for (int batch = 0; batch < 20; batch++) {
    int rounds = 50;
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (int i = 0; i < rounds; i++) {
      kl_context *c = kl_context_create();
      kl_translate_options o = {.source_name = "typical.cl",
                                .traits = {.fp64 = true, .int64 = true}};
      kl_program *p = kl_parse_program(c, typical_kernel, sizeof typical_kernel - 1, &o);
      if (!p) agpu_test_g.case_failed = 1;
      kl_context_destroy(c);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double t =
        ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / rounds;
    if (t < us) us = t;
  }
  int lines = 0;
  for (const char *s = typical_kernel; *s; s++) lines += *s == '\n';
  printf("  translate (preprocess, parse, check) of a %d-line kernel: %.1f us\n", lines, us);
  CHECK(us < 2000.0); /* a gross-regression guard: sanitizer builds are several times slower */
}

int main(void) {
  RUN(preprocessor_macros);
  RUN(preprocessor_conditionals);
  RUN(macro_locations);
  RUN(literal_and_arithmetic_types);
  RUN(implicit_conversions_are_explicit);
  RUN(vector_types);
  RUN(builtin_types);
  RUN(diagnostics_format);
  RUN(enumerations);
  RUN(rejected_constructs);
  RUN(kernel_facts);
  RUN(hostile_inputs);
  RUN(translate_time);
  kl_context_destroy(ctx);
  return agpu_test_finish();
}
