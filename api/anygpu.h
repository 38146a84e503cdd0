// SPDX-License-Identifier: Apache-2.0
/* anygpu: one C API for GPU compute over CUDA, HIP, OpenCL, Vulkan and the CPU.
 *
 * Conventions
 * - Every function that can fail returns an agpu_status; AGPU_SUCCESS is 0.
 *   On failure, agpu_last_error() returns a thread-local message saying what
 *   failed, with the native call, its error name and the numbers involved.
 *   The few that cannot fail return a value (agpu_version, agpu_backend_count,
 *   agpu_last_error, agpu_buffer_size, ...), documented where declared.
 * - Handles are opaque values, not addresses. Objects created with *_create
 *   or *_build are freed with the matching *_release. Devices belong to the
 *   library and are never released. A NULL, released, foreign or wrong-type
 *   handle is refused with AGPU_ERROR_INVALID_HANDLE and a message naming
 *   the function and the argument ("was already released", "is not an
 *   anygpu handle", "a queue where a buffer was expected"); releasing twice
 *   is refused the same way. A buffer released on one thread while another
 *   launches with it or transfers to it lives until that call is done with
 *   it; for other handles, releasing one that another thread is using is a
 *   race the library cannot make safe.
 * - ABI: unstable until 1.0. Structs may grow at the end and enum values are
 *   added at the end (never renumbered) between releases; a program built
 *   against one release checks agpu_version() against AGPU_VERSION_STRING
 *   when the shared library may be another. The *_COUNT_ sentinels are not
 *   array sizes for clients: ask agpu_backend_count() and the like.
 * - The library never prints, aborts or exits. Every function is thread-safe;
 *   one queue should be driven by one thread at a time.
 */
#ifndef ANYGPU_H
#define ANYGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(AGPU_BUILDING_LIBRARY) && defined(__GNUC__)
#define AGPU_API __attribute__((visibility("default")))
#else
#define AGPU_API
#endif

#define AGPU_VERSION_MAJOR 0
#define AGPU_VERSION_MINOR 1
#define AGPU_VERSION_PATCH 0
/* The one place the version is set: CMakeLists.txt reads the three numbers
 * above (docs/releasing.md); "0.1.0" from them. */
#define AGPU_VERSION_TEXT_(x) #x
#define AGPU_VERSION_TEXT(x) AGPU_VERSION_TEXT_(x)
#define AGPU_VERSION_STRING             \
  AGPU_VERSION_TEXT(AGPU_VERSION_MAJOR) \
  "." AGPU_VERSION_TEXT(AGPU_VERSION_MINOR) "." AGPU_VERSION_TEXT(AGPU_VERSION_PATCH)

/* ---------------------------------------------------------------- status */

typedef enum agpu_status {
  AGPU_SUCCESS = 0,
  AGPU_ERROR_INVALID_ARGUMENT,    /* a NULL pointer, a zero or out-of-range value */
  AGPU_ERROR_INVALID_HANDLE,      /* NULL, released or wrong-type handle */
  AGPU_ERROR_NOT_FOUND,           /* no device or kernel matches */
  AGPU_ERROR_BACKEND_UNAVAILABLE, /* the backend's library or driver is missing */
  AGPU_ERROR_UNSUPPORTED,         /* the device or backend cannot do this */
  AGPU_ERROR_OUT_OF_DEVICE_MEMORY,
  AGPU_ERROR_OUT_OF_HOST_MEMORY,
  AGPU_ERROR_OUT_OF_RANGE,   /* offset + size past the end of a buffer */
  AGPU_ERROR_BUILD_FAILED,   /* kernel source did not compile; see the message */
  AGPU_ERROR_INVALID_LAUNCH, /* arguments or sizes do not fit the kernel/device */
  AGPU_ERROR_DEVICE_LOST,
  AGPU_ERROR_BACKEND, /* any other native API error */
  AGPU_ERROR_INTERNAL,
  AGPU_ERROR_KERNEL_FAULT, /* a kernel accessed memory outside its buffers */
  AGPU_STATUS_COUNT_
} agpu_status;

/* "AGPU_ERROR_OUT_OF_RANGE" for AGPU_ERROR_OUT_OF_RANGE; never NULL. */
AGPU_API const char *agpu_status_name(agpu_status status);

/* The message of the last failed call on this thread ("" if none). A call
 * that succeeds does not clear it: read it only right after a call returned
 * an error (check the status, never the message, for success). The string
 * stays valid until the next anygpu call on this thread. */
AGPU_API const char *agpu_last_error(void);

/* "0.1.0": the library's version, for comparing with AGPU_VERSION_STRING. */
AGPU_API const char *agpu_version(void);

/* --------------------------------------------------------------- handles */

typedef struct agpu_device agpu_device;
typedef struct agpu_buffer agpu_buffer;
typedef struct agpu_program agpu_program;
typedef struct agpu_kernel agpu_kernel;
typedef struct agpu_queue agpu_queue;
typedef struct agpu_event agpu_event;

/* -------------------------------------------------------------- backends */

typedef enum agpu_backend_kind {
  AGPU_BACKEND_CUDA,
  AGPU_BACKEND_HIP,
  AGPU_BACKEND_VULKAN,
  AGPU_BACKEND_OPENCL,
  AGPU_BACKEND_CPU,
  AGPU_BACKEND_NULL, /* no real device: the skeleton of a backend, for tests */
  /* New kinds go here, at the end: the values above never change. */
  AGPU_BACKEND_COUNT_ /* not an array size for clients: agpu_backend_count() is */
} agpu_backend_kind;

