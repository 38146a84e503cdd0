// SPDX-License-Identifier: Apache-2.0
/* The local size anygpu chooses when a launch passes none (docs/api.md,
 * "Launch"): 9973 work-items (a prime) and 1000 on every device. Each work-item
 * records get_local_size(0); a second kernel sums its group through local
 * memory with a barrier, so that a smaller last group is exercised where the
 * backend has one. Random integer inputs (sums exact in float), poisoned
 * outputs, every element checked. */
#include "agpu_test.h"

static const char source[] =
    "__kernel void scale(__global const float *in, __global float *out, __global uint *sizes,\n"
    "                    __global uint *count, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  atomic_inc(count);\n"
    "  if (i < n) {\n"
    "    out[i] = in[i] * 2.0f + 1.0f;\n"
    "    sizes[i] = (uint)get_local_size(0);\n"
    "  }\n"
    "}\n"
    "__kernel void group_sum(__global const float *in, __global float *out, uint n) {\n"
    "  __local float tmp[256];\n"
    "  size_t lid = get_local_id(0), i = get_global_id(0), size = get_local_size(0);\n"
    "  tmp[lid] = i < n ? in[i] : 0.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  float s = 0.0f;\n"
    "  for (size_t k = 0; k < size; k++) s += tmp[k];\n"
    "  if (i < n) out[i] = s;\n"
    "}\n";

static void on_device(const char *selector, uint32_t n) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) {
    SKIP("no %s device", selector);
    return;
  }
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "default_local.cl"};
  agpu_status built = agpu_program_build(device, &desc, &program);
  if (built == AGPU_ERROR_UNSUPPORTED) {
    SKIP("%s cannot build portable kernels: %s", selector, agpu_last_error());
    return;
  }
  CHECK_OK(built);
  if (built != AGPU_SUCCESS) return;
  agpu_kernel *scale = NULL, *group_sum = NULL;
  CHECK_OK(agpu_kernel_create(program, "scale", &scale));
  CHECK_OK(agpu_kernel_create(program, "group_sum", &group_sum));
  uint64_t state = 9973;
  float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  uint32_t *sizes = malloc(n * sizeof *sizes), count = 0;
  for (uint32_t i = 0; i < n; i++) in[i] = (float)((int)(agpu_test_rand(&state) % 201) - 100);
  agpu_buffer *bin = NULL, *bout = NULL, *bsizes = NULL, *bcount = NULL;
  CHECK_OK(agpu_buffer_create(device, n * 4, 0, &bin));
  CHECK_OK(agpu_buffer_create(device, n * 4, 0, &bout));
  CHECK_OK(agpu_buffer_create(device, n * 4, 0, &bsizes));
  CHECK_OK(agpu_buffer_create(device, 4, AGPU_BUFFER_ZERO_INIT, &bcount));
  const uint32_t poison = 0x7fc00bad;
  CHECK_OK(agpu_buffer_write(NULL, bin, 0, n * 4, in));
  CHECK_OK(agpu_buffer_fill(NULL, bout, 0, n * 4, &poison, 4));
  CHECK_OK(agpu_buffer_fill(NULL, bsizes, 0, n * 4, &poison, 4));
  size_t global = n;
  agpu_arg args[] = {agpu_arg_buffer(bin), agpu_arg_buffer(bout), agpu_arg_buffer(bsizes),
                     agpu_arg_buffer(bcount), agpu_arg_u32(n)};
  CHECK_OK(agpu_launch(NULL, scale, 1, &global, NULL, 5, args));
  CHECK_OK(agpu_buffer_read(NULL, bout, 0, n * 4, out));
  CHECK_OK(agpu_buffer_read(NULL, bsizes, 0, n * 4, sizes));
  CHECK_OK(agpu_buffer_read(NULL, bcount, 0, 4, &count));
  /* exact: small integers */
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; i++)
    if (out[i] != in[i] * 2.0f + 1.0f) wrong++;
  CHECK(wrong == 0);
  CHECK(count == n); /* no work-item past the global size */
  /* groups of `chosen`, the last one smaller where the backend has that */
  uint32_t chosen = sizes[0], rest = n % chosen, bad_sizes = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t expected = i < n - rest ? chosen : rest;
    if (sizes[i] != expected) bad_sizes++;
  }
  CHECK(bad_sizes == 0);
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  printf("  %s: local NULL for %u work-items chose groups of %u, the last of %u\n", selector, n,
         chosen, rest ? rest : chosen);
  /* a smaller last group on every backend (before issue 19, the largest
   * divisor up to 256 on some: 1 for the prime, 250 for 1000) */
  uint32_t preferred = info.type == AGPU_DEVICE_TYPE_CPU ? 64u : 256u;
  CHECK(chosen == preferred);

  /* a barrier in the smaller last group */
  CHECK_OK(agpu_buffer_fill(NULL, bout, 0, n * 4, &poison, 4));
  agpu_arg sum_args[] = {agpu_arg_buffer(bin), agpu_arg_buffer(bout), agpu_arg_u32(n)};
  CHECK_OK(agpu_launch(NULL, group_sum, 1, &global, NULL, 3, sum_args));
  CHECK_OK(agpu_buffer_read(NULL, bout, 0, n * 4, out));
  wrong = 0;
  for (uint32_t first = 0; first < n; first += chosen) {
    uint32_t end = first + chosen < n ? first + chosen : n;
    double sum = 0;
    for (uint32_t i = first; i < end; i++) sum += in[i];
    for (uint32_t i = first; i < end; i++)
      if ((double)out[i] != sum) wrong++; /* integers below 2^24: exact */
  }
  CHECK(wrong == 0);

  agpu_buffer_release(bin);
  agpu_buffer_release(bout);
  agpu_buffer_release(bsizes);
  agpu_buffer_release(bcount);
  agpu_kernel_release(scale);
  agpu_kernel_release(group_sum);
  agpu_program_release(program);
  free(in);
  free(out);
  free(sizes);
}

static void both_sizes(const char *selector) {
  if (!agpu_test_device(selector)) SKIP("no %s device", selector);
  on_device(selector, 9973);
  on_device(selector, 1000);
}

static void on_cpu(void) {
  both_sizes("cpu:0");
}
static void on_opencl(void) {
  both_sizes("opencl:0");
}
static void on_vulkan(void) {
  both_sizes("vulkan:0");
}
static void on_cuda(void) {
  both_sizes("cuda:0");
}
static void on_hip(void) {
  both_sizes("hip:0");
}

int main(void) {
  RUN(on_cpu);
  RUN(on_opencl);
  RUN(on_vulkan);
  RUN(on_cuda);
  RUN(on_hip);
  return agpu_test_finish();
}
