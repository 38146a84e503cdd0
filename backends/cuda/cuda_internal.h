// SPDX-License-Identifier: Apache-2.0
/* What the CUDA backend's files share: the loaded driver library, the native
 * state behind each core handle, NVRTC, and the error helpers. */
#ifndef AGPU_CUDA_INTERNAL_H
#define AGPU_CUDA_INTERNAL_H

#include "agpu_backend.h"
#include "agpu_signature.h"
#include "cuda_driver_api.h"

/* backend->native: libcuda and its entry points, read-only after init. */
typedef struct agpu_cuda_api {
  void *library;
  char path[512];     /* the file that loaded (from the dynamic linker) */
  int driver_version; /* cuDriverGetVersion: 12040 for CUDA 12.4 */
#define AGPU_CUDA_API_FIELD(field, symbol, optional, parameters) agpu_cu_pfn_##field field;
  AGPU_CUDA_SYMBOLS(AGPU_CUDA_API_FIELD)
#undef AGPU_CUDA_API_FIELD
} agpu_cuda_api;

/* device->native. The primary context is retained on first use, under the
 * lock; everything else is read-only after init. */
typedef struct agpu_cuda_device {
  const agpu_cuda_api *api;
  agpu_cu_device ordinal;
  int compute_capability; /* 10 * major + minor: 90 for sm_90 */
  int shared_per_block;   /* default limit of a block, static + dynamic */
  int shared_per_block_optin;
  pthread_mutex_t lock;
  agpu_cu_context context; /* NULL until retained */
} agpu_cuda_device;

/* One kernel of a program: its public signature, from the translator (or
 * from cuFuncGetParamInfo for native programs). */
/* A translated kernel's signature, from the core's parse. */
typedef agpu_kernel_signature agpu_cuda_kernel_entry;

/* program->native */
typedef struct agpu_cuda_program {
  agpu_cu_module module;
  bool translated; /* kernels take the hidden kl_cuda_launch_info parameter */
  char target[32]; /* "sm_90", "compute_90", or the native format */
  uint32_t kernel_count;
  agpu_cuda_kernel_entry *kernels;
} agpu_cuda_program;

/* kernel->native */
typedef struct agpu_cuda_kernel {
  agpu_cu_function function;
  bool launch_info; /* pass kl_cuda_launch_info after the arguments */
  int static_shared_bytes;
  pthread_mutex_t lock;   /* guards max_dynamic_shared */
  int max_dynamic_shared; /* the function's current dynamic shared memory limit */
} agpu_cuda_kernel;

static inline agpu_cuda_device *agpu_cuda_device_of(const agpu_device *device) {
  return (agpu_cuda_device *)device->native;
}

static inline agpu_cu_deviceptr agpu_cuda_pointer(const agpu_buffer *buffer) {
  return (agpu_cu_deviceptr)(uintptr_t)buffer->native;
}

/* cuda_error.c */
/* "CUDA_ERROR_OUT_OF_MEMORY"; never NULL. `api` may be NULL. */
const char *agpu_cuda_result_name(const agpu_cuda_api *api, agpu_cu_result result);
/* cuGetErrorString's text, or "" when there is none. */
const char *agpu_cuda_result_text(const agpu_cuda_api *api, agpu_cu_result result);
agpu_status agpu_cuda_status(agpu_cu_result result);
/* Sets "cuda: <call> failed: NAME (code): text" with the mapped status. */
agpu_status agpu_cuda_fail(const agpu_cuda_api *api, const char *call, agpu_cu_result result);

/* cuda_loader.c: NULL (with backend->reason set) when there is no usable
 * driver; the library then stays loaded. */
agpu_cuda_api *agpu_cuda_load(agpu_backend *backend);

