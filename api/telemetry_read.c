// SPDX-License-Identifier: Apache-2.0
/* Telemetry: reading files under the sample's sysroot, and the small
 * helpers every source shares. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agpu_telemetry.h"

bool agpu_tm_path(const agpu_telemetry *sample, char *out, size_t capacity, const char *format,
                  ...) {
  size_t root = strlen(sample->sysroot);
  if (root >= capacity) return false;
  memcpy(out, sample->sysroot, root);
  va_list arguments;
  va_start(arguments, format);
  int length = vsnprintf(out + root, capacity - root, format, arguments);
  va_end(arguments);
  return length >= 0 && (size_t)length < capacity - root;
}

bool agpu_tm_read_file(const char *path, char *out, size_t capacity) {
  out[0] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  size_t length = 0;
  while (length + 1 < capacity) {
    ssize_t got = read(fd, out + length, capacity - 1 - length);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
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
  while (length && (out[length - 1] == '\n' || out[length - 1] == ' ' || out[length - 1] == '\t'))
    out[--length] = '\0';
  return true;
}

bool agpu_tm_read_u64(const char *path, uint64_t *value) {
  char text[64];
  if (!agpu_tm_read_file(path, text, sizeof text)) return false;
  char *end;
  errno = 0;
  unsigned long long parsed = strtoull(text, &end, 10);
  if (end == text || errno != 0 || text[0] == '-') {
    errno = EINVAL;
    return false;
  }
  *value = parsed;
  return true;
}

bool agpu_tm_field(const char *text, const char *key, char *out, size_t capacity) {
  size_t key_length = strlen(key);
  for (const char *line = text; line && *line;) {
    const char *after = line + key_length;
    if (strncmp(line, key, key_length) == 0)
      while (*after == ' ' || *after == '\t') after++;
    if (strncmp(line, key, key_length) == 0 && (*after == ':' || *after == '=')) {
      const char *value = after + 1;
      while (*value == ' ' || *value == '\t') value++;
      size_t length = strcspn(value, "\n");
      if (length >= capacity) length = capacity - 1;
      memcpy(out, value, length);
      out[length] = '\0';
      return true;
    }
    line = strchr(line, '\n');
    if (line) line++;
  }
  return false;
}

agpu_tm_entry *agpu_tm_add_entry(agpu_telemetry *sample, const char *key) {
  if (sample->entry_count == AGPU_TM_MAX_ENTRIES) return NULL;
  agpu_tm_entry *entry = &sample->entries[sample->entry_count++];
  memset(entry, 0, sizeof *entry);
  snprintf(entry->key, sizeof entry->key, "%s", key);
  entry->info.physical_index = UINT32_MAX;
  return entry;
}

void agpu_tm_missing(agpu_tm_entry *entry, const char *source, const char *format, ...) {
  agpu_device_telemetry *info = &entry->info;
  if (info->missing_count == AGPU_TELEMETRY_MAX_MISSING) return;
  agpu_telemetry_missing *missing = &info->missing[info->missing_count++];
  snprintf(missing->source, sizeof missing->source, "%s", source);
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(missing->reason, sizeof missing->reason, format, arguments);
  va_end(arguments);
}

void agpu_tm_answered(agpu_tm_entry *entry, const char *source) {
  char *sources = entry->info.sources;
  size_t length = strlen(sources);
  snprintf(sources + length, sizeof entry->info.sources - length, "%s%s", length ? ", " : "",
           source);
}

void agpu_tm_source(agpu_telemetry *sample, const char *name, const char *format, ...) {
  if (sample->source_count == AGPU_TM_MAX_SOURCES) return;
  uint32_t index = sample->source_count++;
  snprintf(sample->source_names[index], sizeof sample->source_names[index], "%s", name);
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(sample->source_reasons[index], sizeof sample->source_reasons[index], format, arguments);
  va_end(arguments);
}

void agpu_tm_set(agpu_telemetry_value *field, double value) {
  field->known = true;
  field->value = value;
}

void agpu_tm_set_bytes(agpu_telemetry_bytes *field, uint64_t bytes) {
  field->known = true;
  field->bytes = bytes;
}

void agpu_tm_process_name(const agpu_telemetry *sample, uint32_t pid, char *out, size_t capacity) {
  char path[AGPU_TM_PATH];
  if (!agpu_tm_path(sample, path, sizeof path, "/proc/%u/comm", pid) ||
      !agpu_tm_read_file(path, out, capacity))
    snprintf(out, capacity, "?");
}

static int agpu_tm_compare_processes(const void *a, const void *b) {
  const agpu_process_telemetry *left = a, *right = b;
  uint64_t l = left->memory.known ? left->memory.bytes : 0;
  uint64_t r = right->memory.known ? right->memory.bytes : 0;
  if (l != r) return l > r ? -1 : 1;
  return left->pid < right->pid ? -1 : left->pid > right->pid;
}

void agpu_tm_sort_processes(agpu_device_telemetry *info, agpu_process_telemetry *all,
                            uint32_t count) {
  qsort(all, count, sizeof *all, agpu_tm_compare_processes);
  info->processes_known = true;
  info->processes_truncated = count > AGPU_TELEMETRY_MAX_PROCESSES;
  info->process_count = count > AGPU_TELEMETRY_MAX_PROCESSES ? AGPU_TELEMETRY_MAX_PROCESSES : count;
  memcpy(info->processes, all, info->process_count * sizeof *all);
}

const agpu_tm_entry *agpu_tm_previous_entry(const agpu_telemetry *previous, const char *key) {
  if (!previous) return NULL;
  for (uint32_t i = 0; i < previous->entry_count; i++)
    if (strcmp(previous->entries[i].key, key) == 0) return &previous->entries[i];
  return NULL;
}

void agpu_tm_energy_rate(const agpu_telemetry *sample, agpu_tm_entry *entry,
                         const agpu_telemetry *previous, const char *source) {
  if (!entry->has_energy || entry->info.power_w.known) return;
  const agpu_tm_entry *before = agpu_tm_previous_entry(previous, entry->key);
  if (!before || !before->has_energy || sample->window_s <= 0) {
    agpu_tm_missing(entry, source, "power needs two readings of the energy counter");
    return;
  }
  if (entry->energy_uj <= before->energy_uj) {
    agpu_tm_missing(entry, source, "the energy counter did not advance over %.3f s",
                    sample->window_s);
    return;
  }
  agpu_tm_set(&entry->info.power_w,
              (double)(entry->energy_uj - before->energy_uj) / 1e6 / sample->window_s);
}

/* One client's share of the window since `then`, in percent; false for
 * cycle counters whose total did not advance (nothing to divide by). */
