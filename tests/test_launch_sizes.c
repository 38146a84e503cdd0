// SPDX-License-Identifier: Apache-2.0
/* Launch sizes at and past 32 and 64 bits (issue 33): each either right or
 * refused with a message naming the limit, never wrong data with success.
 *   - size_t and ptrdiff_t are 64-bit on every backend, Vulkan included
 *     (the GLSL once made them 32-bit: 4294967296UL became 0u, (size_t)2^33
 *     0, g - 1 for g = 0 4294967295), and so are work-item ids: a 1-D
 *     launch of 2^32 + 256 work-items sees ids past 2^32 (they wrapped);
 *     a Vulkan device without shaderInt64 refuses such a kernel naming
 *     size_t (ANYGPU_VULKAN_NO_INT64=1 makes lavapipe one);
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
    "  uint x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);\n"
    "  uint i = x + w * y;\n"
    "  if (i < 64) out[i] = 1u;\n"
    "}\n"
    "__kernel void scratch(__global uint *out, __local uint *s) {\n"
    "  uint lid = get_local_id(0), size = get_local_size(0);\n"
    "  s[lid] = lid + 1u;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = s[size - 1u - lid];\n"
    "}\n"
    "__kernel void count(__global uint *c) {\n"
    "  atomic_inc(c);\n"
    "}\n"
    "__kernel void value(__global uint *out, uint v) {\n"
    "  out[get_global_id(0)] = v;\n"
    "}\n";

/* 64-bit sizes: the expressions, each work-item writing 12
 * values; a switch on a size_t past 32 bits; a pointer difference. */
static const char wide_source[] =
    "__kernel void sizes(__global ulong *out, ulong big, uint dim) {\n"
    "  size_t g = get_global_id(0);\n"
    "  __global ulong *o = out + g * 12;\n"
    "  __local size_t seen[64];\n"
    "  seen[get_local_id(0)] = g;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  o[0] = g >= 4294967296UL ? 1 : 0;\n"
    "  o[1] = (g + 1) * 0x100000000UL;\n"
    "  o[2] = (size_t)big;\n"
    "  o[3] = g - 1;\n"
    "  ptrdiff_t d = (ptrdiff_t)g - 2;\n"
    "  o[4] = (ulong)(d >> 1);\n"
    "  o[5] = sizeof(size_t) * 1000 + sizeof(ptrdiff_t);\n"
    "  size_t s = (size_t)big + g;\n"
    "  switch (s) {\n"
    "    case 0: o[6] = 100; break;\n"
    "    case 1: o[6] = 101; break;\n"
    "    default: o[6] = s / 3; break;\n"
    "  }\n"
    "  o[7] = (ulong)(&out[0] - &out[g * 12 + 7]);\n"
    "  o[8] = seen[get_local_size(0) - 1 - get_local_id(0)] << 32;\n"
    "  o[9] = get_global_id(dim) * 4294967296UL + get_global_size(dim);\n"
    "  o[10] = (size_t)(uint)(big >> 2) * 3u;\n"
    "  o[11] = max(g, (size_t)big) - min(g, (size_t)5);\n"
    "}\n"
    /* ids past 2^32: the last 256 work-items write their ids, work-item 5
     * its own, work-item 0 the global size */
    "__kernel void high(__global ulong *out, uint dim) {\n"
    "  size_t g = get_global_id(0);\n"
    "  if (g >= 4294967296UL) out[g - 4294967296UL] = g;\n"
    "  else if (g == 5) out[256] = g;\n"
    "  else if (g == 0) out[257] = get_global_size(dim);\n"
    "  if (get_global_id(dim) == 4294967296UL + 7) out[258] = get_group_id(0) * 1000 + "
    "get_local_id(dim);\n"
    "}\n";

static agpu_kernel *kernel_of(const char *name) {
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(program_g, name, &kernel));
  return kernel;
}

static agpu_program *wide_g;

static agpu_kernel *wide_kernel(const char *name) {
  if (!wide_g) {
    agpu_program_desc desc = {.source = wide_source, .source_name = "wide.cl"};
    CHECK_OK(agpu_program_build(device_g, &desc, &wide_g));
    if (!wide_g) return NULL;
  }
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(wide_g, name, &kernel));
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

