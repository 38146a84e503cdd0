// SPDX-License-Identifier: Apache-2.0
/* Inputs from a seed, poison patterns, and lane-by-lane access to buffers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_data.h"

/* ---------------------------------------------------------------- random */

static uint64_t corpus_splitmix(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* One stream per (seed, file, argument): adding or reordering other files
 * or arguments leaves a buffer's data unchanged. */
static uint64_t corpus_stream(uint64_t seed, const char *stem, uint32_t index) {
  uint64_t hash = 0xCBF29CE484222325ull; /* FNV-1a */
  for (const char *p = stem; *p; p++) hash = (hash ^ (unsigned char)*p) * 0x100000001B3ull;
  uint64_t state = seed ^ hash ^ ((uint64_t)index << 56);
  corpus_splitmix(&state);
  return state;
}

/* Uniform in [0, span) (span 0: any 64-bit value). */
static uint64_t corpus_below(uint64_t *state, uint64_t span) {
  uint64_t r = corpus_splitmix(state);
  return span ? r % span : r;
}

/* ------------------------------------------------------------ half float */

uint16_t corpus_half_from_float(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  uint32_t sign = (bits >> 16) & 0x8000u, exponent = (bits >> 23) & 0xffu,
           mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) return (uint16_t)(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  int e = (int)exponent - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) { /* subnormal half, or zero */
    if (e < -10) return (uint16_t)sign;
    mantissa |= 0x800000u;
    unsigned shift = (unsigned)(14 - e);
    uint32_t half = mantissa >> shift, rest = mantissa & ((1u << shift) - 1),
             midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1))) half++;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((uint32_t)e << 10) | (mantissa >> 13), rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) half++; /* may carry into inf */
  return (uint16_t)(sign | half);
}

