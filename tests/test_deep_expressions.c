// SPDX-License-Identifier: Apache-2.0
/* Long flat expressions (issue 33, item 4): a chain such as a + b + c + ...
 * or v.xyzw.xyzw... is parsed by a loop but is a tree one level deeper per
 * operator, and every later pass walks that tree recursively. A generator
 * makes such kernels at, just past and far past the translator's tree-depth
 * limit (400 levels, kernels/kl_front.h) and translates them for every
 * target, then builds and runs them on every device, all on a thread with a
 * 256 KiB stack: at the limit each translates, builds and computes the right
 * sum; past it each is refused with "file:line:col: error: expression nested
 * too deeply", never a crash. */
#include <pthread.h>

#include "agpu_test.h"

#define STACK_BYTES (256u << 10)
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
#undef STACK_BYTES
#define STACK_BYTES (1024u << 10) /* ASan's frames are several times larger */
#endif

#define AT_LIMIT 390 /* terms of a chain that still translates */

typedef enum { CHAIN_SUM, CHAIN_SWIZZLE, CHAIN_PRODUCT } chain_kind;

/* A kernel whose line 3 holds a chain of `n` operators of `kind`. */
static char *generate(chain_kind kind, int n) {
  size_t capacity = (size_t)n * 16 + 256, length = 0;
  char *s = malloc(capacity);
  if (!s) return NULL;
#define PUT(...) length += (size_t)snprintf(s + length, capacity - length, __VA_ARGS__)
  if (kind == CHAIN_SWIZZLE) {
    PUT("__kernel void k(__global float4 *a) {\n  float4 v = a[0];\n  a[1] = v");
    /* .yzwx rotates by one: n of them leave v rotated by n % 4 */
    for (int i = 0; i < n; i++) PUT(".yzwx");
    PUT(";\n}\n");
  } else {
    PUT("__kernel void k(__global int *a) {\n  int i = (int)get_global_id(0);\n  a[i + 8] = a[0]");
    for (int i = 1; i < n; i++) PUT(" %s a[%d]", kind == CHAIN_SUM ? "+" : "^", i % 8);
    PUT(";\n}\n");
  }
#undef PUT
  return s;
}

/* ------------------------------------------------ on a small stack */

typedef struct job {
  void (*fn)(struct job *);
  chain_kind kind;
  int n;
  agpu_target target;
  const char *selector;
  agpu_status status;
  char message[512];
  bool ran_correctly;
  bool skipped;
} job;

static void *job_main(void *arg) {
  job *j = arg;
  j->fn(j);
  return NULL;
}

static void run_small_stack(job *j) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  CHECK(pthread_attr_setstacksize(&attr, STACK_BYTES) == 0);
  pthread_t thread;
  CHECK(pthread_create(&thread, &attr, job_main, j) == 0);
  pthread_join(thread, NULL);
  pthread_attr_destroy(&attr);
}

static void translate_job(job *j) {
  char *source = generate(j->kind, j->n);
  agpu_translate_desc desc = {.source = source, .source_name = "gen.cl", .target = j->target};
  agpu_translation *t = NULL;
  j->status = agpu_translate(&desc, &t);
  snprintf(j->message, sizeof j->message, "%s", j->status ? agpu_last_error() : "");
  agpu_translation_release(t);
  free(source);
}

static const char *kind_name(chain_kind kind) {
  return kind == CHAIN_SUM ? "sum" : kind == CHAIN_SWIZZLE ? "swizzle" : "xor";
}

/* The limit's error, at the statement holding the chain (line 3, column 3). */
static void check_refused(const job *j, const char *where) {
  if (j->status != AGPU_ERROR_BUILD_FAILED || !strstr(j->message, "gen.cl:3:3: error:") ||
      !strstr(j->message, "nested too deeply")) {
    printf("  FAIL %s: %s chain of %d on %s: %s: %.300s\n", agpu_test_g.case_name,
           kind_name(j->kind), j->n, where, agpu_status_name(j->status), j->message);
    agpu_test_g.case_failed = 1;
  }
}

static void translate_chains(void) {
  static const int lengths[] = {AT_LIMIT, 401, 3000, 100000};
  for (int t = 0; t < AGPU_TARGET_COUNT_; t++) {
    for (chain_kind kind = CHAIN_SUM; kind <= CHAIN_PRODUCT; kind++) {
      for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        job j = {.fn = translate_job, .kind = kind, .n = lengths[i], .target = (agpu_target)t};
        run_small_stack(&j);
        if (t == AGPU_TARGET_SPIRV && j.status == AGPU_ERROR_UNSUPPORTED) continue; /* no glslang */
        if (lengths[i] == AT_LIMIT) {
          if (j.status != AGPU_SUCCESS) {
            printf("  FAIL %s: %s chain of %d on %s: %s: %.300s\n", agpu_test_g.case_name,
                   kind_name(kind), j.n, agpu_target_name((agpu_target)t),
                   agpu_status_name(j.status), j.message);
            agpu_test_g.case_failed = 1;
          }
        } else {
          check_refused(&j, agpu_target_name((agpu_target)t));
        }
      }
    }
  }
}

