// SPDX-License-Identifier: Apache-2.0
/* anygpu doctor --watch SECONDS: a device mostly idle while a process holds
 * its memory. Samples every DOCTOR_WATCH_STEP_S (or ten times over a short
 * watch), averages each GPU's utilisation and keeps the most memory each
 * process held. The CPU is left out: every process holds host memory. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "doctor_watch.h"
#include "format.h"
#include "json_writer.h"

#define DOCTOR_WATCH_STEP_S 0.5
#define DOCTOR_WATCH_IDLE_PERCENT 30.0
#define DOCTOR_WATCH_MAX_DEVICES 64

typedef struct watch_device {
  agpu_device_telemetry last; /* the last sample: name, pci, processes */
  double utilization_sum;
  uint32_t utilization_samples;
  uint64_t held[AGPU_TELEMETRY_MAX_PROCESSES]; /* most memory each of last's processes held */
} watch_device;

static const char *const doctor_watch_hints[] = {
    "data loading on the host: the device waits for input (load in another thread, pin host "
    "memory, prefetch the next batch)",
    "batches too small: each launch does too little work to fill the device (larger batches, "
    "fewer and bigger launches)",
    "transfers between launches: data goes to and from the host each step (keep it on the "
    "device, overlap copies with compute)",
};

int doctor_take_watch(int *argc, char **argv, double *seconds) {
  int kept = 0;
  *seconds = 0;
  for (int i = 0; i < *argc; i++) {
    const char *value = NULL;
    if (strcmp(argv[i], "--watch") == 0) {
      if (i + 1 >= *argc) return cli_usage_error("missing seconds after", argv[i]);
      value = argv[++i];
    } else if (strncmp(argv[i], "--watch=", 8) == 0) {
      value = argv[i] + 8;
    } else {
      argv[kept++] = argv[i];
      continue;
    }
    char *end;
    errno = 0;
    *seconds = strtod(value, &end);
    if (end == value || *end || errno || !(*seconds > 0) || *seconds > 86400)
      return cli_usage_error("expected seconds (above 0, at most 86400) after --watch:", value);
  }
  *argc = kept;
  return CLI_EXIT_OK;
}

static void watch_sleep(double seconds) {
  struct timespec wait = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&wait, &wait) != 0 && errno == EINTR) continue;
}

/* One sample into the running figures. */
static void watch_add(watch_device *devices, uint32_t *count, const agpu_telemetry *sample) {
  uint32_t n = agpu_telemetry_device_count(sample);
  for (uint32_t i = 0; i < n && i < DOCTOR_WATCH_MAX_DEVICES; i++) {
    agpu_device_telemetry d;
    if (agpu_telemetry_get_device(sample, i, &d) != AGPU_SUCCESS || d.type == AGPU_DEVICE_TYPE_CPU)
      continue;
    watch_device *w = &devices[i];
    if (i >= *count) *count = i + 1;
    uint64_t held[AGPU_TELEMETRY_MAX_PROCESSES] = {0};
    for (uint32_t p = 0; p < d.process_count; p++) {
      held[p] = d.processes[p].memory.known ? d.processes[p].memory.bytes : 0;
      for (uint32_t q = 0; q < w->last.process_count; q++)
        if (w->last.processes[q].pid == d.processes[p].pid && w->held[q] > held[p])
          held[p] = w->held[q];
    }
    w->last = d;
    memcpy(w->held, held, sizeof held);
    if (d.utilization_percent.known) {
      w->utilization_sum += d.utilization_percent.value;
      w->utilization_samples++;
    }
  }
}

/* A device with its utilisation known, mostly idle, and memory held. */
static bool watch_idle_holder(const watch_device *w, uint32_t *first) {
  if (w->utilization_samples == 0 ||
      w->utilization_sum / w->utilization_samples >= DOCTOR_WATCH_IDLE_PERCENT)
    return false;
  for (uint32_t p = 0; p < w->last.process_count; p++)
    if (w->held[p] > 0) {
      *first = p;
      return true;
    }
  return false;
}

