// SPDX-License-Identifier: Apache-2.0
/* The limits sweep: for each limit the device reports, launches just
 * below, at and just above it, each either correct element by element
 * (random inputs, poisoned outputs, every element checked) or refused with
 * a message naming the limit. Never wrong data.
 *
 * Usage: test_limits SELECTOR [CASE,CASE...]. Limits too large for this machine run
 * against a lowered one (ANYGPU_VULKAN_MAX_STORAGE_RANGE, read at device
 * creation; tests/limits_tests.cmake runs the lowered variants). */
#include <stdint.h>

#include "agpu_test.h"

static const char *selector_g;
static agpu_device *device_g;
static agpu_device_info info_g;
static agpu_program *program_g, *fp64_g;

static const char source[] =
    "__kernel void copy_uchar(__global const uchar *in, __global uchar *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = in[i];\n"
    "}\n"
    "__kernel void copy_float(__global const float *in, __global float *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = in[i];\n"
    "}\n"
    "__kernel void tail(__global const float *in, __global float *out, uint first, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = in[first + i];\n"
    "}\n"
    "/* 32 + 96 bytes of parameter block: push constants on Vulkan, or a\n"
    " * buffer when by-address buffers add their addresses */\n"
    "__kernel void values6(__global const float *in, __global float *out, float4 a, float4 b,\n"
    "                      float4 c, float4 d, float4 e, float4 f) {\n"
    "  uint i = get_global_id(0);\n"
    "  out[i] = in[i] * a.x + b.y + c.z - d.w + e.x * f.y;\n"
    "}\n"
    "__kernel void ids3(__global uint *out, __global uint *check) {\n"
    "  uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  uint flat = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
    "  out[flat] = x + 7u * y + 13u * z;\n"
    "  check[flat] = (get_group_id(0) * get_local_size(0) + get_local_id(0)) +\n"
    "                (get_group_id(1) * get_local_size(1) + get_local_id(1)) * 7u +\n"
    "                (get_group_id(2) * get_local_size(2) + get_local_id(2)) * 13u;\n"
    "}\n"
    "__kernel void local_sum(__global uint *out, __local uint *s, uint count) {\n"
    "  uint lid = get_local_id(0), size = get_local_size(0);\n"
    "  for (uint j = lid; j < count; j += size) s[j] = j * 3u + get_group_id(0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  uint sum = 0;\n"
    "  for (uint j = lid; j < count; j += size) sum += s[count - 1u - j];\n"
    "  out[get_global_id(0)] = sum;\n"
    "}\n"
    "__kernel void window(__global uchar *buf, ulong first, uint count) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i >= count) return;\n"
    "  ulong x = first + i;\n"
    "  buf[first + i] = (uchar)((x ^ (x >> 8) ^ (x >> 16) ^ (x >> 24) ^ (x >> 32)) * 37u);\n"
    "}\n";

static const char fp64_source[] =
    "__kernel void copy_double(__global const double *in, __global double *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] = in[i];\n"
    "}\n";

/* ------------------------------------------------------------ helpers */

static agpu_program *build_source(const char *text, const char *name, agpu_status *status) {
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = text, .source_name = name};
  *status = agpu_program_build(device_g, &desc, &program);
  return *status == AGPU_SUCCESS ? program : NULL;
}

static agpu_kernel *kernel_of(agpu_program *program, const char *name) {
  agpu_kernel *kernel = NULL;
  if (!program) return NULL;
  CHECK_OK(agpu_kernel_create(program, name, &kernel));
  return kernel;
}

static agpu_buffer *make(size_t size) {
  agpu_buffer *buffer = NULL;
  agpu_status status = agpu_buffer_create(device_g, size, 0, &buffer);
  if (status != AGPU_SUCCESS)
    printf("  note: %s: %zu-byte buffer: %s: %s\n", selector_g, size, agpu_status_name(status),
           agpu_last_error());
  return buffer;
}

static void release(agpu_buffer *buffer) {
  if (buffer) CHECK_OK(agpu_buffer_release(buffer));
}

static void poison(agpu_buffer *buffer, size_t offset, size_t size) {
  const uint32_t pattern = 0xA5A5A5A5u; /* a 4-byte pattern where it fits (faster) */
  size_t pattern_size = offset % 4 == 0 && size % 4 == 0 ? 4 : 1;
  CHECK_OK(agpu_buffer_fill(NULL, buffer, offset, size, &pattern, pattern_size));
}

static size_t round_up(size_t v, size_t m) {
  return (v + m - 1) / m * m;
}

