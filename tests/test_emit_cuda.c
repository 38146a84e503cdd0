// SPDX-License-Identifier: Apache-2.0
/* The CUDA and HIP emitters, checked with the real compilers: every corpus
 * kernel, the tricky cases and a half kernel below are translated and
 * compiled by NVRTC (loaded with dlopen) to PTX for compute_80 and
 * compute_90 and to cubin for sm_80 and sm_90, and by hiprtc (ROCm) for
 * gfx90a and gfx1030. Nothing runs on a GPU: no GPU is needed. The HIP
 * prelude's conversions and half arithmetic also run on the host, compiled
 * by the system C++ compiler (cuda_prelude_host_check.cpp). */
#include <dlfcn.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agpu_test.h"
#include "cuda_prelude.h"
#include "emit_common.h"

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

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
  const char *names[] = {"libnvrtc.so.13",
                         "libnvrtc.so.12",
                         "libnvrtc.so.11.2",
                         "libnvrtc.so",
                         "/usr/local/cuda/lib64/libnvrtc.so.13",
                         "/usr/local/cuda/lib64/libnvrtc.so.12",
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
  if (!nvrtc.create || !nvrtc.compile || !nvrtc.log_size || !nvrtc.log || !nvrtc.ptx_size ||
      !nvrtc.ptx || !nvrtc.destroy) {
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
    if (cubin)
      ok = nvrtc.cubin_size && nvrtc.cubin_size(prog, &size) == 0 && size > 0;
    else
      ok = nvrtc.ptx_size(prog, &size) == 0 && size > 1;
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
    if (log && nvrtc.log(prog, log) == 0)
      printf("  nvrtc %s (%s), rc %d:\n%.4000s\n", name, arch, rc, log);
    free(log);
  }
  nvrtc.destroy(&prog);
  return ok;
}

/* -------------------------------------------------------------- hiprtc */

typedef int (*hiprtc_create_fn)(void **, const char *, const char *, int, const char **,
                                const char **);
typedef int (*hiprtc_compile_fn)(void *, int, const char **);
typedef int (*hiprtc_size_fn)(void *, size_t *);
typedef int (*hiprtc_get_fn)(void *, char *);
typedef int (*hiprtc_destroy_fn)(void **);

static struct {
  void *lib;
  char why[512];
  hiprtc_create_fn create;
  hiprtc_compile_fn compile;
  hiprtc_size_fn code_size, log_size;
  hiprtc_get_fn log;
  hiprtc_destroy_fn destroy;
} hiprtc;

static bool hiprtc_load(void) {
  static int tried;
  if (tried) return hiprtc.lib != NULL;
  tried = 1;
  /* ROCm 6 ships libhiprtc.so; ROCm 5 carries hiprtc inside libamdhip64 */
  const char *names[] = {"libhiprtc.so",
                         "libhiprtc.so.6",
                         "libhiprtc.so.5",
                         "libamdhip64.so.5",
                         "/opt/rocm/lib/libhiprtc.so",
                         "/opt/rocm/lib/libamdhip64.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !hiprtc.lib; i++) {
    hiprtc.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!hiprtc.lib && !hiprtc.why[0]) snprintf(hiprtc.why, sizeof hiprtc.why, "%s", dlerror());
  }
  if (!hiprtc.lib) return false;
  hiprtc.create = (hiprtc_create_fn)dlsym(hiprtc.lib, "hiprtcCreateProgram");
  hiprtc.compile = (hiprtc_compile_fn)dlsym(hiprtc.lib, "hiprtcCompileProgram");
  hiprtc.code_size = (hiprtc_size_fn)dlsym(hiprtc.lib, "hiprtcGetCodeSize");
  hiprtc.log_size = (hiprtc_size_fn)dlsym(hiprtc.lib, "hiprtcGetProgramLogSize");
  hiprtc.log = (hiprtc_get_fn)dlsym(hiprtc.lib, "hiprtcGetProgramLog");
  hiprtc.destroy = (hiprtc_destroy_fn)dlsym(hiprtc.lib, "hiprtcDestroyProgram");
  if (!hiprtc.create || !hiprtc.compile || !hiprtc.code_size || !hiprtc.log_size || !hiprtc.log ||
      !hiprtc.destroy) {
    snprintf(hiprtc.why, sizeof hiprtc.why, "the HIP library has no hiprtc entry points");
    dlclose(hiprtc.lib);
    hiprtc.lib = NULL;
    return false;
  }
  return true;
}

