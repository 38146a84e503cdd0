// SPDX-License-Identifier: Apache-2.0
/* Differential fuzzing of code generation: kernels from the generator
 * (kernel_gen.c, integer only) run on two backends, by default the CPU
 * backend (the host-C emitter and the system C compiler) and OpenCL device 0
 * (PoCL here: the OpenCL C emitter and the driver's compiler), on the same
 * random inputs. The integer kernels have one defined result, so the outputs
 * must agree bit for bit: out[] word for word and acc[], the words the
 * work-items update with commutative atomics.
 *
 *   fuzz_differential [--seconds S] [--count N] [--seed S] [--save DIR]
 *                     [--a SELECTOR] [--b SELECTOR] [--barriers] [--print]
 *                     [--referee SELECTOR] [FILE...]
 *
 * --barriers mixes barrier-heavy statements into the kernels (uniform loops
 * with barriers, a group-level counter advanced between barriers, __global
 * pointers advanced across them, early uniform continues, for inits with a
 * second induction variable of another type stepped by a comma expression,
 * declarator lists with and without initialisers on both sides of a
 * barrier; kernel_gen.h). --print prints each generated kernel. --referee
 * SEL runs a kernel on which a and b disagree on a third device: when it
 * agrees with a bit for bit, the case counts as b's driver bug (printed as
 * DRIVER, saved with --save) and not as a failure.
 *
 * A FILE ending in .cl is a kernel (with the generator's interface) run as
 * it is: how a saved failure is reproduced and reduced by hand.
 *
 * Case k of a run uses generator bytes drawn from seed + k, so "--seed S
 * --count 1" reproduces case S of any run; FILEs are generator inputs (a
 * libFuzzer corpus of fuzz_codegen) run first. A mismatch, or a build or
 * launch that fails on a valid kernel, prints the kernel and the first
 * differing words, saves the kernel to DIR when given, and makes the exit
 * status 1. The kernel cache is turned off (ANYGPU_CACHE=0) so that the
 * runs leave nothing behind. Exits 77 when a backend is missing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agpu_test.h"
#include "fuzz_supervisor.h"
#include "kernel_gen.h"

typedef struct side {
  const char *selector;
  agpu_device *device;
  uint32_t out[KGEN_GLOBAL_SIZE];
  uint32_t acc[KGEN_ACC_SIZE];
  char error[2048];
} side;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool run_on(side *s, const char *kernel_source, const uint32_t *in, const uint32_t *acc0) {
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  agpu_buffer *b_in = NULL, *b_out = NULL, *b_acc = NULL;
  agpu_program_desc desc = {.source = kernel_source, .source_name = "generated.cl"};
  bool ok = false;
  s->error[0] = '\0';
  if (agpu_program_build(s->device, &desc, &program) != AGPU_SUCCESS ||
      agpu_kernel_create(program, "fuzz", &kernel) != AGPU_SUCCESS ||
      agpu_buffer_create(s->device, sizeof s->out, 0, &b_in) != AGPU_SUCCESS ||
      agpu_buffer_create(s->device, sizeof s->out, 0, &b_out) != AGPU_SUCCESS ||
      agpu_buffer_create(s->device, sizeof s->acc, 0, &b_acc) != AGPU_SUCCESS ||
      agpu_buffer_write(NULL, b_in, 0, sizeof s->out, in) != AGPU_SUCCESS ||
      agpu_buffer_write(NULL, b_acc, 0, sizeof s->acc, acc0) != AGPU_SUCCESS) {
    snprintf(s->error, sizeof s->error, "%s", agpu_last_error());
  } else {
    const uint32_t poison = 0xdeadbeefu;
    size_t global = KGEN_GLOBAL_SIZE, local = KGEN_LOCAL_SIZE;
    agpu_arg args[] = {agpu_arg_buffer(b_in), agpu_arg_buffer(b_out), agpu_arg_buffer(b_acc)};
    if (agpu_buffer_fill(NULL, b_out, 0, sizeof s->out, &poison, 4) != AGPU_SUCCESS ||
        agpu_launch(NULL, kernel, 1, &global, &local, 3, args) != AGPU_SUCCESS ||
        agpu_buffer_read(NULL, b_out, 0, sizeof s->out, s->out) != AGPU_SUCCESS ||
        agpu_buffer_read(NULL, b_acc, 0, sizeof s->acc, s->acc) != AGPU_SUCCESS)
      snprintf(s->error, sizeof s->error, "%s", agpu_last_error());
    else
      ok = true;
  }
  if (b_acc) agpu_buffer_release(b_acc);
  if (b_out) agpu_buffer_release(b_out);
  if (b_in) agpu_buffer_release(b_in);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
  return ok;
}

static void save(const char *dir, const char *name, const char *kernel) {
  if (!dir) return;
  mkdir(dir, 0755);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.cl", dir, name);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(kernel, f);
    fclose(f);
    printf("  saved to %s\n", path);
  }
}

/* One case; false on a disagreement or a failure. */
static bool compare_kernel(side *a, side *b, char *kernel, const uint8_t *bytes, size_t size,
                           const char *name, const char *save_dir);