/* Builds the kernel on the device and, when it builds, runs one work-item
 * and checks its result. */
static void build_job(job *j) {
  agpu_device *device = agpu_test_device(j->selector);
  if (!device) {
    j->skipped = true;
    return;
  }
  char *source = generate(j->kind, j->n);
  agpu_program_desc desc = {.source = source, .source_name = "gen.cl"};
  agpu_program *program = NULL;
  j->status = agpu_program_build(device, &desc, &program);
  snprintf(j->message, sizeof j->message, "%s", j->status ? agpu_last_error() : "");
  free(source);
  if (j->status) return;
  agpu_kernel *kernel = NULL;
  agpu_buffer *buffer = NULL;
  int32_t data[16] = {0};
  for (int i = 0; i < 8; i++) data[i] = i * 7 + 1;
  int32_t expected[4] = {0};
  size_t global[1] = {1};
  if (j->kind == CHAIN_SWIZZLE) {
    float v[8] = {1, 2, 3, 4};
    if (agpu_kernel_create(program, "k", &kernel) ||
        agpu_buffer_create(device, sizeof v, 0, &buffer) ||
        agpu_buffer_write(NULL, buffer, 0, sizeof v, v))
      goto done;
    agpu_arg args[1] = {agpu_arg_buffer(buffer)};
    if (agpu_launch(NULL, kernel, 1, global, NULL, 1, args) ||
        agpu_buffer_read(NULL, buffer, 0, sizeof v, v))
      goto done;
    j->ran_correctly = true;
    for (int c = 0; c < 4; c++)
      if (v[4 + c] != (float)((c + j->n) % 4 + 1)) j->ran_correctly = false;
    goto done;
  }
  for (int i = 0; i < j->n; i++)
    expected[0] = j->kind == CHAIN_SUM ? expected[0] + data[i % 8] : expected[0] ^ data[i % 8];
  if (agpu_kernel_create(program, "k", &kernel) ||
      agpu_buffer_create(device, sizeof data, 0, &buffer) ||
      agpu_buffer_write(NULL, buffer, 0, sizeof data, data))
    goto done;
  agpu_arg args[1] = {agpu_arg_buffer(buffer)};
  if (agpu_launch(NULL, kernel, 1, global, NULL, 1, args) ||
      agpu_buffer_read(NULL, buffer, 0, sizeof data, data))
    goto done;
  j->ran_correctly = data[8] == expected[0];
done:
  if (!j->ran_correctly) snprintf(j->message, sizeof j->message, "%s", agpu_last_error());
  agpu_buffer_release(buffer);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void build_on(const char *selector) {
  static const int lengths[] = {AT_LIMIT, 401, 3000};
  int ran = 0;
  for (chain_kind kind = CHAIN_SUM; kind <= CHAIN_PRODUCT; kind++) {
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
      job j = {.fn = build_job, .kind = kind, .n = lengths[i], .selector = selector};
#ifdef SANITIZED
      /* GCC 12's ASan fails a CHECK ("unable to unmap", DTLS) when a thread
       * that dlopen'ed a library with TLS (cpu:0's kernels) exits: on this
       * thread. translate_chains keeps the small stack under ASan. */
      j.fn(&j);
#else
      run_small_stack(&j);
#endif
      if (j.skipped) SKIP("no %s device", selector);
      ran++;
      if (lengths[i] != AT_LIMIT) {
        check_refused(&j, selector);
      } else if (j.status != AGPU_SUCCESS || !j.ran_correctly) {
        printf("  FAIL %s: %s chain of %d on %s: %s%s: %.300s\n", agpu_test_g.case_name,
               kind_name(kind), j.n, selector, agpu_status_name(j.status),
               j.status ? "" : " (wrong result)", j.message);
        agpu_test_g.case_failed = 1;
      }
    }
  }
  CHECK(ran > 0);
}

static void build_cpu(void) {
  build_on("cpu:0");
}
static void build_opencl(void) {
  build_on("opencl:0");
}
static void build_vulkan(void) {
  build_on("vulkan:0");
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* a crash still shows the cases before it */
  RUN(translate_chains);
  RUN(build_cpu);
  RUN(build_opencl);
  RUN(build_vulkan);
  return agpu_test_finish();
}
