// SPDX-License-Identifier: Apache-2.0
/* Telemetry inside the library: one sample is a list of entries (the CPU,
 * then each GPU a source knows), each the public agpu_device_telemetry plus
 * the raw counters the next sample needs for its rates. Each source is one
 * file (telemetry_cpu.c, telemetry_drm.c, telemetry_amdgpu.c,
 * telemetry_hwmon.c, telemetry_fdinfo.c, telemetry_nvml.c) and reads every
 * path under the sample's sysroot, so that tests can replay a machine. */
#ifndef AGPU_TELEMETRY_H
#define AGPU_TELEMETRY_H

#include <stdarg.h>

#include "agpu_error.h"
#include "anygpu.h"

#define AGPU_TM_PATH 512
#define AGPU_TM_MAX_ENTRIES 64
#define AGPU_TM_MAX_CLIENTS 256
#define AGPU_TM_MAX_SOURCES 8

/* A process's cumulative busy time on one device (a DRM client, or a CPU
 * process's user+system time), kept for the next sample's rate. */
typedef struct agpu_tm_client {
  uint32_t pid;
  uint64_t id;    /* drm-client-id; 0 for the CPU */
  uint64_t busy;  /* nanoseconds, or cycles when `total` is set */
  uint64_t total; /* drm-total-cycles (xe): busy/total is the share; 0 for time */
} agpu_tm_client;

#define AGPU_TM_MAX_ENGINES 8

typedef struct agpu_tm_entry {
  agpu_device_telemetry info;
  char key[32];                  /* "cpu" or the PCI address: matches the previous sample's entry */
  char device_dir[AGPU_TM_PATH]; /* /sys/class/drm/cardN/device (without sysroot) */
  /* Counters for rates. */
  bool has_cpu_times;
  uint64_t cpu_busy, cpu_total; /* jiffies of /proc/stat's cpu line */
  bool has_energy;
  uint64_t energy_uj; /* hwmon energy*_input or powercap energy_uj */
  /* DRM engines, summed over the clients: busy time (ns) or cycles with
   * the clients' largest total-cycles (xe). */
  uint32_t engine_count;
  char engine_names[AGPU_TM_MAX_ENGINES][24];
  uint64_t engine_busy[AGPU_TM_MAX_ENGINES];
  uint64_t engine_total[AGPU_TM_MAX_ENGINES];
  uint32_t client_count;
  agpu_tm_client clients[AGPU_TM_MAX_CLIENTS];
} agpu_tm_entry;

struct agpu_telemetry {
  char sysroot[AGPU_TM_PATH]; /* "" for the running system */
  uint64_t time_ns;           /* CLOCK_MONOTONIC at the read */
  double window_s;            /* 0: rates unknown */
  uint32_t entry_count;
  agpu_tm_entry *entries; /* AGPU_TM_MAX_ENTRIES */
  uint32_t source_count;
  char source_names[AGPU_TM_MAX_SOURCES][32];
  char source_reasons[AGPU_TM_MAX_SOURCES][256];
};

/* telemetry_read.c: reading under the sysroot. */
/* sysroot + formatted absolute path; false if it does not fit. */
bool agpu_tm_path(const agpu_telemetry *sample, char *out, size_t capacity, const char *format, ...)
    AGPU_PRINTF(4, 5);
/* The whole file (up to capacity - 1 bytes), trailing whitespace removed;
 * false with errno set when it cannot be read. */
bool agpu_tm_read_file(const char *path, char *out, size_t capacity);
/* The first decimal number of the file. */
bool agpu_tm_read_u64(const char *path, uint64_t *value);
/* The value after "key" (then ':' or '=' and blanks) on a line of `text`,
 * copied up to the end of the line. */
