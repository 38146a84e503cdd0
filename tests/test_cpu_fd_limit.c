// SPDX-License-Identifier: Apache-2.0
/* Running out of file descriptors while cpu:0 builds (issue 33, item 12):
 * the C compiler inherits the process's RLIMIT_NOFILE, and with a low one
 * the linker fails ("cannot find -lc: Too many open files"). That is the
 * environment, not the translation: the message must say file descriptors
 * and the limit, never "a bug in the C translation". The soft limit is
 * lowered step by step (6 to 64) around builds of fresh sources, with the
 * cache off; at least one step must make the compiler fail (else skip). */
#include <sys/resource.h>

#include "agpu_test.h"

static void low_descriptor_limits(void) {
  agpu_device *device = agpu_test_device("cpu:0");
  if (!device) SKIP("no cpu:0: %s", agpu_last_error());
  setenv("ANYGPU_CACHE", "0", 1);
  struct rlimit saved;
  CHECK(getrlimit(RLIMIT_NOFILE, &saved) == 0);
  int compiler_failures = 0;
  for (rlim_t n = 6; n <= 64; n++) {
    char options[64];
    snprintf(options, sizeof options, "-DSTEP=%lu", (unsigned long)n);
    agpu_program_desc desc = {.source = "__kernel void k(__global int *a) { a[0] = STEP; }\n",
                              .options = options};
    agpu_program *program = NULL;
    struct rlimit low = {n < saved.rlim_cur ? n : saved.rlim_cur, saved.rlim_max};
    CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
    agpu_status status = agpu_program_build(device, &desc, &program);
    CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
    if (status == AGPU_SUCCESS) {
      agpu_program_release(program);
      continue;
    }
    const char *message = agpu_last_error();
    if (strstr(message, "bug in the C translation") || status == AGPU_ERROR_INTERNAL) {
      printf("  limit %lu: %s: %.400s\n", (unsigned long)n, agpu_status_name(status), message);
      CHECK(false);
    }
    if (strstr(message, "ran out of file descriptors")) {
      compiler_failures++;
      char limit[64];
      snprintf(limit, sizeof limit, "limit, which it inherits, is %lu", (unsigned long)n);
      CHECK_MESSAGE(limit);
    }
  }
  unsetenv("ANYGPU_CACHE");
  printf("  %d builds failed for want of file descriptors in the compiler\n", compiler_failures);
  if (compiler_failures == 0) SKIP("no limit from 6 to 64 made the C compiler fail here");
}

int main(void) {
  RUN(low_descriptor_limits);
  return agpu_test_finish();
}
