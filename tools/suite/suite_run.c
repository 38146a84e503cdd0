// SPDX-License-Identifier: Apache-2.0
/* Running one case on one device: the device's program cache, the case's
 * objects, launches with timing, and the verdict. */
#define _GNU_SOURCE /* clock_gettime, strtok_r */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data_patterns.h"
#include "suite_internal.h"

#define SUITE_MAX_PROGRAMS 32

/* A build, successful or not: every case of one file and options shares it. */
typedef struct suite_program {
  char key[256]; /* "matmul.cl -DSUITE_FP64 -DTILE=16" */
  agpu_program *program;
  agpu_status status;
  char message[1024];
} suite_program;

struct suite_device {
  agpu_device *device;
  const char *kernels_dir;
  suite_program programs[SUITE_MAX_PROGRAMS];
  size_t program_count;
};

suite_device *suite_device_open(agpu_device *device, const char *kernels_dir) {
  suite_device *opened = calloc(1, sizeof *opened);
  if (!opened) return NULL;
  opened->device = device;
  opened->kernels_dir = kernels_dir;
  return opened;
}

void suite_device_close(suite_device *device) {
  if (!device) return;
  for (size_t i = 0; i < device->program_count; i++)
    if (device->programs[i].program) agpu_program_release(device->programs[i].program);
  free(device);
}

/* ------------------------------------------------------------- verdicts */

static void suite_set_reason(suite_run *run, suite_status status, const char *format,
                             va_list args) {
  if (run->done) return; /* the first failure is the one reported */
  run->done = true;
  run->result->status = status;
  vsnprintf(run->result->reason, sizeof run->result->reason, format, args);
}

void suite_fail(suite_run *run, const char *format, ...) {
  va_list args;
  va_start(args, format);
  suite_set_reason(run, SUITE_FAIL, format, args);
  va_end(args);
}

void suite_skip(suite_run *run, const char *format, ...) {
  va_list args;
  va_start(args, format);
  suite_set_reason(run, SUITE_SKIP, format, args);
  va_end(args);
}

bool suite_library_failed(suite_run *run, const char *what, agpu_status status) {
  if (status == AGPU_SUCCESS) return false;
  suite_fail(run, "%s: %s: %s", what, agpu_status_name(status), agpu_last_error());
  return true;
}

/* ------------------------------------------------------------- programs */

static char *suite_read_file(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file) return NULL;
  char *text = NULL;
  long size = fseek(file, 0, SEEK_END) == 0 ? ftell(file) : -1;
  if (size >= 0 && fseek(file, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1))) {
    if (fread(text, 1, (size_t)size, file) != (size_t)size) {
      free(text);
      text = NULL;
      errno = EIO;
    } else {
      text[size] = '\0';
    }
  }
  fclose(file);
  return text;
}

static void suite_build(suite_device *device, suite_program *program, const char *file,
                        const char *options) {
  char path[4096];
  char *loaded = NULL;
  const char *source = suite_builtin_source(file);
  if (device->kernels_dir) {
    snprintf(path, sizeof path, "%s/%s", device->kernels_dir, file);
    source = loaded = suite_read_file(path);
    if (!source) {
      program->status = AGPU_ERROR_NOT_FOUND;
      int length = snprintf(program->message, sizeof program->message, "cannot read ");
      snprintf(program->message + length, sizeof program->message - (size_t)length, "%.900s: %s",
               path, strerror(errno));
      return;
    }
  }
  if (!source) {
    program->status = AGPU_ERROR_NOT_FOUND;
    snprintf(program->message, sizeof program->message, "no built-in kernel file %s", file);
    return;
  }
  agpu_program_desc desc = {.source = source, .source_name = file, .options = options};
  program->status = agpu_program_build(device->device, &desc, &program->program);
  if (program->status != AGPU_SUCCESS)
    snprintf(program->message, sizeof program->message, "%s", agpu_last_error());
  free(loaded);
}

