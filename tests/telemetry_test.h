// SPDX-License-Identifier: Apache-2.0
/* What the telemetry tests share (test_telemetry.c, test_telemetry_nvml.c). */
#ifndef AGPU_TELEMETRY_TEST_H
#define AGPU_TELEMETRY_TEST_H

#include <string.h>

#include "anygpu.h"

/* The reason a sample-wide source gives ("" when it answered), or NULL. */
static inline const char *source_reason(const agpu_telemetry *sample, const char *wanted) {
  for (uint32_t i = 0; i < agpu_telemetry_source_count(sample); i++) {
    const char *name, *reason;
    if (agpu_telemetry_get_source(sample, i, &name, &reason) == AGPU_SUCCESS &&
        strcmp(name, wanted) == 0)
      return reason;
  }
  return NULL;
}

#endif /* AGPU_TELEMETRY_TEST_H */
