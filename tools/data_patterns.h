// SPDX-License-Identifier: Apache-2.0
/* What anygpu test and anygpu run share for making data: the random stream
 * and the poison written into outputs (the same patterns as the kernel
 * corpus's run 0, tests/kernels/README.md). */
#ifndef ANYGPU_TOOLS_DATA_PATTERNS_H
#define ANYGPU_TOOLS_DATA_PATTERNS_H

#include <stdint.h>

/* NaNs that no arithmetic produces, and 0xA5 bytes for integers: an output
 * element still holding one was never written. */
#define POISON_FLOAT_BITS UINT32_C(0x7FA5A5A5)
#define POISON_DOUBLE_BITS UINT64_C(0x7FF5A5A5A5A5A5A5)
#define POISON_INTEGER_BYTE 0xA5u

/* splitmix64 (Steele, Lea, Flood 2014): one 64-bit value per call. */
static inline uint64_t splitmix64_next(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* A double uniform in [0, 1) from 53 random bits. */
static inline double splitmix64_unit(uint64_t *state) {
  return (double)(splitmix64_next(state) >> 11) * 0x1p-53;
}

#endif /* ANYGPU_TOOLS_DATA_PATTERNS_H */
