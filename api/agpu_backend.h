// SPDX-License-Identifier: Apache-2.0
/* The private interface between the core and the backends.
 *
 * A backend is one ops table. The core owns every handle struct below, checks
 * arguments, keeps the accounting, and calls the backend only with live
 * objects (never the user's handle values: agpu_arg.buffer included) and
 * in-range sizes; the backend keeps its native objects in the `native`
 * fields. A backend reports failures with agpu_error_set().
 */
#ifndef AGPU_BACKEND_H
#define AGPU_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>

#include "anygpu.h"
#include "agpu_error.h"
#include "agpu_io.h"
#include "agpu_handle.h"

/* What every handle struct starts with. `handle` is the value the user holds
 * (agpu_handle.h); backends never need either field. */
typedef struct agpu_object {
  agpu_object_type type;
  void *handle;
} agpu_object;

typedef struct agpu_backend_ops agpu_backend_ops;
typedef struct agpu_backend agpu_backend;

struct agpu_device {
  agpu_object object;
  agpu_backend *backend;
  agpu_device_info info;
  void *native;
  agpu_queue *default_queue;
  /* The queues the user created on it, for agpu_device_finish (api/device_finish.c). */
  agpu_queue *user_queues;
  /* Zeroes ZERO_INIT and SCRUB_ON_RELEASE buffers; never seen by the user. */
  agpu_queue *hygiene_queue;
  pthread_mutex_t hygiene_lock;
  _Atomic uint64_t allocated_bytes;
  _Atomic uint64_t peak_allocated_bytes;
};

struct agpu_buffer {
  agpu_object object;
  agpu_device *device;
  size_t size;
  uint32_t flags;
  void *native;
  struct agpu_mapping *mappings; /* the core's record of live maps */
  /* One for the user's handle plus one per call using it (a launch or a
   * transfer pins its buffers): a release during such a call frees the
   * buffer when the call is done with it. */
  _Atomic uint32_t references;
};

/* A kernel the backend could not build while it built the program's others
 * (agpu_program_refuse_kernel). */
typedef struct agpu_kernel_refusal {
  char *kernel, *message;
  agpu_status status;
  struct agpu_kernel_refusal *next;
} agpu_kernel_refusal;

struct agpu_program {
  agpu_object object;
  agpu_device *device;
  bool from_native; /* made by agpu_program_create_native */
  char *build_log;
  void *native;
  agpu_kernel_refusal *refusals;
  struct agpu_printf_table *printf; /* the core's: formats of the kernels that print, or NULL */
  struct agpu_check_table *checks;  /* the core's: a bounds-checked program's sites, or NULL */
  /* the core's: a checked program's build without checks, made for the
   * launches its kernels' proofs show in bounds (api/check_twin.c); NULL
   * where none can be */
  struct agpu_check_twin *twin;
  /* The source parsed and checked by the core (agpu_parsed.h), set during
   * program_build only: a backend that needs it later retains it. */
  struct agpu_parsed *parsed;
  /* One for the user's handle plus one per live kernel: a program released
   * before its kernels stays alive until the last kernel goes. */
  _Atomic uint32_t references;
};

struct agpu_kernel {
  agpu_object object;
  agpu_program *program;
  agpu_kernel_info info; /* info.params points at params */
  agpu_kernel_param *params;
  void *native;
  /* The core's: the program's printf formats when this kernel prints (its
   * last parameter, not counted in info, is the hidden printf buffer). */
  struct agpu_printf_table *printf;
  /* The core's: the program's check sites when it is bounds-checked (the
   * kernel's last parameter, after printf's, is the hidden check buffer). */
  struct agpu_check_table *checks;
  /* The core's: the kernel's proof at launch (NULL: none), and its twin in
   * the program's unchecked build once made (api/check_twin.c). */
  const struct agpu_check_proof *proof;
  _Atomic(agpu_kernel *) unchecked;
  atomic_bool unchecked_failed;
};

struct agpu_queue {
  agpu_object object;
  agpu_device *device;
  bool is_default;
  void *native;
  /* One for the user's handle plus one per live event: the native queue
   * goes when the last of them does. */
  _Atomic uint32_t references;
  /* The device's list of user queues (not the default or internal ones). */
  bool listed;
  agpu_queue *next_of_device, *previous_of_device;
  /* The core's, under its printf lock (api/printf.c): launches of printing
   * kernels whose output is still to be reported, and how many there were. */
  struct agpu_printf_launch *printf_pending;
  _Atomic uint64_t printf_launches;
};

