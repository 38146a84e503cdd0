// SPDX-License-Identifier: Apache-2.0
/* Telemetry for an out-of-memory message: the physical device's memory
 * now and the processes holding the most of it, appended to the message
 * agpu_buffer_create returns when an allocation fails for lack of memory. */
#include <stdio.h>
#include <string.h>

#include "agpu_core.h"
#include "agpu_telemetry.h"

#define AGPU_TM_NOTE_PROCESSES 3

/* "; phys:0 (name) now has 8.0 GiB total, 1.2 GiB free; most held by a
 * (pid 12) 6.0 GiB, b (pid 40) 512.0 MiB", each part where it is known. */
static void agpu_tm_note_device(const agpu_device_telemetry *d, char *out, size_t capacity) {
  char total[32], free_bytes[32], used[32];
  size_t length = (size_t)snprintf(out, capacity, "; phys:%u (%s)", d->physical_index, d->name);
  if (length < capacity && d->memory_total.known)
    length += (size_t)snprintf(out + length, capacity - length, " now has %s total",
                               agpu_format_bytes(d->memory_total.bytes, total, sizeof total));
  if (length < capacity && d->memory_free.known)
    length += (size_t)snprintf(
        out + length, capacity - length, "%s%s free", d->memory_total.known ? ", " : " now has ",
        agpu_format_bytes(d->memory_free.bytes, free_bytes, sizeof free_bytes));
  uint32_t listed = 0;
  for (uint32_t i = 0; length < capacity && i < d->process_count && listed < AGPU_TM_NOTE_PROCESSES;
       i++) {
    const agpu_process_telemetry *p = &d->processes[i];
    if (!p->memory.known) continue;
    length += (size_t)snprintf(out + length, capacity - length, "%s%s (pid %u) %s",
                               listed++ ? ", " : "; most held by ", p->name, p->pid,
                               agpu_format_bytes(p->memory.bytes, used, sizeof used));
  }
}

/* Whether the note would say anything beyond the device's name. */
static bool agpu_tm_note_has_memory(const agpu_device_telemetry *d) {
  if (d->memory_total.known || d->memory_free.known) return true;
  for (uint32_t i = 0; i < d->process_count; i++)
    if (d->processes[i].memory.known) return true;
  return false;
}

void agpu_tm_memory_note(uint32_t physical_index, char *out, size_t capacity) {
  out[0] = '\0';
  agpu_telemetry_desc desc = {.match_physical = true};
  agpu_telemetry *sample = NULL;
  if (agpu_telemetry_sample(&desc, &sample) != AGPU_SUCCESS) return;
  for (uint32_t i = 0; i < sample->entry_count; i++) {
    const agpu_device_telemetry *d = &sample->entries[i].info;
    if (d->physical_index == physical_index && agpu_tm_note_has_memory(d))
      agpu_tm_note_device(d, out, capacity);
  }
  agpu_telemetry_release(sample);
}
