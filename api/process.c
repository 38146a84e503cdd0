// SPDX-License-Identifier: Apache-2.0
/* The process around the library: fork() (docs/reliability.md, "fork and
 * exit").
 *
 * fork: a child gets a copy of the parent's memory but none of its threads.
 * A GPU driver's queues, fences and worker threads do not survive that copy
 * (PoCL's clFinish and lavapipe's fence waits block forever in the child),
 * so a device of any backend but the CPU one that the parent opened is
 * refused in the child, with a message, instead of hanging it. The CPU
 * backend keeps working there (tests/test_process.c computes on it).
 *
 * Exit is the OpenCL backend's: the first launch of each group shape waits
 * for PoCL's compile of it (opencl_program.c). A finish of every queue in
 * an atexit handler does not help there: handlers run in reverse order of
 * registration, and LLVM registers the destructors of statics it builds
 * lazily during a compile after any handler of ours, so they ran first (and
 * on lavapipe the finish itself raced its pipeline teardown at exit). */
#include <pthread.h>
#include <stdatomic.h>

#include "agpu_core.h"

static atomic_bool agpu_forked_child;

static void agpu_process_after_fork_in_child(void) {
  atomic_store(&agpu_forked_child, true);
}

agpu_status agpu_process_check_device(const agpu_device *device, const char *function) {
  if (!atomic_load(&agpu_forked_child) ||
      (device->backend->descriptor->flags & AGPU_BACKEND_SURVIVES_FORK))
    return AGPU_SUCCESS;
  return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                        "%s: %s was opened before fork() and cannot be used in the child "
                        "process: its driver's queues and threads stay with the parent; "
                        "initialise anygpu after fork() (or exec a new program), or use cpu:0",
                        function, device->info.selector);
}

/* The device an object of the user's belongs to. */
static const agpu_device *agpu_process_device_of(agpu_object_type type, const void *object) {
  switch (type) {
    case AGPU_OBJECT_DEVICE:
      return object;
    case AGPU_OBJECT_BUFFER:
      return ((const agpu_buffer *)object)->device;
    case AGPU_OBJECT_PROGRAM:
      return ((const agpu_program *)object)->device;
    case AGPU_OBJECT_KERNEL:
      return ((const agpu_kernel *)object)->program->device;
    case AGPU_OBJECT_QUEUE:
      return ((const agpu_queue *)object)->device;
    case AGPU_OBJECT_EVENT:
      return ((const agpu_event *)object)->queue->device;
    default:
      return NULL; /* translations belong to no device */
  }
}

agpu_status agpu_process_check_object(agpu_object_type type, const void *object,
                                      const char *function) {
  if (!atomic_load(&agpu_forked_child)) return AGPU_SUCCESS;
  const agpu_device *device = agpu_process_device_of(type, object);
  return device ? agpu_process_check_device(device, function) : AGPU_SUCCESS;
}

void agpu_process_watch(void) {
  pthread_atfork(NULL, NULL, agpu_process_after_fork_in_child);
}
