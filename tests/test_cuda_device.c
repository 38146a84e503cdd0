// SPDX-License-Identifier: Apache-2.0
/* The CUDA backend on a real NVIDIA GPU (cuda:0): device info, memory,
 * transfers, fills of every pattern size, out-of-memory messages, portable
 * kernels with __local arguments (above 48 KiB too), 3-D launches, events,
 * native PTX and cubin programs, errors, and launches from several threads.
 * Every case is skipped where there is no CUDA device (tests/gpu/run.sh runs
 * it on one). Links the static library for agpu_cuda_compile. */
#include <math.h>
#include <pthread.h>

#include "agpu_test.h"
#include "cuda_internal.h"

static const char source[] =
    "__kernel void saxpy(uint n, float a, __global const float *x, __global float *y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "/* Sums each work-group of in[] * s.x + s.y, then scales by s.z, adds s.w. */\n"
    "__kernel void group_sum(__global const float *in, __global float *out,\n"
    "                        __local float *scratch, float4 s) {\n"
    "  size_t lid = get_local_id(0), size = get_local_size(0);\n"
    "  scratch[lid] = in[get_global_id(0)] * s.x + s.y;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t step = size / 2; step > 0; step /= 2) {\n"
    "    if (lid < step) scratch[lid] += scratch[lid + step];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = scratch[0] * s.z + s.w;\n"
    "}\n"
    "/* Two __local arguments; the second spans `words` uints. Each item writes\n"
    " * its share of big[], then reads another item's back. */\n"
    "__kernel void two_locals(__global uint *out, __local uchar *small, __local uint *big,\n"
    "                         uint words) {\n"
    "  uint lid = (uint)get_local_id(0), size = (uint)get_local_size(0);\n"
    "  if (lid == 0) small[0] = 7;\n"
    "  for (uint w = lid; w < words; w += size) big[w] = w * 3u + 1u;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  uint sum = small[0];\n"
    "  for (uint w = (lid + 1) % size; w < words; w += size) sum += big[w];\n"
    "  out[get_global_id(0)] = sum;\n"
    "}\n"
    "__kernel void ids(__global uint *out) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
    "  out[i * 4 + 0] = (uint)(x + 100 * y + 10000 * z);\n"
    "  out[i * 4 + 1] = (uint)(get_group_id(0) + 100 * get_group_id(1) + 10000 * "
    "get_group_id(2));\n"
    "  out[i * 4 + 2] = (uint)(get_num_groups(0) + 100 * get_num_groups(1) +\n"
    "                          10000 * get_num_groups(2));\n"
    "  out[i * 4 + 3] = get_work_dim();\n"
    "}\n"
    "__kernel void busy(__global float *data, int rounds) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float v = data[i];\n"
    "  for (int r = 0; r < rounds; r++) v = v * 0.999f + 0.001f;\n"
    "  data[i] = v;\n"
    "}\n";

static agpu_program *build(agpu_device *device) {
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "cuda_device.cl"};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  return program;
}

static void info_is_complete(void) {
  REQUIRE_DEVICE(device, "cuda");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  printf(
      "  %s: %s, %u SMs, %u MHz, memory %u MHz x %u bits, L2 %llu, peaks %.0f GB/s %.0f "
      "GFLOP/s, %s\n",
      info.name, info.arch, info.compute_units, info.max_clock_mhz, info.memory_clock_mhz,
      info.memory_bus_width_bits, (unsigned long long)info.last_level_cache_bytes,
      info.peak_bandwidth_gb_s, info.peak_fp32_gflop_s, info.api_version);
  CHECK(strncmp(info.arch, "sm_", 3) == 0);
  CHECK(info.vendor_id == 0x10de);
  CHECK(info.compute_units > 0 && info.max_work_group_size >= 512);
  CHECK(info.max_work_groups[0] >= 65535 && info.max_work_groups[1] >= 65535);
  CHECK(info.local_mem_bytes >= 48 * 1024);
  CHECK(info.global_mem_bytes > 0 && info.max_alloc_bytes > 0);
  CHECK(info.memory_bus_width_bits > 0 && info.last_level_cache_bytes > 0);
  CHECK(info.peak_bandwidth_gb_s > 0);
  CHECK(info.has_pci && info.has_uuid);
  CHECK(info.fp64 && info.fp16 && info.int64);
  agpu_memory_info memory;
  CHECK_OK(agpu_device_memory(device, &memory));
  CHECK(memory.free_known && memory.free_bytes > 0 && memory.free_bytes <= memory.total_bytes);
}

