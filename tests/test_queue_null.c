// SPDX-License-Identifier: Apache-2.0
/* Where a NULL queue means a default queue (api/anygpu.h, docs/api.md), on
 * every device present: transfers and launches take the buffer's or the
 * kernel's device, agpu_queue_finish(NULL) waits for every default queue,
 * agpu_device_finish waits for the default queue and the user's queues, and
 * agpu_event_record(NULL) is refused saying what to pass. */
#include "agpu_test.h"

static const char source[] =
    "__kernel void add_one(__global float *x, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) x[i] += 1.0f;\n"
    "}\n";

enum { N = 4096 };

static void null_queue_rules(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no device %s", selector);
  agpu_buffer *x = NULL, *y = NULL;
  CHECK_OK(agpu_buffer_create(device, N * sizeof(float), 0, &x));
  CHECK_OK(agpu_buffer_create(device, N * sizeof(float), 0, &y));
  if (!x || !y) return;
  float host[N];
  for (int i = 0; i < N; i++) host[i] = (float)i;
  CHECK_OK(agpu_buffer_write(NULL, x, 0, sizeof host, host));
  const float two = 2.0f;
  CHECK_OK(agpu_buffer_fill(NULL, y, 0, sizeof host, &two, sizeof two));

  agpu_program *program = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "add_one.cl"};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  agpu_kernel *kernel = NULL;
  if (program) CHECK_OK(agpu_kernel_create(program, "add_one", &kernel));
  if (!kernel) return;
  size_t global = N, local = 64;
  agpu_arg args[] = {agpu_arg_buffer(x), agpu_arg_u32(N)};
  /* A NULL queue: the kernel's device's default queue; then every default queue. */
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 2, args));
  CHECK_OK(agpu_queue_finish(NULL));

  /* A user queue, waited for through the device. */
  agpu_queue *queue = NULL;
  CHECK_OK(agpu_queue_create(device, &queue));
  CHECK_OK(agpu_launch(queue, kernel, 1, &global, &local, 2, args));
  CHECK_OK(agpu_buffer_copy(queue, x, 0, y, 0, sizeof host));
  CHECK_OK(agpu_device_finish(device));
  float back[N];
  CHECK_OK(agpu_buffer_read(NULL, y, 0, sizeof back, back));
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += back[i] != (float)i + 2.0f;
  if (wrong) printf("  %s: %d of %d elements wrong (y[1] = %g)\n", selector, wrong, N, back[1]);
  CHECK(wrong == 0);

  /* A released queue leaves the device's list. */
  CHECK_OK(agpu_queue_release(queue));
  CHECK_OK(agpu_device_finish(device));

  /* An event needs a queue: NULL names no device. */
  agpu_event *event = NULL;
  CHECK_STATUS(agpu_event_record(NULL, &event), AGPU_ERROR_INVALID_HANDLE);
  CHECK_MESSAGE("agpu_event_record: queue is NULL");
  CHECK_MESSAGE("agpu_device_default_queue");
  agpu_queue *default_queue = NULL;
  CHECK_OK(agpu_device_default_queue(device, &default_queue));
  CHECK_OK(agpu_event_record(default_queue, &event));
  if (event) CHECK_OK(agpu_event_release(event));

  CHECK_STATUS(agpu_device_finish(NULL), AGPU_ERROR_INVALID_HANDLE);
  CHECK_MESSAGE("agpu_device_finish: device is NULL");
  agpu_kernel_release(kernel);
  agpu_program_release(program);
  agpu_buffer_release(x);
  agpu_buffer_release(y);
}

static void on_cpu(void) {
  null_queue_rules("cpu:0");
}
static void on_opencl(void) {
  null_queue_rules("opencl:0");
}
static void on_vulkan(void) {
  null_queue_rules("vulkan:0");
}
static void on_cuda(void) {
  null_queue_rules("cuda:0");
}
static void on_hip(void) {
  null_queue_rules("hip:0");
}

int main(void) {
  RUN(on_cpu);
  RUN(on_opencl);
  RUN(on_vulkan);
  RUN(on_cuda);
  RUN(on_hip);
  return agpu_test_finish();
}
