/* The CUDA and HIP emitters, checked with the real compilers: every corpus
 * kernel and the tricky cases below are translated and compiled by NVRTC
 * (loaded with dlopen) to PTX for compute_80 and compute_90 and to cubin for
 * sm_80 and sm_90; HIP by hiprtc for gfx90a where ROCm is installed.
 * Nothing runs: no GPU is needed. */
#include <dlfcn.h>

#include "agpu_test.h"
#include "emit_common.h"

/* ------------------------------------------------------------- NVRTC */

typedef int (*nvrtc_create_fn)(void **, const char *, const char *, int, const char *const *,
                               const char *const *);
typedef int (*nvrtc_compile_fn)(void *, int, const char *const *);
typedef int (*nvrtc_size_fn)(void *, size_t *);
typedef int (*nvrtc_get_fn)(void *, char *);
typedef int (*nvrtc_destroy_fn)(void **);
typedef int (*nvrtc_version_fn)(int *, int *);

static struct {
  void *lib;
  char why[512];
  nvrtc_create_fn create;
  nvrtc_compile_fn compile;
  nvrtc_size_fn log_size, ptx_size, cubin_size;
  nvrtc_get_fn log, ptx, cubin;
  nvrtc_destroy_fn destroy;
  int major, minor;
} nvrtc;

static bool nvrtc_load(void) {
  static int tried;
  if (tried) return nvrtc.lib != NULL;
  tried = 1;
  const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
                         "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
                         "/usr/local/cuda/lib64/libnvrtc.so"};
  nvrtc.why[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !nvrtc.lib; i++) {
    nvrtc.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!nvrtc.lib && !nvrtc.why[0]) snprintf(nvrtc.why, sizeof nvrtc.why, "%s", dlerror());
  }
  if (!nvrtc.lib) return false;
  nvrtc.create = (nvrtc_create_fn)dlsym(nvrtc.lib, "nvrtcCreateProgram");
  nvrtc.compile = (nvrtc_compile_fn)dlsym(nvrtc.lib, "nvrtcCompileProgram");
  nvrtc.log_size = (nvrtc_size_fn)dlsym(nvrtc.lib, "nvrtcGetProgramLogSize");
  nvrtc.log = (nvrtc_get_fn)dlsym(nvrtc.lib, "nvrtcGetProgramLog");
  nvrtc.ptx_size = (nvrtc_size_fn)dlsym(nvrtc.lib, "nvrtcGetPTXSize");
  nvrtc.ptx = (nvrtc_get_fn)dlsym(nvrtc.lib, "nvrtcGetPTX");
  nvrtc.cubin_size = (nvrtc_size_fn)dlsym(nvrtc.lib, "nvrtcGetCUBINSize");
  nvrtc.cubin = (nvrtc_get_fn)dlsym(nvrtc.lib, "nvrtcGetCUBIN");
  nvrtc.destroy = (nvrtc_destroy_fn)dlsym(nvrtc.lib, "nvrtcDestroyProgram");
  nvrtc_version_fn version = (nvrtc_version_fn)dlsym(nvrtc.lib, "nvrtcVersion");
  if (!nvrtc.create || !nvrtc.compile || !nvrtc.log_size || !nvrtc.log || !nvrtc.ptx_size || !nvrtc.ptx ||
      !nvrtc.destroy) {
    snprintf(nvrtc.why, sizeof nvrtc.why, "libnvrtc lacks the nvrtc* entry points");
    dlclose(nvrtc.lib);
    nvrtc.lib = NULL;
    return false;
  }
  if (version) version(&nvrtc.major, &nvrtc.minor);
  return true;
}

/* Compiles for one architecture ("compute_80" gives PTX, "sm_80" cubin);
 * prints the log on failure. */
static bool nvrtc_build(const char *name, const char *source, const char *arch) {
  void *prog = NULL;
  if (nvrtc.create(&prog, source, name, 0, NULL, NULL) != 0) return false;
  char option[64];
  snprintf(option, sizeof option, "--gpu-architecture=%s", arch);
  const char *options[] = {option, "-std=c++17", "--diag-suppress=177,550"};
  int rc = nvrtc.compile(prog, 3, options);
  bool ok = rc == 0;
  if (ok) {
    size_t size = 0;
    bool cubin = strncmp(arch, "sm_", 3) == 0;
    if (cubin) ok = nvrtc.cubin_size && nvrtc.cubin_size(prog, &size) == 0 && size > 0;
    else ok = nvrtc.ptx_size(prog, &size) == 0 && size > 1;
    if (ok) {
      char *bytes = malloc(size);
      ok = bytes && (cubin ? nvrtc.cubin(prog, bytes) : nvrtc.ptx(prog, bytes)) == 0;
      if (ok && !cubin) ok = strstr(bytes, ".entry") != NULL;
      free(bytes);
    }
  }
  if (!ok) {
    size_t size = 0;
    nvrtc.log_size(prog, &size);
    char *log = malloc(size + 1);
    if (log && nvrtc.log(prog, log) == 0) printf("  nvrtc %s (%s), rc %d:\n%.4000s\n", name, arch, rc, log);
    free(log);
  }
  nvrtc.destroy(&prog);
  return ok;
}