static bool agpu_tm_client_share(const agpu_tm_client *now, const agpu_tm_client *then,
                                 double window_s, double divisor, double *percent) {
  uint64_t busy = now->busy > then->busy ? now->busy - then->busy : 0;
  if (now->total) {
    uint64_t total = now->total > then->total ? now->total - then->total : 0;
    *percent = total ? 100.0 * (double)busy / (double)total : 0.0;
    return total != 0;
  }
  *percent = 100.0 * (double)busy / 1e9 / window_s / divisor;
  return true;
}

bool agpu_tm_client_rate(const agpu_telemetry *sample, const agpu_tm_entry *entry,
                         const agpu_telemetry *previous, uint32_t pid, double divisor,
                         double *percent) {
  const agpu_tm_entry *before = agpu_tm_previous_entry(previous, entry->key);
  if (!before || sample->window_s <= 0 || divisor <= 0) return false;
  bool seen = false;
  *percent = 0;
  for (uint32_t i = 0; i < entry->client_count; i++) {
    const agpu_tm_client *now = &entry->clients[i];
    if (now->pid != pid) continue;
    for (uint32_t j = 0; j < before->client_count; j++) {
      const agpu_tm_client *then = &before->clients[j];
      if (then->pid != pid || then->id != now->id) continue;
      double share;
      if (!agpu_tm_client_share(now, then, sample->window_s, divisor, &share)) continue;
      seen = true;
      *percent += share;
    }
  }
  return seen;
}

bool agpu_tm_add_client(agpu_tm_entry *entry, const agpu_tm_client *client) {
  for (uint32_t i = 0; i < entry->client_count; i++)
    if (entry->clients[i].pid == client->pid && entry->clients[i].id == client->id)
      return false; /* the same client through a dup'ed descriptor */
  if (entry->client_count == AGPU_TM_MAX_CLIENTS) return false;
  entry->clients[entry->client_count++] = *client;
  return true;
}