/* cuda_device.c */
agpu_status agpu_cuda_enumerate(agpu_backend *backend, const agpu_cuda_api *api);
uint32_t agpu_cuda_device_caps(agpu_device *device);
agpu_status agpu_cuda_device_memory(agpu_device *device, agpu_memory_info *info);
/* FP32 lanes per SM for a compute capability (90 -> 128), 0 when unknown. */
uint32_t agpu_cuda_fp32_lanes_per_sm(int compute_capability);
/* Makes the device's primary context current on this thread, retaining it
 * on first use; every successful enter is paired with agpu_cuda_leave. */
agpu_status agpu_cuda_enter(const agpu_device *device);
void agpu_cuda_leave(const agpu_device *device);

/* cuda_memory.c */
AGPU_DECLARE_MEMORY_OPS(agpu_cuda);
agpu_status agpu_cuda_buffer_device_address(agpu_buffer *buffer, uint64_t *address);

/* cuda_nvrtc.c: NVRTC, found with dlopen once per process. */
#define AGPU_NVRTC_MAX_ARCHES 64
typedef struct agpu_cuda_nvrtc {
  void *library;
  char path[512];
  int major, minor;
  int arches[AGPU_NVRTC_MAX_ARCHES]; /* what nvrtcGetSupportedArchs lists (90 = sm_90) */
  int arch_count;
#define AGPU_NVRTC_FIELD(field, optional, parameters) agpu_nvrtc_pfn_##field field;
  AGPU_NVRTC_SYMBOLS(AGPU_NVRTC_FIELD)
#undef AGPU_NVRTC_FIELD
  agpu_nvrtc_pfn_nvrtcGetErrorString nvrtcGetErrorString;
} agpu_cuda_nvrtc;

/* The process's NVRTC, or NULL with *why (static text) saying every place
 * that was tried and why each failed. Thread-safe. */
const agpu_cuda_nvrtc *agpu_cuda_nvrtc_get(const char **why);

/* What NVRTC makes for a device of compute capability `cc`: a cubin for
 * sm_<cc> when NVRTC lists that architecture, else PTX for the newest
 * compute_XY it lists that is not above cc (the driver compiles the PTX).
 * False (with `target` naming why) when NVRTC knows no architecture at or
 * below cc. */
bool agpu_cuda_choose_target(const agpu_cuda_nvrtc *nvrtc, int cc, bool force_ptx, char *target,
                             size_t target_size, bool *cubin);

typedef struct agpu_cuda_binary {
  char *data; /* malloc'd; a PTX text keeps its NUL */
  size_t size;
  bool cubin;
  char target[32]; /* "sm_90" or "compute_90" */
  char *log;       /* NVRTC's log (malloc'd), NULL when it said nothing */
} agpu_cuda_binary;

/* Compiles translated CUDA C++ with NVRTC for a device of compute
 * capability `cc` (see agpu_cuda_choose_target; force_ptx skips the cubin).
 * On failure the status is AGPU_ERROR_BUILD_FAILED (the log in the message
 * and in out->log) or AGPU_ERROR_UNSUPPORTED (no NVRTC, no architecture). */
agpu_status agpu_cuda_compile(const char *source, const char *name, int cc, bool force_ptx,
                              agpu_cuda_binary *out);
void agpu_cuda_binary_free(agpu_cuda_binary *binary);
/* The NVRTC options every build uses, for cache keys. */
extern const char agpu_cuda_nvrtc_options_text[];

/* cuda_program.c */
agpu_status agpu_cuda_program_build(agpu_program *program, const agpu_program_desc *desc);
agpu_status agpu_cuda_program_create_native(agpu_program *program, agpu_native_format format,
                                            const void *data, size_t size, const char *options);
AGPU_DECLARE_KERNEL_OPS(agpu_cuda);

/* cuda_module.c: loads a cubin or PTX into the device's context; on
 * failure the message has the driver's JIT log. */
agpu_status agpu_cuda_module_load(const agpu_device *device, const void *image, const char *what,
                                  agpu_cu_module *module, agpu_cu_result *result);

/* cuda_launch.c */

#endif /* AGPU_CUDA_INTERNAL_H */
