// SPDX-License-Identifier: Apache-2.0
/* The OpenCL backend's program binaries in the kernel cache (docs/cache.md),
 * in a cache directory of the test's own: the second build of a program
 * loads the driver's binary (a hit with no store: a binary the driver
 * refuses is rebuilt from source and stored again), a damaged entry or a
 * binary the driver refuses falls back to the source and is replaced, and
 * every build's kernel computes the right values, checked element by
 * element against a double-precision reference; a build while a program of
 * the same key is alive uses that program's cl_program (no lookup, no
 * driver build), from one thread or several. The cache's counters are
 * atomic (agpu_cache_get_stats); this program builds on one thread. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agpu_cache.h"
#include "agpu_test.h"

/* out = a x + b y, with a and b from the options, so that each case has a
 * program (a key) of its own. */
static const char axpby_source[] =
    "__kernel void axpby(uint n, __global const float *x, __global const float *y,\n"
    "                    __global float *out) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = A * x[i] + B * y[i];\n"
    "}\n";

#define N 4099u /* not a multiple of the group size */

static char cache_dir[256];

/* The one entry in the cache directory: its key (the file name without
 * ".bin"), false when there is not exactly one. */
static bool only_entry(char key[AGPU_CACHE_KEY_HEX_SIZE]) {
  DIR *dir = opendir(cache_dir);
  if (!dir) return false;
  int found = 0;
  struct dirent *entry;
  while ((entry = readdir(dir))) {
    size_t length = strlen(entry->d_name);
    if (length != AGPU_CACHE_KEY_HEX_SIZE - 1 + 4 || strcmp(entry->d_name + length - 4, ".bin"))
      continue;
    memcpy(key, entry->d_name, AGPU_CACHE_KEY_HEX_SIZE - 1);
    key[AGPU_CACHE_KEY_HEX_SIZE - 1] = '\0';
    found++;
  }
  closedir(dir);
  return found == 1;
}

static void clear_cache_dir(void) {
  DIR *dir = opendir(cache_dir);
  if (!dir) return;
  struct dirent *entry;
  while ((entry = readdir(dir))) {
    if (entry->d_name[0] == '.') continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", cache_dir, entry->d_name);
    unlink(path);
  }
  closedir(dir);
}

/* Options no earlier run used (PoCL keeps a cache of its own too). */
static void fresh_options(char *options, size_t size, double a, double b) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  snprintf(options, size, "-DA=((float)%.9g) -DB=((float)%.9g) -DSTAMP=%lld%09ld%d", a, b,
           (long long)t.tv_sec, t.tv_nsec, (int)getpid());
}

static agpu_program *build(agpu_device *device, const char *options) {
  agpu_program_desc desc = {.source = axpby_source, .source_name = "axpby.cl", .options = options};
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  return program;
}

/* Runs the program's axpby on random inputs into a poisoned output and
 * checks every element against a double-precision reference. */
static void run_and_check(agpu_device *device, agpu_program *program, float a, float b,
                          uint64_t seed) {
  agpu_kernel *kernel = NULL;
  agpu_buffer *bx = NULL, *by = NULL, *bout = NULL;
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
  CHECK(x && y && out);
  for (uint32_t i = 0; x && y && i < N; i++) {
    x[i] = agpu_test_randf(&seed, -100.0f, 100.0f);
    y[i] = agpu_test_randf(&seed, -100.0f, 100.0f);
  }
  if (out) memset(out, 0xFF, N * sizeof *out); /* a NaN poison */
  if (program) CHECK_OK(agpu_kernel_create(program, "axpby", &kernel));
  if (kernel && x && y && out) {
    CHECK_OK(agpu_buffer_create(device, N * sizeof *x, 0, &bx));
    CHECK_OK(agpu_buffer_create(device, N * sizeof *y, 0, &by));
    CHECK_OK(agpu_buffer_create(device, N * sizeof *out, 0, &bout));
  }
  if (bx && by && bout) {
    CHECK_OK(agpu_buffer_write(NULL, bx, 0, N * sizeof *x, x));
    CHECK_OK(agpu_buffer_write(NULL, by, 0, N * sizeof *y, y));
    CHECK_OK(agpu_buffer_write(NULL, bout, 0, N * sizeof *out, out));
    size_t local = 64, global = (N + local - 1) / local * local;
    agpu_arg args[4] = {agpu_arg_u32(N), agpu_arg_buffer(bx), agpu_arg_buffer(by),
                        agpu_arg_buffer(bout)};
    CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 4, args));
    CHECK_OK(agpu_buffer_read(NULL, bout, 0, N * sizeof *out, out));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < N; i++) {
      double ax = (double)a * x[i], by_ = (double)b * y[i];
      /* each product and the sum rounded once (or fused): three roundings */
      double bound = ldexp(fabs(ax) + fabs(by_), -22);
      if (!(fabs((double)out[i] - (ax + by_)) <= bound)) wrong++;
    }
    if (wrong) printf("  %u of %u elements wrong\n", wrong, N);
    CHECK(wrong == 0);
  }
  if (bout) agpu_buffer_release(bout);
  if (by) agpu_buffer_release(by);
  if (bx) agpu_buffer_release(bx);
  if (kernel) agpu_kernel_release(kernel);
  free(x);
  free(y);
  free(out);
}

