// SPDX-License-Identifier: Apache-2.0
/* Telemetry: one DRM client's usage stats as parsed from its fdinfo. */
#ifndef AGPU_TELEMETRY_FDINFO_H
#define AGPU_TELEMETRY_FDINFO_H

#include "agpu_telemetry.h"

#define AGPU_TM_FD_MAX_REGIONS 8

typedef struct agpu_tm_fd_engine {
  char name[24];
  uint64_t busy;  /* ns, or cycles */
  uint64_t total; /* total cycles (xe); 0 for ns */
} agpu_tm_fd_engine;

typedef struct agpu_tm_fd_region {
  char name[24];
  bool device; /* vram, local, stolen: device memory; else mapped host memory */
  int rank;    /* 3 resident, 2 memory, 1 total: the best kept */
  uint64_t bytes;
} agpu_tm_fd_region;

typedef struct agpu_tm_fd {
  bool has_pdev;
  char pdev[16];
  uint64_t client_id;
  uint32_t engine_count;
  agpu_tm_fd_engine engines[AGPU_TM_MAX_ENGINES];
  uint32_t region_count;
  agpu_tm_fd_region regions[AGPU_TM_FD_MAX_REGIONS];
} agpu_tm_fd;

/* False when the text has no drm-pdev (not a DRM client of a PCI GPU). */
bool agpu_tm_fd_parse(const char *text, agpu_tm_fd *fd);

#endif /* AGPU_TELEMETRY_FDINFO_H */
