/* Typedefs and helpers; includes its sibling relative to its own folder. */
#pragma once
#include "kl_constants.h"
typedef int acc_t;
typedef struct {
  acc_t sum;
  acc_t weighted;
} pair_t;

inline acc_t kl_scale(acc_t x) {
  return x * KL_SCALE + KL_BIAS;
}

inline pair_t kl_accumulate(pair_t p, acc_t x, int i) {
  p.sum += x;
  p.weighted += x * kl_weights[i & 3];
  return p;
}
