// SPDX-License-Identifier: Apache-2.0
/* Writing a whole buffer to a file descriptor (agpu_io.h). Only
 * write(2): safe in a forked child (hip_compile.c). */
#include <errno.h>
#include <unistd.h>

#include "agpu_io.h"

bool agpu_write_all(int fd, const void *data, size_t size) {
  const char *at = data;
  while (size > 0) {
    ssize_t n = write(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    size -= (size_t)n;
  }
  return true;
}
