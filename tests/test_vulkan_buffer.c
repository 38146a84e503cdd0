// SPDX-License-Identifier: Apache-2.0
/* Vulkan buffers: transfers at odd offsets, fills of every pattern size,
 * ten thousand live buffers (the sub-allocator), buffers larger than one
 * sub-allocation block, and running out of memory with the numbers said. */
#include "agpu_test.h"

static agpu_buffer *make(agpu_device *device, size_t size) {
  agpu_buffer *buffer = NULL;
  CHECK_OK(agpu_buffer_create(device, size, 0, &buffer));
  return buffer;
}

static void vulkan_write_read_copy(void) {
  REQUIRE_DEVICE(device, "vulkan");
  enum { N = 100003 };
  uint8_t *data = malloc(N), *back = malloc(N);
  uint64_t seed = 42;
  for (size_t i = 0; i < N; i++) data[i] = (uint8_t)agpu_test_rand(&seed);
  agpu_buffer *a = make(device, N), *b = make(device, N);
  if (!a || !b || !data || !back) return;
  CHECK_OK(agpu_buffer_write(NULL, a, 0, N, data));
  CHECK_OK(agpu_buffer_fill(NULL, b, 0, N, "\xee", 1));
  CHECK_OK(agpu_buffer_copy(NULL, a, 7, b, 3, N - 100)); /* queued after the fill */
  CHECK_OK(agpu_buffer_write(NULL, a, 1, 5, "hello"));   /* after the copy read a */
  memset(back, 0, N);
  CHECK_OK(agpu_buffer_read(NULL, b, 0, N, back));
  CHECK(memcmp(back, "\xee\xee\xee", 3) == 0);
  CHECK(memcmp(back + 3, data + 7, N - 100) == 0);
  CHECK(back[N - 1] == 0xee);
  CHECK_OK(agpu_buffer_read(NULL, a, 0, 8, back));
  CHECK(back[0] == data[0] && memcmp(back + 1, "hello", 5) == 0 && back[6] == data[6]);
  agpu_buffer_release(a);
  agpu_buffer_release(b);
  free(data);
  free(back);
}

static void vulkan_fill_patterns(void) {
  REQUIRE_DEVICE(device, "vulkan");
  enum { N = 4096 };
  agpu_buffer *buffer = make(device, N);
  if (!buffer) return;
  uint8_t pattern[16], back[N];
  for (int i = 0; i < 16; i++) pattern[i] = (uint8_t)(0x30 + i);
  for (size_t size = 1; size <= 16; size *= 2) {
    CHECK_OK(agpu_buffer_fill(NULL, buffer, 0, N, "\0\0\0\0", 4));
    size_t offset = size * 3, length = size * 201;
    CHECK_OK(agpu_buffer_fill(NULL, buffer, offset, length, pattern, size));
    CHECK_OK(agpu_buffer_read(NULL, buffer, 0, N, back));
    for (size_t i = 0; i < N; i++) {
      uint8_t expected = i >= offset && i < offset + length ? pattern[(i - offset) % size] : 0;
      if (back[i] != expected) {
        printf("  pattern size %zu: byte %zu is 0x%02x, expected 0x%02x\n", size, i, back[i],
               expected);
        CHECK(back[i] == expected);
        break;
      }
    }
  }
  agpu_buffer_release(buffer);
}

static void vulkan_map(void) {
  REQUIRE_DEVICE(device, "vulkan");
  agpu_buffer *buffer = make(device, 64);
  if (!buffer) return;
  void *ptr = NULL;
  agpu_status status = agpu_buffer_map(NULL, buffer, 16, 16, &ptr);
  if (status == AGPU_ERROR_UNSUPPORTED) {
    agpu_buffer_release(buffer);
    SKIP("vulkan:0 has no host-visible device memory: %s", agpu_last_error());
  }
  CHECK_OK(status);
  if (ptr) memcpy(ptr, "0123456789abcdef", 16);
  CHECK_OK(agpu_buffer_unmap(NULL, buffer, ptr));
  char back[16];
  CHECK_OK(agpu_buffer_read(NULL, buffer, 16, 16, back));
  CHECK(memcmp(back, "0123456789abcdef", 16) == 0);
  agpu_buffer_release(buffer);
}

