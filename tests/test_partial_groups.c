// SPDX-License-Identifier: Apache-2.0
/* A smaller last work-group when the launch passes no local size (issue 19;
 * docs/api.md, "Launch"): 9973 (a prime), 1 and 257 work-items and a 2-D
 * 37x53 and 101x3 launch on every device. Each work-item writes get_global_id,
 * get_local_id, get_group_id, get_local_size, get_enqueued_local_size,
 * get_num_groups and get_global_size for dimensions 0 and 1, once with a
 * constant dimension (32-bit results) and once through a dimension known at
 * run time (size_t results), into a poisoned buffer; every word is checked
 * against OpenCL 2.0's values computed here from the local size the
 * documented rule gives (also checked against what the kernel saw). A second
 * kernel sums each group through __local memory with barriers at 9973 and
 * 257 work-items, checked against a double-precision sum per group. */
#include <math.h>

#include "agpu_test.h"

enum { VALUES = 7, WORDS = 4 * VALUES }; /* per work-item: 2 dims x (constant, dynamic) */

static const char source[] =
    "__kernel void ids(__global uint *out, uint w, uint n) {\n"
    "  uint x = (uint)get_global_id(0), y = (uint)get_global_id(1);\n"
    "  uint i = y * w + x;\n"
    "  if (x >= w || i >= n) return;\n"
    "  __global uint *o = out + (size_t)i * 28u;\n"
    "  o[0] = (uint)get_global_id(0); o[1] = (uint)get_local_id(0); o[2] = (uint)get_group_id(0);\n"
    "  o[3] = (uint)get_local_size(0); o[4] = (uint)get_enqueued_local_size(0);\n"
    "  o[5] = (uint)get_num_groups(0); o[6] = (uint)get_global_size(0);\n"
    "  o[7] = (uint)get_global_id(1); o[8] = (uint)get_local_id(1); o[9] = (uint)get_group_id(1);\n"
    "  o[10] = (uint)get_local_size(1); o[11] = (uint)get_enqueued_local_size(1);\n"
    "  o[12] = (uint)get_num_groups(1); o[13] = (uint)get_global_size(1);\n"
    "  for (uint d = 0; d < 2; d++) {\n"
    "    size_t v[7];\n"
    "    v[0] = get_global_id(d); v[1] = get_local_id(d); v[2] = get_group_id(d);\n"
    "    v[3] = get_local_size(d); v[4] = get_enqueued_local_size(d);\n"
    "    v[5] = get_num_groups(d); v[6] = get_global_size(d);\n"
    "    for (uint k = 0; k < 7u; k++) o[14u + d * 7u + k] = (uint)v[k];\n"
    "  }\n"
    "}\n"
    "__kernel void group_sum(__global const float *in, __global float *out) {\n"
    "  __local float tmp[256];\n"
    "  size_t l = get_local_id(0), size = get_local_size(0), g = get_global_id(0);\n"
    "  tmp[l] = in[g];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t stride = 1; stride < size; stride *= 2) {\n"
    "    if (l % (2 * stride) == 0 && l + stride < size) tmp[l] += tmp[l + stride];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[g] = tmp[0]; /* at the group's first work-item */\n"
    "}\n";

/* docs/api.md, "Launch": the local size in dimension 0 with local == NULL */
static size_t expected_local(const agpu_device_info *di, const agpu_kernel_info *ki,
                             size_t global0) {
  size_t preferred = di->type == AGPU_DEVICE_TYPE_CPU ? 64 : 256;
  for (int i = 0; i < 4; i++)
    if (di->subgroup_sizes[i] > preferred) preferred = di->subgroup_sizes[i];
  size_t limit = preferred;
  if (di->max_work_group_size && di->max_work_group_size < limit) limit = di->max_work_group_size;
  if (di->max_work_item_sizes[0] && di->max_work_item_sizes[0] < limit)
    limit = di->max_work_item_sizes[0];
  if (ki->max_work_group_size && ki->max_work_group_size < limit) limit = ki->max_work_group_size;
  if (global0 <= limit) return global0;
  size_t size = 1;
  while (size * 2 <= limit) size *= 2;
  return size;
}

