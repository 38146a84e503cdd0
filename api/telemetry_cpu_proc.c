// SPDX-License-Identifier: Apache-2.0
/* Telemetry of the CPU device's processes: the largest resident sets
 * (/proc/PID/statm) with their user and system time (/proc/PID/stat) over
 * the window, as a share of all cores. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agpu_telemetry.h"

/* utime + stime of /proc/PID/stat, in nanoseconds. */
static bool agpu_tm_process_cpu_ns(const agpu_telemetry *sample, uint32_t pid, uint64_t *ns) {
  char path[AGPU_TM_PATH], text[1024];
  if (!agpu_tm_path(sample, path, sizeof path, "/proc/%u/stat", pid) ||
      !agpu_tm_read_file(path, text, sizeof text))
    return false;
  const char *after_name = strrchr(text, ')');
  unsigned long long utime, stime;
  /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
  if (!after_name ||
      sscanf(after_name + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
             &stime) != 2)
    return false;
  long ticks = sysconf(_SC_CLK_TCK);
  *ns = (uint64_t)(utime + stime) * (1000000000ull / (uint64_t)(ticks > 0 ? ticks : 100));
  return true;
}

static bool agpu_tm_is_pid(const char *name) {
  if (!*name) return false;
  for (; *name; name++)
    if (!isdigit((unsigned char)*name)) return false;
  return true;
}

/* Every process's resident set, into a growing array. */
static uint32_t agpu_tm_resident_sets(const agpu_telemetry *sample, DIR *proc,
                                      agpu_process_telemetry **out) {
  uint32_t count = 0, capacity = 0;
  long page = sysconf(_SC_PAGESIZE);
  struct dirent *item;
  while ((item = readdir(proc)) != NULL) {
    if (!agpu_tm_is_pid(item->d_name)) continue;
    char path[AGPU_TM_PATH], text[256];
    unsigned long long size_pages, resident_pages;
    uint32_t pid = (uint32_t)strtoul(item->d_name, NULL, 10);
    if (!agpu_tm_path(sample, path, sizeof path, "/proc/%u/statm", pid) ||
        !agpu_tm_read_file(path, text, sizeof text) ||
        sscanf(text, "%llu %llu", &size_pages, &resident_pages) != 2 || resident_pages == 0)
      continue; /* gone, or a kernel thread */
    if (count == capacity) {
      uint32_t grown = capacity ? capacity * 2 : 256;
      agpu_process_telemetry *bigger = realloc(*out, grown * sizeof *bigger);
      if (!bigger) break;
      *out = bigger;
      capacity = grown;
    }
    agpu_process_telemetry *process = &(*out)[count++];
    memset(process, 0, sizeof *process);
    process->pid = pid;
    agpu_tm_set_bytes(&process->memory,
                      (uint64_t)resident_pages * (uint64_t)(page > 0 ? page : 4096));
  }
  return count;
}

void agpu_tm_cpu_processes(agpu_telemetry *sample, agpu_tm_entry *entry,
                           const agpu_telemetry *previous, uint32_t cores) {
  char path[AGPU_TM_PATH];
  DIR *proc = agpu_tm_path(sample, path, sizeof path, "/proc") ? opendir(path) : NULL;
  if (!proc) {
    agpu_tm_missing(entry, "proc", "%s: %s", path, strerror(errno));
    return;
  }
  agpu_process_telemetry *all = NULL;
  uint32_t count = agpu_tm_resident_sets(sample, proc, &all);
  closedir(proc);
  agpu_tm_sort_processes(&entry->info, all ? all : (agpu_process_telemetry[1]){0}, count);
  free(all);
  for (uint32_t i = 0; i < entry->info.process_count; i++) {
    agpu_process_telemetry *process = &entry->info.processes[i];
    agpu_tm_process_name(sample, process->pid, process->name, sizeof process->name);
    uint64_t ns;
    if (agpu_tm_process_cpu_ns(sample, process->pid, &ns))
      agpu_tm_add_client(entry, &(agpu_tm_client){process->pid, 0, ns, 0});
    double percent;
    if (agpu_tm_client_rate(sample, entry, previous, process->pid, (double)cores, &percent))
      agpu_tm_set(&process->engine_percent, percent);
  }
}
