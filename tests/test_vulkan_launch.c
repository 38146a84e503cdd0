// SPDX-License-Identifier: Apache-2.0
/* Vulkan launches: push-constant and storage-buffer parameter blocks,
 * __local parameters, 2D ids, launches of more work-groups than
 * maxComputeWorkGroupCount (split with a group offset), long streams of
 * launches without a finish, and timing. Results checked element by element. */
#include "agpu_test.h"

static const char source[] =
    "__kernel void saxpy(uint n, float a, __global const float *x, __global float *y) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void ids(__global uint *gid, __global uint *grp, __global uint *sizes) {\n"
    "  uint i = get_global_id(0);\n"
    "  gid[i] = i;\n"
    "  grp[i] = get_group_id(0) * get_local_size(0) + get_local_id(0);\n"
    "  if (i == 0) { sizes[0] = get_global_size(0); sizes[1] = get_num_groups(0); }\n"
    "}\n"
    "__kernel void grid(__global int *out, int width) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  out[y * width + x] = y * 1000 + x + (int)get_work_dim();\n"
    "}\n"
    "__kernel void group_sum(__global const float *in, __global float *out, __local float *s) {\n"
    "  uint lid = get_local_id(0), size = get_local_size(0);\n"
    "  s[lid] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint step = size / 2; step > 0; step /= 2) {\n"
    "    if (lid < step) s[lid] += s[lid + step];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = s[0];\n"
    "}\n"
    "/* 8 float4 values: the block exceeds 128 bytes and goes to a buffer */\n"
    "__kernel void many(__global float *out, float4 a, float4 b, float4 c, float4 d,\n"
    "                   float4 e, float4 f, float4 g, float4 h) {\n"
    "  uint i = get_global_id(0);\n"
    "  float4 s = a + b + c + d + e + f + g + h;\n"
    "  out[i] = s.x + s.y * 10.0f + s.z * 100.0f + s.w * 1000.0f + (float)get_group_id(0);\n"
    "}\n"
    "__kernel void increment(__global int *counter) { counter[get_global_id(0)] += 1; }\n";

static agpu_program *program_g;

static agpu_kernel *kernel_named(const char *name) {
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_kernel_create(program_g, name, &kernel));
  return kernel;
}

static agpu_buffer *make(agpu_device *device, size_t size) {
  agpu_buffer *buffer = NULL;
  CHECK_OK(agpu_buffer_create(device, size, 0, &buffer));
  return buffer;
}

static bool build(agpu_device *device) {
  if (program_g) return true;
  agpu_program_desc desc = {.source = source, .source_name = "test_vulkan_launch.cl"};
  agpu_status status = agpu_program_build(device, &desc, &program_g);
  CHECK_OK(status);
  return status == AGPU_SUCCESS;
}

#define REQUIRE_PROGRAM(device)     \
  REQUIRE_DEVICE(device, "vulkan"); \
  if (!build(device)) return

static void vulkan_saxpy(void) {
  REQUIRE_PROGRAM(device);
  enum { N = 10007 };
  static float x[N], y[N], out[N];
  uint64_t seed = 3;
  for (int i = 0; i < N; i++)
    x[i] = agpu_test_randf(&seed, -1, 1), y[i] = agpu_test_randf(&seed, -1, 1);
  agpu_buffer *bx = make(device, sizeof x), *by = make(device, sizeof y);
  agpu_kernel *kernel = kernel_named("saxpy");
  if (!bx || !by || !kernel) return;
  CHECK_OK(agpu_buffer_write(NULL, bx, 0, sizeof x, x));
  CHECK_OK(agpu_buffer_write(NULL, by, 0, sizeof y, y));
  agpu_arg args[] = {agpu_arg_u32(N), agpu_arg_f32(2.5f), agpu_arg_buffer(bx), agpu_arg_buffer(by)};
  size_t global = (N + 63) / 64 * 64, local = 64;
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 4, args));
  CHECK_OK(agpu_buffer_read(NULL, by, 0, sizeof out, out));
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != 2.5f * x[i] + y[i];
  CHECK(wrong == 0);
  agpu_kernel_release(kernel);
  agpu_buffer_release(bx);
  agpu_buffer_release(by);
}

