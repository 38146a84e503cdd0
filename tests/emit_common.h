// SPDX-License-Identifier: Apache-2.0
/* Shared by the emitter tests (test_emit_*.c): reading the corpus of valid
 * kernels and translating one file. */
#ifndef AGPU_EMIT_COMMON_H
#define AGPU_EMIT_COMMON_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_test.h"
#include "translate.h"

#ifndef AGPU_KERNELS_DIR
#define AGPU_KERNELS_DIR "tests/kernels"
#endif

typedef struct emit_source {
  char path[512];
  char name[128];
  char *text;
  size_t length;
  char options[512];
  bool needs_fp16;
} emit_source;

static inline char *emit_read_file(const char *path, size_t *length) {
  return agpu_test_read_file(path, length);
}

static int emit_compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The corpus's valid kernels, sorted; *count of them. */
static inline emit_source *emit_corpus(int *count) {
  *count = 0;
  const char *dir_path = AGPU_KERNELS_DIR "/valid";
  DIR *dir = opendir(dir_path);
  if (!dir) return NULL;
  char *names[1024];
  int n = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) && n < 1024) {
    size_t len = strlen(entry->d_name);
    if (len > 3 && strcmp(entry->d_name + len - 3, ".cl") == 0) names[n++] = strdup(entry->d_name);
  }
  closedir(dir);
  qsort(names, (size_t)n, sizeof names[0], emit_compare_names);
  emit_source *sources = calloc((size_t)n + 1, sizeof *sources);
  int m = 0;
  for (int i = 0; i < n; i++) {
    emit_source *s = &sources[m];
    snprintf(s->path, sizeof s->path, "%s/%s", dir_path, names[i]);
    snprintf(s->name, sizeof s->name, "%s", names[i]);
    free(names[i]);
    s->text = emit_read_file(s->path, &s->length);
    if (!s->text) continue;
    const char *o = strstr(s->text, "// @options ");
    if (o) {
      o += 12;
      size_t k = strcspn(o, "\n");
      if (k >= sizeof s->options) k = sizeof s->options - 1;
      memcpy(s->options, o, k);
      s->options[k] = '\0';
    }
    s->needs_fp16 = strstr(s->text, "@requires fp16") != NULL;
    m++;
  }
  *count = m;
  return sources;
}

static inline void emit_free_corpus(emit_source *sources, int count) {
  for (int i = 0; sources && i < count; i++) free(sources[i].text);
  free(sources);
}

/* Parses a source as a device with fp64 and int64 (and fp16 when asked). */
static inline kl_program *emit_parse_with(kl_context *ctx, const char *name, const char *text, size_t length,
                                          const char *options, kl_device_traits traits) {
  /* The corpus's headers (valid/headers) are found as the corpus runner
   * finds them: the corpus folder is the include directory. */
  static const char *const include_dirs[] = {AGPU_KERNELS_DIR "/valid"};
  kl_translate_options opt = {.source_name = name,
                              .build_options = options && options[0] ? options : NULL,
                              .traits = traits,
                              .include_dirs = include_dirs,
                              .include_dir_count = 1};
  return kl_parse_program(ctx, text, length, &opt);
}

static inline kl_program *emit_parse(kl_context *ctx, const char *name, const char *text, size_t length,
                                     const char *options, bool fp16) {
  return emit_parse_with(ctx, name, text, length, options,
                         (kl_device_traits){.fp64 = true, .int64 = true, .fp16 = fp16});
}

/* Writes text to a file; false on failure. */
static inline bool emit_write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

#endif /* AGPU_EMIT_COMMON_H */