struct agpu_event {
  agpu_object object;
  agpu_queue *queue;
  void *native;
  uint64_t printf_mark; /* the core's: the queue's printing launches before it */
};

/* What a backend can do; the core uses it to rank devices and to refuse
 * calls early with a clear message. */
enum {
  AGPU_CAP_BUILD_PORTABLE = 1u << 0, /* agpu_program_build works */
  AGPU_CAP_MAP = 1u << 1,            /* agpu_buffer_map is cheap */
  /* launch accepts a global size that the local size does not divide: the
   * last group of such a dimension is smaller (OpenCL 2.0's non-uniform
   * work-groups); the core asks for it only when it chose the local size */
  AGPU_CAP_NONUNIFORM_GROUPS = 1u << 2,
  /* ... also for a program from agpu_program_create_native, whose code
   * knows nothing of how the backend runs the smaller group (OpenCL: an
   * enqueue of its own; Vulkan, CUDA and HIP tell translated kernels
   * through their launch header, which native code does not read) */
  AGPU_CAP_NONUNIFORM_NATIVE = 1u << 3,
};

/* What a device supports, for the translator: decides the predefined
 * macros (cl_khr_fp64 ...), which features a kernel may use, and how the
 * GLSL target computes fma and double rounding. */
typedef struct agpu_translate_traits {
  bool fp64, fp16, int64;
  /* The device's float fma() is fused (one rounding); false: the GLSL target
   * emulates it. GPUs fuse; lavapipe does not. */
  bool fused_fma_float;
  /* The device's double floor, ceil, trunc and roundEven are exact; false:
   * the GLSL target computes them from the bits. */
  bool f64_rounding_exact;
  /* The device's shared memory per work-group (0: unknown): the HIP and
   * CUDA targets refuse a kernel whose __local arrays need more. */
  uint64_t local_mem_bytes;
} agpu_translate_traits;

struct agpu_backend_ops {
  /* Loads the native library and adds devices with agpu_backend_add_device.
   * Failing to find a library or a driver is not an error: set
   * backend->reason and return AGPU_SUCCESS with no devices. */
  agpu_status (*init)(agpu_backend *backend);
  uint32_t (*device_caps)(agpu_device *device); /* optional: NULL is no caps */
  /* optional: NULL leaves total and free unknown */
  agpu_status (*device_memory)(agpu_device *device, agpu_memory_info *info);
  /* optional: NULL leaves the core's traits (fp64, fp16 and int64 from the
   * device info, the others false) */
  void (*translate_traits)(agpu_device *device, agpu_translate_traits *traits);

  agpu_status (*queue_create)(agpu_queue *queue);
  void (*queue_release)(agpu_queue *queue);
  agpu_status (*queue_finish)(agpu_queue *queue);

  agpu_status (*event_record)(agpu_event *event);
  agpu_status (*event_wait)(agpu_event *event);
  agpu_status (*event_elapsed_ns)(agpu_event *start, agpu_event *end, uint64_t *ns);
  void (*event_release)(agpu_event *event);

  agpu_status (*buffer_create)(agpu_buffer *buffer);
  void (*buffer_release)(agpu_buffer *buffer);
  agpu_status (*buffer_write)(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                              const void *src);
  agpu_status (*buffer_read)(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                             void *dst);
  agpu_status (*buffer_copy)(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                             agpu_buffer *dst, size_t dst_offset, size_t size);
  agpu_status (*buffer_fill)(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size);
  /* optional, both: only called with AGPU_CAP_MAP */
  agpu_status (*buffer_map)(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                            void **ptr);
  agpu_status (*buffer_unmap)(agpu_queue *queue, agpu_buffer *buffer, void *ptr);
  /* optional: the buffer's address in the device's own address space (a
   * CUdeviceptr, a HIP device pointer, the CPU backend's host pointer); NULL
   * where the backend has none (agpu_buffer_device_address refuses) */
  agpu_status (*buffer_device_address)(agpu_buffer *buffer, uint64_t *address);

