// SPDX-License-Identifier: Apache-2.0
/* The C API's side of python/bench/bench_get.py: one agpu_buffer_read of a
 * whole buffer into host memory got one of four ways, timed from before the
 * allocation to the read's return (the memory is freed after the clock
 * stops, as a Python array dies after get() returns). Built by bench_get.py
 * into a shared object and called through ctypes in the same process, on the
 * same buffer, interleaved with the Python side's reads. It links nothing:
 * agpu_buffer_read's address comes from the library that Python loaded. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "anygpu.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

typedef agpu_status (*read_fn)(agpu_queue *, agpu_buffer *, size_t, size_t, void *);

enum {
  C_WARM = 0,     /* into memory read before (mapped as C_HUGE, touched once) */
  C_MALLOC = 1,   /* into fresh malloc'd memory: what a C program does */
  C_HUGE = 2,     /* into fresh mmap'd memory with MADV_HUGEPAGE: what np.empty does */
  C_POPULATE = 3, /* the same, prefaulted first with MADV_POPULATE_WRITE */
};

static char *warm;
static size_t warm_size;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Fresh anonymous memory, huge pages asked for, prefaulted if `populate`. */
static void *map_fresh(size_t size, int populate) {
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  madvise(p, size, MADV_HUGEPAGE);
  if (populate) madvise(p, size, MADV_POPULATE_WRITE); /* EINVAL before 5.14: faults later */
  return p;
}

void c_read_release(void) {
  if (warm) munmap(warm, warm_size);
  warm = NULL;
  warm_size = 0;
}

/* Seconds for one read of `size` bytes in `mode`; negative on failure (-1
 * the read, -2 the allocation). */
double c_read(void *read, void *buffer, size_t size, int mode) {
  read_fn fn = (read_fn)read;
  if (mode == C_WARM && warm_size != size) {
    c_read_release();
    warm = map_fresh(size, 0); /* huge pages, as NumPy's arrays have them */
    if (!warm) return -2;
    warm_size = size;
    memset(warm, 1, size);
  }
  double t0 = now_s();
  char *dst = mode == C_WARM     ? warm
              : mode == C_MALLOC ? malloc(size)
                                 : map_fresh(size, mode == C_POPULATE);
  if (!dst) return -2;
  agpu_status status = fn(NULL, buffer, 0, size, dst);
  double elapsed = now_s() - t0;
  if (mode == C_MALLOC) free(dst);
  if (mode == C_HUGE || mode == C_POPULATE) munmap(dst, size);
  return status == AGPU_SUCCESS ? elapsed : -1;
}