/* OpenCL 2.0's value `k` (VALUES order) for global id `g` in a dimension
 * of `global` work-items in groups of `local`. `split`: OpenCL 1.2, whose
 * smaller last group is an enqueue of its own (docs/api.md): there
 * get_group_id, get_num_groups, get_global_size and get_enqueued_local_size
 * describe the enqueue the work-item is in (the whole groups, or the rest). */
static uint32_t expected_value(int k, size_t g, size_t global, size_t local, bool split) {
  size_t group = g / local, groups = (global + local - 1) / local;
  size_t size = global - group * local < local ? global - group * local : local;
  size_t rest = global % local;
  bool in_rest = split && size < local;
  if (split && rest && !in_rest) { /* the first enqueue: the whole groups only */
    groups = global / local;
    global -= rest;
  }
  switch (k) {
    case 0: return (uint32_t)g;
    case 1: return (uint32_t)(g % local);
    case 2: return in_rest ? 0 : (uint32_t)group;
    case 3: return (uint32_t)size;
    case 4: return (uint32_t)(in_rest ? size : local);
    case 5: return in_rest ? 1 : (uint32_t)groups;
    default: return (uint32_t)(in_rest ? size : global);
  }
}

static const char *const value_names[VALUES] = {
    "get_global_id",  "get_local_id",   "get_group_id",   "get_local_size",
    "get_enqueued_local_size", "get_num_groups", "get_global_size"};

static void ids_case(agpu_device *device, agpu_kernel *ids, const char *selector, uint32_t dims,
                     size_t w, size_t h) {
  agpu_device_info di;
  agpu_kernel_info ki;
  CHECK_OK(agpu_device_get_info(device, &di));
  CHECK_OK(agpu_kernel_get_info(ids, &ki));
  bool split = strncmp(selector, "opencl", 6) == 0;
  size_t n = w * h, words = n * WORDS;
  uint32_t *out = malloc(words * 4);
  agpu_buffer *bout = NULL;
  CHECK_OK(agpu_buffer_create(device, words * 4, 0, &bout));
  const uint32_t poison = 0xdeadbeefu;
  CHECK_OK(agpu_buffer_fill(NULL, bout, 0, words * 4, &poison, 4));
  size_t global[2] = {w, h};
  agpu_arg args[] = {agpu_arg_buffer(bout), agpu_arg_u32((uint32_t)w), agpu_arg_u32((uint32_t)n)};
  CHECK_OK(agpu_launch(NULL, ids, dims, global, NULL, 3, args));
  CHECK_OK(agpu_buffer_read(NULL, bout, 0, words * 4, out));
  size_t local0 = expected_local(&di, &ki, w);
  /* the kernel's own view of the size chosen (work-item 0 is in a whole group) */
  CHECK(out[4] == local0);
  size_t wrong = 0;
  for (size_t y = 0; y < h; y++)
    for (size_t x = 0; x < w; x++) {
      const uint32_t *o = out + (y * w + x) * WORDS;
      for (int form = 0; form < 2; form++)
        for (int d = 0; d < 2; d++)
          for (int k = 0; k < VALUES; k++) {
            uint32_t want = d == 0 ? expected_value(k, x, w, local0, split)
                                   : expected_value(k, y, h, 1, false);
            if (dims == 1 && d == 1) want = k == 0 || k == 1 || k == 2 ? 0 : 1;
            uint32_t got = o[form * 2 * VALUES + d * VALUES + k];
            if (got != want && wrong++ < 5)
              printf("  %s %zux%zu: work-item (%zu, %zu) %s(%d)%s = %u, expected %u\n", selector, w,
                     h, x, y, value_names[k], d, form ? " (dimension at run time)" : "", got,
                     want);
          }
    }
  CHECK(wrong == 0);
  printf("  %s: %zux%zu in groups of %zu, the last of %zu\n", selector, w, h, local0,
         w % local0 ? w % local0 : local0);
  agpu_buffer_release(bout);
  free(out);
}