static void transfers_round_trip(void) {
  REQUIRE_DEVICE(device, "cuda");
  enum { SIZE = 1 << 20 };
  unsigned char *in = malloc(SIZE), *out = malloc(SIZE);
  uint64_t seed = 12345;
  for (size_t i = 0; i < SIZE; i++) in[i] = (unsigned char)agpu_test_rand(&seed);
  agpu_buffer *a = NULL, *b = NULL;
  CHECK_OK(agpu_buffer_create(device, SIZE, 0, &a));
  CHECK_OK(agpu_buffer_create(device, SIZE, 0, &b));
  CHECK_OK(agpu_buffer_write(NULL, a, 0, SIZE, in));
  memset(out, 0xcd, SIZE);
  CHECK_OK(agpu_buffer_read(NULL, a, 0, SIZE, out));
  CHECK(memcmp(in, out, SIZE) == 0);
  /* A copy between odd offsets, the rest of b poisoned. */
  memset(out, 0xee, SIZE);
  CHECK_OK(agpu_buffer_write(NULL, b, 0, SIZE, out));
  CHECK_OK(agpu_buffer_copy(NULL, a, 13, b, 1001, 50001));
  CHECK_OK(agpu_buffer_read(NULL, b, 0, SIZE, out));
  CHECK(memcmp(out + 1001, in + 13, 50001) == 0);
  CHECK(out[1000] == 0xee && out[1001 + 50001] == 0xee);
  agpu_buffer_release(a);
  agpu_buffer_release(b);
  free(in);
  free(out);
}

