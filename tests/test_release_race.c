// SPDX-License-Identifier: Apache-2.0
/* A buffer released on one thread while another launches with it or
 * transfers to it (issue 33, item 13): the launch and transfers pin their
 * buffers, so either they resolve the handle first (and the buffer is
 * freed when they are done with it) or they are told it was released;
 * never a use after free (this test is in the ASan stage, where the race
 * was a heap-use-after-free on every backend). Every device present; the
 * allocated bytes return to where they started, and the kernel still
 * computes right on buffers nobody releases. */
#include <pthread.h>
#include <stdatomic.h>

#include "agpu_test.h"

static const char source[] =
    "__kernel void bump(__global uint *x, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) x[i] = x[i] * 3u + (uint)i;\n"
    "}\n";

enum { N = 1000, ROUNDS = 300 };

typedef struct race {
  agpu_buffer *buffer;
  atomic_int go;
  agpu_status release_status;
} race;

static void *release_when_told(void *data) {
  race *r = data;
  while (!atomic_load(&r->go)) {
  }
  r->release_status = agpu_buffer_release(r->buffer);
  return NULL;
}

static bool acceptable(agpu_status status) {
  return status == AGPU_SUCCESS || status == AGPU_ERROR_INVALID_HANDLE;
}

static void race_on(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) SKIP("no device %s", selector);
  agpu_memory_info before, after;
  CHECK_OK(agpu_device_memory(device, &before));
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  agpu_program_desc desc = {.source = source, .source_name = "bump.cl"};
  CHECK_OK(agpu_program_build(device, &desc, &program));
  if (program) CHECK_OK(agpu_kernel_create(program, "bump", &kernel));
  if (!kernel) return;
  size_t global = 1024, local = 64;
  int launched = 0, refused = 0, bad = 0;
  for (int round = 0; round < ROUNDS; round++) {
    race r = {.go = 0};
    if (agpu_buffer_create(device, N * sizeof(uint32_t), 0, &r.buffer) != AGPU_SUCCESS) {
      bad++;
      break;
    }
    pthread_t releaser;
    pthread_create(&releaser, NULL, release_when_told, &r);
    atomic_store(&r.go, 1);
    agpu_arg args[] = {agpu_arg_buffer(r.buffer), agpu_arg_u32(N)};
    for (int i = 0; i < 4; i++) {
      agpu_status status = round % 2 ? agpu_launch(NULL, kernel, 1, &global, &local, 2, args)
                                     : agpu_buffer_fill(NULL, r.buffer, 0, 64, &round, 4);
      if (!acceptable(status)) {
        if (!bad++) printf("  %s: %s\n", selector, agpu_last_error());
      }
      status == AGPU_SUCCESS ? launched++ : refused++;
    }
    pthread_join(releaser, NULL);
    if (r.release_status != AGPU_SUCCESS) bad++;
  }
  CHECK_OK(agpu_queue_finish(NULL));
  printf("  %s: %d calls ran, %d were told the buffer was released\n", selector, launched, refused);
  CHECK(bad == 0);
  CHECK_OK(agpu_device_memory(device, &after));
  CHECK(after.allocated_bytes == before.allocated_bytes);

  /* the pins leave ordinary launches right */
  uint32_t host[N], back[N];
  uint64_t state = 42;
  for (int i = 0; i < N; i++) host[i] = (uint32_t)agpu_test_rand(&state), back[i] = 0xdeadbeef;
  agpu_buffer *x = NULL;
  CHECK_OK(agpu_buffer_create(device, sizeof host, 0, &x));
  CHECK_OK(agpu_buffer_write(NULL, x, 0, sizeof host, host));
  agpu_arg args[] = {agpu_arg_buffer(x), agpu_arg_u32(N)};
  CHECK_OK(agpu_launch(NULL, kernel, 1, &global, &local, 2, args));
  CHECK_OK(agpu_buffer_read(NULL, x, 0, sizeof back, back));
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += back[i] != host[i] * 3u + (uint32_t)i;
  CHECK(wrong == 0);
  CHECK_OK(agpu_buffer_release(x));
  agpu_kernel_release(kernel);
  agpu_program_release(program);
}

static void cpu(void) {
  race_on("cpu:0");
}
static void opencl(void) {
  race_on("opencl:0");
}
static void vulkan(void) {
  race_on("vulkan:0");
}

int main(void) {
  RUN(cpu);
  RUN(opencl);
  RUN(vulkan);
  return agpu_test_finish();
}