static const char *const cuda_arches[] = {"compute_80", "compute_90", "sm_80", "sm_90"};

/* Translates one source to CUDA and compiles it for every architecture;
 * returns the CUDA text (in ctx) or NULL. */
static const char *cuda_check_source(kl_context *ctx, const char *name, const char *text, const char *options,
                                     bool fp16, bool *rejected) {
  *rejected = false;
  kl_program *program = emit_parse(ctx, name, text, strlen(text), options, fp16);
  if (!program) {
    printf("  %s does not parse:\n%s", name, kl_diagnostics_text(ctx));
    return NULL;
  }
  const char *cuda = kl_emit_cuda(ctx, program, false);
  if (!cuda) {
    *rejected = true;
    printf("  %s rejected by the CUDA emitter:\n%s", name, kl_diagnostics_text(ctx));
    return NULL;
  }
  for (size_t a = 0; a < sizeof cuda_arches / sizeof cuda_arches[0]; a++) {
    if (!nvrtc_build(name, cuda, cuda_arches[a])) {
      printf("  ---- CUDA of %s ----\n%s\n", name, strstr(cuda, "/* end of prelude */"));
      return NULL;
    }
  }
  return cuda;
}

static void corpus_compiles_with_nvrtc(void) {
  if (!nvrtc_load()) SKIP("NVRTC not found: %s", nvrtc.why);
  int count = 0;
  emit_source *sources = emit_corpus(&count);
  if (count == 0) SKIP("no corpus in %s/valid", AGPU_KERNELS_DIR);
  int compiled = 0, rejected_half = 0, failed = 0;
  for (int i = 0; i < count; i++) {
    kl_context *ctx = kl_context_create();
    bool rejected;
    const char *cuda = cuda_check_source(ctx, sources[i].name, sources[i].text, sources[i].options,
                                         sources[i].needs_fp16, &rejected);
    if (cuda) compiled++;
    else if (rejected && sources[i].needs_fp16 && strstr(kl_diagnostics_text(ctx), "half")) rejected_half++;
    else failed++;
    kl_context_destroy(ctx);
  }
  printf("  NVRTC %d.%d: %d of %d corpus kernels compile for compute_80, compute_90, sm_80 and sm_90; "
         "%d rejected (half); %d failed\n", nvrtc.major, nvrtc.minor, compiled, count, rejected_half, failed);
  CHECK(failed == 0);
  CHECK(compiled > 0);
  emit_free_corpus(sources, count);
}

/* Semantics the translation must keep, and constructs the corpus touches
 * lightly: each must translate and compile. */