static bool barrier_heavy; /* --barriers */
static bool print_kernels; /* --print */
static side referee;       /* --referee: a third device that settles a disagreement */
static int driver_only;    /* cases where b alone differed from a and the referee */

static bool run_case(side *a, side *b, const uint8_t *bytes, size_t size, const char *name,
                     const char *save_dir) {
  kgen_options options = {
      .floats = false, .int64 = true, .no_abs_int_min = true, .barriers = barrier_heavy};
  char *kernel = kgen_generate(bytes, size, &options);
  if (!kernel) return true;
  if (print_kernels) printf("--- %s:\n%s", name, kernel);
  return compare_kernel(a, b, kernel, bytes, size, name, save_dir);
}

/* Runs `kernel` (freed here) on both sides with inputs drawn from `bytes`. */
static bool compare_kernel(side *a, side *b, char *kernel, const uint8_t *bytes, size_t size,
                           const char *name, const char *save_dir) {
  uint64_t state = 0x9e3779b97f4a7c15u ^ (uint64_t)size;
  for (size_t i = 0; i < size; i++) state = state * 1099511628211u ^ bytes[i];
  uint32_t in[KGEN_GLOBAL_SIZE];
  for (int i = 0; i < KGEN_GLOBAL_SIZE; i++) in[i] = (uint32_t)(agpu_test_rand(&state) >> 32);
  const uint32_t acc0[KGEN_ACC_SIZE] = {0u,          0xffffffffu, 0x12345678u, 0u,
                                        0xffffffffu, 0xffffffffu, 0u,          0x80000000u};
  fuzz_progress_case(name, a->selector);
  bool ok_a = run_on(a, kernel, in, acc0);
  fuzz_progress_case(name, b->selector);
  bool ok_b = run_on(b, kernel, in, acc0);
  if (!ok_a || !ok_b || memcmp(a->out, b->out, sizeof a->out) ||
      memcmp(a->acc, b->acc, sizeof a->acc))
    fuzz_progress_case(name, referee.selector ? referee.selector : b->selector);
  bool same = ok_a && ok_b && memcmp(a->out, b->out, sizeof a->out) == 0 &&
              memcmp(a->acc, b->acc, sizeof a->acc) == 0;
  if (!same && ok_a && ok_b && referee.device && run_on(&referee, kernel, in, acc0) &&
      memcmp(referee.out, a->out, sizeof a->out) == 0 &&
      memcmp(referee.acc, a->acc, sizeof a->acc) == 0) {
    /* a and the referee agree bit for bit: b's driver is wrong (as PoCL 3.1
     * is in tests/fuzz/known-driver-bugs/), not the translator */
    printf("DRIVER %s: %s alone differs; %s and %s agree\n", name, b->selector, a->selector,
           referee.selector);
    driver_only++;
    save(save_dir, name, kernel);
    free(kernel);
    return true;
  }
  if (!ok_a || !ok_b) {
    printf("FAIL %s: a valid kernel failed on %s:\n%s\n", name, ok_a ? b->selector : a->selector,
           ok_a ? b->error : a->error);
  } else if (!same) {
    printf("FAIL %s: %s and %s disagree\n", name, a->selector, b->selector);
    int shown = 0;
    for (int i = 0; i < KGEN_GLOBAL_SIZE; i++)
      if (a->out[i] != b->out[i] && shown++ < 4)
        printf("  out[%d]: %s 0x%08x, %s 0x%08x\n", i, a->selector, a->out[i], b->selector,
               b->out[i]);
    for (int i = 0; i < KGEN_ACC_SIZE; i++)
      if (a->acc[i] != b->acc[i])
        printf("  acc[%d]: %s 0x%08x, %s 0x%08x\n", i, a->selector, a->acc[i], b->selector,
               b->acc[i]);
  }
  if (!same) {
    printf("--- the kernel:\n%s---\n", kernel);
    save(save_dir, name, kernel);
  }
  free(kernel);
  return same;
}

static uint8_t *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *data = malloc(1 << 16);
  *size = data ? fread(data, 1, 1 << 16, f) : 0;
  fclose(f);
  return data;
}

static side side_a = {.selector = "cpu:0"}, side_b = {.selector = "opencl:0"};
static const char *save_dir;

/* Opens a side's device; false (with a "skipped" line) when it is missing. */
static bool open_sides(side *a, side *b) {
  if (agpu_device_select(a->selector, &a->device) != AGPU_SUCCESS ||
      agpu_device_select(b->selector, &b->device) != AGPU_SUCCESS) {
    printf("skipped: %s\n0 passed, 0 failed, 1 skipped\n", agpu_last_error());
    return false;
  }
  if (referee.selector && agpu_device_select(referee.selector, &referee.device) != AGPU_SUCCESS)
    printf("no referee: %s\n", agpu_last_error()); /* disagreements then stay failures */
  return true;
}

