// SPDX-License-Identifier: Apache-2.0
/* What the bounds-checking tests share (test_bounds.c, test_bounds_proof.c):
 * buffers filled with data or poisoned, and a check of the last launch's
 * fault message, kept in the test's own `said`. */
#ifndef AGPU_TEST_BOUNDS_H
#define AGPU_TEST_BOUNDS_H

#include <stdlib.h>

#include "agpu_test.h"

/* Checks that the last launch's finish message (`said`) contains `needle`. */
#define CHECK_SAID(needle)                                                          \
  do {                                                                              \
    if (!strstr(said, (needle))) {                                                  \
      printf("  FAIL %s:%d: %s: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, \
             agpu_test_g.case_name, said, (needle));                                \
      agpu_test_g.case_failed = 1;                                                  \
    }                                                                               \
  } while (0)

/* A buffer of `bytes` holding `data`, or poisoned (NaN bit patterns) where
 * data is NULL. */
static inline agpu_buffer *buffer_of(agpu_device *device, const void *data, size_t bytes) {
  agpu_buffer *b = NULL;
  CHECK_OK(agpu_buffer_create(device, bytes, 0, &b));
  if (b && data) CHECK_OK(agpu_buffer_write(NULL, b, 0, bytes, data));
  if (b && !data) {
    uint32_t *poison = malloc(bytes);
    for (size_t i = 0; i < bytes / 4; i++) poison[i] = 0x7fc0dead;
    CHECK_OK(agpu_buffer_write(NULL, b, 0, bytes, poison));
    free(poison);
  }
  return b;
}

#endif /* AGPU_TEST_BOUNDS_H */
