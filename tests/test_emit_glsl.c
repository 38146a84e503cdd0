// SPDX-License-Identifier: Apache-2.0
/* The GLSL emitter, checked with the real tools: every kernel of the corpus
 * and of the cases below is translated to GLSL 4.50, compiled to SPIR-V by
 * glslangValidator (-V --target-env vulkan1.1) and validated by spirv-val.
 * A kernel the GLSL target cannot express must be rejected with a
 * diagnostic, never emitted wrong; the layout the runtime fills
 * (kernels/glsl_layout.h) is checked too. */
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agpu_test.h"
#include "agpu_test_tools.h"
#include "emit_common.h"
#include "glsl_layout.h"

static char tool_dir[512];

static char glslang[600], spirv_val[600];

static bool tools_present(char *why, size_t size) {
  if (!agpu_test_find_tool("glslangValidator", glslang, sizeof glslang)) {
    snprintf(why, size, "glslangValidator not found in PATH (Debian: glslang-tools)");
    return false;
  }
  if (!agpu_test_find_tool("spirv-val", spirv_val, sizeof spirv_val)) {
    snprintf(why, size, "spirv-val not found in PATH (Debian: spirv-tools)");
    return false;
  }
  if (!tool_dir[0]) {
    snprintf(tool_dir, sizeof tool_dir, "/tmp/agpu_emit_glsl_XXXXXX");
    if (!mkdtemp(tool_dir)) {
      snprintf(why, size, "mkdtemp failed");
      return false;
    }
  }
  return true;
}

