// SPDX-License-Identifier: Apache-2.0
/* A command-line tool the tests run (glslangValidator, spirv-val), looked
 * for in PATH, then /usr/bin and /usr/local/bin. */
#ifndef AGPU_TEST_TOOLS_H
#define AGPU_TEST_TOOLS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Its path in `path`; false when it is in none of those directories. */
static inline bool agpu_test_find_tool(const char *name, char *path, size_t size) {
  const char *env_path = getenv("PATH");
  char dirs[4096];
  snprintf(dirs, sizeof dirs, "%s:/usr/bin:/usr/local/bin", env_path ? env_path : "");
  for (char *dir = strtok(dirs, ":"); dir; dir = strtok(NULL, ":")) {
    snprintf(path, size, "%s/%s", dir, name);
    if (access(path, X_OK) == 0) return true;
  }
  return false;
}

#endif /* AGPU_TEST_TOOLS_H */
