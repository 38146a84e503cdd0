// SPDX-License-Identifier: Apache-2.0
/* Acceptance: `anygpu compile --target hip` output compiles with hiprtc for
 * gfx90a. Every kernel of the corpus goes through the command (with its
 * @options and --fp16 where it needs half), and what it prints is compiled
 * by the HIP backend's routine (agpu_hip_compile, in a child process).
 *
 *     test_hip_cli_compile PATH/TO/anygpu */
#include <time.h>

#include "agpu_test.h"
#include "emit_common.h"
#include "hip_internal.h"

static const char *anygpu_binary;

/* What `anygpu compile --target hip` prints for a corpus file (malloc'd), or
 * NULL with the exit status in *exit_status. */
static char *cli_translate(const emit_source *source, int *exit_status) {
  char command[2048];
  int used = snprintf(command, sizeof command, "'%s' compile --target hip%s", anygpu_binary,
                      source->needs_fp16 ? " --fp16" : "");
  /* the @options are -D/-U flags, one word each */
  char options[512];
  snprintf(options, sizeof options, "%s", source->options);
  for (char *word = strtok(options, " "); word; word = strtok(NULL, " "))
    used += snprintf(command + used, sizeof command - (size_t)used, " '%s'", word);
  snprintf(command + used, sizeof command - (size_t)used, " '%s'", source->path);
  FILE *pipe = popen(command, "r");
  if (!pipe) return NULL;
  size_t size = 0, capacity = 1 << 16;
  char *text = malloc(capacity);
  size_t n;
  while (text && (n = fread(text + size, 1, capacity - size - 1, pipe)) > 0) {
    size += n;
    if (capacity - size < 4096) {
      char *grown = realloc(text, capacity *= 2);
      if (!grown) {
        free(text);
        text = NULL;
      }
      text = grown;
    }
  }
  *exit_status = pclose(pipe);
  if (text) text[size] = '\0';
  if (*exit_status != 0) {
    free(text);
    return NULL;
  }
  return text;
}

static void corpus_through_the_cli_compiles_for_gfx90a(void) {
  char why[512];
  const agpu_hiprtc_api *rtc = agpu_hiprtc_get(NULL, why, sizeof why);
  if (!rtc) SKIP("%s", why);
  int count = 0;
  emit_source *sources = emit_corpus(&count);
  if (count == 0) SKIP("no corpus in %s/valid", AGPU_KERNELS_DIR);
  int compiled = 0;
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 0; i < count; i++) {
    int exit_status = 0;
    char *hip = cli_translate(&sources[i], &exit_status);
    if (!hip) {
      printf("  anygpu compile --target hip %s failed (status %d)\n", sources[i].name, exit_status);
      CHECK(hip != NULL);
      continue;
    }
    CHECK(strstr(hip, "HIP C++ for hiprtc") != NULL);
    agpu_hip_code code;
    agpu_status status = agpu_hip_compile(rtc, hip, sources[i].name, "gfx90a", 0, &code);
    if (status != AGPU_SUCCESS) printf("  %s: %.2000s\n", sources[i].name, agpu_last_error());
    CHECK(status == AGPU_SUCCESS && agpu_hip_is_code_object(code.code, code.code_size));
    compiled += status == AGPU_SUCCESS;
    agpu_hip_code_free(&code);
    free(hip);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  printf(
      "  %d of %d corpus kernels: anygpu compile --target hip, then hiprtc (%s) for gfx90a, "
      "in %.1f s\n",
      compiled, count, rtc->library_name,
      (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) * 1e-9);
  CHECK(compiled == count);
  emit_free_corpus(sources, count);
}

/* --files F.hip...: hiprtc for gfx90a on each file (the output of `anygpu
 * compile --target hip`), a line each, for scripts/realworld/measure.py. */
static int files_main(int count, char **paths) {
  char why[512];
  const agpu_hiprtc_api *rtc = agpu_hiprtc_get(NULL, why, sizeof why);
  if (!rtc) {
    printf("skipped: %s\n", why);
    return 77;
  }
  int failed = 0;
  for (int i = 0; i < count; i++) {
    char *text = agpu_test_read_file(paths[i], NULL);
    agpu_hip_code code = {0};
    agpu_status status = text ? agpu_hip_compile(rtc, text, paths[i], "gfx90a", 0, &code)
                              : AGPU_ERROR_INVALID_ARGUMENT;
    if (status == AGPU_SUCCESS) {
      printf("ok   %s\n", paths[i]);
    } else {
      printf("FAIL %s: %.300s\n", paths[i], text ? agpu_last_error() : "cannot read it");
      failed++;
    }
    agpu_hip_code_free(&code);
    free(text);
  }
  printf("%d passed, %d failed, 0 skipped\n", count - failed, failed);
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--files") == 0) return files_main(argc - 2, argv + 2);
  if (argc != 2) {
    fprintf(stderr, "usage: %s PATH/TO/anygpu | --files F.hip...\n", argv[0]);
    return 2;
  }
  anygpu_binary = argv[1];
  RUN(corpus_through_the_cli_compiles_for_gfx90a);
  return agpu_test_finish();
}
