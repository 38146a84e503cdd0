// SPDX-License-Identifier: Apache-2.0
/* Telemetry: the processes using each DRM GPU and their engine time, from
 * every process's DRM clients (/proc/PID/fdinfo/FD, as nvtop reads them);
 * the busiest engine's share of the window is the device's utilisation
 * where the driver has no busy counter of its own. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agpu_telemetry_fdinfo.h"

typedef struct agpu_tm_fd_scan {
  agpu_telemetry *sample;
  agpu_process_telemetry *processes[AGPU_TM_MAX_ENTRIES];
  uint32_t counts[AGPU_TM_MAX_ENTRIES], capacities[AGPU_TM_MAX_ENTRIES];
  uint32_t unreadable; /* processes whose fdinfo could not be listed */
  int unreadable_errno;
} agpu_tm_fd_scan;

static agpu_process_telemetry *agpu_tm_fd_process(agpu_tm_fd_scan *scan, uint32_t e, uint32_t pid) {
  for (uint32_t i = 0; i < scan->counts[e]; i++)
    if (scan->processes[e][i].pid == pid) return &scan->processes[e][i];
  if (scan->counts[e] == scan->capacities[e]) {
    uint32_t grown = scan->capacities[e] ? scan->capacities[e] * 2 : 16;
    agpu_process_telemetry *bigger = realloc(scan->processes[e], grown * sizeof *bigger);
    if (!bigger) return NULL;
    scan->processes[e] = bigger;
    scan->capacities[e] = grown;
  }
  agpu_process_telemetry *process = &scan->processes[e][scan->counts[e]++];
  memset(process, 0, sizeof *process);
  process->pid = pid;
  return process;
}

/* Adds one client to its GPU's engines and its process's memory. */
static void agpu_tm_fd_account(agpu_tm_fd_scan *scan, uint32_t pid, const agpu_tm_fd *fd) {
  for (uint32_t e = 0; e < scan->sample->entry_count; e++) {
    agpu_tm_entry *entry = &scan->sample->entries[e];
    if (strcmp(entry->key, fd->pdev) != 0) continue;
    agpu_tm_client client = {pid, fd->client_id, 0, 0};
    for (uint32_t i = 0; i < fd->engine_count; i++) {
      client.busy += fd->engines[i].busy;
      if (fd->engines[i].total > client.total) client.total = fd->engines[i].total;
    }
    if (!agpu_tm_add_client(entry, &client)) return;
    for (uint32_t i = 0; i < fd->engine_count; i++) {
      uint32_t slot = 0;
      while (slot < entry->engine_count && strcmp(entry->engine_names[slot], fd->engines[i].name))
        slot++;
      if (slot == AGPU_TM_MAX_ENGINES) continue;
      if (slot == entry->engine_count)
        snprintf(entry->engine_names[entry->engine_count++], sizeof entry->engine_names[0], "%s",
                 fd->engines[i].name);
      entry->engine_busy[slot] += fd->engines[i].busy;
      if (fd->engines[i].total > entry->engine_total[slot])
        entry->engine_total[slot] = fd->engines[i].total;
    }
    agpu_process_telemetry *process = agpu_tm_fd_process(scan, e, pid);
    for (uint32_t i = 0; process && i < fd->region_count; i++) {
      agpu_telemetry_bytes *field =
          fd->regions[i].device ? &process->memory : &process->shared_memory;
      agpu_tm_set_bytes(field, field->bytes + fd->regions[i].bytes);
    }
    return;
  }
}

/* A descriptor whose fd link names something other than /dev/dri is not
 * a DRM client; a plain file (a replayed machine) is read. */
static bool agpu_tm_fd_may_be_drm(const agpu_telemetry *sample, uint32_t pid, const char *fd) {
  char path[AGPU_TM_PATH], target[64];
  if (!agpu_tm_path(sample, path, sizeof path, "/proc/%u/fd/%s", pid, fd)) return false;
  ssize_t length = readlink(path, target, sizeof target - 1);
  if (length < 0) return true;
  target[length] = '\0';
  return strncmp(target, "/dev/dri/", 9) == 0;
}