/* ------------------------------------------------ 64-bit size_t */

static void total_fits(void);

static void size_t_arithmetic(void) {
  agpu_kernel *kernel = wide_kernel("sizes");
  enum { N = 128, PER = 12 };
  agpu_buffer *out = make(N * PER * 8);
  if (!kernel || !out) return;
  const uint64_t big = (uint64_t)1 << 33;
  agpu_arg args[] = {agpu_arg_buffer(out), agpu_arg_u64(big), agpu_arg_u32(0)};
  size_t global[3] = {N, 1, 1}, local[3] = {64, 1, 1};
  CHECK_OK(agpu_launch(NULL, kernel, 1, global, local, 3, args));
  uint64_t *back = calloc(N * PER, 8);
  CHECK_OK(agpu_buffer_read(NULL, out, 0, N * PER * 8, back));
  int wrong = 0;
  for (uint64_t g = 0; g < N; g++) {
    uint64_t s = big + g, lane = g % 64, mirror = g - lane + (63 - lane);
    uint64_t want[PER] = {0,
                          (g + 1) << 32,
                          big,
                          g - 1,
                          (uint64_t)(((int64_t)g - 2) >> 1),
                          8008,
                          s / 3,
                          (uint64_t) - (int64_t)(g * 12 + 7),
                          mirror << 32,
                          g * 4294967296u + N,
                          (uint64_t)(uint32_t)(big >> 2) * 3u,
                          big - (g < 5 ? g : 5)};
    for (int k = 0; k < PER; k++)
      if (back[g * PER + k] != want[k] && wrong++ < 8)
        printf("  %s: work-item %llu value %d: %llu, expected %llu\n", selector_g,
               (unsigned long long)g, k, (unsigned long long)back[g * PER + k],
               (unsigned long long)want[k]);
  }
  CHECK(wrong == 0);
  free(back);
  CHECK_OK(agpu_buffer_release(out));
  CHECK_OK(agpu_kernel_release(kernel));
}

/* A 1-D launch of 2^32 + 256 work-items in groups of 256: ids past 2^32
 * are right (on vulkan:0 work-items 5 and 2^32 + 5 both saw 5). Seconds on
 * two cores; the dimension is also given at run time (the helper path). */
static void ids_past_2_32(void) {
  const uint64_t base = (uint64_t)1 << 32;
  size_t global[3] = {(size_t)(base + 256), 1, 1}, local[3] = {256, 1, 1};
  if (info_g.max_work_item_sizes[0] && info_g.max_work_item_sizes[0] < 256) local[0] = 64;
  if (info_g.max_work_group_size && info_g.max_work_group_size < local[0])
    SKIP("%s: work-groups of %u", selector_g, info_g.max_work_group_size);
  agpu_kernel *kernel = wide_kernel("high");
  agpu_buffer *out = make(259 * 8);
  if (!kernel || !out) return;
  agpu_arg args[] = {agpu_arg_buffer(out), agpu_arg_u32(0)};
  CHECK_OK(agpu_launch(NULL, kernel, 1, global, local, 2, args));
  uint64_t back[259];
  CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof back, back));
  int wrong = 0;
  for (int i = 0; i < 259; i++) {
    uint64_t want = i < 256    ? base + (uint64_t)i
                    : i == 256 ? 5
                    : i == 257 ? base + 256
                               : (base + 7) / local[0] * 1000 + (base + 7) % local[0];
    if (back[i] != want && wrong++ < 8)
      printf("  %s: out[%d] = %llu, expected %llu\n", selector_g, i, (unsigned long long)back[i],
             (unsigned long long)want);
  }
  CHECK(wrong == 0);
  CHECK_OK(agpu_buffer_release(out));
  CHECK_OK(agpu_kernel_release(kernel));
}

/* ANYGPU_VULKAN_NO_INT64=1 (a device without shaderInt64): a kernel with
 * 64-bit sizes is refused naming size_t; one that takes its ids as uint
 * needs no 64-bit integers and runs. */