/* Compiles for one gfx target; prints the log on failure. */
static bool hiprtc_build(const char *name, const char *source, const char *arch) {
  void *prog = NULL;
  if (hiprtc.create(&prog, source, name, 0, NULL, NULL) != 0) return false;
  char option[64];
  snprintf(option, sizeof option, "--offload-arch=%s", arch);
  const char *options[] = {option, "-std=c++17"};
  int rc = hiprtc.compile(prog, 2, options);
  size_t size = 0;
  bool ok = rc == 0 && hiprtc.code_size(prog, &size) == 0 && size > 0;
  if (!ok) {
    size_t n = 0;
    hiprtc.log_size(prog, &n);
    char *log = malloc(n + 1);
    if (log && hiprtc.log(prog, log) == 0)
      printf("  hiprtc %s (%s), rc %d:\n%.4000s\n", name, arch, rc, log);
    free(log);
  }
  hiprtc.destroy(&prog);
  return ok;
}

/* ------------------------------------------------------ both compilers */

typedef struct compiler {
  const char *name;
  bool hip;
  bool (*load)(void);
  const char *(*why)(void);
  bool (*build)(const char *name, const char *source, const char *arch);
  const char *const *arches;
  int arch_count;
} compiler;

static const char *nvrtc_why(void) {
  return nvrtc.why;
}
static const char *hiprtc_why(void) {
  return hiprtc.why;
}

static const char *const cuda_arches[] = {"compute_80", "compute_90", "sm_80", "sm_90"};
/* Only targets this hiprtc knows: ROCm 5.2's crashes the process on others
 * (gfx940, gfx942, gfx1100). gfx90a is wave64, gfx1030 wave32. */
static const char *const hip_arches[] = {"gfx90a", "gfx1030"};

static const compiler nvrtc_compiler = {"NVRTC",     false,       nvrtc_load, nvrtc_why,
                                        nvrtc_build, cuda_arches, 4};
static const compiler hiprtc_compiler = {"hiprtc",   true, hiprtc_load, hiprtc_why, hiprtc_build,
                                         hip_arches, 2};

typedef struct build_counts {
  int compiled, rejected, failed, builds;
  double seconds;
} build_counts;

/* Translates one source for the compiler's target and compiles it for every
 * architecture; returns the translation (in ctx) or NULL. */
static const char *check_source(const compiler *c, kl_context *ctx, const char *name,
                                const char *text, const char *options, bool fp16,
                                build_counts *counts) {
  kl_program *program = emit_parse(ctx, name, text, strlen(text), options, fp16);
  if (!program) {
    printf("  %s does not parse:\n%s", name, kl_diagnostics_text(ctx));
    counts->failed++;
    return NULL;
  }
  const char *translated = kl_emit_cuda(ctx, program, c->hip);
  if (!translated) {
    printf("  %s rejected by the %s emitter:\n%s", name, c->hip ? "HIP" : "CUDA",
           kl_diagnostics_text(ctx));
    counts->rejected++;
    return NULL;
  }
  for (int a = 0; a < c->arch_count; a++) {
    double start = seconds();
    bool ok = c->build(name, translated, c->arches[a]);
    counts->seconds += seconds() - start;
    counts->builds++;
    if (!ok) {
      printf("  ---- %s of %s ----\n%s\n", c->hip ? "HIP" : "CUDA", name,
             strstr(translated, "/* end of prelude */"));
      counts->failed++;
      return NULL;
    }
  }
  counts->compiled++;
  return translated;
}

static void corpus_compiles(const compiler *c) {
  if (!c->load()) SKIP("%s not found: %s", c->name, c->why());
  int count = 0;
  emit_source *sources = emit_corpus(&count);
  if (count == 0) SKIP("no corpus in %s/valid", AGPU_KERNELS_DIR);
  build_counts counts = {0};
  for (int i = 0; i < count; i++) {
    kl_context *ctx = kl_context_create();
    check_source(c, ctx, sources[i].name, sources[i].text, sources[i].options,
                 sources[i].needs_fp16, &counts);
    kl_context_destroy(ctx);
  }
  char arches[128] = "";
  for (int a = 0; a < c->arch_count; a++)
    snprintf(arches + strlen(arches), sizeof arches - strlen(arches), "%s%s", a ? ", " : "",
             c->arches[a]);
  if (!c->hip)
    printf("  NVRTC %d.%d:", nvrtc.major, nvrtc.minor);
  else
    printf("  hiprtc:");
  printf(
      " %d of %d corpus kernels compile for %s; %d rejected; %d failed; %d compiles in %.1f s "
      "(%.2f s each)\n",
      counts.compiled, count, arches, counts.rejected, counts.failed, counts.builds, counts.seconds,
      counts.builds ? counts.seconds / counts.builds : 0.0);
  CHECK(counts.compiled == count);
  CHECK(counts.rejected == 0);
  CHECK(counts.failed == 0);
  emit_free_corpus(sources, count);
}