agpu_kernel *suite_kernel(suite_run *run, const char *entry, const char *options) {
  if (run->done) return NULL;
  suite_device *device = run->device;
  char all[192], key[256];
  snprintf(all, sizeof all, "%s%s%s", run->kase->fp64 ? "-DSUITE_FP64" : "",
           run->kase->fp64 && options ? " " : "", options ? options : "");
  snprintf(key, sizeof key, "%s %s", run->kase->file, all);
  suite_program *program = NULL;
  for (size_t i = 0; i < device->program_count && !program; i++)
    if (strcmp(device->programs[i].key, key) == 0) program = &device->programs[i];
  if (!program) {
    if (device->program_count == SUITE_MAX_PROGRAMS) {
      suite_fail(run, "too many programs (the suite keeps %d)", SUITE_MAX_PROGRAMS);
      return NULL;
    }
    program = &device->programs[device->program_count++];
    snprintf(program->key, sizeof program->key, "%s", key);
    suite_build(device, program, run->kase->file, all);
  }
  if (program->status == AGPU_ERROR_UNSUPPORTED) {
    suite_skip(run, "%s", program->message);
    return NULL;
  }
  if (program->status != AGPU_SUCCESS) {
    suite_fail(run, "build of %s (%s): %s: %s", run->kase->file, all[0] ? all : "no options",
               agpu_status_name(program->status), program->message);
    return NULL;
  }
  agpu_kernel *kernel = NULL;
  agpu_status status = agpu_kernel_create(program->program, entry, &kernel);
  if (suite_library_failed(run, "agpu_kernel_create", status)) return NULL;
  for (int i = 0; i < SUITE_MAX_OBJECTS; i++) {
    if (!run->kernels[i]) {
      run->kernels[i] = kernel;
      return kernel;
    }
  }
  agpu_kernel_release(kernel);
  suite_fail(run, "too many kernels in one case");
  return NULL;
}

void *suite_shared_find(suite_run *run, const char *name) {
  for (int i = 0; i < SUITE_MAX_SHARED; i++)
    if (run->shared->arrays[i] && strcmp(run->shared->names[i], name) == 0)
      return run->shared->arrays[i];
  return NULL;
}

void suite_shared_keep(suite_run *run, const char *name, void *memory) {
  suite_shared *shared = run->shared;
  for (int i = 0; i < SUITE_MAX_SHARED; i++) {
    if (shared->arrays[i]) continue;
    for (int h = 0; h < SUITE_MAX_OBJECTS; h++) {
      if (run->host[h] != memory) continue;
      run->host[h] = NULL; /* the shared set frees it now */
      shared->arrays[i] = memory;
      snprintf(shared->names[i], sizeof shared->names[i], "%s", name);
      return;
    }
    return; /* not from suite_alloc: not shared */
  }
}

void suite_shared_free(suite_shared *shared) {
  for (int i = 0; i < SUITE_MAX_SHARED; i++) free(shared->arrays[i]);
  memset(shared, 0, sizeof *shared);
}

size_t suite_group_size(suite_run *run, agpu_kernel *kernel, size_t cap) {
  size_t limit = run->info.max_work_group_size;
  agpu_kernel_info info;
  if (agpu_kernel_get_info(kernel, &info) == AGPU_SUCCESS && info.max_work_group_size &&
      info.max_work_group_size < limit)
    limit = info.max_work_group_size;
  if (run->info.max_work_item_sizes[0] && run->info.max_work_item_sizes[0] < limit)
    limit = run->info.max_work_item_sizes[0];
  size_t size = 1;
  while (size * 2 <= cap && size * 2 <= limit) size *= 2;
  return size;
}

/* ----------------------------------------------------------- host memory */

static bool suite_track(suite_run *run, void **slots, void *object) {
  for (int i = 0; i < SUITE_MAX_OBJECTS; i++) {
    if (!slots[i]) {
      slots[i] = object;
      return true;
    }
  }
  suite_fail(run, "too many objects in one case");
  return false;
}

void *suite_alloc(suite_run *run, size_t bytes) {
  if (run->done) return NULL;
  void *memory = malloc(bytes ? bytes : 1);
  if (!memory) {
    suite_fail(run, "out of host memory (%zu bytes)", bytes);
    return NULL;
  }
  if (!suite_track(run, run->host, memory)) {
    free(memory);
    return NULL;
  }
  return memory;
}

double suite_real_round(const suite_run *run, double value) {
  return run->kase->fp64 ? value : (double)(float)value;
}

agpu_arg suite_real_arg(const suite_run *run, double value) {
  return run->kase->fp64 ? agpu_arg_f64(value) : agpu_arg_f32((float)value);
}

/* --------------------------------------------------------------- buffers */