static void vulkan_more_groups_than_the_limit(void) {
  REQUIRE_PROGRAM(device);
  const size_t local = 64, groups = 65536 + 3; /* lavapipe allows 65535 per dispatch */
  const size_t n = groups * local;
  agpu_buffer *gid = make(device, n * 4), *grp = make(device, n * 4), *sizes = make(device, 8);
  agpu_kernel *kernel = kernel_named("ids");
  uint32_t *a = malloc(n * 4), *b = malloc(n * 4);
  if (gid && grp && sizes && kernel && a && b) {
    CHECK_OK(agpu_buffer_fill(NULL, gid, 0, n * 4, "\xff\xff\xff\xff", 4));
    agpu_arg args[] = {agpu_arg_buffer(gid), agpu_arg_buffer(grp), agpu_arg_buffer(sizes)};
    CHECK_OK(agpu_launch(NULL, kernel, 1, &n, &local, 3, args));
    CHECK_OK(agpu_buffer_read(NULL, gid, 0, n * 4, a));
    CHECK_OK(agpu_buffer_read(NULL, grp, 0, n * 4, b));
    uint32_t s[2];
    CHECK_OK(agpu_buffer_read(NULL, sizes, 0, 8, s));
    size_t wrong = 0, first = n;
    for (size_t i = 0; i < n; i++)
      if (a[i] != i || b[i] != i) wrong++, first = first < i ? first : i;
    if (wrong)
      printf("  %zu of %zu ids wrong, first at %zu: %u %u\n", wrong, n, first, a[first], b[first]);
    CHECK(wrong == 0);
    CHECK(s[0] == n && s[1] == groups);
  }
  free(a);
  free(b);
  if (kernel) agpu_kernel_release(kernel);
  agpu_buffer_release(gid);
  agpu_buffer_release(grp);
  agpu_buffer_release(sizes);
}

static void vulkan_2d(void) {
  REQUIRE_PROGRAM(device);
  enum { W = 48, H = 20 };
  int out[W * H];
  agpu_buffer *buffer = make(device, sizeof out);
  agpu_kernel *kernel = kernel_named("grid");
  if (!buffer || !kernel) return;
  agpu_arg args[] = {agpu_arg_buffer(buffer), agpu_arg_i32(W)};
  size_t global[2] = {W, H}, local[2] = {16, 4};
  CHECK_OK(agpu_launch(NULL, kernel, 2, global, local, 2, args));
  CHECK_OK(agpu_buffer_read(NULL, buffer, 0, sizeof out, out));
  int wrong = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) wrong += out[y * W + x] != y * 1000 + x + 2;
  CHECK(wrong == 0);
  agpu_kernel_release(kernel);
  agpu_buffer_release(buffer);
}

static void vulkan_local_parameter(void) {
  REQUIRE_PROGRAM(device);
  enum { N = 4096 };
  static float in[N], out[N / 32];
  for (int i = 0; i < N; i++) in[i] = (float)(i % 13);
  agpu_buffer *bin = make(device, sizeof in), *bout = make(device, sizeof out);
  agpu_kernel *kernel = kernel_named("group_sum");
  if (!bin || !bout || !kernel) return;
  CHECK_OK(agpu_buffer_write(NULL, bin, 0, sizeof in, in));
  for (size_t local = 32; local <= 64; local *= 2) { /* two pipelines: two local sizes */
    agpu_arg args[] = {agpu_arg_buffer(bin), agpu_arg_buffer(bout), agpu_arg_local(local * 4)};
    size_t global = N;
    CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 3, args));
    CHECK_OK(agpu_buffer_read(NULL, bout, 0, N / local * 4, out));
    int wrong = 0;
    for (size_t g = 0; g < N / local; g++) {
      float sum = 0;
      for (size_t i = 0; i < local; i++) sum += in[g * local + i];
      wrong += out[g] != sum;
    }
    CHECK(wrong == 0);
  }
  /* __local arguments past the device's shared memory are refused */
  agpu_device_info info;
  CHECK_OK(agpu_device_get_info(device, &info));
  agpu_arg big[] = {agpu_arg_buffer(bin), agpu_arg_buffer(bout),
                    agpu_arg_local((size_t)info.local_mem_bytes + 4)};
  size_t global = N, local = 64;
  CHECK_STATUS(agpu_launch(NULL, kernel, 1, &global, &local, 3, big), AGPU_ERROR_INVALID_LAUNCH);
  CHECK_MESSAGE("local memory");
  agpu_kernel_release(kernel);
  agpu_buffer_release(bin);
  agpu_buffer_release(bout);
}

