// SPDX-License-Identifier: Apache-2.0
/* Every input under tests/fuzz/regressions/ through the fuzzer's own harness,
 * tests/fuzz/fuzz_translator.c: parse with the traits and options the input
 * selects, then emit for every target. The inputs are crashes, leaks, hangs
 * or sanitizer reports the translator fuzzer found, since fixed (named after
 * the bug), and hand-written hostile inputs (hostile-*.cl: overflowing sizes
 * and constants, the targets' keywords as names). A regression crashes this
 * program or makes the harness abort; each input must also finish in well
 * under the fuzzer's 5 s timeout. Each runs on a thread with a 256 KiB
 * stack (1 MiB under ASan), as a library user's thread may have: a pass
 * whose recursion grows with the input (a long flat sum, issue 33) shows
 * here, where the main thread's 8 MiB would hide it. */
#include <dirent.h>
#include <pthread.h>
#include <time.h>

#include "agpu_test.h"
#include "fuzz/fuzz_translator.c"

#define REGRESSIONS AGPU_KERNEL_CORPUS "/../fuzz/regressions"

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#if defined(__SANITIZE_ADDRESS__)
#define STACK_BYTES (1024u << 10)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STACK_BYTES (1024u << 10)
#endif
#endif
#ifndef STACK_BYTES
#define STACK_BYTES (256u << 10)
#endif

typedef struct {
  const uint8_t *data;
  size_t size;
  int result;
} input;

static void *run_input(void *arg) {
  input *in = arg;
  in->result = LLVMFuzzerTestOneInput(in->data, in->size);
  return NULL;
}

/* LLVMFuzzerTestOneInput on a thread with a small stack. */
static int run_small_stack(const uint8_t *data, size_t size) {
  input in = {data, size, -1};
  pthread_attr_t attr;
  pthread_t thread;
  pthread_attr_init(&attr);
  CHECK(pthread_attr_setstacksize(&attr, STACK_BYTES) == 0);
  CHECK(pthread_create(&thread, &attr, run_input, &in) == 0);
  pthread_join(thread, NULL);
  pthread_attr_destroy(&attr);
  return in.result;
}

static void run_file(const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", REGRESSIONS, name);
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) return;
  size_t capacity = 1 << 16, size = 0;
  uint8_t *data = malloc(capacity);
  size_t got;
  while (data && (got = fread(data + size, 1, capacity - size, f)) > 0) {
    size += got;
    if (size == capacity) {
      uint8_t *bigger = realloc(data, capacity *= 2);
      if (!bigger) free(data);
      data = bigger;
    }
  }
  fclose(f);
  CHECK(data != NULL);
  if (!data) return;
  printf("     %s (%zu bytes)\n", name, size);
  fflush(stdout); /* a crash below names the file */
  double start = now();
  CHECK(run_small_stack(data, size) == 0);
  double seconds = now() - start;
  if (seconds > 2.0) {
    printf("  FAIL %s took %.1f s\n", name, seconds);
    agpu_test_g.case_failed = 1;
  }
  free(data);
}

static void fuzz_regressions(void) {
  DIR *dir = opendir(REGRESSIONS);
  if (!dir) SKIP("no %s", REGRESSIONS);
  char *names[4096];
  int count = 0;
  for (struct dirent *e; (e = readdir(dir)) && count < 4096;)
    if (e->d_name[0] != '.') names[count++] = strdup(e->d_name);
  closedir(dir);
  qsort(names, (size_t)count, sizeof names[0], compare_names);
  for (int i = 0; i < count; i++) {
    run_file(names[i]);
    free(names[i]);
  }
  CHECK(count > 0);
}

int main(void) {
  RUN(fuzz_regressions);
  return agpu_test_finish();
}
