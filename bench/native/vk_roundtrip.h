// SPDX-License-Identifier: Apache-2.0
/* The raw-Vulkan side of the launch-roundtrip comparison (bench/vulkan_bench.c). */
#ifndef AGPU_BENCH_VK_ROUNDTRIP_H
#define AGPU_BENCH_VK_ROUNDTRIP_H

#include <stddef.h>
#include <stdint.h>

typedef struct vk_roundtrip vk_roundtrip;

/* Sets up `spirv` (a compute shader whose only interface is a push-constant
 * block of push_bytes) on the first physical device whose name contains
 * `device_name` ("" for the first): one queue, pipeline, command buffer and
 * fence. NULL with a message in error on failure. */
vk_roundtrip *vk_roundtrip_open(const uint32_t *spirv, size_t spirv_bytes, uint32_t push_bytes,
                                const char *device_name, char *error, size_t error_size);
/* `reps` roundtrips of one work-group, each recording a command buffer,
 * submitting it and waiting on the fence: what one launch and one finish
 * need at the least. Fills times_ns[reps]; 0, or -1 with a message. */
int vk_roundtrip_run(vk_roundtrip *rt, int reps, double *times_ns, char *error, size_t error_size);
void vk_roundtrip_close(vk_roundtrip *rt);

#endif
