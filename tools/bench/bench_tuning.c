/* The sgemm variant chosen per device, remembered in the anygpu cache
 * directory (docs/cache.md: $ANYGPU_CACHE_DIR, $XDG_CACHE_HOME/anygpu or
 * ~/.cache/anygpu; ANYGPU_CACHE=0 turns it off) in bench-sgemm.txt, one line
 * per key: the key (backend, device, driver and API versions, anygpu's
 * version and n), a tab and the variant. Written whole to a temporary file
 * and renamed, so that a reader never sees half of it. */
#define _GNU_SOURCE /* strcasecmp */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define TUNING_FILE "bench-sgemm.txt"
#define TUNING_MAX_LINES 256

static bool tuning_directory(char *out, size_t capacity) {
  const char *off = getenv("ANYGPU_CACHE");
  if (off && (strcasecmp(off, "0") == 0 || strcasecmp(off, "off") == 0 ||
              strcasecmp(off, "no") == 0 || strcasecmp(off, "false") == 0))
    return false;
  const char *dir = getenv("ANYGPU_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  int length;
  if (dir && dir[0] == '/')
    length = snprintf(out, capacity, "%s", dir);
  else if (dir && dir[0])
    return false; /* refused, as the library refuses it */
  else if (xdg && xdg[0] == '/')
    length = snprintf(out, capacity, "%s/anygpu", xdg);
  else if (home && home[0] == '/')
    length = snprintf(out, capacity, "%s/.cache/anygpu", home);
  else
    return false;
  return length > 0 && (size_t)length < capacity;
}

static void tuning_key(const agpu_device_info *info, uint32_t n, char *key, size_t capacity) {
  snprintf(key, capacity, "%s|%s|%s|%s|anygpu %s|n=%u", info->backend_name, info->name,
           info->driver_version, info->api_version, agpu_version(), n);
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

static void make_directories(const char *path) {
  char partial[4096];
  snprintf(partial, sizeof partial, "%s", path);
  for (char *slash = strchr(partial + 1, '/');; slash = strchr(slash + 1, '/')) {
    if (slash) *slash = '\0';
    if (mkdir(partial, 0700) != 0 && errno != EEXIST) return;
    if (!slash) return;
    *slash = '/';
  }
}

void bench_tuning_store(const agpu_device_info *info, uint32_t n, const char *variant) {
  char dir[4096], path[4200], temporary[4300], key[1024];
  if (!tuning_directory(dir, sizeof dir)) return;
  make_directories(dir);
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
