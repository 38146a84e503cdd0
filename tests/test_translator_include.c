// SPDX-License-Identifier: Apache-2.0
/* #include in the front end (kernels/include.c): where a header is looked
 * for, #pragma once and guards, what the diagnostics say, <...>, the limits,
 * what is never read; and, through the library, that a header's bytes are
 * part of the kernel-cache key and that the CLI takes -I. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agpu_test.h"
#include "kl_front.h"
#include "translate.h"

static kl_context *ctx;
static char root[256]; /* a fresh folder for this run's files */

static void write_file(const char *relative, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, relative);
  FILE *f = fopen(path, "w");
  if (!f) {
    printf("  cannot write %s\n", path);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
}

static char *in_root(const char *relative) {
  static char paths[8][512];
  static int next;
  char *path = paths[next++ % 8];
  snprintf(path, sizeof paths[0], "%s%s%s", root, relative[0] ? "/" : "", relative);
  return path;
}

/* Translates `source` named `name` (NULL: no file) with include dirs. */
static kl_program *parse_named(const char *name, const char *source, const char *options,
                               const char *const *dirs, int dir_count) {
  kl_context_destroy(ctx);
  ctx = kl_context_create();
  kl_translate_options o = {.source_name = name,
                            .build_options = options,
                            .include_dirs = dirs,
                            .include_dir_count = dir_count};
  o.traits.fp64 = true;
  o.traits.int64 = true;
  return kl_parse_program(ctx, source, strlen(source), &o);
}

static bool diagnostics_contain(const char *needle) {
  const char *text = kl_diagnostics_text(ctx);
  if (strstr(text, needle)) return true;
  printf("  diagnostics lack \"%s\":\n%s", needle, text);
  return false;
}

static void setup(void) {
  snprintf(root, sizeof root, "%s/agpu-include-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    exit(1);
  }
  mkdir(in_root("a"), 0700);
  mkdir(in_root("a/b"), 0700);
  mkdir(in_root("dir1"), 0700);
  mkdir(in_root("dir2"), 0700);
  write_file("a/main.cl", "#include \"b/one.h\"\nint_t v = ONE + TWO;\n");
  write_file("a/b/one.h", "#pragma once\n#include \"two.h\"\n#define ONE 1\ntypedef int int_t;\n");
  write_file("a/b/two.h", "#ifndef TWO\n#define TWO 2\n#endif\n");
  write_file("a/which.h", "#define WHICH next_to_the_file\n");
  write_file("dir1/which.h", "#define WHICH dir1\n");
  write_file("dir2/which.h", "#define WHICH dir2\n");
  write_file("dir2/only2.h", "#define ONLY2 yes\n");
  write_file("dir1/bad.h", "#define OK 1\n\nint x = ;\n");
  write_file("dir1/self.h", "#include \"self.h\"\n");
}

static void relative_to_the_including_file(void) {
  /* The main file's folder, then a header's own folder for its includes;
   * #pragma once and the guard keep the second inclusions empty. */
  const char *path = in_root("a/main.cl");
  parse_named(path,
              "#include \"b/one.h\"\n#include \"b/one.h\"\n#include \"b/two.h\"\nONE TWO\n"
              "#include \"which.h\"\nWHICH",
              NULL, NULL, 0);
  CHECK(!strstr(kl_diagnostics_text(ctx), "#include"));
  CHECK(strcmp(kl_preprocessed_text(ctx), "typedef int int_t;\n1 2\nnext_to_the_file") == 0);
  /* the file's folder comes before the include directories */
  const char *dirs[] = {in_root("dir1"), in_root("dir2")};
  parse_named(path, "#include \"which.h\"\nWHICH", NULL, dirs, 2);
  CHECK(strcmp(kl_preprocessed_text(ctx), "next_to_the_file") == 0);
  /* a macro that names the file */
  parse_named(path, "#define H \"which.h\"\n#include H\nWHICH", NULL, NULL, 0);
  CHECK(strcmp(kl_preprocessed_text(ctx), "next_to_the_file") == 0);
}

