/* Launch sizes at and past 32 and 64 bits (issue 33): each either right or
 * refused with a message naming the limit, never wrong data with success.
 *   - a launch whose total work-item count is 2^64 or more is refused
 *     (each dimension within its limits, the product not);
 *   - agpu_arg_local of 4 GiB + 64 bytes is refused by the local-memory
 *     check (it once became 64 bytes and the kernel overran the heap);
 *     agpu_arg_value past its limit is refused (it once passed zeros).
 *
 * Usage: test_launch_sizes SELECTOR [CASE,CASE...] */
#include <stdint.h>

#include "agpu_test.h"

static const char *selector_g;
static agpu_device *device_g;
static agpu_device_info info_g;
static agpu_program *program_g;

static const char source[] =
    "__kernel void mark(__global uint *out) {\n"
    "  size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);\n"
    "  if (i < 64) out[i] = 1u;\n"
    "}\n"
    "__kernel void scratch(__global uint *out, __local uint *s) {\n"
    "  uint lid = get_local_id(0);\n"
    "  s[lid] = lid + 1u;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = s[get_local_size(0) - 1u - lid];\n"
    "}\n"
    "__kernel void value(__global uint *out, uint v) {\n"
    "  out[get_global_id(0)] = v;\n"
    "}\n";

static agpu_kernel *kernel_of(const char *name) {
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(program_g, name, &kernel));
  return kernel;
}

static agpu_buffer *make(size_t size) {
  agpu_buffer *buffer = NULL;
  CHECK_OK(agpu_buffer_create(device_g, size, 0, &buffer));
  if (buffer) {
    const uint32_t zero = 0;
    CHECK_OK(agpu_buffer_fill(NULL, buffer, 0, size, &zero, 4));
  }
  return buffer;
}

/* ------------------------------------------------ total work-items */

/* A launch of global[0] x global[1] x global[2] work-items in groups of
 * local[], each dimension within the device's limits: refused, with
 * nothing run. */
static void refused_total(const size_t global[3], const size_t local[3]) {
  agpu_kernel *kernel = kernel_of("mark");
  agpu_buffer *out = make(64 * 4);
  if (!kernel || !out) return;
  agpu_arg args[] = {agpu_arg_buffer(out)};
  CHECK_STATUS(agpu_launch(NULL, kernel, 3, global, local, 1, args), AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("more work-items than a launch can count");
  CHECK_MESSAGE("2^64 - 1");
  printf("  %zux%zux%zu in groups of %zux%zux%zu: %.200s\n", global[0], global[1], global[2],
         local[0], local[1], local[2], agpu_last_error());
  CHECK_OK(agpu_device_finish(device_g));
  uint32_t back[64];
  CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof back, back));
  uint32_t ran = 0;
  for (int i = 0; i < 64; i++) ran += back[i];
  CHECK(ran == 0);
  CHECK_OK(agpu_buffer_release(out));
  CHECK_OK(agpu_kernel_release(kernel));
}

/* The geometry: about 3.7e19 work-items, once run as one (cpu:0,
 * opencl:0) or without end (vulkan:0), with success. */
static void total_overflows(void) {
  size_t global[3] = {1229673, 3935371, 7623851}, local[3] = {1, 1, 1};
  refused_total(global, local);
}

/* Exactly 2^64: once wrapped to 0 work-items and success. */
static void total_is_2_64(void) {
  size_t global[3] = {(size_t)1 << 32, (size_t)1 << 32, 1}, local[3] = {2, 2, 1};
  if (info_g.max_work_item_sizes[1] && info_g.max_work_item_sizes[1] < 2)
    SKIP("%s: local size 2 in dimension 1 over the limit", selector_g);
  refused_total(global, local);
  size_t flat[3] = {(size_t)1 << 22, (size_t)1 << 21, (size_t)1 << 21}, ones[3] = {1, 1, 1};
  refused_total(flat, ones);
}

/* 2^64 - 1 exactly cannot be run here; a product that fits still runs
 * (the check counts the product, not each dimension twice). */
static void total_fits(void) {
  agpu_kernel *kernel = kernel_of("mark");
  agpu_buffer *out = make(64 * 4);
  if (!kernel || !out) return;
  agpu_arg args[] = {agpu_arg_buffer(out)};
  size_t global[3] = {8, 8, 1}, local[3] = {4, 2, 1};
  CHECK_OK(agpu_launch(NULL, kernel, 2, global, local, 1, args));
  uint32_t back[64];
  CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof back, back));
  for (int i = 0; i < 64; i++) CHECK(back[i] == 1u);
  CHECK_OK(agpu_buffer_release(out));
  CHECK_OK(agpu_kernel_release(kernel));
}

/* ------------------------------------------------ argument sizes */