static void corpus_compiles_with_nvrtc(void) {
  corpus_compiles(&nvrtc_compiler);
}
static void corpus_compiles_with_hiprtc(void) {
  corpus_compiles(&hiprtc_compiler);
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
    "void tricky(__global int *ints, __global uint *uints, __global float4 *vecs, __global long "
    "*longs,\n"
    "            __global float *points, __local float *scratch, __local int2 *pairs, int shift, "
    "float f) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0);\n"
    "  int x = ints[i];\n"
    "  ints[i] = (x << shift) + (x >> (shift + 32)) + (x / -3) + (x % -3) + (int)abs(x) + "
    "helper(ints, 1);\n"
    "  uints[i] = abs(x) + abs_diff(x, 7) + (uints[i] >> shift) + rotate(uints[i], 3u) + "
    "clz(uints[i]) + popcount(x);\n"
    "  uints[i] += mul_hi(uints[i], 0x9e3779b9u) + mad_hi(x, x, 1) + add_sat(x, 5) + sub_sat(7u, "
    "uints[i]) + hadd(x, 3) + rhadd(x, 4);\n"
    "  float4 v = vecs[i];\n"
    "  int4 m = v > (float4)(0.5f);\n"
    "  v.xy = v.yx * 2.0f;\n"
    "  v.s23 += (float2)(1.0f, f);\n"
    "  v.w = -v.x;\n"
    "  v = select(v, scale(v, 0.5f), m) + clamp(v, 0.0f, 1.0f) + mix(v, v.wzyx, 0.25f) + fma(v, v, "
    "v);\n"
    "  v += (float4)(dot(v, v), length(v.xyz), distance(v, (float4)(1.0f)), cross(v, v).x);\n"
    "  int4 c = convert_int4_sat_rte(v * 1e10f) + convert_int4(v) + convert_int4_rtn(v) + "
    "as_int4(v);\n"
    "  uchar4 u = convert_uchar4_sat(c) + (uchar4)(1, 2, 3, 4);\n"
    "  short2 s2 = convert_short2_sat(c.lo) << (short2)(1, 17);\n"
    "  ulong ul = upsample(uints[i], uints[i]) + convert_ulong_sat(-f);\n"
    "  longs[i] = (long)ul + mul_hi(longs[i], (long)x) + (longs[i] << 65) + (c.x < c.y ? 1L : 2L) "
    "+ any(m) + all(c > 0);\n"
    "  longs[i] += isnan(f) + isinf(v).x + signbit(f) + isgreater(f, 1.0f) + bitselect(3, 5, 6) + "
    "u.x + s2.y;\n"
    "  float whole; int expo;\n"
    "  float4 vw;\n"
    "  vecs[i] = v + fract(v, &vw) + vw + (float4)(modf(f, &whole) + frexp(f, &expo) + whole + "
    "expo);\n"
    "  vecs[i] += vload4(1, (__global float *)&vecs[0]) + (float4)(native_sin(f), half_cos(f), "
    "native_divide(f, 3.0f), rsqrt(f));\n"
    "  vstore2(v.lo, i, (__global float *)vecs);\n"
    "  scratch[l] = f * l;\n"
    "  pairs[l] = (int2)(x, -x);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l + 1 < get_local_size(0)) swap_local(&scratch[l], scratch + l + 1);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
    "  atomic_add(&ints[0], pairs[l].y);\n"
    "  atomic_cmpxchg((volatile __global uint *)&uints[1], 0u, 1u);\n"
    "  atom_inc(&uints[2]); atomic_dec(&uints[3]); atomic_min(&ints[4], x); atomic_max(&uints[5], "
    "9u);\n"
    "  atomic_xchg(&ints[6], x); atomic_and(&ints[7], x); atomic_or(&ints[8], x); "
    "atomic_xor(&uints[9], 1u);\n"
    "  point p = {(float3)(points[i]), points[i + 1], 'p'};\n"
    "  p.p.x += origin.y + scratch[0] + p.tag;\n"
    "  switch (x & 3) { case 0: p.w = 1.0f; break; case 1: p.w = 2.0f; default: p.w += 3.0f; }\n"
    "  for (int k = 0, j = 10; k < j; k++, j--) p.w += k;\n"
    "  int arr[4] = {1, 2};\n"
    "  do { arr[x & 3]++; } while (--x > 0);\n"
    "  p.w += arr[0] + arr[3] + get_num_groups(0) + get_group_id(0) + get_global_size(0) + "
    "get_work_dim() + get_global_offset(0);\n"
    "  points[i] = p.w + p.p.z;\n"
    "}\n";

static void tricky_compiles(const compiler *c) {
  if (!c->load()) SKIP("%s not found: %s", c->name, c->why());
  kl_context *ctx = kl_context_create();
  build_counts counts = {0};
  const char *out = check_source(c, ctx, "tricky.cl", tricky_source, NULL, false, &counts);
  CHECK(out != NULL);
  if (out) {
    CHECK(strstr(out, "extern \"C\" __global__ __launch_bounds__(64) void tricky(") != NULL);
    CHECK(strstr(out, "uint _cl_loff_scratch") != NULL); /* __local pointer ABI */
    CHECK(strstr(out, "(_cl_dynamic_shared + _cl_loff_scratch)") != NULL);
    CHECK(strstr(out, "const _agpu_launch _cl_L)") != NULL);         /* hidden launch parameter */
    CHECK(strstr(out, "& 31))") != NULL);                            /* shift count masked */
    CHECK(strstr(out, "_cl_convert<int, 1, 1>") != NULL);            /* _sat_rte */
    CHECK(strstr(out, "static_assert(sizeof(point) == 32") != NULL); /* OpenCL struct layout */
    /* HIP 5's directed-rounding intrinsics round to nearest: the HIP prelude must not use them */
    CHECK(strstr(out, c->hip ? "_cl_hw_directed = false" : "_cl_hw_directed = true") != NULL);
  }
  kl_context_destroy(ctx);
}

static void tricky_compiles_with_nvrtc(void) {
  tricky_compiles(&nvrtc_compiler);
}
static void tricky_compiles_with_hiprtc(void) {
  tricky_compiles(&hiprtc_compiler);
}

/* Names that the headers of NVRTC or hiprtc declare, define as macros or
 * reserve: helpers, structs, constants and variables so named still work. */
static const char names_source[] =
    "typedef struct { int a; } dim3;\n"
    "struct float1 { float v; };\n"
    "__constant int cudaMalloc = 3;\n"
    "int sinf(int x) { return x + 1; }\n"
    "float acosf(float x) { return x * 2.0f; }\n"
    "int warpSize(int unix) { int NULL_ = unix; return NULL_ + cudaMalloc; }\n"
    "int atomicAdd(int x) { return x; }\n"
    "__kernel void cudaNames(__global int *p, __global float *q) {\n"
    "  int linux = p[0], va_end = 2, __x = 3, hipFoo = 4, kl_y = 5, clock = 6, norm3df = 7, NULL = "
    "8;\n"
    "  int threadIdx = 9, select_impl_ = 10, launch_bounds_impl0 = 11, kl = 12, CUDART_VERSION = "
    "13;\n"
    "  struct float1 f = {q[0]};\n"
    "  dim3 d = {linux};\n"
    "  p[0] = sinf(linux) + warpSize(va_end) + __x + hipFoo + kl_y + clock + norm3df + d.a + "
    "(int)acosf(f.v) + NULL;\n"
    "  p[1] = threadIdx + select_impl_ + launch_bounds_impl0 + kl + CUDART_VERSION + "
    "atomicAdd(1);\n"
    "}\n";

static void names_compile(const compiler *c) {
  if (!c->load()) SKIP("%s not found: %s", c->name, c->why());
  kl_context *ctx = kl_context_create();
  build_counts counts = {0};
  const char *out = check_source(c, ctx, "names.cl", names_source, NULL, false, &counts);
  CHECK(out != NULL);
  if (out) {
    CHECK(strstr(out, "namespace kl { ") != NULL);
    CHECK(strstr(out, "struct kl_float1 {") != NULL);
    CHECK(strstr(out, "__constant__ const int kl_cudaMalloc = 3;") != NULL);
    CHECK(strstr(out, "extern \"C\" __global__ void cudaNames(") != NULL);
  }
  kl_context_destroy(ctx);
  /* a kernel keeps its name, so one whose name is taken is rejected */
  static const char *const taken[] = {"NULL", "warpSize", "class", "acosf"};
  for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
    char source[128], message[128];
    snprintf(source, sizeof source, "__kernel void %s(__global int *p) { p[0] = 1; }\n", taken[i]);
    snprintf(message, sizeof message, "does not support a kernel named '%s'", taken[i]);
    ctx = kl_context_create();
    kl_program *program = emit_parse(ctx, "taken.cl", source, strlen(source), NULL, false);
    bool hip_compiles =
        c->hip && strcmp(taken[i], "acosf") == 0; /* HIP's math is C++, not extern "C" */
    if (program && hip_compiles) {
      CHECK(kl_emit_cuda(ctx, program, c->hip) != NULL);
    } else if (program) {
      CHECK(kl_emit_cuda(ctx, program, c->hip) == NULL);
      CHECK(strstr(kl_diagnostics_text(ctx), "taken.cl:1:15:") != NULL);
      CHECK(strstr(kl_diagnostics_text(ctx), message) != NULL);
    }
    kl_context_destroy(ctx);
  }
}

