// SPDX-License-Identifier: Apache-2.0
/* What the OpenCL backend's files share: the run-time symbol table, the
 * native state behind each core handle, and the error helpers. */
#ifndef AGPU_OPENCL_INTERNAL_H
#define AGPU_OPENCL_INTERNAL_H

/* The 1.1 marker and 1.2 queue calls are the fallbacks for old drivers. */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
/* Include directories with spaces in their path a build may name by an
 * open descriptor (opencl_program.c). */
#define AGPU_CL_MAX_INCLUDE_FDS 16

#include <CL/cl_icd.h> /* cl.h, cl_ext.h and the cl_api_* function pointer types */

#include "agpu_backend.h"

/* X(name, optional): every entry point the backend calls. The optional ones
 * are 1.2+ (or deprecated) and are used only where the device's version says
 * the driver implements them; an ICD loader exports them all regardless. */
#define AGPU_OPENCL_SYMBOLS(X)                \
  X(clGetPlatformIDs, false)                  \
  X(clGetPlatformInfo, false)                 \
  X(clGetDeviceIDs, false)                    \
  X(clGetDeviceInfo, false)                   \
  X(clCreateContext, false)                   \
  X(clReleaseContext, false)                  \
  X(clCreateCommandQueue, true)               \
  X(clCreateCommandQueueWithProperties, true) \
  X(clReleaseCommandQueue, false)             \
  X(clFinish, false)                          \
  X(clCreateBuffer, false)                    \
  X(clReleaseMemObject, false)                \
  X(clEnqueueReadBuffer, false)               \
  X(clEnqueueWriteBuffer, false)              \
  X(clEnqueueCopyBuffer, false)               \
  X(clEnqueueFillBuffer, true)                \
  X(clEnqueueMapBuffer, false)                \
  X(clEnqueueUnmapMemObject, false)           \
  X(clEnqueueMigrateMemObjects, true)         \
  X(clCreateProgramWithSource, false)         \
  X(clCreateProgramWithBinary, false)         \
  X(clCreateProgramWithIL, true)              \
  X(clBuildProgram, false)                    \
  X(clGetProgramInfo, false)                  \
  X(clGetProgramBuildInfo, false)             \
  X(clReleaseProgram, false)                  \
  X(clCreateKernel, false)                    \
  X(clGetKernelInfo, false)                   \
  X(clGetKernelArgInfo, true)                 \
  X(clGetKernelWorkGroupInfo, false)          \
  X(clSetKernelArg, false)                    \
  X(clReleaseKernel, false)                   \
  X(clEnqueueNDRangeKernel, false)            \
  X(clEnqueueMarker, true)                    \
  X(clEnqueueMarkerWithWaitList, true)        \
  X(clWaitForEvents, false)                   \
  X(clGetEventInfo, false)                    \
  X(clGetEventProfilingInfo, false)           \
  X(clRetainEvent, false)                     \
  X(clReleaseEvent, false)

/* backend->native: the loaded library, read-only after init. */
typedef struct agpu_cl_api {
  void *library;
#define AGPU_CL_API_FIELD(name, optional) cl_api_##name name;
  AGPU_OPENCL_SYMBOLS(AGPU_CL_API_FIELD)
#undef AGPU_CL_API_FIELD
} agpu_cl_api;

/* device->native, read-only after init. Versions are 10 * major + minor. */
typedef struct agpu_cl_device {
  const agpu_cl_api *api;
  cl_platform_id platform;
  cl_device_id id;
  cl_context context;
  cl_command_queue setup_queue; /* makes new buffers resident; NULL on CPU devices */
  unsigned version;             /* CL_DEVICE_VERSION */
  unsigned c_version;           /* CL_DEVICE_OPENCL_C_VERSION */
  cl_uint address_bits;
  bool compiler_available;
  bool has_amd_free_memory;
  bool migrate_new_buffers; /* see agpu_cl_make_resident */
  bool accepts_spirv;
} agpu_cl_device;

/* queue->native. `last` is the latest command's event (retained), the timing
 * fallback for drivers whose markers carry no profiling info. */
typedef struct agpu_cl_queue {
  cl_command_queue queue;
  pthread_mutex_t lock; /* guards last */
  cl_event last;
} agpu_cl_queue;

/* event->native: a marker, and the command queued just before it. */
typedef struct agpu_cl_event {
  cl_event marker;
  cl_event before; /* retained, may be NULL */
} agpu_cl_event;