typedef struct agpu_backend_info {
  agpu_backend_kind kind;
  const char *name; /* "cuda", "hip", "vulkan", "opencl", "cpu", "null" */
  bool available;   /* loaded and initialised (it may still have 0 devices) */
  uint32_t device_count;
  const char *library; /* path or soname of the loaded library, "" if none */
  const char *reason;  /* why it is unavailable, or a note; "" if none */
  /* What the backend is, from its descriptor (the same on every machine): */
  uint32_t target;         /* the agpu_target it builds portable kernels for */
  uint32_t gpu_rank;       /* among a GPU's backends, lower is preferred */
  uint32_t cpu_rank;       /* among the CPU's backends, lower is preferred */
  const char *colour;      /* its colour in bench charts, "#rrggbb" */
  uint32_t native_formats; /* bit 1 << f for each agpu_native_format f it loads */
  const char *environment; /* the variables it honours, space-separated */
  bool survives_fork;      /* its devices work in a child after fork() */
  bool testing;            /* no real device (null): never the default device */
} agpu_backend_info;

/* Backends are listed in a fixed order, by kind: cuda, hip, vulkan, opencl,
 * cpu, null. */
AGPU_API uint32_t agpu_backend_count(void);
AGPU_API agpu_status agpu_backend_get_info(uint32_t index, agpu_backend_info *info);
/* Index of the backend called `name`, or AGPU_ERROR_NOT_FOUND. */
AGPU_API agpu_status agpu_backend_find(const char *name, uint32_t *index);

/* --------------------------------------------------------------- devices */

typedef enum agpu_device_type {
  AGPU_DEVICE_TYPE_OTHER = 0,
  AGPU_DEVICE_TYPE_DISCRETE_GPU,
  AGPU_DEVICE_TYPE_INTEGRATED_GPU,
  AGPU_DEVICE_TYPE_VIRTUAL_GPU,
  AGPU_DEVICE_TYPE_CPU,
} agpu_device_type;

AGPU_API const char *agpu_device_type_name(agpu_device_type type);

typedef struct agpu_device_info {
  agpu_backend_kind backend;
  const char *backend_name;
  uint32_t index;    /* index within its backend: "opencl:<index>" */
  char selector[32]; /* "opencl:0" */
  char name[256];
  char vendor[128];
  uint32_t vendor_id; /* PCI vendor id where known (0x10de, 0x1002, 0x8086) */
  uint32_t device_id; /* PCI device id where known, else 0 */
  agpu_device_type type;
  char driver_version[128];
  char api_version[128]; /* e.g. "OpenCL 3.0 PoCL ..." or "CUDA 12.4" */
  uint64_t global_mem_bytes;
  uint64_t max_alloc_bytes; /* largest single buffer */
  uint64_t local_mem_bytes; /* work-group shared memory */
  uint32_t compute_units;
  uint32_t max_work_group_size;
  uint32_t max_work_item_sizes[3];
  /* Most work-groups per dimension a launch may have. Where the native API
   * sets no limit anygpu caps it at 2^32-1, so that group ids fit 32 bits on
   * every backend. */
  uint64_t max_work_groups[3];
  uint32_t subgroup_sizes[4]; /* supported subgroup sizes, 0 where unknown */
  uint32_t max_clock_mhz;
  bool fp64;
  bool fp16;
  bool int64;
  bool unified_memory; /* buffers live in host-visible memory */
  bool has_pci;
  char pci[16]; /* "dddd:bb:dd.f" when has_pci */
  bool has_uuid;
  uint8_t uuid[16];
  /* What the native API tells about the hardware (CUDA and HIP fill these;
   * 0 or "" where unknown). The peaks are theoretical figures computed from
   * the device's properties, for benchmarks to compare against. */
  char arch[32];                  /* compile target: "sm_90", "gfx90a" */
  uint32_t memory_clock_mhz;      /* as the native API reports it */
  uint32_t memory_bus_width_bits; /* e.g. 6144 for HBM3 with six stacks */
  uint64_t last_level_cache_bytes;
  double peak_bandwidth_gb_s; /* theoretical device-memory bandwidth, 1e9 B/s */
  double peak_fp32_gflop_s;   /* theoretical FP32 rate, FMA counted as 2 */
  /* Limits that decide what a launch does (docs/api.md, "At a device's
   * limits"); 0 where the backend has none. */
  uint64_t max_buffer_range_bytes; /* bytes of one buffer a kernel sees through one binding
                                      (Vulkan maxStorageBufferRange) */
  bool buffers_by_address;         /* a larger buffer is reached by its device address
                                      instead; else such a launch is refused */
  uint32_t max_buffer_params;      /* buffer parameters of one kernel through bindings
                                      (Vulkan: storage buffers per shader, the parameter
                                      block's included); past it, with buffers_by_address,
                                      the last ones go by address, else it is refused */
  uint32_t max_param_bytes;        /* bytes of all of a kernel's arguments, 8 per buffer or
                                      __local pointer (OpenCL CL_DEVICE_MAX_PARAMETER_SIZE) */
} agpu_device_info;