static int run(const char *command, const char *log) {
  char *full = NULL;
  if (asprintf(&full, "%s > '%s' 2>&1", command, log) < 0) return -1;
  int status = system(full);
  free(full);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void print_file(const char *path, size_t max) {
  size_t length = 0;
  char *text = emit_read_file(path, &length);
  if (text) printf("%.*s\n", (int)(length < max ? length : max), text);
  free(text);
}

/* glslang then spirv-val; prints the shader and the logs on failure. */
static bool glsl_compiles(const char *label, const char *glsl) {
  char *comp = NULL, *spv = NULL, *log = NULL, *command = NULL, *validate = NULL;
  bool ok = false;
  if (asprintf(&comp, "%s/%s.comp", tool_dir, label) < 0 ||
      asprintf(&spv, "%s/%s.spv", tool_dir, label) < 0 ||
      asprintf(&log, "%s/%s.log", tool_dir, label) < 0 ||
      asprintf(&command, "'%s' -V --target-env vulkan1.1 -S comp '%s' -o '%s'", glslang, comp,
               spv) < 0 ||
      asprintf(&validate, "'%s' --target-env vulkan1.1 '%s'", spirv_val, spv) < 0 ||
      !emit_write_file(comp, glsl)) {
    printf("  out of memory or cannot write %s\n", label);
  } else if (run(command, log) != 0) {
    printf("  glslang rejects %s:\n", label);
    print_file(log, 3000);
    printf("%s\n", glsl);
  } else if (run(validate, log) != 0) {
    printf("  spirv-val rejects %s:\n", label);
    print_file(log, 3000);
  } else {
    ok = true;
  }
  free(comp);
  free(spv);
  free(log);
  free(command);
  free(validate);
  return ok;
}

/* The layout's invariants: bindings in order, block offsets aligned and
 * past the header, spec ids from 3. */
static bool layout_consistent(const kl_function *kernel, const kl_glsl_layout *layout) {
  if (!layout || layout->param_count != kernel->param_count) return false;
  uint32_t binding = 0, spec = KL_GLSL_FIRST_LOCAL_SPEC_ID, end = KL_GLSL_HEADER_SIZE;
  for (int i = 0; i < layout->param_count; i++) {
    const kl_glsl_param *p = &layout->params[i];
    switch (p->kind) {
      case KL_GLSL_PARAM_BUFFER:
        if (p->binding != binding++ || (p->readonly && p->writeonly)) return false;
        break;
      case KL_GLSL_PARAM_LOCAL:
        if (p->spec_id != spec++ || p->element_size == 0) return false;
        break;
      default:
        if (p->offset < end || p->size == 0) return false;
        end = p->offset + p->size;
        break;
    }
  }
  if (layout->block_size < end || layout->buffer_count != binding) return false;
  if (layout->block_in_buffer != (layout->block_size > KL_GLSL_PUSH_LIMIT)) return false;
  return true;
}

typedef struct glsl_counts {
  int kernels, compiled, rejected, failed;
} glsl_counts;

static void check_program(const char *name, const char *text, const char *options, bool fp16,
                          glsl_counts *counts, bool expect_all) {
  kl_context *ctx = kl_context_create();
  kl_program *program = emit_parse(ctx, name, text, strlen(text), options, fp16);
  if (!program) {
    printf("  %s does not parse:\n%s", name, kl_diagnostics_text(ctx));
    counts->failed++;
    kl_context_destroy(ctx);
    return;
  }
  for (const kl_function *f = program->functions; f; f = f->next) {
    if (!f->is_kernel) continue;
    counts->kernels++;
    kl_context *kctx = kl_context_create(); /* diagnostics per kernel */
    kl_program *p2 = emit_parse(kctx, name, text, strlen(text), options, fp16);
    const kl_function *k = p2 ? kl_find_kernel(p2, f->name) : NULL;
    const kl_glsl_layout *layout = NULL;
    const char *glsl = k ? kl_emit_glsl_with_layout(kctx, p2, k, &layout) : NULL;
    char label[300];
    snprintf(label, sizeof label, "%s.%s", name, f->name);
    if (!glsl) {
      const char *why = kl_diagnostics_text(kctx);
      if (strstr(why, "the GLSL target does not support") && !expect_all) {
        counts->rejected++;
        const char *line = strstr(why, "error: ");
        printf("  rejected %s: %.*s\n", label, line ? (int)strcspn(line, "\n") : 60,
               line ? line : why);
      } else {
        counts->failed++;
        printf("  %s fails:\n%s", label, why);
      }
    } else if (!layout_consistent(k, layout)) {
      counts->failed++;
      printf("  %s: inconsistent layout\n", label);
    } else if (glsl_compiles(label, glsl)) {
      counts->compiled++;
    } else {
      counts->failed++;
    }
    kl_context_destroy(kctx);
  }
  kl_context_destroy(ctx);
}

static void corpus_compiles_with_glslang(void) {
  char why[256];
  if (!tools_present(why, sizeof why)) SKIP("%s", why);
  int count = 0;
  emit_source *sources = emit_corpus(&count);
  if (count == 0) SKIP("no corpus in %s/valid", AGPU_KERNELS_DIR);
  glsl_counts c = {0};
  for (int i = 0; i < count; i++)
    check_program(sources[i].name, sources[i].text, sources[i].options, sources[i].needs_fp16, &c,
                  false);
  printf(
      "  glslang + spirv-val: %d of %d corpus kernels (%d files) compile and validate; %d rejected "
      "with a "
      "diagnostic; %d failed\n",
      c.compiled, c.kernels, count, c.rejected, c.failed);
  CHECK(c.failed == 0);
  CHECK(c.compiled * 2 > c.kernels);
  emit_free_corpus(sources, count);
}

/* Pointers: helpers specialised per buffer, pointer variables, pointer
 * arithmetic, __local parameters, hoisted __local arrays, atomics on
 * buffers and shared memory, structs with float3 members, semantics. */
static const char tricky_source[] =
    "typedef struct { float3 p; float w; int tag; } point;\n"
    "__constant int table[5] = {1, -2, 3, -4, 5};\n"
    "float sum3(__global const float *p, int k) { return p[k] + p[k + 1] + p[k + 2]; }\n"
    "void bump(__local uint *counter, __global int *out, int v) { atomic_add(counter, 1u); "
    "atomic_max(out, v); }\n"
    "void twice_into(int *x, const float *w) { *x *= 2; x[0] += (int)w[1]; }\n"
    "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
    "void tricky(__global const float *a, __global const float *b, __global float *out, __global "
    "int *ints,\n"
    "            __local float *scratch, __global uint *uints, int shift, float f, ulong big, uint "
    "n) {\n"
    "  __local uint counter;\n"
    "  __local float tile[64];\n"
    "  size_t i = get_global_id(0), l = get_local_id(0);\n"
    "  if (l == 0) counter = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  __global const float *row = i & 1 ? a + 4 : a;\n"
    "  __global const float *p = b;\n"
    "  p += 2;\n"
    "  float s = sum3(a, (int)i) + sum3(b, 1) + sum3(row, 0) + *p + p[-1];\n"
    "  int x = ints[i];\n"
    "  ints[i] = (x << shift) + (x >> (shift + 33)) + (x / -3) + (x % -3) + (int)abs(x) + table[x "
    "& 3];\n"
    "  uints[i] = abs(x) + abs_diff(x, 7) + rotate(uints[i], 3u) + clz(uints[i]) + popcount(x) + "
    "mul_hi(uints[i], 7u);\n"
    "  uints[i] += add_sat(x, 5) + sub_sat(7u, uints[i]) + hadd(x, 3) + (uint)(big >> 3) + "
    "(uint)n;\n"
    "  float4 v = (float4)(s, f, a[i], b[i]);\n"
    "  int4 m = v > (float4)(0.5f);\n"
    "  v.xy = v.yx * 2.0f;\n"
    "  v = select(v, v * 0.5f, m) + clamp(v, 0.0f, 1.0f) + mix(v, v.wzyx, 0.25f);\n"
    "  int4 c = convert_int4_sat_rte(v * 1e10f) + convert_int4(v) + as_int4(v) + m;\n"
    "  float whole;\n"
    "  point q = {(float3)(v.x, v.y, v.z), fract(f, &whole) + whole, c.x};\n"
    "  scratch[l] = q.p.x + q.w + (float)q.tag + (any(m) ? 1.0f : 0.0f);\n"
    "  tile[l] = scratch[l];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint step = 32; step > 0; step >>= 1) {\n"
    "    if (l < step) tile[l] += tile[l + step];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  bump(&counter, &ints[0], x);\n"
    "  int pa = 0, pb = 0; *(x & 2 ? &pa : &pb) += 3; (x > 0 ? &pa : &pb)[0]++;\n"
    "  float weights[3] = {1.0f, 2.0f, 3.0f}; twice_into(&pa, weights); twice_into(&pb, "
    "&weights[1]);\n"
    "  ints[i] += pa - pb + (int)*(l & 1 ? &a[i] : &b[1]);\n"
    "  atomic_cmpxchg(&uints[1], 0u, 1u); atom_inc(&uints[2]); atomic_dec(&uints[3]); "
    "atomic_sub(&uints[4], 2u);\n"
    "  switch (x & 3) { case 0: s = 1.0f; break; case 1: s = 2.0f; default: s += 3.0f; }\n"
    "  for (int k = 0, j = 10; k < j; k++, j--) s += k;\n"
    "  vstore4(v, i, out);\n"
    "  out[i] += tile[0] + s + vload2(0, a).y + (float)convert_uchar_sat(x) + convert_float_rtz(x) "
    "+ convert_float_rtn((uint)x);\n"
    "}\n";

static void tricky_kernel_compiles(void) {
  char why[256];
  if (!tools_present(why, sizeof why)) SKIP("%s", why);
  glsl_counts c = {0};
  check_program("tricky.cl", tricky_source, NULL, false, &c, true);
  CHECK(c.compiled == 1);
  kl_context *ctx = kl_context_create();
  kl_program *program =
      emit_parse(ctx, "tricky.cl", tricky_source, strlen(tricky_source), NULL, false);
  const kl_glsl_layout *layout =
      program ? kl_glsl_layout_of(ctx, program, kl_find_kernel(program, "tricky")) : NULL;
  CHECK(layout != NULL);
  if (layout) {
    CHECK(layout->buffer_count == 5);
    CHECK(layout->params[0].kind == KL_GLSL_PARAM_BUFFER && layout->params[0].readonly);
    CHECK(layout->params[2].kind == KL_GLSL_PARAM_BUFFER && !layout->params[2].readonly);
    CHECK(layout->params[4].kind == KL_GLSL_PARAM_LOCAL && layout->params[4].spec_id == 3 &&
          layout->params[4].element_size == 4);
    CHECK(layout->params[6].kind == KL_GLSL_PARAM_VALUE && layout->params[6].offset == 32 &&
          layout->params[6].size == 4);
    CHECK(layout->params[7].offset == 36);
    CHECK(layout->params[8].offset == 40 && layout->params[8].size == 8); /* ulong */
    CHECK(layout->params[9].offset == 48 && layout->params[9].size == 4);
    CHECK(!layout->block_in_buffer && layout->block_size == 64);
    CHECK(layout->capabilities & KL_GLSL_NEEDS_INT64);
    CHECK(layout->capabilities & KL_GLSL_NEEDS_FLOAT_CONTROLS); /* floats: IEEE specials kept */
  }
  kl_context_destroy(ctx);
}

/* Vectors of 8 and 16 components (structs of 4-vectors): every kind of
 * operation, with operands that have side effects (evaluated once), as
 * buffer elements, parameters, struct members and private arrays; and a
 * large partially initialised private array (a zero-fill loop). */
static const char wide_source[] =
    "typedef struct { float8 v; int tag; } tagged;\n"
    "float8 twice(float8 x) { return x + x; }\n"
    "__kernel void wide(__global float8 *f, __global int16 *n, __global uchar16 *u, __global long8 "
    "*l,\n"
    "                   __global int *ints, float8 scale, uchar16 bytes, uint count) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i >= count) return;\n"
    "  float8 a = f[i] * scale - 1.5f, b = twice(a);\n"
    "  a += b; a.s37 *= 2.0f; a.even = a.odd; a.hi -= a.lo; a.s0 = a.s57.y;\n"
    "  int8 m = a < b; int8 k = (int8)(1, 2, 3, 4, 5, 6, 7, 8);\n"
    "  k++; --k; k <<= (int8)(33); k = k % (int8)(-3) + k / (int8)(7);\n"
    "  a = m ? a : b; a = select(a, b, m) + clamp(a, -1.0f, 1.0f) + fmax(a, b) + sqrt(fabs(a));\n"
    "  float8 c = (float8)(sin(a.s0), f[i++].s1, a.s23, (float4)(ints[i++]));\n"
    "  tagged t = {c, any(m) + all(k > 0)};\n"
    "  float8 arr[3] = {a, b};\n"
    "  f[i] = t.v + arr[1] + convert_float8(k) + convert_float8(n[i].lo) * (float)n[i].s8;\n"
    "  int16 w = n[i]; w.s9abc = w.s0123; w.lo = w.hi + w.odd; w = -w ^ ~w;\n"
    "  n[i] = w + vload16(0, ints) + convert_int16(bytes) + (int16)(t.tag);\n"
    "  vstore8(as_int8(a) & k, i, ints);\n"
    "  u[i] = add_sat(u[i], bytes) + rotate(bytes, (uchar16)(3)) + convert_uchar16_sat(w);\n"
    "  l[i] = convert_long8(k) * (long8)(l[i].s7) + mul_hi(l[i], l[i]);\n"
    "  int big[1000] = {1, 0, 3};\n"
    "  ints[i] += big[i % 1000] + isnan(a).s3 + isgreater(a, b).s4 + t.tag;\n"
    "}\n";

static void wide_vectors_compile(void) {
  char why[256];
  if (!tools_present(why, sizeof why)) SKIP("%s", why);
  glsl_counts c = {0};
  check_program("wide.cl", wide_source, NULL, false, &c, true);
  CHECK(c.compiled == 1);
  kl_context *ctx = kl_context_create();
  kl_program *program = emit_parse(ctx, "wide.cl", wide_source, strlen(wide_source), NULL, false);
  const kl_function *k = program ? kl_find_kernel(program, "wide") : NULL;
  const kl_glsl_layout *layout = NULL;
  const char *glsl = k ? kl_emit_glsl_with_layout(ctx, program, k, &layout) : NULL;
  CHECK(glsl != NULL && layout != NULL);
  if (glsl && layout) {
    /* OpenCL's offsets: float8 aligned to 32, uchar16 to 16, then uint */
    CHECK(layout->params[5].offset == 32 && layout->params[5].size == 32);
    CHECK(layout->params[6].offset == 64 && layout->params[6].size == 16);
    CHECK(layout->params[7].offset == 80);
    CHECK(strstr(glsl, "struct _cl_float8 { vec4 s0123; vec4 s4567; };") != NULL);
    CHECK(strstr(glsl, "SignedZeroInfNanPreserve") == NULL &&
          strstr(glsl, "capabilities = [4466], 4461, 32);") != NULL);
    CHECK(strstr(glsl,
                 "for (int _cl_k = 0; _cl_k < 1000; _cl_k++) big[_cl_k] = int(0); big[0] = 1; "
                 "big[2] = 3") != NULL);
  }
  kl_context_destroy(ctx);
}

/* half (GL_EXT_shader_explicit_arithmetic_types_float16): buffers,
 * vectors of 2 to 16, arithmetic, math builtins (computed in float),
 * relational builtins, conversions, as_T, vloadN/vstoreN. */
static const char half_source[] =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "__kernel void halves(__global half *h, __global half8 *h8, __global short *bits, __global "
    "float *f) {\n"
    "  uint i = get_global_id(0);\n"
    "  half x = h[i], y = 1.5h;\n"
    "  half4 v = (half4)(x, y, x * y, -x);\n"
    "  half8 w = (half8)(v, v.wzyx) * (half)2;\n"
    "  h8[i] = w + sin(w) + fmax(w, (half8)(0.25h)) + select(w, -w, isnan(w));\n"
    "  h[i] = sqrt(fabs(x)) + exp(y) + (half)pow((float)x, 2.0f) + vload4(i, h).z;\n"
    "  vstore2(v.xy, i + 1, h);\n"
    "  bits[i] = as_short(x) + isgreater(x, y) + as_short2(v.zw).y;\n"
    "  f[i] = convert_float(x) + (float)as_half(bits[i]) + convert_float4(v).w + convert_int_sat(x "
    "* 1000.0h);\n"
    "}\n";

static void half_compiles(void) {
  char why[256];
  if (!tools_present(why, sizeof why)) SKIP("%s", why);
  glsl_counts c = {0};
  check_program("half.cl", half_source, NULL, true, &c, true);
  CHECK(c.compiled == 1);
  kl_context *ctx = kl_context_create();
  kl_program *program = emit_parse(ctx, "half.cl", half_source, strlen(half_source), NULL, true);
  const kl_glsl_layout *layout =
      program ? kl_glsl_layout_of(ctx, program, kl_find_kernel(program, "halves")) : NULL;
  CHECK(layout != NULL && (layout->capabilities & KL_GLSL_NEEDS_FP16));
  kl_context_destroy(ctx);
}

/* double math through the GLSL double library (kernels/glsl_fp64_math.h):
 * scalars, vectors per component (8-vectors too), out-pointer builtins,
 * exact fmod; only the functions used are emitted. */
static const char double_source[] =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "__kernel void doubles(__global double *d, __global double4 *v, __global double8 *w, __global "
    "int *q) {\n"
    "  uint i = get_global_id(0);\n"
    "  double x = d[i], c;\n"
    "  int k;\n"
    "  double4 c4;\n"
    "  d[i] = exp(x) + log1p(x) + pow(x, 1.5) + sincos(x, &c) + c + fmod(x, 0.3) + remquo(x, 0.7, "
    "&k) + k + pown(x, 3);\n"
    "  v[i] = atan2(v[i], v[i + 1]) + sincos(v[i], &c4) + c4 + ldexp(v[i], (int4)(2));\n"
    "  w[i] = tanh(w[i]) + cbrt(w[i + 1]);\n"
    "  q[i] = ilogb(x) + k;\n"
    "}\n";

static void doubles_compile(void) {
  char why[256];
  if (!tools_present(why, sizeof why)) SKIP("%s", why);
  glsl_counts c = {0};
  check_program("double.cl", double_source, NULL, false, &c, true);
  CHECK(c.compiled == 1);
  kl_context *ctx = kl_context_create();
  kl_program *program =
      emit_parse(ctx, "double.cl", double_source, strlen(double_source), NULL, false);
  const char *glsl =
      program ? kl_emit_glsl(ctx, program, kl_find_kernel(program, "doubles")) : NULL;
  CHECK(glsl != NULL);
  if (glsl) {
    CHECK(strstr(glsl, "kl_exp_f64(") != NULL);
    CHECK(strstr(glsl, "kl_erf_f64") == NULL); /* only what is used */
  }
  kl_context_destroy(ctx);
}

/* Float constant expressions are folded with float rounding (glslang would
 * fold them in double), and fmod is exact (long division). */
static void float_constants_fold_as_float(void) {
  static const char source[] =
      "__kernel void k(__global int *o, __global float *f) {\n"
      "  o[0] = 1.0f + FLT_EPSILON * 0.5f == 1.0f;\n"
      "  f[0] = 0.1f * 3.0f + f[4]; f[5] = 1e30f * 1e30f; f[1] = fmod(f[2], f[3]);\n"
      "}\n";
  kl_context *ctx = kl_context_create();
  kl_program *program = emit_parse(ctx, "fold.cl", source, strlen(source), NULL, false);
  const char *glsl = program ? kl_emit_glsl(ctx, program, kl_find_kernel(program, "k")) : NULL;
  CHECK(glsl != NULL);
  if (glsl) {
    CHECK(strstr(glsl, "(1.0 == 1.0)") != NULL);
    CHECK(strstr(glsl, "(0.300000012 + ") != NULL);
    CHECK(strstr(glsl, "= uintBitsToFloat(0x7f800000u))") != NULL); /* overflows as float */
    CHECK(strstr(glsl, "trunc(x / y)") == NULL && strstr(glsl, "float _cl_fmod(") != NULL);
  }
  kl_context_destroy(ctx);
}

/* Kernel k of source, parsed into ctx (NULL after a diagnostic). */
static const kl_function *kernel_k(kl_context *ctx, const char *label, const char *source,
                                   kl_program **program) {
  *program = emit_parse(ctx, label, source, strlen(source), NULL, false);
  return *program ? kl_find_kernel(*program, "k") : NULL;
}

/* A by-address variant (kl_emit_glsl_variant): the masked buffer is a
 * buffer reference whose address follows the values in the block (which
 * then moves to a buffer past 128 bytes), the others keep their bindings,
 * and mask 0 is the plain shader. Each compiles and validates. */
static void by_address_variant(void) {
  static const char source[] =
      "__kernel void k(__global const float *restrict in, __global float *out, float4 a,\n"
      "                float4 b, float4 c, float4 d, float4 e, float4 f) {\n"
      "  uint i = get_global_id(0);\n"
      "  out[i] = in[i] * a.x + f.w;\n"
      "  float4 v = vload4(i, in); vstore4(v, i, out);\n"
      "}\n";
  kl_context *ctx = kl_context_create();
  kl_program *program;
  const kl_function *fn = kernel_k(ctx, "address.cl", source, &program);
  const kl_glsl_layout *plain = NULL, *one = NULL, *both = NULL;
  const char *g0 = fn ? kl_emit_glsl_variant(ctx, program, fn, 0, &plain) : NULL;
  const char *g1 = fn ? kl_emit_glsl_variant(ctx, program, fn, 1u, &one) : NULL;
  const char *g3 = fn ? kl_emit_glsl_variant(ctx, program, fn, 3u, &both) : NULL;
  CHECK(g0 && g1 && g3 && plain && one && both);
  if (g0 && g1 && g3 && plain && one && both) {
    CHECK(strcmp(g0, kl_emit_glsl(ctx, program, fn)) == 0);
    CHECK(strstr(g0, "buffer_reference") == NULL && !plain->block_in_buffer);
    CHECK(plain->block_size == 128);
    CHECK(strstr(g1, "#define _cl_buf0 _cl_p._cl_addr0._cl_data") != NULL);
    CHECK(strstr(g1, "buffer _cl_Buffer1 {") != NULL && strstr(g1, "_cl_Buffer0") == NULL);
    CHECK(one->params[0].by_address && !one->params[1].by_address);
    CHECK(one->params[0].address_offset == 128 && one->block_size == 144);
    CHECK(one->block_in_buffer && one->buffer_count == 2);
    CHECK(both->params[1].by_address && both->params[1].address_offset == 136);
    CHECK(glsl_compiles("address_plain", g0));
    CHECK(glsl_compiles("address_one", g1));
    CHECK(glsl_compiles("address_both", g3));
  }
  kl_context_destroy(ctx);
}

/* Pointer casts between element types (issue 18): a view of the buffer at
 * the same binding, every block of it Aliased and none restrict; by
 * address, a buffer reference of the view's type to the same address. Each
 * compiles and validates. Casts of __local pointers, of private ones other
 * than integers read as wider integers, writes through those, and a cast to
 * a struct whose offset may not be whole are refused naming the pointer. */
static void pointer_cast_views(void) {
  static const char source[] =
      "__kernel void k(__global const float *restrict in, __global uint *out) {\n"
      "  uint i = get_global_id(0);\n"
      "  float4 v = ((__global const float4 *)in)[i];\n"
      "  __global uchar *b = (__global uchar *)(out + i);\n"
      "  b[1] = ((__global const uchar *)in)[4 * i];\n"
      "  out[i] += as_uint(v.y);\n"
      "}\n";
  kl_context *ctx = kl_context_create();
  kl_program *program;
  const kl_function *fn = kernel_k(ctx, "views.cl", source, &program);
  const kl_glsl_layout *plain = NULL, *both = NULL;
  const char *g0 = fn ? kl_emit_glsl_variant(ctx, program, fn, 0, &plain) : NULL;
  const char *g3 = fn ? kl_emit_glsl_variant(ctx, program, fn, 3u, &both) : NULL;
  CHECK(g0 && g3 && plain && both);
  if (g0 && g3 && plain && both) {
    CHECK(strstr(g0,
                 "binding = 0) spirv_decorate(20) readonly buffer _cl_Buffer0 { float "
                 "_cl_buf0[]; };") != NULL);
    CHECK(strstr(g0,
                 "binding = 0) spirv_decorate(20) readonly buffer _cl_Buffer0_vec4 { vec4 "
                 "_cl_buf0_vec4[]; };") != NULL);
    CHECK(strstr(g0,
                 "binding = 1) spirv_decorate(20) buffer _cl_Buffer1_uint8_t { uint8_t "
                 "_cl_buf1_uint8_t[]; };") != NULL);
    CHECK(strstr(g0, "restrict") == NULL && plain->buffer_count == 2);
    CHECK(plain->params[0].readonly && !plain->params[1].readonly && !plain->params[1].writeonly);
    CHECK(strstr(g3, "#define _cl_buf0_vec4 _cl_Ref0_vec4(_cl_p._cl_addr0)._cl_data") != NULL);
    CHECK(glsl_compiles("views_plain", g0));
    CHECK(glsl_compiles("views_by_address", g3));
  }
  kl_context_destroy(ctx);
  /* a __local array of arrays used only through pointers from its start
   * (Parboil's histogram): one flat array */
  static const char flat[] =
      "__kernel void k(__global uint *o) {\n"
      "  __local uint sub[2][4];\n"
      "  __local uint *f = (__local uint *)sub;\n"
      "  f[get_local_id(0)] = 1u;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  o[0] = ((__local uint *)sub)[3] + (&sub[0][0])[5];\n"
      "}\n";
  ctx = kl_context_create();
  fn = kernel_k(ctx, "flat.cl", flat, &program);
  const char *g = fn ? kl_emit_glsl(ctx, program, fn) : NULL;
  CHECK(g && strstr(g, "_sub[8];\n") && glsl_compiles("views_flat_local", g));
  kl_context_destroy(ctx);
  static const struct {
    const char *source, *message;
  } refused[] = {
      {"__kernel void k(__global uint *o) { float key[2] = {1, 2};\n"
       "  o[0] = ((uint *)key)[1]; }\n",
       "2:11: error: the GLSL target does not support casting 'key', a pointer into private "
       "memory, to a pointer to another element type"},
      {"__kernel void k(__global uint *o) { uchar key[8] = {1, 2};\n"
       "  ((uint *)key)[1] = o[0]; o[1] = key[4]; }\n",
       "2:16: error: the GLSL target does not support writing through a pointer cast from a "
       "private array to wider elements"},
      {"__kernel void k(__global uint *o) { __local ushort s[8]; s[0] = 1;\n"
       "  barrier(CLK_LOCAL_MEM_FENCE); o[0] = ((__local uint *)s)[0]; }\n",
       "2:41: error: the GLSL target does not support casting 's', a pointer into __local "
       "memory"},
      {"typedef struct { float x, y, z; } p3;\n"
       "__kernel void k(__global float *f, int i) {\n"
       "  ((__global p3 *)(f + i))->x = 1.0f; }\n",
       "3:4: error: the GLSL target does not support casting 'f' to a pointer to struct p3, whose "
       "size (12 bytes) is more than its alignment (4)"},
      {"typedef struct { float x, y, z; } p3;\n"
       "__kernel void k(__global float *f) {\n"
       "  f += 3; ((__global p3 *)(f + 6))->x = 1.0f; }\n",
       "3:12: error: the GLSL target does not support casting 'f' to a pointer to struct p3"},
  };
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
    ctx = kl_context_create();
    fn = kernel_k(ctx, "refused.cl", refused[k].source, &program);
    CHECK(fn && kl_emit_glsl(ctx, program, fn) == NULL);
    if (!strstr(kl_diagnostics_text(ctx), refused[k].message)) {
      fprintf(stderr, "expected: %s\ngot: %s\n", refused[k].message, kl_diagnostics_text(ctx));
      CHECK(false);
    }
    kl_context_destroy(ctx);
  }
}

