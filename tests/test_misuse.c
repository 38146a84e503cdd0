// SPDX-License-Identifier: Apache-2.0
/* The API misuse matrix: every public function called with NULL, released,
 * foreign and wrong-type handles, bad sizes and ranges, and bad launches, on
 * every device present. Each row checks the documented status and that the
 * message names the function and says what was wrong (docs/reliability.md). */
#include <stdint.h>

#include "agpu_test.h"

static int rows_checked;

/* Checks one row: the status, a message, and every key word in it. */
static void check_row(int line, const char *call, agpu_status got, agpu_status expected,
                      const char *const *words) {
  rows_checked++;
  const char *message = agpu_last_error();
  if (got != expected) {
    printf("  FAIL line %d: %s: %s returned %s, expected %s: %s\n", line, agpu_test_g.case_name,
           call, agpu_status_name(got), agpu_status_name(expected), message);
    agpu_test_g.case_failed = 1;
    return;
  }
  if (expected == AGPU_SUCCESS) return;
  if (!message[0]) {
    printf("  FAIL line %d: %s: %s: empty message\n", line, agpu_test_g.case_name, call);
    agpu_test_g.case_failed = 1;
  }
  for (; *words; words++) {
    if (!strstr(message, *words)) {
      printf("  FAIL line %d: %s: %s: message \"%s\" lacks \"%s\"\n", line, agpu_test_g.case_name,
             call, message, *words);
      agpu_test_g.case_failed = 1;
    }
  }
}

#define ROW(call, expected, ...) \
  check_row(__LINE__, #call, (call), (expected), (const char *const[]){__VA_ARGS__, NULL})

/* A message check for functions that return no status. */
#define ROW_MESSAGE(call, ...)                                                       \
  do {                                                                               \
    (void)(call);                                                                    \
    check_row(__LINE__, #call, AGPU_ERROR_INVALID_HANDLE, AGPU_ERROR_INVALID_HANDLE, \
              (const char *const[]){__VA_ARGS__, NULL});                             \
  } while (0)

static const char kernel_source[] =
    "__kernel void fill(__global float *x, float a, __local float *scratch, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  scratch[get_local_id(0)] = a;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (i < n) x[i] = scratch[get_local_id(0)];\n"
    "}\n";

/* Live objects of one device, and dead and foreign values to pass instead. */
typedef struct fixture {
  agpu_device *device;
  agpu_device_info info;
  agpu_device *other; /* another device, or NULL */
  agpu_buffer *buffer, *other_buffer, *released_buffer;
  agpu_queue *queue, *other_queue, *released_queue;
  agpu_program *program, *released_program;
  agpu_kernel *kernel, *released_kernel;
  agpu_event *event, *released_event;
  void *foreign_heap; /* a heap pointer that was never a handle */
  int foreign_stack;
} fixture;

static bool fixture_open(fixture *f, agpu_device *device, agpu_device *other) {
  memset(f, 0, sizeof *f);
  f->device = device;
  f->other = other;
  CHECK_OK(agpu_device_get_info(device, &f->info));
  CHECK_OK(agpu_buffer_create(device, 1024, 0, &f->buffer));
  CHECK_OK(agpu_buffer_create(device, 64, 0, &f->released_buffer));
  CHECK_OK(agpu_buffer_release(f->released_buffer));
  CHECK_OK(agpu_queue_create(device, &f->queue));
  CHECK_OK(agpu_queue_create(device, &f->released_queue));
  CHECK_OK(agpu_queue_release(f->released_queue));
  agpu_program_desc desc = {.source = kernel_source, .source_name = "misuse.cl"};
  CHECK_OK(agpu_program_build(device, &desc, &f->program));
  CHECK_OK(agpu_program_build(device, &desc, &f->released_program));
  CHECK_OK(agpu_program_release(f->released_program));
  CHECK_OK(agpu_kernel_create(f->program, "fill", &f->kernel));
  CHECK_OK(agpu_kernel_create(f->program, "fill", &f->released_kernel));
  CHECK_OK(agpu_kernel_release(f->released_kernel));
  CHECK_OK(agpu_event_record(f->queue, &f->event));
  agpu_event *dead = NULL;
  CHECK_OK(agpu_event_record(f->queue, &dead));
  CHECK_OK(agpu_event_release(dead));
  f->released_event = dead;
  if (other) {
    CHECK_OK(agpu_buffer_create(other, 1024, 0, &f->other_buffer));
    CHECK_OK(agpu_queue_create(other, &f->other_queue));
  }
  f->foreign_heap = malloc(256);
  memset(f->foreign_heap, 0xA6, 256); /* looks like nothing in particular */
  return f->buffer && f->queue && f->kernel && f->event && f->foreign_heap;
}

static void fixture_close(fixture *f) {
  agpu_event_release(f->event);
  agpu_kernel_release(f->kernel);
  agpu_program_release(f->program);
  agpu_queue_release(f->queue);
  agpu_buffer_release(f->buffer);
  if (f->other_buffer) agpu_buffer_release(f->other_buffer);
  if (f->other_queue) agpu_queue_release(f->other_queue);
  free(f->foreign_heap);
}

/* The same four bad handles for every function that takes a buffer. */
#define BAD_BUFFERS(f, fn, argname, CALL)                                                      \
  do {                                                                                         \
    agpu_buffer *bad_;                                                                         \
    bad_ = NULL;                                                                               \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, argname " is NULL");                              \
    bad_ = (f)->released_buffer;                                                               \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, argname, "released");                             \
    bad_ = (agpu_buffer *)(f)->foreign_heap;                                                   \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, argname, "not an anygpu handle");                 \
    bad_ = (agpu_buffer *)&(f)->foreign_stack;                                                 \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, argname, "not an anygpu handle");                 \
    bad_ = (agpu_buffer *)(f)->queue;                                                          \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, argname, "a queue where a buffer was expected");  \
    bad_ = (agpu_buffer *)(f)->device;                                                         \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, argname, "a device where a buffer was expected"); \
  } while (0)