/* All devices of all available backends, in backend order. Enumeration runs
 * once, on the first call of any function, and is thread-safe. */
AGPU_API agpu_status agpu_device_count(uint32_t *count);
AGPU_API agpu_status agpu_device_get(uint32_t index, agpu_device **device);
AGPU_API agpu_status agpu_device_get_info(const agpu_device *device, agpu_device_info *info);

/* Selector: terms joined by ';'. A term is BACKEND:FILTER where BACKEND is a
 * backend name or '*', and FILTER is an index, '*', or a type: gpu, cpu,
 * discrete, integrated. A term starting with '!' excludes what it matches.
 * Positive terms are tried in order; within a term the best device wins
 * (discrete GPU, other GPU, then CPU). NULL or "" means $ANYGPU_DEVICE, or the
 * best device when that is unset. */
AGPU_API agpu_status agpu_device_select(const char *selector, agpu_device **device);
/* Every device the selector matches, best first; *count is the number that
 * matched even when it exceeds capacity. */
AGPU_API agpu_status agpu_device_select_all(const char *selector, agpu_device **devices,
                                            uint32_t capacity, uint32_t *count);
/* This process's rank on its node, as its launcher exported it: the first of
 * OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID and
 * PMI_LOCAL_RANK that is set. *variable (may be NULL) is its name, or NULL when
 * none is set, and then the rank is 0. A value that is not a number is
 * AGPU_ERROR_INVALID_ARGUMENT. The selector suffix "@local" ("*:gpu@local")
 * uses it to give each rank its own device. */
AGPU_API agpu_status agpu_local_rank(uint32_t *rank, const char **variable);

typedef struct agpu_memory_info {
  uint64_t total_bytes;
  uint64_t free_bytes; /* valid when free_known */
  bool free_known;
  uint64_t allocated_bytes; /* held by this process's anygpu buffers now */
  uint64_t peak_allocated_bytes;
} agpu_memory_info;

AGPU_API agpu_status agpu_device_memory(agpu_device *device, agpu_memory_info *info);

/* ---------------------------------------------------------------- queues */

/* In-order queues. Each device has a default queue that is never released
 * (releasing it is a no-op). Events keep their queue: a queue released before
 * its events goes when the last of them does.
 *
 * A NULL queue means a default queue where the call says which device:
 * - agpu_buffer_write, _read, _fill, _map, _unmap: the buffer's device;
 *   agpu_buffer_copy: the source buffer's device;
 * - agpu_launch: the kernel's device;
 * - agpu_queue_finish(NULL): the default queue of every device (all work
 *   queued with a NULL queue); agpu_device_finish waits for one device.
 * Elsewhere a NULL queue is AGPU_ERROR_INVALID_HANDLE: agpu_event_record
 * (an event names no device: pass agpu_device_default_queue's queue) and
 * agpu_queue_release. */
AGPU_API agpu_status agpu_queue_create(agpu_device *device, agpu_queue **queue);
AGPU_API agpu_status agpu_queue_release(agpu_queue *queue);
AGPU_API agpu_status agpu_device_default_queue(agpu_device *device, agpu_queue **queue);
/* Waits until all work submitted to the queue has completed; NULL: to the
 * default queue of every device. */
AGPU_API agpu_status agpu_queue_finish(agpu_queue *queue);
/* Waits until all work submitted to the device has completed: its default
 * queue and every queue created on it that is not released. */
AGPU_API agpu_status agpu_device_finish(agpu_device *device);

/* Records a point in the queue (not NULL); the time between two recorded
 * events of one queue is the device time of the work submitted between them. */
AGPU_API agpu_status agpu_event_record(agpu_queue *queue, agpu_event **event);
AGPU_API agpu_status agpu_event_wait(agpu_event *event);
AGPU_API agpu_status agpu_event_elapsed_ns(agpu_event *start, agpu_event *end, uint64_t *ns);
AGPU_API agpu_status agpu_event_release(agpu_event *event);

/* --------------------------------------------------------------- buffers */

typedef enum agpu_buffer_flags {
  AGPU_BUFFER_READ_WRITE = 0,
  AGPU_BUFFER_READ_ONLY = 1u << 0,    /* kernels only read it (a hint) */
  AGPU_BUFFER_WRITE_ONLY = 1u << 1,   /* kernels only write it (a hint) */
  AGPU_BUFFER_HOST_VISIBLE = 1u << 2, /* prefer memory the host can map */
  /* Data hygiene, for memory that held someone else's data. ZERO_INIT: the
   * buffer reads as zeros when agpu_buffer_create returns. SCRUB_ON_RELEASE:
   * agpu_buffer_release zeroes it before the memory goes back to the driver
   * (finish the work that uses it first). Both zero through the backend's
   * fill on an internal queue of the device and wait for it; a failed scrub
   * is returned by agpu_buffer_release, which releases the buffer anyway. */
  AGPU_BUFFER_ZERO_INIT = 1u << 3,
  AGPU_BUFFER_SCRUB_ON_RELEASE = 1u << 4,
} agpu_buffer_flags;

AGPU_API agpu_status agpu_buffer_create(agpu_device *device, size_t size, uint32_t flags,
                                        agpu_buffer **buffer);
