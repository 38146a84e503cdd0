// SPDX-License-Identifier: Apache-2.0
/* Opening vendor libraries the way the backends do, and finding which file
 * and version a name resolved to. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

void *doctor_dlopen(const char *name, char *error, size_t capacity) {
  dlerror();
  void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  const char *message = handle ? "" : dlerror();
  doctor_format(error, capacity, "%s", message ? message : "unknown dlopen error");
  return handle;
}

void doctor_library_path(void *handle, char *out, size_t capacity) {
  out[0] = '\0';
  struct link_map *map = NULL;
  if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) return;
  char *resolved = realpath(map->l_name, NULL);
  doctor_format(out, capacity, "%s", resolved ? resolved : map->l_name);
  free(resolved);
}

void doctor_version_from_path(const char *path, const char *stem, char *out, size_t capacity) {
  out[0] = '\0';
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t stem_length = strlen(stem);
  if (strncmp(base, stem, stem_length) != 0 || base[stem_length] != '.') return;
  const char *version = base + stem_length + 1;
  /* "1" alone is an soname's major number, not a driver version. */
  if (!strchr(version, '.')) return;
  doctor_format(out, capacity, "%s", version);
}