static const char tricky_source[] =
    "typedef struct { float3 p; float w; char tag; } point;\n"
    "__constant int table[5] = {1, -2, 3, -4, 5};\n"
    "__constant float3 origin = (float3)(0.0f, 1.0f, 2.0f);\n"
    "int helper(__global int *p, int k) { return p[k] + table[k % 5]; }\n"
    "float4 scale(float4 v, float s) { return v * s; }\n"
    "void swap_local(__local float *a, __local float *b) { float t = *a; *a = *b; *b = t; }\n"
    "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
    "void tricky(__global int *ints, __global uint *uints, __global float4 *vecs, __global long *longs,\n"
    "            __global float *points, __local float *scratch, __local int2 *pairs, int shift, float f) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0);\n"
    "  int x = ints[i];\n"
    "  ints[i] = (x << shift) + (x >> (shift + 32)) + (x / -3) + (x % -3) + (int)abs(x) + helper(ints, 1);\n"
    "  uints[i] = abs(x) + abs_diff(x, 7) + (uints[i] >> shift) + rotate(uints[i], 3u) + clz(uints[i]) + popcount(x);\n"
    "  uints[i] += mul_hi(uints[i], 0x9e3779b9u) + mad_hi(x, x, 1) + add_sat(x, 5) + sub_sat(7u, uints[i]) + hadd(x, 3) + rhadd(x, 4);\n"
    "  float4 v = vecs[i];\n"
    "  int4 m = v > (float4)(0.5f);\n"
    "  v.xy = v.yx * 2.0f;\n"
    "  v.s23 += (float2)(1.0f, f);\n"
    "  v.w = -v.x;\n"
    "  v = select(v, scale(v, 0.5f), m) + clamp(v, 0.0f, 1.0f) + mix(v, v.wzyx, 0.25f) + fma(v, v, v);\n"
    "  v += (float4)(dot(v, v), length(v.xyz), distance(v, (float4)(1.0f)), cross(v, v).x);\n"
    "  int4 c = convert_int4_sat_rte(v * 1e10f) + convert_int4(v) + convert_int4_rtn(v) + as_int4(v);\n"
    "  uchar4 u = convert_uchar4_sat(c) + (uchar4)(1, 2, 3, 4);\n"
    "  short2 s2 = convert_short2_sat(c.lo) << (short2)(1, 17);\n"
    "  ulong ul = upsample(uints[i], uints[i]) + convert_ulong_sat(-f);\n"
    "  longs[i] = (long)ul + mul_hi(longs[i], (long)x) + (longs[i] << 65) + (c.x < c.y ? 1L : 2L) + any(m) + all(c > 0);\n"
    "  longs[i] += isnan(f) + isinf(v).x + signbit(f) + isgreater(f, 1.0f) + bitselect(3, 5, 6) + u.x + s2.y;\n"
    "  float whole; int expo;\n"
    "  float4 vw;\n"
    "  vecs[i] = v + fract(v, &vw) + vw + (float4)(modf(f, &whole) + frexp(f, &expo) + whole + expo);\n"
    "  vecs[i] += vload4(1, (__global float *)&vecs[0]) + (float4)(native_sin(f), half_cos(f), native_divide(f, 3.0f), rsqrt(f));\n"
    "  vstore2(v.lo, i, (__global float *)vecs);\n"
    "  scratch[l] = f * l;\n"
    "  pairs[l] = (int2)(x, -x);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l + 1 < get_local_size(0)) swap_local(&scratch[l], scratch + l + 1);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
    "  atomic_add(&ints[0], pairs[l].y);\n"
    "  atomic_cmpxchg((volatile __global uint *)&uints[1], 0u, 1u);\n"
    "  atom_inc(&uints[2]); atomic_dec(&uints[3]); atomic_min(&ints[4], x); atomic_max(&uints[5], 9u);\n"
    "  atomic_xchg(&ints[6], x); atomic_and(&ints[7], x); atomic_or(&ints[8], x); atomic_xor(&uints[9], 1u);\n"
    "  point p = {(float3)(points[i]), points[i + 1], 'p'};\n"
    "  p.p.x += origin.y + scratch[0] + p.tag;\n"
    "  switch (x & 3) { case 0: p.w = 1.0f; break; case 1: p.w = 2.0f; default: p.w += 3.0f; }\n"
    "  for (int k = 0, j = 10; k < j; k++, j--) p.w += k;\n"
    "  int arr[4] = {1, 2};\n"
    "  do { arr[x & 3]++; } while (--x > 0);\n"
    "  p.w += arr[0] + arr[3] + get_num_groups(0) + get_group_id(0) + get_global_size(0) + get_work_dim() + get_global_offset(0);\n"
    "  points[i] = p.w + p.p.z;\n"
    "}\n";

static void tricky_semantics_compile(void) {
  if (!nvrtc_load()) SKIP("NVRTC not found: %s", nvrtc.why);
  kl_context *ctx = kl_context_create();
  bool rejected;
  const char *cuda = cuda_check_source(ctx, "tricky.cl", tricky_source, NULL, false, &rejected);
  CHECK(cuda != NULL);
  if (cuda) {
    CHECK(strstr(cuda, "extern \"C\" __global__ __launch_bounds__(64) void tricky(") != NULL);
    CHECK(strstr(cuda, "uint _cl_loff_scratch") != NULL);                 /* __local pointer ABI */
    CHECK(strstr(cuda, "(_cl_dynamic_shared + _cl_loff_scratch)") != NULL);
    CHECK(strstr(cuda, "const _agpu_launch _cl_L)") != NULL);             /* hidden launch parameter */
    CHECK(strstr(cuda, "& 31))") != NULL);                                /* shift count masked */
    CHECK(strstr(cuda, "_cl_convert<int, 1, 1>") != NULL);                /* _sat_rte */
    CHECK(strstr(cuda, "static_assert(sizeof(point) == 32") != NULL);     /* OpenCL struct layout */
  }
  kl_context_destroy(ctx);
}