  /* Optional (only called with AGPU_CAP_BUILD_PORTABLE). The core has
   * parsed and checked the source (program->parsed) and set build_log to
   * its warnings; the backend adds what its compiler said. */
  agpu_status (*program_build)(agpu_program *program, const agpu_program_desc *desc);
  /* optional: NULL refuses every native format */
  agpu_status (*program_create_native)(agpu_program *program, agpu_native_format format,
                                       const void *data, size_t size, const char *options);
  void (*program_release)(agpu_program *program);

  /* Fills kernel->info (name set by the core) and kernel->params (malloc'd). */
  agpu_status (*kernel_create)(agpu_kernel *kernel, const char *name);
  void (*kernel_release)(agpu_kernel *kernel);

  /* Called after the core has validated the launch; local is never NULL. */
  agpu_status (*launch)(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,
                        const size_t global[3], const size_t local[3], uint32_t nargs,
                        const agpu_arg args[]);

  /* The program's kernel names, one space between them, malloc'd (the core
   * frees it); NULL when the backend cannot tell (a native binary). Optional.
   * agpu_kernel_create checks the name against it and words a missing
   * kernel the same for every backend. */
  char *(*program_kernel_names)(const agpu_program *program);
};

/* The ops every backend fills, named <prefix>_<op>, written once here:
 * AGPU_DECLARE_MEMORY_OPS and AGPU_DECLARE_KERNEL_OPS declare them in a
 * backend's internal header, AGPU_MEMORY_OPS and AGPU_KERNEL_OPS put them
 * in its agpu_backend_ops table (designated initializers, beside the
 * backend's own init, caps and build ops). */
#define AGPU_DECLARE_MEMORY_OPS(prefix)                                                    \
  agpu_status prefix##_queue_create(agpu_queue *queue);                                    \
  void prefix##_queue_release(agpu_queue *queue);                                          \
  agpu_status prefix##_queue_finish(agpu_queue *queue);                                    \
  agpu_status prefix##_event_record(agpu_event *event);                                    \
  agpu_status prefix##_event_wait(agpu_event *event);                                      \
  agpu_status prefix##_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns); \
  void prefix##_event_release(agpu_event *event);                                          \
  agpu_status prefix##_buffer_create(agpu_buffer *buffer);                                 \
  void prefix##_buffer_release(agpu_buffer *buffer);                                       \
  agpu_status prefix##_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset, \
                                    size_t size, const void *src);                         \
  agpu_status prefix##_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset,  \
                                   size_t size, void *dst);                                \
  agpu_status prefix##_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset, \
                                   agpu_buffer *dst, size_t dst_offset, size_t size);      \
  agpu_status prefix##_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset,  \
                                   size_t size, const void *pattern, size_t pattern_size)

#define AGPU_DECLARE_KERNEL_OPS(prefix)                                                      \
  void prefix##_program_release(agpu_program *program);                                      \
  agpu_status prefix##_kernel_create(agpu_kernel *kernel, const char *name);                 \
  void prefix##_kernel_release(agpu_kernel *kernel);                                         \
  char *prefix##_program_kernel_names(const agpu_program *program);                          \
  agpu_status prefix##_launch(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,         \
                              const size_t global[3], const size_t local[3], uint32_t nargs, \
                              const agpu_arg args[])

#define AGPU_MEMORY_OPS(prefix)                                                     \
  .queue_create = prefix##_queue_create, .queue_release = prefix##_queue_release,   \
  .queue_finish = prefix##_queue_finish, .event_record = prefix##_event_record,     \
  .event_wait = prefix##_event_wait, .event_elapsed_ns = prefix##_event_elapsed_ns, \
  .event_release = prefix##_event_release, .buffer_create = prefix##_buffer_create, \
  .buffer_release = prefix##_buffer_release, .buffer_write = prefix##_buffer_write, \
  .buffer_read = prefix##_buffer_read, .buffer_copy = prefix##_buffer_copy,         \
  .buffer_fill = prefix##_buffer_fill

#define AGPU_KERNEL_OPS(prefix)                                                         \
  .program_release = prefix##_program_release, .kernel_create = prefix##_kernel_create, \
  .kernel_release = prefix##_kernel_release,                                            \
  .program_kernel_names = prefix##_program_kernel_names, .launch = prefix##_launch

/* Every op a backend with devices and portable builds fills. */
#define AGPU_CORE_OPS(prefix)                                                       \
  .init = prefix##_init, .device_caps = prefix##_device_caps,                       \
  .device_memory = prefix##_device_memory, .program_build = prefix##_program_build, \
  AGPU_MEMORY_OPS(prefix), AGPU_KERNEL_OPS(prefix)

