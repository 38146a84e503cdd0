// SPDX-License-Identifier: Apache-2.0
/* Telemetry: one DRM client's usage stats from /proc/PID/fdinfo/FD, in the
 * kernel's format (Documentation/gpu/drm-usage-stats.rst): drm-pdev,
 * drm-client-id, drm-engine-<e> (ns), drm-cycles-<e> with
 * drm-total-cycles-<e> (xe), drm-resident-/drm-memory-/drm-total-<region>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_physical.h"
#include "agpu_telemetry_fdinfo.h"

/* "123 KiB" → bytes. */
static uint64_t agpu_tm_fd_bytes(const char *value) {
  char *end;
  uint64_t number = strtoull(value, &end, 10);
  while (*end == ' ') end++;
  if (strncmp(end, "KiB", 3) == 0) return number << 10;
  if (strncmp(end, "MiB", 3) == 0) return number << 20;
  if (strncmp(end, "GiB", 3) == 0) return number << 30;
  return number;
}

static agpu_tm_fd_engine *agpu_tm_fd_engine_named(agpu_tm_fd *fd, const char *name, size_t length) {
  for (uint32_t i = 0; i < fd->engine_count; i++)
    if (strlen(fd->engines[i].name) == length && strncmp(fd->engines[i].name, name, length) == 0)
      return &fd->engines[i];
  if (fd->engine_count == AGPU_TM_MAX_ENGINES || length >= sizeof fd->engines[0].name) return NULL;
  agpu_tm_fd_engine *engine = &fd->engines[fd->engine_count++];
  memset(engine, 0, sizeof *engine);
  memcpy(engine->name, name, length);
  return engine;
}

/* Device memory (vram, local, stolen) or memory the device maps (gtt,
 * system, cpu); resident beats memory beats total for one region. */
static void agpu_tm_fd_memory(agpu_tm_fd *fd, const char *region, size_t length, int rank,
                              uint64_t bytes) {
  bool device = strncmp(region, "vram", 4) == 0 || strncmp(region, "local", 5) == 0 ||
                strncmp(region, "stolen", 6) == 0;
  for (uint32_t i = 0; i < fd->region_count; i++) {
    agpu_tm_fd_region *known = &fd->regions[i];
    if (strlen(known->name) != length || strncmp(known->name, region, length) != 0) continue;
    if (rank > known->rank) {
      known->rank = rank;
      known->bytes = bytes;
    }
    return;
  }
  if (fd->region_count == AGPU_TM_FD_MAX_REGIONS || length >= sizeof fd->regions[0].name) return;
  agpu_tm_fd_region *added = &fd->regions[fd->region_count++];
  memcpy(added->name, region, length);
  added->name[length] = '\0';
  added->device = device;
  added->rank = rank;
  added->bytes = bytes;
}

static void agpu_tm_fd_line(agpu_tm_fd *fd, const char *key, size_t key_length, const char *value) {
  static const struct {
    const char *prefix;
    int rank;
  } memory[] = {{"drm-resident-", 3}, {"drm-memory-", 2}, {"drm-total-", 1}};
  char pdev[64];
  if (key_length == 8 && strncmp(key, "drm-pdev", 8) == 0) {
    size_t length = strcspn(value, "\n");
    snprintf(pdev, sizeof pdev, "%.*s", (int)length, value);
    fd->has_pdev = agpu_pci_address_normalize(pdev, strlen(pdev), fd->pdev);
  } else if (key_length == 13 && strncmp(key, "drm-client-id", 13) == 0) {
    fd->client_id = strtoull(value, NULL, 10);
  } else if (strncmp(key, "drm-engine-", 11) == 0 && strncmp(key, "drm-engine-capacity-", 20)) {
    agpu_tm_fd_engine *engine = agpu_tm_fd_engine_named(fd, key + 11, key_length - 11);
    if (engine) engine->busy = strtoull(value, NULL, 10);
  } else if (strncmp(key, "drm-cycles-", 11) == 0) {
    agpu_tm_fd_engine *engine = agpu_tm_fd_engine_named(fd, key + 11, key_length - 11);
    if (engine) engine->busy = strtoull(value, NULL, 10);
  } else if (strncmp(key, "drm-total-cycles-", 17) == 0) {
    agpu_tm_fd_engine *engine = agpu_tm_fd_engine_named(fd, key + 17, key_length - 17);
    if (engine) engine->total = strtoull(value, NULL, 10);
  } else {
    for (size_t i = 0; i < sizeof memory / sizeof memory[0]; i++) {
      size_t prefix = strlen(memory[i].prefix);
      if (key_length > prefix && strncmp(key, memory[i].prefix, prefix) == 0)
        agpu_tm_fd_memory(fd, key + prefix, key_length - prefix, memory[i].rank,
                          agpu_tm_fd_bytes(value));
    }
  }
}

bool agpu_tm_fd_parse(const char *text, agpu_tm_fd *fd) {
  memset(fd, 0, sizeof *fd);
  for (const char *line = text; line && *line;) {
    const char *colon = strchr(line, ':');
    const char *end = strchr(line, '\n');
    if (colon && (!end || colon < end) && strncmp(line, "drm-", 4) == 0) {
      const char *value = colon + 1;
      while (*value == ' ' || *value == '\t') value++;
      agpu_tm_fd_line(fd, line, (size_t)(colon - line), value);
    }
    line = end ? end + 1 : NULL;
  }
  return fd->has_pdev;
}