static void names_compile_with_nvrtc(void) {
  names_compile(&nvrtc_compiler);
}
static void names_compile_with_hiprtc(void) {
  names_compile(&hiprtc_compiler);
}

/* Everything the front end accepts for half. */
static const char half_source[] =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "__constant half table[4] = {1.5h, -2.0h, (half)0.25f, -(half)3};\n"
    "typedef struct { half a; half2 b; float c; } hs;\n"
    "half helper(half x, __global half *p) { return x * p[0] + table[1]; }\n"
    "__kernel void hall(__global half *h, __global half2 *h2, __global half4 *h4, __global float "
    "*f, __global int *r,\n"
    "                   __global double *d, __global short *s, __local half *lh) {\n"
    "  size_t i = get_global_id(0);\n"
    "  half x = h[i], y = h[i + 1];\n"
    "  half2 v = h2[i];\n"
    "  half4 w = h4[i];\n"
    "  lh[get_local_id(0)] = x;\n"
    "  __local half tile[64];\n"
    "  tile[get_local_id(0)] = y;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  x += y; x -= 1.0h; x *= (half)2; x /= y; x++; --x; x += 0.5f; x *= 3;\n"
    "  x = -x + +y;\n"
    "  half3 v3 = (half3)(x, v);\n"
    "  v = v * x + v / v - (half2)(1.0h);\n"
    "  v += 2.0h;\n"
    "  w.xy = v.yx; w.s23 *= (half2)(0.5h, x);\n"
    "  short2 m = v > (half2)(0.0h);\n"
    "  short4 m4 = isnan(w) | isinf(w) | isfinite(w) | isnormal(w) | signbit(w) | isequal(w, w) | "
    "isless(w, w);\n"
    "  int c = isnan(x) + isinf(x) + isnormal(x) + signbit(x) + isordered(x, y) + (x < y) + (x == "
    "y) + !x + (x && y);\n"
    "  x = sqrt(x) + sin(x) + exp(x) + log(y) + pow(x, y) + fma(x, y, x) + mad(x, y, y) + fmax(x, "
    "y) + fmin(x, y);\n"
    "  x += ceil(x) + floor(y) + rint(x) + round(x) + trunc(x) + copysign(x, y) + ldexp(x, 3) + "
    "pown(x, 2) + rootn(x, 3);\n"
    "  x += clamp(x, (half)0, (half)1) + max(x, y) + min(x, y) + mix(x, y, (half)0.5f) + step(x, "
    "y) + sign(x);\n"
    "  x += degrees(x) + native_sin(x) + half_cos(x) + native_divide(x, y) + native_recip(x) + "
    "rsqrt(x) + ilogb(x);\n"
    "  x += nextafter(x, y) + smoothstep(x, y, x) + fabs(x) + radians(x);\n"
    "  half ip; int ex; half cs;\n"
    "  x += fract(x, &ip) + ip + modf(y, &ip) + frexp(x, &ex) + ex + sincos(x, &cs) + cs + "
    "remquo(x, y, &ex);\n"
    "  x += lgamma_r(x, &ex);\n"
    "  half2 ip2;\n"
    "  v = fract(v, &ip2) + ip2 + sqrt(v) + fma(v, v, v) + clamp(v, (half)0, (half)1) + select(v, "
    "v, m) + bitselect(v, v, v);\n"
    "  v = ldexp(v, (int2)(1, 2)) + max(v, (half2)(x));\n"
    "  f[i] = convert_float(x) + (float)y + convert_float_rtz(v.x) + x + v.s1;\n"
    "  d[i] = (double)x + convert_double4(w).z;\n"
    "  r[i] = convert_int(x) + convert_int_sat_rte(y) + (int)x + convert_int4_sat(w).w + m.x + "
    "m4.y + c + as_short(x) + as_int(v);\n"
    "  h[i] = convert_half(f[i]) + convert_half_rtz(f[i]) + convert_half_rtp(d[i]) + "
    "convert_half_rtn(r[i]) + (half)d[i] + (half)r[i];\n"
    "  h[i] += as_half(s[i]);\n"
    "  h2[i] = convert_half2(convert_float2(v)) + convert_half2_rte((int2)(r[i], 3)) + "
    "as_half2(r[i]) + v.yx;\n"
    "  w = vload4(i, h) + (half4)(v3.xyz, tile[0]) + (half4)(lh[1]);\n"
    "  vstore4(w, i + 1, h);\n"
    "  vstore2(v, i, h);\n"
    "  h4[i] = w > (half4)(1.0h) ? w : -w;\n"
    "  hs st = {x, v, 1.0f};\n"
    "  st.a += helper(st.b.y, h);\n"
    "  s[i] = as_short(st.a) + (short)(x != x ? 1 : 0) + any(m) + all(m4);\n"
    "  half k = INFINITY;\n"
    "  h[0] = k + (half)NAN + (half)(-0.0f) + (half)65519.0f + (half)1e-8f + (half)5.96e-8f + "
    "(half)-70000;\n"
    "}\n";

