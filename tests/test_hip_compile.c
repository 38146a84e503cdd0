/* The HIP backend's hiprtc compile routine (agpu_hip_compile,
 * backends/hip/hip_compile.c), run for real through its child process:
 * translated corpus kernels compile for gfx90a and gfx1030 to code objects;
 * a compile error comes back with hiprtc's log; a target that crashes this
 * hiprtc (gfx942 on ROCm 5.2) gives an error naming the signal while this
 * process lives on; a compile past its deadline is killed; compiles from two
 * threads at once both work. No GPU is needed. */
#include <pthread.h>
#include <time.h>

#include "agpu_test.h"
#include "emit_common.h"
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
} compile_job;

static void *compile_on_thread(void *argument) {
  compile_job *job = argument;
  static const char source[] =
      "extern \"C\" __global__ void twice(float *p) { p[threadIdx.x] *= 2.0f; }\n";
  agpu_hip_code code;
  job->status = agpu_hip_compile(rtc, source, "twice.hip", job->arch, 0, &code);
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
    CHECK(jobs[i].status == AGPU_SUCCESS);
    CHECK(jobs[i].size > 0);
  }
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
  RUN(compile_error_returns_the_log);
  RUN(crashing_target_is_a_clean_error);
  RUN(compile_past_its_deadline_is_killed);
  RUN(compiles_from_two_threads);
  RUN(peak_table_and_arch_names);
  return agpu_test_finish();
}
