// SPDX-License-Identifier: Apache-2.0
/* File-descriptor helpers shared by the core and the backends (io.c). */
#ifndef AGPU_IO_H
#define AGPU_IO_H

#include <stdbool.h>
#include <stddef.h>

/* Writes all `size` bytes (retrying short writes and EINTR); false on an
 * error (errno set). Uses write(2) alone, so a forked child may call it. */
bool agpu_write_all(int fd, const void *data, size_t size);

#endif /* AGPU_IO_H */
