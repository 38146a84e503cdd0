// SPDX-License-Identifier: Apache-2.0
/* The CUDA backend's NVRTC step (agpu_cuda_compile, backends/cuda), for real:
 * translated corpus kernels to a cubin for sm_90, an architecture NVRTC does
 * not know to PTX, a compile error to a status and NVRTC's log.
 *
 * With --files F.cu...: compiles each file (the output of `anygpu compile
 * --target cuda`) for sm_90 as a cubin, two at a time, for
 * tests/test_cuda_cli_compile.py. */
#include <pthread.h>

#include "agpu_parsed.h"
#include "agpu_test.h"
#include "cuda_internal.h"
#include "emit_common.h"
#include "gpu_refusal_sources.h"

enum { EM_CUDA = 190 };

/* NVRTC, or skip the case. */
#define REQUIRE_NVRTC(nvrtc)                                 \
  const char *why_ = NULL;                                   \
  const agpu_cuda_nvrtc *nvrtc = agpu_cuda_nvrtc_get(&why_); \
  if (!nvrtc) SKIP("NVRTC not found: %s", why_)

static uint16_t read_u16(const unsigned char *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t read_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A 64-bit little-endian CUDA ELF whose flags name sm_<cc>: the SM number
 * sits in the low byte (older cubins) or the next one (CUDA 12.8+). */
static bool is_cubin_for(const agpu_cuda_binary *binary, int cc, char *why, size_t cap) {
  const unsigned char *b = (const unsigned char *)binary->data;
  if (!binary->cubin || binary->size < 64 || memcmp(b, "\177ELF", 4) != 0) {
    snprintf(why, cap, "no ELF header (%zu bytes)", binary->size);
    return false;
  }
  uint16_t machine = read_u16(b + 18);
  uint32_t flags = read_u32(b + 48);
  if (b[4] != 2 || b[5] != 1 || machine != EM_CUDA) {
    snprintf(why, cap, "ELF class %u, data %u, machine %u (not EM_CUDA)", b[4], b[5], machine);
    return false;
  }
  if ((int)(flags & 0xff) != cc && (int)((flags >> 8) & 0xff) != cc) {
    snprintf(why, cap, "e_flags 0x%08x names no sm_%d", flags, cc);
    return false;
  }
  return true;
}

static const char *translate(kl_context *ctx, const emit_source *source) {
  kl_program *program = emit_parse(ctx, source->name, source->text, source->length, source->options,
                                   source->needs_fp16);
  const char *cuda = program ? kl_emit_cuda(ctx, program, false) : NULL;
  if (!cuda) printf("  %s:\n%s\n", source->name, kl_diagnostics_text(ctx));
  return cuda;
}

static void nvrtc_is_found(void) {
  REQUIRE_NVRTC(nvrtc);
  printf("  NVRTC %d.%d at %s; architectures:", nvrtc->major, nvrtc->minor, nvrtc->path);
  for (int i = 0; i < nvrtc->arch_count; i++) printf(" %d", nvrtc->arches[i]);
  printf("\n");
  CHECK(nvrtc->major >= 11);
  CHECK(nvrtc->path[0] != '\0');
}

/* The choice on made-up lists: exact cubin, else the newest PTX below. */
static void target_choice(void) {
  agpu_cuda_nvrtc fake;
  memset(&fake, 0, sizeof fake);
  fake.major = 12;
  fake.arch_count = 3;
  fake.arches[0] = 75;
  fake.arches[1] = 80;
  fake.arches[2] = 90;
  fake.nvrtcGetCUBIN = (agpu_nvrtc_pfn_nvrtcGetCUBIN)1; /* present; never called */
  char target[32];
  bool cubin = false;
  CHECK(agpu_cuda_choose_target(&fake, 90, false, target, sizeof target, &cubin));
  CHECK(cubin && strcmp(target, "sm_90") == 0);
  CHECK(agpu_cuda_choose_target(&fake, 86, false, target, sizeof target, &cubin));
  CHECK(!cubin && strcmp(target, "compute_80") == 0);
  CHECK(agpu_cuda_choose_target(&fake, 120, false, target, sizeof target, &cubin));
  CHECK(!cubin && strcmp(target, "compute_90") == 0);
  CHECK(agpu_cuda_choose_target(&fake, 90, true, target, sizeof target, &cubin));
  CHECK(!cubin && strcmp(target, "compute_90") == 0);
  CHECK(!agpu_cuda_choose_target(&fake, 70, false, target, sizeof target, &cubin));
  CHECK(strstr(target, "sm_70") != NULL);
}

/* A few corpus kernels (local memory, fp64, atomics, structs among them). */
static void corpus_kernels_give_sm90_cubins(void) {
  REQUIRE_NVRTC(nvrtc);
  int count = 0;
  emit_source *sources = emit_corpus(&count);
  CHECK(count > 0);
  int compiled = 0;
  for (int i = 0; i < count && compiled < 4; i += count / 4 ? count / 4 : 1) {
    kl_context *ctx = kl_context_create();
    const char *cuda = translate(ctx, &sources[i]);
    CHECK(cuda != NULL);
    agpu_cuda_binary binary;
    agpu_status status =
        cuda ? agpu_cuda_compile(cuda, sources[i].name, 90, false, &binary) : AGPU_ERROR_INTERNAL;
    CHECK_OK(status);
    char why[128] = "";
    if (status == AGPU_SUCCESS) {
      bool ok = is_cubin_for(&binary, 90, why, sizeof why);
      CHECK(ok);
      CHECK(strcmp(binary.target, "sm_90") == 0);
      if (!ok) printf("  %s: %s\n", sources[i].name, why);
      agpu_cuda_binary_free(&binary);
    }
    kl_context_destroy(ctx);
    compiled++;
  }
  emit_free_corpus(sources, count);
}

/* An architecture past every one NVRTC lists: PTX for its newest. */
static void unknown_architecture_gives_ptx(void) {
  REQUIRE_NVRTC(nvrtc);
  if (nvrtc->arch_count == 0)
    SKIP("NVRTC %d.%d lists no architectures", nvrtc->major, nvrtc->minor);
  int newest = nvrtc->arches[nvrtc->arch_count - 1];
  const char *source = "extern \"C\" __global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }\n";
  agpu_cuda_binary binary;
  CHECK_OK(agpu_cuda_compile(source, "twice.cu", 999, false, &binary));
  char expected_target[32], expected_ptx[32];
  snprintf(expected_target, sizeof expected_target, "compute_%d", newest);
  snprintf(expected_ptx, sizeof expected_ptx, ".target sm_%d", newest);
  CHECK(!binary.cubin);
  CHECK(strcmp(binary.target, expected_target) == 0);
  CHECK(binary.data && binary.size > 1 && binary.data[binary.size - 1] == '\0');
  CHECK(binary.data && strstr(binary.data, ".entry twice") != NULL);
  CHECK(binary.data && strstr(binary.data, expected_ptx) != NULL);
  agpu_cuda_binary_free(&binary);
  /* And one older than every one it lists is refused, naming the range. */
  CHECK_STATUS(agpu_cuda_compile(source, "twice.cu", 10, false, &binary), AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("cannot compile for sm_10");
  CHECK(binary.data == NULL);
  agpu_cuda_binary_free(&binary);
}

static void forced_ptx_for_sm90(void) {
  REQUIRE_NVRTC(nvrtc);
  const char *source = "extern \"C\" __global__ void one(int *x) { x[0] = 1; }\n";
  agpu_cuda_binary binary;
  CHECK_OK(agpu_cuda_compile(source, "one.cu", 90, true, &binary));
  CHECK(!binary.cubin && strcmp(binary.target, "compute_90") == 0);
  CHECK(binary.data && strstr(binary.data, ".target sm_90") != NULL);
  agpu_cuda_binary_free(&binary);
}

/* PTX of a saxpy translated with or without #pragma OPENCL FP_CONTRACT OFF. */
static bool saxpy_ptx(bool contract_off, agpu_cuda_binary *binary) {
  static const char body[] =
      "__kernel void saxpy(__global const float *x, __global float *y, float a) {\n"
      "  size_t i = get_global_id(0);\n"
      "  y[i] = a * x[i] + y[i];\n"
      "}\n";
  char text[512];
  snprintf(text, sizeof text, "%s%s", contract_off ? "#pragma OPENCL FP_CONTRACT OFF\n" : "", body);
  kl_context *ctx = kl_context_create();
  emit_source source = {.name = "saxpy.cl", .text = text, .length = strlen(text)};
  const char *cuda = translate(ctx, &source);
  agpu_status status =
      cuda ? agpu_cuda_compile(cuda, "saxpy.cu", 90, true, binary) : AGPU_ERROR_INTERNAL;
  kl_context_destroy(ctx);
  return status == AGPU_SUCCESS && binary->data;
}

/* FP_CONTRACT OFF reaches NVRTC as --fmad=false: a multiply and an add, no fma. */
static void fp_contract_off_gives_no_fma(void) {
  REQUIRE_NVRTC(nvrtc);
  agpu_cuda_binary fused, separate;
  CHECK(saxpy_ptx(false, &fused));
  CHECK(saxpy_ptx(true, &separate));
  if (fused.data) CHECK(strstr(fused.data, "fma.rn.f32") != NULL);
  if (separate.data) {
    CHECK(strstr(separate.data, "fma.rn.f32") == NULL);
    CHECK(strstr(separate.data, "mul.rn.f32") != NULL &&
          strstr(separate.data, "add.rn.f32") != NULL);
  }
  agpu_cuda_binary_free(&fused);
  agpu_cuda_binary_free(&separate);
}

static void compile_error_gives_status_and_log(void) {
  REQUIRE_NVRTC(nvrtc);
  const char *source =
      "extern \"C\" __global__ void broken(int *x) {\n  x[0] = no_such_name_42;\n}\n";
  agpu_cuda_binary binary;
  CHECK_STATUS(agpu_cuda_compile(source, "broken.cu", 90, false, &binary), AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE("broken.cu");
  CHECK_MESSAGE("no_such_name_42");
  CHECK_MESSAGE("NVRTC_ERROR_COMPILATION");
  CHECK(binary.data == NULL && binary.size == 0);
  CHECK(binary.log && strstr(binary.log, "no_such_name_42") && strstr(binary.log, "error"));
  agpu_cuda_binary_free(&binary);
}

/* What agpu_translate made of a program with refused kernels compiles
 * with NVRTC to an sm_90 cubin (skipped, saying why, without NVRTC). */
static void compiles_to_sm90_cubin(const char *cuda, const char *name) {
  const char *why = NULL;
  if (!agpu_cuda_nvrtc_get(&why)) {
    printf("  NVRTC compile skipped: NVRTC not found: %s\n", why);
    return;
  }
  agpu_cuda_binary binary;
  agpu_status status = agpu_cuda_compile(cuda, name, 90, false, &binary);
  if (status != AGPU_SUCCESS) printf("  %s\n", agpu_last_error());
  CHECK_OK(status);
  char bad[128] = "";
  CHECK(status != AGPU_SUCCESS || is_cubin_for(&binary, 90, bad, sizeof bad));
  if (status == AGPU_SUCCESS) agpu_cuda_binary_free(&binary);
}

/* `anygpu compile --target cuda` (agpu_translate) of a program with kernels
 * the CUDA target cannot express: the others are in the output, which NVRTC
 * compiles; the diagnostics name each one left out and why (issue 18). */
static void refused_kernels_are_left_out(void) {
  agpu_translate_desc desc = {
      .source = gpu_refusal_mixed, .source_name = "mixed.cl", .target = AGPU_TARGET_CUDA};
  agpu_translation *translation = NULL;
  CHECK_OK(agpu_translate(&desc, &translation));
  if (!translation) return;
  const char *cuda = agpu_translation_output(translation);
  const char *notes = agpu_translation_diagnostics(translation);
  CHECK(strstr(cuda, "__global__ void twice(") && strstr(cuda, "__global__ void plus("));
  CHECK(!strstr(cuda, "void class(") && !strstr(cuda, "void vshift(") &&
        !strstr(cuda, "void cbrtf("));
  static const char *const expected[] = {
      "mixed.cl:5:15: error: the CUDA target does not support a kernel named 'class'",
      "mixed.cl:7:23: error: the CUDA target does not support this compound assignment",
      "mixed.cl:9:15: error: the CUDA target does not support a kernel named 'cbrtf'",
      "warning: kernel 'class' is left out of the cuda output",
      "warning: kernel 'vshift' is left out of the cuda output",
      "warning: kernel 'cbrtf' is left out of the cuda output"};
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
    if (!strstr(notes, expected[i])) printf("  missing: %s\n  in:\n%s\n", expected[i], notes);
    CHECK(strstr(notes, expected[i]) != NULL);
  }
  compiles_to_sm90_cubin(cuda, "mixed.cu");
  agpu_translation_release(translation);
  /* nothing left to translate: an error, as before */
  desc.source = gpu_refusal_none_left;
  translation = NULL;
  CHECK_STATUS(agpu_translate(&desc, &translation), AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE("a kernel named 'class'");
  CHECK(translation == NULL);
}

/* The refusals agpu_program_build keeps for agpu_kernel_create, on a
 * device whose shared memory (232448 bytes, an H100's opt-in) is past the
 * 48 KiB that static __shared__ arrays may have. */
static void helper_refusal_messages(void) {
  agpu_program_desc desc = {.source = gpu_refusal_helpers, .source_name = "helpers.cl"};
  agpu_translate_traits traits = {.fp64 = true, .int64 = true, .local_mem_bytes = 232448};
  agpu_parsed *parsed = NULL;
  CHECK_OK(agpu_parsed_create(&desc, &traits, "cuda:test", &parsed, NULL, NULL));
  if (!parsed) return;
  char *text = NULL;
  agpu_kernel_refusal *refused = NULL;
  CHECK_OK(agpu_parsed_emit_kernels(parsed, AGPU_TARGET_CUDA, AGPU_ERROR_UNSUPPORTED,
                                    "the CUDA emitter cannot translate this kernel", &text,
                                    &refused, NULL));
  static const char *const kernels[] = {"uses_bad", "huge", "mid"};
  static const char *const why[] = {
      ("(kernel 'uses_bad') for cuda:test:\nhelpers.cl:8:15: error: kernel 'uses_bad' calls "
       "'outer', which calls 'inner', which the CUDA target cannot translate"),
      "(kernel 'huge') for cuda:test:\nhelpers.cl:9:15: error: kernel 'huge' needs 68000 bytes",
      "(kernel 'mid') for cuda:test:\nhelpers.cl:15:15: error: kernel 'mid' needs 51200 bytes"};
  const agpu_kernel_refusal *r = refused;
  for (int i = 0; i < 3; i++, r = r ? r->next : NULL) {
    CHECK(r && strcmp(r->kernel, kernels[i]) == 0 && r->status == AGPU_ERROR_UNSUPPORTED);
    CHECK(r && strstr(r->message, why[i]));
    if (r && !strstr(r->message, why[i])) printf("  %s\n", r->message);
  }
  CHECK(r == NULL);
  /* the helper's own error follows the kernel's */
  CHECK(refused && strstr(refused->message,
                          "helpers.cl:2:46: error: the CUDA target does not "
                          "support this compound assignment"));
  CHECK(text && strstr(text, "void good(") && !strstr(text, "inner("));
  agpu_kernel_refusals_free(refused);
  free(text);
  agpu_parsed_release(parsed);
}

/* A helper the CUDA target cannot translate refuses only the kernels that
 * reach it, here through a second helper; a kernel with more than 48 KiB of
 * __local arrays is refused alone; the good kernel's code goes to NVRTC and
 * makes a cubin (issue 18). */
static void helpers_and_shared_memory_refuse_their_kernels(void) {
  agpu_translate_desc desc = {
      .source = gpu_refusal_helpers, .source_name = "helpers.cl", .target = AGPU_TARGET_CUDA};
  agpu_translation *translation = NULL;
  CHECK_OK(agpu_translate(&desc, &translation));
  if (!translation) return;
  const char *cuda = agpu_translation_output(translation);
  CHECK(gpu_refusal_helpers_translated(false, cuda, agpu_translation_diagnostics(translation)));
  compiles_to_sm90_cubin(cuda, "helpers.cu");
  agpu_translation_release(translation);
  helper_refusal_messages();
}

/* ------------------------------------------------------------- --files */

typedef struct file_job {
  char **paths;
  int count;
  int next, passed, failed;
  pthread_mutex_t lock;
} file_job;

static void *compile_files(void *arg) {
  file_job *job = arg;
  for (;;) {
    pthread_mutex_lock(&job->lock);
    int i = job->next++;
    pthread_mutex_unlock(&job->lock);
    if (i >= job->count) return NULL;
    size_t length = 0;
    char *text = emit_read_file(job->paths[i], &length);
    agpu_cuda_binary binary;
    memset(&binary, 0, sizeof binary);
    char why[1024] = "unreadable";
    bool ok = false;
    if (text) {
      agpu_status status = agpu_cuda_compile(text, job->paths[i], 90, false, &binary);
      if (status != AGPU_SUCCESS)
        snprintf(why, sizeof why, "%.1000s", agpu_last_error());
      else
        ok = is_cubin_for(&binary, 90, why, sizeof why);
    }
    pthread_mutex_lock(&job->lock);
    if (ok) {
      job->passed++;
    } else {
      job->failed++;
      printf("FAIL %s: %s\n", job->paths[i], why);
    }
    pthread_mutex_unlock(&job->lock);
    agpu_cuda_binary_free(&binary);
    free(text);
  }
}

static int files_main(int count, char **paths) {
  const char *why = NULL;
  if (!agpu_cuda_nvrtc_get(&why)) {
    printf("skipped: NVRTC not found: %s\n0 passed, 0 failed, %d skipped\n", why, count);
    return 77;
  }
  file_job job = {.paths = paths, .count = count};
  pthread_mutex_init(&job.lock, NULL);
  pthread_t threads[2];
  for (int t = 0; t < 2; t++) pthread_create(&threads[t], NULL, compile_files, &job);
  for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
  pthread_mutex_destroy(&job.lock);
  printf("%d passed, %d failed, 0 skipped\n", job.passed, job.failed);
  return job.failed ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--files") == 0) return files_main(argc - 2, argv + 2);
  RUN(target_choice);
  RUN(nvrtc_is_found);
  RUN(corpus_kernels_give_sm90_cubins);
  RUN(unknown_architecture_gives_ptx);
  RUN(forced_ptx_for_sm90);
  RUN(fp_contract_off_gives_no_fma);
  RUN(compile_error_gives_status_and_log);
  RUN(refused_kernels_are_left_out);
  RUN(helpers_and_shared_memory_refuse_their_kernels);
  return agpu_test_finish();
}
