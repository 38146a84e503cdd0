// SPDX-License-Identifier: Apache-2.0
/* The HIP backend's hiprtc compile routine (agpu_hip_compile,
 * backends/hip/hip_compile.c), run for real through its child process:
 * translated corpus kernels compile for gfx90a and gfx1030 to code objects;
 * a compile error comes back with hiprtc's log; a target that crashes this
 * hiprtc (gfx942 on ROCm 5.2) gives an error naming the signal while this
 * process lives on; a compile past its deadline is killed; compiles from two
 * threads at once both work; agpu_program_build's device-free part
 * (agpu_hip_build_code) translates, describes the kernels, compiles and
 * keeps the code object in the kernel cache. No GPU is needed. */
#include <pthread.h>
#include <time.h>

#include "agpu_test.h"
#include "emit_common.h"
#include "gpu_refusal_sources.h"
#include "hip_internal.h"

static const agpu_hiprtc_api *rtc;
static char rtc_why[512];

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define REQUIRE_HIPRTC() \
  if (!rtc) SKIP("%s", rtc_why)

/* A corpus kernel translated to HIP C++ (in ctx), or NULL. */
static const char *translate(kl_context *ctx, const emit_source *source) {
  kl_program *program = emit_parse(ctx, source->name, source->text, source->length, source->options,
                                   source->needs_fp16);
  return program ? kl_emit_cuda(ctx, program, true) : NULL;
}