static void vulkan_ten_thousand_buffers(void) {
  REQUIRE_DEVICE(device, "vulkan");
  enum { COUNT = 10000 };
  agpu_buffer **buffers = calloc(COUNT, sizeof *buffers);
  if (!buffers) return;
  int made = 0;
  for (; made < COUNT; made++) {
    agpu_status status =
        agpu_buffer_create(device, 256 + (size_t)(made % 7) * 4, 0, &buffers[made]);
    if (status != AGPU_SUCCESS) {
      printf("  buffer %d: %s\n", made, agpu_last_error());
      CHECK_OK(status);
      break;
    }
    uint32_t value = 0x9e3779b9u * (uint32_t)made;
    CHECK_OK(agpu_buffer_write(NULL, buffers[made], 252, 4, &value));
  }
  int wrong = 0;
  for (int i = 0; i < made; i++) {
    uint32_t value = 0;
    CHECK_OK(agpu_buffer_read(NULL, buffers[i], 252, 4, &value));
    wrong += value != 0x9e3779b9u * (uint32_t)i;
  }
  CHECK(wrong == 0);
  agpu_memory_info memory;
  CHECK_OK(agpu_device_memory(device, &memory));
  CHECK(memory.allocated_bytes >= (uint64_t)made * 256);
  for (int i = 0; i < made; i++) CHECK_OK(agpu_buffer_release(buffers[i]));
  free(buffers);
}

static void vulkan_buffer_larger_than_a_block(void) {
  REQUIRE_DEVICE(device, "vulkan");
  const size_t size = 96u << 20; /* blocks are 64 MiB at most */
  uint32_t *data = malloc(size), *back = malloc(size);
  agpu_buffer *a = make(device, size), *b = make(device, size);
  if (data && back && a && b) {
    uint64_t seed = 7;
    for (size_t i = 0; i < size / 4; i++) data[i] = (uint32_t)agpu_test_rand(&seed);
    CHECK_OK(agpu_buffer_write(NULL, a, 0, size, data));
    CHECK_OK(agpu_buffer_copy(NULL, a, 0, b, 0, size));
    memset(back, 0, size);
    CHECK_OK(agpu_buffer_read(NULL, b, 0, size, back));
    CHECK(memcmp(back, data, size) == 0);
  }
  if (a) agpu_buffer_release(a);
  if (b) agpu_buffer_release(b);
  free(data);
  free(back);
}

static void vulkan_out_of_memory(void) {
  REQUIRE_DEVICE(device, "vulkan");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  char number[64];
  /* Larger than the heap: refused with both sizes. */
  agpu_buffer *buffer = NULL;
  size_t too_big = (size_t)info.global_mem_bytes + 4096;
  CHECK_STATUS(agpu_buffer_create(device, too_big, 0, &buffer), AGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  snprintf(number, sizeof number, "%zu", too_big);
  CHECK_MESSAGE(number);
  CHECK_MESSAGE("vulkan:0");
  /* Two buffers that fit alone but not together: the backend's own count of
   * the heap says so, with the heap's size. */
  size_t big = (size_t)(info.global_mem_bytes / 4 * 3);
  if (big > info.max_alloc_bytes) big = (size_t)info.max_alloc_bytes;
  agpu_buffer *first = NULL, *second = NULL;
  CHECK_OK(agpu_buffer_create(device, big, 0, &first));
  CHECK_STATUS(agpu_buffer_create(device, big, 0, &second), AGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  snprintf(number, sizeof number, "%zu bytes) asked", big);
  CHECK_MESSAGE(number);
  snprintf(number, sizeof number, "%llu bytes)", (unsigned long long)info.global_mem_bytes);
  CHECK_MESSAGE(number);
  CHECK_MESSAGE("budget");
  if (second) agpu_buffer_release(second);
  if (first) agpu_buffer_release(first);
  /* and the memory is back */
  CHECK_OK(agpu_buffer_create(device, big, 0, &first));
  if (first) agpu_buffer_release(first);
}

int main(void) {
  RUN(vulkan_write_read_copy);
  RUN(vulkan_fill_patterns);
  RUN(vulkan_map);
  RUN(vulkan_ten_thousand_buffers);
  RUN(vulkan_buffer_larger_than_a_block);
  RUN(vulkan_out_of_memory);
  return agpu_test_finish();
}