static void vulkan_block_in_a_buffer(void) {
  REQUIRE_PROGRAM(device);
  const size_t local = 1, groups = 65535 + 5; /* split as well: one block per dispatch */
  float *out = malloc(groups * 4);
  agpu_buffer *buffer = make(device, groups * 4);
  agpu_kernel *kernel = kernel_named("many");
  if (out && buffer && kernel) {
    agpu_arg args[9];
    args[0] = agpu_arg_buffer(buffer);
    float expected[4] = {0, 0, 0, 0};
    for (int k = 0; k < 8; k++) {
      float v[4] = {(float)k, 0.5f * k, 0.25f * k, 1.0f};
      for (int c = 0; c < 4; c++) expected[c] += v[c];
      args[1 + k] = agpu_arg_value(v, sizeof v);
    }
    CHECK_OK(agpu_launch(NULL, kernel, 1, &groups, &local, 9, args));
    CHECK_OK(agpu_buffer_read(NULL, buffer, 0, groups * 4, out));
    float base = expected[0] + expected[1] * 10 + expected[2] * 100 + expected[3] * 1000;
    size_t wrong = 0;
    for (size_t g = 0; g < groups; g++) wrong += out[g] != base + (float)g;
    if (wrong) printf("  %zu wrong; out[0] %g, expected %g\n", wrong, out[0], base);
    CHECK(wrong == 0);
  }
  free(out);
  if (kernel) agpu_kernel_release(kernel);
  if (buffer) agpu_buffer_release(buffer);
}

/* More buffer parameters than the device binds per shader (lavapipe: 32;
 * Rodinia's heartwall has 32 and a parameter block in a buffer): the last
 * ones go by address, the rest through bindings; every buffer read right,
 * with a block in a buffer too. */
enum { MANY_BUFFERS = 40, MANY_N = 333 };

static char *many_buffers_source(void) {
  size_t capacity = 8192;
  char *text = malloc(capacity);
  if (!text) return NULL;
  int n = snprintf(text, capacity,
                   "__kernel void sum(__global int *out, float4 a, float4 b, "
                   "float4 c, float4 d, float4 e, float4 f, float4 g, float4 h");
  for (int k = 0; k < MANY_BUFFERS; k++)
    n += snprintf(text + n, capacity - (size_t)n, ", __global const int *b%d", k);
  n += snprintf(text + n, capacity - (size_t)n,
                ") {\n  int i = get_global_id(0);\n  if (i >= %d) return;\n  int s = (int)(a.x + "
                "h.w);\n",
                MANY_N);
  for (int k = 0; k < MANY_BUFFERS; k++)
    n += snprintf(text + n, capacity - (size_t)n, "  s += b%d[(i + %d) %% %d] * %d;\n", k, k,
                  MANY_N, k + 1);
  snprintf(text + n, capacity - (size_t)n, "  out[i] = s;\n}\n");
  return text;
}