/* A 1D launch of n work-items in groups of 64 (the kernel guards). */
static agpu_status launch1(agpu_kernel *kernel, size_t n, uint32_t nargs, const agpu_arg *args) {
  size_t global[3] = {round_up(n, 64), 1, 1}, local[3] = {64, 1, 1};
  return agpu_launch(NULL, kernel, 1, global, local, nargs, args);
}

static uint64_t seed_g = 0x1234567;

static void random_bytes(void *out, size_t size) {
  uint8_t *p = out;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t r = agpu_test_rand(&seed_g);
    memcpy(p + i, &r, 8);
  }
  uint64_t r = agpu_test_rand(&seed_g);
  for (; i < size; i++) p[i] = (uint8_t)(r >> (8 * (i % 8)));
}

/* Counts the elements of `got` that differ from `want`, printing the first. */
static size_t compare(const char *what, const void *want, const void *got, size_t count,
                      size_t element) {
  size_t bad = 0;
  if (memcmp(want, got, count * element) == 0) return 0;
  for (size_t i = 0; i < count; i++) {
    if (memcmp((const char *)want + i * element, (const char *)got + i * element, element) == 0)
      continue;
    if (!bad) printf("  %s: element %zu of %zu differs\n", what, i, count);
    bad++;
  }
  if (bad) printf("  %s: %zu of %zu elements wrong\n", what, bad, count);
  return bad;
}

/* ------------------------------------------------ buffer range (Vulkan) */

/* A copy of `bytes` bytes of element type `type`: correct, or (over the
 * range without by-address) refused naming the parameter, size and limit. */
static void copy_case(agpu_program *program, const char *type, size_t element, size_t bytes) {
  char name[32];
  snprintf(name, sizeof name, "copy_%s", type);
  agpu_kernel *kernel = kernel_of(program, name);
  size_t n = bytes / element;
  agpu_buffer *in = make(bytes), *out = make(bytes);
  uint8_t *host = malloc(bytes), *back = malloc(bytes);
  if (!kernel || !in || !out || !host || !back) {
    CHECK(in && out && host && back && kernel);
    goto done;
  }
  random_bytes(host, bytes);
  CHECK_OK(agpu_buffer_write(NULL, in, 0, bytes, host));
  poison(out, 0, bytes);
  agpu_arg args[] = {agpu_arg_buffer(in), agpu_arg_buffer(out), agpu_arg_u32((uint32_t)n)};
  agpu_status status = launch1(kernel, n, 3, args);
  bool over = info_g.max_buffer_range_bytes && round_up(bytes, 4) > info_g.max_buffer_range_bytes;
  if (over && !info_g.buffers_by_address) {
    CHECK_STATUS(status, AGPU_ERROR_UNSUPPORTED);
    char size_text[32], limit_text[32];
    snprintf(size_text, sizeof size_text, "%zu bytes", bytes);
    snprintf(limit_text, sizeof limit_text, "%llu bytes",
             (unsigned long long)info_g.max_buffer_range_bytes);
    CHECK_MESSAGE("('in')");
    CHECK_MESSAGE(size_text);
    CHECK_MESSAGE(limit_text);
    printf("  %s %zu bytes: refused: %s\n", name, bytes, agpu_last_error());
    goto done;
  }
  CHECK_OK(status);
  CHECK_OK(agpu_buffer_read(NULL, out, 0, bytes, back));
  char what[96];
  snprintf(what, sizeof what, "%s of %zu bytes%s", name, bytes, over ? " (by address)" : "");
  CHECK(compare(what, host, back, n, element) == 0);
done:
  free(host);
  free(back);
  release(in);
  release(out);
  CHECK_OK(agpu_kernel_release(kernel));
}

/* Below, at and above the range, for each element type. With the full
 * range (128 MiB on lavapipe) only double, at and above (2^24 + 1 doubles:
 * the case); below the range is the plain binding every other
 * case runs, and the lowered runs take all three types below, at and
 * above. */
static void buffer_range(void) {
  if (!info_g.max_buffer_range_bytes)
    SKIP("%s binds buffers of any size (max_alloc_bytes %llu is the limit)", selector_g,
         (unsigned long long)info_g.max_alloc_bytes);
  size_t range = (size_t)info_g.max_buffer_range_bytes;
  bool small = range <= (16u << 20);
  if (round_up(range, 8) + 8 > info_g.max_alloc_bytes)
    SKIP("the range %zu is the largest allocation", range);
  static const struct {
    const char *type;
    size_t size;
    bool fp64, full;
  } types[] = {{"uchar", 1, false, false}, {"float", 4, false, false}, {"double", 8, true, true}};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    if (!small && !types[t].full) continue;
    if (types[t].fp64 && !fp64_g) continue;
    agpu_program *program = types[t].fp64 ? fp64_g : program_g;
    size_t e = types[t].size;
    if (small) copy_case(program, types[t].type, e, range - e);
    if (small || types[t].fp64) copy_case(program, types[t].type, e, range);
    copy_case(program, types[t].type, e, range + e);
  }
}

