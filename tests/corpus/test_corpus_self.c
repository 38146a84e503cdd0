// SPDX-License-Identifier: Apache-2.0
/* The corpus runner's own parts, without a device: header parsing, inputs
 * from a seed, the poison check and the tolerant comparison. */
#include <math.h>
#include <unistd.h>

#include "agpu_test.h"
#include "corpus.h"
#include "corpus_data.h"

static char temp_dir[256];

/* Writes `text` to a file of the temporary directory and loads it. */
static bool load_text(const char *name, const char *text, corpus_file_kind kind,
                      corpus_kernel *kernel, char *error, size_t capacity) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", temp_dir, name);
  FILE *file = fopen(path, "w");
  if (!file) return false;
  fputs(text, file);
  fclose(file);
  bool loaded = corpus_load(path, kind, kernel, error, capacity);
  unlink(path);
  return loaded;
}

static void parses_a_valid_header(void) {
  corpus_kernel k;
  char error[512] = "";
  CHECK(load_text("010_saxpy.cl",
                  "// A comment line.\n"
                  "// @kernel saxpy\n"
                  "// @global 37x19\n"
                  "// @local 8x4\n"
                  "// @options -DTILE=16 -DX\n"
                  "// @arg buffer float 37*19 random -1 1\n"
                  "// @arg buffer int 100 random -5 5 nonzero\n"
                  "// @arg buffer ulong 10 fill 0xffffffffffffffff\n"
                  "// @arg buffer uint 703 output 700\n"
                  "// @arg buffer int4 4 inout iota 3\n"
                  "// @arg value float4 1.5 2 -3 0.25\n"
                  "// @arg value int -7\n"
                  "// @arg local float 64\n"
                  "// @tolerance ulp 4 abs 1e-6\n"
                  "// @requires fp64 int64\n"
                  "__kernel void saxpy() {}\n",
                  CORPUS_VALID, &k, error, sizeof error));
  if (error[0]) printf("  %s\n", error);
  CHECK(strcmp(k.entry, "saxpy") == 0 && strcmp(k.stem, "010_saxpy") == 0);
  CHECK(k.dims == 2 && k.global[0] == 37 && k.global[1] == 19 && k.global[2] == 1);
  CHECK(k.local[0] == 8 && k.local[1] == 4 && k.local[2] == 1);
  CHECK(strcmp(k.options, "-DTILE=16 -DX") == 0);
  CHECK(k.arg_count == 8);
  CHECK(k.args[0].count == 703 && k.args[0].init == CORPUS_INIT_RANDOM && !k.args[0].compared);
  CHECK(k.args[1].nonzero && k.args[1].lo.i == -5 && k.args[1].hi.i == 5);
  CHECK(k.args[2].init == CORPUS_INIT_FILL && k.args[2].fill.u == UINT64_MAX);
  CHECK(k.args[3].poisoned && k.args[3].compared && k.args[3].written == 700);
  CHECK(k.args[4].compared && !k.args[4].poisoned && k.args[4].type.lanes == 4);
  CHECK(k.args[5].kind == CORPUS_ARG_VALUE && k.args[5].values[3].f == 0.25);
  CHECK(k.args[6].values[0].i == -7);
  CHECK(k.args[7].kind == CORPUS_ARG_LOCAL && k.args[7].count == 64);
  CHECK(k.tolerance.kinds == (CORPUS_TOLERANCE_ULP | CORPUS_TOLERANCE_ABS));
  CHECK(k.requires == (CORPUS_REQUIRES_FP64 | CORPUS_REQUIRES_INT64));
  size_t global[3];
  corpus_launch_size(&k, global);
  CHECK(global[0] == 40 && global[1] == 20 && global[2] == 1);
  corpus_free(&k);
}

