// SPDX-License-Identifier: Apache-2.0
/* OpenCL buffers: every transfer is checked byte by byte against a host
 * model of the buffer, including the bytes it must leave alone. */
#include "agpu_test.h"

#define BUFFER_SIZE 100003 /* odd, and not a multiple of any pattern size */
#define POISON 0xA5

static void fill_random(unsigned char *bytes, size_t size, uint64_t *seed) {
  for (size_t i = 0; i < size; i++) bytes[i] = (unsigned char)agpu_test_rand(seed);
}

/* Reads the whole buffer and compares it with the model; reports the first
 * difference only. */
static void check_buffer_equals(agpu_buffer *buffer, const unsigned char *model, size_t size) {
  unsigned char *got = malloc(size);
  CHECK(got != NULL);
  if (!got) return;
  memset(got, POISON, size);
  CHECK_OK(agpu_buffer_read(NULL, buffer, 0, size, got));
  for (size_t i = 0; i < size; i++) {
    if (got[i] != model[i]) {
      printf("  byte %zu is 0x%02x, expected 0x%02x\n", i, got[i], model[i]);
      CHECK(got[i] == model[i]);
      break;
    }
  }
  free(got);
}

static agpu_buffer *new_random_buffer(agpu_device *device, unsigned char *model, size_t size,
                                      uint64_t *seed) {
  agpu_buffer *buffer = NULL;
  CHECK_OK(agpu_buffer_create(device, size, 0, &buffer));
  if (!buffer) return NULL;
  fill_random(model, size, seed);
  CHECK_OK(agpu_buffer_write(NULL, buffer, 0, size, model));
  return buffer;
}

static const size_t odd_offsets[] = {0, 1, 7, 4095, 50001, BUFFER_SIZE - 4, BUFFER_SIZE - 1};
static const size_t odd_sizes[] = {BUFFER_SIZE, 1, 3, 1000, 49999, 4, 1};

static void writes_at_odd_offsets_touch_only_their_range(void) {
  REQUIRE_DEVICE(device, "opencl");
  uint64_t seed = 11;
  unsigned char *model = malloc(BUFFER_SIZE), *data = malloc(BUFFER_SIZE);
  agpu_buffer *buffer = new_random_buffer(device, model, BUFFER_SIZE, &seed);
  if (!buffer) return;
  for (size_t t = 0; t < sizeof odd_offsets / sizeof odd_offsets[0]; t++) {
    fill_random(data, odd_sizes[t], &seed);
    CHECK_OK(agpu_buffer_write(NULL, buffer, odd_offsets[t], odd_sizes[t], data));
    memcpy(model + odd_offsets[t], data, odd_sizes[t]);
    check_buffer_equals(buffer, model, BUFFER_SIZE);
  }
  CHECK_OK(agpu_buffer_release(buffer));
  free(model);
  free(data);
}

static void reads_at_odd_offsets_fill_only_their_range(void) {
  REQUIRE_DEVICE(device, "opencl");
  uint64_t seed = 12;
  unsigned char *model = malloc(BUFFER_SIZE), *got = malloc(BUFFER_SIZE + 32);
  agpu_buffer *buffer = new_random_buffer(device, model, BUFFER_SIZE, &seed);
  if (!buffer) return;
  for (size_t t = 0; t < sizeof odd_offsets / sizeof odd_offsets[0]; t++) {
    const size_t size = odd_sizes[t], at = 13; /* an unaligned host destination */
    memset(got, POISON, BUFFER_SIZE + 32);
    CHECK_OK(agpu_buffer_read(NULL, buffer, odd_offsets[t], size, got + at));
    CHECK(memcmp(got + at, model + odd_offsets[t], size) == 0);
    for (size_t i = 0; i < at; i++) CHECK(got[i] == POISON);
    for (size_t i = at + size; i < BUFFER_SIZE + 32; i++) {
      if (got[i] != POISON) {
        CHECK(got[i] == POISON);
        break;
      }
    }
  }
  CHECK_OK(agpu_buffer_release(buffer));
  free(model);
  free(got);
}