#define BAD_QUEUES(f, fn, CALL)                                                               \
  do {                                                                                        \
    agpu_queue *badq_;                                                                        \
    badq_ = (f)->released_queue;                                                              \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, "queue", "released");                            \
    badq_ = (agpu_queue *)(f)->foreign_heap;                                                  \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, "queue", "not an anygpu handle");                \
    badq_ = (agpu_queue *)(f)->buffer;                                                        \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, "queue", "a buffer where a queue was expected"); \
    badq_ = (agpu_queue *)(f)->event;                                                         \
    ROW(CALL, AGPU_ERROR_INVALID_HANDLE, fn, "queue", "an event where a queue was expected"); \
  } while (0)

static void device_rows(fixture *f) {
  agpu_device_info info;
  agpu_memory_info memory;
  agpu_queue *queue;
  uint32_t index;
  agpu_device *bad;
  for (int which = 0; which < 4; which++) {
    bad = which == 0   ? NULL
          : which == 1 ? (agpu_device *)f->foreign_heap
          : which == 2 ? (agpu_device *)&f->foreign_stack
                       : (agpu_device *)f->buffer;
    const char *why = which == 0   ? "device is NULL"
                      : which == 3 ? "a buffer where a device was expected"
                                   : "is not an anygpu device";
    ROW(agpu_device_get_info(bad, &info), AGPU_ERROR_INVALID_HANDLE, "agpu_device_get_info", why);
    ROW(agpu_device_memory(bad, &memory), AGPU_ERROR_INVALID_HANDLE, "agpu_device_memory", why);
    ROW(agpu_queue_create(bad, &queue), AGPU_ERROR_INVALID_HANDLE, "agpu_queue_create", why);
    ROW(agpu_device_default_queue(bad, &queue), AGPU_ERROR_INVALID_HANDLE,
        "agpu_device_default_queue", why);
    ROW(agpu_device_finish(bad), AGPU_ERROR_INVALID_HANDLE, "agpu_device_finish", why);
    agpu_buffer *buffer;
    ROW(agpu_buffer_create(bad, 64, 0, &buffer), AGPU_ERROR_INVALID_HANDLE, "agpu_buffer_create",
        why);
    agpu_program_desc desc = {.source = kernel_source};
    agpu_program *program;
    ROW(agpu_program_build(bad, &desc, &program), AGPU_ERROR_INVALID_HANDLE, "agpu_program_build",
        why);
    ROW(agpu_program_create_native(bad, AGPU_NATIVE_OPENCL_C, "x", 1, NULL, &program),
        AGPU_ERROR_INVALID_HANDLE, "agpu_program_create_native", why);
    ROW(agpu_device_physical_index(bad, &index), AGPU_ERROR_INVALID_HANDLE,
        "agpu_device_physical_index", why);
  }
  ROW(agpu_device_get_info(f->device, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_get_info",
      "info is NULL");
  ROW(agpu_device_memory(f->device, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_memory",
      "info is NULL");
  ROW(agpu_queue_create(f->device, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_queue_create",
      "queue is NULL");
  ROW(agpu_device_default_queue(f->device, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_device_default_queue", "queue is NULL");
  ROW(agpu_device_physical_index(f->device, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_device_physical_index", "index is NULL");
}

static void buffer_create_rows(fixture *f) {
  agpu_buffer *buffer = (agpu_buffer *)f->foreign_heap;
  ROW(agpu_buffer_create(f->device, 0, 0, &buffer), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_create", "size is 0");
  CHECK(buffer == NULL); /* the out value is cleared on failure */
  ROW(agpu_buffer_create(f->device, 64, 0, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_buffer_create",
      "buffer is NULL");
  ROW(agpu_buffer_create(f->device, 64, 1u << 30, &buffer), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_create", "unknown flags");
  ROW(agpu_buffer_create(f->device, 64, AGPU_BUFFER_READ_ONLY | AGPU_BUFFER_WRITE_ONLY, &buffer),
      AGPU_ERROR_INVALID_ARGUMENT, "agpu_buffer_create", "READ_ONLY and WRITE_ONLY");
  /* Larger than the device: out of memory, with the figures asked and allowed. */
  char requested[64], available[64];
  snprintf(requested, sizeof requested, "%zu bytes", SIZE_MAX);
  snprintf(available, sizeof available, "%llu bytes available",
           (unsigned long long)f->info.max_alloc_bytes);
  ROW(agpu_buffer_create(f->device, SIZE_MAX, 0, &buffer), AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
      "agpu_buffer_create", "requested", requested, available, f->info.selector);
  if (f->info.max_alloc_bytes < SIZE_MAX) {
    size_t just_over = (size_t)f->info.max_alloc_bytes + 1;
    snprintf(requested, sizeof requested, "%zu bytes", just_over);
    ROW(agpu_buffer_create(f->device, just_over, 0, &buffer), AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
        "agpu_buffer_create", "requested", requested, available);
  }
}

/* agpu_buffer_device_address: the host pointer on the CPU backend (what
 * map gives), a refusal by name where the backend has no plain address. */
static void device_address_rows(fixture *f) {
  uint64_t address = 1;
  ROW(agpu_buffer_device_address(f->buffer, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_device_address", "NULL");
  agpu_backend_info backend;
  CHECK_OK(agpu_backend_get_info(f->info.backend, &backend));
  bool plain =
      !strcmp(backend.name, "cpu") || !strcmp(backend.name, "cuda") || !strcmp(backend.name, "hip");
  if (!plain) {
    ROW(agpu_buffer_device_address(f->buffer, &address), AGPU_ERROR_UNSUPPORTED,
        "agpu_buffer_device_address", f->info.selector, "no plain device address");
    CHECK(address == 0);
    return;
  }
  ROW(agpu_buffer_device_address(f->buffer, &address), AGPU_SUCCESS, "");
  CHECK(address != 0);
  void *mapped = NULL;
  if (!strcmp(backend.name, "cpu") && agpu_buffer_map(NULL, f->buffer, 0, 64, &mapped) == 0) {
    CHECK((uint64_t)(uintptr_t)mapped == address);
    CHECK_OK(agpu_buffer_unmap(NULL, f->buffer, mapped));
  }
}

static void buffer_handle_rows(fixture *f) {
  uint8_t host[64] = {0};
  void *mapped = NULL;
  BAD_BUFFERS(f, "agpu_buffer_release", "buffer", agpu_buffer_release(bad_));
  BAD_BUFFERS(f, "agpu_buffer_write", "buffer", agpu_buffer_write(NULL, bad_, 0, 4, host));
  BAD_BUFFERS(f, "agpu_buffer_read", "buffer", agpu_buffer_read(NULL, bad_, 0, 4, host));
  BAD_BUFFERS(f, "agpu_buffer_copy", "src", agpu_buffer_copy(NULL, bad_, 0, f->buffer, 0, 4));
  BAD_BUFFERS(f, "agpu_buffer_copy", "dst", agpu_buffer_copy(NULL, f->buffer, 0, bad_, 0, 4));
  BAD_BUFFERS(f, "agpu_buffer_fill", "buffer", agpu_buffer_fill(NULL, bad_, 0, 4, host, 4));
  BAD_BUFFERS(f, "agpu_buffer_map", "buffer", agpu_buffer_map(NULL, bad_, 0, 4, &mapped));
  BAD_BUFFERS(f, "agpu_buffer_unmap", "buffer", agpu_buffer_unmap(NULL, bad_, host));
  uint64_t address = 1;
  BAD_BUFFERS(f, "agpu_buffer_device_address", "buffer",
              agpu_buffer_device_address(bad_, &address));
  /* Functions that return a value instead of a status set the message too. */
  CHECK(agpu_buffer_size(f->released_buffer) == 0);
  ROW_MESSAGE(agpu_buffer_size(f->released_buffer), "agpu_buffer_size", "released");
  CHECK(agpu_buffer_device((agpu_buffer *)f->foreign_heap) == NULL);
  ROW_MESSAGE(agpu_buffer_device((agpu_buffer *)f->foreign_heap), "agpu_buffer_device",
              "not an anygpu handle");
  CHECK(agpu_buffer_size(f->buffer) == 1024);
  CHECK(agpu_buffer_device(f->buffer) == f->device);
  /* Double release. */
  agpu_buffer *twice = NULL;
  CHECK_OK(agpu_buffer_create(f->device, 64, 0, &twice));
  CHECK_OK(agpu_buffer_release(twice));
  ROW(agpu_buffer_release(twice), AGPU_ERROR_INVALID_HANDLE, "agpu_buffer_release",
      "already released");
}

static void transfer_rows(fixture *f) {
  uint8_t host[2048] = {0};
  const size_t size = 1024;
  /* Ranges: past the end, offset + size overflowing, offset past the end. */
  ROW(agpu_buffer_write(NULL, f->buffer, size - 4, 8, host), AGPU_ERROR_OUT_OF_RANGE,
      "agpu_buffer_write", "past the end", "1024 bytes");
  ROW(agpu_buffer_read(NULL, f->buffer, size - 4, 8, host), AGPU_ERROR_OUT_OF_RANGE,
      "agpu_buffer_read", "past the end");
  ROW(agpu_buffer_read(NULL, f->buffer, 0, size + 1, host), AGPU_ERROR_OUT_OF_RANGE,
      "agpu_buffer_read", "past the end");
  ROW(agpu_buffer_read(NULL, f->buffer, 8, SIZE_MAX - 4, host), AGPU_ERROR_OUT_OF_RANGE,
      "agpu_buffer_read", "past the end");
  ROW(agpu_buffer_write(NULL, f->buffer, SIZE_MAX, 1, host), AGPU_ERROR_OUT_OF_RANGE,
      "agpu_buffer_write", "past the end");
  ROW(agpu_buffer_read(NULL, f->buffer, SIZE_MAX, SIZE_MAX, host), AGPU_ERROR_OUT_OF_RANGE,
      "agpu_buffer_read", "past the end");
  ROW(agpu_buffer_copy(NULL, f->buffer, 4, f->buffer, 512, SIZE_MAX - 2), AGPU_ERROR_OUT_OF_RANGE,
      "agpu_buffer_copy", "past the end");
  ROW(agpu_buffer_fill(NULL, f->buffer, 1020, 8, host, 4), AGPU_ERROR_OUT_OF_RANGE,
      "agpu_buffer_fill", "past the end");
  /* Zero sizes are no-ops, and NULL host pointers with them are fine. */
  ROW(agpu_buffer_write(NULL, f->buffer, size, 0, NULL), AGPU_SUCCESS, "");
  ROW(agpu_buffer_read(NULL, f->buffer, 0, 0, NULL), AGPU_SUCCESS, "");
  ROW(agpu_buffer_copy(NULL, f->buffer, 0, f->buffer, 0, 0), AGPU_SUCCESS, "");
  /* Host pointers. */
  ROW(agpu_buffer_write(NULL, f->buffer, 0, 4, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_write", "host pointer is NULL");
  ROW(agpu_buffer_read(NULL, f->buffer, 0, 4, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_read", "host pointer is NULL");
  ROW(agpu_buffer_fill(NULL, f->buffer, 0, 4, NULL, 4), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_fill", "host pointer is NULL");
  /* Fill patterns. */
  ROW(agpu_buffer_fill(NULL, f->buffer, 0, 12, host, 3), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_fill", "pattern_size 3");
  ROW(agpu_buffer_fill(NULL, f->buffer, 2, 8, host, 4), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_fill", "multiples of the pattern size");
  /* Overlapping copy within one buffer. */
  ROW(agpu_buffer_copy(NULL, f->buffer, 0, f->buffer, 8, 16), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_copy", "overlap");
  /* Bad queues. */
  BAD_QUEUES(f, "agpu_buffer_write", agpu_buffer_write(badq_, f->buffer, 0, 4, host));
  BAD_QUEUES(f, "agpu_buffer_read", agpu_buffer_read(badq_, f->buffer, 0, 4, host));
  BAD_QUEUES(f, "agpu_buffer_copy", agpu_buffer_copy(badq_, f->buffer, 0, f->buffer, 64, 4));
  BAD_QUEUES(f, "agpu_buffer_fill", agpu_buffer_fill(badq_, f->buffer, 0, 4, host, 4));
  /* Map: a NULL out pointer, size 0, and unmapping what was never mapped. */
  void *mapped = (void *)1;
  ROW(agpu_buffer_map(NULL, f->buffer, 0, 4, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_buffer_map");
  ROW(agpu_buffer_map(NULL, f->buffer, 0, 0, &mapped), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_map", "size is 0");
  CHECK(mapped == NULL);
  ROW(agpu_buffer_map(NULL, f->buffer, 1000, 100, &mapped), AGPU_ERROR_OUT_OF_RANGE,
      "agpu_buffer_map", "past the end");
  ROW(agpu_buffer_unmap(NULL, f->buffer, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_buffer_unmap",
      "NULL");
  uint8_t *never = host + 16;
  agpu_status unmap_expected = AGPU_ERROR_INVALID_ARGUMENT;
  if (agpu_buffer_map(NULL, f->buffer, 0, 64, &mapped) == AGPU_SUCCESS) {
    never = (uint8_t *)mapped + 4; /* inside the mapping, but not what map returned */
    ROW(agpu_buffer_unmap(NULL, f->buffer, never), AGPU_ERROR_INVALID_ARGUMENT, "agpu_buffer_unmap",
        "was not mapped");
    ROW(agpu_buffer_unmap(NULL, f->buffer, mapped), AGPU_SUCCESS, "");
    ROW(agpu_buffer_unmap(NULL, f->buffer, mapped), AGPU_ERROR_INVALID_ARGUMENT,
        "agpu_buffer_unmap", "was not mapped", "unmapped already");
  } else {
    CHECK(strstr(agpu_last_error(), "cannot map") != NULL);
    unmap_expected = AGPU_ERROR_UNSUPPORTED;
  }
  ROW(agpu_buffer_unmap(NULL, f->buffer, host), unmap_expected, "agpu_buffer_unmap");
  device_address_rows(f);
}

static void cross_device_rows(fixture *f) {
  if (!f->other) {
    printf("  (no second device: cross-device rows not run)\n");
    return;
  }
  uint8_t host[16] = {0};
  ROW(agpu_buffer_write(f->other_queue, f->buffer, 0, 4, host), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_write", "belongs to", f->info.selector);
  ROW(agpu_buffer_read(f->other_queue, f->buffer, 0, 4, host), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_read", "belongs to");
  ROW(agpu_buffer_copy(NULL, f->buffer, 0, f->other_buffer, 0, 4), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_copy", "copy between devices through the host");
  ROW(agpu_buffer_fill(f->other_queue, f->buffer, 0, 4, host, 4), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_buffer_fill", "belongs to");
  agpu_event *theirs = NULL;
  CHECK_OK(agpu_event_record(f->other_queue, &theirs));
  uint64_t ns;
  ROW(agpu_event_elapsed_ns(f->event, theirs, &ns), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_event_elapsed_ns", "different devices");
  agpu_event_release(theirs);
  agpu_arg args[4] = {agpu_arg_buffer(f->other_buffer), agpu_arg_f32(1.0f), agpu_arg_local(16),
                      agpu_arg_u32(4)};
  const size_t global = 4, local = 4;
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "argument 0", "the buffer is on");
  args[0] = agpu_arg_buffer(f->buffer);
  ROW(agpu_launch(f->other_queue, f->kernel, 1, &global, &local, 4, args),
      AGPU_ERROR_INVALID_LAUNCH, "agpu_launch", "the queue is on");
}

static void queue_and_event_rows(fixture *f) {
  agpu_event *event;
  ROW(agpu_queue_release(NULL), AGPU_ERROR_INVALID_HANDLE, "agpu_queue_release", "queue is NULL");
  ROW(agpu_event_record(NULL, &event), AGPU_ERROR_INVALID_HANDLE, "agpu_event_record",
      "queue is NULL", "agpu_device_default_queue");
  BAD_QUEUES(f, "agpu_queue_release", agpu_queue_release(badq_));
  BAD_QUEUES(f, "agpu_queue_finish", agpu_queue_finish(badq_));
  BAD_QUEUES(f, "agpu_event_record", agpu_event_record(badq_, &event));
  ROW(agpu_event_record(f->queue, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_event_record",
      "event is NULL");
  /* Events. */
  agpu_event *bad[] = {NULL, f->released_event, (agpu_event *)f->foreign_heap,
                       (agpu_event *)f->queue};
  const char *why[] = {"is NULL", "released", "not an anygpu handle",
                       "a queue where an event was expected"};
  uint64_t ns;
  for (int i = 0; i < 4; i++) {
    ROW(agpu_event_wait(bad[i]), AGPU_ERROR_INVALID_HANDLE, "agpu_event_wait", "event", why[i]);
    ROW(agpu_event_release(bad[i]), AGPU_ERROR_INVALID_HANDLE, "agpu_event_release", "event",
        why[i]);
    ROW(agpu_event_elapsed_ns(bad[i], f->event, &ns), AGPU_ERROR_INVALID_HANDLE,
        "agpu_event_elapsed_ns", "start", why[i]);
    ROW(agpu_event_elapsed_ns(f->event, bad[i], &ns), AGPU_ERROR_INVALID_HANDLE,
        "agpu_event_elapsed_ns", "end", why[i]);
  }
  ROW(agpu_event_elapsed_ns(f->event, f->event, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_event_elapsed_ns", "ns is NULL");
  /* Double release of a queue; the default queue's release is a no-op. */
  agpu_queue *queue = NULL, *default_queue = NULL;
  CHECK_OK(agpu_queue_create(f->device, &queue));
  CHECK_OK(agpu_queue_release(queue));
  ROW(agpu_queue_release(queue), AGPU_ERROR_INVALID_HANDLE, "agpu_queue_release",
      "already released");
  CHECK_OK(agpu_device_default_queue(f->device, &default_queue));
  CHECK_OK(agpu_queue_release(default_queue));
  CHECK_OK(agpu_queue_finish(default_queue));
  /* A queue released before its events: the events still work. */
  agpu_event *start = NULL, *end = NULL;
  CHECK_OK(agpu_queue_create(f->device, &queue));
  CHECK_OK(agpu_event_record(queue, &start));
  CHECK_OK(agpu_event_record(queue, &end));
  CHECK_OK(agpu_queue_release(queue));
  ROW(agpu_queue_finish(queue), AGPU_ERROR_INVALID_HANDLE, "agpu_queue_finish", "released");
  CHECK_OK(agpu_event_wait(end));
  CHECK_OK(agpu_event_elapsed_ns(start, end, &ns));
  CHECK_OK(agpu_event_release(start));
  CHECK_OK(agpu_event_release(end));
  ROW(agpu_event_release(end), AGPU_ERROR_INVALID_HANDLE, "agpu_event_release", "already released");
}

static void program_rows(fixture *f) {
  agpu_program *program = (agpu_program *)f->foreign_heap;
  agpu_program_desc desc = {.source = kernel_source};
  ROW(agpu_program_build(f->device, NULL, &program), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_program_build", "no source");
  CHECK(program == NULL);
  agpu_program_desc empty = {0};
  ROW(agpu_program_build(f->device, &empty, &program), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_program_build", "no source");
  ROW(agpu_program_build(f->device, &desc, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_program_build",
      "program is NULL");
  agpu_program_desc broken = {.source = "__kernel void k(__global float *x) { x[0] = y; }",
                              .source_name = "broken.cl"};
  ROW(agpu_program_build(f->device, &broken, &program), AGPU_ERROR_BUILD_FAILED, "broken.cl",
      "error");
  ROW(agpu_program_create_native(f->device, AGPU_NATIVE_SPIRV, NULL, 4, NULL, &program),
      AGPU_ERROR_INVALID_ARGUMENT, "agpu_program_create_native", "no data");
  ROW(agpu_program_create_native(f->device, AGPU_NATIVE_SPIRV, "abcd", 0, NULL, &program),
      AGPU_ERROR_INVALID_ARGUMENT, "agpu_program_create_native", "no data");
  ROW(agpu_program_create_native(f->device, (agpu_native_format)99, "abcd", 4, NULL, &program),
      AGPU_ERROR_INVALID_ARGUMENT, "agpu_program_create_native", "unknown format 99");
  ROW(agpu_program_create_native(f->device, AGPU_NATIVE_SPIRV, "abcd", 4, NULL, NULL),
      AGPU_ERROR_INVALID_ARGUMENT, "agpu_program_create_native", "program is NULL");
  /* Garbage in every native format: refused with a message, never a crash.
   * The status depends on the backend (UNSUPPORTED for a format it does not
   * load, else BUILD_FAILED or INVALID_ARGUMENT). */
  static const char garbage[64] = "@@@@ not a program in any format @@@@";
  for (int format = AGPU_NATIVE_OPENCL_C; format <= AGPU_NATIVE_HIP_CODE_OBJECT; format++) {
    agpu_status status = agpu_program_create_native(f->device, (agpu_native_format)format,
                                                    garbage, sizeof garbage, NULL, &program);
    rows_checked++;
    CHECK(status != AGPU_SUCCESS);
    CHECK(strstr(agpu_last_error(), "agpu_program_create_native: ") == agpu_last_error());
    CHECK(program == NULL);
    if (status == AGPU_SUCCESS) agpu_program_release(program);
    printf("    native format %d: %s: %.120s\n", format, agpu_status_name(status),
           agpu_last_error());
  }
  /* Bad program handles. */
  agpu_program *bad[] = {NULL, f->released_program, (agpu_program *)f->foreign_heap,
                         (agpu_program *)f->kernel};
  const char *why[] = {"program is NULL", "released", "not an anygpu handle",
                       "a kernel where a program was expected"};
  agpu_kernel *kernel;
  for (int i = 0; i < 4; i++) {
    ROW(agpu_program_release(bad[i]), AGPU_ERROR_INVALID_HANDLE, "agpu_program_release", why[i]);
    ROW(agpu_kernel_create(bad[i], "fill", &kernel), AGPU_ERROR_INVALID_HANDLE,
        "agpu_kernel_create", why[i]);
    CHECK(strcmp(agpu_program_build_log(bad[i]), "") == 0);
    ROW_MESSAGE(agpu_program_build_log(bad[i]), "agpu_program_build_log", why[i]);
  }
  ROW(agpu_kernel_create(f->program, NULL, &kernel), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_kernel_create", "no kernel name");
  ROW(agpu_kernel_create(f->program, "", &kernel), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_kernel_create", "no kernel name");
  ROW(agpu_kernel_create(f->program, "fill", NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_kernel_create", "kernel is NULL");
  ROW(agpu_kernel_create(f->program, "no_such_kernel", &kernel), AGPU_ERROR_NOT_FOUND,
      "agpu_kernel_create", "no_such_kernel");
  /* Bad kernel handles. */
  agpu_kernel *bad_kernels[] = {NULL, f->released_kernel, (agpu_kernel *)&f->foreign_stack,
                                (agpu_kernel *)f->program};
  const char *kernel_why[] = {"kernel is NULL", "released", "not an anygpu handle",
                              "a program where a kernel was expected"};
  agpu_kernel_info info;
  for (int i = 0; i < 4; i++) {
    ROW(agpu_kernel_release(bad_kernels[i]), AGPU_ERROR_INVALID_HANDLE, "agpu_kernel_release",
        kernel_why[i]);
    ROW(agpu_kernel_get_info(bad_kernels[i], &info), AGPU_ERROR_INVALID_HANDLE,
        "agpu_kernel_get_info", kernel_why[i]);
  }
  ROW(agpu_kernel_get_info(f->kernel, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_kernel_get_info",
      "info is NULL");
  /* Double release; a kernel keeps its released program working. */
  agpu_program *twice = NULL;
  CHECK_OK(agpu_program_build(f->device, &desc, &twice));
  CHECK_OK(agpu_kernel_create(twice, "fill", &kernel));
  CHECK_OK(agpu_program_release(twice));
  ROW(agpu_program_release(twice), AGPU_ERROR_INVALID_HANDLE, "agpu_program_release",
      "already released");
  CHECK_OK(agpu_kernel_get_info(kernel, &info));
  CHECK_OK(agpu_kernel_release(kernel));
  ROW(agpu_kernel_release(kernel), AGPU_ERROR_INVALID_HANDLE, "agpu_kernel_release",
      "already released");
}

static void launch_rows(fixture *f) {
  agpu_arg args[4] = {agpu_arg_buffer(f->buffer), agpu_arg_f32(2.0f), agpu_arg_local(64 * 4),
                      agpu_arg_u32(64)};
  const size_t global = 64, local = 64;
  agpu_arg wrong[4];
#define WITH(i, value) (memcpy(wrong, args, sizeof args), wrong[i] = (value), wrong)
  /* Handles. */
  agpu_kernel *bad_kernels[] = {NULL, f->released_kernel, (agpu_kernel *)f->foreign_heap,
                                (agpu_kernel *)f->buffer};
  const char *kernel_why[] = {"kernel is NULL", "released", "not an anygpu handle",
                              "a buffer where a kernel was expected"};
  for (int i = 0; i < 4; i++)
    ROW(agpu_launch(NULL, bad_kernels[i], 1, &global, &local, 4, args), AGPU_ERROR_INVALID_HANDLE,
        "agpu_launch", kernel_why[i]);
  BAD_QUEUES(f, "agpu_launch", agpu_launch(badq_, f->kernel, 1, &global, &local, 4, args));
  /* A bad buffer inside the arguments names the argument. */
  agpu_buffer *bad_buffers[] = {NULL, f->released_buffer, (agpu_buffer *)f->foreign_heap,
                                (agpu_buffer *)f->queue};
  const char *buffer_why[] = {"is NULL", "released", "not an anygpu handle",
                              "a queue where a buffer was expected"};
  for (int i = 0; i < 4; i++)
    ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4,
                    WITH(0, agpu_arg_buffer(bad_buffers[i]))),
        AGPU_ERROR_INVALID_HANDLE, "agpu_launch", "argument 0 ('x'", buffer_why[i]);
  /* Argument count, kinds and sizes. */
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 3, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "takes 4 arguments, 3 given", "argument 3 ('n'", "missing");
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 5, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "takes 4 arguments, 5 given");
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4, NULL), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "args is NULL");
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4, WITH(1, agpu_arg_buffer(f->buffer))),
      AGPU_ERROR_INVALID_LAUNCH, "agpu_launch", "argument 1 ('a'", "expects a value, got a buffer");
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4, WITH(0, agpu_arg_f32(1.0f))),
      AGPU_ERROR_INVALID_LAUNCH, "agpu_launch", "argument 0 ('x'", "expects a buffer");
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4, WITH(2, agpu_arg_u32(4))),
      AGPU_ERROR_INVALID_LAUNCH, "agpu_launch", "argument 2 ('scratch'", "expects local memory");
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4, WITH(1, agpu_arg_f64(2.0))),
      AGPU_ERROR_INVALID_LAUNCH, "agpu_launch", "argument 1 ('a'", "4-byte value, got 8 bytes");
  agpu_arg huge_value = agpu_arg_f32(1.0f);
  huge_value.size = AGPU_ARG_MAX_VALUE_SIZE + 1;
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4, WITH(1, huge_value)),
      AGPU_ERROR_INVALID_LAUNCH, "agpu_launch", "value size 129");
  agpu_arg bad_kind = agpu_arg_f32(1.0f);
  bad_kind.kind = (agpu_arg_kind)7;
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4, WITH(1, bad_kind)),
      AGPU_ERROR_INVALID_LAUNCH, "agpu_launch", "unknown argument kind 7");
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4, WITH(2, agpu_arg_local(0))),
      AGPU_ERROR_INVALID_LAUNCH, "agpu_launch", "local memory size is 0");
  /* More local memory than the device has. */
  if (f->info.local_mem_bytes && f->info.local_mem_bytes < UINT32_MAX) {
    char has[64];
    snprintf(has, sizeof has, "has %llu", (unsigned long long)f->info.local_mem_bytes);
    ROW(agpu_launch(NULL, f->kernel, 1, &global, &local, 4,
                    WITH(2, agpu_arg_local((size_t)f->info.local_mem_bytes + 4))),
        AGPU_ERROR_INVALID_LAUNCH, "agpu_launch", "bytes of local memory", has);
  }
  /* Sizes: dims, NULL global, zero, not a multiple, beyond the device. */
  ROW(agpu_launch(NULL, f->kernel, 0, &global, &local, 4, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "dims is 0");
  ROW(agpu_launch(NULL, f->kernel, 4, &global, &local, 4, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "dims is 4");
  ROW(agpu_launch(NULL, f->kernel, 1, NULL, &local, 4, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "global is NULL");
  const size_t zero = 0, ragged = 100;
  ROW(agpu_launch(NULL, f->kernel, 1, &zero, &local, 4, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "the global size in dimension 0 is 0");
  ROW(agpu_launch(NULL, f->kernel, 1, &global, &zero, 4, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "the local size in dimension 0 is 0");
  ROW(agpu_launch(NULL, f->kernel, 1, &ragged, &local, 4, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "not a multiple of the local size");
  if (f->info.max_work_item_sizes[0]) {
    const size_t too_wide = (size_t)f->info.max_work_item_sizes[0] * 2;
    ROW(agpu_launch(NULL, f->kernel, 1, &too_wide, &too_wide, 4, args), AGPU_ERROR_INVALID_LAUNCH,
        "agpu_launch", "local size", "exceeds");
  }
  const size_t huge_global = (size_t)1 << 40, one = 1;
  ROW(agpu_launch(NULL, f->kernel, 1, &huge_global, &one, 4, args), AGPU_ERROR_INVALID_LAUNCH,
      "agpu_launch", "work-groups");
  const size_t global3[3] = {64, 2, 1}, local3[3] = {64, 1, 1};
  ROW(agpu_launch(NULL, f->kernel, 1, global3, local3, 4, args), AGPU_SUCCESS, "");
  /* And the right launch works, with the right result. */
  ROW(agpu_launch(f->queue, f->kernel, 1, &global, &local, 4, args), AGPU_SUCCESS, "");
  float out[64];
  CHECK_OK(agpu_buffer_read(f->queue, f->buffer, 0, sizeof out, out));
  agpu_backend_info backend;
  CHECK_OK(agpu_backend_get_info(f->info.backend, &backend));
  if (!backend.testing) /* the null backend validates and records launches, runs none */
    for (int i = 0; i < 64; i++) CHECK(out[i] == 2.0f);
#undef WITH
}

static void translation_rows(fixture *f) {
  agpu_translation *translation = (agpu_translation *)f->foreign_heap;
  agpu_translate_desc desc = {.source = kernel_source, .target = AGPU_TARGET_OPENCL};
  ROW(agpu_translate(NULL, &translation), AGPU_ERROR_INVALID_ARGUMENT, "agpu_translate",
      "no source");
  CHECK(translation == NULL);
  ROW(agpu_translate(&desc, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_translate",
      "translation is NULL");
  desc.target = (agpu_target)42;
  ROW(agpu_translate(&desc, &translation), AGPU_ERROR_INVALID_ARGUMENT, "agpu_translate",
      "unknown target 42");
  desc.target = AGPU_TARGET_OPENCL;
  agpu_translation *released = NULL;
  CHECK_OK(agpu_translate(&desc, &released));
  CHECK(agpu_translation_output(released)[0] != '\0');
  agpu_translation_release(released);
  agpu_translation *bad[] = {NULL, released, (agpu_translation *)f->foreign_heap,
                             (agpu_translation *)f->buffer};
  const char *why[] = {"is NULL", "released", "not an anygpu handle",
                       "a buffer where a translation was expected"};
  for (int i = 0; i < 4; i++) {
    size_t size = 1;
    CHECK(strcmp(agpu_translation_output(bad[i]), "") == 0);
    ROW_MESSAGE(agpu_translation_output(bad[i]), "agpu_translation_output", why[i]);
    CHECK(agpu_translation_binary(bad[i], &size) == NULL && size == 0);
    ROW_MESSAGE(agpu_translation_binary(bad[i], &size), "agpu_translation_binary", why[i]);
    ROW_MESSAGE(agpu_translation_signature_json(bad[i]), "agpu_translation_signature_json", why[i]);
    ROW_MESSAGE(agpu_translation_diagnostics(bad[i]), "agpu_translation_diagnostics", why[i]);
    if (i > 0) ROW_MESSAGE(agpu_translation_release(bad[i]), "agpu_translation_release", why[i]);
  }
  agpu_translation_release(NULL); /* like free(NULL) */
}

static void registry_rows(void) {
  agpu_backend_info info;
  uint32_t index, count;
  const char *name, *error;
  ROW(agpu_backend_get_info(0, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_backend_get_info",
      "info is NULL");
  ROW(agpu_backend_get_info(99, &info), AGPU_ERROR_INVALID_ARGUMENT, "agpu_backend_get_info",
      "index 99 out of range");
  ROW(agpu_backend_find(NULL, &index), AGPU_ERROR_INVALID_ARGUMENT, "agpu_backend_find", "NULL");
  ROW(agpu_backend_find("cpu", NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_backend_find", "NULL");
  ROW(agpu_backend_find("metal", &index), AGPU_ERROR_NOT_FOUND, "unknown backend 'metal'");
  ROW(agpu_device_count(NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_count", "count is NULL");
  agpu_device *device = NULL;
  ROW(agpu_device_get(0, NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_get", "device is NULL");
  ROW(agpu_device_get(UINT32_MAX, &device), AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_get",
      "out of range");
  ROW(agpu_device_select("cpu:0", NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_device_select",
      "device is NULL");
  ROW(agpu_device_select("cpu:99", &device), AGPU_ERROR_NOT_FOUND, "cpu:99");
  ROW(agpu_device_select_all("*:*", NULL, 4, &count), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_device_select_all", "devices is NULL");
  ROW(agpu_device_select_all("*:*", NULL, 0, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_device_select_all", "count is NULL");
  ROW(agpu_backend_load_attempt_count(99, &count), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_backend_load_attempt_count", "backend 99 out of range");
  ROW(agpu_backend_load_attempt_count(0, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_backend_load_attempt_count", "count is NULL");
  ROW(agpu_backend_get_load_attempt(99, 0, &name, &error), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_backend_get_load_attempt", "out of range");
  ROW(agpu_backend_get_load_attempt(0, 0, NULL, &error), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_backend_get_load_attempt", "NULL");
  ROW(agpu_backend_get_load_attempt(AGPU_BACKEND_CPU, 9999, &name, &error), AGPU_ERROR_NOT_FOUND,
      "agpu_backend_get_load_attempt", "no attempt 9999");
  agpu_physical_device_info physical;
  ROW(agpu_physical_device_count(NULL), AGPU_ERROR_INVALID_ARGUMENT, "agpu_physical_device_count",
      "count is NULL");
  ROW(agpu_physical_device_get_info(9999, &physical), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_physical_device_get_info");
  ROW(agpu_physical_device_get_info(0, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_physical_device_get_info");
  ROW(agpu_physical_device_member(9999, 0, &device), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_physical_device_member");
  ROW(agpu_physical_device_member(0, 0, NULL), AGPU_ERROR_INVALID_ARGUMENT,
      "agpu_physical_device_member");
  /* Functions of enums answer for any value. */
  CHECK(strcmp(agpu_status_name((agpu_status)12345), "AGPU_STATUS_UNKNOWN") == 0);
  CHECK(strcmp(agpu_device_type_name((agpu_device_type)77), "other") == 0);
  CHECK(agpu_target_name((agpu_target)77) == NULL);
  CHECK(agpu_physical_match_name((agpu_physical_match)77) != NULL);
}

static void run_matrix(const char *selector) {
  agpu_device *device = agpu_test_device(selector);
  if (!device) {
    char backend[16];
    snprintf(backend, sizeof backend, "%.*s", (int)strcspn(selector, ":"), selector);
    SKIP("no %s device: %s", selector, agpu_test_backend_reason(backend));
  }
  /* Any other device, for the cross-device rows. */
  agpu_device *all[16];
  uint32_t count = 0;
  agpu_device *other = NULL;
  if (agpu_device_select_all("*:*", all, 16, &count) == AGPU_SUCCESS)
    for (uint32_t i = 0; i < count && i < 16; i++)
      if (all[i] != device) other = all[i];
  fixture f;
  int before = rows_checked;
  if (fixture_open(&f, device, other)) {
    device_rows(&f);
    buffer_create_rows(&f);
    buffer_handle_rows(&f);
    transfer_rows(&f);
    cross_device_rows(&f);
    queue_and_event_rows(&f);
    program_rows(&f);
    launch_rows(&f);
    translation_rows(&f);
  }
  fixture_close(&f);
  printf("  %s: %d rows\n", selector, rows_checked - before);
}

static void matrix_on_cpu(void) {
  run_matrix("cpu:0");
}
static void matrix_on_opencl(void) {
  run_matrix("opencl:0");
}
static void matrix_on_vulkan(void) {
  run_matrix("vulkan:0");
}
static void matrix_on_cuda(void) {
  run_matrix("cuda:0");
}
static void matrix_on_hip(void) {
  run_matrix("hip:0");
}
/* the null backend (ANYGPU_NULL_DEVICES=1 in test_misuse_null): the core's
 * checks with no driver under them */
static void matrix_on_null(void) {
  run_matrix("null:0");
}
static void matrix_of_the_registry(void) {
  int before = rows_checked;
  registry_rows();
  printf("  %d rows\n", rows_checked - before);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--null") == 0) { /* test_misuse_null */
    RUN(matrix_on_null);
    return agpu_test_finish();
  }
  RUN(matrix_of_the_registry);
  RUN(matrix_on_cpu);
  RUN(matrix_on_opencl);
  RUN(matrix_on_vulkan);
  RUN(matrix_on_cuda);
  RUN(matrix_on_hip);
  RUN(matrix_on_null);
  return agpu_test_finish();
}