static void vulkan_more_buffers_than_bindings(void) {
  REQUIRE_DEVICE(device, "vulkan");
  char *text = many_buffers_source();
  agpu_program_desc desc = {.source = text, .source_name = "many_buffers.cl"};
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (program) CHECK_OK(agpu_kernel_create(program, "sum", &kernel));
  static int data[MANY_BUFFERS][MANY_N], out[MANY_N];
  agpu_buffer *buffers[MANY_BUFFERS + 1] = {0};
  agpu_arg args[9 + MANY_BUFFERS];
  uint64_t seed = 40;
  float v[4] = {2.0f, 0, 0, 0}, w[4] = {0, 0, 0, 3.0f}, zero[4] = {0, 0, 0, 0};
  buffers[MANY_BUFFERS] = make(device, sizeof out);
  args[0] = agpu_arg_buffer(buffers[MANY_BUFFERS]);
  for (int k = 0; k < 8; k++) args[1 + k] = agpu_arg_value(k == 0 ? v : k == 7 ? w : zero, 16);
  for (int k = 0; k < MANY_BUFFERS; k++) {
    for (int i = 0; i < MANY_N; i++) data[k][i] = (int)(agpu_test_rand(&seed) % 2001) - 1000;
    buffers[k] = make(device, sizeof data[k]);
    if (buffers[k]) CHECK_OK(agpu_buffer_write(NULL, buffers[k], 0, sizeof data[k], data[k]));
    args[9 + k] = agpu_arg_buffer(buffers[k]);
  }
  size_t global = 384, local = 64;
  if (kernel) {
    CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 9 + MANY_BUFFERS, args));
    CHECK_OK(agpu_buffer_read(NULL, buffers[MANY_BUFFERS], 0, sizeof out, out));
    int wrong = 0;
    for (int i = 0; i < MANY_N; i++) {
      int s = 5;
      for (int k = 0; k < MANY_BUFFERS; k++) s += data[k][(i + k) % MANY_N] * (k + 1);
      wrong += out[i] != s;
    }
    if (wrong) printf("  %d of %d wrong\n", wrong, MANY_N);
    CHECK(wrong == 0);
  }
  for (int k = 0; k <= MANY_BUFFERS; k++)
    if (buffers[k]) agpu_buffer_release(buffers[k]);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
  free(text);
}

static void vulkan_many_launches_in_order(void) {
  REQUIRE_PROGRAM(device);
  enum { N = 256, LAUNCHES = 2500 }; /* more than one batch's worth */
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_queue_create(device, &queue));
  agpu_buffer *buffer = make(device, N * 4);
  agpu_kernel *kernel = kernel_named("increment");
  if (!queue || !buffer || !kernel) return;
  CHECK_OK(agpu_buffer_fill(queue, buffer, 0, N * 4, "\0\0\0\0", 4));
  agpu_event *start = NULL, *end = NULL;
  CHECK_OK(agpu_event_record(queue, &start));
  agpu_arg args[] = {agpu_arg_buffer(buffer)};
  size_t global = N, local = 64;
  for (int i = 0; i < LAUNCHES; i++)
    CHECK_OK(agpu_launch(queue, kernel, 1, &global, &local, 1, args));
  CHECK_OK(agpu_event_record(queue, &end));
  int out[N];
  CHECK_OK(agpu_buffer_read(queue, buffer, 0, sizeof out, out));
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != LAUNCHES;
  CHECK(wrong == 0);
  uint64_t ns = 0;
  CHECK_OK(agpu_event_elapsed_ns(start, end, &ns));
  CHECK(ns > 0);
  agpu_event_release(start);
  agpu_event_release(end);
  agpu_kernel_release(kernel);
  agpu_buffer_release(buffer);
  CHECK_OK(agpu_queue_release(queue));
}

/* The translator's SPIR-V for saxpy, loaded as a native module: its
 * parameters are the buffers by binding, then the values by offset. */