/* One buffer over the range (read by address) and one within (bound): the
 * variant's mask has one bit; the tail past the range is what is read. */
static void buffer_range_mixed(void) {
  if (!info_g.max_buffer_range_bytes) SKIP("%s has no per-binding range", selector_g);
  size_t range = (size_t)info_g.max_buffer_range_bytes;
  if (range > (16u << 20)) SKIP("range %zu: run with a lowered range", range);
  size_t in_bytes = range + 4096, n = 2048, first = (in_bytes / 4) - n;
  agpu_kernel *kernel = kernel_of(program_g, "tail");
  agpu_buffer *in = make(in_bytes), *out = make(n * 4);
  float *host = malloc(in_bytes), *back = malloc(n * 4);
  if (kernel && in && out && host && back) {
    random_bytes(host, in_bytes);
    CHECK_OK(agpu_buffer_write(NULL, in, 0, in_bytes, host));
    poison(out, 0, n * 4);
    agpu_arg args[] = {agpu_arg_buffer(in), agpu_arg_buffer(out), agpu_arg_u32((uint32_t)first),
                       agpu_arg_u32((uint32_t)n)};
    agpu_status status = launch1(kernel, n, 4, args);
    if (!info_g.buffers_by_address) {
      CHECK_STATUS(status, AGPU_ERROR_UNSUPPORTED);
      CHECK_MESSAGE("('in')");
    } else {
      CHECK_OK(status);
      CHECK_OK(agpu_buffer_read(NULL, out, 0, n * 4, back));
      CHECK(compare("tail past the range", host + first, back, n, 4) == 0);
    }
  }
  free(host);
  free(back);
  release(in);
  release(out);
  if (kernel) CHECK_OK(agpu_kernel_release(kernel));
}

/* A by-value block of exactly 128 bytes (push constants on Vulkan) with
 * buffers bound, then with both buffers over the range (their addresses
 * move the block into a buffer). Integer-valued floats: exact everywhere. */
static void values_case(size_t n) {
  agpu_kernel *kernel = kernel_of(program_g, "values6");
  agpu_buffer *in = make(n * 4), *out = make(n * 4);
  float *host = malloc(n * 4), *back = malloc(n * 4), *want = malloc(n * 4);
  if (kernel && in && out && host && back && want) {
    float v[6][4];
    for (int k = 0; k < 6; k++)
      for (int c = 0; c < 4; c++) v[k][c] = (float)(k * 4 + c + 1);
    for (size_t i = 0; i < n; i++) {
      host[i] = (float)((int)(agpu_test_rand(&seed_g) % 2001) - 1000);
      want[i] = host[i] * v[0][0] + v[1][1] + v[2][2] - v[3][3] + v[4][0] * v[5][1];
    }
    CHECK_OK(agpu_buffer_write(NULL, in, 0, n * 4, host));
    poison(out, 0, n * 4);
    agpu_arg args[8] = {agpu_arg_buffer(in), agpu_arg_buffer(out)};
    for (int k = 0; k < 6; k++) args[2 + k] = agpu_arg_value(v[k], 16);
    size_t global[3] = {n, 1, 1}, local[3] = {64, 1, 1};
    agpu_status status = agpu_launch(NULL, kernel, 1, global, local, 8, args);
    bool over = info_g.max_buffer_range_bytes && n * 4 > info_g.max_buffer_range_bytes;
    if (over && !info_g.buffers_by_address) {
      CHECK_STATUS(status, AGPU_ERROR_UNSUPPORTED);
    } else {
      CHECK_OK(status);
      CHECK_OK(agpu_buffer_read(NULL, out, 0, n * 4, back));
      CHECK(compare("values6", want, back, n, 4) == 0);
    }
  }
  free(host);
  free(back);
  free(want);
  release(in);
  release(out);
  if (kernel) CHECK_OK(agpu_kernel_release(kernel));
}

static void parameter_block(void) {
  values_case(4096);
  if (info_g.max_buffer_range_bytes && info_g.max_buffer_range_bytes <= (16u << 20))
    values_case(round_up((size_t)info_g.max_buffer_range_bytes / 4 + 64, 64));
}

/* ------------------------------------------------- max allocation */

