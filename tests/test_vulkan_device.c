// SPDX-License-Identifier: Apache-2.0
/* The Vulkan backend's devices: what enumeration reports for each, and that
 * a CPU device (lavapipe) joins the physical CPU. Run with
 * ANYGPU_VULKAN_VALIDATION=1 (ctest sets it). */
#include "agpu_test.h"

static void vulkan_device_info(void) {
  REQUIRE_DEVICE(device, "vulkan");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  CHECK(info.backend == AGPU_BACKEND_VULKAN);
  CHECK(strcmp(info.selector, "vulkan:0") == 0);
  CHECK(info.name[0] != '\0');
  CHECK(strncmp(info.api_version, "Vulkan 1.", 9) == 0);
  CHECK(info.has_uuid);
  CHECK(info.subgroup_sizes[0] >= 1);
  CHECK(info.global_mem_bytes > 0);
  CHECK(info.max_alloc_bytes > 0 && info.max_alloc_bytes <= info.global_mem_bytes);
  CHECK(info.local_mem_bytes >= 16384); /* Vulkan's minimum maxComputeSharedMemorySize */
  CHECK(info.max_work_group_size >= 128);
  for (int d = 0; d < 3; d++) CHECK(info.max_work_groups[d] == UINT32_MAX);
  agpu_memory_info memory;
  CHECK_OK(agpu_device_memory(device, &memory));
  CHECK(memory.total_bytes == info.global_mem_bytes);
  if (strstr(info.name, "llvmpipe")) {
    /* lavapipe, as DESIGN.md describes it */
    CHECK(info.type == AGPU_DEVICE_TYPE_CPU);
    /* a subgroup is one SIMD vector of 32-bit lanes: "(LLVM 15.0.6, 256 bits)"
     * has 8, 128 bits (LP_NATIVE_VECTOR_WIDTH=128, an SSE host) 4 */
    const char *bits = strstr(info.name, " bits)");
    int width = 0;
    while (bits && bits > info.name && bits[-1] >= '0' && bits[-1] <= '9') bits--;
    if (bits) width = atoi(bits);
    CHECK(width >= 128 && info.subgroup_sizes[0] == (uint32_t)width / 32);
    CHECK(info.fp64 && info.int64);
    CHECK(info.unified_memory);
    CHECK(info.local_mem_bytes == 32768);
    CHECK(memcmp(info.uuid, "mesa", 4) == 0); /* the Mesa version string */
  }
}

static void vulkan_cpu_device_joins_the_host(void) {
  REQUIRE_DEVICE(device, "vulkan");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  if (info.type != AGPU_DEVICE_TYPE_CPU) SKIP("vulkan:0 is not a CPU device");
  uint32_t vulkan_index = 0, cpu_index = 1;
  CHECK_OK(agpu_device_physical_index(device, &vulkan_index));
  agpu_device *cpu = agpu_test_device("cpu:0");
  if (!cpu) SKIP("no cpu:0");
  CHECK_OK(agpu_device_physical_index(cpu, &cpu_index));
  CHECK(vulkan_index == cpu_index);
  agpu_physical_device_info physical;
  CHECK_OK(agpu_physical_device_get_info(vulkan_index, &physical));
  CHECK(physical.match == AGPU_PHYSICAL_MATCH_CPU);
}

static void vulkan_default_queue_and_events(void) {
  REQUIRE_DEVICE(device, "vulkan");
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_queue_create(device, &queue));
  agpu_event *start = NULL, *end = NULL;
  CHECK_OK(agpu_event_record(queue, &start));
  CHECK_OK(agpu_event_record(queue, &end));
  CHECK_OK(agpu_event_wait(end));
  uint64_t ns = UINT64_MAX;
  CHECK_OK(agpu_event_elapsed_ns(start, end, &ns));
  CHECK(ns < 1000000000ull);
  CHECK_OK(agpu_event_release(start));
  CHECK_OK(agpu_event_release(end));
  CHECK_OK(agpu_queue_finish(queue));
  CHECK_OK(agpu_queue_release(queue));
}

int main(void) {
  RUN(vulkan_device_info);
  RUN(vulkan_cpu_device_joins_the_host);
  RUN(vulkan_default_queue_and_events);
  return agpu_test_finish();
}