#define AGPU_MAX_LOAD_ATTEMPTS 16

typedef struct agpu_load_attempt {
  char name[256];  /* soname or path tried */
  char error[512]; /* dlerror(), "" on success */
} agpu_load_attempt;

/* What the core and the tools know of a backend besides its ops: one line
 * of api/backend_list.h each (the fields are described there). */
enum {
  AGPU_BACKEND_SURVIVES_FORK = 1u << 0,
  AGPU_BACKEND_TESTING = 1u << 1,
};

typedef struct agpu_backend_descriptor {
  agpu_backend_kind kind;
  const char *name;
  agpu_target target;
  uint8_t gpu_rank, cpu_rank;
  const char *colour;
  uint32_t native_formats;
  const char *environment;
  uint32_t flags;
} agpu_backend_descriptor;

/* The descriptor of a kind (registry.c); NULL past the last. */
const agpu_backend_descriptor *agpu_backend_descriptor_of(agpu_backend_kind kind);

struct agpu_backend {
  const agpu_backend_descriptor *descriptor;
  const agpu_backend_ops *ops;
  bool available;
  char library[256];
  char reason[1024];
  agpu_load_attempt attempts[AGPU_MAX_LOAD_ATTEMPTS];
  uint32_t attempt_count;
  agpu_device **devices;
  uint32_t device_count;
  void *native; /* backend-wide state */
};

/* Adds a device to a backend during init. The core copies `info`, fills the
 * backend, index and selector fields, and returns the new device. */
agpu_device *agpu_backend_add_device(agpu_backend *backend, const agpu_device_info *info,
                                     void *native);

/* For init. A backend this build left out: says why (backend->reason) and
 * has no devices; returns AGPU_SUCCESS. */
agpu_status agpu_backend_not_built(agpu_backend *backend, const char *why);
/* A backend whose native API `api` was loaded (NULL: it was not, and the
 * loader set the reason): marks it available and keeps `api` in
 * backend->native; true when it can enumerate devices. */
bool agpu_backend_loaded(agpu_backend *backend, void *api);

/* The init of a backend whose <prefix>_load opens its native API (NULL:
 * unavailable, the reason set) and <prefix>_enumerate adds its devices. */
#define AGPU_DEFINE_LOADED_INIT(prefix, api_type)                                               \
  static agpu_status prefix##_init(agpu_backend *backend) {                                     \
    api_type *api = prefix##_load(backend);                                                     \
    return agpu_backend_loaded(backend, api) ? prefix##_enumerate(backend, api) : AGPU_SUCCESS; \
  }

/* For program_kernel_names: the `count` names of an array of entries
 * `stride` bytes apart, the first name at `first_name` (NULL when count is
 * 0), joined by spaces; malloc'd, NULL when out of memory. */
char *agpu_join_kernel_names(const char *first_name, size_t count, size_t stride);

/* One kernel a target cannot express is refused alone (issue 18): the
 * backend records it here and builds the program's other kernels. The
 * refusal (`message`, usually agpu_last_error()) becomes a warning in the
 * build log, and agpu_kernel_create of that kernel returns `status` with it.
 * A backend that refuses every kernel fails the build with the first
 * refusal instead (agpu_program_refused_all). */
agpu_status agpu_program_refuse_kernel(agpu_program *program, const char *kernel,
                                       agpu_status status, const char *message);
agpu_status agpu_program_refused_all(agpu_program *program);
const agpu_kernel_refusal *agpu_program_refusal(const agpu_program *program, const char *kernel);
void agpu_program_free_refusals(agpu_program *program);
/* A list of refusals made before the program was at hand (a backend that
 * translates apart from it, as HIP's agpu_hip_build_code): each recorded
 * with agpu_program_refuse_kernel, then the list freed, whatever the
 * result. */
agpu_status agpu_program_take_refusals(agpu_program *program, agpu_kernel_refusal *refused);
void agpu_kernel_refusals_free(agpu_kernel_refusal *refused); /* NULL: nothing */

/* String helpers the backends share: `text` (NULL: "") cut to fit
 * `capacity` bytes with its terminator; a malloc'd copy, NULL when out of
 * memory. */
void agpu_copy_text(char *out, size_t capacity, const char *text);
char *agpu_strdup(const char *text);

#endif /* AGPU_BACKEND_H */