static void copies_between_buffers_at_odd_offsets(void) {
  REQUIRE_DEVICE(device, "opencl");
  uint64_t seed = 13;
  const size_t other_size = 7777;
  unsigned char *model = malloc(BUFFER_SIZE), *other_model = malloc(other_size);
  agpu_buffer *buffer = new_random_buffer(device, model, BUFFER_SIZE, &seed);
  agpu_buffer *other = new_random_buffer(device, other_model, other_size, &seed);
  if (!buffer || !other) return;
  const struct {
    size_t src_offset, dst_offset, size;
  } copies[] = {{0, 0, 1},
                {1, 3, 5},
                {17, 4095, 3001},
                {other_size - 1, BUFFER_SIZE - 1, 1},
                {5, 90001, other_size - 5}};
  for (size_t t = 0; t < sizeof copies / sizeof copies[0]; t++) {
    CHECK_OK(agpu_buffer_copy(NULL, other, copies[t].src_offset, buffer, copies[t].dst_offset,
                              copies[t].size));
    memcpy(model + copies[t].dst_offset, other_model + copies[t].src_offset, copies[t].size);
    check_buffer_equals(buffer, model, BUFFER_SIZE);
  }
  /* Within one buffer, between ranges that do not overlap. */
  CHECK_OK(agpu_buffer_copy(NULL, buffer, 3, buffer, 60007, 20011));
  memmove(model + 60007, model + 3, 20011);
  check_buffer_equals(buffer, model, BUFFER_SIZE);
  check_buffer_equals(other, other_model, other_size); /* the source is untouched */
  CHECK_OK(agpu_buffer_release(buffer));
  CHECK_OK(agpu_buffer_release(other));
  free(model);
  free(other_model);
}

static void fills_with_every_pattern_size(void) {
  REQUIRE_DEVICE(device, "opencl");
  uint64_t seed = 14;
  unsigned char *model = malloc(BUFFER_SIZE);
  agpu_buffer *buffer = new_random_buffer(device, model, BUFFER_SIZE, &seed);
  if (!buffer) return;
  const size_t pattern_sizes[] = {1, 2, 4, 8, 16};
  for (size_t p = 0; p < sizeof pattern_sizes / sizeof pattern_sizes[0]; p++) {
    const size_t ps = pattern_sizes[p];
    unsigned char pattern[16];
    fill_random(pattern, sizeof pattern, &seed);
    const size_t offset = ps * (3 + p * 101), size = ps * (1999 + p);
    CHECK_OK(agpu_buffer_fill(NULL, buffer, offset, size, pattern, ps));
    for (size_t i = 0; i < size; i++) model[offset + i] = pattern[i % ps];
    check_buffer_equals(buffer, model, BUFFER_SIZE);
  }
  /* The last whole pattern before the end of the buffer. */
  const uint64_t pattern = 0x0123456789abcdefull;
  const size_t tail = (BUFFER_SIZE / 8) * 8 - 8;
  CHECK_OK(agpu_buffer_fill(NULL, buffer, tail, 8, &pattern, 8));
  memcpy(model + tail, &pattern, 8);
  check_buffer_equals(buffer, model, BUFFER_SIZE);
  CHECK_OK(agpu_buffer_release(buffer));
  free(model);
}

static void map_reads_and_writes_through(void) {
  REQUIRE_DEVICE(device, "opencl");
  uint64_t seed = 15;
  unsigned char *model = malloc(BUFFER_SIZE), data[777];
  const uint32_t flag_sets[] = {0, AGPU_BUFFER_HOST_VISIBLE};
  for (size_t f = 0; f < 2; f++) {
    agpu_buffer *buffer = NULL;
    CHECK_OK(agpu_buffer_create(device, BUFFER_SIZE, flag_sets[f], &buffer));
    if (!buffer) break;
    fill_random(model, BUFFER_SIZE, &seed);
    CHECK_OK(agpu_buffer_write(NULL, buffer, 0, BUFFER_SIZE, model));
    void *mapped = NULL;
    const size_t offset = 4097;
    CHECK_OK(agpu_buffer_map(NULL, buffer, offset, sizeof data, &mapped));
    CHECK(mapped != NULL);
    if (!mapped) break;
    CHECK(memcmp(mapped, model + offset, sizeof data) == 0);
    fill_random(data, sizeof data, &seed);
    memcpy(mapped, data, sizeof data);
    memcpy(model + offset, data, sizeof data);
    CHECK_OK(agpu_buffer_unmap(NULL, buffer, mapped));
    check_buffer_equals(buffer, model, BUFFER_SIZE);
    CHECK_OK(agpu_buffer_release(buffer));
  }
  free(model);
}

