// SPDX-License-Identifier: Apache-2.0
/* A minimal test harness: each test program runs its cases, prints one line
 * per failed check, and ends with "N passed, N failed, N skipped". */
#ifndef AGPU_TEST_H
#define AGPU_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anygpu.h"

typedef struct agpu_test_state {
  int passed, failed, skipped;
  int case_failed;
  const char *case_name;
} agpu_test_state;

static agpu_test_state agpu_test_g; /* per test program; tests run on one thread */

#define CHECK(cond)                                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      printf("  FAIL %s:%d: %s: CHECK(%s)\n", __FILE__, __LINE__, agpu_test_g.case_name, #cond); \
      agpu_test_g.case_failed = 1;                                                               \
    }                                                                                            \
  } while (0)

/* Checks that a call returns `expected`; prints the message on a mismatch. */
#define CHECK_STATUS(call, expected)                                                         \
  do {                                                                                       \
    agpu_status s_ = (call);                                                                 \
    if (s_ != (expected)) {                                                                  \
      printf("  FAIL %s:%d: %s: %s returned %s, expected %s: %s\n", __FILE__, __LINE__,      \
             agpu_test_g.case_name, #call, agpu_status_name(s_), agpu_status_name(expected), \
             agpu_last_error());                                                             \
      agpu_test_g.case_failed = 1;                                                           \
    }                                                                                        \
  } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, AGPU_SUCCESS)

/* Checks that the thread's last message contains `needle`. */
#define CHECK_MESSAGE(needle)                                                       \
  do {                                                                              \
    if (!strstr(agpu_last_error(), (needle))) {                                     \
      printf("  FAIL %s:%d: %s: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, \
             agpu_test_g.case_name, agpu_last_error(), (needle));                   \
      agpu_test_g.case_failed = 1;                                                  \
    }                                                                               \
  } while (0)

/* Runs a case: a function `void name(void)`. A case that calls SKIP() is
 * counted as skipped with its reason. */
#define RUN(name)                                 \
  do {                                            \
    agpu_test_g.case_name = #name;                \
    agpu_test_g.case_failed = 0;                  \
    int skipped_before_ = agpu_test_g.skipped;    \
    name();                                       \
    if (agpu_test_g.skipped != skipped_before_) { \
    } else if (agpu_test_g.case_failed) {         \
      agpu_test_g.failed++;                       \
      printf("FAIL %s\n", #name);                 \
    } else {                                      \
      agpu_test_g.passed++;                       \
      printf("ok   %s\n", #name);                 \
    }                                             \
  } while (0)

#define SKIP(...)                               \
  do {                                          \
    printf("skip %s: ", agpu_test_g.case_name); \
    printf(__VA_ARGS__);                        \
    printf("\n");                               \
    agpu_test_g.skipped++;                      \
    return;                                     \
  } while (0)

/* Exit 77 tells ctest the whole program was skipped (SKIP_RETURN_CODE). */
static inline int agpu_test_finish(void) {
  printf("%d passed, %d failed, %d skipped\n", agpu_test_g.passed, agpu_test_g.failed,
         agpu_test_g.skipped);
  if (agpu_test_g.failed) return 1;
  if (agpu_test_g.passed == 0 && agpu_test_g.skipped > 0) return 77;
  return 0;
}

/* A file's bytes, NUL-terminated, malloc'd; *length (when not NULL) their
 * count. NULL when it cannot be read. */
static inline char *agpu_test_read_file(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  fclose(f);
  if (!text) return NULL;
  text[n] = '\0';
  if (length) *length = (size_t)n;
  return text;
}

/* The device a selector names, or NULL. */
static inline agpu_device *agpu_test_device(const char *selector) {
  agpu_device *device = NULL;
  if (agpu_device_select(selector, &device) != AGPU_SUCCESS) return NULL;
  return device;
}

/* Why a backend has no devices, in its own words. */
static inline const char *agpu_test_backend_reason(const char *backend) {
  uint32_t index = 0;
  agpu_backend_info info;
  if (agpu_backend_find(backend, &index) || agpu_backend_get_info(index, &info)) return "?";
  return info.reason[0] ? info.reason : "no devices";
}

/* Declares `device` as the backend's first device, or skips the case. */
#define REQUIRE_DEVICE(device, backend)                 \
  agpu_device *device = agpu_test_device(backend ":0"); \
  if (!device) SKIP("no %s device: %s", backend, agpu_test_backend_reason(backend))

/* xorshift64*: reproducible random inputs from a seed. */
static inline uint64_t agpu_test_rand(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}
static inline float agpu_test_randf(uint64_t *state, float lo, float hi) {
  return lo + (hi - lo) * (float)((agpu_test_rand(state) >> 40) / 16777216.0);
}

#endif /* AGPU_TEST_H */