static void corpus_kernels_compile_to_code_objects(void) {
  REQUIRE_HIPRTC();
  int count = 0;
  emit_source *sources = emit_corpus(&count);
  if (count == 0) SKIP("no corpus in %s/valid", AGPU_KERNELS_DIR);
  /* A handful spread over the corpus (test_emit_cuda compiles all of it). */
  static const char *const arches[] = {"gfx90a", "gfx1030"};
  int compiled = 0;
  double start = seconds();
  for (int i = 0; i<count; i += count / 4> 0 ? count / 4 : 1) {
    kl_context *ctx = kl_context_create();
    const char *hip = translate(ctx, &sources[i]);
    CHECK(hip != NULL);
    for (size_t a = 0; hip && a < sizeof arches / sizeof arches[0]; a++) {
      agpu_hip_code code;
      agpu_status status = agpu_hip_compile(rtc, hip, sources[i].name, arches[a], 0, &code);
      if (status != AGPU_SUCCESS)
        printf("  %s for %s: %s\n", sources[i].name, arches[a], agpu_last_error());
      CHECK(status == AGPU_SUCCESS);
      CHECK(code.code && agpu_hip_is_code_object(code.code, code.code_size));
      CHECK(!code.code ||
            memcmp(code.code,
                   "\x7f"
                   "ELF",
                   4) == 0 ||
            memcmp(code.code, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0);
      compiled += status == AGPU_SUCCESS;
      agpu_hip_code_free(&code);
    }
    kl_context_destroy(ctx);
  }
  printf("  %d compiles (%s, %s) of corpus kernels through the child process in %.1f s with %s\n",
         compiled, arches[0], arches[1], seconds() - start, rtc->library_name);
  CHECK(compiled >= 8);
  emit_free_corpus(sources, count);
}

/* #pragma OPENCL FP_CONTRACT OFF becomes clang's own pragma, which hiprtc takes. */
static void fp_contract_off_compiles(void) {
  REQUIRE_HIPRTC();
  static const char text[] =
      "#pragma OPENCL FP_CONTRACT OFF\n"
      "__kernel void saxpy(__global const float *x, __global float *y, float a) {\n"
      "  size_t i = get_global_id(0);\n"
      "  y[i] = a * x[i] + y[i];\n"
      "}\n";
  kl_context *ctx = kl_context_create();
  emit_source source = {.name = "saxpy.cl", .text = (char *)text, .length = sizeof text - 1};
  const char *hip = translate(ctx, &source);
  CHECK(hip && strstr(hip, "#pragma clang fp contract(off)") != NULL);
  agpu_hip_code code;
  if (hip) CHECK_OK(agpu_hip_compile(rtc, hip, "saxpy.hip", "gfx90a", 0, &code));
  if (hip) agpu_hip_code_free(&code);
  kl_context_destroy(ctx);
}

static void compile_error_returns_the_log(void) {
  REQUIRE_HIPRTC();
  static const char source[] =
      "extern \"C\" __global__ void broken(int *p) { p[0] = no_such_function(p); }\n";
  agpu_hip_code code;
  CHECK_STATUS(agpu_hip_compile(rtc, source, "broken.hip", "gfx90a", 0, &code),
               AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE("hiprtc could not compile broken.hip for gfx90a");
  CHECK_MESSAGE("(6)"); /* HIPRTC_ERROR_COMPILATION */
  CHECK_MESSAGE("no_such_function");
  CHECK(code.code == NULL && code.code_size == 0);
  CHECK(code.log && strstr(code.log, "no_such_function"));
  agpu_hip_code_free(&code);
}

/* ROCm 5.2's hiprtc dies of SIGSEGV on gfx942; a newer one may compile it. */
static void crashing_target_is_a_clean_error(void) {
  REQUIRE_HIPRTC();
  static const char source[] = "extern \"C\" __global__ void fine(int *p) { p[0] = 1; }\n";
  agpu_hip_code code;
  agpu_status status = agpu_hip_compile(rtc, source, "fine.hip", "gfx942", 0, &code);
  if (status == AGPU_SUCCESS) {
    printf("  this hiprtc (%s %s) compiles gfx942\n", rtc->library_name, rtc->version);
    CHECK(agpu_hip_is_code_object(code.code, code.code_size));
  } else {
    printf("  %.300s\n", agpu_last_error());
    CHECK(status == AGPU_ERROR_BUILD_FAILED);
    CHECK_MESSAGE("hiprtc crashed (SIG");
    CHECK_MESSAGE("compiling fine.hip for gfx942");
    CHECK_MESSAGE("does not support that target");
  }
  agpu_hip_code_free(&code);
  /* this process is still here, and hiprtc still works in the next child */
  CHECK_OK(agpu_hip_compile(rtc, source, "fine.hip", "gfx90a", 0, &code));
  agpu_hip_code_free(&code);
}

static void compile_past_its_deadline_is_killed(void) {
  REQUIRE_HIPRTC();
  static const char source[] = "extern \"C\" __global__ void slow(int *p) { p[0] = 1; }\n";
  agpu_hip_code code;
  double start = seconds();
  /* hiprtc takes far longer than 20 ms to start a compile */
  CHECK_STATUS(agpu_hip_compile(rtc, source, "slow.hip", "gfx90a", 20, &code),
               AGPU_ERROR_BUILD_FAILED);
  double took = seconds() - start;
  CHECK_MESSAGE("hiprtc did not finish compiling slow.hip for gfx90a within 0.0 s");
  CHECK_MESSAGE("ANYGPU_HIPRTC_TIMEOUT_S");
  CHECK(took < 5.0);
  CHECK(code.code == NULL);
  agpu_hip_code_free(&code);
}

typedef struct compile_job {
  const char *arch;
  agpu_status status;
  size_t size;
  char error[2048]; /* the message of a failed compile, for the log */
} compile_job;

static void *compile_on_thread(void *argument) {
  compile_job *job = argument;
  static const char source[] =
      "extern \"C\" __global__ void twice(float *p) { p[threadIdx.x] *= 2.0f; }\n";
  agpu_hip_code code;
  job->status = agpu_hip_compile(rtc, source, "twice.hip", job->arch, 0, &code);
  if (job->status != AGPU_SUCCESS) snprintf(job->error, sizeof job->error, "%s", agpu_last_error());
  job->size = code.code_size;
  agpu_hip_code_free(&code);
  return NULL;
}

/* fork from a process with other threads running (see hip_compile.c). */
static void compiles_from_two_threads(void) {
  REQUIRE_HIPRTC();
  compile_job jobs[2] = {{.arch = "gfx90a"}, {.arch = "gfx1030"}};
  pthread_t threads[2];
  for (int i = 0; i < 2; i++)
    CHECK(pthread_create(&threads[i], NULL, compile_on_thread, &jobs[i]) == 0);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  for (int i = 0; i < 2; i++) {
    if (jobs[i].status != AGPU_SUCCESS) printf("  %s: %s\n", jobs[i].arch, jobs[i].error);
    CHECK(jobs[i].status == AGPU_SUCCESS);
    CHECK(jobs[i].size > 0);
  }
}

static const char program_source[] =
    "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
    "void scaled(__global float *out, __global const float *in, float4 p, __local float *tile) {\n"
    "  size_t i = get_global_id(0);\n"
    "  tile[get_local_id(0)] = in[i] * p.x * SCALE;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[i] = tile[63 - get_local_id(0)] + p.w;\n"
    "}\n"
    "__kernel void plain(__global int *x, uint n) { if (get_global_id(0) < n) x[0] = (int)n; }\n";

static agpu_status build(const agpu_hip_build_target *target, const char *source, const char *name,
                         const char *options, agpu_hip_built *built) {
  agpu_program_desc desc = {.source = source, .source_name = name, .options = options};
  return agpu_hip_build_code(rtc, target, &desc, built);
}

/* gfx90a with 64 KiB of LDS, for agpu_hip_build_code. */
static agpu_hip_build_target test_target(void) {
  return (agpu_hip_build_target){.arch = "gfx90a",
                                 .selector = "hip:test",
                                 .device_name = "test GPU",
                                 .driver_version = "5.2.0",
                                 .runtime_version = 50200000,
                                 .fp64 = true,
                                 .int64 = true,
                                 .local_mem_bytes = 65536};
}

/* The kernel cache directory a test made, and ANYGPU_CACHE_DIR, gone. */
static void drop_cache_dir(const char *directory) {
  unsetenv("ANYGPU_CACHE_DIR");
  char command[128];
  snprintf(command, sizeof command, "rm -rf '%s'", directory);
  CHECK(system(command) == 0);
}

/* agpu_program_build's device-free part: translation, signatures, hiprtc and
 * the kernel cache (in a directory of its own). */
static void program_build_translates_compiles_and_caches(void) {
  REQUIRE_HIPRTC();
  char directory[] = "/tmp/anygpu-hip-cache-XXXXXX";
  if (!mkdtemp(directory)) SKIP("mkdtemp failed");
  setenv("ANYGPU_CACHE_DIR", directory, 1);
  agpu_hip_build_target target = {.arch = "gfx90a",
                                  .selector = "hip:test",
                                  .device_name = "test GPU",
                                  .driver_version = "5.2.0",
                                  .runtime_version = 50200000,
                                  .fp64 = true,
                                  .fp16 = true,
                                  .int64 = true,
                                  .local_mem_bytes = 65536};
  agpu_hip_built first, again, other;
  CHECK_OK(build(&target, program_source, "scaled.cl", "-DSCALE=3", &first));
  CHECK(!first.from_cache && agpu_hip_is_code_object(first.code, first.code_size));
  CHECK(first.program && first.program->kernel_count == 2);
  if (first.program && first.program->kernel_count == 2) {
    const agpu_hip_kernel_entry *k = &first.program->kernels[0];
    CHECK(strcmp(k->name, "scaled") == 0 && k->param_count == 4);
    CHECK(k->has_required_work_group_size && k->required_work_group_size[0] == 64);
    CHECK(k->params[0].kind == AGPU_PARAM_GLOBAL_BUFFER && !k->params[0].is_const);
    CHECK(k->params[1].kind == AGPU_PARAM_GLOBAL_BUFFER && k->params[1].is_const);
    CHECK(k->params[2].kind == AGPU_PARAM_SCALAR && k->params[2].size == 16);
    CHECK(k->params[3].kind == AGPU_PARAM_LOCAL && strcmp(k->params[3].name, "tile") == 0);
    const agpu_hip_kernel_entry *plain = &first.program->kernels[1];
    CHECK(strcmp(plain->name, "plain") == 0 && plain->param_count == 2);
    CHECK(plain->params[1].kind == AGPU_PARAM_SCALAR && plain->params[1].size == 4);
  }
  /* the same build again comes from the cache, byte for byte */
  CHECK_OK(build(&target, program_source, "scaled.cl", "-DSCALE=3", &again));
  CHECK(again.from_cache && again.code_size == first.code_size);
  CHECK(again.code && first.code && memcmp(again.code, first.code, first.code_size) == 0);
  /* other options, or another target, are another entry */
  CHECK_OK(build(&target, program_source, "scaled.cl", "-DSCALE=4", &other));
  CHECK(!other.from_cache);
  agpu_hip_built_free(&other);
  target.arch = "gfx1030";
  CHECK_OK(build(&target, program_source, "scaled.cl", "-DSCALE=3", &other));
  CHECK(!other.from_cache && other.code_size > 0);
  agpu_hip_built_free(&other);
  agpu_hip_built_free(&first);
  agpu_hip_built_free(&again);

  /* errors: the source's, and a kernel that needs more shared memory */
  CHECK_STATUS(build(&target, "__kernel void bad(__global int *p) {\n  p[0] = nope;\n}\n", "bad.cl",
                     NULL, &other),
               AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE("bad.cl:2:");
  CHECK(other.log && strstr(other.log, "nope"));
  agpu_hip_built_free(&other);
  target.local_mem_bytes = 1024;
  CHECK_STATUS(build(&target,
                     "__kernel void big(__global float *p) {\n  __local float t[1024];\n"
                     "  t[get_local_id(0)] = 1.0f;\n  barrier(CLK_LOCAL_MEM_FENCE);\n"
                     "  p[0] = t[1];\n}\n",
                     "big.cl", NULL, &other),
               AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("kernel 'big' needs 4096 bytes of shared memory");
  agpu_hip_built_free(&other);
  drop_cache_dir(directory);
}

/* A program with kernels the HIP target cannot express (issue 18): the
 * others go to hiprtc and make a code object; each one left out comes back
 * with its reason for the program's build log; `anygpu compile --target
 * hip` (agpu_translate) lists them; a program of refused kernels fails. */
static void refused_kernels_are_left_out(void) {
  agpu_translate_desc desc = {
      .source = gpu_refusal_mixed, .source_name = "mixed.cl", .target = AGPU_TARGET_HIP};
  agpu_translation *translation = NULL;
  CHECK_OK(agpu_translate(&desc, &translation));
  const char *hip = agpu_translation_output(translation);
  const char *notes = agpu_translation_diagnostics(translation);
  CHECK(strstr(hip, "void twice(") && strstr(hip, "void plus(") && strstr(hip, "void cbrtf("));
  CHECK(!strstr(hip, "void class(") && !strstr(hip, "void vshift("));
  CHECK(strstr(notes, "mixed.cl:5:15: error: the HIP target does not support a kernel named"));
  CHECK(strstr(notes, "warning: kernel 'class' is left out of the hip output"));
  CHECK(strstr(notes, "warning: kernel 'vshift' is left out of the hip output"));
  CHECK(!strstr(notes, "'cbrtf' is left out"));
  agpu_translation_release(translation);
  REQUIRE_HIPRTC();
  char directory[] = "/tmp/anygpu-hip-refusal-XXXXXX";
  if (!mkdtemp(directory)) SKIP("mkdtemp failed");
  setenv("ANYGPU_CACHE_DIR", directory, 1);
  agpu_hip_build_target target = test_target();
  agpu_hip_built built;
  CHECK_OK(build(&target, gpu_refusal_mixed, "mixed.cl", NULL, &built));
  CHECK(built.code && agpu_hip_is_code_object(built.code, built.code_size));
  const agpu_kernel_refusal *r = built.refused;
  CHECK(r && strcmp(r->kernel, "class") == 0 && r->status == AGPU_ERROR_UNSUPPORTED);
  CHECK(r && strstr(r->message,
                    "the HIP emitter cannot translate this kernel (kernel 'class') "
                    "for hip:test:\nmixed.cl:5:15: error:"));
  r = r ? r->next : NULL;
  CHECK(r && strcmp(r->kernel, "vshift") == 0 && strstr(r->message, "mixed.cl:7:23: error:"));
  CHECK(r && r->next == NULL);
  agpu_hip_built_free(&built);
  CHECK_STATUS(build(&target, gpu_refusal_none_left, "none.cl", NULL, &built),
               AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("(kernel 'class') for hip:test");
  CHECK(built.refused == NULL);
  agpu_hip_built_free(&built);
  drop_cache_dir(directory);
}

/* A kernel past the LDS of a gfx target fails the whole program in hiprtc
 * (why the emitter refuses it alone). */
static void too_much_lds_fails_in_hiprtc(void) {
  static const char source[] =
      "extern \"C\" __global__ void huge(float *out) {\n"
      "  __shared__ float scratch[17000];\n"
      "  scratch[threadIdx.x] = 1.0f;\n"
      "  __syncthreads();\n"
      "  out[threadIdx.x] = scratch[threadIdx.x ^ 1u];\n"
      "}\n";
  agpu_hip_code code;
  CHECK_STATUS(agpu_hip_compile(rtc, source, "huge.hip", "gfx90a", 0, &code),
               AGPU_ERROR_BUILD_FAILED);
  if (code.log) printf("  hiprtc: %.200s\n", code.log);
  agpu_hip_code_free(&code);
}

/* The refusals of agpu_hip_build_code for gpu_refusal_helpers on a device
 * with `lds` bytes of shared memory: 'uses_bad' and 'huge', and 'mid' where
 * it does not fit. */
static void check_helper_refusals(const agpu_hip_built *built, uint64_t lds) {
  static const char *const kernels[] = {"uses_bad", "huge", "mid"};
  char why[3][256];
  snprintf(why[0], 256,
           "(kernel 'uses_bad') for hip:test:\nhelpers.cl:8:15: error: kernel 'uses_bad' calls "
           "'outer', which calls 'inner', which the HIP target cannot translate");
  snprintf(why[1], 256,
           "(kernel 'huge') for hip:test:\nhelpers.cl:9:15: error: kernel 'huge' needs 68000 "
           "bytes of shared memory for its __local arrays; the HIP target allows %llu",
           (unsigned long long)lds);
  snprintf(why[2], 256,
           "kernel 'mid' needs 51200 bytes of shared memory for its __local "
           "arrays; the HIP target allows %llu",
           (unsigned long long)lds);
  int expected = lds < 51200 ? 3 : 2;
  const agpu_kernel_refusal *r = built->refused;
  for (int i = 0; i < expected; i++, r = r ? r->next : NULL) {
    CHECK(r && strcmp(r->kernel, kernels[i]) == 0 && r->status == AGPU_ERROR_UNSUPPORTED);
    CHECK(r && strstr(r->message, why[i]));
    if (r && !strstr(r->message, why[i])) printf("  %s\n", r->message);
  }
  CHECK(r == NULL);
  CHECK(built->refused && strstr(built->refused->message,
                                 "helpers.cl:2:46: error: the HIP target does not support this "
                                 "compound assignment through a volatile vector pointer"));
  CHECK(built->code && agpu_hip_is_code_object(built->code, built->code_size));
  CHECK(built->program && built->program->kernel_count == 4);
}

/* A helper the HIP target cannot translate refuses only the kernels that
 * reach it (here through a second helper), a kernel past the device's LDS
 * is refused alone, and the rest compiles with hiprtc (issue 18). */
static void helpers_and_shared_memory_refuse_their_kernels(void) {
  agpu_translate_desc desc = {
      .source = gpu_refusal_helpers, .source_name = "helpers.cl", .target = AGPU_TARGET_HIP};
  agpu_translation *translation = NULL;
  CHECK_OK(agpu_translate(&desc, &translation));
  if (translation)
    CHECK(gpu_refusal_helpers_translated(true, agpu_translation_output(translation),
                                         agpu_translation_diagnostics(translation)));
  agpu_translation_release(translation);
  REQUIRE_HIPRTC();
  too_much_lds_fails_in_hiprtc();
  char directory[] = "/tmp/anygpu-hip-helpers-XXXXXX";
  if (!mkdtemp(directory)) SKIP("mkdtemp failed");
  setenv("ANYGPU_CACHE_DIR", directory, 1);
  agpu_hip_build_target target = test_target();
  static const uint64_t lds[] = {65536, 49152};
  for (int i = 0; i < 2; i++) {
    target.local_mem_bytes = lds[i];
    agpu_hip_built built;
    agpu_status status = build(&target, gpu_refusal_helpers, "helpers.cl", NULL, &built);
    if (status != AGPU_SUCCESS) printf("  %s\n", agpu_last_error());
    CHECK_OK(status);
    if (status == AGPU_SUCCESS) check_helper_refusals(&built, lds[i]);
    agpu_hip_built_free(&built);
  }
  drop_cache_dir(directory);
}

static void free_kernels(agpu_hip_program *hp) {
  for (uint32_t i = 0; i < hp->kernel_count; i++) free(hp->kernels[i].params);
  free(hp->kernels);
  memset(hp, 0, sizeof *hp);
}

static const agpu_hip_kernel_entry *find_kernel(const agpu_hip_program *hp, const char *name) {
  for (uint32_t i = 0; i < hp->kernel_count; i++)
    if (strcmp(hp->kernels[i].name, name) == 0) return &hp->kernels[i];
  return NULL;
}

/* What the translated kernels' metadata must say (kernels/cuda_abi.h: the
 * __local pointer is a 4-byte offset, the launch info 32 bytes at the end). */
static void check_translated_kernels(const agpu_hip_program *hp) {
  CHECK(hp->kernel_count == 2);
  const agpu_hip_kernel_entry *k = find_kernel(hp, "scaled");
  CHECK(k != NULL);
  if (k) {
    static const uint32_t sizes[] = {0, 0, 16, 4, 32};
    CHECK(k->native_abi && k->param_count == 5);
    for (uint32_t i = 0; i < k->param_count && i < 5; i++) {
      CHECK(k->params[i].kind == (i < 2 ? AGPU_PARAM_GLOBAL_BUFFER : AGPU_PARAM_SCALAR));
      CHECK(k->params[i].size == sizes[i]);
    }
    /* HIP's __launch_bounds__ sets the maximum, not a required size */
    CHECK(!k->has_required_work_group_size);
    CHECK(k->max_work_group_size == 64);
  }
  const agpu_hip_kernel_entry *plain = find_kernel(hp, "plain");
  CHECK(plain && plain->param_count == 3 && !plain->has_required_work_group_size);
  if (plain && plain->param_count == 3) CHECK(plain->params[1].size == 4);
}

static void put_le(uint8_t *at, uint64_t value) {
  for (int i = 0; i < 8; i++) at[i] = (uint8_t)(value >> (8 * i));
}

/* A clang offload bundle of a host entry and one amdgcn entry. */
static uint8_t *make_bundle(const void *elf, size_t elf_size, const char *triple, size_t *size) {
  static const char host[] = "host-x86_64-unknown-linux";
  size_t header = 24 + 8 + 2 * 24 + strlen(host) + strlen(triple);
  uint8_t *bundle = calloc(1, header + elf_size);
  if (!bundle) return NULL;
  memcpy(bundle, "__CLANG_OFFLOAD_BUNDLE__", 24);
  put_le(bundle + 24, 2);
  size_t at = 32;
  put_le(bundle + at, header), put_le(bundle + at + 8, 0), put_le(bundle + at + 16, strlen(host));
  memcpy(bundle + at + 24, host, strlen(host));
  at += 24 + strlen(host);
  put_le(bundle + at, header), put_le(bundle + at + 8, elf_size);
  put_le(bundle + at + 16, strlen(triple));
  memcpy(bundle + at + 24, triple, strlen(triple));
  memcpy(bundle + header, elf, elf_size);
  *size = header + elf_size;
  return bundle;
}

/* Native code objects: the kernels' signatures from their metadata note, in
 * an ELF or in an offload bundle; damaged input is refused, never read past. */
static void native_code_object_metadata_is_read(void) {
  REQUIRE_HIPRTC();
  agpu_hip_build_target target = {.arch = "gfx90a",
                                  .selector = "hip:test",
                                  .device_name = "test GPU",
                                  .driver_version = "5.2.0",
                                  .fp64 = true,
                                  .int64 = true};
  agpu_hip_built built;
  CHECK_OK(build(&target, program_source, "scaled.cl", "-DSCALE=2", &built));
  if (!built.code) return agpu_hip_built_free(&built);
  agpu_hip_program hp = {0};
  CHECK_OK(agpu_hip_read_metadata(built.code, built.code_size, "gfx90a", &hp));
  check_translated_kernels(&hp);
  free_kernels(&hp);

  size_t bundle_size = 0;
  uint8_t *bundle =
      make_bundle(built.code, built.code_size, "hipv4-amdgcn-amd-amdhsa--gfx90a", &bundle_size);
  CHECK(bundle && agpu_hip_is_code_object(bundle, bundle_size));
  CHECK_OK(agpu_hip_read_metadata(bundle, bundle_size, "gfx90a", &hp));
  check_translated_kernels(&hp);
  free_kernels(&hp);
  CHECK_OK(agpu_hip_read_metadata(bundle, bundle_size, "gfx1030", &hp)); /* the only amdgcn one */
  check_translated_kernels(&hp);
  free_kernels(&hp);

  /* every prefix of the ELF and of the bundle is refused cleanly */
  int refused = 0, tries = 0;
  for (size_t cut = 0; cut < built.code_size; cut += 61, tries++) {
    refused += agpu_hip_read_metadata(built.code, cut, "gfx90a", &hp) != AGPU_SUCCESS;
    free_kernels(&hp);
    refused += agpu_hip_read_metadata(bundle, cut, "gfx90a", &hp) != AGPU_SUCCESS;
    free_kernels(&hp);
  }
  CHECK(refused == 2 * tries);
  /* a damaged note: its MessagePack made of never-used bytes (0xc1) */
  uint8_t *damaged = malloc(built.code_size);
  if (damaged) {
    memcpy(damaged, built.code, built.code_size);
    uint8_t *note = memmem(damaged, built.code_size, "amdhsa.kernels", 14);
    CHECK(note != NULL);
    if (note) memset(note - 1, 0xc1, 32);
    CHECK_STATUS(agpu_hip_read_metadata(damaged, built.code_size, "gfx90a", &hp),
                 AGPU_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("metadata");
    free_kernels(&hp);
  }
  free(damaged);
  free(bundle);
  agpu_hip_built_free(&built);
}

static void peak_table_and_arch_names(void) {
  char arch[32];
  agpu_hip_base_arch("gfx90a:sramecc+:xnack-", arch, sizeof arch);
  CHECK(strcmp(arch, "gfx90a") == 0);
  agpu_hip_base_arch("gfx1100", arch, sizeof arch);
  CHECK(strcmp(arch, "gfx1100") == 0);
  CHECK(agpu_hip_fp32_lanes_per_cu("gfx90a") == 128);
  CHECK(agpu_hip_fp32_lanes_per_cu("gfx942") == 128);
  CHECK(agpu_hip_fp32_lanes_per_cu("gfx908") == 64);
  CHECK(agpu_hip_fp32_lanes_per_cu("gfx906") == 64);
  CHECK(agpu_hip_fp32_lanes_per_cu("gfx1030") == 64);
  CHECK(agpu_hip_fp32_lanes_per_cu("gfx1100") == 128);
  CHECK(agpu_hip_fp32_lanes_per_cu("gfx1201") == 128);
  CHECK(agpu_hip_fp32_lanes_per_cu("gfx700") == 0);
  /* MI250X (one GCD): 110 CUs at 1700 MHz, 128 lanes, FMA as 2: 47.9 TFLOP/s */
  CHECK((int)(110 * agpu_hip_fp32_lanes_per_cu("gfx90a") * 2.0 * 1700e6 / 1e9) == 47872);
}

int main(void) {
  rtc = agpu_hiprtc_get(NULL, rtc_why, sizeof rtc_why);
  RUN(corpus_kernels_compile_to_code_objects);
  RUN(fp_contract_off_compiles);
  RUN(compile_error_returns_the_log);
  RUN(crashing_target_is_a_clean_error);
  RUN(compile_past_its_deadline_is_killed);
  RUN(compiles_from_two_threads);
  RUN(program_build_translates_compiles_and_caches);
  RUN(refused_kernels_are_left_out);
  RUN(helpers_and_shared_memory_refuse_their_kernels);
  RUN(native_code_object_metadata_is_read);
  RUN(peak_table_and_arch_names);
  return agpu_test_finish();
}
