// SPDX-License-Identifier: Apache-2.0
/* The sgemm variant chosen per device, remembered in the anygpu cache
 * directory (docs/cache.md: $ANYGPU_CACHE_DIR, $XDG_CACHE_HOME/anygpu or
 * ~/.cache/anygpu; ANYGPU_CACHE=0 turns it off; agpu_cache_check decides,
 * so a directory the library refuses gets nothing) in bench-sgemm.txt, one line
 * per key: the key (backend, device, driver and API versions, anygpu's
 * version, the variant set's number and n), a tab and the variant. Written whole to a temporary
 * file and renamed, so that a reader never sees half of it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agpu_cache.h"
#include "bench.h"

#define TUNING_FILE "bench-sgemm.txt"
#define TUNING_MAX_LINES 256
/* Raised when bench_sgemm.c's variants change, so that a choice made among
 * the old ones is tuned again (3: the register-blocked sgemm_gpu shapes, tuned on 3 runs each). */
#define TUNING_VARIANT_SET 3

/* The library's cache directory, created as the library creates it; none
 * when the cache is off or the library refuses the directory (not the
 * user's, writable by others, or holding files that are not anygpu's). */
static bool tuning_directory(char *out, size_t capacity) {
  return agpu_cache_check(out, capacity) == AGPU_CACHE_ENABLED && out[0] == '/';
}

static void tuning_key(const agpu_device_info *info, uint32_t n, char *key, size_t capacity) {
  snprintf(key, capacity, "%s|%s|%s|%s|anygpu %s|variants %d|n=%u", info->backend_name, info->name,
           info->driver_version, info->api_version, agpu_version(), TUNING_VARIANT_SET, n);
  for (char *c = key; *c; c++)
    if (*c == '\t' || *c == '\n' || *c == '\r') *c = ' ';
}

bool bench_tuning_lookup(const agpu_device_info *info, uint32_t n, char *variant, size_t capacity) {
  char dir[4096], path[4200], key[1024], line[1200];
  if (!tuning_directory(dir, sizeof dir)) return false;
  snprintf(path, sizeof path, "%s/%s", dir, TUNING_FILE);
  tuning_key(info, n, key, sizeof key);
  FILE *file = fopen(path, "r");
  if (!file) return false;
  bool found = false;
  size_t key_length = strlen(key);
  while (!found && fgets(line, sizeof line, file)) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, key, key_length) == 0 && line[key_length] == '\t') {
      snprintf(variant, capacity, "%s", line + key_length + 1);
      found = variant[0] != '\0';
    }
  }
  fclose(file);
  return found;
}

void bench_tuning_store(const agpu_device_info *info, uint32_t n, const char *variant) {
  char dir[4096], path[4200], temporary[4300], key[1024];
  if (!tuning_directory(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/%s", dir, TUNING_FILE);
  snprintf(temporary, sizeof temporary, "%s/.%s.%ld.tmp", dir, TUNING_FILE, (long)getpid());
  tuning_key(info, n, key, sizeof key);
  FILE *out = fopen(temporary, "w");
  if (!out) return;
  FILE *in = fopen(path, "r");
  size_t key_length = strlen(key);
  int kept = 0;
  char line[1200];
  while (in && kept < TUNING_MAX_LINES - 1 && fgets(line, sizeof line, in)) {
    if (strncmp(line, key, key_length) == 0 && line[key_length] == '\t') continue;
    if (!strchr(line, '\t')) continue;
    fputs(line, out);
    kept++;
  }
  if (in) fclose(in);
  fprintf(out, "%s\t%s\n", key, variant);
  bool ok = fclose(out) == 0;
  if (ok && rename(temporary, path) == 0) return;
  unlink(temporary);
}