static void hinted_buffers_round_trip(void) {
  REQUIRE_DEVICE(device, "opencl");
  const uint32_t flag_sets[] = {AGPU_BUFFER_READ_ONLY, AGPU_BUFFER_WRITE_ONLY,
                                AGPU_BUFFER_HOST_VISIBLE,
                                AGPU_BUFFER_READ_ONLY | AGPU_BUFFER_HOST_VISIBLE};
  uint64_t seed = 16;
  unsigned char model[4099];
  for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
    agpu_buffer *buffer = NULL;
    CHECK_OK(agpu_buffer_create(device, sizeof model, flag_sets[f], &buffer));
    if (!buffer) continue;
    CHECK(agpu_buffer_size(buffer) == sizeof model && agpu_buffer_device(buffer) == device);
    fill_random(model, sizeof model, &seed);
    CHECK_OK(agpu_buffer_write(NULL, buffer, 0, sizeof model, model));
    check_buffer_equals(buffer, model, sizeof model);
    CHECK_OK(agpu_buffer_release(buffer));
  }
}

static void queues_order_their_own_work(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_queue_create(device, &queue));
  if (!queue) return;
  uint64_t seed = 17;
  unsigned char *model = malloc(BUFFER_SIZE);
  agpu_buffer *buffer = new_random_buffer(device, model, BUFFER_SIZE, &seed);
  if (!buffer) return;
  /* fill then copy then fill on one queue: each sees the one before. */
  const uint32_t a = 0x11223344u, b = 0xaabbccddu;
  CHECK_OK(agpu_buffer_fill(queue, buffer, 0, 4000, &a, 4));
  CHECK_OK(agpu_buffer_copy(queue, buffer, 0, buffer, 8000, 4000));
  CHECK_OK(agpu_buffer_fill(queue, buffer, 2000, 1000, &b, 4));
  CHECK_OK(agpu_queue_finish(queue));
  for (size_t i = 0; i < 4000; i += 4) memcpy(model + i, &a, 4);
  memcpy(model + 8000, model, 4000);
  for (size_t i = 2000; i < 3000; i += 4) memcpy(model + i, &b, 4);
  check_buffer_equals(buffer, model, BUFFER_SIZE);
  CHECK_OK(agpu_buffer_release(buffer));
  CHECK_OK(agpu_queue_release(queue));
  free(model);
}

static void allocation_is_accounted(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_memory_info before, during, after;
  CHECK_OK(agpu_device_memory(device, &before));
  agpu_buffer *a = NULL, *b = NULL, *c = NULL;
  CHECK_OK(agpu_buffer_create(device, 1000, 0, &a));
  CHECK_OK(agpu_buffer_create(device, 1 << 20, AGPU_BUFFER_HOST_VISIBLE, &b));
  CHECK_OK(agpu_device_memory(device, &during));
  CHECK(during.allocated_bytes == before.allocated_bytes + 1000 + (1 << 20));
  CHECK(during.peak_allocated_bytes >= during.allocated_bytes);
  CHECK_OK(agpu_buffer_release(b));
  CHECK_OK(agpu_buffer_create(device, 5, 0, &c));
  CHECK_OK(agpu_device_memory(device, &after));
  CHECK(after.allocated_bytes == before.allocated_bytes + 1005);
  CHECK(after.peak_allocated_bytes == during.peak_allocated_bytes); /* the peak stays */
  CHECK(after.total_bytes == during.total_bytes && after.total_bytes > 0);
  CHECK_OK(agpu_buffer_release(a));
  CHECK_OK(agpu_buffer_release(c));
  CHECK_OK(agpu_device_memory(device, &after));
  CHECK(after.allocated_bytes == before.allocated_bytes);
}

static void oversized_buffers_are_refused(void) {
  REQUIRE_DEVICE(device, "opencl");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  agpu_buffer *buffer = NULL;
  CHECK_STATUS(agpu_buffer_create(device, (size_t)info.max_alloc_bytes + 1, 0, &buffer),
               AGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK(buffer == NULL);
  unsigned char byte = 0;
  CHECK_OK(agpu_buffer_create(device, 16, 0, &buffer));
  CHECK_STATUS(agpu_buffer_read(NULL, buffer, 16, 1, &byte), AGPU_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(agpu_buffer_fill(NULL, buffer, 0, 16, &byte, 3), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_OK(agpu_buffer_release(buffer));
}

int main(void) {
  RUN(writes_at_odd_offsets_touch_only_their_range);
  RUN(reads_at_odd_offsets_fill_only_their_range);
  RUN(copies_between_buffers_at_odd_offsets);
  RUN(fills_with_every_pattern_size);
  RUN(map_reads_and_writes_through);
  RUN(hinted_buffers_round_trip);
  RUN(queues_order_their_own_work);
  RUN(allocation_is_accounted);
  RUN(oversized_buffers_are_refused);
  return agpu_test_finish();
}