static void include_directories_in_order(void) {
  const char *dirs[] = {in_root("dir1"), in_root("dir2")};
  /* no file name: the directories only, in order */
  parse_named(NULL, "#include \"which.h\"\n#include \"only2.h\"\nWHICH ONLY2", NULL, dirs, 2);
  CHECK(strcmp(kl_preprocessed_text(ctx), "dir1 yes") == 0);
  const char *reversed[] = {in_root("dir2"), in_root("dir1")};
  parse_named("<source>", "#include \"which.h\"\nWHICH", NULL, reversed, 2);
  CHECK(strcmp(kl_preprocessed_text(ctx), "dir2") == 0);
  /* -I in the build options, after include_dirs; both spellings */
  char options[600];
  snprintf(options, sizeof options, "-I%s -I %s", in_root("dir2"), in_root("dir1"));
  parse_named(NULL, "#include \"which.h\"\nWHICH", options, NULL, 0);
  CHECK(strcmp(kl_preprocessed_text(ctx), "dir2") == 0);
  const char *one[] = {in_root("dir1")};
  parse_named(NULL, "#include \"which.h\"\nWHICH", options, one, 1);
  CHECK(strcmp(kl_preprocessed_text(ctx), "dir1") == 0);
  /* an absolute name */
  char source[600];
  snprintf(source, sizeof source, "#include \"%s\"\nWHICH", in_root("dir2/which.h"));
  parse_named(NULL, source, NULL, NULL, 0);
  CHECK(strcmp(kl_preprocessed_text(ctx), "dir2") == 0);
  /* a source without a file name has no folder of its own */
  CHECK(!parse_named(NULL, "#include \"which.h\"\n", NULL, NULL, 0));
  CHECK(diagnostics_contain(
      "<source>:1:1: error: #include \"which.h\": file not found (searched no directories"));
}

static void diagnostics_name_the_header(void) {
  const char *dirs[] = {in_root("dir1")};
  CHECK(!parse_named("k.cl",
                     "\n#include \"bad.h\"\n__kernel void f(__global int *a) { a[0] = OK; }\n",
                     NULL, dirs, 1));
  char expected[600];
  snprintf(expected, sizeof expected, "%s:3:9: error: expected expression", in_root("dir1/bad.h"));
  CHECK(diagnostics_contain(expected));
  CHECK(diagnostics_contain("  int x = ;\n          ^\n  in the file included from k.cl:2\n"));
  /* a header that includes itself: the nesting limit, not a crash */
  CHECK(!parse_named("k.cl", "#include \"self.h\"\n", NULL, dirs, 1));
  CHECK(diagnostics_contain("nested too deeply (more than 64 levels)"));
  CHECK(diagnostics_contain("more #include levels)\n  in the file included from k.cl:1\n"));
  CHECK(kl_error_count(ctx) == 1);
  /* __FILE__ and __LINE__ inside a header */
  write_file("dir1/where.h", "\n__FILE__ __LINE__\n");
  parse_named(NULL, "#include \"where.h\"\n__LINE__", NULL, dirs, 1);
  char where[600];
  snprintf(where, sizeof where, "\"%s\" 2\n2", in_root("dir1/where.h"));
  CHECK(strcmp(kl_preprocessed_text(ctx), where) == 0);
}

static void angle_brackets_and_malformed_directives(void) {
  /* OpenCL's own headers are built in; nothing else is */
  parse_named("k.cl", "#include <opencl-c.h>\n#include <opencl-c-base.h>\nint_t", NULL, NULL, 0);
  CHECK(strcmp(kl_preprocessed_text(ctx), "int_t") == 0);
  CHECK(!parse_named("k.cl", "#include <stdio.h>\n", NULL, NULL, 0));
  CHECK(diagnostics_contain("k.cl:1:1: error: #include <stdio.h>: only OpenCL's built-in headers"));
  CHECK(!parse_named("k.cl", "#include <sys/types.h>\n", NULL, NULL, 0));
  CHECK(diagnostics_contain("#include <sys/types.h>:"));
  const char *bad[] = {"#include\n",      "#include x\n",  "#include <stdio.h\n",
                       "#include \"\"\n", "#include 42\n", "#define H <a\n#include H\n"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    CHECK(!parse_named("k.cl", bad[i], NULL, NULL, 0));
    CHECK(kl_error_count(ctx) >= 1);
  }
  /* an include in a skipped group is not read */
  parse_named("k.cl", "#if 0\n#include \"missing.h\"\n#endif\n", NULL, NULL, 0);
  CHECK(kl_error_count(ctx) == 0);
}

static void only_regular_files_are_read(void) {
  /* a folder, a FIFO (which would block a reader) and a device */
  const char *dirs[] = {root};
  CHECK(mkfifo(in_root("fifo.h"), 0600) == 0);
  CHECK(!parse_named(NULL, "#include \"fifo.h\"\n", NULL, dirs, 1));
  CHECK(diagnostics_contain("cannot open it: it is a FIFO"));
  CHECK(!parse_named(NULL, "#include \"a\"\n", NULL, dirs, 1));
  CHECK(diagnostics_contain("cannot open it: it is a directory"));
  CHECK(!parse_named(NULL, "#include \"/dev/zero\"\n", NULL, NULL, 0));
  CHECK(diagnostics_contain("#include \"/dev/zero\": cannot open it: it is a character device"));
  unlink(in_root("fifo.h"));
}