AGPU_API agpu_status agpu_buffer_release(agpu_buffer *buffer);
AGPU_API size_t agpu_buffer_size(const agpu_buffer *buffer);
AGPU_API agpu_device *agpu_buffer_device(const agpu_buffer *buffer);

/* Transfers take a queue (NULL: the device's default queue) and are ordered
 * with the rest of its work. write returns once `src` may be reused; read
 * returns once `dst` holds the data. copy and fill are queued. */
AGPU_API agpu_status agpu_buffer_write(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                       size_t size, const void *src);
AGPU_API agpu_status agpu_buffer_read(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                      size_t size, void *dst);
AGPU_API agpu_status agpu_buffer_copy(agpu_queue *queue, agpu_buffer *src, size_t src_offset,
                                      agpu_buffer *dst, size_t dst_offset, size_t size);
/* pattern_size is 1, 2, 4, 8 or 16; offset and size are multiples of it. */
AGPU_API agpu_status agpu_buffer_fill(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                      size_t size, const void *pattern, size_t pattern_size);

/* Maps a range for host access after the queue's work completes; returns
 * AGPU_ERROR_UNSUPPORTED where the backend cannot map cheaply. Writes through
 * the pointer are visible to later work once unmapped. Unmapping a pointer
 * that map did not return, or unmapping it twice, is
 * AGPU_ERROR_INVALID_ARGUMENT. */
AGPU_API agpu_status agpu_buffer_map(agpu_queue *queue, agpu_buffer *buffer, size_t offset,
                                     size_t size, void **ptr);
AGPU_API agpu_status agpu_buffer_unmap(agpu_queue *queue, agpu_buffer *buffer, void *ptr);

/* The buffer's address in its device's address space, for handing the memory
 * to another library without a copy (CuPy, PyTorch, Numba through the CUDA
 * Array Interface or DLPack): a CUdeviceptr on CUDA (valid in the device's
 * primary context), a device pointer on HIP, the host pointer on the CPU
 * backend. Valid until the buffer is released; work queued on it may still be
 * running (finish the queue before another library touches the memory).
 * AGPU_ERROR_UNSUPPORTED, *address 0, where the backend has no plain device
 * address (OpenCL, Vulkan: their buffers are reached through handles). */
AGPU_API agpu_status agpu_buffer_device_address(const agpu_buffer *buffer, uint64_t *address);

/* -------------------------------------------------------------- programs */

typedef enum agpu_native_format {
  AGPU_NATIVE_OPENCL_C, /* OpenCL C source, not checked by anygpu */
  AGPU_NATIVE_SPIRV,    /* SPIR-V module (OpenCL IL or Vulkan compute) */
  AGPU_NATIVE_PTX,
  AGPU_NATIVE_CUBIN,
  AGPU_NATIVE_HIP_CODE_OBJECT,
} agpu_native_format;

typedef struct agpu_program_desc {
  const char *source;      /* portable kernel language (a subset of OpenCL C 1.2) */
  size_t source_size;      /* 0: source is NUL-terminated */
  const char *source_name; /* file name used in error messages; NULL: "<source>" */
  const char *options;     /* e.g. "-DN=64 -DTILE=16 -I include"; may be NULL */
  /* Where #include "file" is looked for after the including file's own
   * directory (the main source's is that of source_name, a path; a source
   * with no name, or a name such as "<source>", has none), in order, before
   * the -I options of `options`. NULL when include_dir_count is 0. */
  const char *const *include_dirs;
  uint32_t include_dir_count;
} agpu_program_desc;

/* A build option (in agpu_program_desc.options) that makes every kernel of
 * the program check its accesses to __global, __constant and __local
 * memory against the extents of the buffers and __local arguments it was
 * launched with: a violating load gives 0, a violating store is dropped,
 * and the launch's completion (agpu_queue_finish, the event's wait, the
 * next blocking read) returns AGPU_ERROR_KERNEL_FAULT naming the kernel,
 * parameter, element and work-item (docs/debugging.md, "Bounds checking").
 * ANYGPU_CHECK=bounds in the environment adds it to every build. */
#define AGPU_PROGRAM_CHECK_BOUNDS "-anygpu-check=bounds"

/* Builds portable kernel source for a device. On AGPU_ERROR_BUILD_FAILED the
 * message holds the compiler's log. The build defines __ANYGPU_<BACKEND>__
 * (__ANYGPU_CPU__, __ANYGPU_OPENCL__, __ANYGPU_VULKAN__, __ANYGPU_CUDA__,
 * __ANYGPU_HIP__) for the backend that builds it. */
AGPU_API agpu_status agpu_program_build(agpu_device *device, const agpu_program_desc *desc,
                                        agpu_program **program);
/* The escape hatch: a program in the backend's own format. */
AGPU_API agpu_status agpu_program_create_native(agpu_device *device, agpu_native_format format,
                                                const void *data, size_t size, const char *options,
                                                agpu_program **program);
AGPU_API agpu_status agpu_program_release(agpu_program *program);
/* The build log (warnings), "" when the compiler said nothing. Valid until the
 * program is released. */
AGPU_API const char *agpu_program_build_log(const agpu_program *program);

/* --------------------------------------------------------------- kernels */