static void fills_of_every_pattern_size(void) {
  REQUIRE_DEVICE(device, "cuda");
  enum { SIZE = 4096 };
  static const unsigned char pattern[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  static const unsigned char same_words[8] = {9, 8, 7, 6, 9, 8, 7, 6};
  agpu_buffer *buffer = NULL;
  CHECK_OK(agpu_buffer_create(device, SIZE, 0, &buffer));
  unsigned char poison[SIZE], out[SIZE];
  memset(poison, 0xab, SIZE);
  for (size_t size = 1; size <= 16; size *= 2) {
    for (int variant = 0; variant < 2; variant++) {
      const unsigned char *p = variant == 0 ? pattern : same_words;
      if (variant == 1 && size != 8) continue;
      CHECK_OK(agpu_buffer_write(NULL, buffer, 0, SIZE, poison));
      size_t offset = 16 * size, length = 100 * size;
      CHECK_OK(agpu_buffer_fill(NULL, buffer, offset, length, p, size));
      CHECK_OK(agpu_buffer_read(NULL, buffer, 0, SIZE, out));
      bool ok = true;
      for (size_t i = 0; i < SIZE; i++) {
        unsigned char expected = i >= offset && i < offset + length ? p[(i - offset) % size] : 0xab;
        if (out[i] != expected) {
          printf("  pattern size %zu: byte %zu is %u, expected %u\n", size, i, out[i], expected);
          ok = false;
          break;
        }
      }
      CHECK(ok);
    }
  }
  agpu_buffer_release(buffer);
  /* A large one: 8 MiB + 48 bytes of a 16-byte pattern, every byte checked. */
  const size_t big = (8u << 20) + 64, offset = 16, length = big - 32;
  unsigned char *host = malloc(big);
  CHECK_OK(agpu_buffer_create(device, big, 0, &buffer));
  if (host && buffer) {
    memset(host, 0xab, big);
    CHECK_OK(agpu_buffer_write(NULL, buffer, 0, big, host));
    CHECK_OK(agpu_buffer_fill(NULL, buffer, offset, length, pattern, 16));
    CHECK_OK(agpu_buffer_read(NULL, buffer, 0, big, host));
    size_t wrong = 0;
    for (size_t i = 0; i < big; i++) {
      unsigned char expected =
          i >= offset && i < offset + length ? pattern[(i - offset) % 16] : 0xab;
      wrong += host[i] != expected;
    }
    CHECK(wrong == 0);
  }
  if (buffer) agpu_buffer_release(buffer);
  free(host);
}

static void out_of_memory_says_how_much(void) {
  REQUIRE_DEVICE(device, "cuda");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  agpu_buffer *buffer = NULL;
  /* All of it: the context itself holds some, so this cannot succeed. */
  CHECK_STATUS(agpu_buffer_create(device, (size_t)info.max_alloc_bytes, 0, &buffer),
               AGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK_MESSAGE("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2)");
  CHECK_MESSAGE("bytes on cuda:0");
  CHECK_MESSAGE("free");
  if (buffer) agpu_buffer_release(buffer);
}

static void saxpy_and_group_sum(void) {
  REQUIRE_DEVICE(device, "cuda");
  agpu_program *program = build(device);
  if (!program) return;
  agpu_kernel *saxpy = NULL, *group_sum = NULL;
  CHECK_OK(agpu_kernel_create(program, "saxpy", &saxpy));
  CHECK_OK(agpu_kernel_create(program, "group_sum", &group_sum));
  if (!saxpy || !group_sum) return;
  enum { N = 100003, GROUPS = 64, LOCAL = 256 };
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
  uint64_t seed = 99;
  for (int i = 0; i < N; i++) {
    x[i] = agpu_test_randf(&seed, -1, 1);
    y[i] = agpu_test_randf(&seed, -1, 1);
  }
  agpu_buffer *bx = NULL, *by = NULL, *bsum = NULL;
  CHECK_OK(agpu_buffer_create(device, N * sizeof(float), 0, &bx));
  CHECK_OK(agpu_buffer_create(device, N * sizeof(float), 0, &by));
  CHECK_OK(agpu_buffer_create(device, GROUPS * sizeof(float), 0, &bsum));
  CHECK_OK(agpu_buffer_write(NULL, bx, 0, N * sizeof(float), x));
  CHECK_OK(agpu_buffer_write(NULL, by, 0, N * sizeof(float), y));
  agpu_arg args[] = {agpu_arg_u32(N), agpu_arg_f32(2.5f), agpu_arg_buffer(bx), agpu_arg_buffer(by)};
  size_t global = (N + 127) / 128 * 128, local = 128;
  CHECK_OK(agpu_launch(NULL, saxpy, 1, &global, &local, 4, args));
  CHECK_OK(agpu_buffer_read(NULL, by, 0, N * sizeof(float), out));
  int wrong = 0;
  for (int i = 0; i < N; i++)
    if (out[i] != 2.5f * x[i] + y[i] && fabsf(out[i] - (2.5f * x[i] + y[i])) > 1e-6f) wrong++;
  CHECK(wrong == 0);

  const float s[4] = {2.0f, 1.0f, 0.5f, -3.0f};
  agpu_arg sum_args[] = {agpu_arg_buffer(bx), agpu_arg_buffer(bsum),
                         agpu_arg_local(LOCAL * sizeof(float)), agpu_arg_value(s, sizeof s)};
  size_t sum_global = GROUPS * LOCAL, sum_local = LOCAL;
  CHECK_OK(agpu_launch(NULL, group_sum, 1, &sum_global, &sum_local, 4, sum_args));
  float sums[GROUPS];
  CHECK_OK(agpu_buffer_read(NULL, bsum, 0, sizeof sums, sums));
  for (int g = 0; g < GROUPS; g++) {
    double expected = 0;
    for (int i = 0; i < LOCAL; i++) expected += x[g * LOCAL + i] * 2.0 + 1.0;
    expected = expected * 0.5 - 3.0;
    if (fabs(sums[g] - expected) > 1e-3 * (1 + fabs(expected))) wrong++;
  }
  CHECK(wrong == 0);
  agpu_buffer_release(bx);
  agpu_buffer_release(by);
  agpu_buffer_release(bsum);
  agpu_kernel_release(saxpy);
  agpu_kernel_release(group_sum);
  agpu_program_release(program);
  free(x);
  free(y);
  free(out);
}

/* 64 KiB of __local memory after a 1-byte one: above the 48 KiB a block gets
 * without asking, and the second one 16-byte aligned. */
static void local_memory_above_48k(void) {
  REQUIRE_DEVICE(device, "cuda");
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  const uint32_t words = 16384; /* 64 KiB */
  if (info.local_mem_bytes < words * 4 + 64)
    SKIP("%s has %llu bytes of shared memory", info.name, (unsigned long long)info.local_mem_bytes);
  agpu_program *program = build(device);
  agpu_kernel *kernel = NULL;
  if (program) CHECK_OK(agpu_kernel_create(program, "two_locals", &kernel));
  if (!kernel) return;
  enum { ITEMS = 256 };
  agpu_buffer *out = NULL;
  CHECK_OK(agpu_buffer_create(device, ITEMS * 4, 0, &out));
  agpu_arg args[] = {agpu_arg_buffer(out), agpu_arg_local(1), agpu_arg_local(words * 4),
                     agpu_arg_u32(words)};
  size_t global = ITEMS, local = ITEMS;
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 4, args));
  uint32_t got[ITEMS];
  CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof got, got));
  int wrong = 0;
  for (uint32_t lid = 0; lid < ITEMS; lid++) {
    uint32_t expected = 7;
    for (uint32_t w = (lid + 1) % ITEMS; w < words; w += ITEMS) expected += w * 3u + 1u;
    wrong += got[lid] != expected;
  }
  CHECK(wrong == 0);
  agpu_buffer_release(out);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void three_dimensional_ids(void) {
  REQUIRE_DEVICE(device, "cuda");
  agpu_program *program = build(device);
  agpu_kernel *kernel = NULL;
  if (program) CHECK_OK(agpu_kernel_create(program, "ids", &kernel));
  if (!kernel) return;
  const size_t global[3] = {8, 6, 4}, local[3] = {4, 2, 2};
  const size_t items = 8 * 6 * 4;
  agpu_buffer *out = NULL;
  CHECK_OK(agpu_buffer_create(device, items * 16, 0, &out));
  agpu_arg arg = agpu_arg_buffer(out);
  CHECK_OK(agpu_launch(NULL, kernel, 3, global, local, 1, &arg));
  uint32_t got[8 * 6 * 4 * 4];
  CHECK_OK(agpu_buffer_read(NULL, out, 0, sizeof got, got));
  int wrong = 0;
  for (uint32_t z = 0; z < 4; z++)
    for (uint32_t y = 0; y < 6; y++)
      for (uint32_t x = 0; x < 8; x++) {
        const uint32_t *v = &got[((z * 6 + y) * 8 + x) * 4];
        wrong += v[0] != x + 100 * y + 10000 * z;
        wrong += v[1] != x / 4 + 100 * (y / 2) + 10000 * (z / 2);
        wrong += v[2] != 2 + 100 * 3 + 10000 * 2;
        wrong += v[3] != 3;
      }
  CHECK(wrong == 0);
  agpu_buffer_release(out);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void events_time_work(void) {
  REQUIRE_DEVICE(device, "cuda");
  agpu_program *program = build(device);
  agpu_kernel *kernel = NULL;
  if (program) CHECK_OK(agpu_kernel_create(program, "busy", &kernel));
  if (!kernel) return;
  enum { N = 1 << 20 };
  agpu_buffer *data = NULL;
  CHECK_OK(agpu_buffer_create(device, N * 4, 0, &data));
  const float zero = 0;
  CHECK_OK(agpu_buffer_fill(NULL, data, 0, N * 4, &zero, 4));
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_queue_create(device, &queue));
  agpu_event *start = NULL, *end = NULL;
  CHECK_OK(agpu_event_record(queue, &start));
  agpu_arg args[] = {agpu_arg_buffer(data), agpu_arg_i32(2000)};
  size_t global = N, local = 256;
  CHECK_OK(agpu_launch(queue, kernel, 1, &global, &local, 2, args));
  CHECK_OK(agpu_event_record(queue, &end));
  CHECK_OK(agpu_event_wait(end));
  uint64_t ns = 0;
  CHECK_OK(agpu_event_elapsed_ns(start, end, &ns));
  printf("  busy kernel: %llu ns\n", (unsigned long long)ns);
  CHECK(ns > 1000 && ns < 10000000000ull);
  CHECK_OK(agpu_queue_finish(queue));
  agpu_event_release(start);
  agpu_event_release(end);
  agpu_queue_release(queue);
  agpu_buffer_release(data);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

/* PTX and a cubin made by NVRTC, loaded as native programs. */
static void native_programs(void) {
  REQUIRE_DEVICE(device, "cuda");
  const char *why = NULL;
  if (!agpu_cuda_nvrtc_get(&why)) SKIP("NVRTC not found: %s", why);
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  int cc = atoi(info.arch + 3);
  const char *cuda =
      "extern \"C\" __global__ void add_one(int *x) { x[threadIdx.x] += 1 + threadIdx.x; }\n";
  for (int force_ptx = 0; force_ptx < 2; force_ptx++) {
    agpu_cuda_binary binary;
    CHECK_OK(agpu_cuda_compile(cuda, "add_one.cu", cc, force_ptx, &binary));
    if (!binary.data) continue;
    agpu_program *program = NULL;
    CHECK_OK(agpu_program_create_native(
        device, binary.cubin ? AGPU_NATIVE_CUBIN : AGPU_NATIVE_PTX, binary.data,
        binary.cubin ? binary.size : strlen(binary.data), NULL, &program));
    agpu_cuda_binary_free(&binary);
    if (!program) continue;
    agpu_kernel *kernel = NULL;
    agpu_status status = agpu_kernel_create(program, "add_one", &kernel);
    if (status == AGPU_ERROR_UNSUPPORTED) {
      printf("  %s\n", agpu_last_error()); /* a driver before CUDA 12.4 */
      CHECK_MESSAGE("cuFuncGetParamInfo");
    } else {
      CHECK_OK(status);
    }
    if (kernel) {
      agpu_kernel_info kinfo;
      CHECK_OK(agpu_kernel_get_info(kernel, &kinfo));
      CHECK(kinfo.param_count == 1);
      int values[32];
      for (int i = 0; i < 32; i++) values[i] = 1000 * i;
      agpu_buffer *buffer = NULL;
      CHECK_OK(agpu_buffer_create(device, sizeof values, 0, &buffer));
      CHECK_OK(agpu_buffer_write(NULL, buffer, 0, sizeof values, values));
      agpu_arg arg = agpu_arg_buffer(buffer);
      size_t global = 32, local = 32;
      CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 1, &arg));
      CHECK_OK(agpu_buffer_read(NULL, buffer, 0, sizeof values, values));
      int wrong = 0;
      for (int i = 0; i < 32; i++) wrong += values[i] != 1000 * i + 1 + i;
      CHECK(wrong == 0);
      agpu_buffer_release(buffer);
      agpu_kernel_release(kernel);
    }
    CHECK_STATUS(agpu_kernel_create(program, "no_such_kernel", &kernel), AGPU_ERROR_NOT_FOUND);
    CHECK_MESSAGE("CUDA_ERROR_NOT_FOUND");
    agpu_program_release(program);
  }
  agpu_program *program = NULL;
  CHECK(agpu_program_create_native(device, AGPU_NATIVE_PTX, "not ptx at all", 14, NULL, &program) !=
        AGPU_SUCCESS);
  CHECK_MESSAGE("cuModuleLoadDataEx");
  CHECK(program == NULL);
}

