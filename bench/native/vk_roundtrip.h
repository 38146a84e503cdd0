/* The raw-Vulkan side of the launch-roundtrip comparison (bench/vulkan_bench.c). */
#ifndef AGPU_BENCH_VK_ROUNDTRIP_H
#define AGPU_BENCH_VK_ROUNDTRIP_H

#include <stddef.h>
#include <stdint.h>

/* Runs `spirv` (a compute shader whose only interface is a push-constant
 * block of push_bytes) as one work-group, `reps` times, each time recording
 * a command buffer, submitting it and waiting on a fence: what one launch
 * and one finish need at the least. Uses the first physical device whose
 * name contains `device_name` ("" for the first). Fills times_ns[reps];
 * returns 0, or -1 with a message in error. */
int vk_roundtrip(const uint32_t *spirv, size_t spirv_bytes, uint32_t push_bytes,
                 const char *device_name, int reps, double *times_ns, char *error,
                 size_t error_size);

#endif