/* The emitter says why it cannot translate, instead of emitting wrong code. */
static void half_is_rejected_with_a_diagnostic(void) {
  static const char source[] =
      "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
      "__kernel void h(__global half *p) { half x = p[0]; p[0] = x * x; }\n";
  kl_context *ctx = kl_context_create();
  kl_program *program = emit_parse(ctx, "half.cl", source, strlen(source), NULL, true);
  CHECK(program != NULL);
  if (program) {
    CHECK(kl_emit_cuda(ctx, program, false) == NULL);
    CHECK(strstr(kl_diagnostics_text(ctx), "half.cl:2:") != NULL);
    CHECK(strstr(kl_diagnostics_text(ctx), "CUDA target does not support half") != NULL);
  }
  kl_context_destroy(ctx);
}

/* -------------------------------------------------------------- HIP */

typedef int (*hiprtc_create_fn)(void **, const char *, const char *, int, const char **, const char **);
typedef int (*hiprtc_compile_fn)(void *, int, const char **);
typedef int (*hiprtc_size_fn)(void *, size_t *);
typedef int (*hiprtc_get_fn)(void *, char *);
typedef int (*hiprtc_destroy_fn)(void **);

static void corpus_compiles_with_hiprtc(void) {
  const char *names[] = {"libhiprtc.so", "libhiprtc.so.6", "libhiprtc.so.5", "libamdhip64.so.5",
                         "/opt/rocm/lib/libhiprtc.so", "/opt/rocm/lib/libamdhip64.so"};
  void *lib = NULL;
  char why[512] = "";
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) {
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib && !why[0]) snprintf(why, sizeof why, "%s", dlerror());
  }
  if (!lib) SKIP("hiprtc not found (ROCm is not installed): %s", why);
  hiprtc_create_fn create = (hiprtc_create_fn)dlsym(lib, "hiprtcCreateProgram");
  hiprtc_compile_fn compile = (hiprtc_compile_fn)dlsym(lib, "hiprtcCompileProgram");
  hiprtc_size_fn code_size = (hiprtc_size_fn)dlsym(lib, "hiprtcGetCodeSize");
  hiprtc_size_fn log_size = (hiprtc_size_fn)dlsym(lib, "hiprtcGetProgramLogSize");
  hiprtc_get_fn get_log = (hiprtc_get_fn)dlsym(lib, "hiprtcGetProgramLog");
  hiprtc_destroy_fn destroy = (hiprtc_destroy_fn)dlsym(lib, "hiprtcDestroyProgram");
  if (!create || !compile || !code_size || !destroy) SKIP("the HIP library has no hiprtc entry points");
  int count = 0, compiled = 0, failed = 0;
  emit_source *sources = emit_corpus(&count);
  for (int i = 0; i < count; i++) {
    kl_context *ctx = kl_context_create();
    kl_program *program = emit_parse(ctx, sources[i].name, sources[i].text, sources[i].length, sources[i].options,
                                     sources[i].needs_fp16);
    const char *hip = program ? kl_emit_cuda(ctx, program, true) : NULL;
    if (hip) {
      void *prog = NULL;
      const char *options[] = {"--offload-arch=gfx90a", "-std=c++17"};
      bool ok = create(&prog, hip, sources[i].name, 0, NULL, NULL) == 0 && compile(prog, 2, options) == 0;
      size_t size = 0;
      ok = ok && code_size(prog, &size) == 0 && size > 0;
      if (!ok && log_size && get_log && prog) {
        size_t n = 0;
        log_size(prog, &n);
        char *log = malloc(n + 1);
        if (log && get_log(prog, log) == 0) printf("  hiprtc %s:\n%.4000s\n", sources[i].name, log);
        free(log);
      }
      if (prog) destroy(&prog);
      if (ok) compiled++;
      else failed++;
    } else if (!sources[i].needs_fp16) {
      failed++;
    }
    kl_context_destroy(ctx);
  }
  printf("  hiprtc: %d of %d corpus kernels compile for gfx90a\n", compiled, count);
  CHECK(failed == 0);
  emit_free_corpus(sources, count);
}

int main(void) {
  RUN(corpus_compiles_with_nvrtc);
  RUN(tricky_semantics_compile);
  RUN(half_is_rejected_with_a_diagnostic);
  RUN(corpus_compiles_with_hiprtc);
  return agpu_test_finish();
}