static void no_int64(void) {
  const char *no = getenv("ANYGPU_VULKAN_NO_INT64");
  if (strncmp(selector_g, "vulkan", 6) != 0 || !no || strcmp(no, "1") != 0)
    SKIP("only on vulkan with ANYGPU_VULKAN_NO_INT64=1");
  CHECK(!info_g.int64);
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = wide_source, .source_name = "wide.cl"};
  CHECK_STATUS(agpu_program_build(device_g, &desc, &program), AGPU_ERROR_UNSUPPORTED);
  CHECK_MESSAGE("needs 64-bit integers (shaderInt64) for size_t and ptrdiff_t");
  printf("  %.300s\n", agpu_last_error());
  if (program) agpu_program_release(program);
  total_fits(); /* `mark` takes get_global_id(0) as uint */
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

/* Every 3-D geometry of edge sizes (0, 1, 2, 3, 2^16 + 1, 2^32 - 1, 2^32,
 * 2^32 + 1, 2^63, 2^64 - 1 in each dimension, groups of 1): refused where
 * a dimension is 0, a dimension has more groups than max_work_groups, or
 * the product passes 2^64 - 1, with nothing run; run and counted
 * work-item by work-item where the total is small; not launched where it
 * is valid but too large to run here (a prediction that it would be
 * accepted, checked by the others). */
static void geometry_sweep(void) {
  static const uint64_t edges[] = {0,
                                   1,
                                   2,
                                   3,
                                   65537,
                                   UINT32_MAX,
                                   (uint64_t)1 << 32,
                                   ((uint64_t)1 << 32) + 1,
                                   (uint64_t)1 << 63,
                                   UINT64_MAX};
  enum { E = sizeof edges / sizeof edges[0] };
  agpu_kernel *kernel = kernel_of("count");
  agpu_buffer *counter = make(4);
  if (!kernel || !counter) return;
  agpu_arg args[] = {agpu_arg_buffer(counter)};
  int refused = 0, ran = 0, skipped = 0;
  for (int a = 0; a < E; a++)
    for (int b = 0; b < E; b++)
      for (int c = 0; c < E; c++) {
        size_t global[3] = {(size_t)edges[a], (size_t)edges[b], (size_t)edges[c]};
        size_t local[3] = {1, 1, 1};
        bool refuse = false;
        for (int d = 0; d < 3; d++)
          if (!global[d] || (info_g.max_work_groups[d] && global[d] > info_g.max_work_groups[d]))
            refuse = true;
        size_t total = 0;
        if (__builtin_mul_overflow(global[0], global[1], &total) ||
            __builtin_mul_overflow(total, global[2], &total))
          refuse = true;
        if (!refuse && total > 4096) {
          skipped++;
          continue;
        }
        const uint32_t zero = 0;
        CHECK_OK(agpu_buffer_fill(NULL, counter, 0, 4, &zero, 4));
        agpu_status status = agpu_launch(NULL, kernel, 3, global, local, 1, args);
        char message[512];
        snprintf(message, sizeof message, "%s", agpu_last_error());
        uint32_t count = 0;
        CHECK_OK(agpu_buffer_read(NULL, counter, 0, 4, &count));
        if (refuse) {
          refused++;
          if (status != AGPU_ERROR_INVALID_LAUNCH || count != 0 || !message[0]) {
            printf("  %s: %zux%zux%zu: %s, %u work-items ran: %s\n", selector_g, global[0],
                   global[1], global[2], agpu_status_name(status), count, message);
            CHECK(false);
          }
        } else {
          ran++;
          if (status != AGPU_SUCCESS || count != total) {
            printf("  %s: %zux%zux%zu: %s, %u of %zu work-items ran: %s\n", selector_g, global[0],
                   global[1], global[2], agpu_status_name(status), count, total, agpu_last_error());
            CHECK(false);
          }
        }
      }
  printf("  %d geometries refused, %d run and counted, %d valid but too large to run here\n",
         refused, ran, skipped);
  CHECK_OK(agpu_buffer_release(counter));
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
  RUN_CASE(size_t_arithmetic);
  RUN_CASE(ids_past_2_32);
  RUN_CASE(no_int64);
  RUN_CASE(total_overflows);
  RUN_CASE(total_is_2_64);
  RUN_CASE(total_fits);
  RUN_CASE(geometry_sweep);
  RUN_CASE(local_over_4gib);
  RUN_CASE(value_over_limit);
  if (wide_g) agpu_program_release(wide_g);
  agpu_program_release(program_g);
  return agpu_test_finish();
}
