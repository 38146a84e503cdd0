// SPDX-License-Identifier: Apache-2.0
/* The CPU backend's buffer memory (docs/reliability.md, "Kernels that write
 * outside their buffers").
 *
 * A kernel on cpu:0 runs in the host process, so a store past the end of
 * its buffer would land in the host's heap. Each buffer is therefore its own
 * mapping: an inaccessible guard page, a 64-byte canary, the data, at least
 * 64 canary bytes after it (up to the next multiple of 64), and another
 * guard page:
 *
 *   | guard | ... | head canary 64 | data (size) | tail canary >= 64 | guard |
 *
 * A store just outside the data (an off-by-one index, a few elements past
 * the end or before the start) changes a canary: the launch that did it
 * fails with AGPU_ERROR_KERNEL_FAULT, reported by the next call that waits
 * for the queue, and the canary is restored. A store further away, up to a
 * page, hits a guard page and stops the process at that store (SIGSEGV)
 * instead of corrupting memory and failing somewhere else later. When the
 * process has no mappings left for guard pages, a buffer has the canaries
 * alone. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_queue.h"

enum { AGPU_CPU_CANARY = 64 }; /* also the data's alignment */

static size_t agpu_cpu_page(void) {
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? (size_t)page : 4096;
}

/* The canary byte at `offset` from the data's start (negative: before it);
 * position-dependent, so a kernel storing one repeated value cannot restore it. */
static unsigned char agpu_cpu_canary_byte(ptrdiff_t offset) {
  return (unsigned char)(0xA5u ^ ((uint64_t)offset * 0x9Du));
}

static void agpu_cpu_canary_fill(const agpu_cpu_buffer *b, ptrdiff_t from, ptrdiff_t to) {
  for (ptrdiff_t i = from; i < to; i++) b->data[i] = (char)agpu_cpu_canary_byte(i);
}

/* The end of the tail canary, relative to the data's start. */
static ptrdiff_t agpu_cpu_tail_end(const agpu_cpu_buffer *b) {
  size_t rounded = (b->size + AGPU_CPU_CANARY - 1) / AGPU_CPU_CANARY * AGPU_CPU_CANARY;
  return (ptrdiff_t)(rounded + AGPU_CPU_CANARY);
}

/* Without guard pages (the process's mappings are limited, vm.max_map_count:
 * each guarded buffer takes three): canaries alone, in the heap. */
static bool agpu_cpu_memory_alloc_unguarded(agpu_cpu_buffer *b, size_t span) {
  char *block = aligned_alloc(AGPU_CPU_CANARY, span);
  if (!block) return false;
  b->mapping = block;
  b->mapping_size = 0; /* free(), not munmap() */
  b->data = block + AGPU_CPU_CANARY;
  return true;
}

bool agpu_cpu_memory_alloc(agpu_cpu_buffer *b, size_t size) {
  size_t page = agpu_cpu_page();
  size_t span = (size + AGPU_CPU_CANARY - 1) / AGPU_CPU_CANARY * AGPU_CPU_CANARY;
  if (span < size || span > SIZE_MAX - 4 * page) return false;
  span += 2 * AGPU_CPU_CANARY; /* head and tail canaries */
  size_t body = (span + page - 1) / page * page;
  size_t length = body + 2 * page;
  b->size = size;
  char *mapping = mmap(NULL, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping != MAP_FAILED && mprotect(mapping + page, body, PROT_READ | PROT_WRITE) == 0) {
    b->mapping = mapping;
    b->mapping_size = length;
    /* the tail canary ends where the second guard page starts */
    b->data = mapping + page + body - (span - AGPU_CPU_CANARY);
  } else {
    if (mapping != MAP_FAILED) munmap(mapping, length);
    if (!agpu_cpu_memory_alloc_unguarded(b, span)) return false;
  }
  agpu_cpu_canary_fill(b, -AGPU_CPU_CANARY, 0);
  agpu_cpu_canary_fill(b, (ptrdiff_t)size, agpu_cpu_tail_end(b));
  return true;
}

void agpu_cpu_memory_free(agpu_cpu_buffer *b) {
  if (b->mapping && b->mapping_size)
    munmap(b->mapping, b->mapping_size);
  else
    free(b->mapping);
  b->mapping = NULL;
  b->data = NULL;
}

/* The first and last changed canary bytes in [from, to), or false. */
static bool agpu_cpu_canary_changed(const agpu_cpu_buffer *b, ptrdiff_t from, ptrdiff_t to,
                                    ptrdiff_t *first, ptrdiff_t *last) {
  bool changed = false;
  for (ptrdiff_t i = from; i < to; i++)
    if ((unsigned char)b->data[i] != agpu_cpu_canary_byte(i)) {
      if (!changed) *first = i;
      *last = i;
      changed = true;
    }
  return changed;
}

bool agpu_cpu_memory_check(agpu_cpu_buffer *b, ptrdiff_t *first, ptrdiff_t *last) {
  ptrdiff_t size = (ptrdiff_t)b->size, tail = agpu_cpu_tail_end(b);
  if (agpu_cpu_canary_changed(b, size, tail, first, last)) {
    agpu_cpu_canary_fill(b, size, tail);
    return false;
  }
  if (agpu_cpu_canary_changed(b, -AGPU_CPU_CANARY, 0, first, last)) {
    agpu_cpu_canary_fill(b, -AGPU_CPU_CANARY, 0);
    return false;
  }
  return true;
}