static void watch_print_text(const watch_device *devices, uint32_t count, double seconds,
                             uint32_t samples) {
  printf("Watched for %.1f s (%u samples).\n", seconds, samples);
  uint32_t findings = 0, known = 0;
  for (uint32_t i = 0; i < count; i++) {
    const watch_device *w = &devices[i];
    if (!w->last.name[0]) continue;
    char where[200];
    snprintf(where, sizeof where, "device %u (%s%s%s)", i, w->last.name,
             w->last.has_pci ? ", " : "", w->last.has_pci ? w->last.pci : "");
    if (w->utilization_samples == 0) {
      printf("  %s: its utilisation is unknown\n", where);
      continue;
    }
    known++;
    double average = w->utilization_sum / w->utilization_samples;
    uint32_t first;
    if (!watch_idle_holder(w, &first)) {
      printf("  %s: %.0f%% busy on average\n", where, average);
      continue;
    }
    findings++;
    printf("\n[mostly idle] %s was %.0f%% busy on average while processes held its memory:\n",
           where, average);
    for (uint32_t p = first; p < w->last.process_count; p++) {
      char held[FORMAT_BYTES_CAPACITY];
      if (!w->held[p]) continue;
      format_bytes(w->held[p], held, sizeof held);
      printf("  pid %u (%s) held %s\n", w->last.processes[p].pid, w->last.processes[p].name, held);
    }
    printf("  The usual causes:\n");
    for (size_t h = 0; h < sizeof doctor_watch_hints / sizeof *doctor_watch_hints; h++)
      printf("  - %s\n", doctor_watch_hints[h]);
  }
  if (known == 0)
    printf("No GPU reported its utilisation (anygpu top says which sources are missing).\n");
  else if (findings == 0)
    printf("No device was mostly idle while a process held its memory.\n");
}

static void watch_print_json(const watch_device *devices, uint32_t count, double seconds,
                             uint32_t samples) {
  json_writer w;
  json_writer_init(&w, stdout, true);
  json_begin_object(&w);
  json_key(&w, "watch_s");
  json_double(&w, seconds);
  json_key_uint(&w, "samples", samples);
  json_key(&w, "devices");
  json_begin_array(&w);
  for (uint32_t i = 0; i < count; i++) {
    const watch_device *d = &devices[i];
    if (!d->last.name[0]) continue;
    uint32_t first = 0;
    bool idle = watch_idle_holder(d, &first);
    json_begin_object(&w);
    json_key_uint(&w, "index", i);
    json_key_string(&w, "name", d->last.name);
    json_key_string_or_null(&w, "pci", d->last.has_pci, d->last.pci);
    json_key(&w, "average_utilization_percent");
    if (d->utilization_samples)
      json_double(&w, d->utilization_sum / d->utilization_samples);
    else
      json_null(&w);
    json_key_bool(&w, "mostly_idle_while_held", idle);
    json_key(&w, "processes");
    json_begin_array(&w);
    for (uint32_t p = 0; p < d->last.process_count; p++) {
      json_begin_object(&w);
      json_key_uint(&w, "pid", d->last.processes[p].pid);
      json_key_string(&w, "name", d->last.processes[p].name);
      json_key_uint(&w, "max_memory_bytes", d->held[p]);
      json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_key(&w, "hints");
  json_begin_array(&w);
  for (size_t h = 0; h < sizeof doctor_watch_hints / sizeof *doctor_watch_hints; h++)
    json_string(&w, doctor_watch_hints[h]);
  json_end_array(&w);
  json_end_object(&w);
  json_writer_finish(&w);
}

int doctor_watch(const char *sysroot, double seconds, bool json) {
  watch_device *devices = calloc(DOCTOR_WATCH_MAX_DEVICES, sizeof *devices);
  if (!devices) return cli_out_of_memory();
  double step = seconds / 10 < DOCTOR_WATCH_STEP_S ? seconds / 10 : DOCTOR_WATCH_STEP_S;
  agpu_telemetry *previous = NULL;
  uint32_t count = 0, samples = 0;
  for (double waited = 0; waited < seconds + step / 2; waited += step) {
    agpu_telemetry_desc desc = {.sysroot = sysroot, .previous = previous};
    agpu_telemetry *sample = NULL;
    agpu_status status = agpu_telemetry_sample(&desc, &sample);
    agpu_telemetry_release(previous);
    previous = sample;
    if (status != AGPU_SUCCESS) {
      free(devices);
      return cli_library_error(status);
    }
    watch_add(devices, &count, sample);
    samples++;
    if (waited + step < seconds + step / 2) watch_sleep(step);
  }
  agpu_telemetry_release(previous);
  if (json)
    watch_print_json(devices, count, seconds, samples);
  else
    watch_print_text(devices, count, seconds, samples);
  free(devices);
  return cli_finish_output();
}