/* The main source: at most 64 MiB (issue 33, item 11). */
static void sources_past_64_mib_are_refused(void) {
  size_t size = ((size_t)64 << 20) + 1;
  char *big = malloc(size);
  CHECK(big != NULL);
  if (!big) return;
  memset(big, ' ', size);
  kl_context_destroy(ctx);
  ctx = kl_context_create();
  kl_translate_options o = {.source_name = "big.cl"};
  CHECK(!kl_parse_program(ctx, big, size, &o));
  CHECK(diagnostics_contain(
      "big.cl:1:1: error: the source is 67108865 bytes, more than the 64 MiB a kernel source"));
  free(big);
}

/* Through the library: a changed header changes the program (the cache key
 * holds the included bytes, through the preprocessed text), and -I works. */
static void header_bytes_are_in_the_cache_key(void) {
  char cache[512];
  snprintf(cache, sizeof cache, "%s/cache", root);
  setenv("ANYGPU_CACHE_DIR", cache, 1);
  unsetenv("ANYGPU_CACHE");
  const char *source =
      "#include \"value.h\"\n"
      "__kernel void put(__global int *out) { out[0] = VALUE; }\n";
  const char *selectors[] = {"cpu:0", "opencl:0", "vulkan:0"};
  int devices = 0;
  for (int d = 0; d < 3; d++) {
    agpu_device *device = NULL;
    if (agpu_device_select(selectors[d], &device) != AGPU_SUCCESS) continue;
    devices++;
    /* 11, 22, then 11 again: each from its own cache entry */
    const int values[3] = {11, 22, 11};
    for (int round = 0; round < 3; round++) {
      char header[64];
      snprintf(header, sizeof header, "#define VALUE %d\n", values[round]);
      write_file("dir2/value.h", header);
      const char *dirs[] = {in_root("dir2")};
      agpu_program_desc desc = {
          .source = source, .source_name = "put.cl", .include_dirs = dirs, .include_dir_count = 1};
      agpu_program *program = NULL;
      agpu_kernel *kernel = NULL;
      agpu_buffer *buffer = NULL;
      agpu_queue *queue = NULL;
      int seen = -1;
      CHECK_OK(agpu_program_build(device, &desc, &program));
      CHECK_OK(agpu_kernel_create(program, "put", &kernel));
      CHECK_OK(agpu_buffer_create(device, sizeof(int), 0, &buffer));
      CHECK_OK(agpu_queue_create(device, &queue));
      size_t global[1] = {1};
      agpu_arg args[1] = {agpu_arg_buffer(buffer)};
      CHECK_OK(agpu_launch(queue, kernel, 1, global, NULL, 1, args));
      CHECK_OK(agpu_queue_finish(queue));
      CHECK_OK(agpu_buffer_read(queue, buffer, 0, sizeof(int), &seen));
      if (seen != values[round])
        printf("  %s round %d: got %d, expected %d\n", selectors[d], round, seen, values[round]);
      CHECK(seen == values[round]);
      agpu_queue_release(queue);
      agpu_buffer_release(buffer);
      agpu_kernel_release(kernel);
      agpu_program_release(program);
    }
    /* a NULL directory list with a count is refused */
    agpu_program_desc bad = {.source = source, .include_dir_count = 1};
    agpu_program *program = NULL;
    CHECK_STATUS(agpu_program_build(device, &bad, &program), AGPU_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("include_dirs is NULL");
  }
  if (devices == 0) SKIP("no cpu:0, opencl:0 or vulkan:0");
}

int main(void) {
  setup();
  RUN(relative_to_the_including_file);
  RUN(include_directories_in_order);
  RUN(diagnostics_name_the_header);
  RUN(angle_brackets_and_malformed_directives);
  RUN(only_regular_files_are_read);
  RUN(sources_past_64_mib_are_refused);
  RUN(header_bytes_are_in_the_cache_key);
  kl_context_destroy(ctx);
  char command[600];
  snprintf(command, sizeof command, "rm -rf '%s'", root);
  if (system(command) != 0) printf("  note: could not remove %s\n", root);
  return agpu_test_finish();
}