static void agpu_tm_fd_process_scan(agpu_tm_fd_scan *scan, uint32_t pid) {
  char path[AGPU_TM_PATH], text[4096];
  DIR *fds =
      agpu_tm_path(scan->sample, path, sizeof path, "/proc/%u/fdinfo", pid) ? opendir(path) : NULL;
  if (!fds) {
    if (errno == EACCES || errno == EPERM) {
      scan->unreadable++;
      scan->unreadable_errno = errno;
    }
    return;
  }
  struct dirent *item;
  while ((item = readdir(fds)) != NULL) {
    if (item->d_name[0] == '.' || !agpu_tm_fd_may_be_drm(scan->sample, pid, item->d_name)) continue;
    agpu_tm_fd fd;
    if (agpu_tm_path(scan->sample, path, sizeof path, "/proc/%u/fdinfo/%s", pid, item->d_name) &&
        agpu_tm_read_file(path, text, sizeof text) && agpu_tm_fd_parse(text, &fd))
      agpu_tm_fd_account(scan, pid, &fd);
  }
  closedir(fds);
}

/* The busiest engine's share of the window since the previous sample. */
static void agpu_tm_fd_utilization(const agpu_telemetry *sample, agpu_tm_entry *entry,
                                   const agpu_telemetry *previous) {
  const agpu_tm_entry *before = agpu_tm_previous_entry(previous, entry->key);
  if (entry->info.utilization_percent.known || !before || sample->window_s <= 0) return;
  for (uint32_t i = 0; i < entry->engine_count; i++) {
    for (uint32_t j = 0; j < before->engine_count; j++) {
      if (strcmp(entry->engine_names[i], before->engine_names[j]) != 0) continue;
      uint64_t busy = entry->engine_busy[i] > before->engine_busy[j]
                          ? entry->engine_busy[i] - before->engine_busy[j]
                          : 0;
      uint64_t total = entry->engine_total[i] > before->engine_total[j]
                           ? entry->engine_total[i] - before->engine_total[j]
                           : 0;
      if (entry->engine_total[i] && !total) continue; /* the cycle counter stood still */
      double percent = entry->engine_total[i] ? 100.0 * (double)busy / (double)total
                                              : 100.0 * (double)busy / 1e9 / sample->window_s;
      if (!entry->info.utilization_percent.known || percent > entry->info.utilization_percent.value)
        agpu_tm_set(&entry->info.utilization_percent, percent);
    }
  }
}

static void agpu_tm_fd_finish(agpu_tm_fd_scan *scan, uint32_t e, const agpu_telemetry *previous) {
  agpu_tm_entry *entry = &scan->sample->entries[e];
  /* NVIDIA's driver keeps no DRM usage stats: NVML lists its processes. */
  if (entry->info.type == AGPU_DEVICE_TYPE_CPU || strcmp(entry->info.driver, "nvidia") == 0)
    return;
  agpu_tm_sort_processes(&entry->info,
                         scan->processes[e] ? scan->processes[e] : (agpu_process_telemetry[1]){0},
                         scan->counts[e]);
  for (uint32_t i = 0; i < entry->info.process_count; i++) {
    agpu_process_telemetry *process = &entry->info.processes[i];
    agpu_tm_process_name(scan->sample, process->pid, process->name, sizeof process->name);
    double percent;
    if (agpu_tm_client_rate(scan->sample, entry, previous, process->pid, 1.0, &percent))
      agpu_tm_set(&process->engine_percent, percent);
  }
  agpu_tm_fd_utilization(scan->sample, entry, previous);
  agpu_tm_answered(entry, "fdinfo");
  if (scan->unreadable)
    agpu_tm_missing(entry, "fdinfo",
                    "/proc/PID/fdinfo of %u process%s unreadable (%s): their use is not counted",
                    scan->unreadable, scan->unreadable == 1 ? "" : "es",
                    strerror(scan->unreadable_errno));
}

void agpu_tm_fdinfo_read(agpu_telemetry *sample, const agpu_telemetry *previous) {
  char path[AGPU_TM_PATH];
  DIR *proc = agpu_tm_path(sample, path, sizeof path, "/proc") ? opendir(path) : NULL;
  if (!proc) {
    agpu_tm_source(sample, "fdinfo", "%s: %s", path, strerror(errno));
    return;
  }
  agpu_tm_fd_scan *scan = calloc(1, sizeof *scan);
  if (!scan) {
    closedir(proc);
    return;
  }
  scan->sample = sample;
  struct dirent *item;
  while ((item = readdir(proc)) != NULL) {
    char *end;
    unsigned long pid = strtoul(item->d_name, &end, 10);
    if (end != item->d_name && *end == '\0') agpu_tm_fd_process_scan(scan, (uint32_t)pid);
  }
  closedir(proc);
  for (uint32_t e = 0; e < sample->entry_count; e++) {
    agpu_tm_fd_finish(scan, e, previous);
    free(scan->processes[e]);
  }
  free(scan);
  agpu_tm_source(sample, "fdinfo", "%s", "");
}