static void errors_are_named(void) {
  REQUIRE_DEVICE(device, "cuda");
  agpu_program *program = NULL;
  agpu_program_desc bad = {.source = "__kernel void k(__global int *x) { x[0] = nope; }\n",
                           .source_name = "bad.cl"};
  CHECK_STATUS(agpu_program_build(device, &bad, &program), AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE("bad.cl:1:");
  program = build(device);
  agpu_kernel *kernel = NULL;
  if (program) {
    CHECK_STATUS(agpu_kernel_create(program, "missing", &kernel), AGPU_ERROR_NOT_FOUND);
    CHECK_MESSAGE("saxpy");
    agpu_program_release(program);
  }
}

typedef struct worker {
  agpu_device *device;
  agpu_kernel *kernel;
  int index;
  bool ok;
} worker;

static void *run_worker(void *arg) {
  worker *w = arg;
  enum { N = 4096 };
  float x[N], y[N], out[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i + w->index);
    y[i] = (float)w->index;
  }
  agpu_queue *queue = NULL;
  agpu_buffer *bx = NULL, *by = NULL;
  w->ok = agpu_queue_create(w->device, &queue) == AGPU_SUCCESS &&
          agpu_buffer_create(w->device, sizeof x, 0, &bx) == AGPU_SUCCESS &&
          agpu_buffer_create(w->device, sizeof y, 0, &by) == AGPU_SUCCESS;
  for (int round = 0; round < 20 && w->ok; round++) {
    agpu_arg args[] = {agpu_arg_u32(N), agpu_arg_f32(1.0f), agpu_arg_buffer(bx),
                       agpu_arg_buffer(by)};
    size_t global = N, local = 64;
    w->ok = agpu_buffer_write(queue, bx, 0, sizeof x, x) == AGPU_SUCCESS &&
            agpu_buffer_write(queue, by, 0, sizeof y, y) == AGPU_SUCCESS &&
            agpu_launch(queue, w->kernel, 1, &global, &local, 4, args) == AGPU_SUCCESS &&
            agpu_buffer_read(queue, by, 0, sizeof out, out) == AGPU_SUCCESS;
    for (int i = 0; i < N && w->ok; i++) w->ok = out[i] == x[i] + y[i];
  }
  if (bx) agpu_buffer_release(bx);
  if (by) agpu_buffer_release(by);
  if (queue) agpu_queue_release(queue);
  return NULL;
}

static void launches_from_threads(void) {
  REQUIRE_DEVICE(device, "cuda");
  agpu_program *program = build(device);
  agpu_kernel *kernel = NULL;
  if (program) CHECK_OK(agpu_kernel_create(program, "saxpy", &kernel));
  if (!kernel) return;
  worker workers[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) {
    workers[i] = (worker){.device = device, .kernel = kernel, .index = i};
    pthread_create(&threads[i], NULL, run_worker, &workers[i]);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
    CHECK(workers[i].ok);
  }
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

int main(void) {
  RUN(info_is_complete);
  RUN(transfers_round_trip);
  RUN(fills_of_every_pattern_size);
  RUN(out_of_memory_says_how_much);
  RUN(saxpy_and_group_sum);
  RUN(local_memory_above_48k);
  RUN(three_dimensional_ids);
  RUN(events_time_work);
  RUN(native_programs);
  RUN(errors_are_named);
  RUN(launches_from_threads);
  return agpu_test_finish();
}