static void rejects_malformed_headers(void) {
  static const struct {
    const char *text, *why;
  } cases[] = {
      {"// @global 10\n// @local 2\n// @arg buffer int 10 output\n", "no '// @kernel"},
      {"// @kernel k\n// @local 2\n// @arg buffer int 10 output\n", "both required"},
      {"// @kernel k\n// @global 10x2\n// @local 2\n", "different dimensions"},
      {"// @kernel k\n// @global 10\n// @local 2\n// @arg buffer int 10 random 0 1\n",
       "nothing to compare"},
      {"// @kernel k\n// @global 10\n// @local 2\n// @arg buffer uchar 10 random 0 256\n",
       "fitting the type"},
      {"// @kernel k\n// @global 10\n// @local 2\n// @arg buffer int 10 output 11\n",
       "WRITTEN <= COUNT"},
      {"// @kernel k\n// @global 10\n// @local 2\n// @arg buffer float5 10 output\n",
       "unknown type 'float5'"},
      {"// @kernel k\n// @global 10\n// @local 2\n// @arg value float4 1 2\n", "1 or 4 numbers"},
      {"// @kernel k\n// @global 10\n// @local 2\n// @arg buffer double 10 output\n",
       "@requires fp64"},
      {"// @kernel k\n// @global 10\n// @local 2\n// @arg buffer int 1 output\n// @frob\n",
       "unknown directive '@frob'"},
      {"// @kernel k\n// @global 10\n// @local 2\n// @arg buffer int 1 output\n"
       "// @tolerance ulp\n",
       "KIND AMOUNT"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    corpus_kernel k;
    char error[512] = "";
    bool loaded = load_text("bad.cl", cases[i].text, CORPUS_VALID, &k, error, sizeof error);
    if (loaded || !strstr(error, cases[i].why)) {
      printf("  case %zu: loaded %d, error \"%s\", expected \"%s\"\n", i, loaded, error,
             cases[i].why);
      agpu_test_g.case_failed = 1;
    }
    corpus_free(&k);
  }
}

static void checks_invalid_headers(void) {
  static const struct {
    const char *text, *why; /* why NULL: well formed */
  } cases[] = {
      {"// A comment.\n// @error 3:3 expected ';'\n  x = 1\n", NULL},
      {"// @options -DX\n// @error 3:1 #error\n#error X\n", NULL},
      {"// @error 2:1 x\n\n", "past the end"},
      {"// @error 1:1 x\nint x;\n", "inside the header"},
      {"// @error 2:5 x\nint  x;\n", "points at a blank"},
      {"// @error 2:9 x\nint x;\n", "past the end of the line"},
      {"// @error 2:7 x\nint x;\n", NULL}, /* just past the last token */
      {"// @error 2:1\nint x;\n", "has no message"},
      {"// @error 2 x\nint x;\n", "expected '@error LINE:COL message'"},
      {"// @kernel k\n// @error 2:1 x\nint x;\n", "only @error, @options"},
      {"int x;\n", "no '// @error"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    corpus_kernel k;
    char error[512] = "";
    bool loaded = load_text("bad.cl", cases[i].text, CORPUS_INVALID, &k, error, sizeof error);
    bool ok = cases[i].why ? !loaded && strstr(error, cases[i].why) : loaded;
    if (!ok) {
      printf("  case %zu: loaded %d, error \"%s\", expected \"%s\"\n", i, loaded, error,
             cases[i].why ? cases[i].why : "(well formed)");
      agpu_test_g.case_failed = 1;
    }
    corpus_free(&k);
  }
}

static corpus_kernel one_buffer(const char *type, corpus_init init, double lo, double hi) {
  corpus_kernel k;
  memset(&k, 0, sizeof k);
  snprintf(k.stem, sizeof k.stem, "stem");
  k.arg_count = 1;
  corpus_arg *arg = &k.args[0];
  arg->kind = CORPUS_ARG_BUFFER;
  corpus_type_parse(type, &arg->type);
  arg->count = arg->written = 1000;
  arg->init = init;
  arg->lo.f = lo;
  arg->hi.f = hi;
  arg->lo.i = (int64_t)lo;
  arg->hi.i = (int64_t)hi;
  arg->lo.u = (uint64_t)arg->lo.i;
  arg->hi.u = (uint64_t)arg->hi.i;
  return k;
}

static void inputs_come_from_the_seed(void) {
  corpus_kernel k = one_buffer("int", CORPUS_INIT_RANDOM, -3, 3);
  k.args[0].nonzero = true;
  int a[1000], b[1000], c[1000];
  corpus_fill_buffer(&k, 0, 42, 0, a);
  corpus_fill_buffer(&k, 0, 42, 1, b);
  corpus_fill_buffer(&k, 0, 43, 0, c);
  CHECK(memcmp(a, b, sizeof a) == 0); /* the poison pattern does not change inputs */
  CHECK(memcmp(a, c, sizeof a) != 0);
  bool in_range = true, seen_min = false, seen_max = false;
  for (int i = 0; i < 1000; i++) {
    in_range &= a[i] >= -3 && a[i] <= 3 && a[i] != 0;
    seen_min |= a[i] == -3;
    seen_max |= a[i] == 3;
  }
  CHECK(in_range && seen_min && seen_max);

  corpus_kernel f = one_buffer("float3", CORPUS_INIT_RANDOM, -1, 1);
  float values[4000];
  corpus_fill_buffer(&f, 0, 7, 0, values);
  bool floats_ok = true;
  for (int i = 0; i < 1000; i++) {
    for (int lane = 0; lane < 3; lane++)
      floats_ok &= values[4 * i + lane] >= -1 && values[4 * i + lane] <= 1;
    floats_ok &= values[4 * i + 3] == 0; /* the padding lane */
  }
  CHECK(floats_ok);
}

static void poison_marks_unwritten_lanes(void) {
  corpus_kernel k = one_buffer("uchar2", CORPUS_INIT_POISON, 0, 0);
  corpus_arg *arg = &k.args[0];
  arg->poisoned = arg->compared = true;
  unsigned char run0[2000], run1[2000];
  corpus_fill_buffer(&k, 0, 1, 0, run0);
  corpus_fill_buffer(&k, 0, 1, 1, run1);
  CHECK(run0[0] == 0xa5 && run1[0] == 0x5a);
  char message[512];
  CHECK(!corpus_check_written(arg, run0, run1, message, sizeof message));
  for (int i = 0; i < 2000; i++) run0[i] = run1[i] = (unsigned char)i;
  run0[7] = 0xa5; /* written with the value of poison 0: still written */
  run1[7] = 0xa5;
  CHECK(corpus_check_written(arg, run0, run1, message, sizeof message));
  run1[7] = 0x5a; /* poison in both runs: never written */
  CHECK(!corpus_check_written(arg, run0, run1, message, sizeof message));
  CHECK(strstr(message, "element 3 lane 1") != NULL);
}

static void floats_compare_within_the_tolerance(void) {
  corpus_kernel k = one_buffer("float", CORPUS_INIT_POISON, 0, 0);
  corpus_arg *arg = &k.args[0];
  arg->written = 4;
  float expected[4] = {1.0f, -0.0f, NAN, 1e-3f}, got[4];
  memcpy(got, expected, sizeof got);
  char message[512];
  CHECK(corpus_compare(&k, arg, expected, got, false, message, sizeof message));
  got[2] = -NAN; /* any NaN matches any NaN unless bitwise */
  CHECK(corpus_compare(&k, arg, expected, got, false, message, sizeof message));
  CHECK(!corpus_compare(&k, arg, expected, got, true, message, sizeof message));
  got[0] = nextafterf(nextafterf(1.0f, 2.0f), 2.0f); /* 2 ulp */
  CHECK(!corpus_compare(&k, arg, expected, got, false, message, sizeof message));
  CHECK(strstr(message, "element 0 lane 0") && strstr(message, "2 ulp"));
  k.tolerance.kinds = CORPUS_TOLERANCE_ULP;
  k.tolerance.ulp = 2;
  CHECK(corpus_compare(&k, arg, expected, got, false, message, sizeof message));
  got[1] = 0.0f; /* -0 and +0 are 0 ulp apart */
  CHECK(corpus_compare(&k, arg, expected, got, false, message, sizeof message));
  got[3] = 1.001e-3f;
  CHECK(!corpus_compare(&k, arg, expected, got, false, message, sizeof message));
  CHECK(strstr(message, "worst element 3"));
  k.tolerance.kinds |= CORPUS_TOLERANCE_REL;
  k.tolerance.rel = 2e-3;
  CHECK(corpus_compare(&k, arg, expected, got, false, message, sizeof message));
}

static void integers_compare_exactly(void) {
  corpus_kernel k = one_buffer("short", CORPUS_INIT_POISON, 0, 0);
  corpus_arg *arg = &k.args[0];
  arg->written = 3;
  k.tolerance.kinds = CORPUS_TOLERANCE_ABS; /* ignored for integers */
  k.tolerance.abs = 100;
  short expected[3] = {1, -2, 3}, got[3] = {1, -3, 3};
  char message[512];
  CHECK(!corpus_compare(&k, arg, expected, got, false, message, sizeof message));
  CHECK(strstr(message, "expected -2 (0xfffe), got -3 (0xfffd)") != NULL);
}

static void half_conversions_round_to_even(void) {
  CHECK(corpus_half_from_float(1.0f) == 0x3c00);
  CHECK(corpus_half_from_float(-2.0f) == 0xc000);
  CHECK(corpus_half_from_float(65504.0f) == 0x7bff);
  CHECK(corpus_half_from_float(1e6f) == 0x7c00);
  CHECK(corpus_half_from_float(ldexpf(1.0f, -24)) == 0x0001);
  CHECK(corpus_half_from_float(1.0f + ldexpf(1.0f, -11)) == 0x3c00); /* tie to even */
  CHECK(corpus_half_to_float(0x3555) == 0.333251953125f);
  CHECK(isnan(corpus_half_to_float(0x7e00)));
}

int main(void) {
  snprintf(temp_dir, sizeof temp_dir, "%s/corpus_self_XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(temp_dir)) {
    printf("cannot create a temporary directory\n");
    return 1;
  }
  RUN(parses_a_valid_header);
  RUN(rejects_malformed_headers);
  RUN(checks_invalid_headers);
  RUN(inputs_come_from_the_seed);
  RUN(poison_marks_unwritten_lanes);
  RUN(floats_compare_within_the_tolerance);
  RUN(integers_compare_exactly);
  RUN(half_conversions_round_to_even);
  rmdir(temp_dir);
  return agpu_test_finish();
}
