// SPDX-License-Identifier: Apache-2.0
/* A main for the libFuzzer harnesses without libFuzzer: runs every file
 * named (a directory: every file in it, in name order) through
 * LLVMFuzzerTestOneInput once, for the seeds and the regressions in ctest
 * (tests/CMakeLists.txt). A harness that finds a bug aborts, which fails the
 * test; each input must also finish within 5 s, the fuzzers' timeout. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int inputs, slow;

static void run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    printf("  cannot open %s\n", path);
    slow++;
    return;
  }
  size_t capacity = 1 << 16, size = 0, got;
  uint8_t *data = malloc(capacity);
  while (data && (got = fread(data + size, 1, capacity - size, f)) > 0) {
    size += got;
    if (size == capacity) {
      uint8_t *bigger = realloc(data, capacity *= 2);
      if (!bigger) free(data);
      data = bigger;
    }
  }
  fclose(f);
  if (!data) return;
  printf("     %s (%zu bytes)\n", path, size);
  fflush(stdout); /* a crash below names the input */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  LLVMFuzzerTestOneInput(data, size);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  if (seconds > 5.0) {
    printf("  FAIL %s took %.1f s\n", path, seconds);
    slow++;
  }
  inputs++;
  free(data);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return; /* an optional directory (no regressions yet) */
  if (!S_ISDIR(st.st_mode)) {
    run_file(path);
    return;
  }
  DIR *dir = opendir(path);
  char *names[4096];
  int count = 0;
  for (struct dirent *e; dir && (e = readdir(dir)) && count < 4096;)
    if (e->d_name[0] != '.') names[count++] = strdup(e->d_name);
  if (dir) closedir(dir);
  qsort(names, (size_t)count, sizeof names[0], compare_names);
  for (int i = 0; i < count; i++) {
    char file[4096];
    snprintf(file, sizeof file, "%s/%s", path, names[i]);
    run_file(file);
    free(names[i]);
  }
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; i++) run_path(argv[i]);
  printf("%d passed, %d failed, 0 skipped\n", inputs - slow, slow);
  return slow || inputs == 0 ? 1 : 0;
}