bool agpu_tm_field(const char *text, const char *key, char *out, size_t capacity);
/* A new entry (zeroed, physical_index UINT32_MAX), or NULL when full. */
agpu_tm_entry *agpu_tm_add_entry(agpu_telemetry *sample, const char *key);
/* Records a missing source on an entry ("powercap", "permission denied"). */
void agpu_tm_missing(agpu_tm_entry *entry, const char *source, const char *format, ...)
    AGPU_PRINTF(3, 4);
/* Appends "name" to the entry's list of sources that answered. */
void agpu_tm_answered(agpu_tm_entry *entry, const char *source);
/* Records a sample-wide source ("nvml") and its reason, "" when it answered. */
void agpu_tm_source(agpu_telemetry *sample, const char *name, const char *format, ...)
    AGPU_PRINTF(3, 4);
void agpu_tm_set(agpu_telemetry_value *field, double value);
void agpu_tm_set_bytes(agpu_telemetry_bytes *field, uint64_t bytes);
/* The command name of `pid` (/proc/PID/comm) into out. */
void agpu_tm_process_name(const agpu_telemetry *sample, uint32_t pid, char *out, size_t capacity);
/* Sorts the entry's processes by memory, largest first, and keeps the
 * first AGPU_TELEMETRY_MAX_PROCESSES. */
void agpu_tm_sort_processes(agpu_device_telemetry *info, agpu_process_telemetry *all,
                            uint32_t count);

/* A process's busy time since the previous sample, as a percentage of the
 * window times `divisor` (the CPU's cores; 1 for a GPU engine). False when
 * the previous sample did not see that process. */
bool agpu_tm_client_rate(const agpu_telemetry *sample, const agpu_tm_entry *entry,
                         const agpu_telemetry *previous, uint32_t pid, double divisor,
                         double *percent);
/* Records a client's cumulative busy time once per pid and id; false for
 * one already recorded (a dup'ed descriptor) or when the table is full. */
bool agpu_tm_add_client(agpu_tm_entry *entry, const agpu_tm_client *client);

/* The sources. Each fills what it can and names what it cannot. */
void agpu_tm_cpu_read(agpu_telemetry *sample, const agpu_telemetry *previous);
/* The largest resident sets, with their CPU time over the window. */
void agpu_tm_cpu_processes(agpu_telemetry *sample, agpu_tm_entry *entry,
                           const agpu_telemetry *previous, uint32_t cores);
void agpu_tm_drm_read(agpu_telemetry *sample, const agpu_telemetry *previous);
void agpu_tm_amdgpu_read(agpu_telemetry *sample, agpu_tm_entry *entry);
/* hwmon directory `dir` (with sysroot): temperature (preferring a label in
 * `preferred`, NULL for the first), power, energy, fan, limit. */
void agpu_tm_hwmon_read(agpu_tm_entry *entry, const char *dir, const char *const *preferred);
/* The hwmon directories whose `name` is in `names` (NULL: all under
 * `parent`, itself a .../hwmon directory with sysroot). Calls `found` on
 * each; returns how many. */
uint32_t agpu_tm_hwmon_each(const char *parent, const char *const *names,
                            void (*found)(const char *dir, const char *name, void *context),
                            void *context);
void agpu_tm_fdinfo_read(agpu_telemetry *sample, const agpu_telemetry *previous);
void agpu_tm_nvml_read(agpu_telemetry *sample);

/* The previous sample's entry with this key, or NULL. */
const agpu_tm_entry *agpu_tm_previous_entry(const agpu_telemetry *previous, const char *key);
/* Power from the energy counter's delta, over the window. */
void agpu_tm_energy_rate(const agpu_telemetry *sample, agpu_tm_entry *entry,
                         const agpu_telemetry *previous, const char *source);

/* The out-of-memory explanation: ", device total X, free Y (top: a 1.0 GiB
 * (pid 12), ...)" for physical device `physical_index` of this process, or
 * "" when no telemetry answers. */
void agpu_tm_memory_note(uint32_t physical_index, char *out, size_t capacity);

#endif /* AGPU_TELEMETRY_H */