/* kernel->native. clSetKernelArg is not thread-safe on one kernel, so a launch
 * sets the arguments and enqueues under the lock. */
/* A group shape a kernel was launched with: PoCL compiles one work-group
 * function for each, on its own thread, when such a launch first runs. */
typedef struct agpu_cl_shape {
  uint32_t dims;
  bool offset; /* the smaller last group's launch, at a global offset */
  size_t local[3];
} agpu_cl_shape;

#define AGPU_CL_SHAPES_KEPT 32

typedef struct agpu_cl_kernel {
  cl_kernel kernel;
  pthread_mutex_t lock;
  agpu_cl_shape shapes[AGPU_CL_SHAPES_KEPT]; /* under lock */
  uint32_t shape_count;
} agpu_cl_kernel;

static inline agpu_cl_device *agpu_cl_device_of(const agpu_device *device) {
  return (agpu_cl_device *)device->native;
}

/* opencl_backend.c: error names and statuses. */
const char *agpu_cl_error_name(cl_int error);
agpu_status agpu_cl_status(cl_int error);
/* Sets "opencl: <call> failed: CL_NAME (code)" with the mapped status. */
agpu_status agpu_cl_fail(const char *call, cl_int error);
bool agpu_cl_has_extension(const char *extensions, const char *name);

/* opencl_loader.c: NULL (with backend->reason set) when there is no library. */
agpu_cl_api *agpu_cl_load(agpu_backend *backend);

/* opencl_device.c */
agpu_status agpu_cl_enumerate(agpu_backend *backend, const agpu_cl_api *api);
uint32_t agpu_cl_device_caps(agpu_device *device);
agpu_status agpu_cl_device_memory(agpu_device *device, agpu_memory_info *info);

/* opencl_memory.c */
/* An in-order command queue on the device's context; *call names the entry
 * point used, for messages. */
cl_command_queue agpu_cl_new_command_queue(const agpu_cl_device *device, bool profiling,
                                           const char **call, cl_int *error);
AGPU_DECLARE_MEMORY_OPS(agpu_cl);
/* Makes `event` (a completed enqueue's) the queue's last command; takes it over. */
void agpu_cl_queue_track(agpu_queue *queue, cl_event event);
agpu_status agpu_cl_buffer_map(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                               void **ptr);
agpu_status agpu_cl_buffer_unmap(agpu_queue *queue, agpu_buffer *buffer, void *ptr);

/* opencl_program.c */
agpu_status agpu_cl_program_build(agpu_program *program, const agpu_program_desc *desc);
/* Builds `created` (taken over) for the device; on success it becomes
 * program->native and its log program->build_log; a failure names
 * `function` (opencl_program.c). `compiles`: from source or IL, on a
 * thread with the compiler's stack; false for a driver binary. */
agpu_status agpu_cl_finish_build(agpu_program *program, cl_program created, const char *options,
                                 bool compiles, const char *source_name, const char *function);

/* The kernel cache's compiled programs (opencl_binary.c): the key of a build
 * (the source as given and preprocessed, the options, the device, driver and
 * platform); a build from the stored binary (AGPU_ERROR_NOT_FOUND on a miss
 * or a binary the driver refuses); the built program's binary stored. */
bool agpu_cl_binary_key(const agpu_program *program, const char *source, size_t source_size,
                        const char *preprocessed, const char *options, char hex[65]);
agpu_status agpu_cl_build_from_binary(agpu_program *program, const char *key_hex,
                                      const char *options, const char *source_name);
void agpu_cl_store_binary(const agpu_program *program, const char *key_hex);
/* Built programs shared within the process (opencl_binary.c): a build of a
 * key that a live agpu_program of the device was built under takes its
 * cl_program and build log (AGPU_ERROR_NOT_FOUND when there is none, or
 * with ANYGPU_CACHE=0); a keyed build that succeeded offers its own; a
 * release drops the program's use and releases the cl_program with the
 * last (or at once when it was never shared). Thread-safe. */
agpu_status agpu_cl_reuse_built(agpu_program *program, const char *key_hex);
void agpu_cl_share_built(agpu_program *program, const char *key_hex);
void agpu_cl_release_built(agpu_program *program);
agpu_status agpu_cl_program_create_native(agpu_program *program, agpu_native_format format,
                                          const void *data, size_t size, const char *options);
AGPU_DECLARE_KERNEL_OPS(agpu_cl);

#endif /* AGPU_OPENCL_INTERNAL_H */