/* Builds the program, runs and checks it, releases it. */
static void build_and_check(agpu_device *device, const char *options, float a, float b,
                            uint64_t seed) {
  agpu_program *program = build(device, options);
  run_and_check(device, program, a, b, seed);
  if (program) agpu_program_release(program);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The first build compiles the source and stores the binary; the second is
 * a hit that stores nothing: the driver took the binary. */
static void second_build_loads_the_binary(void) {
  REQUIRE_DEVICE(device, "opencl");
  clear_cache_dir();
  char options[160], key[AGPU_CACHE_KEY_HEX_SIZE];
  fresh_options(options, sizeof options, 1.5, -0.25);
  agpu_cache_stats s0, s1, s2;
  agpu_cache_get_stats(&s0);
  double t0 = now_ms();
  build_and_check(device, options, 1.5f, -0.25f, 1);
  double t1 = now_ms();
  agpu_cache_get_stats(&s1);
  build_and_check(device, options, 1.5f, -0.25f, 2);
  double t2 = now_ms();
  agpu_cache_get_stats(&s2);
  printf("  first build and run %.1f ms (source), second %.1f ms (binary)\n", t1 - t0, t2 - t1);
  CHECK(s1.misses == s0.misses + 1 && s1.stores == s0.stores + 1 && s1.hits == s0.hits);
  CHECK(only_entry(key));
  CHECK(s2.hits == s1.hits + 1 && s2.stores == s1.stores && s2.misses == s1.misses);
}

/* Bytes of the entry's file overwritten: the cache rejects it (its
 * checksum), the build compiles the source and stores a good entry, which
 * the next build loads. */
static void damaged_entry_falls_back_to_source(void) {
  REQUIRE_DEVICE(device, "opencl");
  clear_cache_dir();
  char options[160], key[AGPU_CACHE_KEY_HEX_SIZE], path[512];
  fresh_options(options, sizeof options, -3.0, 0.5);
  build_and_check(device, options, -3.0f, 0.5f, 3);
  if (!only_entry(key)) {
    CHECK(!"one cache entry after the first build");
    return;
  }
  CHECK_OK(agpu_cache_entry_path(key, path, sizeof path));
  struct stat st;
  int fd = open(path, O_WRONLY);
  CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 64);
  if (fd < 0) return;
  static const char junk[32] = "not the binary that was stored";
  CHECK(pwrite(fd, junk, sizeof junk, st.st_size / 2) == (ssize_t)sizeof junk);
  close(fd);
  agpu_cache_stats s0, s1, s2;
  agpu_cache_get_stats(&s0);
  build_and_check(device, options, -3.0f, 0.5f, 4);
  agpu_cache_get_stats(&s1);
  CHECK(s1.rejected == s0.rejected + 1 && s1.stores == s0.stores + 1 && s1.hits == s0.hits);
  build_and_check(device, options, -3.0f, 0.5f, 5);
  agpu_cache_get_stats(&s2);
  CHECK(s2.hits == s1.hits + 1 && s2.stores == s1.stores);
}

/* Entries the cache itself accepts (its checksum is right) but whose
 * contents the backend or the driver refuses: a binary of random bytes, a
 * wrong magic, a log longer than the entry, an entry too short for its
 * header. Each build falls back to the source and stores the binary again;
 * the build after it loads that. */
