// SPDX-License-Identifier: Apache-2.0
/* Reading the system through the sysroot: /sys, /proc, /dev and /etc under
 * `--sysroot DIR`, so that tests can stage a machine in a directory. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"

bool doctor_path(const doctor_context *context, const char *absolute, char *out, size_t capacity) {
  int length = doctor_format(out, capacity, "%s%s", context->sysroot, absolute);
  return length >= 0 && (size_t)length < capacity;
}

bool doctor_read_file(const char *path, char *out, size_t capacity) {
  out[0] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  size_t length = 0;
  while (length + 1 < capacity) {
    ssize_t got = read(fd, out + length, capacity - 1 - length);
    if (got < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      close(fd);
      out[0] = '\0';
      errno = saved;
      return false;
    }
    if (got == 0) break;
    length += (size_t)got;
  }
  close(fd);
  out[length] = '\0';
  while (length && (out[length - 1] == '\n' || out[length - 1] == ' ' || out[length - 1] == '\t' ||
                    out[length - 1] == '\r'))
    out[--length] = '\0';
  return true;
}

bool doctor_read_system_file(const doctor_context *context, const char *absolute, char *out,
                             size_t capacity) {
  char path[DOCTOR_PATH_CAPACITY];
  if (!doctor_path(context, absolute, path, sizeof path)) {
    errno = ENAMETOOLONG;
    out[0] = '\0';
    return false;
  }
  return doctor_read_file(path, out, capacity);
}

bool doctor_read_hex(const char *path, uint32_t *value) {
  char text[64];
  if (!doctor_read_file(path, text, sizeof text)) return false;
  char *end;
  errno = 0;
  unsigned long parsed = strtoul(text, &end, 16);
  if (errno || end == text) return false;
  *value = (uint32_t)parsed;
  return true;
}

const char *doctor_getenv(const char *name) {
  return getenv(name);
}

static const char *errno_name(int error) {
  switch (error) {
    case EPERM:
      return "EPERM";
    case ENOENT:
      return "ENOENT";
    case EIO:
      return "EIO";
    case ENXIO:
      return "ENXIO";
    case EACCES:
      return "EACCES";
    case EBUSY:
      return "EBUSY";
    case ENODEV:
      return "ENODEV";
    case ENOTDIR:
      return "ENOTDIR";
    case EISDIR:
      return "EISDIR";
    case ELOOP:
      return "ELOOP";
    case ENAMETOOLONG:
      return "ENAMETOOLONG";
    case EROFS:
      return "EROFS";
    default:
      return "";
  }
}

const char *doctor_errno_text(int error, char *out, size_t capacity) {
  const char *name = errno_name(error);
  doctor_format(out, capacity, "errno %d%s%s: %s", error, name[0] ? " " : "", name,
                strerror(error));
  return out;
}

/* Calls `visit` for each line of the sysroot's /etc/group until it returns
 * true; `fields` are name, password, gid, members. */
static bool find_group_line(const doctor_context *context, unsigned gid, char *line_out,
                            size_t capacity) {
  char path[DOCTOR_PATH_CAPACITY];
  if (!doctor_path(context, "/etc/group", path, sizeof path)) return false;
  FILE *file = fopen(path, "r");
  if (!file) return false;
  char line[4096];
  bool found = false;
  while (!found && fgets(line, sizeof line, file)) {
    char *first = strchr(line, ':');
    char *second = first ? strchr(first + 1, ':') : NULL;
    if (!second) continue;
    char *end;
    unsigned long value = strtoul(second + 1, &end, 10);
    if (end == second + 1 || *end != ':' || value != gid) continue;
    line[strcspn(line, "\r\n")] = '\0';
    doctor_format(line_out, capacity, "%s", line);
    found = true;
  }
  fclose(file);
  return found;
}

const char *doctor_group_name(const doctor_context *context, unsigned gid, char *out,
                              size_t capacity) {
  char line[4096];
  if (find_group_line(context, gid, line, sizeof line)) {
    line[strcspn(line, ":")] = '\0';
    doctor_format(out, capacity, "%s", line);
  } else {
    doctor_format(out, capacity, "%u", gid);
  }
  return out;
}

bool doctor_process_in_group(unsigned gid) {
  if (getegid() == (gid_t)gid) return true;
  int count = getgroups(0, NULL);
  if (count <= 0) return false;
  gid_t *groups = calloc((size_t)count, sizeof *groups);
  if (!groups) return false;
  count = getgroups(count, groups);
  bool member = false;
  for (int i = 0; i < count; i++) member |= groups[i] == (gid_t)gid;
  free(groups);
  return member;
}

bool doctor_user_listed_in_group(const doctor_context *context, unsigned gid) {
  struct passwd *user = getpwuid(getuid());
  if (!user || !user->pw_name) return false;
  char line[4096];
  if (!find_group_line(context, gid, line, sizeof line)) return false;
  char *members = strrchr(line, ':');
  if (!members) return false;
  size_t name_length = strlen(user->pw_name);
  for (char *member = members + 1; *member;) {
    size_t length = strcspn(member, ",");
    if (length == name_length && strncmp(member, user->pw_name, length) == 0) return true;
    member += length;
    if (*member == ',') member++;
  }
  return false;
}
