/* Every input under tests/fuzz/regressions/ through the fuzzer's own harness,
 * tests/fuzz/fuzz_translator.c: parse with the traits and options the input
 * selects, then emit for every target. The inputs are crashes, leaks, hangs
 * or sanitizer reports the translator fuzzer found, since fixed (named after
 * the bug), and hand-written hostile inputs (hostile-*.cl: overflowing sizes
 * and constants, the targets' keywords as names). A regression crashes this
 * program or makes the harness abort; each input must also finish in well
 * under the fuzzer's 5 s timeout. */
#include <dirent.h>
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
  CHECK(LLVMFuzzerTestOneInput(data, size) == 0);
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