static void half_compiles(const compiler *c) {
  if (!c->load()) SKIP("%s not found: %s", c->name, c->why());
  kl_context *ctx = kl_context_create();
  build_counts counts = {0};
  const char *out = check_source(c, ctx, "half.cl", half_source, NULL, true, &counts);
  CHECK(out != NULL);
  if (out) {
    /* constant halves are folded to their bits, so __constant__ tables are constant-initialised */
    CHECK(
        strstr(out,
               "__constant__ _cl_half table[4] = {_cl_hb(0x3e00), _cl_hb(0xc000), _cl_hb(0x3400), "
               "_cl_hb(0xc200)};") != NULL);
    CHECK(strstr(out, "_cl_hb(0x7c00)") != NULL); /* INFINITY */
    CHECK(strstr(out, "_cl_hb(0x7bff)) + _cl_hb(0x0000)) + _cl_hb(0x0001)) + _cl_hb(0xfc00)") !=
          NULL);
    CHECK(strstr(out, "_cl_convert<_cl_half, 0, 2>(") != NULL); /* convert_half_rtz */
    CHECK(strstr(out, "_clv<_cl_half, 4>* h4") != NULL);
  }
  kl_context_destroy(ctx);
}

static void half_compiles_with_nvrtc(void) {
  half_compiles(&nvrtc_compiler);
}
static void half_compiles_with_hiprtc(void) {
  half_compiles(&hiprtc_compiler);
}