static void sum_case(agpu_device *device, agpu_kernel *group_sum, size_t n) {
  agpu_device_info di;
  agpu_kernel_info ki;
  CHECK_OK(agpu_device_get_info(device, &di));
  CHECK_OK(agpu_kernel_get_info(group_sum, &ki));
  size_t local = expected_local(&di, &ki, n);
  uint64_t state = n;
  float *in = malloc(n * 4), *out = malloc(n * 4);
  for (size_t i = 0; i < n; i++) in[i] = agpu_test_randf(&state, -1.0f, 1.0f);
  agpu_buffer *bin = NULL, *bout = NULL;
  CHECK_OK(agpu_buffer_create(device, n * 4, 0, &bin));
  CHECK_OK(agpu_buffer_create(device, n * 4, 0, &bout));
  CHECK_OK(agpu_buffer_write(NULL, bin, 0, n * 4, in));
  const uint32_t poison = 0x7fc00badu;
  CHECK_OK(agpu_buffer_fill(NULL, bout, 0, n * 4, &poison, 4));
  agpu_arg args[] = {agpu_arg_buffer(bin), agpu_arg_buffer(bout)};
  CHECK_OK(agpu_launch(NULL, group_sum, 1, &n, NULL, 2, args));
  CHECK_OK(agpu_buffer_read(NULL, bout, 0, n * 4, out));
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t bits;
    memcpy(&bits, &out[i], 4);
    if (i % local) {
      if (bits != poison) wrong++; /* only the first work-item of a group writes */
      continue;
    }
    size_t end = i + local < n ? i + local : n;
    double sum = 0;
    for (size_t j = i; j < end; j++) sum += in[j];
    /* numpy.allclose's rule: float additions of up to 256 terms in [-1, 1) */
    if (!(fabs((double)out[i] - sum) <= 1e-4 + 1e-5 * fabs(sum))) {
      if (wrong < 5) printf("  group at %zu: %.9g, expected %.9g\n", i, out[i], sum);
      wrong++;
    }
  }
  CHECK(wrong == 0);
  agpu_buffer_release(bin);
  agpu_buffer_release(bout);
  free(in);
  free(out);
}

static void on_device(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no %s device", selector);
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "partial_groups.cl"};
  agpu_status built = agpu_program_build(device, &desc, &program);
  if (built == AGPU_ERROR_UNSUPPORTED) SKIP("%s cannot build portable kernels", selector);
  CHECK_OK(built);
  if (built != AGPU_SUCCESS) return;
  agpu_kernel *ids = NULL, *group_sum = NULL;
  CHECK_OK(agpu_kernel_create(program, "ids", &ids));
  CHECK_OK(agpu_kernel_create(program, "group_sum", &group_sum));
  ids_case(device, ids, selector, 1, 9973, 1);
  ids_case(device, ids, selector, 1, 1, 1);
  ids_case(device, ids, selector, 1, 257, 1);
  ids_case(device, ids, selector, 2, 37, 53);
  ids_case(device, ids, selector, 2, 101, 3); /* a smaller last group in 2-D */
  sum_case(device, group_sum, 9973);
  sum_case(device, group_sum, 257);
  agpu_kernel_release(ids);
  agpu_kernel_release(group_sum);
  agpu_program_release(program);
}

static void on_cpu(void) {
  on_device("cpu:0");
}
static void on_opencl(void) {
  on_device("opencl:0");
}
static void on_vulkan(void) {
  on_device("vulkan:0");
}

/* no device here: NVRTC and hiprtc compile these kernels (docs/cuda.md) */
static void on_cuda(void) {
  on_device("cuda:0");
}
static void on_hip(void) {
  on_device("hip:0");
}

int main(void) {
  RUN(on_cpu);
  RUN(on_opencl);
  RUN(on_vulkan);
  RUN(on_cuda);
  RUN(on_hip);
  return agpu_test_finish();
}
