// SPDX-License-Identifier: Apache-2.0
/* What the core's files share: the registry and handle checks. */
#ifndef AGPU_CORE_H
#define AGPU_CORE_H

#include "agpu_backend.h"

/* Loads every backend and enumerates devices, once; later calls are free. */
void agpu_registry_init(void);
agpu_backend *agpu_registry_backend(agpu_backend_kind kind);
uint32_t agpu_registry_device_count(void);
agpu_device *agpu_registry_device(uint32_t index);
bool agpu_registry_owns_device(const agpu_device *device);

/* Handle checks: each resolves the user's handle to the core's object, or
 * returns AGPU_ERROR_INVALID_HANDLE with a message naming the function and
 * the argument and saying what was wrong (agpu_handle.h). */
agpu_status agpu_check_device(const agpu_device *device, const char *function);
/* NULL where include_dir_count says there are directories: an error naming `function`. */
/* `options` (NULL: none) with -D__ANYGPU_<BACKEND>__=1 for `backend`'s
 * name appended; malloc'd, NULL when out of memory (program.c). */
char *agpu_program_options_with_backend(const char *options, const char *backend);
/* The same, adding ANYGPU_CHECK's options only where `environment`. */
char *agpu_program_options_for(const char *options, const char *backend, bool environment);
/* Removes each whole-word `flag` from `options` (in place); whether there
 * was one. */
bool agpu_options_take(char *options, const char *flag);
/* agpu_program_build's work without the handle: a program object of its
 * own (an unchecked twin's build passes environment false). */
agpu_status agpu_program_build_object(agpu_device *device, const agpu_program_desc *desc,
                                      bool environment, agpu_program **out);
void agpu_program_unreference(agpu_program *program);
/* agpu_kernel_create's work without the handle (holds a reference to the
 * program), and its undoing. */
agpu_status agpu_kernel_make(agpu_program *program, const char *name, agpu_kernel **out);
void agpu_kernel_destroy(agpu_kernel *kernel);

/* The backend that builds portable kernels for `target` (GLSL counts as
 * SPIR-V), the testing ones last; NULL for none (registry.c). */
const agpu_backend_descriptor *agpu_backend_for_target(agpu_target target);

/* The backends' names, ", " between them, into `out` (registry.c). */
void agpu_backend_names(char *out, size_t capacity);

agpu_status agpu_check_include_dirs(const char *function, const char *const *dirs, uint32_t count);

#define AGPU_DEFINE_LOOKUP(name, T, TYPE)                                              \
  static inline agpu_status agpu_lookup_##name(const T *handle, const char *function,  \
                                               const char *argument, T **object) {     \
    void *found = NULL;                                                                \
    agpu_status status = agpu_handle_lookup(handle, TYPE, function, argument, &found); \
    *object = (T *)found;                                                              \
    return status;                                                                     \
  }                                                                                    \
  static inline agpu_status agpu_take_##name(const T *handle, const char *function,    \
                                             const char *argument, T **object) {       \
    void *found = NULL;                                                                \
    agpu_status status = agpu_handle_take(handle, TYPE, function, argument, &found);   \
    *object = (T *)found;                                                              \
    return status;                                                                     \
  }
AGPU_DEFINE_LOOKUP(buffer, agpu_buffer, AGPU_OBJECT_BUFFER)
AGPU_DEFINE_LOOKUP(program, agpu_program, AGPU_OBJECT_PROGRAM)
AGPU_DEFINE_LOOKUP(kernel, agpu_kernel, AGPU_OBJECT_KERNEL)
AGPU_DEFINE_LOOKUP(queue, agpu_queue, AGPU_OBJECT_QUEUE)
AGPU_DEFINE_LOOKUP(event, agpu_event, AGPU_OBJECT_EVENT)
#undef AGPU_DEFINE_LOOKUP

/* A buffer handle resolved and pinned (agpu_handle_lookup_pinned): the
 * buffer lives until the matching agpu_buffer_unpin, even if released. */
agpu_status agpu_lookup_buffer_pinned(const agpu_buffer *handle, const char *function,
                                      const char *argument, agpu_buffer **buffer);
void agpu_buffer_unpin(agpu_buffer *buffer);

/* Gives a new object its handle; on failure (no slot) the caller frees it. */
agpu_status agpu_object_publish(agpu_object *object, agpu_object_type type);

/* The queue a transfer runs on: the user's handle, or the device's default
 * queue for NULL; a queue of another device is refused. */
agpu_status agpu_resolve_queue(const agpu_queue *handle, agpu_device *device, const char *function,
                               agpu_queue **queue);
/* A queue the user never sees (no handle). */
agpu_status agpu_queue_new_internal(agpu_device *device, agpu_queue **queue);
/* The device's default queue, created on first use. */
agpu_status agpu_device_default_queue_object(agpu_device *device, agpu_queue **queue);
/* Drops one reference to a queue; the last one releases it. */
void agpu_queue_unreference(agpu_queue *queue);
/* The device's list of user queues, for agpu_device_finish. */
void agpu_device_list_queue(agpu_queue *queue);
void agpu_device_unlist_queue(agpu_queue *queue);
/* The device's default queue if it was created, else NULL. */
agpu_queue *agpu_device_existing_default_queue(agpu_device *device);
/* Waits for one queue, traced (api/device_finish.c); `function` prefixes a failure. */
agpu_status agpu_finish_queue(agpu_queue *queue, const char *function);
/* Finishes the default queue of every device that has one (a NULL queue). */
agpu_status agpu_finish_default_queues(const char *function);

/* agpu_kernel_create's words, the same on every backend (kernel_describe.c):
 * a name the program lacks is AGPU_ERROR_NOT_FOUND naming those it has; the
 * parameters' type names are spelt one way ("const float*", "uint"). */
agpu_status agpu_kernel_check_name(const agpu_program *program, const char *name);
void agpu_kernel_normalize_params(agpu_kernel *kernel);

/* fork() (process.c): agpu_process_watch is called once, after the
 * backends loaded; in a forked child a device of any backend but the CPU
 * one, and every object on it, is refused with AGPU_ERROR_UNSUPPORTED. */
void agpu_process_watch(void);
agpu_status agpu_process_check_device(const agpu_device *device, const char *function);
agpu_status agpu_process_check_object(agpu_object_type type, const void *object,
                                      const char *function);

/* Allocation bookkeeping shown by agpu_device_memory. */
void agpu_device_account_alloc(agpu_device *device, uint64_t bytes);
void agpu_device_account_free(agpu_device *device, uint64_t bytes);

#endif /* AGPU_CORE_H */
