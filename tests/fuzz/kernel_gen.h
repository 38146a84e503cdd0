// SPDX-License-Identifier: Apache-2.0
/* A generator of valid kernels in the portable subset, driven by bytes (a
 * fuzzer's input, or a seeded random stream): the same bytes always give the
 * same kernel, and any bytes give a kernel the translator must accept and
 * every emitter must translate.
 *
 * Every kernel has the same interface, so that it can be run and compared
 * between backends:
 *
 *   __kernel __attribute__((reqd_work_group_size(KGEN_LOCAL_SIZE, 1, 1)))
 *   void fuzz(__global const uint *in, __global uint *out, __global uint *acc)
 *
 * launched over KGEN_GLOBAL_SIZE work-items, in[] of KGEN_GLOBAL_SIZE words,
 * out[] of KGEN_GLOBAL_SIZE words (each work-item writes its own), acc[] of
 * KGEN_ACC_SIZE words that work-items update with atomics: words 0 and 1
 * only with atomic_add, word 2 only with atomic_xor, then or, and, min, max
 * (one kind per word: mixing kinds on a word would make the result depend on
 * the order the work-items run in).
 *
 * The integer kernels have one defined result on every target: unsigned
 * arithmetic wraps, divisors are never 0 and never -1, shift counts are
 * masked, clamp bounds are ordered, barriers are in uniform control flow,
 * loops are bounded, and each shared word sees one kind of atomic only. With
 * `floats`, float expressions are mixed in too (for the emitters; their
 * results are not compared bit for bit). */
#ifndef KERNEL_GEN_H
#define KERNEL_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KGEN_LOCAL_SIZE 64
#define KGEN_GLOBAL_SIZE 256
#define KGEN_ACC_SIZE 8

typedef struct kgen_options {
  bool floats; /* float expressions too, not only integer ones */
  bool int64;  /* ulong expressions (needs the device's int64) */
  /* abs(int) only of odd values, never of INT_MIN: PoCL 3/LLVM folds abs of a
   * constant INT_MIN to poison (docs/fuzzing.md), which the differential
   * fuzzer would otherwise report again and again */
  bool no_abs_int_min;
  /* barrier-heavy kernels too: uniform for and do-while loops with barriers
   * (a group-level counter advanced between barriers and read by the
   * condition, a const bound from get_local_size), __global pointers
   * advanced across barriers, an early uniform `continue` */
  bool barriers;
} kgen_options;

/* The kernel's source (malloc'd, NUL-terminated), or NULL when out of memory. */
char *kgen_generate(const uint8_t *data, size_t size, const kgen_options *options);

#endif