static void max_alloc(void) {
  agpu_buffer *buffer = NULL;
  if (info_g.max_alloc_bytes >= SIZE_MAX) SKIP("%s allows any size", selector_g);
  size_t over = (size_t)info_g.max_alloc_bytes + 1;
  CHECK_STATUS(agpu_buffer_create(device_g, over, 0, &buffer), AGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  char limit[32];
  snprintf(limit, sizeof limit, "%llu", (unsigned long long)info_g.max_alloc_bytes);
  CHECK_MESSAGE(limit);
}

/* The window kernel writing `count` bytes from each of `firsts` into
 * `buffer` (its other pages untouched); the bytes around each window keep
 * their poison. */
static void windows(agpu_buffer *buffer, size_t size, const uint64_t *firsts, int count_of_firsts,
                    uint32_t count) {
  agpu_kernel *kernel = kernel_of(program_g, "window");
  const size_t margin = 4096;
  uint8_t *back = malloc(count + 2 * margin), *want = malloc(count + 2 * margin);
  for (int w = 0; w < count_of_firsts && kernel && back && want; w++) {
    uint64_t first = firsts[w];
    size_t lo = first >= margin ? (size_t)first - margin : 0;
    size_t hi = first + count + margin <= size ? (size_t)first + count + margin : size;
    poison(buffer, lo, hi - lo);
    agpu_arg args[] = {agpu_arg_buffer(buffer), agpu_arg_u64(first), agpu_arg_u32(count)};
    agpu_status status = launch1(kernel, count, 3, args);
    if (info_g.max_buffer_range_bytes && size > info_g.max_buffer_range_bytes &&
        !info_g.buffers_by_address) {
      CHECK_STATUS(status, AGPU_ERROR_UNSUPPORTED);
      CHECK_MESSAGE("('buf')");
      break;
    }
    CHECK_OK(status);
    CHECK_OK(agpu_buffer_read(NULL, buffer, lo, hi - lo, back));
    for (size_t at = lo; at < hi; at++) {
      uint64_t x = at;
      bool inside = at >= first && at < first + count;
      want[at - lo] =
          inside ? (uint8_t)((x ^ (x >> 8) ^ (x >> 16) ^ (x >> 24) ^ (x >> 32)) * 37u) : 0xA5;
    }
    char what[96];
    snprintf(what, sizeof what, "window at %llu of a %zu-byte buffer", (unsigned long long)first,
             size);
    CHECK(compare(what, want, back, hi - lo, 1) == 0);
  }
  free(back);
  free(want);
  if (kernel) CHECK_OK(agpu_kernel_release(kernel));
}

/* Byte offsets around 2^31 and 2^32 in one buffer, where 32-bit offset
 * arithmetic would wrap (devices on the host's memory only: pages not
 * written cost nothing). A device whose largest buffer is at most 4 GiB
 * (lavapipe: 2 GiB, its whole heap) gets a buffer of max_alloc_bytes (half
 * of it through staging buffers), or, when what anygpu holds leaves less,
 * that refusal and the largest buffer that fits; its windows are its first
 * and last bytes. */
static void offsets_32bit(void) {
  const uint32_t count = 1u << 20;
  const uint64_t two31 = 1ull << 31, two32 = 1ull << 32;
  if (info_g.type != AGPU_DEVICE_TYPE_CPU)
    SKIP("%s is not on the host's memory: buffers of 2^31 bytes and more not tried", selector_g);
  size_t size = (size_t)(two32 + count);
  if (info_g.max_alloc_bytes < size) size = (size_t)info_g.max_alloc_bytes;
  /* without host-visible device memory a read takes a staging buffer, on
   * lavapipe from the same (only) heap: half of it for the buffer */
  if (!info_g.unified_memory && size > info_g.max_alloc_bytes / 2)
    size = (size_t)info_g.max_alloc_bytes / 2;
  if (size < two31 / 2) SKIP("max_alloc_bytes %zu is under 2^30", size);
  agpu_buffer *buffer = NULL;
  agpu_status status = agpu_buffer_create(device_g, size, 0, &buffer);
  if (status == AGPU_ERROR_OUT_OF_DEVICE_MEMORY && size == info_g.max_alloc_bytes) {
    CHECK_MESSAGE("bytes) asked");
    printf("  at max_alloc_bytes: refused: %s\n", agpu_last_error());
    agpu_memory_info memory;
    CHECK_OK(agpu_device_memory(device_g, &memory));
    size = (size_t)(memory.total_bytes - memory.allocated_bytes) & ~(size_t)0xFFFFF;
    if (size > info_g.max_alloc_bytes) size = (size_t)info_g.max_alloc_bytes;
    /* less the memory blocks anygpu keeps for small buffers (64 MiB each) */
    for (int tries = 0; tries < 4; tries++) {
      size -= 64u << 20;
      status = agpu_buffer_create(device_g, size, 0, &buffer);
      if (status != AGPU_ERROR_OUT_OF_DEVICE_MEMORY) break;
    }
    printf("  the largest buffer that fits: %zu bytes\n", size);
  }
  CHECK_OK(status);
  if (!buffer) return;
  if (size > two32) {
    uint64_t firsts[] = {two31 - count / 2, two32 - count / 2};
    windows(buffer, size, firsts, 2, count);
  } else {
    uint64_t firsts[] = {0, size - count};
    windows(buffer, size, firsts, 2, count);
  }
  release(buffer);
}

/* ------------------------------------------------- work-group size */

static void ids_case(const size_t global[3], const size_t local[3], agpu_status expected,
                     const char *needle) {
  agpu_kernel *kernel = kernel_of(program_g, "ids3");
  size_t n = global[0] * global[1] * global[2];
  agpu_buffer *out = make(n * 4), *check = make(n * 4);
  uint32_t *back = malloc(n * 4), *want = malloc(n * 4);
  if (kernel && out && check && back && want) {
    poison(out, 0, n * 4);
    poison(check, 0, n * 4);
    agpu_arg args[] = {agpu_arg_buffer(out), agpu_arg_buffer(check)};
    agpu_status status = agpu_launch(NULL, kernel, 3, global, local, 2, args);
    CHECK_STATUS(status, expected);
    if (status != AGPU_SUCCESS && needle) CHECK_MESSAGE(needle);
    if (status == AGPU_SUCCESS) {
      for (size_t z = 0, i = 0; z < global[2]; z++)
        for (size_t y = 0; y < global[1]; y++)
          for (size_t x = 0; x < global[0]; x++, i++) want[i] = (uint32_t)(x + 7 * y + 13 * z);
      char what[128];
      snprintf(what, sizeof what, "ids %zux%zux%zu in groups of %zux%zux%zu", global[0], global[1],
               global[2], local[0], local[1], local[2]);
      CHECK_OK(agpu_buffer_read(NULL, out, 0, n * 4, back));
      CHECK(compare(what, want, back, n, 4) == 0);
      CHECK_OK(agpu_buffer_read(NULL, check, 0, n * 4, back));
      CHECK(compare(what, want, back, n, 4) == 0);
    }
  }
  free(back);
  free(want);
  release(out);
  release(check);
  if (kernel) CHECK_OK(agpu_kernel_release(kernel));
}

static void work_group_size(void) {
  agpu_kernel *kernel = kernel_of(program_g, "ids3");
  agpu_kernel_info kinfo;
  if (!kernel) return;
  CHECK_OK(agpu_kernel_get_info(kernel, &kinfo));
  CHECK_OK(agpu_kernel_release(kernel));
  uint32_t limit = info_g.max_work_group_size;
  if (kinfo.max_work_group_size && kinfo.max_work_group_size < limit)
    limit = kinfo.max_work_group_size;
  if (info_g.max_work_item_sizes[0] < limit) limit = info_g.max_work_item_sizes[0];
  char needle[32];
  snprintf(needle, sizeof needle, "limit of %u", limit);
  for (size_t local0 = limit - 1; local0 <= (size_t)limit + 1; local0++) {
    size_t global[3] = {local0 * 3, 1, 1}, local[3] = {local0, 1, 1};
    ids_case(global, local, local0 <= limit ? AGPU_SUCCESS : AGPU_ERROR_INVALID_LAUNCH, needle);
  }
  /* per dimension: y at and above its limit, within the total */
  uint32_t y = info_g.max_work_item_sizes[1];
  if (y < limit) {
    size_t global[3] = {1, (size_t)y * 2, 1}, local[3] = {1, y, 1};
    ids_case(global, local, AGPU_SUCCESS, NULL);
    global[1] = (size_t)(y + 1) * 2, local[1] = y + 1;
    ids_case(global, local, AGPU_ERROR_INVALID_LAUNCH, "dimension 1 exceeds");
  }
}

/* ------------------------------------------------- work-group count */

/* Vulkan's maxComputeWorkGroupCount (65535 on lavapipe) is split into
 * several dispatches, then the 2^32-1 cap anygpu reports (refused without
 * running). */
static void work_group_count(void) {
  /* 65535 and 65536 in x, 65536 in y and z (the split's edge: 65535 + 1);
   * fewer groups run in every other case. Each launch of 65536 groups costs
   * lavapipe about 1.5 s under ASan (an allocation per group). */
  for (int d = 0; d < 3; d++) {
    for (size_t groups = d ? 65536 : 65535; groups <= 65536; groups++) {
      size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
      global[d] = groups;
      if (d == 0) global[0] = groups * 2, local[0] = 2;
      ids_case(global, local, AGPU_SUCCESS, NULL);
    }
  }
  agpu_kernel *kernel = kernel_of(program_g, "ids3");
  agpu_buffer *out = make(64);
  if (kernel && out) {
    for (int d = 0; d < 3; d++) {
      if (info_g.max_work_groups[d] >= SIZE_MAX) continue;
      size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
      global[d] = (size_t)info_g.max_work_groups[d] + 1;
      agpu_arg args[] = {agpu_arg_buffer(out), agpu_arg_buffer(out)};
      CHECK_STATUS(agpu_launch(NULL, kernel, 3, global, local, 2, args), AGPU_ERROR_INVALID_LAUNCH);
      char needle[40];
      snprintf(needle, sizeof needle, "allows %llu", (unsigned long long)info_g.max_work_groups[d]);
      CHECK_MESSAGE(needle);
    }
  }
  release(out);
  if (kernel) CHECK_OK(agpu_kernel_release(kernel));
}

/* ------------------------------------------------- __local memory */

static void local_case(uint32_t bytes, bool fits) {
  agpu_kernel *kernel = kernel_of(program_g, "local_sum");
  const size_t groups = 3, size = 64, n = groups * size;
  uint32_t count = bytes / 4;
  agpu_buffer *out = make(n * 4);
  uint32_t back[192], want[192];
  if (kernel && out) {
    poison(out, 0, n * 4);
    agpu_arg args[] = {agpu_arg_buffer(out), agpu_arg_local(bytes), agpu_arg_u32(count)};
    size_t global[3] = {n, 1, 1}, local[3] = {size, 1, 1};
    agpu_status status = agpu_launch(NULL, kernel, 1, global, local, 3, args);
    if (!fits) {
      CHECK(status == AGPU_ERROR_INVALID_LAUNCH);
      char needle[48];
      snprintf(needle, sizeof needle, "has %llu", (unsigned long long)info_g.local_mem_bytes);
      CHECK_MESSAGE(needle);
    } else {
      CHECK_OK(status);
      for (size_t g = 0; g < groups; g++)
        for (size_t lid = 0; lid < size; lid++) {
          uint32_t sum = 0;
          for (uint32_t j = (uint32_t)lid; j < count; j += (uint32_t)size)
            sum += (count - 1u - j) * 3u + (uint32_t)g;
          want[g * size + lid] = sum;
        }
      CHECK_OK(agpu_buffer_read(NULL, out, 0, n * 4, back));
      char what[64];
      snprintf(what, sizeof what, "__local of %u bytes", bytes);
      CHECK(compare(what, want, back, n, 4) == 0);
    }
  }
  release(out);
  if (kernel) CHECK_OK(agpu_kernel_release(kernel));
}

static void local_memory(void) {
  uint64_t limit = info_g.local_mem_bytes;
  if (!limit || limit > (64u << 20)) SKIP("local memory %llu", (unsigned long long)limit);
  local_case((uint32_t)limit - 4, true);
  local_case((uint32_t)limit, true);
  local_case((uint32_t)limit + 4, false);
}

/* ------------------------------------------------- argument bytes */

/* A kernel of `vectors` float16 values and `scalars` uint values after one
 * buffer: out[0] is their sum, exact (small integers). */
static void param_case(int vectors, int scalars) {
  char text[4096];
  int at = snprintf(text, sizeof text, "__kernel void params(__global float *out");
  for (int k = 0; k < vectors; k++) at += snprintf(text + at, sizeof text - at, ", float16 v%d", k);
  for (int k = 0; k < scalars; k++) at += snprintf(text + at, sizeof text - at, ", uint u%d", k);
  at += snprintf(text + at, sizeof text - at, ") {\n  float16 t = (float16)(0.0f);\n");
  for (int k = 0; k < vectors; k++) at += snprintf(text + at, sizeof text - at, "  t += v%d;\n", k);
  at += snprintf(text + at, sizeof text - at, "  uint u = 0;\n");
  for (int k = 0; k < scalars; k++) at += snprintf(text + at, sizeof text - at, "  u += u%d;\n", k);
  snprintf(text + at, sizeof text - at,
           "  out[0] = t.s0 + t.s1 + t.s2 + t.s3 + t.s4 + t.s5 + t.s6 + t.s7 + t.s8 + t.s9 +\n"
           "           t.sa + t.sb + t.sc + t.sd + t.se + t.sf + (float)u;\n}\n");
  agpu_status status;
  agpu_program *program = build_source(text, "params.cl", &status);
  CHECK_OK(status);
  agpu_kernel *kernel = kernel_of(program, "params");
  agpu_buffer *out = make(4);
  uint32_t bytes = 8u + (uint32_t)vectors * 64u + (uint32_t)scalars * 4u;
  if (kernel && out) {
    agpu_arg args[64];
    float v[64][16];
    uint32_t u[64];
    double want = 0;
    int n = 0;
    args[n++] = agpu_arg_buffer(out);
    for (int k = 0; k < vectors; k++) {
      for (int c = 0; c < 16; c++) want += v[k][c] = (float)(k + c);
      args[n++] = agpu_arg_value(v[k], 64);
    }
    for (int k = 0; k < scalars; k++) {
      want += u[k] = (uint32_t)(k * 3 + 1);
      args[n++] = agpu_arg_u32(u[k]);
    }
    poison(out, 0, 4);
    size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
    status = agpu_launch(NULL, kernel, 1, global, local, (uint32_t)n, args);
    if (info_g.max_param_bytes && bytes > info_g.max_param_bytes) {
      CHECK_STATUS(status, AGPU_ERROR_INVALID_LAUNCH);
      CHECK_MESSAGE("max_param_bytes");
    } else {
      CHECK_OK(status);
      float back = 0;
      CHECK_OK(agpu_buffer_read(NULL, out, 0, 4, &back));
      if (back != (float)want)
        printf("  %u bytes of arguments: sum %g, want %g\n", bytes, back, want);
      CHECK(back == (float)want);
    }
  }
  release(out);
  if (kernel) CHECK_OK(agpu_kernel_release(kernel));
  if (program) CHECK_OK(agpu_program_release(program));
}

/* 15 float16 and 0, 14 or 15 uints after the buffer: 968, 1024 and 1028
 * bytes, around PoCL's 1024 (OpenCL's minimum); run on every device. */
static void param_bytes(void) {
  param_case(15, 0);
  param_case(15, 14);
  param_case(15, 15);
}

/* ------------------------------------------------- buffer parameters */

/* A kernel of `buffers` uint buffers (and a parameter block over 128 bytes
 * when `big_block`); each buffer gets k * 1000 + i. */
static void buffers_case(int buffers, bool big_block, bool fits) {
  char text[8192];
  int at = snprintf(text, sizeof text, "__kernel void many(");
  for (int k = 0; k < buffers; k++)
    at += snprintf(text + at, sizeof text - at, "%s__global uint *b%d", k ? ", " : "", k);
  if (big_block)
    for (int k = 0; k < 7; k++) at += snprintf(text + at, sizeof text - at, ", uint4 w%d", k);
  at += snprintf(text + at, sizeof text - at, ") {\n  uint i = get_global_id(0);\n");
  for (int k = 0; k < buffers; k++)
    at += snprintf(text + at, sizeof text - at, "  b%d[i] = %du + i%s;\n", k, k * 1000,
                   big_block ? " + w0.x + w6.w" : "");
  snprintf(text + at, sizeof text - at, "}\n");
  agpu_status status;
  agpu_program *program = build_source(text, "many.cl", &status);
  if (!fits) {
    CHECK(status == AGPU_ERROR_UNSUPPORTED || status == AGPU_ERROR_INVALID_LAUNCH);
    char needle[48];
    snprintf(needle, sizeof needle, "allows %u", info_g.max_buffer_params);
    CHECK_MESSAGE(needle);
    printf("  %d buffers%s: refused: %.160s\n", buffers, big_block ? " and a big block" : "",
           agpu_last_error());
    if (program) CHECK_OK(agpu_program_release(program));
    return;
  }
  CHECK_OK(status);
  agpu_kernel *kernel = kernel_of(program, "many");
  enum { N = 256 };
  agpu_buffer *list[80] = {0};
  agpu_arg args[96];
  uint32_t w[4] = {1, 2, 3, 4};
  int n = 0;
  for (int k = 0; k < buffers; k++) {
    list[k] = make(N * 4);
    if (list[k]) poison(list[k], 0, N * 4);
    args[n++] = agpu_arg_buffer(list[k]);
  }
  if (big_block)
    for (int k = 0; k < 7; k++) args[n++] = agpu_arg_value(w, 16);
  if (kernel) {
    size_t global[3] = {N, 1, 1}, local[3] = {64, 1, 1};
    CHECK_OK(agpu_launch(NULL, kernel, 1, global, local, (uint32_t)n, args));
    uint32_t back[N], want[N];
    for (int k = 0; k < buffers; k++) {
      for (uint32_t i = 0; i < N; i++) want[i] = (uint32_t)k * 1000u + i + (big_block ? 5u : 0u);
      CHECK_OK(agpu_buffer_read(NULL, list[k], 0, sizeof back, back));
      char what[48];
      snprintf(what, sizeof what, "buffer %d of %d", k, buffers);
      CHECK(compare(what, want, back, N, 4) == 0);
    }
    CHECK_OK(agpu_kernel_release(kernel));
  }
  for (int k = 0; k < buffers; k++) release(list[k]);
  if (program) CHECK_OK(agpu_program_release(program));
}

static void buffer_params(void) {
  uint32_t limit = info_g.max_buffer_params;
  if (!limit) {
    buffers_case(64, false, true); /* no limit reported: many buffers work */
    return;
  }
  if (limit > 60) SKIP("%u buffer parameters allowed: more than this test makes", limit);
  /* past the limit, a device that reaches buffers by address takes the
   * last ones that way (docs/vulkan.md); one that cannot refuses the kernel */
  bool past = info_g.buffers_by_address;
  buffers_case((int)limit - 1, false, true);
  buffers_case((int)limit, false, true);
  buffers_case((int)limit + 1, false, past);
  buffers_case((int)limit - 1, true, true); /* the block's binding makes the limit */
  buffers_case((int)limit, true, past);
  if (past) buffers_case((int)limit + 8, true, true);
}

/* Two buffers each over the range in one launch (both by address), three
 * such buffers in two launches. */
static void launch_bytes(void) {
  if (!info_g.max_buffer_range_bytes) SKIP("%s has no per-binding range", selector_g);
  size_t range = (size_t)info_g.max_buffer_range_bytes;
  if (range > (16u << 20)) SKIP("range %zu: run with a lowered range", range);
  size_t bytes = range + 1024, n = bytes / 4;
  agpu_kernel *kernel = kernel_of(program_g, "copy_float");
  agpu_buffer *a = make(bytes), *b = make(bytes), *c = make(bytes);
  float *host = malloc(bytes), *back = malloc(bytes);
  if (kernel && a && b && c && host && back) {
    random_bytes(host, bytes);
    CHECK_OK(agpu_buffer_write(NULL, a, 0, bytes, host));
    poison(b, 0, bytes);
    poison(c, 0, bytes);
    agpu_arg ab[] = {agpu_arg_buffer(a), agpu_arg_buffer(b), agpu_arg_u32((uint32_t)n)};
    agpu_arg bc[] = {agpu_arg_buffer(b), agpu_arg_buffer(c), agpu_arg_u32((uint32_t)n)};
    agpu_status s1 = launch1(kernel, n, 3, ab), s2 = launch1(kernel, n, 3, bc);
    if (!info_g.buffers_by_address) {
      CHECK(s1 == AGPU_ERROR_UNSUPPORTED && s2 == AGPU_ERROR_UNSUPPORTED);
    } else {
      CHECK_OK(s1);
      CHECK_OK(s2);
      CHECK_OK(agpu_buffer_read(NULL, c, 0, bytes, back));
      CHECK(compare("copy of a copy by address", host, back, n, 4) == 0);
    }
  }
  free(host);
  free(back);
  release(a);
  release(b);
  release(c);
  if (kernel) CHECK_OK(agpu_kernel_release(kernel));
}

static const char *only_g; /* run just these cases (the second argument: names, commas between) */

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
  printf(
      "%s (%s): max_alloc %llu, range %llu%s, buffers %u, argument bytes %u, local %llu, "
      "work-group %u\n",
      selector_g, info_g.name, (unsigned long long)info_g.max_alloc_bytes,
      (unsigned long long)info_g.max_buffer_range_bytes,
      info_g.buffers_by_address ? " (larger by address)" : "", info_g.max_buffer_params,
      info_g.max_param_bytes, (unsigned long long)info_g.local_mem_bytes,
      info_g.max_work_group_size);
  agpu_status status;
  program_g = build_source(source, "test_limits.cl", &status);
  if (!program_g) {
    printf("FAIL build: %s\n", agpu_last_error());
    return 1;
  }
  if (info_g.fp64) {
    fp64_g = build_source(fp64_source, "test_limits_fp64.cl", &status);
    if (!fp64_g) printf("FAIL build fp64: %s\n", agpu_last_error());
    if (!fp64_g) return 1;
  }
  RUN_CASE(offsets_32bit); /* first: the largest buffer fits while nothing else is held */
  RUN_CASE(buffer_range);
  RUN_CASE(buffer_range_mixed);
  RUN_CASE(parameter_block);
  RUN_CASE(launch_bytes);
  RUN_CASE(max_alloc);
  RUN_CASE(work_group_size);
  RUN_CASE(work_group_count);
  RUN_CASE(local_memory);
  RUN_CASE(param_bytes);
  RUN_CASE(buffer_params);
  if (fp64_g) agpu_program_release(fp64_g);
  agpu_program_release(program_g);
  return agpu_test_finish();
}