/* 4 GiB + 64 bytes of local memory: refused by the local-memory check with
 * the size asked for (it was truncated to 64 bytes, which passed). */
static void local_over_4gib(void) {
  agpu_kernel *kernel = kernel_of("scratch");
  agpu_buffer *out = make(64 * 4);
  if (!kernel || !out) return;
  size_t bytes = ((size_t)1 << 32) + 64;
  agpu_arg args[] = {agpu_arg_buffer(out), agpu_arg_local(bytes)};
  size_t global[3] = {64, 1, 1}, local[3] = {64, 1, 1};
  CHECK_STATUS(agpu_launch(NULL, kernel, 1, global, local, 2, args), AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("4294967360 bytes of local memory");
  printf("  4 GiB + 64: %.200s\n", agpu_last_error());
  /* the same at 2^64 - 1, and two sizes whose sum wraps */
  args[1] = agpu_arg_local(SIZE_MAX);
  CHECK_STATUS(agpu_launch(NULL, kernel, 1, global, local, 2, args), AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("bytes of local memory");
  /* a size that fits still works */
  args[1] = agpu_arg_local(64 * 4);
  CHECK_OK(agpu_launch(NULL, kernel, 1, global, local, 2, args));
  uint32_t back[64];
  CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof back, back));
  for (uint32_t i = 0; i < 64; i++) CHECK(back[i] == 64u - i);
  CHECK_OK(agpu_buffer_release(out));
  CHECK_OK(agpu_kernel_release(kernel));
}

/* A value past AGPU_ARG_MAX_VALUE_SIZE is refused naming its size, also
 * one whose size is 4 bytes past 2^32 (it became 4 bytes of zeros). */
static void value_over_limit(void) {
  agpu_kernel *kernel = kernel_of("value");
  agpu_buffer *out = make(64 * 4);
  if (!kernel || !out) return;
  static uint8_t data[256];
  memset(data, 7, sizeof data);
  size_t global[3] = {64, 1, 1}, local[3] = {64, 1, 1};
  agpu_arg args[] = {agpu_arg_buffer(out), agpu_arg_value(data, ((size_t)1 << 32) + 4)};
  CHECK_STATUS(agpu_launch(NULL, kernel, 1, global, local, 2, args), AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("value size 4294967300 (must be 1 to 128 bytes)");
  printf("  2^32 + 4 bytes: %.200s\n", agpu_last_error());
  args[1] = agpu_arg_value(data, AGPU_ARG_MAX_VALUE_SIZE + 1);
  CHECK_STATUS(agpu_launch(NULL, kernel, 1, global, local, 2, args), AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("value size 129 (must be 1 to 128 bytes)");
  uint32_t v = 0x01020304u;
  args[1] = agpu_arg_value(&v, sizeof v);
  CHECK_OK(agpu_launch(NULL, kernel, 1, global, local, 2, args));
  uint32_t back[64];
  CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof back, back));
  for (int i = 0; i < 64; i++) CHECK(back[i] == v);
  CHECK_OK(agpu_buffer_release(out));
  CHECK_OK(agpu_kernel_release(kernel));
}

static const char *only_g;

static bool wanted(const char *name) {
  if (!only_g) return true;
  size_t length = strlen(name);
  for (const char *at = strstr(only_g, name); at; at = strstr(at + 1, name))
    if ((at == only_g || at[-1] == ',') && (at[length] == ',' || at[length] == '\0')) return true;
  return false;
}

#define RUN_CASE(name) \
  if (wanted(#name)) RUN(name)

int main(int argc, char **argv) {
  selector_g = argc > 1 ? argv[1] : "cpu:0";
  only_g = argc > 2 ? argv[2] : NULL;
  char backend[16];
  snprintf(backend, sizeof backend, "%.*s", (int)strcspn(selector_g, ":"), selector_g);
  device_g = agpu_test_device(selector_g);
  if (!device_g) {
    printf("skip: no %s: %s\n", selector_g, agpu_test_backend_reason(backend));
    return 77;
  }
  if (agpu_device_get_info(device_g, &info_g) != AGPU_SUCCESS) return 1;
  printf("%s (%s)\n", selector_g, info_g.name);
  agpu_program_desc desc = {.source = source, .source_name = "test_launch_sizes.cl"};
  if (agpu_program_build(device_g, &desc, &program_g) != AGPU_SUCCESS) {
    printf("FAIL build: %s\n", agpu_last_error());
    return 1;
  }
  RUN_CASE(total_overflows);
  RUN_CASE(total_is_2_64);
  RUN_CASE(total_fits);
  RUN_CASE(local_over_4gib);
  RUN_CASE(value_over_limit);
  agpu_program_release(program_g);
  return agpu_test_finish();
}