static void refused_binaries_fall_back_to_source(void) {
  REQUIRE_DEVICE(device, "opencl");
  unsigned char payloads[4][256];
  size_t sizes[4] = {256, 256, 256, 12};
  uint64_t seed = 99;
  for (int p = 0; p < 4; p++) {
    for (size_t i = 0; i < sizeof payloads[p]; i++)
      payloads[p][i] = (unsigned char)agpu_test_rand(&seed);
    memcpy(payloads[p], p == 1 ? "AGPUCLB0" : "AGPUCLB1", 8);
    memset(payloads[p] + 8, 0, 8); /* no log */
  }
  payloads[2][9] = 0x01; /* a log of 256 bytes, in 240 after the header */
  for (int p = 0; p < 4; p++) {
    clear_cache_dir();
    char options[160], key[AGPU_CACHE_KEY_HEX_SIZE];
    fresh_options(options, sizeof options, 0.75, 2.0);
    build_and_check(device, options, 0.75f, 2.0f, 10 + (uint64_t)p);
    if (!only_entry(key)) {
      CHECK(!"one cache entry after the first build");
      return;
    }
    CHECK_OK(agpu_cache_store(key, payloads[p], sizes[p]));
    agpu_cache_stats s0, s1, s2;
    agpu_cache_get_stats(&s0);
    build_and_check(device, options, 0.75f, 2.0f, 20 + (uint64_t)p);
    agpu_cache_get_stats(&s1);
    if (!(s1.hits == s0.hits + 1 && s1.stores == s0.stores + 1))
      printf("  payload %d: hits +%llu, stores +%llu\n", p, (unsigned long long)(s1.hits - s0.hits),
             (unsigned long long)(s1.stores - s0.stores));
    CHECK(s1.hits == s0.hits + 1 && s1.stores == s0.stores + 1);
    build_and_check(device, options, 0.75f, 2.0f, 30 + (uint64_t)p);
    agpu_cache_get_stats(&s2);
    CHECK(s2.hits == s1.hits + 1 && s2.stores == s1.stores);
  }
}

static bool same_stats(const agpu_cache_stats *a, const agpu_cache_stats *b) {
  return a->hits == b->hits && a->misses == b->misses && a->rejected == b->rejected &&
         a->stores == b->stores;
}

static bool same_log(agpu_program *a, agpu_program *b) {
  return a && b && strcmp(agpu_program_build_log(a), agpu_program_build_log(b)) == 0;
}

/* While a program is alive, a build of the same source and options for the
 * same device in this process uses its driver program: no cache lookup, no
 * store, no driver build (the entry is removed from the disk first, so a
 * lookup would miss and a source build would store), the same build log,
 * right results, in whichever order the programs are released. After the
 * last one goes, the next build loads the binary again. ANYGPU_CACHE=0
 * turns the sharing off too. */
static void live_program_is_reused(void) {
  REQUIRE_DEVICE(device, "opencl");
  clear_cache_dir();
  char options[160];
  fresh_options(options, sizeof options, 2.5, -1.0);
  agpu_cache_stats s0, s1, s2;
  agpu_program *first = build(device, options);
  clear_cache_dir();
  agpu_cache_get_stats(&s0);
  agpu_program *second = build(device, options);
  agpu_cache_get_stats(&s1);
  CHECK(same_stats(&s0, &s1));
  CHECK(same_log(first, second));
  run_and_check(device, second, 2.5f, -1.0f, 40);
  if (first) agpu_program_release(first); /* the first goes first */
  run_and_check(device, second, 2.5f, -1.0f, 41);
  agpu_program *third = build(device, options);
  run_and_check(device, third, 2.5f, -1.0f, 42);
  if (second) agpu_program_release(second);
  run_and_check(device, third, 2.5f, -1.0f, 43);
  agpu_cache_get_stats(&s1);
  CHECK(same_stats(&s0, &s1));
  if (third) agpu_program_release(third);

  /* None left: a lookup (the entry is gone: a miss, a source build, a store). */
  first = build(device, options);
  agpu_cache_get_stats(&s2);
  CHECK(s2.misses == s1.misses + 1 && s2.stores == s1.stores + 1 && s2.hits == s1.hits);
  second = build(device, options);
  agpu_cache_get_stats(&s1);
  CHECK(same_stats(&s1, &s2));
  CHECK(same_log(first, second));
  if (second) agpu_program_release(second); /* the later one goes first */
  run_and_check(device, first, 2.5f, -1.0f, 44);

  /* The cache turned off: compiled again, even with a program alive. */
  setenv("ANYGPU_CACHE", "0", 1);
  agpu_cache_get_stats(&s1);
  second = build(device, options);
  agpu_cache_get_stats(&s2);
  unsetenv("ANYGPU_CACHE");
  CHECK(s2.misses == s1.misses + 1 && s2.hits == s1.hits);
  run_and_check(device, second, 2.5f, -1.0f, 45);
  if (second) agpu_program_release(second);
  if (first) agpu_program_release(first);

  /* None left: the binary on disk. */
  agpu_cache_get_stats(&s1);
  build_and_check(device, options, 2.5f, -1.0f, 46);
  agpu_cache_get_stats(&s2);
  CHECK(s2.hits == s1.hits + 1 && s2.stores == s1.stores && s2.misses == s1.misses);
}

