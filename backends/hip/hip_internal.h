// SPDX-License-Identifier: Apache-2.0
/* What the HIP backend's files share: the run-time symbol tables, the native
 * state behind each core handle, the error helpers and the hiprtc compile
 * routine (which the tests call directly). */
#ifndef AGPU_HIP_INTERNAL_H
#define AGPU_HIP_INTERNAL_H

#include "agpu_backend.h"
#include "hip_api.h"

#define AGPU_HIP_FN_TYPE(name, ret, params, optional) typedef ret(*agpu_##name##_fn) params;
AGPU_HIP_SYMBOLS(AGPU_HIP_FN_TYPE)
AGPU_HIPRTC_SYMBOLS(AGPU_HIP_FN_TYPE)
#undef AGPU_HIP_FN_TYPE

/* hiprtc, loaded once per process (agpu_hiprtc_get). */
typedef struct agpu_hiprtc_api {
  void *library;
  char library_name[256]; /* the soname it came from */
  char version[32];       /* "5.2" from hiprtcVersion, "" when unknown */
#define AGPU_HIP_FIELD(name, ret, params, optional) agpu_##name##_fn name;
  AGPU_HIPRTC_SYMBOLS(AGPU_HIP_FIELD)
} agpu_hiprtc_api;

/* backend->native: the runtime library, read-only after init. */
typedef struct agpu_hip_api {
  void *library;
  char library_name[256];
  int runtime_version; /* hipRuntimeGetVersion: major * 10^7 + minor * 10^5 + patch */
  AGPU_HIP_SYMBOLS(AGPU_HIP_FIELD)
#undef AGPU_HIP_FIELD
} agpu_hip_api;

/* device->native, read-only after init. */
typedef struct agpu_hip_device {
  const agpu_hip_api *api;
  int ordinal;
  char gcn_arch_name[AGPU_HIP_GCN_ARCH_NAME_SIZE]; /* "gfx90a:sramecc+:xnack-" */
  uint32_t max_grid[3];                            /* hipDeviceAttributeMaxGridDim* */
} agpu_hip_device;

typedef struct agpu_hip_queue {
  agpu_hipStream_t stream;
} agpu_hip_queue;

typedef struct agpu_hip_event {
  agpu_hipEvent_t event;
} agpu_hip_event;

/* One kernel of a built program: its signature from the translator. */
typedef struct agpu_hip_kernel_entry {
  char name[128];
  uint32_t param_count;
  agpu_kernel_param *params;
  bool has_required_work_group_size;
  uint32_t required_work_group_size[3];
  uint32_t static_local_bytes;
  uint32_t max_work_group_size; /* from a native code object's metadata, 0 if unknown */
  /* From a native code object: the arguments are passed as given, with no
   * hidden launch info (kernels/cuda_abi.h) and no grid splitting. */
  bool native_abi;
} agpu_hip_kernel_entry;

typedef struct agpu_hip_program {
  agpu_hipModule_t module;
  uint32_t kernel_count;
  agpu_hip_kernel_entry *kernels;
} agpu_hip_program;

typedef struct agpu_hip_kernel {
  agpu_hipFunction_t function;
  const agpu_hip_kernel_entry *entry;
} agpu_hip_kernel;

static inline agpu_hip_device *agpu_hip_device_of(const agpu_device *device) {
  return (agpu_hip_device *)device->native;
}

/* hip_error.c */
const char *agpu_hip_error_name(const agpu_hip_api *api, agpu_hipError_t error);
const char *agpu_hip_error_string(const agpu_hip_api *api, agpu_hipError_t error);
agpu_status agpu_hip_status(agpu_hipError_t error);
/* Sets "hip: <call> failed: hipErrorName (code): description" with the mapped
 * status; returns it. */
agpu_status agpu_hip_fail(const agpu_hip_api *api, const char *call, agpu_hipError_t error);
/* hipSetDevice for the device, so that the calls after it act on it. */
agpu_status agpu_hip_use(const agpu_hip_device *device);

/* hip_loader.c */
/* NULL (with backend->reason set) when no runtime loads or it lacks a symbol. */
agpu_hip_api *agpu_hip_load(agpu_backend *backend);
/* hiprtc for this process, loaded on the first call (thread-safe); NULL with
 * the reason written to `why` when there is none. `runtime` (may be NULL) is
 * searched first: ROCm 5 carries hiprtc inside libamdhip64. */
