/* Telemetry for an out-of-memory message: the physical device's memory
 * now and the processes holding the most of it, appended to the message
 * agpu_buffer_create returns when an allocation fails for lack of memory. */
#include <stdio.h>
#include <string.h>

#include "agpu_core.h"
#include "agpu_telemetry.h"

#define AGPU_TM_NOTE_PROCESSES 3

static void agpu_tm_note_device(const agpu_device_telemetry *d, char *out, size_t capacity) {
  char total[32], free_bytes[32], used[32];
  size_t length =
      (size_t)snprintf(out, capacity, "; phys:%u (%s) now has ", d->physical_index, d->name);
  if (length >= capacity) return;
  if (d->memory_total.known)
    length += (size_t)snprintf(out + length, capacity - length, "%s total",
                               agpu_format_bytes(d->memory_total.bytes, total, sizeof total));
  if (length < capacity && d->memory_free.known)
    length += (size_t)snprintf(
        out + length, capacity - length, "%s%s free", d->memory_total.known ? ", " : "",
        agpu_format_bytes(d->memory_free.bytes, free_bytes, sizeof free_bytes));
  for (uint32_t i = 0; length < capacity && i < d->process_count && i < AGPU_TM_NOTE_PROCESSES;
       i++) {
    const agpu_process_telemetry *p = &d->processes[i];
    if (!p->memory.known) continue;
    length += (size_t)snprintf(out + length, capacity - length, "%s%s (pid %u) %s",
                               i ? ", " : "; most held by ", p->name, p->pid,
                               agpu_format_bytes(p->memory.bytes, used, sizeof used));
  }
}

void agpu_tm_memory_note(uint32_t physical_index, char *out, size_t capacity) {
  out[0] = '\0';
  agpu_telemetry_desc desc = {.match_physical = true};
  agpu_telemetry *sample = NULL;
  if (agpu_telemetry_sample(&desc, &sample) != AGPU_SUCCESS) return;
  for (uint32_t i = 0; i < sample->entry_count; i++) {
    const agpu_device_telemetry *d = &sample->entries[i].info;
    if (d->physical_index == physical_index && (d->memory_total.known || d->memory_free.known))
      agpu_tm_note_device(d, out, capacity);
  }
  agpu_telemetry_release(sample);
}
