// SPDX-License-Identifier: Apache-2.0
/* The launch size from which the generated code stores with streaming
 * (non-temporal) stores (kernels/emit_c_stream.c): a launch whose bytes
 * reach the last-level cache would push its own output out of the cache
 * anyway, so skipping the read of each line an ordinary store costs is
 * free; a smaller one keeps its output in the cache for the next kernel.
 * $ANYGPU_CPU_STREAM_BYTES overrides it: a number of bytes (0: every
 * launch of such a kernel streams), or "off". */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

static pthread_once_t agpu_cpu_stream_once = PTHREAD_ONCE_INIT;
static size_t agpu_cpu_stream_threshold;

static void agpu_cpu_stream_choose(void) {
  const char *env = getenv("ANYGPU_CPU_STREAM_BYTES");
  if (env && strcmp(env, "off") == 0) {
    agpu_cpu_stream_threshold = SIZE_MAX;
    return;
  }
  if (env && *env) {
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(env, &end, 10);
    if (errno == 0 && end && *end == '\0' && env[0] != '-') {
      agpu_cpu_stream_threshold = value > SIZE_MAX ? SIZE_MAX : (size_t)value;
      return;
    }
  }
  uint64_t cache = agpu_cpu_last_level_cache();
  if (cache == 0) cache = (uint64_t)32 << 20; /* unknown: a large one */
  agpu_cpu_stream_threshold = cache > SIZE_MAX ? SIZE_MAX : (size_t)cache;
}

void agpu_cpu_stream_setup(void *handle) {
  size_t *bytes = (size_t *)dlsym(handle, "kl_c_stream_bytes");
  if (!bytes) return; /* no kernel that streams */
  pthread_once(&agpu_cpu_stream_once, agpu_cpu_stream_choose);
  *bytes = agpu_cpu_stream_threshold;
}