static agpu_buffer *suite_buffer(suite_run *run, size_t bytes) {
  if (run->done) return NULL;
  agpu_buffer *buffer = NULL;
  agpu_status status = agpu_buffer_create(run->device->device, bytes ? bytes : 4, 0, &buffer);
  if (suite_library_failed(run, "agpu_buffer_create", status)) return NULL;
  if (!suite_track(run, (void **)run->buffers, buffer)) {
    agpu_buffer_release(buffer);
    return NULL;
  }
  return buffer;
}

agpu_buffer *suite_input(suite_run *run, const void *data, size_t bytes) {
  agpu_buffer *buffer = suite_buffer(run, bytes);
  if (buffer && suite_library_failed(run, "agpu_buffer_write",
                                     agpu_buffer_write(NULL, buffer, 0, bytes, data)))
    return NULL;
  return buffer;
}

static agpu_buffer *suite_filled(suite_run *run, size_t bytes, const void *pattern, size_t size) {
  agpu_buffer *buffer = suite_buffer(run, bytes);
  if (buffer && suite_library_failed(run, "agpu_buffer_fill",
                                     agpu_buffer_fill(NULL, buffer, 0, bytes, pattern, size)))
    return NULL;
  return buffer;
}

agpu_buffer *suite_output(suite_run *run, size_t bytes, bool reals) {
  static const uint32_t poison32 = POISON_FLOAT_BITS,
                        integers = POISON_INTEGER_BYTE * UINT32_C(0x01010101);
  static const uint64_t poison64 = POISON_DOUBLE_BITS;
  if (reals && run->kase->fp64) return suite_filled(run, bytes, &poison64, sizeof poison64);
  return suite_filled(run, bytes, reals ? &poison32 : &integers, sizeof integers);
}

agpu_buffer *suite_zeros(suite_run *run, size_t bytes) {
  static const uint32_t zero = 0;
  return suite_filled(run, bytes, &zero, sizeof zero);
}

void *suite_read(suite_run *run, agpu_buffer *buffer, size_t bytes) {
  void *data = suite_alloc(run, bytes);
  if (data &&
      suite_library_failed(run, "agpu_buffer_read", agpu_buffer_read(NULL, buffer, 0, bytes, data)))
    return NULL;
  return data;
}

/* --------------------------------------------------------------- launches */

static uint64_t suite_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

bool suite_launch(suite_run *run, agpu_kernel *kernel, uint32_t dims, const size_t need[],
                  const size_t local[], uint32_t nargs, const agpu_arg args[]) {
  if (run->done) return false;
  size_t global[3];
  for (uint32_t d = 0; d < dims; d++) global[d] = (need[d] + local[d] - 1) / local[d] * local[d];
  agpu_queue *queue = NULL;
  agpu_status status = agpu_device_default_queue(run->device->device, &queue);
  uint64_t start = suite_now_ns();
  if (status == AGPU_SUCCESS) status = agpu_launch(queue, kernel, dims, global, local, nargs, args);
  if (suite_library_failed(run, "agpu_launch", status)) return false;
  if (suite_library_failed(run, "agpu_queue_finish", agpu_queue_finish(queue))) return false;
  run->launch_ns += suite_now_ns() - start;
  return true;
}

/* ------------------------------------------------------------------ run */

void suite_run_case(suite_device *device, const suite_case *kase, suite_size size, uint64_t seed,
                    suite_shared *shared, suite_result *result) {
  memset(result, 0, sizeof *result);
  suite_run run = {.device = device,
                   .kase = kase,
                   .sizes = suite_sizes_of(size),
                   .seed = seed,
                   .result = result,
                   .shared = shared};
  agpu_status status = agpu_device_get_info(device->device, &run.info);
  if (!suite_library_failed(&run, "agpu_device_get_info", status)) {
    if (kase->fp64 && !run.info.fp64)
      suite_skip(&run, "%s has no fp64", run.info.selector);
    else
      kase->run(&run);
  }
  result->time_ms = (double)run.launch_ns / 1e6;
  for (int i = 0; i < SUITE_MAX_OBJECTS; i++) {
    if (run.kernels[i]) agpu_kernel_release(run.kernels[i]);
    if (run.buffers[i]) agpu_buffer_release(run.buffers[i]);
    free(run.host[i]);
  }
}