typedef enum agpu_param_kind {
  AGPU_PARAM_GLOBAL_BUFFER,   /* __global T* */
  AGPU_PARAM_CONSTANT_BUFFER, /* __constant T* */
  AGPU_PARAM_SCALAR,          /* a scalar or vector passed by value */
  AGPU_PARAM_LOCAL,           /* __local T*: scratch sized at launch */
  AGPU_PARAM_UNKNOWN,         /* the backend could not say (native binaries) */
} agpu_param_kind;

typedef struct agpu_kernel_param {
  char name[64];
  /* The same on every backend: the type without its address space (kind
   * says it), const kept for a pointer to const: "const float*", "float*",
   * "uint", "float4". */
  char type_name[64];
  agpu_param_kind kind;
  uint32_t size; /* bytes of a scalar/vector value; 0 for pointers or unknown */
  bool is_const; /* pointer to const (every __constant buffer); false for values */
} agpu_kernel_param;

typedef struct agpu_kernel_info {
  char name[128];
  uint32_t param_count;
  const agpu_kernel_param *params; /* valid until the kernel is released */
  bool has_required_work_group_size;
  uint32_t required_work_group_size[3];
  uint32_t max_work_group_size; /* for this kernel on its device, 0 if unknown */
} agpu_kernel_info;

/* A name the program lacks is AGPU_ERROR_NOT_FOUND, worded the same on
 * every backend: "agpu_kernel_create: the program on cpu:0 has no kernel
 * 'x'; it has: a, b". */
AGPU_API agpu_status agpu_kernel_create(agpu_program *program, const char *name,
                                        agpu_kernel **kernel);
AGPU_API agpu_status agpu_kernel_release(agpu_kernel *kernel);
AGPU_API agpu_status agpu_kernel_get_info(const agpu_kernel *kernel, agpu_kernel_info *info);

/* ---------------------------------------------------------------- launch */

typedef enum agpu_arg_kind {
  AGPU_ARG_BUFFER,
  AGPU_ARG_VALUE, /* scalar or vector, by value */
  AGPU_ARG_LOCAL, /* bytes of __local scratch */
} agpu_arg_kind;

#define AGPU_ARG_MAX_VALUE_SIZE 128 /* a double16 */

typedef struct agpu_arg {
  agpu_arg_kind kind;
  /* value bytes, or local bytes. A size that does not fit (a value over
   * AGPU_ARG_MAX_VALUE_SIZE, local memory of 4 GiB or more) is UINT32_MAX
   * here with the whole count in value.u64, so that the launch refuses it
   * with the size asked for, never a truncated one. */
  uint32_t size;
  agpu_buffer *buffer;
  union {
    uint8_t bytes[AGPU_ARG_MAX_VALUE_SIZE];
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  } value;
} agpu_arg;

static inline agpu_arg agpu_arg_buffer(agpu_buffer *buffer) {
  agpu_arg a;
  memset(&a, 0, sizeof a);
  a.kind = AGPU_ARG_BUFFER;
  a.buffer = buffer;
  return a;
}
/* A value of `size` bytes (at most AGPU_ARG_MAX_VALUE_SIZE), e.g. a float4. */
static inline agpu_arg agpu_arg_value(const void *data, size_t size) {
  agpu_arg a;
  memset(&a, 0, sizeof a);
  a.kind = AGPU_ARG_VALUE;
  if (size > AGPU_ARG_MAX_VALUE_SIZE) {
    a.size = UINT32_MAX; /* refused by agpu_launch, naming `size` */
    a.value.u64 = (uint64_t)size;
    return a;
  }
  a.size = (uint32_t)size;
  if (data) memcpy(a.value.bytes, data, size);
  return a;
}
static inline agpu_arg agpu_arg_i32(int32_t v) {
  return agpu_arg_value(&v, sizeof v);
}
static inline agpu_arg agpu_arg_u32(uint32_t v) {
  return agpu_arg_value(&v, sizeof v);
}
static inline agpu_arg agpu_arg_i64(int64_t v) {
  return agpu_arg_value(&v, sizeof v);
}
static inline agpu_arg agpu_arg_u64(uint64_t v) {
  return agpu_arg_value(&v, sizeof v);
}
static inline agpu_arg agpu_arg_f32(float v) {
  return agpu_arg_value(&v, sizeof v);
}
static inline agpu_arg agpu_arg_f64(double v) {
  return agpu_arg_value(&v, sizeof v);
}
static inline agpu_arg agpu_arg_local(size_t bytes) {
  agpu_arg a;
  memset(&a, 0, sizeof a);
  a.kind = AGPU_ARG_LOCAL;
  a.size = bytes < UINT32_MAX ? (uint32_t)bytes : UINT32_MAX;
  a.value.u64 = (uint64_t)bytes; /* the whole count, read by agpu_launch */
  return a;
}

/* Queues a kernel over `global` work-items in `dims` dimensions (1 to 3), in
 * work-groups of `local`; global[d] must be a multiple of local[d]. NULL: the
 * kernel's required size, else a power of two suited to the device in
 * dimension 0 (256 on a GPU, 64 on a CPU), the last group smaller where it
 * does not divide global[0] and the backend can run that, else the largest
 * divisor of global[0] up to 256 (docs/api.md, "Launch"). Returns once queued; errors that the
 * queued work raises come back from the next call that waits for the queue. The arguments are
 * checked against the kernel's parameters and the device's limits; a wrong
 * launch returns AGPU_ERROR_INVALID_LAUNCH naming the argument (a NULL,
 * released or foreign buffer among them: AGPU_ERROR_INVALID_HANDLE). */