typedef struct reuse_thread {
  agpu_device *device;
  const char *options;
  int failures;
} reuse_thread;

static void *reuse_worker(void *data) {
  reuse_thread *t = data;
  agpu_program_desc desc = {
      .source = axpby_source, .source_name = "axpby.cl", .options = t->options};
  for (int i = 0; i < 16; i++) {
    agpu_program *program = NULL;
    agpu_kernel *kernel = NULL;
    if (agpu_program_build(t->device, &desc, &program) != AGPU_SUCCESS ||
        agpu_kernel_create(program, "axpby", &kernel) != AGPU_SUCCESS)
      t->failures++;
    if (kernel) agpu_kernel_release(kernel);
    if (program) agpu_program_release(program);
  }
  return NULL;
}

/* Threads that build, create a kernel and release one program at once,
 * with and without a program of it kept alive; then the kept one runs. */
static void concurrent_reuse(void) {
  REQUIRE_DEVICE(device, "opencl");
  clear_cache_dir();
  char options[160];
  fresh_options(options, sizeof options, -0.5, 4.0);
  build_and_check(device, options, -0.5f, 4.0f, 50); /* stored */
  for (int round = 0; round < 2; round++) {
    agpu_program *kept = round ? build(device, options) : NULL;
    reuse_thread threads[4];
    pthread_t ids[4];
    for (int i = 0; i < 4; i++) {
      threads[i] = (reuse_thread){device, options, 0};
      CHECK(pthread_create(&ids[i], NULL, reuse_worker, &threads[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
      pthread_join(ids[i], NULL);
      CHECK(threads[i].failures == 0);
    }
    if (kept) run_and_check(device, kept, -0.5f, 4.0f, 51);
    if (kept) agpu_program_release(kept);
  }
  build_and_check(device, options, -0.5f, 4.0f, 52);
}

/* A binary load on the caller's thread when it has the stack for it (the
 * main thread, glibc's default threads), and on a thread of the backend's
 * when not: a thread of 256 KiB loads the binary too. */
static void small_stack_thread_loads_the_binary(void) {
  REQUIRE_DEVICE(device, "opencl");
  clear_cache_dir();
  char options[160];
  fresh_options(options, sizeof options, 3.0, 0.125);
  build_and_check(device, options, 3.0f, 0.125f, 60); /* stored */
  agpu_cache_stats s0, s1;
  agpu_cache_get_stats(&s0);
  reuse_thread thread = {device, options, 0};
  pthread_attr_t attr;
  pthread_t id;
  CHECK(pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, 256 << 10) == 0);
  CHECK(pthread_create(&id, &attr, reuse_worker, &thread) == 0);
  pthread_join(id, NULL);
  pthread_attr_destroy(&attr);
  agpu_cache_get_stats(&s1);
  CHECK(thread.failures == 0);
  CHECK(s1.hits == s0.hits + 16 && s1.stores == s0.stores && s1.misses == s0.misses);
  build_and_check(device, options, 3.0f, 0.125f, 61);
}

static void remove_cache_dir(void) {
  clear_cache_dir();
  rmdir(cache_dir);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(cache_dir, sizeof cache_dir, "%.200s/anygpu-test-cl-cache-XXXXXX",
           tmp && tmp[0] == '/' ? tmp : "/tmp");
  if (!mkdtemp(cache_dir)) {
    printf("cannot create a temporary directory %s\n", cache_dir);
    return 1;
  }
  /* A directory of this test's own, with the cache on whatever the caller's
   * environment says: nothing else uses it. */
  setenv("ANYGPU_CACHE_DIR", cache_dir, 1);
  unsetenv("ANYGPU_CACHE");
  if (!agpu_test_device("opencl:0")) {
    printf("skipped: no OpenCL device (%s)\n", agpu_test_backend_reason("opencl"));
    remove_cache_dir();
    return 77;
  }
  RUN(second_build_loads_the_binary);
  RUN(damaged_entry_falls_back_to_source);
  RUN(refused_binaries_fall_back_to_source);
  RUN(live_program_is_reused);
  RUN(concurrent_reuse);
  RUN(small_stack_thread_loads_the_binary);
  remove_cache_dir();
  return agpu_test_finish();
}