/* Float fma: emulated in software unless the device fuses it. */
static void fma_follows_the_device(void) {
  static const char source[] =
      "__kernel void k(__global float *f) { f[0] = fma(f[1], f[2], f[3]); }\n";
  for (int fused = 0; fused <= 1; fused++) {
    kl_context *ctx = kl_context_create();
    kl_device_traits traits = {.fp64 = true, .int64 = true, .fused_fma_float = fused};
    kl_program *program = emit_parse_with(ctx, "fma.cl", source, strlen(source), NULL, traits);
    const char *glsl = program ? kl_emit_glsl(ctx, program, kl_find_kernel(program, "k")) : NULL;
    CHECK(glsl != NULL);
    if (glsl) {
      CHECK((strstr(glsl, "float _cl_fma(") != NULL) == !fused);
      CHECK((strstr(glsl, "= fma(") != NULL) == fused);
      CHECK(glsl_compiles(fused ? "fma_fused" : "fma_software", glsl));
    }
    kl_context_destroy(ctx);
  }
}

/* What GLSL cannot express is rejected at its line and column. */
static void inexpressible_is_rejected(void) {
  static const struct {
    const char *source, *needle;
  } cases[] = {
      {"__kernel void k(__global float8 *p) { float8 w; p[0] = fract(p[1], &w) + w; }\n",
       "bad.cl:1:56: error: the GLSL target does not support fract on 8- or 16-vectors"},
      {"__constant int w[0x1000000] = {1};\n__kernel void k(__global int *p) { p[0] = w[p[1]]; }\n",
       "bad.cl:1:16: error: the GLSL target does not support __constant data over 65536 bytes"},
      {"__kernel void k(__global float *p) { p[0] = tgamma(p[1]); }\n",
       "bad.cl:1:45: error: the GLSL target does not support tgamma (GLSL has no such function)"},
      {"__kernel void k(__global float *a, __global float *b, int c) { __global float *p = c ? a : "
       "b; p[0] = 1.0f; }\n",
       "error: the GLSL target does not support a pointer that may point into different arrays"},
      {"__kernel void k(__global float *a) { a[0] = erf(a[1]); }\n",
       "error: the GLSL target does not support erf"},
      {"void f(int *x, int *y) { *x = *y; }\n__kernel void k(__global int *a) { int v[2] = {1, 2}; "
       "f(v, v + 1); a[0] = v[0]; }\n",
       "bad.cl:2:62: error: the GLSL target does not support passing two pointers into one private "
       "array"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kl_context *ctx = kl_context_create();
    kl_program *program =
        emit_parse(ctx, "bad.cl", cases[i].source, strlen(cases[i].source), NULL, false);
    CHECK(program != NULL);
    if (program) {
      CHECK(kl_emit_glsl(ctx, program, kl_find_kernel(program, "k")) == NULL);
      if (!strstr(kl_diagnostics_text(ctx), cases[i].needle))
        printf("  case %zu: got \"%s\", expected \"%s\"\n", i, kl_diagnostics_text(ctx),
               cases[i].needle);
      CHECK(strstr(kl_diagnostics_text(ctx), cases[i].needle) != NULL);
    }
    kl_context_destroy(ctx);
  }
}

int main(void) {
  RUN(corpus_compiles_with_glslang);
  RUN(tricky_kernel_compiles);
  RUN(wide_vectors_compile);
  RUN(half_compiles);
  RUN(doubles_compile);
  RUN(float_constants_fold_as_float);
  RUN(fma_follows_the_device);
  RUN(by_address_variant);
  RUN(pointer_cast_views);
  RUN(inexpressible_is_rejected);
  if (tool_dir[0]) {
    char *command = NULL;
    if (asprintf(&command, "rm -rf '%s'", tool_dir) >= 0 && system(command) != 0)
      printf("  could not remove %s\n", tool_dir);
    free(command);
  }
  return agpu_test_finish();
}
