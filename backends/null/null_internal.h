// SPDX-License-Identifier: Apache-2.0
/* The null backend (docs/new-backend.md): devices with configurable limits,
 * buffers in host memory, launches that the core validates and this backend
 * records but does not run. The skeleton a new backend starts from, and the
 * core's test double: it needs no driver. */
#ifndef AGPU_NULL_INTERNAL_H
#define AGPU_NULL_INTERNAL_H

#include <stdatomic.h>

#include "agpu_backend.h"
#include "agpu_parsed.h"

typedef struct agpu_null_device {
  _Atomic uint64_t launches; /* launches recorded (and not run) */
} agpu_null_device;

typedef struct agpu_null_program {
  agpu_parsed *parsed; /* retained: it owns the signatures */
  const agpu_program_signatures *signatures;
} agpu_null_program;

/* null_device.c: the devices ANYGPU_NULL_DEVICES asks for. */
agpu_status agpu_null_enumerate(agpu_backend *backend);

/* null_program.c */
agpu_status agpu_null_program_build(agpu_program *program, const agpu_program_desc *desc);
AGPU_DECLARE_KERNEL_OPS(agpu_null);

#endif /* AGPU_NULL_INTERNAL_H */