AGPU_API agpu_status agpu_launch(agpu_queue *queue, agpu_kernel *kernel, uint32_t dims,
                                 const size_t global[], const size_t local[], uint32_t nargs,
                                 const agpu_arg args[]);

/* ------------------------------------------------------ load attempts */

/* Every library a backend tried to open, in order, with the loader's
 * message: `name` is the soname or path tried, `error` its dlerror() ("" for
 * the one that loaded). Both stay valid for the life of the process.
 * AGPU_ERROR_NOT_FOUND when `attempt` is past the last one. */
AGPU_API agpu_status agpu_backend_load_attempt_count(uint32_t backend, uint32_t *count);
AGPU_API agpu_status agpu_backend_get_load_attempt(uint32_t backend, uint32_t attempt,
                                                   const char **name, const char **error);

/* ------------------------------------------------------ physical devices */

/* The same GPU seen through several APIs is one physical device. Devices are
 * grouped by PCI address first; then by UUID, only between devices whose
 * vendor's APIs agree on UUIDs (NVIDIA: CUDA, OpenCL and Vulkan do; AMD and
 * Intel do not); then, for what is left, by a guess on vendor id, device id
 * (or name) and memory size between devices of different backends, which is
 * marked uncertain. Every CPU device (the built-in one, PoCL, lavapipe) is
 * part of one physical "CPU". Physical devices are numbered: those with a PCI
 * address in address order, then the others in device order, the CPU last.
 * In a selector, `phys:N` names the members of physical device N (best
 * first: the native backend) and `pci:dddd:bb:dd.f` those of the device at
 * that PCI address; both combine with the other terms and with '!'. */

typedef enum agpu_physical_match {
  AGPU_PHYSICAL_MATCH_SINGLE, /* one device: nothing to match */
  AGPU_PHYSICAL_MATCH_PCI,    /* the members report the same PCI address */
  AGPU_PHYSICAL_MATCH_UUID,   /* ... the same UUID, where the vendor's UUIDs agree */
  AGPU_PHYSICAL_MATCH_GUESS,  /* same vendor, device id or name, and memory: uncertain */
  AGPU_PHYSICAL_MATCH_CPU,    /* the host CPU, as every CPU device is */
} agpu_physical_match;

/* "single", "pci", "uuid", "guess", "cpu"; never NULL. */
AGPU_API const char *agpu_physical_match_name(agpu_physical_match match);

#define AGPU_PHYSICAL_MAX_MEMBERS 32

typedef struct agpu_physical_device_info {
  uint32_t index; /* "phys:<index>" */
  char id[16];    /* "phys:0" */
  char name[256]; /* the name its native backend reports, else the first member's */
  agpu_device_type type;
  uint32_t vendor_id;
  uint32_t device_id;
  uint64_t global_mem_bytes;
  bool has_pci;
  char pci[16]; /* "dddd:bb:dd.f" */
  bool has_uuid;
  uint8_t uuid[16];
  /* The weakest key that joined the members; a guess is uncertain. */
  agpu_physical_match match;
  bool uncertain;
  /* One API lists this device twice (two Vulkan drivers for one card):
   * `duplicate_backend` names the first such backend. */
  bool duplicate_in_backend;
  const char *duplicate_backend; /* "" when none */
  /* The members' selectors ("cuda:0", "opencl:1"), in device order. */
  uint32_t member_count;
  char members[AGPU_PHYSICAL_MAX_MEMBERS][32];
} agpu_physical_device_info;

AGPU_API agpu_status agpu_physical_device_count(uint32_t *count);
AGPU_API agpu_status agpu_physical_device_get_info(uint32_t index, agpu_physical_device_info *info);
/* The `member`th device of physical device `index`. */
AGPU_API agpu_status agpu_physical_device_member(uint32_t index, uint32_t member,
                                                 agpu_device **device);
/* The physical device a device belongs to. */
AGPU_API agpu_status agpu_device_physical_index(const agpu_device *device, uint32_t *index);

/* ------------------------------------------------------------- telemetry */

/* What the devices are doing now: memory, utilisation, temperature, power,
 * clocks, fan and the processes using them (docs/telemetry.md). Sources are
 * read at run time like every vendor library: /proc and hwmon/powercap for
 * the CPU, the amdgpu sysfs files, hwmon and the DRM clients' fdinfo for
 * every DRM driver, NVML (libnvidia-ml.so.1, dlopen'd) for NVIDIA. A source
 * that is missing or unreadable is named with its reason. Every field has
 * its own `known` flag: an unknown field is never reported as 0. Rates
 * (utilisation, power from energy counters, a process's engine time) are
 * deltas between two samples. */

typedef struct agpu_telemetry_bytes {
  bool known;
  uint64_t bytes;
} agpu_telemetry_bytes;

typedef struct agpu_telemetry_value {
  bool known;
  double value;
} agpu_telemetry_value;

#define AGPU_TELEMETRY_MAX_PROCESSES 32
#define AGPU_TELEMETRY_MAX_MISSING 8