float corpus_half_to_float(uint16_t half) {
  uint32_t sign = (uint32_t)(half & 0x8000u) << 16, exponent = (half >> 10) & 0x1fu,
           mantissa = half & 0x3ffu;
  float magnitude;
  if (exponent == 0)
    magnitude = ldexpf((float)mantissa, -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = ldexpf((float)(mantissa | 0x400u), (int)exponent - 25);
  uint32_t bits;
  memcpy(&bits, &magnitude, sizeof bits);
  bits |= sign;
  memcpy(&magnitude, &bits, sizeof bits);
  return magnitude;
}

/* ---------------------------------------------------------------- lanes */

uint64_t corpus_lane_bits(corpus_type type, const void *data, size_t element, unsigned lane) {
  size_t size = corpus_scalar_size(type.scalar);
  const unsigned char *p =
      (const unsigned char *)data + (element * corpus_type_stored_lanes(type) + lane) * size;
  uint64_t bits = 0;
  memcpy(&bits, p, size); /* little-endian host and devices */
  return bits;
}

static void corpus_set_lane_bits(corpus_type type, void *data, size_t element, unsigned lane,
                                 uint64_t bits) {
  size_t size = corpus_scalar_size(type.scalar);
  unsigned char *p =
      (unsigned char *)data + (element * corpus_type_stored_lanes(type) + lane) * size;
  memcpy(p, &bits, size);
}

double corpus_bits_to_double(corpus_scalar scalar, uint64_t bits) {
  switch (scalar) {
    case CORPUS_HALF:
      return corpus_half_to_float((uint16_t)bits);
    case CORPUS_FLOAT: {
      uint32_t narrow = (uint32_t)bits;
      float value;
      memcpy(&value, &narrow, sizeof value);
      return value;
    }
    case CORPUS_DOUBLE: {
      double value;
      memcpy(&value, &bits, sizeof value);
      return value;
    }
    default:
      break;
  }
  if (!corpus_scalar_is_signed(scalar)) return (double)bits;
  unsigned shift = 64 - 8 * (unsigned)corpus_scalar_size(scalar);
  return (double)((int64_t)(bits << shift) >> shift);
}

/* The bits of `value` as a float scalar. */
static uint64_t corpus_double_to_bits(corpus_scalar scalar, double value) {
  if (scalar == CORPUS_HALF) return corpus_half_from_float((float)value);
  if (scalar == CORPUS_FLOAT) {
    float narrow = (float)value;
    uint32_t bits;
    memcpy(&bits, &narrow, sizeof bits);
    return bits;
  }
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

/* The bits of a header number as a lane of `scalar` (integers truncated to
 * the width, two's complement). */
static uint64_t corpus_number_bits(corpus_scalar scalar, const corpus_number *number) {
  if (corpus_scalar_is_float(scalar)) return corpus_double_to_bits(scalar, number->f);
  return corpus_scalar_is_signed(scalar) ? (uint64_t)number->i : number->u;
}

static uint64_t corpus_width_mask(corpus_scalar scalar) {
  unsigned bits = 8 * (unsigned)corpus_scalar_size(scalar);
  return bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
}

/* ---------------------------------------------------------------- poison */

uint64_t corpus_poison_bits(corpus_scalar scalar, int poison) {
  switch (scalar) {
    case CORPUS_HALF:
      return poison ? 0xfe5au : 0x7da5u; /* NaNs */
    case CORPUS_FLOAT:
      return poison ? 0xffc5a55aull : 0x7fa5a5a5ull;
    case CORPUS_DOUBLE:
      return poison ? 0xfff85a5a5a5a5a5aull : 0x7ff5a5a5a5a5a5a5ull;
    default:
      return (poison ? 0x5a5a5a5a5a5a5a5aull : 0xa5a5a5a5a5a5a5a5ull) & corpus_width_mask(scalar);
  }
}

/* ---------------------------------------------------------------- inputs */

static uint64_t corpus_random_lane(const corpus_arg *arg, uint64_t *state) {
  corpus_scalar scalar = arg->type.scalar;
  for (int attempt = 0;; attempt++) {
    uint64_t bits;
    if (corpus_scalar_is_float(scalar)) {
      double unit = (double)(corpus_splitmix(state) >> 11) / 9007199254740992.0;
      bits = corpus_double_to_bits(scalar, arg->lo.f + (arg->hi.f - arg->lo.f) * unit);
      if (corpus_bits_to_double(scalar, bits) > arg->hi.f)
        bits = corpus_number_bits(scalar, &arg->hi);
    } else if (corpus_scalar_is_signed(scalar)) {
      uint64_t span = (uint64_t)arg->hi.i - (uint64_t)arg->lo.i + 1;
      bits = ((uint64_t)arg->lo.i + corpus_below(state, span)) & corpus_width_mask(scalar);
    } else {
      bits =
          (arg->lo.u + corpus_below(state, arg->hi.u - arg->lo.u + 1)) & corpus_width_mask(scalar);
    }
    bool zero = corpus_bits_to_double(scalar, bits) == 0;
    if (!arg->nonzero || !zero || attempt > 1000) return bits;
  }
}

static uint64_t corpus_iota_lane(const corpus_arg *arg, uint64_t position) {
  corpus_scalar scalar = arg->type.scalar;
  if (corpus_scalar_is_float(scalar))
    return corpus_double_to_bits(scalar, arg->fill.f + (double)position);
  uint64_t start = corpus_scalar_is_signed(scalar) ? (uint64_t)arg->fill.i : arg->fill.u;
  return (start + position) & corpus_width_mask(scalar);
}

size_t corpus_buffer_bytes(const corpus_arg *arg) {
  return arg->count * corpus_type_size(arg->type);
}

void corpus_fill_buffer(const corpus_kernel *kernel, uint32_t index, uint64_t seed, int poison,
                        void *data) {
  const corpus_arg *arg = &kernel->args[index];
  unsigned stored = corpus_type_stored_lanes(arg->type);
  uint64_t state = corpus_stream(seed, kernel->stem, index);
  for (size_t element = 0; element < arg->count; element++) {
    for (unsigned lane = 0; lane < stored; lane++) {
      uint64_t bits = 0;
      switch (arg->init) {
        case CORPUS_INIT_RANDOM:
          bits = corpus_random_lane(arg, &state);
          break;
        case CORPUS_INIT_FILL:
          bits = corpus_number_bits(arg->type.scalar, &arg->fill);
          break;
        case CORPUS_INIT_IOTA:
          bits = corpus_iota_lane(arg, element * arg->type.lanes + lane);
          break;
        case CORPUS_INIT_POISON:
          bits = corpus_poison_bits(arg->type.scalar, poison);
          break;
      }
      if (lane >= arg->type.lanes && arg->init != CORPUS_INIT_POISON) bits = 0; /* padding */
      corpus_set_lane_bits(arg->type, data, element, lane, bits);
    }
  }
}

agpu_arg corpus_value_arg(const corpus_arg *arg) {
  unsigned char bytes[AGPU_ARG_MAX_VALUE_SIZE];
  memset(bytes, 0, sizeof bytes);
  for (unsigned lane = 0; lane < arg->type.lanes; lane++)
    corpus_set_lane_bits(arg->type, bytes, 0, lane,
                         corpus_number_bits(arg->type.scalar, &arg->values[lane]));
  return agpu_arg_value(bytes, corpus_type_size(arg->type));
}

void corpus_result_free(corpus_result *result) {
  for (int i = 0; i < CORPUS_MAX_ARGS; i++) {
    free(result->buffers[i]);
    result->buffers[i] = NULL;
    result->sizes[i] = 0;
  }
}
