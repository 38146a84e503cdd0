// SPDX-License-Identifier: Apache-2.0
/* Lane-level helpers shared by corpus_data.c and corpus_compare.c. */
#ifndef AGPU_CORPUS_DATA_H
#define AGPU_CORPUS_DATA_H

#include "corpus.h"

/* The raw bits of one lane of element `element` of a buffer of `type`. */
uint64_t corpus_lane_bits(corpus_type type, const void *data, size_t element, unsigned lane);
/* A lane's value as a double (integers sign- or zero-extended). */
double corpus_bits_to_double(corpus_scalar scalar, uint64_t bits);
/* Poison pattern 0 or 1 for one lane of `scalar`: NaNs for floats, 0xA5 or
 * 0x5A bytes for integers. */
uint64_t corpus_poison_bits(corpus_scalar scalar, int poison);

uint16_t corpus_half_from_float(float value);
float corpus_half_to_float(uint16_t half);

#endif /* AGPU_CORPUS_DATA_H */
