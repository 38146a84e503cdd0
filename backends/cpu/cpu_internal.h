#ifndef AGPU_CPU_INTERNAL_H
#define AGPU_CPU_INTERNAL_H

#include "agpu_backend.h"

/* Fills the built-in CPU device's info from /proc and sysconf. */
void agpu_cpu_describe_host(agpu_device_info *info);
/* System memory from /proc/meminfo: total and available bytes. */
bool agpu_cpu_host_memory(uint64_t *total, uint64_t *available);

#endif