typedef struct agpu_process_telemetry {
  uint32_t pid;
  char name[64];                       /* the command name (/proc/PID/comm) */
  agpu_telemetry_bytes memory;         /* device memory (the CPU: resident memory) */
  agpu_telemetry_bytes shared_memory;  /* host memory the device maps (GTT) */
  agpu_telemetry_value engine_percent; /* busy time over the sample's window */
} agpu_process_telemetry;

/* A source that could not be read for this device, and why. */
typedef struct agpu_telemetry_missing {
  char source[32]; /* "nvml", "powercap", "hwmon", "fdinfo", ... */
  char reason[224];
} agpu_telemetry_missing;

#define AGPU_TELEMETRY_MAX_PARTITIONS 8

/* A partition of a GPU with memory of its own (an NVIDIA MIG instance). */
typedef struct agpu_telemetry_partition {
  char name[96];        /* "NVIDIA H100 80GB HBM3 MIG 1g.10gb" */
  uint32_t instance_id; /* NVML's GPU instance id */
  agpu_telemetry_bytes memory_total, memory_used, memory_free;
} agpu_telemetry_partition;

typedef struct agpu_device_telemetry {
  char name[128]; /* the CPU's model name, the GPU's marketing or driver name */
  agpu_device_type type;
  char driver[32]; /* "cpu", "amdgpu", "xe", "i915", "nvidia", ... */
  bool has_pci;
  char pci[16]; /* "dddd:bb:dd.f" */
  /* This process's physical device ("phys:N"), UINT32_MAX when the sample
   * did not ask for the match, replays a sysroot, or none matches. */
  uint32_t physical_index;
  char sources[96]; /* the sources that answered, comma-separated */
  agpu_telemetry_bytes memory_total, memory_used, memory_free;
  agpu_telemetry_bytes shared_total, shared_used; /* GTT, where reported */
  agpu_telemetry_value utilization_percent;       /* busiest engine, over the window */
  agpu_telemetry_value temperature_c;
  char temperature_sensor[64]; /* "k10temp Tctl", "amdgpu edge" */
  agpu_telemetry_value power_w, power_limit_w;
  agpu_telemetry_value clock_mhz, clock_max_mhz;               /* core */
  agpu_telemetry_value memory_clock_mhz, memory_clock_max_mhz; /* memory */
  agpu_telemetry_value fan_percent;
  bool throttle_known;
  char throttle_reasons[128]; /* "" when known and none */
  /* Processes using the device, most memory first (the CPU: the largest
   * resident sets). */
  bool processes_known;
  bool processes_truncated;
  uint32_t process_count;
  agpu_process_telemetry processes[AGPU_TELEMETRY_MAX_PROCESSES];
  uint32_t missing_count;
  agpu_telemetry_missing missing[AGPU_TELEMETRY_MAX_MISSING];
  /* Its partitions (MIG instances), when it is partitioned. */
  uint32_t partition_count;
  agpu_telemetry_partition partitions[AGPU_TELEMETRY_MAX_PARTITIONS];
} agpu_device_telemetry;

typedef struct agpu_telemetry agpu_telemetry;

typedef struct agpu_telemetry_desc {
  const char *sysroot; /* NULL or "": the running system; else /sys and /proc under it */
  /* Rates are deltas since `previous` (a sample of the same sysroot); with
   * no previous sample, two reads `interval_ms` apart (0: rates unknown). */
  const agpu_telemetry *previous;
  uint32_t interval_ms;
  /* Match each device to this process's physical devices (loads the
   * backends on first use: tenths of a second, once); not under a sysroot. */
  bool match_physical;
} agpu_telemetry_desc;

/* One sample of every device the sources know: the CPU first, then the GPUs
 * in PCI address order. Release it with agpu_telemetry_release. */
AGPU_API agpu_status agpu_telemetry_sample(const agpu_telemetry_desc *desc,
                                           agpu_telemetry **sample);
/* 0 for NULL. */
AGPU_API uint32_t agpu_telemetry_device_count(const agpu_telemetry *sample);
AGPU_API agpu_status agpu_telemetry_get_device(const agpu_telemetry *sample, uint32_t index,
                                               agpu_device_telemetry *device);
/* The window the rates cover, in seconds; 0 when rates are unknown. */
AGPU_API double agpu_telemetry_window_s(const agpu_telemetry *sample);
/* The sources tried for the whole sample ("proc", "drm", "nvml"): `reason`
 * is "" for one that answered, else why not ("NVML not found: ..."). Both
 * strings live as long as the sample. */
AGPU_API uint32_t agpu_telemetry_source_count(const agpu_telemetry *sample);
AGPU_API agpu_status agpu_telemetry_get_source(const agpu_telemetry *sample, uint32_t index,
                                               const char **name, const char **reason);
AGPU_API void agpu_telemetry_release(agpu_telemetry *sample);
/* Physical device `index` of this process (agpu_physical_device_count),
 * sampled on the running system with rates over `interval_ms`. */
AGPU_API agpu_status agpu_physical_device_telemetry(uint32_t index, uint32_t interval_ms,
                                                    agpu_device_telemetry *telemetry);

/* ----------------------------------------------------------- translation */

/* The kernel translator on its own: portable kernel source in, a target's
 * source out, with the kernels' signatures. This is what `anygpu compile`
 * prints; the backends use the same translator inside agpu_program_build. */

