// SPDX-License-Identifier: Apache-2.0
/* Errors are values: a status plus a thread-local message. */
#ifndef AGPU_ERROR_H
#define AGPU_ERROR_H

#include "anygpu.h"

#if defined(__GNUC__)
#define AGPU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AGPU_PRINTF(f, a)
#endif

/* Sets this thread's message and returns `status`, so that a failure reads
 * `return agpu_error_set(AGPU_ERROR_..., "opencl: clFoo failed: %s", ...);` */
agpu_status agpu_error_set(agpu_status status, const char *format, ...) AGPU_PRINTF(2, 3);
/* Appends to the current message (for build logs and lists of reasons). */
void agpu_error_append(const char *format, ...) AGPU_PRINTF(1, 2);
void agpu_error_clear(void);
/* Puts "function: " before the current message unless it starts so already:
 * a backend's failure then names the public function it failed in. Returns
 * `status`; does nothing for AGPU_SUCCESS. */
agpu_status agpu_error_prefix(agpu_status status, const char *function);

/* Formats a byte count for people: "4.0 GiB", "512 B". */
const char *agpu_format_bytes(uint64_t bytes, char *out, size_t out_size);

/* A native API's result codes and the status each means, for the backends'
 * *_status functions: a table, looked up by agpu_status_lookup; a code not
 * in it is `otherwise`. */
typedef struct agpu_status_map {
  long long code;
  agpu_status status;
} agpu_status_map;

agpu_status agpu_status_lookup(const agpu_status_map *map, size_t count, long long code,
                               agpu_status otherwise);

#endif /* AGPU_ERROR_H */
