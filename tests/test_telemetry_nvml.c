// SPDX-License-Identifier: Apache-2.0
/* The telemetry's NVML source (api/telemetry_nvml.c) against a stand-in
 * libnvidia-ml.so.1 (tests/drivers/fake_nvml.c) found through
 * LD_LIBRARY_PATH: every reading, the process lists merged and grown, the
 * throttle reasons; with FAKE_NVML_INIT_ERROR, nvmlInit_v2's failure named
 * as the source's reason. */
#include <unistd.h>

#include "agpu_test.h"
#include "telemetry_test.h"

static bool find_gpu(const agpu_telemetry *sample, agpu_device_telemetry *gpu) {
  for (uint32_t i = 0; i < agpu_telemetry_device_count(sample); i++)
    if (agpu_telemetry_get_device(sample, i, gpu) == AGPU_SUCCESS &&
        strcmp(gpu->pci, "0000:01:00.0") == 0)
      return true;
  return false;
}

static void test_nvml_readings(void) {
  agpu_telemetry_desc desc = {0};
  agpu_telemetry *sample = NULL;
  CHECK_OK(agpu_telemetry_sample(&desc, &sample));
  if (!sample) return;
  const char *reason = source_reason(sample, "nvml");
  CHECK(reason && reason[0] == '\0');
  agpu_device_telemetry gpu;
  CHECK(find_gpu(sample, &gpu));
  CHECK(strcmp(gpu.name, "NVIDIA H200") == 0 && strcmp(gpu.driver, "nvidia") == 0);
  CHECK(gpu.type == AGPU_DEVICE_TYPE_DISCRETE_GPU && strcmp(gpu.sources, "nvml") == 0);
  CHECK(gpu.memory_total.known && gpu.memory_total.bytes == 80ull << 30);
  CHECK(gpu.memory_used.known && gpu.memory_used.bytes == 10ull << 30);
  CHECK(gpu.memory_free.known && gpu.memory_free.bytes == 70ull << 30);
  CHECK(gpu.utilization_percent.known && gpu.utilization_percent.value == 55);
  CHECK(gpu.temperature_c.known && gpu.temperature_c.value == 61);
  CHECK(strcmp(gpu.temperature_sensor, "nvml gpu") == 0);
  CHECK(gpu.power_w.known && gpu.power_w.value == 250.5);
  CHECK(gpu.power_limit_w.known && gpu.power_limit_w.value == 700);
  CHECK(gpu.clock_mhz.known && gpu.clock_mhz.value == 1755);
  CHECK(gpu.clock_max_mhz.known && gpu.clock_max_mhz.value == 1980);
  CHECK(gpu.memory_clock_mhz.known && gpu.memory_clock_mhz.value == 2619);
  CHECK(gpu.memory_clock_max_mhz.known && gpu.memory_clock_max_mhz.value == 3201);
  CHECK(!gpu.fan_percent.known); /* NVML_ERROR_NOT_SUPPORTED */
  CHECK(gpu.throttle_known &&
        strcmp(gpu.throttle_reasons, "software power cap, hardware thermal") == 0);
  /* 100 compute processes and 2 graphics ones, this process in both. */
  CHECK(gpu.processes_known && gpu.processes_truncated);
  CHECK(gpu.process_count == AGPU_TELEMETRY_MAX_PROCESSES);
  CHECK(gpu.processes[0].pid == (uint32_t)getpid());
  CHECK(gpu.processes[0].memory.known && gpu.processes[0].memory.bytes == 2ull << 30);
  CHECK(strcmp(gpu.processes[0].name, "test_telemetry_") == 0);
  CHECK(gpu.processes[1].pid == 100099 && gpu.processes[1].memory.bytes == 99ull << 20);
  /* MIG: two instances in slots 0 and 2, each with its own memory */
  CHECK(gpu.partition_count == 2);
  CHECK(strcmp(gpu.partitions[0].name, "NVIDIA H200 MIG 1g.18gb") == 0);
  CHECK(gpu.partitions[0].instance_id == 7 && gpu.partitions[1].instance_id == 9);
  CHECK(gpu.partitions[0].memory_total.known && gpu.partitions[0].memory_total.bytes == 18ull
                                                                                            << 30);
  CHECK(gpu.partitions[0].memory_used.bytes == 4ull << 30 &&
        gpu.partitions[1].memory_used.bytes == 1ull << 30);
  CHECK(gpu.partitions[1].memory_free.known && gpu.partitions[1].memory_free.bytes == 17ull << 30);
  agpu_telemetry_release(sample);
}

static void test_nvml_init_error(void) {
  agpu_telemetry_desc desc = {0};
  agpu_telemetry *sample = NULL;
  CHECK_OK(agpu_telemetry_sample(&desc, &sample));
  if (!sample) return;
  const char *reason = source_reason(sample, "nvml");
  CHECK(reason && strcmp(reason, "nvmlInit_v2 failed: Driver Not Loaded (9)") == 0);
  agpu_device_telemetry gpu;
  CHECK(!find_gpu(sample, &gpu));
  agpu_telemetry_release(sample);
}

int main(void) {
  if (getenv("FAKE_NVML_INIT_ERROR"))
    RUN(test_nvml_init_error);
  else
    RUN(test_nvml_readings);
  return agpu_test_finish();
}