static void vulkan_native_spirv(void) {
  REQUIRE_DEVICE(device, "vulkan");
  agpu_translate_desc desc = {.source = source, .target = AGPU_TARGET_SPIRV, .kernel = "saxpy"};
  agpu_translation *translation = NULL;
  CHECK_OK(agpu_translate(&desc, &translation));
  if (!translation) return;
  size_t size = 0;
  const void *words = agpu_translation_binary(translation, &size);
  agpu_program *program = NULL;
  CHECK_OK(agpu_program_create_native(device, AGPU_NATIVE_SPIRV, words, size, NULL, &program));
  agpu_translation_release(translation);
  agpu_program *bad = NULL;
  CHECK_STATUS(agpu_program_create_native(device, AGPU_NATIVE_SPIRV, "not spirv", 8, NULL, &bad),
               AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("magic");
  agpu_kernel *kernel = NULL;
  CHECK(program != NULL);
  if (program) CHECK_OK(agpu_kernel_create(program, "main", &kernel));
  if (!kernel) return;
  agpu_kernel_info info;
  CHECK_OK(agpu_kernel_get_info(kernel, &info));
  CHECK(info.param_count == 4);
  CHECK(info.params[0].kind == AGPU_PARAM_GLOBAL_BUFFER &&
        info.params[2].kind == AGPU_PARAM_SCALAR);
  CHECK(info.params[2].size == 4 && info.params[3].size == 4);
  enum { N = 1000 };
  float x[N], y[N], out[N];
  for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 1.0f;
  agpu_buffer *bx = make(device, sizeof x), *by = make(device, sizeof y);
  CHECK_OK(agpu_buffer_write(NULL, bx, 0, sizeof x, x));
  CHECK_OK(agpu_buffer_write(NULL, by, 0, sizeof y, y));
  agpu_arg args[] = {agpu_arg_buffer(bx), agpu_arg_buffer(by), agpu_arg_u32(N - 1),
                     agpu_arg_f32(3)};
  size_t global = 1024, local = 64;
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 4, args));
  CHECK_OK(agpu_buffer_read(NULL, by, 0, sizeof out, out));
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != (i < N - 1 ? 3.0f * (float)i + 1.0f : 1.0f);
  CHECK(wrong == 0);
  agpu_kernel_release(kernel);
  agpu_program_release(program);
  agpu_buffer_release(bx);
  agpu_buffer_release(by);
}

/* Releasing a buffer, kernel and program the queued launch still uses is
 * legal: the backend destroys them once the work is done (the validation
 * layer would report a use after destruction). */
static void vulkan_release_before_finish(void) {
  REQUIRE_DEVICE(device, "vulkan");
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "test_vulkan_launch.cl"};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  agpu_kernel *kernel = NULL;
  if (program) CHECK_OK(agpu_kernel_create(program, "saxpy", &kernel));
  agpu_buffer *x = make(device, 256 * 4), *y = make(device, 256 * 4);
  if (!kernel || !x || !y) return;
  CHECK_OK(agpu_buffer_fill(NULL, x, 0, 256 * 4, &(float){2.0f}, 4));
  CHECK_OK(agpu_buffer_fill(NULL, y, 0, 256 * 4, &(float){1.0f}, 4));
  agpu_arg args[] = {agpu_arg_u32(256), agpu_arg_f32(4.0f), agpu_arg_buffer(x), agpu_arg_buffer(y)};
  size_t global = 256, local = 64;
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 4, args));
  CHECK_OK(agpu_kernel_release(kernel));
  CHECK_OK(agpu_program_release(program));
  CHECK_OK(agpu_buffer_release(x));
  float out[256];
  CHECK_OK(agpu_buffer_read(NULL, y, 0, sizeof out, out));
  int wrong = 0;
  for (int i = 0; i < 256; i++) wrong += out[i] != 9.0f;
  CHECK(wrong == 0);
  CHECK_OK(agpu_buffer_release(y));
}

static void vulkan_build_errors(void) {
  REQUIRE_DEVICE(device, "vulkan");
  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = "__kernel void k(__global int *p) { p[0] = q; }",
                            .source_name = "bad.cl"};
  CHECK_STATUS(agpu_program_build(device, &desc, &program), AGPU_ERROR_BUILD_FAILED);
  CHECK_MESSAGE("bad.cl:1:");
  if (!build(device)) return;
  agpu_kernel *kernel = NULL;
  CHECK_STATUS(agpu_kernel_create(program_g, "nope", &kernel), AGPU_ERROR_NOT_FOUND);
  CHECK_MESSAGE("saxpy");
}

int main(void) {
  RUN(vulkan_saxpy);
  RUN(vulkan_more_groups_than_the_limit);
  RUN(vulkan_2d);
  RUN(vulkan_local_parameter);
  RUN(vulkan_block_in_a_buffer);
  RUN(vulkan_more_buffers_than_bindings);
  RUN(vulkan_many_launches_in_order);
  RUN(vulkan_native_spirv);
  RUN(vulkan_release_before_finish);
  RUN(vulkan_build_errors);
  if (program_g) agpu_program_release(program_g);
  return agpu_test_finish();
}