typedef enum agpu_target {
  AGPU_TARGET_OPENCL, /* normalised OpenCL C 1.2 */
  AGPU_TARGET_CUDA,   /* CUDA C++ for NVRTC */
  AGPU_TARGET_HIP,    /* HIP C++ for hiprtc */
  AGPU_TARGET_GLSL,   /* GLSL 4.50 compute, one kernel per shader */
  AGPU_TARGET_C,      /* host C11, as the CPU backend compiles it */
  AGPU_TARGET_SPIRV,  /* the GLSL compiled to SPIR-V 1.3 (Vulkan 1.1): a binary */
  AGPU_TARGET_COUNT_
} agpu_target;

/* "opencl", "cuda", "hip", "glsl", "c", "spirv"; NULL for an unknown target. */
AGPU_API const char *agpu_target_name(agpu_target target);

typedef struct agpu_translate_desc {
  const char *source;
  size_t source_size;      /* 0: NUL-terminated */
  const char *source_name; /* for diagnostics; NULL: "<source>" */
  const char *options;     /* "-DN=4"; may be NULL */
  agpu_target target;
  const char *kernel; /* GLSL, SPIR-V: the kernel (NULL: the only one) */
  /* What the device is assumed to have: decides cl_khr_fp64 and friends. */
  bool no_fp64;
  bool fp16;
  /* As in agpu_program_desc. */
  const char *const *include_dirs;
  uint32_t include_dir_count;
} agpu_translate_desc;

typedef struct agpu_translation agpu_translation;

/* On a kernel with errors, AGPU_ERROR_BUILD_FAILED with every diagnostic
 * ("file:line:col: error: ...", the line and a caret) in the message.
 * AGPU_TARGET_SPIRV compiles the GLSL target's shader with glslang inside the
 * library; a library built without glslang (no glslang-dev at configure
 * time) answers AGPU_ERROR_UNSUPPORTED for it, and a shader glslang rejects
 * is an internal error of the translator, AGPU_ERROR_INTERNAL with glslang's
 * log. The first SPIR-V compile of a process initialises glslang (global to
 * the process, never finalised; tens of milliseconds). */
AGPU_API agpu_status agpu_translate(const agpu_translate_desc *desc,
                                    agpu_translation **translation);
/* The target's source text; "" for a binary target (SPIR-V: no
 * disassembly), whose bytes agpu_translation_binary gives. */
AGPU_API const char *agpu_translation_output(const agpu_translation *translation);
/* A binary target's output (SPIR-V: the module's 32-bit words, host byte
 * order, *size in bytes, a multiple of 4); NULL with *size 0 for a text
 * target. Owned by the translation. */
AGPU_API const void *agpu_translation_binary(const agpu_translation *translation, size_t *size);
/* {"kernels": [{"name", "params": [...], "features", ...}]} */
AGPU_API const char *agpu_translation_signature_json(const agpu_translation *translation);
/* Warnings, in the diagnostics format; "" when there were none. */
AGPU_API const char *agpu_translation_diagnostics(const agpu_translation *translation);
AGPU_API void agpu_translation_release(agpu_translation *translation);

/* ---------------------------------------------------------------- printf */

/* printf in kernels (docs/debugging.md, "printf"), with OpenCL C's format
 * rules, on every device. Each launch of a kernel that prints gets a buffer
 * (1 MiB; ANYGPU_PRINTF_BUFFER=BYTES sets it); its output is reported when
 * the launch is known to be done: agpu_queue_finish or agpu_device_finish
 * of its queue, agpu_event_wait of an event recorded after it, a blocking
 * agpu_buffer_read on its queue, or the queue's release. The output of one
 * launch comes ordered by work-group (linear id), then work-item (linear
 * local id), then the order each work-item printed in; what did not fit
 * ends with a line "anygpu: kernel 'k': N printf lines dropped ...". It
 * goes to stdout, or, once this is set, to `callback` (NULL: stdout again),
 * called with one launch's text at a time, never concurrently; the callback
 * must not wait for a queue (finish, wait, blocking read) itself. */
typedef void (*agpu_printf_callback)(const char *text, size_t length, void *user_data);
AGPU_API agpu_status agpu_set_printf_callback(agpu_printf_callback callback, void *user_data);

/* ----------------------------------------------------------------- trace */

/* The timeline trace (docs/debugging.md): from agpu_trace_start to
 * agpu_trace_stop, every program build, buffer read, write, copy and fill,
 * launch, queue finish and event wait, on every thread, is recorded with
 * host timestamps, and launches, copies and fills also with the device's own
 * (through the backend's events, where it has them). agpu_trace_stop writes
 * them to `path` in the Chrome trace event format (chrome://tracing,
 * Perfetto): a track group per device, and per queue a track of host calls
 * and one of device time. The environment variable ANYGPU_TRACE=FILE starts
 * a trace when the backends are loaded; a trace still recording at exit is
 * written then (without device times not yet resolved). Starting while a
 * trace records, or stopping when none does, is AGPU_ERROR_INVALID_ARGUMENT;
 * so is a path that cannot be opened for writing (checked at start).
 * agpu_trace_stop waits for the traced work still queued, to learn its
 * device times, and returns an error that work raised (as a finish would),
 * after writing the file. */
AGPU_API agpu_status agpu_trace_start(const char *path);
AGPU_API agpu_status agpu_trace_stop(void);

#ifdef __cplusplus
}
#endif
#endif /* ANYGPU_H */
