// SPDX-License-Identifier: Apache-2.0
/* The kernel corpus through the front end: every .cl file in
 * tests/kernels/valid parses without an error (with its "// @options" and
 * "// @requires"), and every one in tests/kernels/invalid gets its
 * "// @error LINE:COL message" as its first error. */
#include <dirent.h>

#include "agpu_test.h"
#include "translate.h"

#ifndef AGPU_KERNEL_CORPUS
#define AGPU_KERNEL_CORPUS "tests/kernels"
#endif

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .cl files of a folder, sorted; NULL-terminated. */
static char **list_kernels(const char *folder, int *count) {
  *count = 0;
  DIR *dir = opendir(folder);
  if (!dir) return NULL;
  char **names = calloc(1024, sizeof *names);
  struct dirent *e;
  while ((e = readdir(dir)) && *count < 1023) {
    size_t n = strlen(e->d_name);
    if (n > 3 && strcmp(e->d_name + n - 3, ".cl") == 0) names[(*count)++] = strdup(e->d_name);
  }
  closedir(dir);
  qsort(names, (size_t)*count, sizeof *names, compare_names);
  return names;
}

static void header_value(const char *text, const char *key, char *out, size_t size) {
  out[0] = 0;
  const char *at = strstr(text, key);
  if (!at) return;
  at += strlen(key);
  size_t i = 0;
  while (at[i] && at[i] != '\n' && i + 1 < size) {
    out[i] = at[i];
    i++;
  }
  out[i] = 0;
}

static kl_translate_options options_for(const char *path, const char *text, char *build_options, size_t size) {
  header_value(text, "// @options ", build_options, size);
  kl_translate_options o = {.source_name = path, .build_options = build_options};
  o.traits.fp64 = true; /* as PoCL and the CPU backend */
  o.traits.int64 = true;
  o.traits.fp16 = strstr(text, "// @requires fp16") != NULL;
  return o;
}

static void valid_corpus(void) {
  char folder[1024];
  snprintf(folder, sizeof folder, "%s/valid", AGPU_KERNEL_CORPUS);
  int count = 0;
  char **names = list_kernels(folder, &count);
  if (!names || count == 0) {
    free(names);
    SKIP("no valid kernels in %s", folder);
  }
  int parsed = 0;
  for (int i = 0; i < count; i++) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", folder, names[i]);
    size_t length = 0;
    char *text = agpu_test_read_file(path, &length);
    CHECK(text != NULL);
    if (!text) continue;
    char build_options[512];
    kl_translate_options o = options_for(path, text, build_options, sizeof build_options);
    kl_context *ctx = kl_context_create();
    kl_program *program = kl_parse_program(ctx, text, length, &o);
    if (!program) {
      printf("  %s:\n%s", names[i], kl_diagnostics_text(ctx));
      agpu_test_g.case_failed = 1;
    } else {
      parsed++;
      /* every kernel named in the header exists */
      char kernel[256];
      header_value(text, "// @kernel ", kernel, sizeof kernel);
      if (kernel[0] && !kl_find_kernel(program, kernel)) {
        printf("  %s: no kernel '%s'\n", names[i], kernel);
        agpu_test_g.case_failed = 1;
      }
      const char *json = kl_signature_json(ctx, program);
      CHECK(json && strstr(json, "\"kernels\""));
    }
    kl_context_destroy(ctx);
    free(text);
    free(names[i]);
  }
  printf("  %d of %d valid kernels parsed\n", parsed, count);
  free(names);
}

static void invalid_corpus(void) {
  char folder[1024];
  snprintf(folder, sizeof folder, "%s/invalid", AGPU_KERNEL_CORPUS);
  int count = 0;
  char **names = list_kernels(folder, &count);
  if (!names || count == 0) {
    free(names);
    SKIP("no invalid kernels in %s", folder);
  }
  int matched = 0;
  for (int i = 0; i < count; i++) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", folder, names[i]);
    size_t length = 0;
    char *text = agpu_test_read_file(path, &length);
    CHECK(text != NULL);
    if (!text) continue;
    char expected[512];
    header_value(text, "// @error ", expected, sizeof expected);
    int line = 0, column = 0, consumed = 0;
    if (sscanf(expected, "%d:%d %n", &line, &column, &consumed) < 2) {
      printf("  %s: no '// @error LINE:COL message' header\n", names[i]);
      agpu_test_g.case_failed = 1;
      free(text);
      free(names[i]);
      continue;
    }
    const char *message = expected + consumed;
    char build_options[512];
    kl_translate_options o = options_for(path, text, build_options, sizeof build_options);
    kl_context *ctx = kl_context_create();
    kl_program *program = kl_parse_program(ctx, text, length, &o);
    const kl_diagnostic *first = NULL;
    for (const kl_diagnostic *d = kl_diagnostics(ctx); d; d = d->next)
      if (d->severity == KL_ERROR) {
        first = d;
        break;
      }
    bool ok = !program && first && first->location.line == line && first->location.column == column &&
              strstr(first->message, message);
    if (ok) {
      matched++;
    } else {
      printf("  %s: expected %d:%d %s; got:\n%s", names[i], line, column, message, kl_diagnostics_text(ctx));
      agpu_test_g.case_failed = 1;
    }
    kl_context_destroy(ctx);
    free(text);
    free(names[i]);
  }
  printf("  %d of %d invalid kernels gave their expected first error\n", matched, count);
  free(names);
}

int main(void) {
  RUN(valid_corpus);
  RUN(invalid_corpus);
  return agpu_test_finish();
}
