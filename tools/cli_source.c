// SPDX-License-Identifier: Apache-2.0
/* cli_read_source (cli.h): kernel sources for compile and run. */
#define _GNU_SOURCE /* O_CLOEXEC, S_ISSOCK */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char *kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/* Reads at most CLI_MAX_SOURCE_BYTES + 1 bytes, to tell a source at the
 * limit from a larger one that grew after its size was checked. */
static char *read_capped(int fd, const char *name, size_t *length, char *error, size_t capacity) {
  size_t size = 1 << 16, used = 0;
  char *text = malloc(size);
  while (text) {
    if (used == size - 1) {
      char *grown = realloc(text, size *= 2);
      if (!grown) free(text);
      text = grown;
      if (!text) break;
    }
    ssize_t n = read(fd, text + used, size - 1 - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      snprintf(error, capacity, "cannot read %s: %s", name, strerror(errno));
      free(text);
      return NULL;
    }
    if (n == 0) break;
    used += (size_t)n;
    if (used > CLI_MAX_SOURCE_BYTES) break;
  }
  if (!text) {
    snprintf(error, capacity, "cannot read %s: %s", name, strerror(ENOMEM));
    return NULL;
  }
  if (used > CLI_MAX_SOURCE_BYTES) {
    snprintf(error, capacity, "%s is more than the %zu MiB a kernel source may be", name,
             CLI_MAX_SOURCE_BYTES >> 20);
    free(text);
    return NULL;
  }
  text[used] = '\0';
  *length = used;
  return text;
}

char *cli_read_source(const char *path, size_t *length, char *error, size_t capacity) {
  *length = 0;
  if (strcmp(path, "-") == 0)
    return read_capped(STDIN_FILENO, "standard input", length, error, capacity);
  /* O_NONBLOCK: a FIFO put in the file's place after the check below must
   * not block the open; the fstat then refuses it. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (errno == EISDIR)
      snprintf(error, capacity, "cannot read %s: it is a directory", path);
    else
      snprintf(error, capacity, "cannot read %s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(error, capacity, "cannot read %s: it is %s, not a kernel source file", path,
             kind_of(st.st_mode));
    close(fd);
    return NULL;
  }
  if ((uint64_t)st.st_size > CLI_MAX_SOURCE_BYTES) {
    snprintf(error, capacity,
             "cannot read %s: it is %lld bytes, more than the %zu MiB a kernel source may be", path,
             (long long)st.st_size, CLI_MAX_SOURCE_BYTES >> 20);
    close(fd);
    return NULL;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  char *text = read_capped(fd, path, length, error, capacity);
  close(fd);
  return text;
}
