// SPDX-License-Identifier: Apache-2.0
/* The built-in CPU device: what it reports, and its buffers. */
#include <unistd.h>

#include "agpu_test.h"

static agpu_device *cpu(void) {
  agpu_device *device = NULL;
  if (agpu_device_select("cpu:0", &device)) printf("  %s\n", agpu_last_error());
  return device;
}

static void info_matches_the_host(void) {
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(cpu(), &info));
  CHECK(info.type == AGPU_DEVICE_TYPE_CPU);
  CHECK(info.compute_units == (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
  uint64_t pages = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
  /* /proc/meminfo and sysconf agree to within a page-rounding of a few MiB */
  CHECK(info.global_mem_bytes > pages - (64u << 20) &&
        info.global_mem_bytes <= pages + (64u << 20));
  CHECK(info.name[0] != '\0');
  CHECK(info.max_work_group_size > 0 && info.local_mem_bytes > 0);
  CHECK(!info.has_pci && !info.has_uuid);
  FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
  if (cpuinfo) {
    char line[512];
    while (fgets(line, sizeof line, cpuinfo)) {
      if (strncmp(line, "model name", 10) == 0) {
        CHECK(strstr(line, info.name) != NULL);
        break;
      }
    }
    fclose(cpuinfo);
  }
  agpu_memory_info memory;
  CHECK_OK(agpu_device_memory(cpu(), &memory));
  CHECK(memory.free_known && memory.free_bytes > 0 && memory.free_bytes <= memory.total_bytes);
}

static void round_trip_at_odd_offsets(void) {
  uint64_t seed = 1234;
  agpu_buffer *buffer;
  const size_t size = 100003;
  CHECK_OK(agpu_buffer_create(cpu(), size, 0, &buffer));
  unsigned char *in = malloc(size), *out = malloc(size);
  for (size_t i = 0; i < size; i++) in[i] = (unsigned char)agpu_test_rand(&seed);
  CHECK_OK(agpu_buffer_write(NULL, buffer, 0, size, in));
  const size_t offsets[] = {1, 7, 4095, 99999}, sizes[] = {1, 3, 1000, 4};
  for (int t = 0; t < 4; t++) {
    memset(out, 0xA5, size);
    CHECK_OK(agpu_buffer_read(NULL, buffer, offsets[t], sizes[t], out + 5));
    CHECK(memcmp(out + 5, in + offsets[t], sizes[t]) == 0);
    CHECK(out[4] == 0xA5 && out[5 + sizes[t]] == 0xA5);
  }
  free(in);
  free(out);
  CHECK_OK(agpu_buffer_release(buffer));
}

static void fill_copy_and_map(void) {
  agpu_buffer *a, *b;
  CHECK_OK(agpu_buffer_create(cpu(), 4096, 0, &a));
  CHECK_OK(agpu_buffer_create(cpu(), 4096, 0, &b));
  const unsigned char pattern[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const size_t pattern_sizes[] = {1, 2, 4, 8, 16};
  for (int p = 0; p < 5; p++) {
    size_t ps = pattern_sizes[p];
    unsigned char zero[4096] = {0}, got[4096];
    CHECK_OK(agpu_buffer_write(NULL, a, 0, sizeof zero, zero));
    CHECK_OK(agpu_buffer_fill(NULL, a, ps * 3, ps * 50, pattern, ps));
    CHECK_OK(agpu_buffer_read(NULL, a, 0, sizeof got, got));
    for (size_t i = 0; i < sizeof got; i++) {
      unsigned char want = (i >= ps * 3 && i < ps * 53) ? pattern[(i - ps * 3) % ps] : 0;
      if (got[i] != want) {
        CHECK(got[i] == want);
        break;
      }
    }
  }
  CHECK_STATUS(agpu_buffer_fill(NULL, a, 1, 8, pattern, 4), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(agpu_buffer_fill(NULL, a, 0, 8, pattern, 3), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_OK(agpu_buffer_copy(NULL, a, 9, b, 17, 33));
  unsigned char x[33], y[33];
  CHECK_OK(agpu_buffer_read(NULL, a, 9, 33, x));
  CHECK_OK(agpu_buffer_read(NULL, b, 17, 33, y));
  CHECK(memcmp(x, y, 33) == 0);
  CHECK_STATUS(agpu_buffer_copy(NULL, a, 0, a, 10, 20), AGPU_ERROR_INVALID_ARGUMENT);
  void *mapped = NULL;
  CHECK_OK(agpu_buffer_map(NULL, b, 100, 50, &mapped));
  if (mapped) {
    memset(mapped, 0x3C, 50);
    CHECK_OK(agpu_buffer_unmap(NULL, b, mapped));
    unsigned char z[50];
    CHECK_OK(agpu_buffer_read(NULL, b, 100, 50, z));
    CHECK(z[0] == 0x3C && z[49] == 0x3C);
  }
  CHECK_OK(agpu_buffer_release(a));
  CHECK_OK(agpu_buffer_release(b));
}

static void ranges_are_checked(void) {
  agpu_buffer *buffer;
  char data[64] = {0};
  CHECK_OK(agpu_buffer_create(cpu(), 64, 0, &buffer));
  CHECK_STATUS(agpu_buffer_read(NULL, buffer, 60, 8, data), AGPU_ERROR_OUT_OF_RANGE);
  CHECK_MESSAGE("past the end of a buffer of 64 bytes");
  CHECK_STATUS(agpu_buffer_write(NULL, buffer, SIZE_MAX, 2, data), AGPU_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(agpu_buffer_write(NULL, buffer, 2, SIZE_MAX, data), AGPU_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(agpu_buffer_read(NULL, buffer, 0, 8, NULL), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_OK(agpu_buffer_read(NULL, buffer, 64, 0, data)); /* empty range at the end */
  agpu_buffer *rejected = buffer;
  CHECK_STATUS(agpu_buffer_create(cpu(), 0, 0, &rejected), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK(rejected == NULL);
  CHECK_STATUS(agpu_buffer_create(cpu(), 8, 0x100, &rejected), AGPU_ERROR_INVALID_ARGUMENT);
  agpu_buffer *huge = NULL;
  CHECK_STATUS(agpu_buffer_create(cpu(), SIZE_MAX / 2, 0, &huge), AGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK_MESSAGE("largest allocation is");
  CHECK(huge == NULL);
  CHECK_OK(agpu_buffer_release(buffer));
}

static void allocation_is_accounted(void) {
  agpu_memory_info before, during, after;
  CHECK_OK(agpu_device_memory(cpu(), &before));
  agpu_buffer *a, *b;
  CHECK_OK(agpu_buffer_create(cpu(), 1000, 0, &a));
  CHECK_OK(agpu_buffer_create(cpu(), 3000, 0, &b));
  CHECK_OK(agpu_device_memory(cpu(), &during));
  CHECK(during.allocated_bytes == before.allocated_bytes + 4000);
  CHECK_OK(agpu_buffer_release(a));
  CHECK_OK(agpu_buffer_release(b));
  CHECK_OK(agpu_device_memory(cpu(), &after));
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.peak_allocated_bytes >= before.allocated_bytes + 4000);
}

static void kernels_are_built(void) {
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = "__kernel void k(__global int *out, int v) { out[get_global_id(0)] = v; }"};
  CHECK_OK(agpu_program_build(cpu(), &desc, &program));
  CHECK(program != NULL);
  if (!program) return;
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(program, "k", &kernel));
  agpu_kernel_info info;
  CHECK_OK(agpu_kernel_get_info(kernel, &info));
  CHECK(info.param_count == 2);
  CHECK(info.params[0].kind == AGPU_PARAM_GLOBAL_BUFFER && info.params[1].kind == AGPU_PARAM_SCALAR);
  CHECK(info.params[1].size == 4 && strcmp(info.params[1].name, "v") == 0);
  agpu_buffer *buffer;
  CHECK_OK(agpu_buffer_create(cpu(), 64 * sizeof(int), 0, &buffer));
  agpu_arg args[] = {agpu_arg_buffer(buffer), agpu_arg_i32(-7)};
  size_t global = 64;
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, NULL, 2, args));
  int out[64];
  CHECK_OK(agpu_buffer_read(NULL, buffer, 0, sizeof out, out));
  CHECK(out[0] == -7 && out[63] == -7);
  agpu_kernel *missing = NULL;
  CHECK_STATUS(agpu_kernel_create(program, "nope", &missing), AGPU_ERROR_NOT_FOUND);
  CHECK_MESSAGE("it has: k");
  CHECK_OK(agpu_buffer_release(buffer));
  CHECK_OK(agpu_kernel_release(kernel));
  CHECK_OK(agpu_program_release(program));
}

static void queues_and_events(void) {
  agpu_queue *queue, *default_queue, *again;
  CHECK_OK(agpu_queue_create(cpu(), &queue));
  CHECK_OK(agpu_device_default_queue(cpu(), &default_queue));
  CHECK_OK(agpu_device_default_queue(cpu(), &again));
  CHECK(default_queue == again && queue != default_queue);
  agpu_event *start, *end;
  agpu_buffer *buffer;
  CHECK_OK(agpu_buffer_create(cpu(), 1 << 24, 0, &buffer));
  CHECK_OK(agpu_event_record(queue, &start));
  const uint32_t pattern = 0xdeadbeef;
  CHECK_OK(agpu_buffer_fill(queue, buffer, 0, 1 << 24, &pattern, 4));
  CHECK_OK(agpu_event_record(queue, &end));
  CHECK_OK(agpu_event_wait(end));
  uint64_t ns = 0;
  CHECK_OK(agpu_event_elapsed_ns(start, end, &ns));
  CHECK(ns > 0);
  CHECK_OK(agpu_queue_finish(queue));
  CHECK_OK(agpu_event_release(start));
  CHECK_OK(agpu_event_release(end));
  CHECK_STATUS(agpu_queue_finish((agpu_queue *)buffer), AGPU_ERROR_INVALID_HANDLE);
  CHECK_MESSAGE("is not a queue handle");
  CHECK_OK(agpu_buffer_release(buffer));
  CHECK_OK(agpu_queue_release(queue));
  CHECK_OK(agpu_queue_release(default_queue)); /* a no-op: the device owns it */
  CHECK_OK(agpu_device_default_queue(cpu(), &again));
  CHECK(again == default_queue);
}

int main(void) {
  RUN(info_matches_the_host);
  RUN(round_trip_at_odd_offsets);
  RUN(fill_copy_and_map);
  RUN(ranges_are_checked);
  RUN(allocation_is_accounted);
  RUN(kernels_are_built);
  RUN(queues_and_events);
  return agpu_test_finish();
}