const agpu_hiprtc_api *agpu_hiprtc_get(const agpu_hip_api *runtime, char *why, size_t why_size);

/* hip_device.c */
agpu_status agpu_hip_enumerate(agpu_backend *backend, agpu_hip_api *api);
uint32_t agpu_hip_device_caps(agpu_device *device);
agpu_status agpu_hip_device_memory(agpu_device *device, agpu_memory_info *info);
/* FP32 lanes per compute unit per clock for a gfx target, 0 when unknown
 * (see the table in hip_device.c and docs/hip.md). */
uint32_t agpu_hip_fp32_lanes_per_cu(const char *arch);
/* "gfx90a:sramecc+:xnack-" -> "gfx90a". */
void agpu_hip_base_arch(const char *gcn_arch_name, char *arch, size_t arch_size);

/* hip_compile.c: hiprtc in a child process. */
typedef struct agpu_hip_code {
  void *code; /* malloc'd code object, NULL on failure */
  size_t code_size;
  char *log; /* malloc'd hiprtc log, NULL when hiprtc said nothing */
} agpu_hip_code;

#define AGPU_HIP_COMPILE_TIMEOUT_MS_DEFAULT 120000 /* ANYGPU_HIPRTC_TIMEOUT_S overrides */

/* Compiles HIP C++ `source` for `arch` ("gfx90a") with hiprtc, in a child
 * process that is killed after `timeout_ms` (0: the default or
 * $ANYGPU_HIPRTC_TIMEOUT_S). On AGPU_SUCCESS `out` holds the code object (an
 * ELF or a clang offload bundle) and any log. On failure the message says
 * why: the compile errors with hiprtc's log (AGPU_ERROR_BUILD_FAILED), a
 * crash with the signal, a timeout; `out->log` may hold the log. Free `out`
 * with agpu_hip_code_free either way. */
agpu_status agpu_hip_compile(const agpu_hiprtc_api *rtc, const char *source, const char *name,
                             const char *arch, unsigned timeout_ms, agpu_hip_code *out);
void agpu_hip_code_free(agpu_hip_code *code);
/* True for an ELF file or a clang offload bundle. */
bool agpu_hip_is_code_object(const void *data, size_t size);

/* hip_metadata.c: fills hp->kernels from a code object's (or, in an offload
 * bundle, the `arch` entry's) metadata note. */
agpu_status agpu_hip_read_metadata(const void *data, size_t size, const char *arch,
                                   agpu_hip_program *hp);

/* hip_memory.c */
AGPU_DECLARE_MEMORY_OPS(agpu_hip);
agpu_status agpu_hip_buffer_device_address(agpu_buffer *buffer, uint64_t *address);

/* hip_program.c */
/* What a build depends on besides the source (the cache key, the checks). */
typedef struct agpu_hip_build_target {
  const char *arch;     /* "gfx90a" */
  const char *selector; /* for messages: "hip:0" */
  const char *device_name;
  const char *driver_version;
  int runtime_version;
  bool fp64, fp16, int64;
  uint64_t local_mem_bytes; /* 0: unchecked */
} agpu_hip_build_target;

typedef struct agpu_hip_built {
  agpu_hip_program *program; /* the kernels' signatures; no module yet */
  void *code;                /* the code object */
  size_t code_size;
  char *log; /* the translator's warnings or hiprtc's log, NULL when none */
  bool from_cache;
  /* the kernels the HIP target cannot express, left out of the code object
   * (agpu_program_take_refusals records them on the program) */
  agpu_kernel_refusal *refused;
} agpu_hip_built;

/* Everything of agpu_program_build that needs no device: translation,
 * signatures, the kernel cache and hiprtc. Free `out` either way. */
agpu_status agpu_hip_build_code(const agpu_hiprtc_api *rtc, const agpu_hip_build_target *target,
                                const agpu_program_desc *desc, agpu_hip_built *out);
void agpu_hip_built_free(agpu_hip_built *built);
agpu_status agpu_hip_program_build(agpu_program *program, const agpu_program_desc *desc);
agpu_status agpu_hip_program_create_native(agpu_program *program, agpu_native_format format,
                                           const void *data, size_t size, const char *options);
AGPU_DECLARE_KERNEL_OPS(agpu_hip);

/* hip_launch.c */

#endif /* AGPU_HIP_INTERNAL_H */
