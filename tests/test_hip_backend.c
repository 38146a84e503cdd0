// SPDX-License-Identifier: Apache-2.0
/* The HIP backend through the public API. Without an AMD GPU (this build
 * machine: ROCm 5.2's runtime installed, no /dev/kfd) it must be unavailable
 * and say exactly why; with one, its devices must describe themselves and
 * run a kernel, transfers and fills correctly. */
#include <dlfcn.h>
#include <sys/stat.h>

#include "agpu_test.h"

static bool runtime_loads(char *name, size_t size) {
  static const char *const names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
                                      "/opt/rocm/lib/libamdhip64.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (library) { /* left loaded: ROCm 5's runtime leaks at dlclose */
      snprintf(name, size, "%s", names[i]);
      return true;
    }
  }
  return false;
}

static void says_why_it_is_unavailable(void) {
  agpu_backend_info info;
  CHECK_OK(agpu_backend_get_info(AGPU_BACKEND_HIP, &info));
  printf("  hip: %s\n", info.available ? "available" : info.reason);
  CHECK(strstr(info.reason, "no HIP backend yet") == NULL);
  char library[64];
  if (!runtime_loads(library, sizeof library)) {
    CHECK(!info.available);
    CHECK(strstr(info.reason, "cannot open shared object file") != NULL);
    CHECK(strstr(info.reason, "the AMD ROCm runtime (HIP) is not installed") != NULL);
    return;
  }
  if (info.available) {
    CHECK(info.device_count > 0);
    return;
  }
  CHECK(info.device_count == 0);
  CHECK(strcmp(info.library, library) == 0);
  struct stat kfd;
  if (stat("/dev/kfd", &kfd) != 0) {
    char expected[256];
    snprintf(expected, sizeof expected, "the HIP runtime (%s, ROCm ", library);
    CHECK(strncmp(info.reason, expected, strlen(expected)) == 0);
    CHECK(strstr(info.reason,
                 ") is installed but sees no AMD GPU: hipGetDeviceCount returned "
                 "hipErrorNoDevice (100): /dev/kfd is absent") != NULL);
  } else {
    CHECK(strstr(info.reason, "hipGetDeviceCount") != NULL ||
          strstr(info.reason, "hipInit") != NULL);
  }
}

/* The rest needs an AMD GPU. */
static void device_describes_itself(void) {
  REQUIRE_DEVICE(device, "hip");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  printf("  %s: %s, %s, %u CUs at %u MHz, %.0f GB/s, %.0f GFLOP/s FP32\n", info.selector, info.name,
         info.arch, info.compute_units, info.max_clock_mhz, info.peak_bandwidth_gb_s,
         info.peak_fp32_gflop_s);
  CHECK(info.vendor_id == 0x1002);
  CHECK(strncmp(info.arch, "gfx", 3) == 0 && !strchr(info.arch, ':'));
  CHECK(info.compute_units > 0 && info.max_clock_mhz > 0);
  CHECK(info.global_mem_bytes > 0 && info.local_mem_bytes >= 32768);
  CHECK(info.max_work_group_size >= 256);
  CHECK(info.subgroup_sizes[0] == 32 || info.subgroup_sizes[0] == 64);
  CHECK(info.has_pci);
  agpu_memory_info memory;
  CHECK_OK(agpu_device_memory(device, &memory));
  CHECK(memory.free_known && memory.free_bytes <= memory.total_bytes);
}

static const char saxpy_source[] =
    "__kernel void saxpy(__global float *y, __global const float *x, float a, __local float "
    "*tile, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  tile[get_local_id(0)] = x[i];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (i < n) y[i] = a * tile[get_local_id(0)] + y[i];\n"
    "}\n";

static void kernel_transfers_and_fills_are_right(void) {
  REQUIRE_DEVICE(device, "hip");
  enum { N = 1 << 16 };
  static float x[N], y[N], out[N];
  uint64_t seed = 42;
  for (int i = 0; i < N; i++) {
    x[i] = agpu_test_randf(&seed, -1.0f, 1.0f);
    y[i] = agpu_test_randf(&seed, -1.0f, 1.0f);
  }
  agpu_program_desc desc = {.source = saxpy_source, .source_name = "saxpy.cl"};
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (!program) return;
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(program, "saxpy", &kernel));
  agpu_buffer *bx = NULL, *by = NULL;
  CHECK_OK(agpu_buffer_create(device, sizeof x, 0, &bx));
  CHECK_OK(agpu_buffer_create(device, sizeof y, 0, &by));
  CHECK_OK(agpu_buffer_write(NULL, bx, 0, sizeof x, x));
  CHECK_OK(agpu_buffer_write(NULL, by, 0, sizeof y, y));
  agpu_arg args[] = {agpu_arg_buffer(by), agpu_arg_buffer(bx), agpu_arg_f32(2.5f),
                     agpu_arg_local(256 * sizeof(float)), agpu_arg_u32(N)};
  size_t global[1] = {N}, local[1] = {256};
  CHECK_OK(agpu_launch(NULL, kernel, 1, global, local, 5, args));
  memset(out, 0xff, sizeof out);
  CHECK_OK(agpu_buffer_read(NULL, by, 0, sizeof out, out));
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != 2.5f * x[i] + y[i];
  CHECK(wrong == 0);
  /* a 16-byte fill over part of the buffer, then a copy */
  const uint32_t pattern[4] = {1, 2, 3, 4};
  CHECK_OK(agpu_buffer_fill(NULL, by, 64, 4096, pattern, sizeof pattern));
  CHECK_OK(agpu_buffer_copy(NULL, by, 0, bx, 0, sizeof y));
  CHECK_OK(agpu_buffer_read(NULL, bx, 0, sizeof out, out));
  uint32_t bits[1024];
  memcpy(bits, (const char *)out + 64, sizeof bits);
  for (int i = 0; i < 1024; i++) wrong += bits[i] != pattern[i % 4];
  CHECK(wrong == 0);
  agpu_buffer_release(bx);
  agpu_buffer_release(by);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void out_of_memory_says_how_much(void) {
  REQUIRE_DEVICE(device, "hip");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  agpu_buffer *buffer = NULL;
  agpu_status status = agpu_buffer_create(device, (size_t)info.global_mem_bytes * 4, 0, &buffer);
  if (status == AGPU_SUCCESS) {
    agpu_buffer_release(buffer);
    SKIP("%s allocated four times its memory", info.selector);
  }
  CHECK(status == AGPU_ERROR_OUT_OF_DEVICE_MEMORY || status == AGPU_ERROR_INVALID_ARGUMENT);
  if (status == AGPU_ERROR_OUT_OF_DEVICE_MEMORY) CHECK_MESSAGE("in all");
}

int main(void) {
  RUN(says_why_it_is_unavailable);
  RUN(device_describes_itself);
  RUN(kernel_transfers_and_fills_are_right);
  RUN(out_of_memory_says_how_much);
  return agpu_test_finish();
}