/* The emitter folds constant halves with its own rounding: every half's
 * value folds back to the same bits, and the midpoints round to even. */
static void half_constants_fold_to_their_bits(void) {
  char source[256];
  static const struct {
    const char *literal;
    const char *bits;
  } cases[] = {{"1.0h", "0x3c00"},       {"0.1h", "0x2e66"},
               {"65504.0h", "0x7bff"},   {"65519.0h", "0x7bff"},
               {"65520.0h", "0x7c00"},   {"(half)1e9f", "0x7c00"},
               {"6e-8h", "0x0001"},      {"2.98e-8h", "0x0000"},
               {"2.99e-8h", "0x0001"},   {"(half)2049", "0x6800"},
               {"(half)2051", "0x6802"}, {"(half)-3", "0xc200"},
               {"-0.0h", "0x8000"},      {"(half)0x1.ffep-15f", "0x0400"},
               {"(half)NAN", "0x7e00"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(source, sizeof source,
             "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n__kernel void k(__global half *p) { "
             "p[0] = %s; }\n",
             cases[i].literal);
    kl_context *ctx = kl_context_create();
    kl_program *program = emit_parse(ctx, "fold.cl", source, strlen(source), NULL, true);
    const char *out = program ? kl_emit_cuda(ctx, program, false) : NULL;
    char want[64];
    snprintf(want, sizeof want, "= _cl_hb(%s))", cases[i].bits);
    if (!out || !strstr(out, want)) {
      printf("  %s should fold to %s: %s\n", cases[i].literal, cases[i].bits,
             out ? strstr(out, "p)[0]") : kl_diagnostics_text(ctx));
      CHECK(false);
    }
    kl_context_destroy(ctx);
  }
}

/* ------------------------------------------- the HIP prelude on the host */

static bool run_command(const char *command) {
  int status = system(command);
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void print_file(const char *path) {
  size_t length = 0;
  char *text = emit_read_file(path, &length);
  if (text) printf("%.4000s\n", text);
  free(text);
}

/* The HIP prelude compiled by the host C++ compiler ($CXX, else c++) with a
 * shim for the device intrinsics, its conversions and half arithmetic
 * checked against exact references. Needs a compiler with _Float16. */
static void hip_prelude_semantics_on_the_host(void) {
  const char *cxx = getenv("CXX") && getenv("CXX")[0] ? getenv("CXX") : "c++";
  char dir[] = "/tmp/agpu_prelude_XXXXXX";
  if (!mkdtemp(dir)) SKIP("cannot make a temporary directory");
  char path[512], command[4096];
  snprintf(path, sizeof path, "%s/probe.cpp", dir);
  emit_write_file(path,
                  "int main() { _Float16 h = (_Float16)1.5f; return __builtin_bit_cast(unsigned "
                  "short, h) != 0x3e00; }\n");
  snprintf(command, sizeof command,
           "cd %s && %s -std=c++17 probe.cpp -o probe >probe.log 2>&1 && ./probe", dir, cxx);
  if (!run_command(command)) {
    snprintf(command, sizeof command, "rm -rf %s", dir);
    run_command(command);
    SKIP("the host C++ compiler '%s' has no _Float16", cxx);
  }
  char *prelude = malloc(1 << 20);
  snprintf(prelude, 1 << 20, "%s%s%s%s", kl_cuda_prelude_types, kl_cuda_prelude_hip,
           kl_cuda_prelude_half, kl_cuda_prelude_body);
  snprintf(path, sizeof path, "%s/prelude.h", dir);
  CHECK(emit_write_file(path, prelude));
  free(prelude);
  const char *tests = AGPU_KERNELS_DIR "/..";
  double start = seconds();
  snprintf(command, sizeof command,
           "cd %s && %s -std=c++17 -O1 -frounding-math -include %s/cuda_prelude_host_shim.h "
           "-include prelude.h "
           "%s/cuda_prelude_host_check.cpp -o check >build.log 2>&1",
           dir, cxx, tests, tests);
  bool built = run_command(command);
  double built_at = seconds();
  if (!built) {
    printf("  %s could not compile the HIP prelude:\n", cxx);
    snprintf(path, sizeof path, "%s/build.log", dir);
    print_file(path);
  }
  CHECK(built);
  if (built) {
    long seed = (long)time(NULL);
    snprintf(command, sizeof command, "cd %s && ./check %ld >run.log 2>&1", dir, seed);
    bool passed = run_command(command);
    snprintf(path, sizeof path, "%s/run.log", dir);
    if (!passed) {
      printf("  seed %ld:\n", seed);
      print_file(path);
    } else
      printf("  compiled by %s in %.1f s, checked (seed %ld) in %.1f s\n", cxx, built_at - start,
             seed, seconds() - built_at);
    CHECK(passed);
  }
  snprintf(command, sizeof command, "rm -rf %s", dir);
  run_command(command);
}

int main(void) {
  RUN(corpus_compiles_with_nvrtc);
  RUN(tricky_compiles_with_nvrtc);
  RUN(half_compiles_with_nvrtc);
  RUN(names_compile_with_nvrtc);
  RUN(half_constants_fold_to_their_bits);
  RUN(corpus_compiles_with_hiprtc);
  RUN(tricky_compiles_with_hiprtc);
  RUN(half_compiles_with_hiprtc);
  RUN(names_compile_with_hiprtc);
  RUN(hip_prelude_semantics_on_the_host);
  return agpu_test_finish();
}