/* A child's run of generated cases (fuzz_supervisor.h): case k uses
 * generator bytes drawn from seed + k. */
static int run_seeds(uint64_t seed, long count, double deadline, const char *b_selector) {
  side_b.selector = b_selector;
  if (!open_sides(&side_a, &side_b)) return 77;
  for (long k = 0; count < 0 || k < count; k++) {
    if (deadline > 0 && now() >= deadline) break;
    uint64_t state = (seed + (uint64_t)k) * 0x9e3779b97f4a7c15u + 1;
    size_t size = 64 + (size_t)(agpu_test_rand(&state) % 1024);
    uint8_t bytes[1100];
    for (size_t i = 0; i < size; i++) bytes[i] = (uint8_t)(agpu_test_rand(&state) >> 56);
    char name[64];
    snprintf(name, sizeof name, "seed-%llu", (unsigned long long)(seed + (uint64_t)k));
    int drivers_before = driver_only;
    bool same = run_case(&side_a, &side_b, bytes, size, name, save_dir);
    fuzz_progress_done(!same ? FUZZ_FAIL : driver_only > drivers_before ? FUZZ_DRIVER : FUZZ_PASS);
  }
  return 0;
}

/* FILEs (saved kernels or generator inputs), run in this process. */
static void run_files(char **files, int n, fuzz_tally *tally) {
  for (int i = 0; i < n; i++) {
    size_t size = 0;
    uint8_t *data = read_file(files[i], &size);
    if (!data) {
      printf("FAIL cannot read %s\n", files[i]);
      tally->failed++;
      continue;
    }
    /* a kernel (.cl: a saved failure), or a fuzz_codegen input: its first
     * byte is the options, the rest the generator's */
    const char *base = strrchr(files[i], '/');
    base = base ? base + 1 : files[i];
    size_t length = strlen(files[i]);
    bool same;
    if (length > 3 && !strcmp(files[i] + length - 3, ".cl")) {
      char *kernel = malloc(size + 1);
      if (kernel) memcpy(kernel, data, size), kernel[size] = '\0';
      same =
          !kernel || compare_kernel(&side_a, &side_b, kernel, (const uint8_t *)"", 0, base, NULL);
    } else {
      same =
          run_case(&side_a, &side_b, size ? data + 1 : data, size ? size - 1 : 0, base, save_dir);
    }
    same ? tally->passed++ : tally->failed++;
    free(data);
  }
}

int main(int argc, char **argv) {
  double seconds = 0;
  long count = -1;
  uint64_t seed = 1;
  int first_file = argc;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
      seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--count") && i + 1 < argc)
      count = atol(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--save") && i + 1 < argc)
      save_dir = argv[++i];
    else if (!strcmp(argv[i], "--a") && i + 1 < argc)
      side_a.selector = argv[++i];
    else if (!strcmp(argv[i], "--b") && i + 1 < argc)
      side_b.selector = argv[++i];
    else if (!strcmp(argv[i], "--barriers"))
      barrier_heavy = true;
    else if (!strcmp(argv[i], "--print"))
      print_kernels = true;
    else if (!strcmp(argv[i], "--referee") && i + 1 < argc)
      referee.selector = argv[++i];
    else if (argv[i][0] == '-') {
      fprintf(stderr,
              "usage: %s [--seconds S] [--count N] [--seed S] [--save DIR] [--a SEL] "
              "[--b SEL] [--barriers] [--print] [--referee SEL] [FILE...]\n",
              argv[0]);
      return 2;
    } else {
      first_file = i;
      break;
    }
  }
  if (seconds <= 0 && count < 0) count = first_file < argc ? 0 : 20;
  setenv("ANYGPU_CACHE", "0", 1);
  fuzz_tally tally = {0};
  double start = now();
  if (first_file < argc) {
    if (!open_sides(&side_a, &side_b)) return 77;
    run_files(argv + first_file, argc - first_file, &tally);
    tally.driver_only = driver_only;
  }
  /* the generated cases, in children; none opens a device here before */
  if ((count > 0 || seconds > 0) &&
      fuzz_supervise(run_seeds, seed, count, seconds > 0 ? start + seconds : 0, side_b.selector,
                     referee.selector, &tally) == 77 &&
      first_file == argc)
    return 77;
  printf("%s vs %s: %d kernels agreed, %d did not, in %.1f s\n", side_a.selector, side_b.selector,
         tally.passed, tally.failed, now() - start);
  if (referee.selector)
    printf(
        "of the agreeing: %d where %s alone differed or crashed (%s and %s agree: a driver "
        "bug)\n",
        tally.driver_only, side_b.selector, side_a.selector, referee.selector);
  if (tally.crashes) printf("%d cases crashed a device's process\n", tally.crashes);
  printf("%d passed, %d failed, 0 skipped\n", tally.passed, tally.failed);
  return tally.failed ? 1 : 0;
}
